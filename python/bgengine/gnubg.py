"""GNU Backgammon as a built-in opponent: a pool of gnubg processes.

``bgengine match net gnubg`` (or ``gnubg:1``, ``gnubg:2`` for gnubg's
lookahead) measures a player against gnubg's own chequer play in cubeless
money games.  bgengine starts the gnubg processes itself and stops them at the
end; gnubg is an optional system program (``apt-get install gnubg``), found
through :func:`find_gnubg`.

How it works
------------
Each process is ``gnubg -t -q -r -s DIR -p gnubg_driver.py``: gnubg's text
mode running the small driver script shipped in ``bgengine/data``, which
reads one request per line (board and dice) and writes gnubg's play as
single-die steps (``gnubg.findbestmove`` with the board, dice, cube, evaluation
context and move filters all passed explicitly).  gnubg hands every such call
to a worker thread and polls for its end every 10 ms, so one process answers at
most about 100 requests per second while using little CPU; the pool therefore
keeps many processes busy at once (one game each), driven from one Python
thread by ``selectors``.  The other side's plays are answered in that thread
(compiled players take about 20 us a play).

Determinism: every setting that matters is explicit in each process (cubeless,
no Jacoby rule, deterministic evaluation, no noise, ``plies`` N, pruning as
gnubg's "World class" uses it for N > 0, gnubg's normal move filters), gnubg's
preference files are not read (``-r``, ``HOME`` and ``-s`` point at a private
temporary directory), and a reply depends only on the request, so a match
gives the same result whatever the number of processes.  Plays that are forced
(a single legal afterstate) are made without asking.

Checking: every reply is matched against our own legal plays
(:func:`bgengine.notation.match_move` over
:func:`bgengine.movegen.legal_afterstates`).  A game with a reply that is not
a legal play, or an error from gnubg, is stopped and reported: its pair is
left out of the result and counted in ``MatchResult.bad_games``.  A process
that exits or does not answer within ``GnubgConfig.timeout`` is killed and
replaced, and its game replayed from the start (same dice, same plays: the
result is unchanged); after ``GnubgConfig.replays`` failed replays the game is
reported as bad too.  Every process is stopped, and reaped, when the match
ends, also on an exception or Ctrl-C; a process whose parent dies sees its
input close and exits by itself.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import select
import selectors
import shutil
import subprocess
import tempfile
import time
from collections import deque
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from bgengine._checks import is_int
from bgengine.board import validate_board
from bgengine.dice import Dice
from bgengine.game import Decision, game_decisions, game_seed
from bgengine.movegen import legal_afterstates
from bgengine.notation import format_steps_plain, match_move
from bgengine.results import MatchResult, summarize

__all__ = [
    "GnubgError", "GnubgNotFound", "GnubgSettings", "GnubgConfig", "GnubgPlayer", "GnubgPool",
    "PairResults", "BadReply", "find_gnubg", "parse_gnubg_spec", "play_gnubg_match", "play_gnubg_pairs",
    "ENV_BINARY", "MAX_PLIES",
]

log = logging.getLogger(__name__)

#: Environment variable naming the gnubg binary (a path, or a name on PATH).
ENV_BINARY = "BGENGINE_GNUBG"
#: Where Debian and source installs put gnubg when it is not on PATH.
FALLBACK_LOCATIONS = ("/usr/games/gnubg", "/usr/local/games/gnubg")
#: Deepest lookahead offered (gnubg's normal move filters are defined to 4 plies).
MAX_PLIES = 4
#: Processes per core by default: each waits about 10 ms per request, mostly asleep
#: (2-core bench machine, 0-ply: 24 processes 81 games/s, 32 112, 48 98 on free cores;
#: 16 ~55, 24 ~70, 48 ~68 with one core busy training).
PROCESSES_PER_CORE = 16

_NOT_FOUND = ("gnubg not found: install GNU Backgammon (apt-get install gnubg) or put it on "
              f"PATH (or name the binary with ${ENV_BINARY} or --gnubg)")


class GnubgError(RuntimeError):
    """gnubg could not be started or stopped answering for good."""


class GnubgNotFound(GnubgError):
    """The gnubg binary is not installed or not where it was said to be."""


def find_gnubg(binary: str | None = None) -> str:
    """The path of the gnubg binary.

    ``binary`` (a path, or a name looked up on PATH) if given, else
    ``$BGENGINE_GNUBG``, else ``gnubg`` on PATH, else ``/usr/games/gnubg``.
    Raises :class:`GnubgNotFound` with a one-line message saying how to
    install it.
    """
    wanted = binary if binary is not None else os.environ.get(ENV_BINARY) or None
    if wanted is not None:
        found = shutil.which(wanted)
        if found is None:
            raise GnubgNotFound(f"{_NOT_FOUND}; {wanted!r} is not an executable program")
        return found
    found = shutil.which("gnubg")
    if found is not None:
        return found
    for path in FALLBACK_LOCATIONS:
        if os.access(path, os.X_OK):
            return path
    raise GnubgNotFound(_NOT_FOUND)


def driver_path() -> Path:
    """The driver script that runs inside each gnubg process."""
    return Path(str(resources.files("bgengine").joinpath("data", "gnubg_driver.py")))


# ====================================================================== settings

@dataclass(frozen=True)
class GnubgSettings:
    """How gnubg chooses its plays.

    ``plies``: lookahead, 0 (gnubg's static evaluation, its "expert" level)
    to ``MAX_PLIES``.  ``prune``: gnubg's pruning nets inside the lookahead;
    ``None`` means on for plies > 0 (as gnubg's "world class" 2-ply uses
    them) and off at 0-ply, where they do nothing.  Evaluations are always
    cubeless, deterministic and without noise.
    """

    plies: int = 0
    prune: bool | None = None

    def __post_init__(self) -> None:
        if isinstance(self.plies, bool) or not isinstance(self.plies, int) \
                or not 0 <= self.plies <= MAX_PLIES:
            raise ValueError(f"gnubg plies must be an integer 0..{MAX_PLIES}, got {self.plies!r}")
        if self.prune is None:
            object.__setattr__(self, "prune", self.plies > 0)

    def request(self, board: np.ndarray, d1: int, d2: int) -> str:
        """The body of the driver's request for ``board`` (mover in row 1) and
        the roll (the process puts ``m ID`` in front)."""
        return (f"{self.plies} {int(bool(self.prune))} {d1} {d2} "
                + " ".join(map(str, board.ravel().tolist())))


@dataclass(frozen=True)
class GnubgConfig:
    """How the gnubg processes are run (not what they play: see :class:`GnubgSettings`).

    ``binary``: path or name of gnubg (see :func:`find_gnubg`); ``processes``:
    how many run at once (default ``PROCESSES_PER_CORE`` per core);
    ``timeout``: seconds to wait for one reply before the process is taken as
    hung; ``start_timeout``: seconds for a process to start; ``replays``: how
    often a game whose process died or hung is replayed before it is reported
    as bad.
    """

    binary: str | None = None
    processes: int | None = None
    timeout: float = 120.0
    start_timeout: float = 30.0
    replays: int = 2

    def __post_init__(self) -> None:
        if self.processes is not None and (isinstance(self.processes, bool)
                                           or not isinstance(self.processes, int)
                                           or self.processes < 1):
            raise ValueError(f"gnubg processes must be a positive integer, got {self.processes!r}")
        if not self.timeout > 0 or not self.start_timeout > 0:
            raise ValueError("gnubg timeouts must be positive numbers of seconds")
        if self.replays < 0:
            raise ValueError(f"gnubg replays must be >= 0, got {self.replays}")

    def n_processes(self) -> int:
        if self.processes is not None:
            return self.processes
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        return PROCESSES_PER_CORE * max(1, cores or 1)


def parse_gnubg_spec(text: str) -> GnubgSettings | None:
    """``"gnubg"`` -> 0-ply, ``"gnubg:N"`` -> N-ply; ``None`` for other specs."""
    if text == "gnubg":
        return GnubgSettings(0)
    if text.startswith("gnubg:"):
        rest = text[len("gnubg:"):]
        if not rest.isdigit() or int(rest) > MAX_PLIES:
            raise ValueError(f"player {text!r}: gnubg:N needs plies N in 0..{MAX_PLIES}")
        return GnubgSettings(int(rest))
    return None


class GnubgPlayer:
    """gnubg as a player: what it plays (``settings``) and how it is run (``config``).

    :func:`bgengine.match.run_match` plays it through a pool of its own,
    stopped when the match ends.  :meth:`pool` gives the player's own pool,
    kept between calls (tournaments use it for their many batches), and
    :meth:`choose` asks that pool for one play; :meth:`close` (or the end of
    a ``with`` block) stops it.  Raises :class:`GnubgNotFound` at once when
    gnubg is not installed.
    """

    def __init__(self, settings: GnubgSettings | None = None, config: GnubgConfig | None = None,
                 name: str | None = None) -> None:
        self.settings = settings or GnubgSettings()
        self.config = config or GnubgConfig()
        self.binary = find_gnubg(self.config.binary)
        self.name = name or ("gnubg" if self.settings.plies == 0 else f"gnubg:{self.settings.plies}")
        self._pool: GnubgPool | None = None

    def __repr__(self) -> str:
        return f"GnubgPlayer({self.name!r}, plies={self.settings.plies})"

    def pool(self, processes: int | None = None) -> "GnubgPool":
        """The player's own pool, started on first use with ``processes``
        processes (default: the config's) and grown when more are asked for."""
        n = processes or self.config.n_processes()
        if self._pool is None:
            self._pool = GnubgPool(dataclasses.replace(self.config, processes=n))
        else:
            self._pool.ensure(n)
        return self._pool

    def choose(self, board, d1: int, d2: int, seed: int = 0) -> int:
        """Index of gnubg's play in ``legal_afterstates(board, d1, d2)``
        (``seed`` unused).  Raises :class:`BadReply` (a ``ValueError``) for a
        reply that is not a legal play, :class:`GnubgError` if gnubg fails."""
        arr = validate_board(board)
        after, _ = legal_afterstates(arr, int(d1), int(d2))
        return self.pool(1).ask(self.settings, Decision(1, arr, int(d1), int(d2), after, 0))

    def close(self) -> None:
        """Stop the player's own pool, if it has one (safe to call twice)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    def __enter__(self) -> "GnubgPlayer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ====================================================================== replies

class BadReply(ValueError):
    """A reply that is not a legal play (or no reply but an error message)."""


def reply_index(decision: Decision, reply: str) -> int:
    """The index of the play a driver reply (``@@ok F1 T1 ...``) names among
    ``decision``'s legal plays; :class:`BadReply` if it is none of them."""
    if reply.startswith("@@error"):
        raise BadReply(f"gnubg answered {reply[2:].strip()!r}")
    if not reply.startswith("@@ok"):
        raise BadReply(f"unexpected reply {reply!r}")
    try:
        nums = [int(x) for x in reply[4:].split()]
        if len(nums) % 2 or len(nums) > 8:
            raise ValueError(f"{len(nums)} numbers are not up to four (from, to) steps")
        text = format_steps_plain(zip(nums[::2], nums[1::2]))
        return match_move(decision.board, decision.d1, decision.d2, text)
    except ValueError as exc:
        raise BadReply(f"{reply[2:].strip()!r} is not a legal play with {decision.d1}-"
                       f"{decision.d2} ({exc})") from None


# ====================================================================== processes

class _Process:
    """One gnubg process running the driver; replies are read without blocking."""

    def __init__(self, binary: str, workdir: Path, index: int) -> None:
        prefs = workdir / f"prefs{index}"
        prefs.mkdir(exist_ok=True)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONHOME"}
        env["HOME"] = str(prefs)                # no ~/.gnubg of the user's
        self.index = index
        self.proc = subprocess.Popen(
            [binary, "-t", "-q", "-r", "-s", str(prefs), "-p", str(driver_path())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            cwd=prefs, env=env, bufsize=0,
            start_new_session=True)             # Ctrl-C reaches us, and we stop it
        assert self.proc.stdout is not None and self.proc.stdin is not None
        self.fd = self.proc.stdout.fileno()
        os.set_blocking(self.fd, False)
        self._buf = bytearray()
        self.tail: deque[str] = deque(maxlen=8)  # gnubg's last other output, for errors
        self.ready = False
        self.sent_at = 0.0                        # monotonic time of the open request
        self.game: _Game | None = None
        self.requests = 0

    def send(self, body: str) -> None:
        """Write one request, numbered (a process that has died shows as
        closed output or as a timeout, so a broken pipe is not raised here)."""
        assert self.proc.stdin is not None
        self.requests += 1
        try:
            self.proc.stdin.write(f"m {self.requests} {body}\n".encode())
        except (OSError, ValueError):
            pass
        self.sent_at = time.monotonic()

    def request_quit(self) -> None:
        """Say ``q`` and close its input (it then exits by itself)."""
        if self.proc.stdin is None:
            return
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(b"q\n")
            except (OSError, ValueError):
                pass
        try:
            self.proc.stdin.close()
        except OSError:
            pass

    def replies(self) -> list[str] | None:
        """The ``@@`` lines now readable, those answering the latest request
        without their ID (``@@ok 8 5 6 5``), replies to earlier requests left
        out; ``None`` once gnubg has closed its output."""
        try:
            data = os.read(self.fd, 65536)
        except BlockingIOError:
            return []
        except OSError:
            data = b""
        if not data:
            return None
        self._buf += data
        out = []
        while (nl := self._buf.find(b"\n")) >= 0:
            line = self._buf[:nl].decode("utf-8", "replace").rstrip("\r")
            del self._buf[:nl + 1]
            at = line.find("@@")              # gnubg's own output may precede it on the line
            if at >= 0:
                tag, ident, rest = (line[at:] + "  ").split(" ", 2)
                if tag == "@@ready":
                    out.append(line[at:])
                elif ident == str(self.requests):
                    out.append(f"{tag} {rest}".rstrip())
                else:
                    log.debug("gnubg process %d: dropped a stale reply %r", self.proc.pid, line)
            elif line.strip():
                self.tail.append(line.strip())
        return out

    def describe_exit(self) -> str:
        """Why its output closed (called then: it is exiting, so wait a moment for its code)."""
        try:
            code = self.proc.wait(1.0)
        except subprocess.TimeoutExpired:
            code = None
        said = "; its last output: " + " | ".join(self.tail) if self.tail else ""
        return (f"gnubg process {self.proc.pid} exited with code {code}" if code is not None
                else f"gnubg process {self.proc.pid} closed its output") + said

    def stop(self, grace: float = 2.0) -> None:
        """Ask it to quit, then kill it if it has not within ``grace``
        seconds; always reaped (no zombie)."""
        self.request_quit()
        try:
            self.proc.wait(grace)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        finally:
            if self.proc.stdout is not None:
                self.proc.stdout.close()


@dataclass
class _Game:
    """A game in progress on one process."""

    pair: int                # index among the pairs being played (0-based)
    g: int                   # 0: side a moves first; 1: side b does
    sides: tuple
    loop: Generator[Decision, int, tuple[int, int]]
    attempt: int = 0
    decision: Decision | None = None


@dataclass
class PairResults:
    """Outcome of :meth:`GnubgPool.play_pairs`, from side ``a``'s view.

    ``points`` (int8) and ``moves`` (int32), shape (pairs, 2): points won by
    ``a`` and plays made in each game (game 0: ``a`` moves first); ``bad``
    (bool): games stopped by a bad reply or a process that kept failing (their
    points and moves are 0); ``reasons``: one line per bad game;
    ``requests``: plays asked of gnubg; ``replays``: games replayed after a
    process failed; ``seconds``: wall time.
    """

    points: np.ndarray
    moves: np.ndarray
    bad: np.ndarray
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
        self._procs: list[_Process] = []
        self._next_index = 0
        self.replays = 0
        try:
            self._start(self.config.n_processes())
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------ processes
    def _start(self, n: int) -> list[_Process]:
        """Start ``n`` processes and wait until each says it is ready."""
        new = []
        for _ in range(n):
            p = _Process(self.binary, self.workdir, self._next_index)
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
                                 f"{self.config.start_timeout:g} s" + _said(p))
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

    def _replace(self, p: _Process) -> _Process:
        self._drop(p)
        return self._start(1)[0]

    def _drop(self, p: _Process) -> None:
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
                   progress: Callable[[int, int], None] | None = None) -> PairResults:
        """Play ``n_pairs`` game pairs between ``a`` and ``b``.

        Either side may be a :class:`GnubgPlayer` (answered by the pool's
        processes with its settings) or any player with ``choose(board, d1,
        d2, seed)`` (answered here).  Pair ``i`` rolls ``Dice(seed, stream=
        first_pair + i)``: game 0 with ``a`` moving first, game 1 with ``b``
        moving first and the very same dice, as the compiled match runner
        does.  ``progress(games_done, games_total)`` is called after each game.
        """
        if n_pairs < 0:
            raise ValueError(f"n_pairs must be >= 0, got {n_pairs}")
        t0 = time.monotonic()
        res = PairResults(np.zeros((n_pairs, 2), np.int8), np.zeros((n_pairs, 2), np.int32),
                          np.zeros((n_pairs, 2), bool))
        asked_before = sum(p.requests for p in self._procs)
        asked_dropped = 0
        todo = deque((i, g) for i in range(n_pairs) for g in (0, 1))
        total, done = 2 * n_pairs, 0
        idle = deque(self._procs)
        busy: set[_Process] = set()

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
            done += 1
            if progress is not None:
                progress(done, total)

        def advance(p: _Process, game: _Game, k: int | None) -> bool:
            """Play on until gnubg must answer (True: request sent) or the game ends."""
            while True:
                try:
                    d = game.loop.send(k)
                except StopIteration as end:
                    finish(game, end.value)
                    return False
                side = game.sides[d.turn]
                if len(d.afterstates) == 1:
                    k = 0                       # forced: nothing to ask
                elif isinstance(side, GnubgPlayer):
                    game.decision = d
                    p.game = game
                    p.send(side.settings.request(d.board, d.d1, d.d2))
                    return True
                else:
                    k = int(side.choose(d.board, d.d1, d.d2,
                                        game_seed(seed, first_pair + game.pair, game.g, d.number)))

        def start_next(p: _Process) -> None:
            while todo:
                i, g = todo.popleft()
                if advance(p, new_game(i, g), None):
                    busy.add(p)
                    return
            idle.append(p)

        def failed(p: _Process, why: str) -> None:
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
                if not _readable(p):             # a reply waiting (we were busy) is no hang
                    failed(p, f"gnubg process {p.proc.pid} gave no reply within "
                              f"{self.config.timeout:g} s")
        res.requests = sum(p.requests for p in self._procs) - asked_before + asked_dropped
        res.seconds = time.monotonic() - t0
        return res


def _readable(p: _Process) -> bool:
    return bool(select.select([p.fd], [], [], 0)[0])


def _said(p: _Process) -> str:
    return "; its output: " + " | ".join(p.tail) if p.tail else ""


# ====================================================================== matches

def _gnubg_config(*players) -> GnubgConfig:
    for p in players:
        if isinstance(p, GnubgPlayer):
            return p.config
    return GnubgConfig()


def play_gnubg_pairs(a, b, n_pairs: int, seed: int = 0, first_pair: int = 0,
                     config: GnubgConfig | None = None,
                     progress: Callable[[int, int], None] | None = None) -> PairResults:
    """:meth:`GnubgPool.play_pairs` in a pool of its own, stopped at the end.
    ``config`` defaults to the first :class:`GnubgPlayer`'s."""
    with GnubgPool(config or _gnubg_config(a, b)) as pool:
        return pool.play_pairs(a, b, n_pairs, seed, first_pair, progress)


def play_gnubg_match(a, b, games: int, seed: int = 0, config: GnubgConfig | None = None,
                     progress: Callable[[int, int], None] | None = None) -> MatchResult:
    """``games`` cubeless money games (rounded up to whole pairs) between
    ``a`` and ``b``, one or both a :class:`GnubgPlayer`, as a
    :class:`bgengine.results.MatchResult` from ``a``'s side.  Games with a bad
    reply are counted in ``bad_games`` and their pairs left out."""
    if not is_int(games) or games < 2:
        raise ValueError(f"games must be at least 2 (one pair), got {games!r}")
    res = play_gnubg_pairs(a, b, (games + 1) // 2, seed, config=config, progress=progress)
    log.info("gnubg match: %d games in %.1f s (%.1f games/s), %d requests, %d replays",
             res.points.size, res.seconds, res.points.size / max(res.seconds, 1e-9),
             res.requests, res.replays)
    return summarize(_name(a), _name(b), res.points, res.moves, res.bad, tuple(res.reasons[:5]))


def _name(p) -> str:
    return getattr(p, "name", repr(p))
