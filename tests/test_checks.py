"""bgengine._checks: what counts as a real integer or number for the library's checks."""

from __future__ import annotations

import numpy as np
import pytest

from bgengine._checks import is_int, is_number

INTS = [0, -3, 10**30, np.int8(3), np.uint64(7), np.int64(-1)]
FLOATS = [0.5, float("nan"), np.float32(1.0), np.float64(2.0)]
NEITHER = [True, False, np.bool_(True), "3", None, 3 + 0j, [1], np.array([1])]


@pytest.mark.parametrize("x", INTS)
def test_integers(x):
    assert is_int(x) and is_number(x)


@pytest.mark.parametrize("x", FLOATS)
def test_floats_are_numbers_not_integers(x):
    assert not is_int(x) and is_number(x)


@pytest.mark.parametrize("x", NEITHER, ids=repr)
def test_bools_strings_and_arrays_are_neither(x):
    assert not is_int(x) and not is_number(x)


def test_the_library_uses_them():
    """A bool is refused where a count is asked for, through the shared check."""
    from bgengine.notation import match_move
    from bgengine.position import Position
    from bgengine.tournament.pairings import pairs_of_games

    with pytest.raises(ValueError, match="integer 1..6"):
        match_move(Position.initial().board, True, 1, "8/7 6/5")
    with pytest.raises(ValueError, match="integer of at least 2"):
        pairs_of_games(True)
    assert pairs_of_games(np.int64(5)) == 3
