"""Scaling of matches over threads: games/s on 2 threads over games/s on 1 (issue 5: >= 1.8x).

Matches spread game pairs over threads inside the compiled core (the GIL is
released); results do not depend on the thread count (checked here too).

Figures on the development machine (2-core KVM guest, idle), 3 repetitions,
medians (session 5): shipped 222-80-5 network vs pubeval, 8000 games: 5914 games/s
on one thread, 11548 on two, **1.95x** (1.91-2.02); a 198-40-4 network vs pubeval,
20000 games: 7693 and 15177 games/s, **1.98x** (1.89-2.00); this file's test
1.90x.  Per-thread move lists and searchers are padded to a cache line of their
own: side by side in an array they shared one, and the scaling had fallen to
1.55-1.73x once a game got fast enough for it to show.  Gate: >= 1.5x (noise on a
shared machine), only where 2 cores are available.
"""

from __future__ import annotations

import os
import time

import pytest

from bgengine.agents import Player
from bgengine.match import run_match
from bgengine.network import Network

CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


@pytest.mark.skipif(CORES < 2, reason="needs 2 cores")
def test_match_scaling_on_two_threads(benchmark):
    net = Player("net", Network((40,), 4, "tesauro198", seed=1), name="198-40-4")
    pub = Player("pubeval")

    def ratio() -> float:
        t = time.perf_counter()
        one = run_match(net, pub, 6000, seed=1, threads=1)
        t1 = time.perf_counter() - t
        t = time.perf_counter()
        two = run_match(net, pub, 6000, seed=1, threads=2)
        t2 = time.perf_counter() - t
        assert one == two
        return t1 / t2

    r = benchmark.pedantic(ratio, rounds=3, iterations=1)
    ratios = sorted(ratio() for _ in range(2)) + [r]
    med = sorted(ratios)[1]
    benchmark.extra_info["scaling"] = med
    print(f"\n2-thread scaling: {med:.2f}x")
    assert med >= 1.5


@pytest.mark.skipif(CORES < 2, reason="needs 2 cores")
@pytest.mark.parametrize("sync_games", [16])
def test_training_scaling_on_two_threads(benchmark, tmp_path, sync_games):
    """TD(0) self-play games/s of a run on two threads (train_threads=2: each thread plays
    ``sync_games`` games on its own copy, then the updates are summed) over one thread,
    same config otherwise (222-128-5 expert network, from the same random weights, the
    same games).  Gate >= 1.5x (the issue's target is 1.8x on an idle machine).
    Session 6, AMD EPYC 2-core guest, idle: 1.65x (rounds 1.65, 1.65, 1.77): short of
    1.8x; the merges every 16 games and the Python between them are the suspects."""
    from bgengine.td import train_games
    from bgengine.training import TrainConfig, _train_chunk

    def rate(threads: int) -> float:
        cfg = TrainConfig(encoder="expert", hidden=[128], lam=0.0, games=100_000, seed=4,
                          train_threads=threads, sync_games=sync_games)
        net = Network((128,), 5, "expert", seed=4)
        train_games(net, 300, 0.1, 0.0, seed=99)       # past random weights' long games
        t = time.perf_counter()
        stats = _train_chunk(cfg, net, 1600, 0.1, 0, 1)
        return stats["moves"].sum() / (time.perf_counter() - t)    # moves/s: fair to both

    def ratio() -> float:
        return rate(2) / rate(1)

    r = benchmark.pedantic(ratio, rounds=1, iterations=1)
    ratios = sorted([r] + [ratio() for _ in range(2)])
    med = ratios[1]
    benchmark.extra_info["training_scaling"] = med
    print(f"\n2-thread training scaling (moves/s): {med:.2f}x  {ratios}")
    assert med >= 1.5
