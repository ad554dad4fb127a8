"""Property tests (hypothesis) of the rules core: invariants every legal play
must keep, on legal positions drawn by a custom strategy.

Hypothesis runs deterministically (profile "bgengine" in tests/conftest.py:
derandomize=True, no database).
"""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rules_oracle as oracle
from bgengine.core.board import (game_result, is_race, pip_counts, position_key, swap_sides,
                            validate_board, validate_boards)
from bgengine.core.dice import Dice
from bgengine.core.movegen import count_afterstates, legal_afterstates

MOVER, OPP, BAR = 1, 0, 24


# ------------------------------------------------------------------ strategies

@st.composite
def positions(draw, min_mover: int = 1, min_opponent: int = 1) -> np.ndarray:
    """A legal position: up to 15 checkers a side, no point held by both.

    The mover's checkers go anywhere (points and bar), all home (a bear-off),
    or mostly to the bar; the opponent's then go to slots the mover leaves free.
    """
    kind = draw(st.sampled_from(["anywhere", "home", "nearly_home", "bar"]))
    mover_slots = {
        "anywhere": list(range(25)),
        "home": list(range(6)),
        "nearly_home": list(range(9)),
        "bar": [BAR] * 3 + list(range(24)),
    }[kind]
    mine = draw(st.lists(st.sampled_from(mover_slots), min_size=min_mover, max_size=15))
    board = np.zeros((2, 25), dtype=np.uint8)
    for s in mine:
        board[MOVER, s] += 1
    # Opponent slot j is the mover's slot 23 - j; its bar is always free.
    free = [j for j in range(24) if board[MOVER, 23 - j] == 0] + [BAR]
    if draw(st.booleans()):
        free_home = [j for j in free if j < 6]      # an opponent holding its home board
        free = free_home * 3 + free
    theirs = draw(st.lists(st.sampled_from(free), min_size=min_opponent, max_size=15))
    for s in theirs:
        board[OPP, s] += 1
    if board[:, BAR].all() and (board[:, :6] >= 2).all():
        board[OPP, BAR] = 0     # both on the bar against closed boards: impossible
    return board


dice = st.tuples(st.integers(1, 6), st.integers(1, 6))


def steps_of(steps_row) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in steps_row if a != -1]


def highest_point(row) -> int:
    """The mover's highest occupied point 1..25 (25 = bar), 0 if none."""
    occupied = [i + 1 for i in range(25) if row[i] > 0]
    return max(occupied, default=0)


@st.composite
def batches(draw) -> np.ndarray:
    """int64 (N, 2, 25): legal positions, some of them then given a bad slot (negative, a
    point of both sides, too many checkers, or all borne off)."""
    boards = draw(st.lists(positions(), min_size=0, max_size=6)).copy()
    out = np.array(boards, dtype=np.int64).reshape(-1, 2, 25)
    for k in range(len(out)):
        kind = draw(st.sampled_from(["legal"] * 3 + ["negative", "shared", "many", "empty"]))
        i = draw(st.integers(0, 23))
        if kind == "negative":
            out[k, draw(st.integers(0, 1)), i] = -draw(st.integers(1, 3))
        elif kind == "shared":
            out[k, MOVER, i] += 1
            out[k, OPP, 23 - i] += 1
        elif kind == "many":
            out[k, draw(st.integers(0, 1)), i] += 15
        elif kind == "empty":
            out[k] = 0
    return out


def _error(fn, arg) -> str | None:
    try:
        fn(arg)
    except ValueError as exc:
        return str(exc)
    return None


@given(batches(), st.sampled_from([np.int64, np.int16, np.float64]))
def test_validate_boards_is_validate_board_of_each(batch, dtype):
    """A batch is refused exactly when one of its positions is, with the first bad one's
    index and message; else each comes back as validate_board returns it."""
    arr = batch.astype(dtype)
    errors = [_error(validate_board, b) for b in arr]
    bad = [k for k, e in enumerate(errors) if e is not None]
    if bad:
        assert _error(validate_boards, arr) == f"boards[{bad[0]}]: {errors[bad[0]]}"
        if (batch >= 0).all() and (batch <= 15).all():
            assert _error(validate_boards, batch.astype(np.uint8)) == (
                f"boards[{bad[0]}]: {errors[bad[0]]}")
    else:
        out = validate_boards(arr)
        assert out.dtype == np.uint8 and out.flags.c_contiguous and out.shape == arr.shape
        assert all((out[k] == validate_board(b)).all() for k, b in enumerate(arr))
        assert (validate_boards(batch.astype(np.uint8)) == out).all()
        out[...] = 0                                    # a copy: the input stays
        assert (arr == batch.astype(dtype)).all()


# ------------------------------------------------------------------ play invariants

@given(positions(), dice)
def test_afterstates_are_legal_and_conserve_checkers(board, roll):
    afterstates, steps = legal_afterstates(board, *roll)
    for a, s in zip(afterstates, steps):
        validate_board(a)                                # at most 15 a side, no shared point
        played = steps_of(s)
        borne_off = sum(1 for _, dst in played if dst == 0)
        # 15 = on the board + bar + off, for both sides.
        assert int(a[MOVER].sum()) == int(board[MOVER].sum()) - borne_off
        assert int(a[OPP].sum()) == int(board[OPP].sum())


@given(positions(), dice)
def test_pips_drop_by_the_steps_and_each_step_uses_a_die(board, roll):
    d1, d2 = roll
    roll_dice = [d1] * 4 if d1 == d2 else [d1, d2]
    afterstates, steps = legal_afterstates(board, d1, d2)
    before = pip_counts(board)[0]
    for a, s in zip(afterstates, steps):
        played = steps_of(s)
        # Pip decrease = sum over steps of (from - to), off = 0, bar = 25.
        assert before - pip_counts(a)[0] == sum(src - dst for src, dst in played)
        # Each step's distance equals its die, or is smaller only for a bear-off
        # from the highest occupied point (checked in the order played, trying
        # every assignment of the roll's dice to the steps).
        ok_orders = 0
        for order in set(permutations(roll_dice, len(played))):
            row = [int(v) for v in board[MOVER]]
            fine = True
            for (src, dst), die in zip(played, order):
                dist = src - dst
                if dst != 0:
                    fine = dist == die
                else:
                    fine = (dist == die
                            or (dist < die and highest_point(row) == src and src <= 6))
                if not fine:
                    break
                row[src - 1] -= 1
                if dst:
                    row[dst - 1] += 1
            ok_orders += fine
        assert ok_orders > 0, f"steps {played} do not fit the roll {roll}"


@given(positions(), dice)
def test_opponent_checkers_only_move_to_its_bar_when_hit(board, roll):
    afterstates, steps = legal_afterstates(board, *roll)
    for a, s in zip(afterstates, steps):
        landed = {dst for _, dst in steps_of(s) if dst != 0}
        hits = 0
        for j in range(24):                     # opponent slot j = mover point 24 - j
            was, now = int(board[OPP, j]), int(a[OPP, j])
            if now != was:
                assert was == 1 and now == 0, f"opponent point {j + 1}: {was} -> {now}"
                assert 24 - j in landed, "an opponent blot vanished without being hit"
                hits += 1
        assert int(a[OPP, BAR]) == int(board[OPP, BAR]) + hits


@given(positions(), dice)
def test_afterstates_unique_and_independent_of_dice_order(board, roll):
    d1, d2 = roll
    a12, _ = legal_afterstates(board, d1, d2)
    a21, _ = legal_afterstates(board, d2, d1)
    keys12 = [x.tobytes() for x in a12]
    assert len(set(keys12)) == len(keys12), "an afterstate is listed twice"
    assert set(keys12) == {x.tobytes() for x in a21}
    counts = count_afterstates(board[None], np.array([[d1, d2], [d2, d1]]))
    assert counts.tolist() == [[len(a12), len(a12)]]


@given(positions(), dice)
def test_number_of_dice_used_is_maximal(board, roll):
    d1, d2 = roll
    afterstates, steps = legal_afterstates(board, d1, d2)
    used = {len(steps_of(s)) for s in steps}
    assert len(used) == 1, f"plays use different numbers of dice: {sorted(used)}"
    (n,) = used
    assert n == oracle.max_dice(board, d1, d2)
    if n == 0:
        assert len(afterstates) == 1 and (afterstates[0] == board).all()
    # Larger-die rule: one die used of a non-double -> the larger one whenever it
    # can be played at all.
    if n == 1 and d1 != d2:
        big = max(d1, d2)
        if oracle.single_steps(oracle.to_state(board), big):
            for s in steps:
                (src, dst), = steps_of(s)
                assert src - dst == big or (dst == 0 and src < big)


@given(positions(), dice)
def test_matches_the_oracle(board, roll):
    afterstates, _ = legal_afterstates(board, *roll)
    ref = oracle.legal_plays(board, *roll)
    assert {oracle.state_bytes(k) for k in ref} == {a.tobytes() for a in afterstates}


# ------------------------------------------------------------------ board functions

@given(positions(min_mover=0, min_opponent=0))
def test_swap_sides_is_an_involution(board):
    if not board.any():                 # both sides off is no position
        with pytest.raises(ValueError, match="both sides have borne off"):
            swap_sides(board)
        return
    swapped = swap_sides(board)
    np.testing.assert_array_equal(swap_sides(swapped), board)
    np.testing.assert_array_equal(swapped, board[::-1])
    assert pip_counts(swapped) == pip_counts(board)[::-1]
    assert pip_counts(board) == oracle.pips(board)
    assert is_race(swapped) == is_race(board)
    assert game_result(swapped) == -game_result(board)
    assert position_key(board) == position_key(board.copy())


@given(positions(min_mover=0, min_opponent=1))
def test_game_result_matches_the_oracle(board):
    assert game_result(board) == oracle.result(board)
    if board[MOVER].sum() == 0:
        assert game_result(board) in (1, 2, 3)
        assert game_result(board) >= 2 or board[OPP].sum() < 15


# ------------------------------------------------------------------ dice

@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1))
def test_dice_are_reproducible(seed, stream):
    a, b = Dice(seed, stream), Dice(seed, stream)
    rolls_a = [a.roll() for _ in range(20)] + [a.opening_roll() for _ in range(5)]
    rolls_b = [b.roll() for _ in range(20)] + [b.opening_roll() for _ in range(5)]
    assert rolls_a == rolls_b
    assert all(1 <= x <= 6 for r in rolls_a for x in r)
    many = Dice(seed, stream).rolls(20)
    assert many.tolist() == [list(r) for r in rolls_a[:20]]
    # A saved state restores the same future.
    c = Dice(seed, stream)
    c.roll()
    state = c.getstate()
    nxt = [c.roll() for _ in range(5)]
    c.setstate(state)
    assert [c.roll() for _ in range(5)] == nxt


def test_streams_and_seeds_differ():
    base = Dice(7, 0).rolls(100).tolist()
    assert Dice(7, 1).rolls(100).tolist() != base
    assert Dice(8, 0).rolls(100).tolist() != base


@given(st.integers(0, 2**64 - 1))
def test_opening_roll_is_never_a_double(seed):
    d = Dice(seed)
    for _ in range(50):
        d1, d2 = d.opening_roll()
        assert 1 <= d2 < d1 <= 6


def _chi_square(observed: np.ndarray) -> float:
    expected = observed.sum() / observed.size
    return float(((observed - expected) ** 2 / expected).sum())


def test_roll_distribution_chi_square():
    """Fixed seed, so the statistic is a fixed number: this cannot flake.

    Bounds are the 1e-6 upper quantiles of chi-square (35 and 14 degrees of
    freedom): a fair generator exceeds them with probability one in a million.
    """
    n = 360_000
    rolls = Dice(seed=20240607, stream=3).rolls(n).astype(np.int64)
    observed = np.bincount((rolls[:, 0] - 1) * 6 + (rolls[:, 1] - 1), minlength=36)
    assert observed.sum() == n
    assert _chi_square(observed) < 89.9                  # 36 ordered outcomes, 35 dof
    for die in (0, 1):                                   # each die on its own, 5 dof
        assert _chi_square(np.bincount(rolls[:, die] - 1, minlength=6)) < 35.9
    assert (rolls[:, 0] == rolls[:, 1]).mean() == pytest.approx(1 / 6, abs=0.005)

    d = Dice(seed=99)
    opening = np.array([d.opening_roll() for _ in range(30_000)])
    pairs = np.bincount((opening[:, 0] - 1) * 6 + (opening[:, 1] - 1), minlength=36)
    nonzero = pairs[pairs > 0]
    assert nonzero.size == 15                            # the 15 non-double rolls, d1 > d2
    assert _chi_square(nonzero) < 54.6                   # 14 dof
