"""Games per second against GNU Backgammon at 0-ply, through bgengine's gnubg pool
(skipped without gnubg).

The shipped network plays ``GAMES`` cubeless money games against ``gnubg``
(0-ply) with :class:`bgengine.gnubg.GnubgPool` at its default size (12
processes per core); the pool is started before the clock starts (about 1 s
for 24 processes) and every reply is checked against our legal plays as in a
real match.  gnubg waits about 10 ms for each of its own evaluations (its
worker-thread poll, whatever ``set threads`` says), so one process answers
about 95 plays a second whatever the CPU; the pool runs many at once.

Target: >= 40 games/s on 2 cores.  Gate: >= 30 games/s (a noisy or loaded run
may dip below the target; the figure is printed).  ``pytest
bench/test_bench_gnubg_opponent.py --benchmark-disable`` takes about 20 s.

Figures (games/s, 2000 games, seed 0, default pool of 24 processes; CPU "AMD
EPYC" per /proc/cpuinfo, 2-core KVM guest, Python 3.11, gnubg 1.07.001):

======================================================  ==========  ===============
machine state                                           games/s     our Python CPU
======================================================  ==========  ===============
other core running ``bgengine train`` (1 core busy)     62-70       ~40% of a core
training paused (``kill -STOP``), both cores free       see README  see README
======================================================  ==========  ===============

(Pool size, other core training, 800 games: 8 processes 29 games/s, 16: 55-57,
24: 62-70, 32: 60, 48: 68; the gnubg processes use little CPU each, our game
loop about 150 us per gnubg reply: move generation, the reply's check, our
own play, the request line.)
"""

from __future__ import annotations

import os
import shutil
import time

import pytest

from bgengine.gnubg import GnubgConfig, GnubgPlayer, GnubgPool, GnubgSettings
from bgengine.players import default_network_path, make_player

GNUBG = shutil.which("gnubg") or (
    "/usr/games/gnubg" if os.path.exists("/usr/games/gnubg") else None)

pytestmark = [
    pytest.mark.gnubg,
    pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed"),
    pytest.mark.skipif(not default_network_path().exists(), reason="no shipped network"),
]

GAMES = 1000
TARGET = 40.0
GATE = 30.0


def test_games_per_second_vs_gnubg_0ply(benchmark):
    net, gnubg = make_player("net"), GnubgPlayer(GnubgSettings(0))
    with GnubgPool(GnubgConfig()) as pool:
        stats = {}

        def play():
            t, cpu = time.perf_counter(), time.process_time()
            res = pool.play_pairs(net, gnubg, GAMES // 2, seed=0)
            stats.update(seconds=time.perf_counter() - t, cpu=time.process_time() - cpu, res=res)
            return res

        res = benchmark.pedantic(play, rounds=1, iterations=1)
        n_procs = len(pool.pids)
    assert not res.bad.any(), res.reasons[:3]
    rate = GAMES / stats["seconds"]
    benchmark.extra_info.update(games_per_second=rate, processes=n_procs,
                                python_cpu=stats["cpu"] / stats["seconds"])
    print(f"\nnet vs gnubg 0-ply: {rate:.1f} games/s ({GAMES} games, {n_procs} gnubg processes, "
          f"{res.requests / GAMES:.1f} gnubg plays per game, our Python "
          f"{100 * stats['cpu'] / stats['seconds']:.0f}% of a core); target {TARGET:g}: "
          f"{'met' if rate >= TARGET else 'NOT met'}")
    assert rate >= GATE
