"""Games per second against GNU Backgammon at 0-ply, through bgengine's gnubg pool
(skipped without gnubg).

The shipped network plays ``GAMES`` cubeless money games against ``gnubg``
(0-ply) with :class:`bgengine.opponents.gnubg.GnubgPool` at its default size (16
processes per core); the pool is started before the clock starts (about 1.2 s
for 32 processes) and every reply is checked against our legal plays as in a
real match.  gnubg waits about 10 ms for each of its own evaluations (its
worker-thread poll, whatever ``set threads`` says), so one process answers
about 95 plays a second whatever the CPU; the pool runs many at once.

Target: >= 40 games/s on 2 cores.  Gate: >= 30 games/s (a noisy or loaded run
may dip below the target; the figure is printed).  ``pytest
bench/test_bench_gnubg_opponent.py --benchmark-disable`` takes about 12 s.

Figures (games/s at 0-ply, seed 0; CPU "AMD EPYC" per /proc/cpuinfo, 2-core
KVM guest, Python 3.11, gnubg 1.07.001; 22 gnubg plays per game asked, the
forced ones not):

==============================================  =========  ========  ========  ========
machine state                                   16 procs   24 procs  32 procs  48 procs
==============================================  =========  ========  ========  ========
both cores free (training paused, kill -STOP)   57.8       80.6      111.7     97.8
two niced ``bgengine train`` runs beside it                84.5      94.6-109
one niced ``bgengine train`` run beside it      55-57      62-73               68
==============================================  =========  ========  ========  ========

(1000-2000 games each, the previous evaluator.)  The shipped evaluator, both cores free,
32 processes, AMD EPYC family 25 model 17 (Zen 4): 106 games/s (1000 games).  Our game loop costs about 150 us of Python per gnubg
reply (move generation, the reply's check by ``match_move``, our own play, the
request line): 45-60% of a core at these rates.  Each gnubg process uses
little CPU (0.15 ms per 0-ply play), so more processes help until the cores
are full.
"""

from __future__ import annotations

import os
import shutil
import time

import pytest

from bgengine.opponents.gnubg import GnubgConfig, GnubgPlayer, GnubgPool, GnubgSettings
from bgengine.matches.players import default_network_path, make_player

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
