"""The wildbg move-count oracle: the four published totals, reproduced exactly."""

from __future__ import annotations

import numpy as np
import pytest

from bgengine.notation.ids import board_from_position_id
from bgengine.core.movegen import count_afterstates
from conftest import DATA

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]
DOUBLES = [i for i, (a, b) in enumerate(ROLLS) if a == b]
NON_DOUBLES = [i for i, (a, b) in enumerate(ROLLS) if a != b]

EXPECTED = {  # file: (6 doubles, 15 non-doubles), from tests/data/wildbg/README.md
    "contact_1000_positions.txt": (218356, 185957),
    "race_1000_positions.txt": (140720, 122570),
}


def load(name: str) -> np.ndarray:
    ids = (DATA / "wildbg" / name).read_text().split()
    assert len(ids) == 1000
    return np.stack([board_from_position_id(pid) for pid in ids])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_wildbg_totals(name):
    counts = count_afterstates(load(name), np.array(ROLLS))
    assert (int(counts[:, DOUBLES].sum()), int(counts[:, NON_DOUBLES].sum())) == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_dice_order_and_threads_do_not_change_counts(name):
    boards = load(name)[:300]
    counts = count_afterstates(boards, np.array(ROLLS))
    swapped = count_afterstates(boards, np.array([(b, a) for a, b in ROLLS]))
    threaded = count_afterstates(boards, np.array(ROLLS), n_threads=2)
    np.testing.assert_array_equal(counts, swapped)
    np.testing.assert_array_equal(counts, threaded)
