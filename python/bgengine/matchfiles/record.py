"""A played match or money session as a record, and its replay.

The record is what the match files (:mod:`bgengine.matchfiles.mat`, :mod:`bgengine.matchfiles.sgf`) read
and write, and what analysis and saved sessions build on:

* :class:`MatchRecord`: the two players' names, the match length (0 = a money
  session), the rules (Crawford, Jacoby), free-form metadata, and the games.
* :class:`GameRecord`: the score when the game began, whether it is the Crawford
  game, and its actions in order: :class:`Play` (a roll and the play made),
  :class:`Double`, :class:`Take`, :class:`Drop`, :class:`Resign` (resigned and
  accepted) and, last in a finished game, :class:`Win`.

Players are numbered as GNU Backgammon numbers them: player 0 is the left column
of a ``.mat`` file and White (``W``) in ``.sgf``; player 1 is the right column and
Black (``B``).  A play's ``steps`` are single-die steps ``(from, to)`` in the
mover's numbering (25 = bar, 0 = off).

:func:`replay` checks a record against the rules, with bgengine's own legal plays
(:func:`bgengine.notation.moves.match_move`, the way gnubg matches a play's text) and
its match rules (:mod:`bgengine.matches.game`), and yields a :class:`Moment` for every
action: the position and :class:`bgengine.notation.ids.MatchState` just before it.  Any
problem raises :class:`MatchRecordError` naming the game, the move number (the
numbered line of a ``.mat`` file: a line holds one action of each player) and
what is wrong.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Union

import numpy as np

from bgengine.core.board import game_result
from bgengine.matches.game import is_crawford_game, points_scored
from bgengine.notation.ids import GAME_DROP, GAME_OVER, GAME_RESIGNED, MatchState
from bgengine.core.movegen import legal_afterstates
from bgengine.notation.moves import format_move, format_steps_plain, match_move
from bgengine.position import STARTING_BOARD, Move, Position
from bgengine.types import Step

__all__ = ["Play", "Double", "Take", "Drop", "Resign", "Win", "Action", "GameRecord",
           "MatchRecord", "Moment", "MatchRecordError", "replay", "replay_game", "move_numbers",
           "describe",
           "checked", "check_scores", "infer_resignations", "MatchFileWarning", "GameRecorder",
           "GameStanding", "game_standing"]


# ====================================================================== actions

@dataclass(frozen=True)
class Play:
    """``player`` rolled ``dice`` (as rolled, either order) and played ``steps``
    (empty: no legal play)."""

    player: int
    dice: tuple[int, int]
    steps: tuple[Step, ...] = ()


@dataclass(frozen=True)
class Double:
    """``player`` doubled before rolling."""

    player: int


@dataclass(frozen=True)
class Take:
    """``player`` took the double just offered."""

    player: int


@dataclass(frozen=True)
class Drop:
    """``player`` dropped (passed) the double just offered; the game ends."""

    player: int


@dataclass(frozen=True)
class Resign:
    """``player`` resigned a ``level`` (1 single, 2 gammon, 3 backgammon) game and the
    opponent accepted; the game ends."""

    player: int
    level: int


@dataclass(frozen=True)
class Win:
    """``player`` won the game and ``points`` points (the cube included)."""

    player: int
    points: int


Action = Union[Play, Double, Take, Drop, Resign, Win]


@dataclass
class GameRecord:
    """One game: ``score`` (player 0's, player 1's points) when it began,
    ``crawford`` (it is the Crawford game) and its ``actions`` in order."""

    score: tuple[int, int] = (0, 0)
    actions: list[Action] = field(default_factory=list)
    crawford: bool = False

    @property
    def win(self) -> Win | None:
        """The game's result, ``None`` while it is unfinished."""
        return self.actions[-1] if self.actions and isinstance(self.actions[-1], Win) else None


@dataclass
class MatchRecord:
    """A match to ``length`` points (0: a money session) between ``players``
    (player 0's and player 1's names).

    ``crawford_rule``: the Crawford rule is played (matches); ``jacoby``: the
    Jacoby rule (money sessions); ``metadata``: free-form tags (``"Event"``,
    ``"EventDate"``, ``"Site"``, ``"Round"``, ...; the ``.mat`` header's names).
    """

    players: tuple[str, str] = ("Player 0", "Player 1")
    length: int = 0
    games: list[GameRecord] = field(default_factory=list)
    crawford_rule: bool = True
    jacoby: bool = False
    metadata: dict[str, str] = field(default_factory=dict)


class MatchRecordError(ValueError):
    """A record (or the file it was read from) breaks the rules or cannot be read.

    ``game``: 1-based game number (``None`` outside any game); ``move``: the move
    number (the numbered line of a ``.mat`` file) or ``None``; ``reason``: what
    is wrong; ``line``: the file's line number and ``path`` its name, when known.
    """

    def __init__(self, reason: str, game: int | None = None, move: int | None = None,
                 line: int | None = None, path: str | None = None) -> None:
        self.reason, self.game, self.move, self.line, self.path = reason, game, move, line, path
        where = ", ".join(w for w in (f"game {game}" if game is not None else "",
                                      f"move {move}" if move is not None else "") if w)
        text = f"{where}: {reason}" if where else reason
        if path is not None:
            text = f"{path}: {text}"
        if line is not None:
            text += f" (line {line})"
        super().__init__(text)


class MatchFileWarning(UserWarning):
    """A match file was read, with something its reader should know: it stops short of
    the match's end (unfinished, or cut at a line boundary), a double states a cube value
    other than the cube's, games after the match was won were left out...

    ``note``: what it is; ``line``: the file's line, when known; ``path``: the file's
    name, when known.  Issued with :func:`warnings.warn` (the command line prints each
    as ``bgengine: warning: FILE: ...``)."""

    def __init__(self, note: str, line: int | None = None, path: str | None = None) -> None:
        self.note, self.line, self.path = note, line, path
        text = note if line is None else f"{note} (line {line})"
        super().__init__(text if path is None else f"{path}: {text}")


# ====================================================================== move numbers

def move_numbers(actions: list[Action]) -> list[int]:
    """The move number of each action, as a ``.mat`` file numbers its lines: each line
    holds an action of player 0 (left) and then one of player 1 (right); a game that
    player 1 begins leaves the first line's left half empty.  A :class:`Win` has
    the number of the line it follows."""
    numbers = []
    slot = 0
    for k, a in enumerate(actions):
        if isinstance(a, Win):
            numbers.append(numbers[-1] if numbers else 1)
            continue
        if k == 0 and a.player == 1:
            slot = 1
        numbers.append(slot // 2 + 1)
        slot += 1
    return numbers


# ====================================================================== replay

@dataclass(frozen=True)
class Moment:
    """The state just before ``action``: ``game`` (0-based index), ``number`` (its
    move number), ``position`` (the board with ``state.player_on_roll`` in row 1,
    as gnubg's Position ID and Match ID pair it) and ``state`` (cube, score, dice
    for a play, ``double_offered`` while a double is answered, ``resignation``
    while a resignation is, ``turn`` = the player who acts).  ``move``: for a
    :class:`Play`, the legal play it is (bgengine's steps and notation)."""

    game: int
    number: int
    action: Action
    position: Position
    state: MatchState
    move: Move | None = None

    def describe(self) -> str:
        """The action in words, a play in gnubg's notation (``31: 8/5 6/5``), a double
        with the cube's new value (``doubles to 2``); see :func:`describe`."""
        return describe(self.action, play=None if self.move is None else self.move.notation,
                        cube=self.state.cube)


def describe(action: Action, *, play: str | None = None, cube: int | None = None) -> str:
    """An action in words: ``31: 8/5 6/5`` (``play``: the play's text, default its
    steps one by one), ``doubles`` (``doubles to 4`` given the ``cube`` before it),
    ``takes``, ``drops``, ``resigns a gammon``, ``wins 2 points``."""
    if isinstance(action, Play):
        d1, d2 = action.dice
        text = format_steps_plain(action.steps) if play is None else play
        return f"{d1}{d2}: {text or '(no legal play)'}"
    if isinstance(action, Double) and cube is not None:
        return f"doubles to {2 * cube}"
    if isinstance(action, Resign):
        return f"resigns {('a single game', 'a gammon', 'a backgammon')[action.level - 1]}"
    if isinstance(action, Win):
        return f"wins {action.points} point{'s' if action.points != 1 else ''}"
    return type(action).__name__.lower() + "s"


class _GameReplay:
    """The rules applied to one game's actions, one at a time."""

    def __init__(self, match: MatchRecord, index: int, game: GameRecord) -> None:
        self.match, self.index, self.game = match, index, game
        self.board = STARTING_BOARD.copy()   # from `on_roll`'s side (row 1)
        self.on_roll = -1                    # -1 until the opening roll
        self.cube, self.owner = 1, -1
        self.pending_double = -1             # the doubler while a double is answered
        self.ended: tuple[int, int] | None = None   # (winner, points) once over

    def state(self, **kw) -> MatchState:
        m = self.match
        return MatchState(match_length=m.length, score=self.game.score, cube=self.cube,
                          cube_owner=self.owner, player_on_roll=max(self.on_roll, 0),
                          crawford=self.game.crawford and m.length > 0,
                          jacoby=m.jacoby if m.length == 0 else False, **kw)

    def _points(self, level: int) -> int:
        m = self.match
        return points_scored(level, self.cube, jacoby=m.length == 0 and m.jacoby,
                             cube_turned=self.owner != -1)

    def _turn_to(self, player: int) -> None:
        """Make ``player`` the player on roll (its side in row 1)."""
        if self.on_roll != player:
            if self.on_roll != -1:
                self.board = np.ascontiguousarray(self.board[::-1])
            self.on_roll = player

    def apply(self, action: Action) -> Moment:
        """Check ``action`` and move the game on; the Moment before it."""
        if self.ended is not None and not isinstance(action, Win):
            raise ValueError(f"{describe(action)} after the game is over")
        p = action.player
        if p not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {p!r}")
        if isinstance(action, Play):
            return self._play(action)
        if isinstance(action, Double):
            return self._double(action)
        if isinstance(action, (Take, Drop)):
            return self._answer(action)
        if isinstance(action, Resign):
            return self._resign(action)
        if isinstance(action, Win):
            return self._win(action)
        raise ValueError(f"unknown action {action!r}")

    def _moment(self, action: Action, move: Move | None = None, **kw) -> Moment:
        return Moment(self.index, 0, action, Position(self.board), self.state(**kw), move)

    def _play(self, a: Play) -> Moment:
        if self.pending_double != -1:
            raise ValueError(f"a roll ({describe(a)}) while a double waits for an answer")
        if self.on_roll not in (-1, a.player):
            raise ValueError(f"player {a.player} rolls, but it is player {self.on_roll}'s turn")
        try:
            d1, d2 = (int(d) for d in a.dice)
        except (TypeError, ValueError):
            raise ValueError(f"bad dice {a.dice!r}") from None
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise ValueError(f"bad dice {d1}{d2}: each die is 1..6")
        if self.on_roll == -1 and d1 == d2:
            raise ValueError(f"the opening roll cannot be a double ({d1}{d2})")
        self._turn_to(a.player)
        text = format_steps_plain(a.steps)
        try:
            k = match_move(self.board, d1, d2, text)
        except ValueError as exc:
            raise ValueError(f"{d1}{d2}: {text or '(no play)'}: {exc}") from None
        after, steps = legal_afterstates(self.board, d1, d2)
        seq = tuple((int(x), int(y)) for x, y in steps[k] if x >= 0)
        move = Move(seq, format_move(self.board, seq), Position(after[k][::-1]))
        moment = self._moment(a, move, dice=(d1, d2))
        self.board = np.ascontiguousarray(after[k])
        v = game_result(self.board)
        if v:
            self.ended = (a.player, self._points(v))
        else:
            self._turn_to(1 - a.player)
        return moment

    def _double(self, a: Double) -> Moment:
        if self.on_roll == -1:
            raise ValueError("a double before the opening roll")
        if self.pending_double != -1:
            raise ValueError("a double while a double waits for an answer")
        if a.player != self.on_roll:
            raise ValueError(f"player {a.player} doubles, but it is player {self.on_roll}'s turn")
        if self.game.crawford and self.match.length:
            raise ValueError("a double in the Crawford game")
        if self.owner == 1 - a.player:
            raise ValueError(f"player {a.player} doubles, but player {self.owner} owns the cube")
        moment = self._moment(a)
        self.pending_double = a.player
        return moment

    def _answer(self, a: Take | Drop) -> Moment:
        doubler = self.pending_double
        if doubler == -1 or a.player != 1 - doubler:
            raise ValueError(f"player {a.player} {'takes' if isinstance(a, Take) else 'drops'}, "
                             "but no double is offered to it")
        moment = self._moment(a, turn=a.player, double_offered=True)
        self.pending_double = -1
        if isinstance(a, Take):
            self.cube, self.owner = 2 * self.cube, a.player
        else:
            self.ended = (doubler, self.cube)
        return moment

    def _resign(self, a: Resign) -> Moment:
        if self.on_roll == -1:
            raise ValueError("a resignation before the opening roll")
        if a.level not in (1, 2, 3):
            raise ValueError(f"a resignation is of 1, 2 or 3 (single, gammon, backgammon), "
                             f"got {a.level!r}")
        moment = self._moment(a, turn=1 - a.player, resignation=a.level)
        self.pending_double = -1
        self.ended = (1 - a.player, self._points(a.level))
        return moment

    def _win(self, a: Win) -> Moment:
        if self.ended is None:
            raise ValueError(f"player {a.player} {describe(a)}, but the game is not over "
                             "(no drop, resignation or last checker off)")
        winner, points = self.ended
        if (a.player, a.points) != (winner, points):
            if a.player != winner or not _match_points(self.match, self.game, a, points):
                raise ValueError(f"player {a.player} {describe(a)}, but the game gives player "
                                 f"{winner} {points} point{'s' if points != 1 else ''}")
            a = Win(winner, points)           # the points the match needed: the game's are kept
        how = GAME_DROP if isinstance(self.game.actions[-2], Drop) else (
            GAME_RESIGNED if isinstance(self.game.actions[-2], Resign) else GAME_OVER)
        score = list(self.game.score)
        return Moment(self.index, 0, a, Position(self.board),
                      replace(self.state(), game_state=how,
                              score=(score[0] + points * (winner == 0),
                                     score[1] + points * (winner == 1))))


def _match_points(match: MatchRecord, game: GameRecord, win: Win, points: int) -> bool:
    """``win`` records the points the match needed (the winner's score and they make the
    match length) rather than the game's ``points``, which are more: some programs write
    the last game of a match so ("Wins 1 point and the match" with the cube on 2)."""
    return (match.length > 0 and 0 < win.points < points
            and game.score[win.player] + win.points == match.length)


def replay_game(match: MatchRecord, index: int) -> Iterator[Moment]:
    """Replay game ``index`` (0-based) of ``match``: a :class:`Moment` per action.

    Raises :class:`MatchRecordError` at the first action that breaks the rules (an
    illegal play, a double out of turn, a take with no double, a result that does
    not follow from the game, an action after the end, a :class:`Win` that is not
    last...).  A last game's :class:`Win` may record the points the match needed
    rather than the game's, which are more: its moment holds the game's.  Only the game
    itself is checked; :func:`replay` also checks the
    scores and the Crawford game from game to game.
    """
    return _replayed(_GameReplay(match, index, match.games[index]))


def _replayed(rules: _GameReplay) -> Iterator[Moment]:
    """``rules.game``'s actions applied to ``rules`` one by one (see :func:`replay_game`)."""
    game, index = rules.game, rules.index
    numbers = move_numbers(game.actions)
    for k, action in enumerate(game.actions):
        if isinstance(action, Win) and k != len(game.actions) - 1:
            raise MatchRecordError(f"{describe(action)} before the last action", index + 1,
                                   numbers[k])
        try:
            moment = rules.apply(action)
        except ValueError as exc:
            raise MatchRecordError(str(exc), index + 1, numbers[k]) from None
        yield replace(moment, number=numbers[k])


@dataclass(frozen=True)
class GameStanding:
    """Where game ``game`` (0-based) stands after its recorded actions: ``position``
    (row 1 = ``on_roll``), ``on_roll`` (-1 before the opening roll), the ``cube``'s
    value and its ``owner`` (-1 centred), ``doubler`` (the player whose double waits
    for an answer, else -1), ``plays`` made so far and ``result`` (``(winner,
    points)`` once the game is decided, else ``None``)."""

    game: int
    position: Position
    on_roll: int
    cube: int
    owner: int
    doubler: int
    plays: int
    result: tuple[int, int] | None


def game_standing(match: MatchRecord, index: int) -> GameStanding:
    """Game ``index`` of ``match`` replayed to its last action (a :class:`Win`
    included); :class:`MatchRecordError` as :func:`replay_game` raises it."""
    rules = _GameReplay(match, index, match.games[index])
    plays = sum(isinstance(m.action, Play) for m in _replayed(rules))
    return GameStanding(index, Position(rules.board), rules.on_roll, rules.cube, rules.owner,
                        rules.pending_double, plays, rules.ended)


def check_scores(match: MatchRecord) -> None:
    """Every game's starting score and Crawford flag follow from the games before it
    (:class:`MatchRecordError` if not; the games' actions are :func:`replay_game`'s to
    check).  The first game may start at any score (a record of a match's later part);
    if it is not marked Crawford where it could be, the Crawford game was before it."""
    if match.length < 0:
        raise MatchRecordError(f"match length must be 0 (money) or more, got {match.length}")
    score = tuple(match.games[0].score) if match.games else (0, 0)
    crawford_done = bool(match.games) and not match.games[0].crawford and is_crawford_game(
        match.length, score, False)
    for i, g in enumerate(match.games):
        if i and tuple(g.score) != score:
            raise MatchRecordError(f"the score {g.score[0]}-{g.score[1]} does not follow from the "
                                   f"games before (expected {score[0]}-{score[1]})", i + 1)
        if match.length:
            if max(score) >= match.length:
                raise MatchRecordError(f"a game after the match was won ({score[0]}-{score[1]} "
                                       f"in a {match.length}-point match)", i + 1)
            expected = match.crawford_rule and is_crawford_game(match.length, score, crawford_done)
            if g.crawford != expected:
                raise MatchRecordError("this is " + ("" if expected else "not ")
                                       + f"the Crawford game at {score[0]}-{score[1]}", i + 1)
            crawford_done = crawford_done or expected
        elif g.crawford:
            raise MatchRecordError("a Crawford game in a money session", i + 1)
        win = g.win
        if win is None:
            if i != len(match.games) - 1:
                raise MatchRecordError("the game has no result, but another game follows", i + 1)
            continue
        s = list(score)
        s[win.player] += win.points
        score = (s[0], s[1])


def replay(match: MatchRecord) -> Iterator[Moment]:
    """Replay every game of ``match`` (see :func:`replay_game`), after checking that
    each game's score and Crawford flag follow from the games before it (the first
    game's score is where the record starts: 0-0 for a whole match)."""
    check_scores(match)
    for i in range(len(match.games)):
        yield from replay_game(match, i)


def checked(match: MatchRecord) -> MatchRecord:
    """``match`` replayed (:class:`MatchRecordError` if it breaks the rules), with
    each play's steps replaced by those of bgengine's legal play that it is: two
    records of the same match compare equal whichever way their files spelled a play
    (``8/5 6/5`` or ``6/5 8/5``, ``13/11 11/8`` or ``13/10 10/8``)."""
    games = [GameRecord(g.score, [], g.crawford) for g in match.games]
    for m in replay(match):
        a = m.action
        if isinstance(a, Play):
            assert m.move is not None
            a = Play(a.player, (int(a.dice[0]), int(a.dice[1])), m.move.steps)
        games[m.game].actions.append(a)
    return replace(match, games=games)


def infer_resignations(match: MatchRecord) -> MatchRecord:
    """Where a game ends with a :class:`Win` although no drop, resignation or last
    checker ended it, the loser resigned: a :class:`Resign` is put before the win,
    of the level its points give (``points / cube``; the file formats record a
    resignation only by its result; points the match needed, fewer than a whole game,
    give the least level that wins them, as gnubg reads them).  The games are otherwise
    unchanged.  Raises
    :class:`MatchRecordError` as :func:`replay` does for the games' scores and for
    the actions before each win."""
    check_scores(match)
    games = []
    for i, g in enumerate(match.games):
        win = g.win
        if win is None or (len(g.actions) > 1 and isinstance(g.actions[-2], (Drop, Resign))):
            games.append(g)
            continue
        rules = _GameReplay(match, i, g)
        numbers = move_numbers(g.actions)
        for k, action in enumerate(g.actions[:-1]):
            try:
                rules.apply(action)
            except ValueError as exc:
                raise MatchRecordError(str(exc), i + 1, numbers[k]) from None
        if rules.ended is not None:
            games.append(g)
            continue
        level = win.points // rules.cube       # under the Jacoby rule a gammon may count 1
        if win.points % rules.cube or level not in (1, 2, 3):
            if not _match_points(match, g, win, 3 * rules.cube):
                raise MatchRecordError(f"player {win.player} wins {win.points} points with the "
                                       f"cube at {rules.cube}: not a single game, gammon or "
                                       "backgammon", i + 1, numbers[-1])
            # the points the match needed: the least resignation that gives them, as gnubg
            # reads it (a single game when they are no more than the cube)
            level = next(n for n in (1, 2, 3) if win.points <= n * rules.cube)
        actions = g.actions[:-1] + [Resign(1 - win.player, level), win]
        games.append(GameRecord(g.score, actions, g.crawford))
    return replace(match, games=games)


# ====================================================================== recording

class GameRecorder:
    """Records a game played by :class:`bgengine.matches.game.CubeGame` (pass it as the
    game's ``recorder``): ``record.actions`` fill as the game is played; call
    :meth:`finish` with the result.  Player numbers are the game's seats."""

    def __init__(self, score: tuple[int, int] = (0, 0), crawford: bool = False) -> None:
        self.record = GameRecord((int(score[0]), int(score[1])), [], crawford)

    def __call__(self, kind: str, seat: int, decision=None, index: int | None = None) -> None:
        """One event of the game: ``"play"`` (with the :class:`bgengine.matches.game.Decision`
        and the chosen play's index), ``"double"``, ``"take"``, ``"drop"`` or ``"resign"``
        (the level, 1-3, as ``decision``; the resignation was accepted)."""
        acts = self.record.actions
        if kind == "play":
            _, steps = legal_afterstates(decision.board, decision.d1, decision.d2)
            seq = tuple((int(a), int(b)) for a, b in steps[index] if a >= 0)
            acts.append(Play(seat, (decision.d1, decision.d2), seq))
        elif kind == "double":
            acts.append(Double(seat))
        elif kind == "take":
            acts.append(Take(seat))
        elif kind == "drop":
            acts.append(Drop(seat))
        elif kind == "resign":
            acts.append(Resign(seat, int(decision)))
        else:
            raise ValueError(f"unknown game event {kind!r}")

    def finish(self, winner: int, points: int) -> GameRecord:
        """The game is over: ``winner`` (seat) won ``points``; the finished record."""
        self.record.actions.append(Win(int(winner), int(points)))
        return self.record


def play_recorded_match(players, engines, names: tuple[str, str], length: int,
                        seed: int) -> MatchRecord:
    """A ``length``-point match (0: one money game) played by :class:`bgengine.matches.game.CubeGame`
    with ``players`` and their cube ``engines`` (seat 0, seat 1) on the dice of ``seed``,
    recorded move by move under the players' ``names``."""
    from bgengine.core.dice import Dice
    from bgengine.matches.game import CubeGame, MatchScore, game_seed, match_opening

    dice = Dice(seed)
    score = MatchScore(length)
    record = MatchRecord(players=tuple(names), length=length)
    while True:
        crawford = score.start_game()
        recorder = GameRecorder(tuple(score.score), crawford)
        game = CubeGame(players, engines, match_length=length, score=list(score.score),
                        crawford=crawford, jacoby=False, seed=game_seed(seed, 0, 0, score.games),
                        recorder=recorder)
        first, opening = match_opening(dice)
        winner, points = game.play(dice, first, opening)
        record.games.append(recorder.finish(winner, points))
        score.record(winner, points)
        if length == 0 or score.over:
            return record
