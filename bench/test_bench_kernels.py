"""The network's SIMD kernels against its portable C kernel, same run.

``bgengine.core.network`` picks a forward-pass kernel the CPU runs
(``nnkernels.h``: AVX2, AVX-512, portable C); all give bit-identical results
(``tests/test_network.py`` checks that).  This measures what each is worth, on
the two workloads that matter: static evaluation of afterstates
(``Network.evaluate``, encoder included) and a 0-ply rollout of the opening
(move generation and encoder included), one thread, shipped 222-80-5 network.

Gate: the preferred kernel (``available_kernels()[0]``) is at least 1.2x the
portable C kernel on rollouts (skipped when the CPU runs only C).  Figures on the
development machine (2-core Xeon KVM guest with AVX-512, gcc 12 -O3, idle), three
runs of this file, each the median of 5 alternating rounds (first layer by fused
multiply-adds, the hidden sigmoid fused into the AVX2 row kernel):

=========  ===================  ==================  ============================
kernel     rollout trials/s     evaluations/s       x the C kernel
=========  ===================  ==================  ============================
avx2       4526 / 4771 / 4716   1.70 / 1.80 / 1.78 M  8.34-8.54 / 5.27-5.67
avx512     4262 / 4460 / 4550   1.92 / 1.98 / 1.99 M  7.98-8.04 / 5.89-6.24
c           531 /  559 /  566   0.31 / 0.32 / 0.34 M  1
=========  ===================  ==================  ============================

AVX2 wins on rollouts in every round (AVX-512 wins on one-at-a-time static
evaluations), so the import picks AVX2 first.  The portable C kernel is slow on
x86-64: without ``-mfma`` its ``fmaf`` is a libm call per element.  It runs only where neither SIMD kernel can (no AVX2 and FMA, or
not x86-64; on arm64 ``fmaf`` is one instruction).
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import numpy as np
import pytest

from bgengine.core.movegen import legal_afterstates_batch
from bgengine.core.network import Network, available_kernels, kernel, use_kernel
from bgengine.position import STARTING_BOARD
from bgengine.core.search import rollout

NET = Path(__file__).resolve().parent.parent / "python" / "bgengine" / "data" / "default.npz"
ROUNDS = 5


@pytest.fixture(scope="module")
def net() -> Network:
    return Network.load(NET)


@pytest.fixture(scope="module")
def afterstates(wildbg_boards, rolls) -> np.ndarray:
    n = len(wildbg_boards)
    dice = rolls[np.arange(n) % len(rolls)]
    after, _, _ = legal_afterstates_batch(wildbg_boards, dice)
    swapped = np.ascontiguousarray(after[:, ::-1, :])       # the side to roll next in row 1
    in_play = (swapped[:, 0].sum(axis=1) > 0) & (swapped[:, 1].sum(axis=1) > 0)
    return swapped[in_play]


def _rates(work, units: int) -> dict[str, float]:
    """Median units/s of ``work`` under each available kernel, rounds alternating."""
    previous = kernel()
    times: dict[str, list[float]] = {k: [] for k in available_kernels()}
    try:
        for _ in range(ROUNDS):
            for name in times:
                use_kernel(name)
                t = time.perf_counter()
                work()
                times[name].append(time.perf_counter() - t)
    finally:
        use_kernel(previous)
    return {k: units / statistics.median(v) for k, v in times.items()}


def test_kernels_rollout_and_evaluate(net, afterstates):
    if available_kernels() == ("c",):
        pytest.skip("this CPU runs only the portable C kernel")
    board = np.array(STARTING_BOARD)
    rollout(net, board, 324, seed=2)                      # warm-up
    trials = _rates(lambda: rollout(net, board, 1296, seed=1), 1296)
    evals = _rates(lambda: net.evaluate(afterstates), len(afterstates))
    print("\nforward-pass kernels, shipped 222-80-5, one thread (medians of "
          f"{ROUNDS} alternating rounds):")
    for name in trials:
        print(f"  {name:7s} {trials[name]:8.0f} rollout trials/s  {evals[name] / 1e6:6.2f} M evals/s"
              f"  ({trials[name] / trials['c']:.2f}x / {evals[name] / evals['c']:.2f}x C)")
    best = available_kernels()[0]
    assert trials[best] >= 1.2 * trials["c"], (
        f"{best} kernel only {trials[best] / trials['c']:.2f}x the C kernel on rollouts (gate 1.2x)")
