"""GNU Backgammon's ``.sgf`` match file (Smart Game Format, game 6), read and written.

A file is a collection of game trees, one per game; gnubg writes, and reads, each
game's main line only::

    (;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:3][game:0][ws:0][bs:0]
      PW[alice]PB[bob]RU[Crawford]RE[B+2]
    ;B[63aggj]
    ;W[double]
    ;B[take]
    ...)

The root node holds the match: ``MI`` (length, 0-based game number, White's and
Black's scores), ``PW``/``PB`` (the names), ``RU`` (``Crawford``,
``Crawford:CrawfordGame`` in the Crawford game, ``Jacoby``), ``RE`` (the winner,
``W`` or ``B``, and the points; ``R`` when resigned), and the date, event, round,
place, annotator and comment (``DT``, ``EV``, ``RO``, ``PC``, ``AN``, ``GC``).
Every other node is an action of Black (``B``, gnubg's player 1) or White
(``W``, player 0): ``double``, ``take``, ``drop``, or the dice and up to four
single-die steps, two letters each: ``a``..``x`` the points (from White's
1-point for White, from Black's 24-point for Black), ``y`` the bar, ``z`` off.
Analysis properties (``A``, ``DA``, ``LU``, ...) and comments are skipped;
positions set up by hand (``AE``, ``AB``, ``AW``, ``CV``, ``CP``) are refused.

Every file read is replayed (:func:`bgengine.matchfiles.record.checked`): an illegal
play or a garbled node raises :class:`bgengine.matchfiles.record.MatchRecordError`
naming the game, the move number, what is wrong and the line.
"""

from __future__ import annotations

import warnings

from bgengine.matchfiles.record import (Action, Double, Drop, GameRecord, MatchFileWarning, MatchRecord,
                                  MatchRecordError, Play, Resign, Take, Win, checked,
                                  infer_resignations, move_numbers, replay)
from bgengine.matchfiles.reading import stops_short
from bgengine.types import Step

__all__ = ["read_sgf", "write_sgf", "parse_collection"]

#: Root properties kept as metadata, with the ``.mat`` tag each is written as there.
_METADATA = {"EV": "Event", "RO": "Round", "PC": "Site", "AN": "Transcriber", "GC": "Comment"}
#: Node properties that set up a position by hand: not a played game.
_SETUP = ("AE", "AB", "AW", "CV", "CP")

Node = dict[str, list[str]]


# ====================================================================== the SGF syntax

def parse_collection(text: str) -> list[list[tuple[int, Node]]]:
    """The game trees of an SGF collection: for each, the main line's nodes as
    ``(line number, {property: [values]})``.  Raises :class:`MatchRecordError`
    for a syntax error."""
    pos, n = 0, len(text)
    games: list[list[tuple[int, Node]]] = []

    def line_at(p: int) -> int:
        return text.count("\n", 0, p) + 1

    def fail(reason: str, p: int) -> MatchRecordError:
        return MatchRecordError(f"SGF syntax: {reason}", None, None, line_at(p))

    def skip() -> None:
        nonlocal pos
        while pos < n and text[pos].isspace():
            pos += 1

    def value() -> str:
        nonlocal pos
        start = pos
        pos += 1                                   # '['
        out = []
        while pos < n and text[pos] != "]":
            if text[pos] == "\\" and pos + 1 < n:
                pos += 1
                if text[pos] == "\n":              # a soft line break
                    pos += 1
                    continue
            out.append(text[pos])
            pos += 1
        if pos >= n:
            raise fail("a value is not closed with ']'", start)
        pos += 1
        return "".join(out)

    def node() -> tuple[int, Node]:
        nonlocal pos
        at = line_at(pos)
        pos += 1                                   # ';'
        props: Node = {}
        while True:
            skip()
            if pos >= n or not text[pos].isalpha():
                return at, props
            start = pos
            while pos < n and text[pos].isalpha():
                pos += 1
            name = "".join(ch for ch in text[start:pos] if ch.isupper())
            skip()
            if pos >= n or text[pos] != "[":
                raise fail(f"property {text[start:pos]!r} has no value", start)
            values = []
            while pos < n and text[pos] == "[":
                values.append(value())
                skip()
            props.setdefault(name, []).extend(values)

    def tree(main: bool) -> list[tuple[int, Node]]:
        nonlocal pos
        start = pos
        pos += 1                                   # '('
        nodes = []
        first_child = True
        while True:
            skip()
            if pos >= n:
                raise fail("a game tree is not closed with ')'", start)
            ch = text[pos]
            if ch == ";":
                if not first_child:
                    raise fail("a node after a variation", pos)
                nodes.append(node())
            elif ch == "(":
                child = tree(main and first_child)
                if main and first_child:
                    nodes += child
                first_child = False
            elif ch == ")":
                pos += 1
                return nodes
            else:
                raise fail(f"unexpected {ch!r}", pos)

    while True:
        skip()
        if pos >= n:
            break
        if text[pos] != "(":
            raise fail(f"unexpected {text[pos]!r} (a game tree begins with '(')", pos)
        games.append(tree(True))
    return games


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


# ====================================================================== reading

def _point(ch: str, player: int) -> int:
    """A move letter as a point in the mover's numbering (25 = bar, 0 = off)."""
    if ch == "y":
        return 25
    if ch == "z":
        return 0
    if not "a" <= ch <= "x":
        raise ValueError(f"{ch!r} is not a point (a..x, y = bar, z = off)")
    k = ord(ch) - ord("a")
    return k + 1 if player == 0 else 24 - k


def _letter(point: int, player: int) -> str:
    if point == 25:
        return "y"
    if point == 0:
        return "z"
    return chr(ord("a") + (point - 1 if player == 0 else 24 - point))


def _action(player: int, text: str) -> Action:
    """A ``B``/``W`` property's value as an action of ``player``."""
    word = text.strip().lower()
    if word == "double":
        return Double(player)
    if word == "take":
        return Take(player)
    if word == "drop":
        return Drop(player)
    if word in ("beaver", "raccoon"):
        raise ValueError("beavers and raccoons are not supported")
    if len(word) < 2 or not all(c in "123456" for c in word[:2]):
        raise ValueError(f"{text!r} is neither a cube action nor a roll (two dice 1..6)")
    letters = word[2:]
    if len(letters) % 2 or len(letters) > 8:
        raise ValueError(f"{text!r}: a play is up to four pairs of letters")
    steps: list[Step] = []
    for k in range(0, len(letters), 2):
        steps.append((_point(letters[k], player), _point(letters[k + 1], player)))
    return Play(player, (int(word[0]), int(word[1])), tuple(steps))


def _root(match: MatchRecord, index: int, line: int, props: Node) -> GameRecord:
    """Game ``index``'s root node: the match's settings (checked against the first
    game's) and the game's score and Crawford flag."""
    def fail(reason: str) -> MatchRecordError:
        return MatchRecordError(reason, index + 1, None, line)

    if props.get("GM", ["6"])[0].strip() != "6":
        raise fail(f"not a backgammon game (GM[{props['GM'][0]}]; backgammon is GM[6])")
    info = {}
    for v in props.get("MI", []):
        key, _, val = v.partition(":")
        info[key.strip()] = val.strip()
    try:
        length = int(info.get("length", "0"))
        score = (int(info.get("ws", "0")), int(info.get("bs", "0")))
    except ValueError:
        raise fail(f"bad match information MI{props.get('MI')}") from None
    names = (props.get("PW", ["White"])[0], props.get("PB", ["Black"])[0])
    rules = [r.strip() for r in props.get("RU", [])]
    crawford = any(r == "Crawford:CrawfordGame" for r in rules)
    if index == 0:
        match.players, match.length = names, length
        match.crawford_rule = any(r.startswith("Crawford") for r in rules)
        match.jacoby = "Jacoby" in rules and length == 0
        if "DT" in props:
            match.metadata["EventDate"] = props["DT"][0].replace("-", ".")
        for prop, tag in _METADATA.items():
            if prop in props:
                match.metadata[tag] = props[prop][0]
    elif (names, length) != (match.players, match.length):
        raise fail(f"players {names} in a {length}-point match, but game 1 was {match.players} "
                   f"in a {match.length}-point match")
    if "game" in info and info["game"] != str(index):
        raise fail(f"the file numbers this game {info['game']} (from 0), expected {index}")
    return GameRecord(score, [], crawford)


def _result(props: Node) -> Win | None:
    """The ``RE`` property as a win: ``W+2``, ``B+1R``, ...; ``None`` without one."""
    if "RE" not in props:
        return None
    text = props["RE"][0].strip()
    if len(text) < 3 or text[0] not in "WB" or text[1] != "+":
        raise ValueError(f"cannot read the result RE[{text}]")
    digits = "".join(c for c in text[2:] if c.isdigit())
    if not digits:
        raise ValueError(f"cannot read the result RE[{text}]")
    return Win(1 if text[0] == "B" else 0, int(digits))


def read_sgf(text: str) -> MatchRecord:
    """The match (or money session) in an ``.sgf`` file's ``text``, checked.

    Raises :class:`bgengine.matchfiles.record.MatchRecordError` (a ``ValueError``)
    naming the game, move and line of an illegal play or a garbled node.  A match
    that stops short of its end (unfinished, or a collection cut between two game
    trees) is read with a :class:`bgengine.matchfiles.record.MatchFileWarning` saying where.
    """
    if text.startswith("\ufeff"):                   # the byte-order mark of some writers
        text = text[1:]
    trees = parse_collection(text)
    if not trees:
        raise MatchRecordError("no games in the SGF file")
    match = MatchRecord()
    lines: dict[tuple[int, int], int] = {}       # (game, move) -> line of its first node
    for i, nodes in enumerate(trees):
        if not nodes:
            raise MatchRecordError("an empty game tree", i + 1)
        line, root = nodes[0]
        game = _root(match, i, line, root)
        for line, props in nodes[1:]:
            if any(p in props for p in _SETUP):
                raise MatchRecordError("a position set up by hand (AE/AB/AW/CV/CP) is not a played "
                                       "game", i + 1, None, line)
            moves = [(p, props[p][0]) for p in ("B", "W") if p in props]
            if not moves:
                continue                          # dice set, comments, analysis only
            if len(moves) > 1:
                raise MatchRecordError("a node with moves of both players", i + 1, None, line)
            prop, value = moves[0]
            player = 1 if prop == "B" else 0
            try:
                game.actions.append(_action(player, value))
            except ValueError as exc:
                numbers = move_numbers(game.actions + [Double(player)])
                raise MatchRecordError(f"{prop}[{value}]: {exc}", i + 1, numbers[-1], line) from None
        try:
            win = _result(root)
        except ValueError as exc:
            raise MatchRecordError(str(exc), i + 1, None, nodes[0][0]) from None
        if win is not None:
            game.actions.append(win)
        match.games.append(game)
        node_lines = [line for line, props in nodes[1:] if "B" in props or "W" in props]
        for number, line in zip(move_numbers(game.actions), node_lines):
            lines.setdefault((i + 1, number), line)
    try:
        match = checked(infer_resignations(match))
    except MatchRecordError as exc:
        if exc.line is None and exc.move is not None:
            raise MatchRecordError(exc.reason, exc.game, exc.move,
                                   lines.get((exc.game, exc.move))) from None
        raise
    note = stops_short(match)
    if note is not None:
        warnings.warn(MatchFileWarning(note, trees[-1][-1][0]), stacklevel=2)
    return match


# ====================================================================== writing

def write_sgf(match: MatchRecord, *, application: str = "bgengine") -> str:
    """``match`` as an ``.sgf`` file's text, one game tree per game, as gnubg's
    ``save match`` writes it (without analysis).  The match is replayed first
    (:class:`MatchRecordError` if it breaks the rules); a resignation is written
    as its result (``RE[W+2R]``), as gnubg writes it."""
    out: list[str] = []
    roots: list[str] = []
    per_game: list[list[str]] = [[] for _ in match.games]
    for m in replay(match):
        a = m.action
        who = "B" if a.player == 1 else "W"
        if isinstance(a, Play):
            assert m.move is not None
            d1, d2 = a.dice
            letters = "".join(_letter(s, a.player) + _letter(t, a.player) for s, t in m.move.steps)
            per_game[m.game].append(f";{who}[{d1}{d2}{letters}]")
        elif isinstance(a, Double):
            per_game[m.game].append(f";{who}[double]")
        elif isinstance(a, Take):
            per_game[m.game].append(f";{who}[take]")
        elif isinstance(a, Drop):
            per_game[m.game].append(f";{who}[drop]")
    for i, g in enumerate(match.games):
        root = (f"(;FF[4]GM[6]CA[UTF-8]AP[{_escape(application)}]"
                f"MI[length:{match.length}][game:{i}][ws:{g.score[0]}][bs:{g.score[1]}]"
                f"PW[{_escape(match.players[0])}]PB[{_escape(match.players[1])}]")
        if i == 0:
            if "EventDate" in match.metadata:
                root += f"DT[{_escape(match.metadata['EventDate'].replace('.', '-'))}]"
            for prop, tag in _METADATA.items():
                if tag in match.metadata:
                    root += f"{prop}[{_escape(match.metadata[tag])}]"
        if match.length and match.crawford_rule:
            root += "RU[Crawford:CrawfordGame]" if g.crawford else "RU[Crawford]"
        elif not match.length and match.jacoby:
            root += "RU[Jacoby]"
        win = g.win
        if win is not None:
            resigned = len(g.actions) > 1 and isinstance(g.actions[-2], Resign)
            root += f"RE[{'B' if win.player == 1 else 'W'}+{win.points}{'R' if resigned else ''}]"
        roots.append(root)
    for root, moves in zip(roots, per_game):
        out.append(root + "".join("\n" + mv for mv in moves) + ")\n")
    return "".join(out)
