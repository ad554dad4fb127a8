"""Encoders: sparse encodings per second of ``contact`` and ``race`` against ``expert``.

Input: 100,000 positions met in games of the shipped network against itself (0-ply,
seed 1; 78,367 contact, 21,633 race), generated here (about 20 s).  Each encoder encodes
all of them with ``encode_sparse`` in one nogil loop (``encoders._encode_timed``: this
thread's CPU time, so other jobs on a shared machine count less), rounds interleaved,
medians; "head" is ``encode_head`` alone (the part sibling afterstates share).  The gates
are ratios to ``expert`` in the same run, never absolute times.

Figures (AMD EPYC KVM guest, 2 cores, gcc 12 -O3, the machine heavily shared: load 6-9),
7 rounds, M encodings/s:

=============  ==========  ==========  ================  =============
encoder        sparse      head only   pairs / position  vs expert
=============  ==========  ==========  ================  =============
expert         7.9         22.4        43.8              1
contact        2.9         13.3        46.9              0.37
race           11.1        23.6        30.8              1.40
tesauro198     18.1        37.1        27.6              2.30
=============  ==========  ==========  ================  =============

On contact positions alone contact runs at 0.39x expert; on 100,000 positions of random
play (far more blots and checkers on the bar) at 0.26x.

The same machine, training paused, positions from the shipped class evaluator's games, two
runs, M encodings/s, "siblings" the afterstates of one roll of every 10th position encoded as
a search does (one head per side to roll next, ``_encode_timed(siblings=True)``):

=============  ===================  ===================  ===================
encoder        sparse               head only            siblings
=============  ===================  ===================  ===================
expert         7.9-8.4              22.7                 12.0
contact        2.86-2.91            13.5                 3.67
race           11.3-11.5            23.6                 20.2
=============  ===================  ===================  ===================

The side on roll's break-contact, free-pip and timing terms are cached in its head per
rearmost point of the other side (one blot: P1 from the shots): +7% for contact on siblings,
about 3% slower one position at a time (the head's cache set up for a single tail).
"""

from __future__ import annotations

import statistics

import numpy as np
import pytest

from bgengine.core.encoders import _encode_timed
from bgengine.core.movegen import legal_afterstates
from bgengine.matches.players import default_network_path, load_network

NAMES = ("expert", "contact", "race", "tesauro198")


def start_board() -> np.ndarray:
    b = np.zeros((2, 25), np.uint8)
    for s in range(2):
        b[s, 23], b[s, 12], b[s, 7], b[s, 5] = 2, 5, 3, 5
    return b


@pytest.fixture(scope="module")
def net_positions() -> np.ndarray:
    """100,000 positions (side on roll in row 1) of the shipped evaluator's games against
    itself, each play the best by cubeless equity at 0-ply."""
    net = load_network(default_network_path())
    rng = np.random.default_rng(1)
    pos: list[np.ndarray] = []
    while len(pos) < 100_000:
        b = start_board()
        while True:
            pos.append(b)
            d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
            after, _ = legal_afterstates(b, d1, d2)
            if (after[:, 1].sum(axis=1) == 0).any():
                break                                   # a play bears off the last checker
            nxt = after[:, ::-1].copy()                 # the opponent on roll
            out = net.evaluate(nxt)
            eq = 2 * out[:, 0] - 1 + out[:, 1] + out[:, 2] - out[:, 3] - out[:, 4]
            b = nxt[int(np.argmin(eq))]
    return np.array(pos[:100_000])


@pytest.fixture(scope="module")
def sibling_afterstates(net_positions) -> np.ndarray:
    """The afterstates of one roll of every 10th position, siblings consecutive (the side
    that moved in row 1): what a search encodes."""
    rng = np.random.default_rng(2)
    out = []
    for b in net_positions[::10]:
        d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
        after, _ = legal_afterstates(b, d1, d2)
        out.extend(a for a in after if a[1].sum() > 0)   # not the plays that win
    return np.array(out)


def test_encoder_speed(net_positions, sibling_afterstates):
    rates: dict[str, list[float]] = {n: [] for n in NAMES}
    heads: dict[str, list[float]] = {n: [] for n in NAMES}
    siblings: dict[str, list[float]] = {n: [] for n in NAMES}
    pairs = {}
    n, m = len(net_positions), len(sibling_afterstates)
    for _ in range(7):
        for name in NAMES:
            total, seconds = _encode_timed(net_positions, name)
            rates[name].append(n / seconds)
            pairs[name] = total / n
            heads[name].append(n / _encode_timed(net_positions, name, True)[1])
            siblings[name].append(m / _encode_timed(sibling_afterstates, name, siblings=True)[1])
    med = {name: statistics.median(r) for name, r in rates.items()}
    for name in NAMES:
        print(f"{name:12s} {med[name] / 1e6:6.2f} M/s sparse, {statistics.median(heads[name]) / 1e6:6.2f}"
              f" M/s head only, {statistics.median(siblings[name]) / 1e6:6.2f} M/s siblings, "
              f"{pairs[name]:.1f} pairs/position, {med[name] / med['expert']:.2f}x expert")
    assert med["contact"] >= 0.2 * med["expert"]
    assert med["race"] >= 0.8 * med["expert"]
