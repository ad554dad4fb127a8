"""Move generation: unique afterstates per second, single thread.

Input: the 2000 wildbg positions (1000 contact, 1000 race) x the 21 rolls,
667,603 unique afterstates in all (no-play rolls counted as 1).

The gate is the ratio to the pure-Python rules implementation in
``tests/rules_oracle.py`` measured in the same run (target >= 50x), never an
absolute time.  The issue's absolute target is >= 10 million afterstates/s.

Figures on the development machine (2 cores, Intel Xeon KVM guest, Python
3.11, gcc 12 -O3, idle), 3 runs (sources found by bit scan of point masks,
blocked points from one mask per roll):

=============================  ====================  =========
implementation                 afterstates/s         ratio
=============================  ====================  =========
Cython ``count_afterstates``   31.1 / 33.1 / 33.1 M  238-254x
pure-Python oracle             130-131 k             1x
=============================  ====================  =========
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from bgengine.core.movegen import count_afterstates

TOTAL_AFTERSTATES = 667_603


def test_movegen_cython(benchmark, wildbg_boards, rolls):
    counts = benchmark(count_afterstates, wildbg_boards, rolls)
    assert int(counts.sum()) == TOTAL_AFTERSTATES
    if benchmark.stats is not None:
        benchmark.extra_info["afterstates_per_s"] = TOTAL_AFTERSTATES / benchmark.stats["median"]


def test_movegen_speedup_over_pure_python(wildbg_boards, rolls, rules_oracle):
    """Same positions for both: every 20th wildbg position x 21 rolls."""
    sample = wildbg_boards[::20]
    as_tuples = [tuple(tuple(int(v) for v in row) for row in b) for b in sample]

    def run_python() -> int:
        return sum(len(rules_oracle.legal_plays(b, int(d1), int(d2)))
                   for b in as_tuples for d1, d2 in rolls)

    def run_cython() -> int:
        return int(count_afterstates(sample, rolls).sum())

    def median_time(fn, repeat: int) -> tuple[float, int]:
        times, n = [], 0
        for _ in range(repeat):
            t0 = time.perf_counter()
            n = fn()
            times.append(time.perf_counter() - t0)
        return statistics.median(times), n

    t_py, n_py = median_time(run_python, 3)
    t_cy, n_cy = median_time(run_cython, 21)
    assert n_py == n_cy
    ratio = t_py / t_cy
    print(f"\nmovegen: Cython {n_cy / t_cy / 1e6:.2f} M afterstates/s, "
          f"pure Python {n_py / t_py / 1e3:.1f} k afterstates/s, ratio {ratio:.0f}x")
    assert ratio >= 50, f"Cython move generation only {ratio:.1f}x the pure-Python reference"


def test_movegen_threads(benchmark, wildbg_boards, rolls):
    """All cores (OpenMP over positions); the result must not depend on the thread count."""
    import os

    n_threads = os.cpu_count() or 1
    serial = count_afterstates(wildbg_boards, rolls)
    counts = benchmark(count_afterstates, wildbg_boards, rolls, n_threads)
    np.testing.assert_array_equal(counts, serial)
