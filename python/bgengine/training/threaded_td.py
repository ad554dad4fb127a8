"""Self-play TD training on several threads, reproducible from the seed and the thread count.

Each thread trains its own copy of the model with :func:`bgengine.core.td.train_games` (which
releases the GIL) for ``sync_games`` consecutive games, then adds its change of the weights
to the master model.  The games are dealt out in rounds: thread ``t`` of round ``r`` plays
the games from ``first_game + (r * T + t) * sync_games`` (``T`` threads).  The changes are
added in that same order, round by round and thread by thread, each by the thread that made
it when its turn comes, so the sums, and the weights, are the same on every run.

Two ways to go on after a merge (``mode``):

``"round"``
    every thread waits for the whole round to be merged and starts the next round from
    those weights: all threads of a round start from the same weights.  A thread that
    finishes early idles until the slowest is done (games differ in length: measured on
    two threads, 9-12% of each thread's time at ``sync_games = 16``, 18% with 1-ply
    targets at 8).
``"rolling"``
    a thread goes on at once from the master's weights as they are after its own merge:
    everything merged so far, its own change included, while later threads' changes of
    that round reach it at its next merge.  A thread waits only when it would get more
    than a round ahead of another, so short and long games even out over the rounds
    (3-7% idle in the same measurements, the batch's last job included).

The merge order, and so the result, does not depend on the timing of the threads in
either mode (``tests/test_threaded_td.py`` replays the merge order on one thread and gets
the same weights, bit for bit).  One round of ``"round"`` and the first round of
``"rolling"`` give the start plus each thread's own change.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from bgengine._checks import checked_int
from bgengine.core.agents import MAX_GAMES
from bgengine.core.evaluator import Evaluator
from bgengine.core.network import Network
from bgengine.training.optimizer import trained_params
from bgengine.core.td import train_games

#: The ways threads go on after merging their changes (see the module docstring).
SYNC_MODES = ("round", "rolling")


@dataclass(frozen=True)
class _Job:
    """Games ``first .. first + games - 1`` of the batch, played by ``thread`` in ``round``."""
    round: int
    thread: int
    first: int
    games: int


def _deal(n: int, threads: int, sync_games: int) -> list[_Job]:
    """The batch's jobs in merge order (round by round, thread by thread)."""
    jobs = []
    per_round = threads * sync_games
    for r in range(-(-n // per_round)):
        for t in range(threads):
            first = r * per_round + t * sync_games
            if first < n:
                jobs.append(_Job(r, t, first, min(sync_games, n - first)))
    return jobs


class _Merger:
    """The master weights and whose turn it is to add a change to them.

    ``merged`` counts the jobs merged so far (in :func:`_deal`'s order); a thread whose job
    is number ``i`` merges when ``merged == i``.  Any failure stops every thread."""

    def __init__(self, master: list[np.ndarray], jobs: list[_Job]):
        self.master = master
        self.jobs = jobs
        self.merged = 0
        self.failed = False
        self.cond = threading.Condition()
        # jobs merged once round r is complete: the index after its last job
        self.round_end = {}
        for i, job in enumerate(jobs):
            self.round_end[job.round] = i + 1
        # the weights of the last complete round ("round" mode): a copy, so that a thread
        # that reads them late never sees the next round's merges
        self.snapshot = [m.copy() for m in master]

    def wait_for(self, count: int) -> bool:
        """Block until ``count`` jobs are merged; False if the batch failed meanwhile."""
        with self.cond:
            self.cond.wait_for(lambda: self.merged >= count or self.failed)
            return not self.failed

    def done(self) -> None:
        with self.cond:
            self.merged += 1
            self.cond.notify_all()

    def fail(self) -> None:
        with self.cond:
            self.failed = True
            self.cond.notify_all()


def _worker(merger: _Merger, worker: Network | Evaluator, indices: list[int], mode: str,
            first_game: int, train_kw: dict, results: dict) -> None:
    """Play thread ``t``'s jobs (``indices`` into ``merger.jobs``) and merge each in turn."""
    own = trained_params(worker)
    start = [w.copy() for w in own]
    change = [np.empty_like(w) for w in own]
    try:
        for i in indices:
            job = merger.jobs[i]
            results[i] = train_games(worker, job.games, first_game=first_game + job.first,
                                     **train_kw)
            if not merger.wait_for(i):
                return
            for w, s, c, m in zip(own, start, change, merger.master):
                np.subtract(w, s, out=c)
                m += c                              # in place: the network owns it
            last_of_round = i + 1 == merger.round_end[job.round]
            if mode == "rolling":
                # on from everything merged so far; copied before the next thread's turn
                for w, s, m in zip(own, start, merger.master):
                    np.copyto(w, m)
                    np.copyto(s, m)
            elif last_of_round:
                for snap, m in zip(merger.snapshot, merger.master):
                    np.copyto(snap, m)
            merger.done()
            if mode == "round":
                if not merger.wait_for(merger.round_end[job.round]):
                    return
                for w, s, snap in zip(own, start, merger.snapshot):
                    np.copyto(w, snap)
                    np.copyto(s, snap)
    except BaseException as exc:
        results["error"] = exc
        merger.fail()


def train_games_threaded(model: Network | Evaluator, n_games: int, alpha: float, lam: float,
                         *, threads: int, sync_games: int, mode: str = "round", seed: int = 0,
                         first_game: int = 0, method: str = "td", epsilon: float = 0.0,
                         target_plies: int = 0,
                         starts: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """``n_games`` self-play games on ``threads`` threads, updating ``model`` in place.

    The arguments after ``lam`` that :func:`bgengine.core.td.train_games` takes mean the same
    here; ``sync_games`` games per thread between merges and ``mode`` (one of
    :data:`SYNC_MODES`) are described in the module docstring.  Returns the per-game
    statistics of ``train_games``, concatenated in game order (arrays of ``n_games``).
    ``FloatingPointError`` if the weights are no longer finite; an error in any thread
    stops all of them (after their current job) and is raised here.
    """
    if mode not in SYNC_MODES:
        raise ValueError(f"mode must be one of {', '.join(SYNC_MODES)}, got {mode!r}")
    n_games = checked_int(n_games, "n_games", 0, MAX_GAMES, "0..10**8")
    threads = checked_int(threads, "threads", 1, 256, "1..256")
    sync_games = checked_int(sync_games, "sync_games", 1, MAX_GAMES, "1..10**8")
    jobs = _deal(n_games, threads, sync_games)
    if not jobs:
        return train_games(model, 0, alpha, lam, seed=seed, first_game=first_game,
                           method=method, epsilon=epsilon, target_plies=target_plies,
                           starts=starts)
    master = trained_params(model)
    merger = _Merger(master, jobs)
    train_kw = dict(alpha=alpha, lam=lam, seed=seed, method=method, epsilon=epsilon,
                    target_plies=target_plies, starts=starts)
    results: dict = {}
    workers = []
    for t in range(threads):
        indices = [i for i, job in enumerate(jobs) if job.thread == t]
        if indices:
            args = (merger, model.copy(), indices, mode, first_game, train_kw, results)
            workers.append(threading.Thread(target=_worker, args=args, name=f"td-{t}",
                                            daemon=True))
    for w in workers:
        w.start()
    try:
        for w in workers:
            while w.is_alive():
                w.join(0.1)         # wakes up to run signal handlers (Ctrl-C) meanwhile
    except BaseException:          # Ctrl-C in the main thread: stop after the current jobs
        merger.fail()
        for w in workers:
            w.join()
        raise
    if "error" in results:
        raise results["error"]
    for params in master:
        if not np.all(np.isfinite(params)):
            raise FloatingPointError("training diverged: the network's weights are no longer "
                                     "finite (try a smaller alpha)")
    stats = [results[i] for i in range(len(jobs))]
    return {key: np.concatenate([st[key] for st in stats]) for key in stats[0]}
