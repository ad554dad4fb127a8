"""A pool of gnubg processes that plays whole games, many at once, driven from one
thread (see the package docstring for how and why)."""

from __future__ import annotations

import logging
import selectors
import tempfile
import time
from collections import deque
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bgengine.core.dice import Dice
from bgengine.matches.game import (CubeQuestion, CubeSeries, Decision, answer_locally, game_decisions,
                           game_seed)
from bgengine.opponents.gnubg.binary import GnubgError, find_gnubg
from bgengine.opponents.gnubg.driver import BadReply, GnubgSettings, cube_reply, reply_index
from bgengine.opponents.gnubg.process import GnubgConfig, GnubgProcess, readable, said
from bgengine.decisions.luck import LuckMeter, LuckPool, Roll, cube_roll

__all__ = ["GnubgPool", "PairResults", "CubePairResults"]

log = logging.getLogger(__name__)

@dataclass
class _Game:
    """A game (or, with the cube, a money game or a match) in progress on one process."""

    pair: int                # index among the pairs being played (0-based)
    g: int                   # 0: side a moves first (has seat 0); 1: side b does
    sides: tuple             # the players, by seat
    loop: Generator
    attempt: int = 0
    question: Decision | CubeQuestion | None = None    # what gnubg was asked
    rolls: list[Roll] = field(default_factory=list)    # with a luck meter: every roll
    series: CubeSeries | None = None                   # with the cube: the game or match
    engines: tuple | None = None                       # with the cube: cube engines by seat


class _Ask:
    """A request for gnubg: ``kind`` and ``body`` (see :mod:`bgengine.opponents.gnubg.driver`)."""

    __slots__ = ("kind", "body")

    def __init__(self, kind: str, body: str) -> None:
        self.kind, self.body = kind, body


def _parse(question: Decision | CubeQuestion, reply: str) -> int | bool:
    """gnubg's answer to ``question``: a play's index, or True / False for a cube action."""
    if isinstance(question, CubeQuestion):
        return cube_reply(question.kind, reply)
    return reply_index(question, reply)


@dataclass
class PairResults:
    """Outcome of :meth:`GnubgPool.play_pairs`, from side ``a``'s view.

    ``points`` (int8) and ``moves`` (int32), shape (pairs, 2): points won by
    ``a`` and plays made in each game (game 0: ``a`` moves first); ``bad``
    (bool): games stopped by a bad reply or a process that kept failing (their
    points and moves are 0); ``reasons``: one line per bad game;
    ``requests``: plays asked of gnubg; ``replays``: games replayed after a
    process failed; ``seconds``: wall time; ``luck`` (float64, (pairs, 2)):
    ``a``'s luck in each game (:mod:`bgengine.decisions.luck`), or None when not measured.
    """

    points: np.ndarray
    moves: np.ndarray
    bad: np.ndarray
    luck: np.ndarray | None = None
    reasons: list[str] = field(default_factory=list)
    requests: int = 0
    replays: int = 0
    seconds: float = 0.0

    @property
    def good_pairs(self) -> np.ndarray:
        """Mask of the pairs with no bad game."""
        return ~self.bad.any(axis=1)


@dataclass
class CubePairResults:
    """Outcome of :meth:`GnubgPool.play_cube_pairs`, from side ``a``'s view, all of shape
    (pairs, 2) (column 0: ``a`` on seat 0; column 1: ``b`` on seat 0, the same dice).

    ``values`` (float64): points won by ``a`` in a money game, or 1.0 / 0.0 for a match
    won / lost; ``games``, ``doubles``, ``drops``, ``cube_sum`` (int32): games played,
    doubles, dropped doubles and final cube values summed over the games; ``scores``
    (int32, (pairs, 2, 2)): the final score, ``a``'s points then ``b``'s (a money game:
    the winner's points); ``bad`` (bool): stopped by a bad reply or a process that kept
    failing (their other figures are 0); ``reasons``, ``requests``, ``replays``,
    ``seconds`` as in :class:`PairResults`; ``luck`` (float64, money games measured with
    a cubeful luck meter): ``a``'s luck in points.
    """

    values: np.ndarray
    games: np.ndarray
    doubles: np.ndarray
    drops: np.ndarray
    cube_sum: np.ndarray
    scores: np.ndarray
    bad: np.ndarray
    reasons: list[str] = field(default_factory=list)
    requests: int = 0
    replays: int = 0
    seconds: float = 0.0
    luck: np.ndarray | None = None

    @property
    def good_pairs(self) -> np.ndarray:
        """Mask of the pairs with no bad game."""
        return ~self.bad.any(axis=1)


class GnubgPool:
    """A set of gnubg processes that plays whole games (see the module docstring).

    Use as a context manager, or call :meth:`close`: it stops every process.
    Not thread-safe: one thread drives the pool.
    """

    def __init__(self, config: GnubgConfig | None = None) -> None:
        self.config = config or GnubgConfig()
        self.binary = find_gnubg(self.config.binary)
        self._tmp = tempfile.TemporaryDirectory(prefix="bgengine-gnubg-")
        self.workdir = Path(self._tmp.name)
        self._sel = selectors.DefaultSelector()
        self._procs: list[GnubgProcess] = []
        self._next_index = 0
        self.replays = 0
        try:
            self._start(self.config.n_processes())
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------ processes
    def _start(self, n: int) -> list[GnubgProcess]:
        """Start ``n`` processes and wait until each says it is ready."""
        new = []
        for _ in range(n):
            p = GnubgProcess(self.binary, self.workdir, self._next_index)
            self._next_index += 1
            self._procs.append(p)
            self._sel.register(p.fd, selectors.EVENT_READ, p)
            new.append(p)
        deadline = time.monotonic() + self.config.start_timeout
        waiting = set(new)
        while waiting:
            left = deadline - time.monotonic()
            if left <= 0:
                p = next(iter(waiting))
                raise GnubgError(f"gnubg ({self.binary}) did not start within "
                                 f"{self.config.start_timeout:g} s" + said(p))
            for key, _ in self._sel.select(min(left, 1.0)):
                p = key.data
                if p not in waiting:
                    continue
                lines = p.replies()
                if lines is None:
                    raise GnubgError(f"gnubg ({self.binary}) could not start the driver: "
                                     + p.describe_exit())
                for line in lines:
                    if line.startswith("@@ready"):
                        p.ready = True
                        waiting.discard(p)
                    else:
                        raise GnubgError(f"gnubg ({self.binary}) could not start the driver: {line}")
        log.debug("started %d gnubg processes (%s)", n, self.binary)
        return new

    def ensure(self, n: int) -> None:
        """Start more processes until there are at least ``n``."""
        if len(self._procs) < n:
            self._start(n - len(self._procs))

    def _replace(self, p: GnubgProcess) -> GnubgProcess:
        self._drop(p)
        return self._start(1)[0]

    def _drop(self, p: GnubgProcess) -> None:
        try:
            self._sel.unregister(p.fd)
        except (KeyError, ValueError):
            pass
        self._procs.remove(p)
        p.stop(grace=0.5)

    def close(self) -> None:
        """Stop every process (quit, then kill after a grace period) and
        remove the temporary directory.  Safe to call twice."""
        procs, self._procs = self._procs, []
        for p in procs:
            try:
                self._sel.unregister(p.fd)
            except (KeyError, ValueError):
                pass
        for p in procs:       # ask all first, then wait: they quit in parallel
            p.request_quit()
        for p in procs:
            p.stop()
        self._sel.close()
        self._tmp.cleanup()

    def __enter__(self) -> "GnubgPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def pids(self) -> list[int]:
        """Process ids of the running gnubg processes."""
        return [p.proc.pid for p in self._procs]

    # ------------------------------------------------------------ one question
    def ask(self, settings: GnubgSettings, decision: Decision) -> int:
        """gnubg's cubeless play for one decision, on the first process (restarted,
        and asked again, if it fails).  Raises :class:`BadReply` for an
        illegal reply and :class:`GnubgError` when every try failed."""
        return self._ask("m", settings.request(decision.board, decision.d1, decision.d2),
                         decision)

    def ask_play(self, settings: GnubgSettings, decision: Decision, state) -> int:
        """gnubg's cubeful play for one decision at the cube and score of ``state``
        (a :class:`bgengine.notation.ids.MatchState`, ``player_on_roll`` the mover); as :meth:`ask`."""
        return self._ask("p", settings.play_request(decision.board, decision.d1, decision.d2,
                                                    state), decision)

    def ask_cube(self, settings: GnubgSettings, question: CubeQuestion) -> bool:
        """gnubg's cube action for ``question`` (double: True to double; take: True to
        take); as :meth:`ask`, :class:`BadReply` for an action not allowed."""
        return self._ask(*_cube_request(settings, question), question)

    def _ask(self, kind: str, body: str, question: Decision | CubeQuestion) -> int | bool:
        for attempt in range(self.config.replays + 1):
            p = self._procs[0]
            p.send(body, kind)
            deadline = p.sent_at + self.config.timeout
            failure = None
            while failure is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    failure = f"no reply within {self.config.timeout:g} s"
                    break
                if not self._sel.select(min(left, 1.0)):
                    continue
                lines = p.replies()
                if lines is None:
                    failure = p.describe_exit()
                elif lines:
                    return _parse(question, lines[0])
            log.warning("gnubg failed (%s); restarting it", failure)
            self._replace(p)
        raise GnubgError(f"gnubg failed {self.config.replays + 1} times: {failure}")

    # ------------------------------------------------------------ games
    def play_pairs(self, a, b, n_pairs: int, seed: int = 0, first_pair: int = 0,
                   progress: Callable[[int, int], None] | None = None,
                   luck: LuckMeter | None = None) -> PairResults:
        """Play ``n_pairs`` cubeless money game pairs between ``a`` and ``b``.

        Either side may be a :class:`GnubgPlayer` (answered by the pool's
        processes with its settings) or any player with ``choose(board, d1,
        d2, seed)`` (answered here).  Pair ``i`` rolls ``Dice(seed, stream=
        first_pair + i)``: game 0 with ``a`` moving first, game 1 with ``b``
        moving first and the very same dice, as the compiled match runner
        does.  ``progress(games_done, games_total)`` is called after each game.
        With ``luck``, every roll's luck is measured too (``PairResults.luck``),
        a finished game at a time on threads of their own, one per core (the
        search releases the GIL), each with its own copy of ``luck``.
        """
        if n_pairs < 0:
            raise ValueError(f"n_pairs must be >= 0, got {n_pairs}")
        res = PairResults(np.zeros((n_pairs, 2), np.int8), np.zeros((n_pairs, 2), np.int32),
                          np.zeros((n_pairs, 2), bool),
                          luck=None if luck is None else np.zeros((n_pairs, 2)))
        lucks = None if luck is None else LuckPool(luck)

        def new_game(i: int, g: int, attempt: int) -> _Game:
            dice = Dice(seed, stream=first_pair + i)
            return _Game(i, g, (a, b) if g == 0 else (b, a), game_decisions(dice), attempt)

        def respond(game: _Game, d: Decision) -> int | _Ask:
            side = game.sides[d.turn]
            if luck is not None:             # side a moves when d.turn == game.g
                game.rolls.append(Roll(d.board, d.d1, d.d2, d.number == 0, d.turn == game.g))
            if len(d.afterstates) == 1:
                return 0                    # forced: nothing to ask
            gnubg = getattr(side, "settings", None)
            if isinstance(gnubg, GnubgSettings):
                # a GnubgPlayer (known by its settings: the player module sits above this one)
                return _Ask("m", gnubg.request(d.board, d.d1, d.d2))
            return int(side.choose(d.board, d.d1, d.d2,
                                   game_seed(seed, first_pair + game.pair, game.g, d.number)))

        def record(game: _Game, value) -> None:
            v, m = value
            res.points[game.pair, game.g] = v if game.g == 0 else -v
            res.moves[game.pair, game.g] = m
            if lucks is not None:
                lucks.submit((game.pair, game.g), game.rolls)

        self._run_measured(res, n_pairs, first_pair, new_game, respond, record, progress, lucks)
        return res

    def play_cube_pairs(self, a, b, n_pairs: int, *, match_length: int = 0, jacoby: bool = False,
                        engines: tuple = (None, None), seed: int = 0, first_pair: int = 0,
                        progress: Callable[[int, int], None] | None = None,
                        luck: LuckMeter | None = None) -> CubePairResults:
        """Play ``n_pairs`` pairs of money games with the cube (``match_length`` 0,
        ``jacoby``: the Jacoby rule) or of matches to ``match_length`` points (Crawford
        rule) between ``a`` and ``b``, each a :class:`bgengine.matches.game.CubeSeries`.

        A :class:`GnubgPlayer` side is answered by the pool's processes with its
        settings, its plays cubeful at the game's cube and score and its cube actions
        gnubg's own (see ``gnubg_driver.py``); any other side plays with ``choose(board,
        d1, d2, seed)`` and takes its cube actions from its engine in ``engines`` (``(a's,
        b's)``, e.g. :class:`bgengine.decisions.engine.Engine`; ``None`` for a GnubgPlayer), here.
        Pair ``i`` rolls ``Dice(seed, stream=first_pair + i)``: seat 0 is ``a`` in the
        first and ``b`` in the second, on the very same dice (as
        :func:`bgengine.matches.run.run_cube_match`).  A money game or a whole match is played
        on one process at a time; ``progress(done, total)`` is called after each.  With
        ``luck`` (money games; a cubeful :class:`~bgengine.decisions.luck.LuckMeter`), every
        roll's luck is measured too, at its cube (``CubePairResults.luck``).
        """
        if n_pairs < 0:
            raise ValueError(f"n_pairs must be >= 0, got {n_pairs}")
        if luck is not None and (match_length or not luck.cubeful):
            raise ValueError("the luck of games with the cube is measured in money games, "
                             "by a cubeful luck meter")
        shape = (n_pairs, 2)
        res = CubePairResults(np.zeros(shape), np.zeros(shape, np.int32),
                              np.zeros(shape, np.int32), np.zeros(shape, np.int32),
                              np.zeros(shape, np.int32), np.zeros(shape + (2,), np.int32),
                              np.zeros(shape, bool),
                              luck=None if luck is None else np.zeros(shape))
        lucks = None if luck is None else LuckPool(luck)

        def new_game(i: int, g: int, attempt: int) -> _Game:
            sides, engs = ((a, b), engines) if g == 0 else ((b, a), engines[::-1])
            series = CubeSeries(Dice(seed, stream=first_pair + i), match_length=match_length,
                                jacoby=jacoby, seed=seed, pair=first_pair + i, g=g)
            return _Game(i, g, sides, series.steps(), attempt, series=series, engines=engs)

        def respond(game: _Game, ev: Decision | CubeQuestion) -> int | bool | _Ask:
            series = game.series
            assert series is not None and series.game is not None
            if isinstance(ev, CubeQuestion):
                gnubg = getattr(game.sides[ev.seat], "settings", None)
                if isinstance(gnubg, GnubgSettings):
                    return _Ask(*_cube_request(gnubg, ev))
            else:
                if lucks is not None:        # side a moves when ev.turn == game.g
                    game.rolls.append(cube_roll(ev, series.game, ev.turn == game.g))
                if len(ev.afterstates) == 1:
                    return 0                # forced: nothing to ask
                gnubg = getattr(game.sides[ev.turn], "settings", None)
                if isinstance(gnubg, GnubgSettings):
                    return _Ask("p", gnubg.play_request(ev.board, ev.d1, ev.d2,
                                                        series.game.state(ev.turn)))
            return answer_locally(game.sides, game.engines, ev, series.game)

        def record(game: _Game, winner) -> None:
            series = game.series
            assert series is not None
            k = (game.pair, game.g)
            won_by_a = (winner == 0) == (game.g == 0)
            if match_length == 0:
                res.values[k] = series.points if won_by_a else -series.points
            else:
                res.values[k] = 1.0 if won_by_a else 0.0
            res.games[k], res.doubles[k] = series.games, series.doubles
            res.drops[k], res.cube_sum[k] = series.drops, series.cube_sum
            seat_a = 0 if game.g == 0 else 1
            res.scores[k] = (series.score.score[seat_a], series.score.score[1 - seat_a])
            if lucks is not None:
                lucks.submit(k, game.rolls)

        self._run_measured(res, n_pairs, first_pair, new_game, respond, record, progress, lucks)
        return res

    def _run_measured(self, res, n_pairs: int, first_pair: int, new_game, respond, record,
                      progress, lucks: LuckPool | None) -> None:
        """:meth:`_run`, then the games' luck (measured by ``lucks`` as they finished, if
        given) into ``res.luck`` by (pair, game); ``lucks`` is closed in any case."""
        try:
            self._run(res, n_pairs, first_pair, new_game, respond, record, progress)
            if lucks is not None:
                for key, value in lucks.results().items():
                    res.luck[key] = value                 # type: ignore[index]
        finally:
            if lucks is not None:
                lucks.close()

    def _run(self, res, n_pairs: int, first_pair: int,
             new_game: Callable[[int, int, int], _Game],
             respond: Callable[[_Game, object], object],
             record: Callable[[_Game, object], None],
             progress: Callable[[int, int], None] | None) -> None:
        """Play games ``(i, g)`` for every pair ``i`` and ``g`` in 0, 1 on the processes,
        one game a process at a time.  ``new_game(i, g, attempt)`` starts one;
        ``respond(game, question)`` answers a question here, or returns an :class:`_Ask`
        for gnubg; ``record(game, value)`` keeps a game's result (what its generator
        returned).  Bad games are marked in ``res.bad`` with a line in ``res.reasons``;
        ``res.requests``, ``res.replays`` and ``res.seconds`` are set."""
        t0 = time.monotonic()
        asked_before = sum(p.requests for p in self._procs)
        asked_dropped = 0
        todo = deque((i, g) for i in range(n_pairs) for g in (0, 1))
        total, done = 2 * n_pairs, 0
        idle = deque(self._procs)
        busy: set[GnubgProcess] = set()

        def finish(game: _Game, value, reason: str = "") -> None:
            nonlocal done
            if reason:
                res.bad[game.pair, game.g] = True
                res.reasons.append(f"pair {first_pair + game.pair} game {game.g}: {reason}")
                log.warning("gnubg game not counted: %s", res.reasons[-1])
            else:
                record(game, value)
            done += 1
            if progress is not None:
                progress(done, total)

        def advance(p: GnubgProcess, game: _Game, answer) -> bool:
            """Play on until gnubg must answer (True: request sent) or the game ends."""
            while True:
                try:
                    question = game.loop.send(answer)
                except StopIteration as end:
                    finish(game, end.value)
                    return False
                answer = respond(game, question)
                if isinstance(answer, _Ask):
                    game.question = question
                    p.game = game
                    p.send(answer.body, answer.kind)
                    return True

        def start_next(p: GnubgProcess) -> None:
            while todo:
                i, g = todo.popleft()
                if advance(p, new_game(i, g, 0), None):
                    busy.add(p)
                    return
            idle.append(p)

        def failed(p: GnubgProcess, why: str) -> None:
            """Process ``p`` died or hung: replace it and replay its game."""
            nonlocal asked_dropped
            game = p.game
            busy.discard(p)
            asked_dropped += p.requests
            log.warning("%s; replacing it", why)
            q = self._replace(p)
            assert game is not None
            if game.attempt >= self.config.replays:
                finish(game, None, f"gnubg failed {game.attempt + 1} times, last: {why}")
                start_next(q)
                return
            self.replays += 1
            res.replays += 1
            if advance(q, new_game(game.pair, game.g, game.attempt + 1), None):
                busy.add(q)
            else:                                # cannot happen: it needed gnubg before
                start_next(q)

        while idle and todo:
            start_next(idle.popleft())
        while busy:
            now = time.monotonic()
            oldest = min(p.sent_at for p in busy)
            wait = max(0.0, min(1.0, oldest + self.config.timeout - now))
            for key, _ in self._sel.select(wait):
                p = key.data
                if p not in busy:
                    continue
                lines = p.replies()
                if lines is None:
                    failed(p, p.describe_exit())
                    continue
                if not lines:
                    continue
                if len(lines) > 1:
                    log.warning("gnubg process %d sent %d replies to one request", p.proc.pid,
                                len(lines))
                game = p.game
                assert game is not None and game.question is not None
                p.game = None
                busy.discard(p)
                try:
                    answer = _parse(game.question, lines[0])
                except BadReply as exc:
                    game.loop.close()
                    finish(game, None, str(exc))
                    start_next(p)
                    continue
                if advance(p, game, answer):
                    busy.add(p)
                else:
                    start_next(p)
            now = time.monotonic()
            for p in [p for p in busy if now - p.sent_at > self.config.timeout]:
                if not readable(p):             # a reply waiting (we were busy) is no hang
                    failed(p, f"gnubg process {p.proc.pid} gave no reply within "
                              f"{self.config.timeout:g} s")
        res.requests = sum(p.requests for p in self._procs) - asked_before + asked_dropped
        res.seconds = time.monotonic() - t0


def _cube_request(settings: GnubgSettings, question: CubeQuestion) -> tuple[str, str]:
    """The kind and body of the request asking gnubg ``question``."""
    if question.kind == "double":
        return "d", settings.double_request(question.board, question.state)
    return "t", settings.take_request(question.board, question.state)
