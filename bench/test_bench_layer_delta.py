"""Rollouts with sibling plays' first layers by difference (layer_delta.pxd) or in full.

One round rolls the opening out (1296 trials, one thread, 0-ply, full games, no variance
reduction, as ``bench/test_bench_vs_gnubg.py`` does) with ``by_delta=True`` (the default)
and with ``by_delta=False``, CPU time of this thread's process, rounds interleaved,
medians.  The gate is the same-run ratio, never absolute times.  Networks: the shipped class
evaluator (contact 250-128-5: by difference, its contact tails compared by parts,
``LAYER_DELTA_MIN_WIDTH_PARTS``) and the same evaluator with a 250-256-5 contact network
(random weights: the speed does not depend on them).  The two runs' equities may differ where
a near tie between two plays went the other way in some trial (random weights have many).

Figures (AMD EPYC 2-core KVM guest, ``lscpu`` family 25 model 17, training paused), one
run: shipped 1.075x (rounds 1.011-1.193), contact 256 1.087x (1.057-1.126).
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import pytest

from bgengine.core.evaluator import Evaluator, as_evaluator
from bgengine.core.network import Network
from bgengine.matches.players import default_network_path, load_network
from bgengine.position import STARTING_BOARD
from bgengine.core.search import rollout

ROUNDS = 3
TRIALS = 1296
#: by difference / in full, trials per second, per network
GATES = {"shipped": 1.0, "contact 256": 1.02}


@pytest.fixture(scope="module")
def evaluators() -> dict[str, Evaluator]:
    if not default_network_path().exists():
        pytest.skip("no shipped evaluator")
    shipped = as_evaluator(load_network(default_network_path()))
    wide = Evaluator(Network((256,), 5, "contact", seed=1), shipped.race,
                     database=shipped.database)
    return {"shipped": shipped, "contact 256": wide}


@pytest.mark.parametrize("name", ["shipped", "contact 256"])
def test_rollouts_by_difference_vs_full_sums(benchmark, evaluators, name):
    ev = evaluators[name]
    board = np.array(STARTING_BOARD)
    seconds: dict[bool, list[float]] = {True: [], False: []}
    equity: dict[bool, float] = {}

    def one_round():
        for flag in (False, True):
            t0 = time.process_time()
            out = rollout(ev, board, TRIALS, seed=1, plies=0, n_threads=1, by_delta=flag)
            seconds[flag].append(time.process_time() - t0)
            equity[flag] = out["equity"]

    rollout(ev, board, 324, seed=2, n_threads=1)            # warm-up
    benchmark.pedantic(one_round, rounds=1, warmup_rounds=0)
    while len(seconds[True]) < ROUNDS:
        one_round()
    ratios = [f / d for f, d in zip(seconds[False], seconds[True])]
    ratio = statistics.median(ratios)
    rate = TRIALS / statistics.median(seconds[True])
    benchmark.extra_info.update(ratio=ratio, ratios=[round(r, 3) for r in ratios],
                                trials_per_s=rate)
    print(f"\n{name}: by difference {ratio:.3f}x the full sums "
          f"[{min(ratios):.3f}-{max(ratios):.3f}], {rate:.0f} trials/s")
    # a near tie may go the other way in some trial (then its game differs): a loose check
    assert abs(equity[True] - equity[False]) < 0.05
    assert ratio >= GATES[name], f"{name}: by difference only {ratio:.3f}x the full sums"
