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

from bgengine.dice import Dice
from bgengine.game import Decision, game_decisions, game_seed
from bgengine.gnubg.binary import GnubgError, find_gnubg
from bgengine.gnubg.driver import BadReply, GnubgSettings, reply_index
from bgengine.gnubg.process import GnubgConfig, GnubgProcess, readable, said
from bgengine.luck import LuckMeter, LuckPool, Roll

__all__ = ["GnubgPool", "PairResults"]

log = logging.getLogger(__name__)

@dataclass
class _Game:
    """A game in progress on one process."""

    pair: int                # index among the pairs being played (0-based)
    g: int                   # 0: side a moves first; 1: side b does
    sides: tuple
    loop: Generator[Decision, int, tuple[int, int]]
    attempt: int = 0
    decision: Decision | None = None
    rolls: list[Roll] = field(default_factory=list)    # with a luck meter: every roll


@dataclass
class PairResults:
    """Outcome of :meth:`GnubgPool.play_pairs`, from side ``a``'s view.

    ``points`` (int8) and ``moves`` (int32), shape (pairs, 2): points won by
    ``a`` and plays made in each game (game 0: ``a`` moves first); ``bad``
    (bool): games stopped by a bad reply or a process that kept failing (their
    points and moves are 0); ``reasons``: one line per bad game;
    ``requests``: plays asked of gnubg; ``replays``: games replayed after a
    process failed; ``seconds``: wall time; ``luck`` (float64, (pairs, 2)):
    ``a``'s luck in each game (:mod:`bgengine.luck`), or None when not measured.
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

    # ------------------------------------------------------------ one play
    def ask(self, settings: GnubgSettings, decision: Decision) -> int:
        """gnubg's play for one decision, on the first process (restarted,
        and asked again, if it fails).  Raises :class:`BadReply` for an
        illegal reply and :class:`GnubgError` when every try failed."""
        for attempt in range(self.config.replays + 1):
            p = self._procs[0]
            p.send(settings.request(decision.board, decision.d1, decision.d2))
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
                    return reply_index(decision, lines[0])
            log.warning("gnubg failed (%s); restarting it", failure)
            self._replace(p)
        raise GnubgError(f"gnubg failed {self.config.replays + 1} times: {failure}")

    # ------------------------------------------------------------ games
    def play_pairs(self, a, b, n_pairs: int, seed: int = 0, first_pair: int = 0,
                   progress: Callable[[int, int], None] | None = None,
                   luck: LuckMeter | None = None) -> PairResults:
        """Play ``n_pairs`` game pairs between ``a`` and ``b``.

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
        t0 = time.monotonic()
        res = PairResults(np.zeros((n_pairs, 2), np.int8), np.zeros((n_pairs, 2), np.int32),
                          np.zeros((n_pairs, 2), bool),
                          luck=None if luck is None else np.zeros((n_pairs, 2)))
        asked_before = sum(p.requests for p in self._procs)
        asked_dropped = 0
        todo = deque((i, g) for i in range(n_pairs) for g in (0, 1))
        total, done = 2 * n_pairs, 0
        idle = deque(self._procs)
        busy: set[GnubgProcess] = set()
        lucks = None if luck is None else LuckPool(luck)

        def new_game(i: int, g: int, attempt: int = 0) -> _Game:
            dice = Dice(seed, stream=first_pair + i)
            return _Game(i, g, (a, b) if g == 0 else (b, a), game_decisions(dice), attempt)

        def finish(game: _Game, value: tuple[int, int] | None, reason: str = "") -> None:
            nonlocal done
            if value is None:
                res.bad[game.pair, game.g] = True
                res.reasons.append(f"pair {first_pair + game.pair} game {game.g}: {reason}")
                log.warning("gnubg game not counted: %s", res.reasons[-1])
            else:
                v, m = value
                res.points[game.pair, game.g] = v if game.g == 0 else -v
                res.moves[game.pair, game.g] = m
                if lucks is not None:
                    lucks.submit((game.pair, game.g), game.rolls)
            done += 1
            if progress is not None:
                progress(done, total)

        def advance(p: GnubgProcess, game: _Game, k: int | None) -> bool:
            """Play on until gnubg must answer (True: request sent) or the game ends."""
            while True:
                try:
                    d = game.loop.send(k)
                except StopIteration as end:
                    finish(game, end.value)
                    return False
                side = game.sides[d.turn]
                if luck is not None:             # side a moves when d.turn == game.g
                    game.rolls.append(Roll(d.board, d.d1, d.d2, d.number == 0, d.turn == game.g))
                if len(d.afterstates) == 1:
                    k = 0                       # forced: nothing to ask
                elif isinstance(gnubg := getattr(side, "settings", None), GnubgSettings):
                    # a GnubgPlayer (known by its settings: the player module sits above this one)
                    game.decision = d
                    p.game = game
                    p.send(gnubg.request(d.board, d.d1, d.d2))
                    return True
                else:
                    k = int(side.choose(d.board, d.d1, d.d2,
                                        game_seed(seed, first_pair + game.pair, game.g, d.number)))

        def start_next(p: GnubgProcess) -> None:
            while todo:
                i, g = todo.popleft()
                if advance(p, new_game(i, g), None):
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

        try:
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
                    assert game is not None and game.decision is not None
                    p.game = None
                    busy.discard(p)
                    try:
                        k = reply_index(game.decision, lines[0])
                    except BadReply as exc:
                        finish(game, None, str(exc))
                        start_next(p)
                        continue
                    if advance(p, game, k):
                        busy.add(p)
                    else:
                        start_next(p)
                now = time.monotonic()
                for p in [p for p in busy if now - p.sent_at > self.config.timeout]:
                    if not readable(p):             # a reply waiting (we were busy) is no hang
                        failed(p, f"gnubg process {p.proc.pid} gave no reply within "
                                  f"{self.config.timeout:g} s")
            if lucks is not None:
                for key, value in lucks.results().items():
                    res.luck[key] = value                 # type: ignore[index]
        finally:
            if lucks is not None:
                lucks.close()
        res.requests = sum(p.requests for p in self._procs) - asked_before + asked_dropped
        res.seconds = time.monotonic() - t0
        return res
