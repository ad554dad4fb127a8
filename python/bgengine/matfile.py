"""The ``.mat`` match file (Jellyfish's text format), read and written.

The format GNU Backgammon writes with ``export match mat`` and reads with
``import mat``::

    ; [Event "Club night"]

     3 point match

     Game 1
     alice : 0                      bob : 0
      1)                             63: 24/18 18/15
      2) 65: 24/18 18/13             11: 15/14 14/13 6/5 6/5
      ...
     12) 66:                          Doubles => 2
     13)  Drops
                                      Wins 1 point

Each numbered line holds an action of player 0 (left column) and then one of
player 1 (right column): a roll and its play (``63: 24/18 18/15``; a roll with
nothing after it: no legal play), `` Doubles => 2``, `` Takes``, `` Drops``; a
line ``Wins N points`` in a player's column ends the game.  A game that ends
with a ``Wins`` line although no drop or last checker ended it was resigned
(the format has no other mark for a resignation).  Points are in the mover's
numbering, 25 = bar, 0 = off; plays are read with gnubg's own move parser
(:func:`bgengine.notation.parse_move`).  ``; [Tag "value"]`` lines are the
metadata; a money session is a ``0 point match``.  The format does not say
whether the Jacoby rule was played: bgengine writes a ``; [Jacoby "On"]`` line
(other programs skip unknown tags) and, when reading a money session without
it, takes the Jacoby rule to be on only if the results need it.

Every file read is replayed (:func:`bgengine.matchrecord.checked`): an illegal
play or a garbled line raises :class:`bgengine.matchrecord.MatchRecordError`
naming the game, the move number, what is wrong and the line.
"""

from __future__ import annotations

import re
from dataclasses import replace

from bgengine.game import is_crawford_game
from bgengine.matchrecord import (Action, Double, Drop, GameRecord, MatchRecord, MatchRecordError,
                                  Play, Resign, Take, Win, check_scores, checked,
                                  infer_resignations, replay_game)
from bgengine.notation import format_steps_plain, parse_move

__all__ = ["read_mat", "write_mat", "mat_head", "mat_game", "RIGHT_COLUMN"]

#: An action starting at this column or further right is player 1's (gnubg writes
#: player 1's column at column 33, player 0's at 5).
RIGHT_COLUMN = 20

_TAG = re.compile(r';\s*\[\s*(?P<key>[^"\]]+?)\s+"(?P<value>.*)"\s*\]\s*$')
_LENGTH = re.compile(r"\s*(?P<n>\d+)\s+point\s+match\s*$", re.I)
_GAME = re.compile(r"\s*Game\s+(?P<n>\d+)\s*$", re.I)
_SCORE = re.compile(r"\s*(?P<n0>\S.*?)\s*:\s*(?P<s0>\d+)\s+(?P<n1>\S.*?)\s*:\s*(?P<s1>\d+)\s*$")
_NUMBER = re.compile(r"\s*(?P<n>\d+)\)")
_ACTION = re.compile(r"(?P<roll>(?<![\d/])[1-6][1-6]:)|(?P<double>Doubles\s*=>\s*(?P<cube>\d+))"
                     r"|(?P<take>Takes)|(?P<drop>Drops)|(?P<beaver>Beavers|Raccoons)"
                     r"|(?P<win>Wins\s+(?P<points>\d+)\s+points?(?:\s+and\s+the\s+match)?)", re.I)


# ====================================================================== reading

class _Reader:
    """The line-by-line state of one file being read."""

    def __init__(self) -> None:
        self.match = MatchRecord(players=("", ""), length=-1)
        self.game: GameRecord | None = None
        self.slots: list[tuple[int, Action | None]] = []   # (line, action) by slot
        self.next_number = 1
        self.lineno = 0
        self.lines: dict[tuple[int, int], int] = {}          # (game, move) -> line

    def fail(self, reason: str, move: int | None = None) -> MatchRecordError:
        game = len(self.match.games) if self.game is not None else None
        return MatchRecordError(reason, game, move, self.lineno)

    def line(self, text: str) -> None:
        if not text.strip():
            return
        if text.lstrip().startswith(";"):
            m = _TAG.match(text.strip())
            if m:
                self.match.metadata[m["key"]] = m["value"]
            return
        if m := _LENGTH.match(text):
            if self.match.length != -1 or self.game is not None:
                raise self.fail("a second 'N point match' line")
            self.match.length = int(m["n"])
            return
        if m := _GAME.match(text):
            self.end_game()
            if int(m["n"]) != len(self.match.games) + 1:
                raise MatchRecordError(f"game {m['n']} follows game {len(self.match.games)}",
                                       len(self.match.games) + 1, None, self.lineno)
            self.game = GameRecord()
            self.match.games.append(self.game)
            self.slots, self.next_number = [], 1
            return
        if self.game is None:
            raise self.fail(f"unexpected line before the first game: {text.strip()!r}")
        if not self.game.actions and not self.slots and (m := _SCORE.match(text)) \
                and not _NUMBER.match(text):
            self.score_line(m)
            return
        m = _NUMBER.match(text)
        if m:
            self.move_line(int(m["n"]), text, m.end())
        else:
            self.unnumbered_line(text)

    def score_line(self, m: re.Match) -> None:
        names = (m["n0"], m["n1"])
        if len(self.match.games) == 1:
            self.match.players = names
        elif names != self.match.players:
            raise self.fail(f"players {names[0]!r} and {names[1]!r}, but game 1 was between "
                            f"{self.match.players[0]!r} and {self.match.players[1]!r}")
        assert self.game is not None
        self.game.score = (int(m["s0"]), int(m["s1"]))

    def actions_in(self, text: str, start: int, number: int | None) -> list[tuple[int, Action]]:
        """The actions in ``text[start:]`` with their columns."""
        found = list(_ACTION.finditer(text, start))
        if not found:
            if text[start:].strip():
                raise self.fail(f"cannot read {text[start:].strip()!r}", number)
            return []
        garbage = text[start:found[0].start()].strip()
        if garbage:
            raise self.fail(f"cannot read {garbage!r}", number)
        out = []
        for k, m in enumerate(found):
            end = found[k + 1].start() if k + 1 < len(found) else len(text)
            tail = text[m.end():end].strip()
            if m["roll"]:
                try:
                    steps = tuple(parse_move(tail)) if tail else ()
                except ValueError as exc:
                    raise self.fail(f"{m['roll']} {tail}: {exc}", number) from None
                action: Action = Play(-1, (int(m["roll"][0]), int(m["roll"][1])), steps)
            elif tail:
                raise self.fail(f"cannot read {tail!r} after {m.group(0)!r}", number)
            elif m["double"]:
                action = Double(-1)
            elif m["take"]:
                action = Take(-1)
            elif m["drop"]:
                action = Drop(-1)
            elif m["beaver"]:
                raise self.fail("beavers and raccoons are not supported", number)
            else:
                action = Win(-1, int(m["points"]))
            out.append((m.start(), action))
        # gnubg writes the dice a player rolled before resigning ("42:  Wins 2 points"):
        # the roll was never played
        return [(col, a) for k, (col, a) in enumerate(out)
                if not (isinstance(a, Play) and not a.steps and k + 1 < len(out)
                        and isinstance(out[k + 1][1], Win))]

    def move_line(self, number: int, text: str, start: int) -> None:
        if number != self.next_number:
            raise self.fail(f"move {number} where move {self.next_number} was expected", number)
        if self.game is not None and self.game.actions:
            raise self.fail("a move after the game's result", number)
        found = self.actions_in(text, start, number)
        self.lines[(len(self.match.games), number)] = self.lineno
        if len(found) == 1 and isinstance(found[0][1], Win):
            # eXtreme Gammon numbers the line of a win alone ("29)       Wins 4 point")
            col, win = found[0]
            self.win(replace(win, player=1 if col >= RIGHT_COLUMN else 0))
            return
        if len(found) > 2:
            raise self.fail(f"{len(found)} actions on one line (a line holds one of each player)",
                            number)
        if len(found) == 2:
            sides = [found[0][1], found[1][1]]
        elif len(found) == 1:
            col, a = found[0]
            sides = [None, a] if col >= RIGHT_COLUMN else [a, None]
        else:
            raise self.fail("an empty move line", number)
        for side, a in enumerate(sides):
            self.slots.append((number, None if a is None else replace(a, player=side)))
        self.next_number += 1

    def unnumbered_line(self, text: str) -> None:
        found = self.actions_in(text, 0, None)
        if len(found) != 1 or not isinstance(found[0][1], Win):
            raise self.fail(f"cannot read {text.strip()!r}")
        col, win = found[0]
        self.win(replace(win, player=1 if col >= RIGHT_COLUMN else 0))

    def win(self, win: Win) -> None:
        assert self.game is not None
        self.flush()
        self.game.actions.append(win)

    def flush(self) -> None:
        """The game's slots become its actions: no empty slot but at the very start
        and the very end."""
        assert self.game is not None
        slots = self.slots
        while slots and slots[-1][1] is None:
            slots.pop()
        for k, (number, a) in enumerate(slots):
            if a is None:
                if k == 0:
                    continue
                raise self.fail(f"nothing for player {k % 2} in the middle of the game", number)
            if isinstance(a, Win):
                if k != len(slots) - 1:
                    raise self.fail(f"player {a.player} wins, but the game goes on", number)
            self.game.actions.append(a)
        self.slots = []

    def end_game(self) -> None:
        if self.game is not None and self.slots:
            self.flush()
        self.game = None

    def finish(self) -> MatchRecord:
        self.end_game()
        m = self.match
        if m.length == -1:
            raise MatchRecordError("no 'N point match' line")
        if not m.games:
            raise MatchRecordError("no games")
        return m


def read_mat(text: str, *, jacoby: bool | None = None) -> MatchRecord:
    """The match (or money session) in a ``.mat`` file's ``text``, checked.

    ``jacoby``: whether a money session was played under the Jacoby rule; ``None``
    (the default) reads the file's ``; [Jacoby "On"]`` tag, or else takes the rule
    to be on only if the results need it.  Raises
    :class:`bgengine.matchrecord.MatchRecordError` (a ``ValueError``) naming the
    game, move and line of an illegal play or a garbled line.
    """
    reader = _Reader()
    for reader.lineno, line in enumerate(text.splitlines(), 1):
        reader.line(line.rstrip("\r\n"))
    match = reader.finish()
    tag = match.metadata.pop("Jacoby", None)
    if jacoby is None and tag is not None:
        jacoby = _on(tag)
    if "Crawford" in match.metadata:                  # eXtreme Gammon writes the rule
        match.crawford_rule = _on(match.metadata.pop("Crawford"))
    crawford_done = False                             # the format leaves the Crawford game implied
    for g in match.games:
        g.crawford = match.crawford_rule and is_crawford_game(match.length, g.score, crawford_done)
        crawford_done = crawford_done or g.crawford
    try:
        if match.length or jacoby is not None:
            return _checked(replace(match, jacoby=bool(jacoby) and not match.length))
        try:
            return _checked(match)
        except MatchRecordError as plain:
            try:
                return _checked(replace(match, jacoby=True))
            except MatchRecordError:
                raise plain from None
    except MatchRecordError as exc:
        if exc.line is None and exc.move is not None:
            raise MatchRecordError(exc.reason, exc.game, exc.move,
                                   reader.lines.get((exc.game, exc.move))) from None
        raise


def _on(value: str) -> bool:
    return value.strip().lower() in ("on", "yes", "true", "1")


def _checked(match: MatchRecord) -> MatchRecord:
    return checked(infer_resignations(match))


# ====================================================================== writing

def _plural(points: int) -> str:
    return f"{points} point{'s' if points != 1 else ''}"


def write_mat(match: MatchRecord) -> str:
    """``match`` as a ``.mat`` file's text, laid out as gnubg's ``export match mat``
    lays it out.  The match is replayed first (:class:`MatchRecordError` if it
    breaks the rules); a resignation is written as its result, as the format has it.
    A last game with no action yet is written as its header (gnubg imports it so)."""
    check_scores(match)
    return mat_head(match) + "".join(mat_game(match, i) for i in range(len(match.games)))


def mat_head(match: MatchRecord) -> str:
    """The head of ``match``'s ``.mat`` file: its tags and the ``N point match`` line."""
    out = [f'; [{key} "{value}"]' for key, value in match.metadata.items()]
    if match.length == 0 and match.jacoby:
        out.append('; [Jacoby "On"]')
    if match.length and not match.crawford_rule:        # the rule is taken to be on without it
        out.append('; [Crawford "Off"]')
    out += ["", f" {match.length} point match", ""]
    return "\n".join(out) + "\n"


def mat_game(match: MatchRecord, index: int) -> str:
    """Game ``index`` (0-based) of ``match`` as its part of the ``.mat`` file, the game
    replayed (:class:`MatchRecordError`; the scores from game to game are
    :func:`bgengine.matchrecord.check_scores`'s to check).  :func:`write_mat` is
    :func:`mat_head` and every game's part, in order."""
    lines: list[list[str]] = []

    def put(player: int, text: str) -> None:
        if not lines or len(lines[-1]) == 2 or (player == 0 and len(lines[-1]) == 1):
            lines.append([])
            if player == 1:
                lines[-1].append("")
        lines[-1].append(text)

    g = match.games[index]
    left = f"{match.players[0]} : {g.score[0]}"
    out = [f" Game {index + 1}", f" {left:<31}{match.players[1]} : {g.score[1]}"]
    win: Win | None = None
    for m in replay_game(match, index):
        a = m.action
        if isinstance(a, Play):
            d1, d2 = a.dice
            assert m.move is not None
            put(a.player, f"{d1}{d2}: {format_steps_plain(m.move.steps, m.position.board)}".rstrip())
        elif isinstance(a, Double):
            put(a.player, f" Doubles => {2 * m.state.cube}")
        elif isinstance(a, Take):
            put(a.player, " Takes")
        elif isinstance(a, Drop):
            put(a.player, " Drops")
        elif isinstance(a, Win):
            win = a
        elif not isinstance(a, Resign):          # a resignation shows only as its result
            raise AssertionError(a)  # pragma: no cover
    # gnubg's layout: player 1's win shares the line of player 0's last action (a
    # drop, a resignation); any other win has a line of its own in its column
    own_line = win is not None and not (win.player == 1 and lines and len(lines[-1]) == 1)
    if win is not None and not own_line:
        lines[-1].append(f"Wins {_plural(win.points)}")
    for n, (left, *right) in enumerate(lines, 1):
        out.append(f"{n:3d}) {left:<27} {right[0] if right else ''}".rstrip())
    if win is not None and own_line:
        pad = " " * 34 if win.player == 1 else " " * 6
        out.append(f"{pad}Wins {_plural(win.points)}")
    out.append("")
    return "\n".join(out) + "\n"
