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
(:func:`bgengine.notation.moves.parse_move`).  ``; [Tag "value"]`` lines are the
metadata; a money session is a ``0 point match``.  The format does not say
whether the Jacoby rule was played: bgengine writes a ``; [Jacoby "On"]`` line
(other programs skip unknown tags) and, when reading a money session without
it, takes the Jacoby rule to be on only if the results need it.

Files other programs write (eXtreme Gammon, Backgammon Studio, GammonView, ...) are
read as gnubg's ``import mat`` reads them: a UTF-8 byte-order mark, CRLF line ends,
``#`` comments as well as ``;``, a Crawford mark after ``Game N``, a rating after a
name (``alice,1650``), ``bar``/``off`` and ``13/7(2)``, ``Cannot Move`` and
eXtreme Gammon's ``???`` (read as the dice alone), a numbered line with nothing on
it, ``Resigns`` (the win after it says the rest), the points the match needed as the
last game's result (``Wins 1 point and the match`` with the cube on 2: the game's
points are kept, as gnubg keeps them), games after the match was won (left out).
The dice alone are read as gnubg reads them
(:func:`bgengine.matchfiles.reading.settle_unplayed_rolls`): no legal play, one (forced),
or the roll of a player who then resigned.

Every file read is replayed (:func:`bgengine.matchfiles.record.checked`): an illegal
play or a garbled line raises :class:`bgengine.matchfiles.record.MatchRecordError`
naming the game, the move number, what is wrong and the line.  What was read
with something to know is said with a :class:`bgengine.matchfiles.record.MatchFileWarning`
(``warnings``): where the match stops when that is short of its end (unfinished,
or a file cut at a line boundary), a ``Doubles => N`` whose N is not the cube's
new value (ignored, as gnubg ignores it), games left out after the match was won.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import replace

from bgengine.matches.game import is_crawford_game
from bgengine.matchfiles.record import (Action, Double, Drop, GameRecord, MatchFileWarning, MatchRecord,
                                  MatchRecordError, Play, Resign, Take, Win, check_scores, checked,
                                  infer_resignations, move_numbers, replay_game)
from bgengine.matchfiles.reading import settle_unplayed_rolls, stops_short
from bgengine.notation.moves import format_steps_plain, parse_move

__all__ = ["read_mat", "write_mat", "mat_head", "mat_game", "saved_session", "RIGHT_COLUMN"]

#: An action starting at this column or further right is player 1's (gnubg writes
#: player 1's column at column 33, player 0's at 5).
RIGHT_COLUMN = 20

_TAG = re.compile(r'[;#]\s*\[\s*(?P<key>[^"\]]+?)\s+"(?P<value>.*)"\s*\]\s*$')
_LENGTH = re.compile(r"\s*(?P<n>\d+)\s+point\s+match\s*$", re.I)
_GAME = re.compile(r"\s*Game\s+(?P<n>\d+)(?P<rest>.*)$", re.I)
#: What may follow "Game N" on its line: a mark of the Crawford game, which the rules
#: decide anyway (gnubg reads the number only).
_GAME_MARK = re.compile(r"[(\[-]?\s*(?:post[- ]?)?crawford(?:\s+game)?\s*[)\]]?", re.I)
_SCORE = re.compile(r"\s*(?P<n0>\S.*?)\s*:\s*(?P<s0>\d+)\s+(?P<n1>\S.*?)\s*:\s*(?P<s1>\d+)\s*$")
_NUMBER = re.compile(r"\s*(?P<n>\d+)\)")
_ACTION = re.compile(r"(?P<roll>(?<![\d/])[1-6][1-6]:)"
                     r"|(?P<double>Doubles?(?:\s*=>\s*(?P<cube>\d+))?)"
                     r"|(?P<take>Takes?\b)|(?P<drop>Drops?\b)|(?P<beaver>Beavers|Raccoons)"
                     r"|(?P<resign>Resigns?\b)"
                     r"|(?P<win>Wins\s+(?P<points>\d+)\s+points?(?:\s+and\s+the\s+match)?)", re.I)
#: A roll's text that says no play was written: eXtreme Gammon's "???" (a roll the
#: player resigned after), Backgammon Studio's "Cannot Move" (no legal play).
_NO_PLAY = re.compile(r"\?{3,4}|can(?:no|')t\s+move", re.I)
#: gnubg takes ", <rating>" after a name off it (GamesGrid writes the players' ratings so).
_RATING = re.compile(r",\s*\+?0*[1-9]\d*(?:\.\d*)?\s*$")


# ====================================================================== reading

class _Reader:
    """The line-by-line state of one file being read."""

    def __init__(self) -> None:
        self.match = MatchRecord(players=("", ""), length=-1)
        self.game: GameRecord | None = None
        self.scored = False                                  # the game's score line read
        self.header_line = 0                                 # the line of its "Game N"
        self.game_lines: list[int] = []                      # every game's "Game N" line
        self.slots: list[tuple[int, Action | None]] = []   # (line, action) by slot
        self.next_number = 1
        self.lineno = 0
        self.last_line = 0                                   # the last line with anything
        self.lines: dict[tuple[int, int], int] = {}          # (game, move) -> line
        #: every "Doubles => N" read, in order: (game, N or None, line, its text)
        self.doubles: list[tuple[int, int | None, int, str]] = []
        #: what the reader left out, for a warning each: (note, line)
        self.notes: list[tuple[str, int]] = []

    def fail(self, reason: str, move: int | None = None) -> MatchRecordError:
        game = len(self.match.games) if self.game is not None else None
        return MatchRecordError(reason, game, move, self.lineno)

    def line(self, text: str) -> None:
        if not text.strip():
            return
        self.last_line = self.lineno
        if text.lstrip().startswith((";", "#")):     # a comment; tags are "; [Key "value"]"
            m = _TAG.match(text.strip())
            if m:
                self.match.metadata[m["key"]] = m["value"]
            return
        if m := _LENGTH.match(text):
            if self.match.length != -1 or self.game is not None:
                raise self.fail("a second 'N point match' line")
            self.match.length = int(m["n"])
            return
        if (m := _GAME.match(text)) and (not m["rest"].strip()
                                         or _GAME_MARK.fullmatch(m["rest"].strip())):
            self.end_game()
            if int(m["n"]) != len(self.match.games) + 1:
                raise MatchRecordError(f"game {m['n']} follows game {len(self.match.games)}",
                                       len(self.match.games) + 1, None, self.lineno)
            self.game = GameRecord()
            self.match.games.append(self.game)
            self.slots, self.next_number, self.scored = [], 1, False
            self.header_line = self.lineno
            self.game_lines.append(self.lineno)
            return
        if self.game is None:
            raise self.fail(f"unexpected line before the first game: {text.strip()!r}")
        if not self.scored:
            m = _SCORE.match(text)
            if not m or _NUMBER.match(text):
                raise self.fail(f"no score line ('name : score   name : score') after 'Game "
                                f"{len(self.match.games)}', but {text.strip()!r}")
            self.score_line(m)
            return
        m = _NUMBER.match(text)
        if m:
            self.move_line(int(m["n"]), text, m.end())
        else:
            self.unnumbered_line(text)

    def score_line(self, m: re.Match) -> None:
        names = (_name(m["n0"]), _name(m["n1"]))
        if len(self.match.games) == 1:
            self.match.players = names
        elif names != self.match.players:
            raise self.fail(f"players {names[0]!r} and {names[1]!r}, but game 1 was between "
                            f"{self.match.players[0]!r} and {self.match.players[1]!r}")
        assert self.game is not None
        self.game.score = (int(m["s0"]), int(m["s1"]))
        self.scored = True

    def actions_in(self, text: str, start: int, number: int | None) -> list[tuple[int, Action]]:
        """The actions in ``text[start:]`` with their columns (a "Resigns" is none: the win
        that follows it says the rest)."""
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
                if _NO_PLAY.fullmatch(tail):
                    tail = ""                      # settled later, the way gnubg reads it
                try:
                    steps = tuple(parse_move(tail)) if tail else ()
                except ValueError as exc:
                    raise self.fail(f"{m['roll']} {tail}: {exc}", number) from None
                action: Action = Play(-1, (int(m["roll"][0]), int(m["roll"][1])), steps)
            elif tail:
                raise self.fail(f"cannot read {tail!r} after {m.group(0)!r}", number)
            elif m["resign"]:
                continue
            elif m["double"]:
                action = Double(-1)
                self.doubles.append((len(self.match.games), None if m["cube"] is None
                                     else int(m["cube"]), self.lineno, m.group(0)))
            elif m["take"]:
                action = Take(-1)
            elif m["drop"]:
                action = Drop(-1)
            elif m["beaver"]:
                raise self.fail("beavers and raccoons are not supported", number)
            else:
                action = Win(-1, int(m["points"]))
            out.append((m.start(), action))
        return out

    def move_line(self, number: int, text: str, start: int) -> None:
        found = self.actions_in(text, start, number)
        if not found:
            # a numbered line with nothing on it (or a resignation alone, the win on a line
            # of its own): Backgammon Studio ends a game so, GammonView before a win
            if number == self.next_number:
                self.next_number += 1
            return
        if number != self.next_number:
            raise self.fail(f"move {number} where move {self.next_number} was expected", number)
        if self.game is not None and self.game.actions:
            raise self.fail("a move after the game's result", number)
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
        else:
            col, a = found[0]
            sides = [None, a] if col >= RIGHT_COLUMN else [a, None]
        for side, a in enumerate(sides):
            self.slots.append((number, None if a is None else replace(a, player=side)))
        self.next_number += 1

    def unnumbered_line(self, text: str) -> None:
        found = self.actions_in(text, 0, None)
        if not found and _ACTION.search(text):
            return                                  # "Resigns" alone: the win follows
        if len(found) != 1 or not isinstance(found[0][1], Win):
            raise self.fail(f"cannot read {text.strip()!r}")
        col, win = found[0]
        self.win(replace(win, player=1 if col >= RIGHT_COLUMN else 0))

    def win(self, win: Win) -> None:
        assert self.game is not None
        if self.game.actions:
            raise self.fail("a second result for the game")
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
        if self.game is not None:
            if not self.scored:
                raise MatchRecordError(f"no score line ('name : score   name : score') after "
                                       f"'Game {len(self.match.games)}'",
                                       len(self.match.games), None, self.header_line)
            if self.slots:
                self.flush()
        self.game = None

    def finish(self) -> MatchRecord:
        m = self.match
        if self.game is not None and not self.scored:
            # the file stops at a "Game N" line: the game is not there to read (gnubg's way)
            m.games.pop()
            self.game = None
            self.last_line = self.header_line
        self.end_game()
        if m.length == -1:
            raise MatchRecordError("no 'N point match' line")
        if m.length:
            over = next((i for i in range(1, len(m.games)) if _won(m, i - 1)), None)
            if over is not None:
                # gnubg leaves out the games a file holds after the match was won
                g = m.games[over]
                what = "it is" if over + 1 == len(m.games) else "the games from it are"
                self.notes.append((f"game {over + 1} starts at {g.score[0]}-{g.score[1]}, after "
                                   f"the {m.length}-point match was won: {what} left out, as "
                                   "gnubg leaves them", self.game_lines[over]))
                del m.games[over:]
        if not m.games:
            raise MatchRecordError("no games")
        return m


def _won(match: MatchRecord, index: int) -> bool:
    """Game ``index``'s result, as the file gives it, wins the match."""
    g = match.games[index]
    win = g.actions[-1] if g.actions and isinstance(g.actions[-1], Win) else None
    return (win is not None and win.player in (0, 1)
            and g.score[win.player] + win.points >= match.length)


def _name(text: str) -> str:
    """A player's name as the score line gives it, a rating after it taken off."""
    return " ".join(_RATING.sub("", text).split()) or text.strip()


def read_mat(text: str, *, jacoby: bool | None = None) -> MatchRecord:
    """The match (or money session) in a ``.mat`` file's ``text``, checked.

    ``jacoby``: whether a money session was played under the Jacoby rule; ``None``
    (the default) reads the file's ``; [Jacoby "On"]`` tag, or else takes the rule
    to be on only if the results need it.  Raises
    :class:`bgengine.matchfiles.record.MatchRecordError` (a ``ValueError``) naming the
    game, move and line of an illegal play or a garbled line.

    What gnubg's ``import mat`` reads, this reads the same (a byte-order mark, CRLF,
    ``#`` comments, the dice of a player who then resigned, ``???``, ``Cannot Move``,
    the points a match needed as its last game's result); a
    :class:`bgengine.matchfiles.record.MatchFileWarning` says what the reader should know:
    where the match stops when that is short of its end (an unfinished match, or a
    file cut at a line boundary: what is there is read), a double whose stated value is
    not the cube's (the number is ignored, as gnubg ignores it), games after the match
    was won (left out, as gnubg leaves them).
    """
    if text.startswith("\ufeff"):                   # the byte-order mark of some writers
        text = text[1:]
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
            match = _checked(replace(match, jacoby=bool(jacoby) and not match.length))
        else:
            try:
                match = _checked(match)
            except MatchRecordError as plain:
                try:
                    match = _checked(replace(match, jacoby=True))
                except MatchRecordError:
                    raise plain from None
    except MatchRecordError as exc:
        if exc.line is None and exc.move is not None:
            raise MatchRecordError(exc.reason, exc.game, exc.move,
                                   reader.lines.get((exc.game, exc.move))) from None
        raise
    _warn(reader, match)
    return match


def _warn(reader: _Reader, match: MatchRecord) -> None:
    """The warnings of :func:`read_mat` about ``match``, as ``reader`` read it."""
    for note, line in reader.notes:
        warnings.warn(MatchFileWarning(note, line), stacklevel=3)
    stated: dict[int, list[tuple[int | None, int, str]]] = {}
    for game, value, line, text in reader.doubles:
        stated.setdefault(game, []).append((value, line, text))
    for i, g in enumerate(match.games):
        said, cube = stated.get(i + 1, []), 1
        for a, number in zip(g.actions, move_numbers(g.actions)):
            if isinstance(a, Double) and said:
                value, line, text = said.pop(0)
                if value is not None and value != 2 * cube:
                    warnings.warn(MatchFileWarning(
                        f"game {i + 1}, move {number}: {text!r}, but the cube is at {cube}: "
                        f"the double is to {2 * cube} (the number is ignored, as gnubg "
                        "ignores it)", line), stacklevel=3)
            elif isinstance(a, Take):
                cube *= 2
    note = stops_short(match)
    if note is not None and not saved_session(match):
        warnings.warn(MatchFileWarning(note, reader.last_line), stacklevel=3)


def saved_session(match: MatchRecord) -> bool:
    """``match`` is a session bgengine saves as it is played (its ``; [bgengine ...]``
    tags, :mod:`bgengine.matchfiles.session_file`): unfinished on purpose, read without a warning
    that it stops short."""
    return any(key.startswith("bgengine ") for key in match.metadata)


def _on(value: str) -> bool:
    return value.strip().lower() in ("on", "yes", "true", "1")


def _checked(match: MatchRecord) -> MatchRecord:
    return checked(infer_resignations(settle_unplayed_rolls(match)))


# ====================================================================== writing

def _one_line(text: object) -> str:
    """``text`` on one line: a name or tag read from another format (an ``.sgf`` value
    may hold line breaks) must not break the file's lines."""
    return " ".join(str(text).splitlines())


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
    out = [f'; [{_one_line(key)} "{_one_line(value)}"]' for key, value in match.metadata.items()]
    if match.length == 0 and match.jacoby:
        out.append('; [Jacoby "On"]')
    if match.length and not match.crawford_rule:        # the rule is taken to be on without it
        out.append('; [Crawford "Off"]')
    out += ["", f" {match.length} point match", ""]
    return "\n".join(out) + "\n"


def mat_game(match: MatchRecord, index: int) -> str:
    """Game ``index`` (0-based) of ``match`` as its part of the ``.mat`` file, the game
    replayed (:class:`MatchRecordError`; the scores from game to game are
    :func:`bgengine.matchfiles.record.check_scores`'s to check).  :func:`write_mat` is
    :func:`mat_head` and every game's part, in order."""
    lines: list[list[str]] = []

    def put(player: int, text: str) -> None:
        if not lines or len(lines[-1]) == 2 or (player == 0 and len(lines[-1]) == 1):
            lines.append([])
            if player == 1:
                lines[-1].append("")
        lines[-1].append(text)

    g = match.games[index]
    names = [_one_line(p) for p in match.players]
    left = f"{names[0]} : {g.score[0]}"
    # player 1's column; a longer name still needs a blank before it, or the line
    # reads back as no score line
    left = f"{left:<31}" if len(left) < 31 else left + " "
    out = [f" Game {index + 1}", f" {left}{names[1]} : {g.score[1]}"]
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
