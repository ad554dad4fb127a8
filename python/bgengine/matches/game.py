"""The one Python game loop: cubeless and cube games, the match rules and the seed mixer.

Compiled players play whole matches in the compiled core
(:func:`bgengine.core.agents.play_match`).  Everything else that plays a game move
by move from Python — a match against an external-player server or gnubg,
games with the cube, the demonstration game, rollout-target training, the
terminal player's rules — plays by this module:

* :func:`game_decisions`: a game as a generator of :class:`Decision` (and,
  with the cube, of :class:`CubeTurn` before each roll); whoever drives it
  decides who answers.
* :func:`play_game`: a cubeless game between two players.
* :class:`CubeGame`: a game with the doubling cube between two players and
  their cube engines (:class:`bgengine.decisions.engine.Engine`); :meth:`CubeGame.steps`
  is the same game as a generator of plays and :class:`CubeQuestion` (the
  cube actions), and :class:`CubeSeries` a money game or a whole match as one
  (how a pool of gnubg processes plays them, answering gnubg's seats itself).
* :class:`MatchScore`, :func:`match_opening`, :func:`is_crawford_game`,
  :func:`points_scored`: a match's score, who moves first in a match game,
  the Crawford rule, the Jacoby rule.
* :func:`game_seed`: the seed of one play, for players with randomness (a
  tournament's schedule, keyed by player names, has its own hash:
  ``bgengine.matches.tournament.derive_seed``).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from bgengine.core.board import game_result
from bgengine.decisions.cube import CubeInfo
from bgengine.notation.ids import MatchState
from bgengine.core.movegen import legal_afterstates
from bgengine.position import STARTING_BOARD
from bgengine.types import Board, PlayerLike

__all__ = ["MAX_PLAYS", "Decision", "CubeTurn", "CubeQuestion", "game_decisions", "game_seed",
           "play_game", "CubeGame", "CubeSeries", "answer_locally", "MatchScore", "match_opening",
           "is_crawford_game", "points_scored"]

#: A game that has run this long without ending has a bug in it.
MAX_PLAYS = 10000

_MASK63 = (1 << 63) - 1


def game_seed(seed: int, pair: int, game: int, move: int) -> int:
    """The seed of one play (for players with randomness, e.g. ``@EPS``): 63 bits
    mixed from the run's ``seed``, the game ``pair`` (or generation, or any
    outer counter), the ``game`` within it and the ``move`` (any inner counter)."""
    return (seed * 0x9E3779B1 + pair * 0x85EBCA77 + game * 0xC2B2AE3D + move) & _MASK63


@dataclass(frozen=True)
class Decision:
    """One play to choose in a game driven by :func:`game_decisions`.

    ``turn``: the seat on roll (0 or 1; seat ``first`` moves first);
    ``board``: the position, the mover in row 1; ``afterstates``:
    ``legal_afterstates(board, d1, d2)``'s positions (the answer is an index
    into them); ``number``: plays made so far in the game.
    """

    turn: int
    board: Board
    d1: int
    d2: int
    afterstates: np.ndarray
    number: int


class CubeTurn(NamedTuple):
    """The moment before seat ``turn`` rolls (every turn but the opening one),
    when it may double; ``board``: the position, ``turn`` in row 1; ``number``:
    plays made so far.  (A tuple: one is made every turn, and tuples are made fast.)"""

    turn: int
    board: Board
    number: int


def game_decisions(dice, *, first: int = 0, opening: tuple[int, int] | None = None,
                   cube_turns: bool = False, start: Board | None = None,
                   ) -> Generator[Decision | CubeTurn, int | None, tuple[int, int]]:
    """A game from the starting position (or ``start``: any position, seat ``first`` on
    roll in row 1) as a generator.

    Seat ``first`` moves first with ``opening`` (default ``dice.opening_roll()``, or
    ``dice.roll()`` from ``start``), then every turn rolls ``dice.roll()`` (a
    :class:`bgengine.core.dice.Dice`).  Each ``yield`` hands out a
    :class:`Decision` and takes back the index of the chosen play; with
    ``cube_turns`` a :class:`CubeTurn` is handed out before every roll but the
    opening one (send ``None`` to roll on; a game ended there by a dropped
    double is simply not driven further: the dice are not rolled).  The
    generator returns ``(points for seat 0, plays made)`` when the game is
    over (1, 2 or 3 points, signed).  Raises ``ValueError`` for an index out
    of range.
    """
    board = STARTING_BOARD.copy() if start is None else np.array(start, np.uint8)
    turn = first
    if opening is None:             # a game from ``start`` begins with an ordinary roll
        opening = dice.opening_roll() if start is None else dice.roll()
    d1, d2 = opening
    n_moves = 0
    while n_moves < MAX_PLAYS:
        after, _ = legal_afterstates(board, d1, d2)
        k = yield Decision(turn, board, int(d1), int(d2), after, n_moves)
        if not 0 <= k < len(after):
            raise ValueError(f"chose play {k} of {len(after)}")
        n_moves += 1
        a = after[k]
        v = game_result(a)              # > 0 once the mover has borne off all its checkers
        if v:
            return (v if turn == 0 else -v), n_moves
        board = np.ascontiguousarray(a[::-1])
        turn ^= 1
        if cube_turns:
            yield CubeTurn(turn, board, n_moves)
        d1, d2 = dice.roll()
    raise RuntimeError(f"game did not end after {MAX_PLAYS} plays")  # pragma: no cover


def play_game(players: tuple[PlayerLike, PlayerLike], dice, seed: int, pair: int,
              game: int, start: Board | None = None,
              observer: Callable[[Decision], None] | None = None) -> tuple[int, int]:
    """One cubeless game, ``players[0]`` moving first with ``dice.opening_roll()`` (or
    from ``start``, ``players[0]`` on roll in row 1, with ``dice.roll()``); returns ``(points for players[0], plays)``.  Play ``n`` is chosen with
    ``game_seed(seed, pair, game, n)``.  A play index out of range raises
    ``ValueError`` naming the player.  A player with a ``new_game()`` method (a
    UBGI engine) is told when the game begins.  ``observer``, if given, is shown
    every :class:`Decision` before its player chooses."""
    for p in players:
        new_game = getattr(p, "new_game", None)
        if new_game is not None:
            new_game()
    loop = game_decisions(dice, start=start)
    k = None
    while True:
        try:
            d = loop.send(k)
        except StopIteration as done:
            return done.value
        except ValueError as exc:
            raise ValueError(f"{players[d.turn]!r} {exc}") from None
        if observer is not None:
            observer(d)
        k = int(players[d.turn].choose(d.board, d.d1, d.d2, game_seed(seed, pair, game, d.number)))


# ====================================================================== match rules

def match_opening(dice, on_tie: Callable[[int, int], None] | None = None) -> tuple[int, tuple[int, int]]:
    """A match game's opening roll: seat 0's die against seat 1's, ties rolled
    again (``on_tie(die 0, die 1)`` told of each); ``(first seat, (seat 0's die,
    seat 1's))``."""
    while True:
        d1, d2 = dice.roll()
        if d1 != d2:
            return (0 if d1 > d2 else 1), (d1, d2)
        if on_tie is not None:
            on_tie(d1, d2)


def is_crawford_game(match_length: int, score, crawford_done: bool) -> bool:
    """The next game of a match at ``score`` (points of the two sides) is the
    Crawford game: the first game after one side has come within one point of
    winning (not when both have).  Never in money play (``match_length`` 0)."""
    return (match_length > 0 and not crawford_done and match_length - 1 in score
            and score[0] != score[1])


@dataclass
class MatchScore:
    """The running score of a match to ``length`` points (0: money play) between seats
    0 and 1, and the Crawford bookkeeping: call :meth:`start_game` as each game begins
    and :meth:`record` when it ends."""

    length: int = 0
    score: list[int] = field(default_factory=lambda: [0, 0])
    games: int = 0
    crawford_done: bool = False

    @property
    def over(self) -> bool:
        """A side has reached the match length (never in money play)."""
        return self.length > 0 and max(self.score) >= self.length

    def crawford_next(self) -> bool:
        """The next game will be the Crawford game."""
        return not self.over and is_crawford_game(self.length, self.score, self.crawford_done)

    def start_game(self) -> bool:
        """A game begins; True when it is the Crawford game (no later game will be)."""
        crawford = self.crawford_next()
        self.crawford_done = self.crawford_done or crawford
        return crawford

    def record(self, winner: int, points: int) -> None:
        """Seat ``winner`` won the game in progress, worth ``points``."""
        self.score[winner] += points
        self.games += 1


def points_scored(level: int, cube: int, *, jacoby: bool, cube_turned: bool) -> int:
    """Points of a game won (or resigned) at ``level`` (1 single, 2 gammon,
    3 backgammon) with the cube at ``cube``; under the Jacoby rule (money play
    only) gammons count single until the cube has been turned."""
    if jacoby and not cube_turned:
        level = 1
    return level * cube


# ====================================================================== games with the cube

class CubeQuestion(NamedTuple):
    """A cube action asked of seat ``seat`` in a game driven by :meth:`CubeGame.steps`.

    ``kind`` ``"double"``: seat ``seat``, on roll and with access to the cube, may double
    before it rolls (answer True to double); ``"take"``: seat ``seat`` has been doubled
    (answer True to take, False to pass).  ``board``: the position before the roll, the
    side on roll (the doubler) in row 1; ``state``: the cube and score before the double
    (``state.player_on_roll`` is the doubler; ``double_offered`` is set for a take);
    ``number``: plays made so far in the game."""

    kind: str
    seat: int
    board: Board
    state: MatchState
    number: int


class CubeGame:
    """One game with the cube between ``players[0]`` and ``players[1]`` (seats), whose
    cube decisions come from ``engines`` (:class:`bgengine.decisions.engine.Engine`, one a seat).

    ``score``: the match score before the game, seat order; ``crawford``: this is
    the Crawford game; ``jacoby``: money play under the Jacoby rule; play ``n`` is
    chosen with seed ``seed + n`` (63 bits).  After :meth:`play`: ``cube``, ``owner``
    (-1 centred, else the seat), ``doubles``, ``drops``.  ``recorder``, if given, is
    told every action as it happens: ``recorder("play", seat, decision, index)``,
    ``recorder("double" | "take" | "drop", seat)`` (e.g. a
    :class:`bgengine.matchfiles.record.GameRecorder`).  :meth:`steps` plays the same game
    with the answers given from outside (``players`` and ``engines`` unused).
    """

    def __init__(self, players, engines, *, match_length: int, score: list[int], crawford: bool,
                 jacoby: bool, seed: int, recorder=None) -> None:
        self.players, self.engines = players, engines
        self.match_length, self.score, self.crawford = match_length, score, crawford
        self.jacoby, self.seed = jacoby, seed
        self.recorder = recorder
        self.cube, self.owner = 1, -1
        self.doubles = self.drops = 0

    def state(self, on_roll: int, **kw) -> MatchState:
        return MatchState(match_length=self.match_length, score=tuple(self.score), cube=self.cube,
                          cube_owner=self.owner, player_on_roll=on_roll, crawford=self.crawford,
                          jacoby=self.jacoby, **kw)

    def may_double(self, seat: int) -> bool:
        """Seat ``seat``, on roll, has access to the cube and doubling can matter
        (:meth:`bgengine.decisions.cube.CubeInfo.can_double`: not the Crawford game, not a
        dead cube, the cube centred or its own)."""
        return CubeInfo.from_match_state(self.state(seat), seat).can_double()

    def _record(self, kind: str, seat: int, *args) -> None:
        if self.recorder is not None:
            self.recorder(kind, seat, *args)

    def steps(self, dice, first: int, opening: tuple[int, int], start: Board | None = None
              ) -> Generator[Decision | CubeQuestion, int | bool | None, tuple[int, int]]:
        """The game as a generator: it hands out every :class:`Decision` (send back the
        index of the play; the cube and score are :meth:`state` of ``decision.turn``) and
        every :class:`CubeQuestion` (send back True or False), and returns ``(winner seat,
        points won)``.  A double is asked only when :meth:`may_double`; cube actions
        come before every roll except the opening one (``opening``: the first roll,
        from the starting position or from ``start``, seat ``first`` on roll in row 1).
        An index out of range raises ``ValueError``."""
        loop = game_decisions(dice, first=first, opening=opening, cube_turns=True, start=start)
        answer = None
        while True:
            try:
                event = loop.send(answer)
            except StopIteration as done:
                v = done.value[0]
                winner = 0 if v > 0 else 1
                return winner, points_scored(abs(v), self.cube, cube_turned=self.owner != -1,
                                             jacoby=self.match_length == 0 and self.jacoby)
            answer = None
            if isinstance(event, CubeTurn):
                t = event.turn
                if not self.may_double(t):
                    continue
                if not (yield CubeQuestion("double", t, event.board, self.state(t), event.number)):
                    continue
                self.doubles += 1
                self._record("double", t)
                if not (yield CubeQuestion("take", 1 - t, event.board,
                                           self.state(t, double_offered=True), event.number)):
                    self.drops += 1
                    self._record("drop", 1 - t)
                    loop.close()
                    return t, self.cube
                self._record("take", 1 - t)
                self.cube, self.owner = 2 * self.cube, 1 - t
            else:
                answer = yield event
                if 0 <= answer < len(event.afterstates):      # else the loop raises
                    self._record("play", event.turn, event, answer)

    def play(self, dice, first: int, opening: tuple[int, int]) -> tuple[int, int]:
        """Play to the end; ``(winner seat, points won)``.  Cube decisions come
        before every roll except the opening one."""
        steps = self.steps(dice, first, opening)
        answer = None
        while True:
            try:
                event = steps.send(answer)
            except StopIteration as done:
                return done.value
            except ValueError as exc:
                raise RuntimeError(f"{self.players[event.turn]!r} {exc}") from None
            answer = answer_locally(self.players, self.engines, event, self)


def answer_locally(players, engines, event: Decision | CubeQuestion, game: CubeGame) -> int | bool:
    """The answer of ``players[seat]`` (a play: its ``choose`` with seed ``game.seed +
    event.number``, or, for a player that plays at the cube and score, such as
    :class:`bgengine.opponents.gnubg.GnubgPlayer`, its ``choose_cubeful(board, d1, d2, state)``;
    a network player whose engine :attr:`~bgengine.decisions.engine.Engine.plays_at_score`
    plays by :meth:`~bgengine.decisions.engine.Engine.choose_index_at`, cubefully)
    or of ``engines[seat]`` (a cube action: ``can_double`` and ``cube_decision``, or
    ``take_decision``) to one question of ``game``'s :meth:`CubeGame.steps`."""
    if isinstance(event, CubeQuestion):
        engine = engines[event.seat]
        if event.kind == "double":
            return bool(engine.can_double(event.state, event.seat)
                        and engine.cube_decision(event.board, event.state))
        return bool(engine.take_decision(event.board, event.state))
    player = players[event.turn]
    cubeful = getattr(player, "choose_cubeful", None)
    if cubeful is not None:
        return int(cubeful(event.board, event.d1, event.d2, game.state(event.turn)))
    engine = engines[event.turn] if engines is not None else None
    if (engine is not None and getattr(engine, "plays_at_score", False)
            and getattr(player, "network", None) is engine.network is not None):
        # a network player: its play at the cube and score (match-winning chances in a
        # match, cubeful equity in a money game: these games use the cube)
        return int(engine.choose_index_at(event.board, event.d1, event.d2,
                                          game.state(event.turn), cube_in_use=True))
    return int(player.choose(event.board, event.d1, event.d2, (game.seed + event.number) & _MASK63))


class CubeSeries:
    """A money game with the cube (``match_length`` 0) or a match to ``match_length``
    points (Crawford rule) between seats 0 and 1 on ``dice``, as one generator:
    :meth:`steps` hands out the questions of :meth:`CubeGame.steps`, game after game.

    Money play starts with seat 0 on roll (``dice.opening_roll()``); a match game with
    :func:`match_opening`.  Game ``k`` of the series is a :class:`CubeGame` with seed
    ``game_seed(seed, pair, g, k * 1000003)`` (its plays' seeds: that plus the play's
    number); ``game`` is the game in progress.  After the series: ``winner`` (the seat
    that won the money game or the match), ``points`` (the money game's points; in a
    match those of its last game), ``score``, ``games``, ``doubles``, ``drops`` and
    ``cube_sum`` (final cube values added up over the games)."""

    def __init__(self, dice, *, match_length: int = 0, jacoby: bool = False, seed: int = 0,
                 pair: int = 0, g: int = 0, players=None, engines=None) -> None:
        self.dice, self.match_length, self.jacoby = dice, match_length, jacoby
        self.seed, self.pair, self.g = seed, pair, g
        self.players, self.engines = players, engines
        self.score = MatchScore(match_length)
        self.game: CubeGame | None = None
        self.winner = self.points = -1
        self.games = self.doubles = self.drops = self.cube_sum = 0

    def steps(self) -> Generator[Decision | CubeQuestion, int | bool | None, int]:
        """The series as a generator (see :meth:`CubeGame.steps`); returns the winning seat."""
        match = self.score
        while True:
            crawford = match.start_game()
            self.game = game = CubeGame(
                self.players, self.engines, match_length=self.match_length,
                score=list(match.score), crawford=crawford,
                jacoby=self.jacoby and self.match_length == 0,
                seed=game_seed(self.seed, self.pair, self.g, match.games * 1000003))
            if self.match_length == 0:
                first, opening = 0, self.dice.opening_roll()
            else:
                first, opening = match_opening(self.dice)
            winner, pts = yield from game.steps(self.dice, first, opening)
            match.record(winner, pts)
            self.games += 1
            self.doubles += game.doubles
            self.drops += game.drops
            self.cube_sum += game.cube
            self.points = pts
            if self.match_length == 0 or match.over:
                self.winner = winner
                return winner

    def play(self, observer: Callable[[Decision, CubeGame], None] | None = None) -> int:
        """Play the series with ``players`` and ``engines`` (as :meth:`CubeGame.play`);
        returns the winning seat.  ``observer(decision, game)`` sees every play's
        :class:`Decision` before it is answered, with the game it is in."""
        steps = self.steps()
        answer = None
        while True:
            try:
                event = steps.send(answer)
            except StopIteration as done:
                return done.value
            except ValueError as exc:
                raise RuntimeError(f"{self.players[event.turn]!r} {exc}") from None
            assert self.game is not None
            if observer is not None and isinstance(event, Decision):
                observer(event, self.game)
            answer = answer_locally(self.players, self.engines, event, self.game)
