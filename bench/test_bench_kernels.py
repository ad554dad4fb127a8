"""The network's SIMD kernels against its portable C kernel, same run.

``bgengine.core.network`` picks a forward-pass kernel the CPU runs
(``nnkernels.h``: AVX2, AVX-512, portable C); all give bit-identical results
(``tests/test_network.py`` checks that).  This measures what each is worth, on
the two workloads that matter: static evaluation of afterstates
(``Network.evaluate``, encoder included) and a 0-ply rollout of the opening
(move generation and encoder included), one thread, the shipped evaluator.

Gate: the preferred kernel (``available_kernels()[0]``) is at least 1.2x the
portable C kernel on rollouts (skipped when the CPU runs only C).  Figures (AMD EPYC family
26 model 2, Zen 5, 2-vCPU KVM guest, gcc 12 -O3, other work paused), the median of 5
alternating rounds; the sigmoid from an ``exp`` polynomial, fused into the row sums of both
SIMD kernels:

=========  ==================  ===============  =================
kernel     rollout trials/s    evaluations/s    x the C kernel
=========  ==================  ===============  =================
avx512     3822                1.48 M           18.2 / 12.7
avx2       3500                1.17 M           16.6 / 10.0
c           211                0.12 M           1
=========  ==================  ===============  =================

AVX-512 wins on both, so the import picks it first.  The portable C kernel is slow on
x86-64: without ``-mfma`` its ``fmaf`` is a libm call per operation.  It runs only where
neither SIMD kernel can (no AVX2 and FMA, or not x86-64; on arm64 ``fmaf`` is one
instruction).
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import numpy as np
import pytest

from bgengine.core.movegen import legal_afterstates_batch
from bgengine.core.evaluator import Evaluator, load_evaluator
from bgengine.core.network import available_kernels, kernel, use_kernel
from bgengine.position import STARTING_BOARD
from bgengine.core.search import rollout

NET = Path(__file__).resolve().parent.parent / "python" / "bgengine" / "data" / "default.npz"
ROUNDS = 5


@pytest.fixture(scope="module")
def net() -> Evaluator:
    return load_evaluator(NET)


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
    print("\nforward-pass kernels, the shipped evaluator, one thread (medians of "
          f"{ROUNDS} alternating rounds):")
    for name in trials:
        print(f"  {name:7s} {trials[name]:8.0f} rollout trials/s  {evals[name] / 1e6:6.2f} M evals/s"
              f"  ({trials[name] / trials['c']:.2f}x / {evals[name] / evals['c']:.2f}x C)")
    best = available_kernels()[0]
    assert trials[best] >= 1.2 * trials["c"], (
        f"{best} kernel only {trials[best] / trials['c']:.2f}x the C kernel on rollouts (gate 1.2x)")
