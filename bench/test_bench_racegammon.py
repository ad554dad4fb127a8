"""The shipped evaluator's race values (``bgengine.core.racegammon``) against its race network alone.

Two same-run ratios, rounds interleaved, CPU time of this process, medians of ``ROUNDS``:

- static evaluations of the afterstates of the 2000 wildbg positions (half of them races;
  as ``test_bench_vs_gnubg``'s "afterstates"), the cache warm (the first pass solves the new
  races): gated at 0.9, so that the static-evaluation figure against gnubg stands;
- a 0-ply match against pubeval, 2000 games on one thread (the README's main job, smaller),
  new races solved as they come: reported, with the settings of 1 (shipped), 2 and 3
  checkers outside.

Figures (Intel Xeon guest, family 6 model 167, 2 cores, quiet; the recursion's own play
generator, a cache per thread, each mode's last two distributions kept): static evaluations
0.96x (4.68x gnubg's in ``test_bench_vs_gnubg``; 4.09x at 2 outside); matches 1.4x (1 outside)
and 6.7x (2 outside) the race network's time on one thread; the main job (20,000 games, 2
threads) on the command line (start-up included) 4.1-4.3 s without, 4.6-4.9 s with 1 outside,
15.6-15.7 s with 2, 104 s with 3.
Rollouts and training do not use the race values (the same trials and weights with them on or
off, ``tests/test_racegammon.py``), so their figures against gnubg do not depend on them.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np
import pytest

from bgengine.core.agents import Player, play_match
from bgengine.core.evaluator import as_evaluator
from bgengine.core.movegen import legal_afterstates_batch
from bgengine.matches.players import default_network_path, load_network
from bgengine.core.racegammon import RaceGammonTables

ROUNDS = 3
GATE_STATIC = 0.9


@pytest.fixture(scope="module")
def shipped():
    if not default_network_path().exists():
        pytest.skip("no shipped evaluator")
    ev = as_evaluator(load_network(default_network_path()))
    if ev.race_gammons is None:
        pytest.skip("the shipped evaluator has no race values")
    return ev


def test_static_evaluations_with_race_values(benchmark, shipped, wildbg_boards, rolls):
    n = len(wildbg_boards)
    boards = np.repeat(wildbg_boards, 3, axis=0)
    dice = rolls[(np.repeat(np.arange(n), 3) + np.tile([0, 7, 14], n)) % len(rolls)]
    after, _, _ = legal_afterstates_batch(boards, dice)
    after = np.ascontiguousarray(after[:, ::-1, :])
    plain = shipped.with_race_gammons(False)
    shipped.evaluate(after)                                   # solve the new races once
    seconds: dict[str, list[float]] = {"on": [], "off": []}

    def one_round():
        for name, ev in (("off", plain), ("on", shipped)):
            t0 = time.process_time()
            ev.evaluate(after)
            seconds[name].append(time.process_time() - t0)

    benchmark.pedantic(one_round, rounds=1, warmup_rounds=0)
    while len(seconds["on"]) < ROUNDS:
        one_round()
    ratio = statistics.median(o / f for o, f in zip(seconds["off"], seconds["on"]))
    benchmark.extra_info.update(ratio=ratio, afterstates=len(after))
    print(f"\nstatic evaluations with race values: {ratio:.3f}x the race network's speed "
          f"({len(after)} afterstates)", file=sys.stderr)
    assert ratio >= GATE_STATIC, f"race values cost too much: {ratio:.3f}x"


@pytest.mark.parametrize("max_outside", [1, 2])
def test_match_with_race_values(benchmark, shipped, max_outside):
    plain = Player("net", shipped.with_race_gammons(False))
    ours = Player("net", shipped.with_race_gammons(RaceGammonTables(max_outside=max_outside)))
    pub = Player("pubeval")
    seconds: dict[str, list[float]] = {"on": [], "off": []}

    def one_round():
        for name, p in (("off", plain), ("on", ours)):
            t0 = time.process_time()
            play_match(p, pub, 1000, seed=len(seconds[name]), n_threads=1)
            seconds[name].append(time.process_time() - t0)

    benchmark.pedantic(one_round, rounds=1, warmup_rounds=0)
    while len(seconds["on"]) < 2:
        one_round()
    ratio = statistics.median(o / f for o, f in zip(seconds["on"], seconds["off"]))
    benchmark.extra_info.update(slowdown=ratio)
    print(f"\nmatch against pubeval, {max_outside} outside: {ratio:.1f}x the time of the race "
          "network alone", file=sys.stderr)
    assert ratio > 0
