"""Bad input to the rules core: random bytes and ints as positions, wrong shapes
and dtypes, bad dice.  Every entry point must either raise ``ValueError``
(``TypeError`` is accepted only for arguments of a wrong Python type, such as a
string thread count) with a message naming the problem, or, when the input is a
legal position after all, return exactly the oracle's moves.  Nothing may
crash, hang or return garbage.
"""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import rules_oracle as oracle
from test_movegen_oracle import constructed_position
from bgengine.core.board import (game_result, is_race, pip_counts, position_key, swap_sides,
                            validate_board, validate_boards)
from bgengine.core.movegen import (MoveGenerator, count_afterstates, legal_afterstates,
                              legal_afterstates_batch)

START = np.array(oracle.START, dtype=np.uint8)
GEN = MoveGenerator()

#: Functions of one board (the dice, where needed, are a legal 3-1).
SINGLE = {
    "validate_board": validate_board,
    "legal_afterstates": lambda b: legal_afterstates(b, 3, 1),
    "MoveGenerator.legal_afterstates": lambda b: GEN.legal_afterstates(b, 3, 1),
    "MoveGenerator.count": lambda b: GEN.count(b, 3, 1),
    "swap_sides": swap_sides,
    "pip_counts": pip_counts,
    "game_result": game_result,
    "is_race": is_race,
    "position_key": position_key,
}
#: Functions of a batch of boards (one roll each).
BATCH = {
    "validate_boards": validate_boards,
    "count_afterstates": lambda bs: count_afterstates(bs, [[3, 1]]),
    "count_afterstates(threads)": lambda bs: count_afterstates(bs, [[3, 1]], n_threads=2),
    "legal_afterstates_batch": lambda bs: legal_afterstates_batch(
        bs, np.tile([[3, 1]], (len(bs), 1)) if np.ndim(bs) == 3 else [[3, 1]]),
}


# ------------------------------------------------------------------ the reference

def problems(board) -> list[str]:
    """What is wrong with a (2, 25) array of ints, as message fragments the
    core's error must contain one of (empty if the position is legal)."""
    b = np.asarray(board).astype(object)          # exact Python ints, no wrap-around
    found = []
    for side in (0, 1):
        if any(v < 0 for v in b[side]):
            found.append("negative")
        total = sum(int(v) for v in b[side])
        if total > 15:
            found.append(f"has {total} checkers")
    for i in range(24):
        if b[1, i] > 0 and b[0, 23 - i] > 0:
            found.append(f"point {i + 1} ")
    if found:
        return found
    # the two impossible positions
    if not any(int(v) for v in b.flat):
        found.append("both sides have borne off")
    if all(b[s, 24] > 0 and all(v >= 2 for v in b[1 - s, :6]) for s in (0, 1)):
        found.append("both sides are on the bar against closed boards")
    return found


def check_board(board, dice=(3, 1)) -> str:
    """Run one fuzzed board through every entry point; return "ok" or "error"."""
    expected = problems(board)
    d1, d2 = dice
    if expected:
        for name, fn in SINGLE.items():
            with pytest.raises(ValueError) as err:
                fn(board)
            msg = str(err.value)
            assert any(p in msg for p in expected), f"{name}: {msg!r} names none of {expected}"
        batch = np.stack([START, np.asarray(board), START])
        for name, fn in BATCH.items():
            with pytest.raises(ValueError) as err:
                fn(batch)
            msg = str(err.value)
            assert "boards[1]" in msg, f"{name}: {msg!r} does not name the bad board"
            assert any(p in msg for p in expected), f"{name}: {msg!r} names none of {expected}"
        return "error"
    # A legal position: the moves must be the oracle's.
    ref = {oracle.state_bytes(k): s for k, s in oracle.legal_plays(board, d1, d2).items()}
    afterstates, steps = legal_afterstates(board, d1, d2)
    assert {a.tobytes() for a in afterstates} == set(ref)
    assert len(afterstates) == len(ref)
    for a, s in zip(afterstates, steps):
        played = [tuple(x) for x in s.tolist() if x[0] != -1]
        assert len(played) == len(ref[a.tobytes()])
    assert GEN.count(board, d1, d2) == len(ref)
    assert count_afterstates(np.asarray(board)[None], [[d1, d2]]).tolist() == [[len(ref)]]
    a2, s2, off = legal_afterstates_batch(np.asarray(board)[None], [[d1, d2]])
    np.testing.assert_array_equal(a2, afterstates)
    np.testing.assert_array_equal(s2, steps)
    assert off.tolist() == [0, len(ref)]
    return "ok"


# ------------------------------------------------------------------ random boards

def fuzz_boards(rng: np.random.Generator, n: int):
    """Random (2, 25) integer arrays, many illegal, some legal, in several dtypes."""
    for k in range(n):
        family = k % 8
        if family == 0:                   # raw random bytes
            yield np.frombuffer(rng.bytes(50), dtype=np.uint8).reshape(2, 25).copy()
        elif family == 1:                 # sparse small counts: often legal
            b = rng.integers(0, 4, size=(2, 25)) * (rng.random((2, 25)) < 0.25)
            yield b.astype(np.uint8)
        elif family == 2:                 # small signed ints, some negative
            yield rng.integers(-2, 3, size=(2, 25)).astype(np.int16)
        elif family == 3:                 # one tall stack per side, 10..20 checkers
            b = np.zeros((2, 25), dtype=np.int64)
            b[0, rng.integers(25)] = rng.integers(10, 21)
            b[1, rng.integers(25)] = rng.integers(10, 21)
            yield b
        elif family == 4:                 # both sides on the same point
            b = np.zeros((2, 25), dtype=np.int32)
            p = int(rng.integers(1, 25))
            b[1, p - 1] = rng.integers(1, 4)
            b[0, 24 - p] = rng.integers(1, 4)
            b[1, 24] = rng.integers(0, 3)
            yield b
        elif family == 5:                 # 12 checkers a side, then 1..7 more on a bar
            b = np.zeros((2, 25), dtype=np.uint8)
            b[1, :6] = 2
            b[0, :6] = 2
            b[int(rng.integers(2)), 24] += rng.integers(1, 8)
            if rng.random() < 0.3:        # both on the bar against closed boards: impossible
                b[:, 24] = np.maximum(b[:, 24], 1)
            yield b
        elif family == 6:                 # values > 15 in a single slot (uint8 range)
            b = np.zeros((2, 25), dtype=np.uint8)
            b[int(rng.integers(2)), int(rng.integers(25))] = rng.integers(16, 256)
            yield b
        else:                             # nested Python lists of small ints
            yield (rng.integers(0, 3, size=(2, 25)) * (rng.random((2, 25)) < 0.2)).tolist()


def test_random_boards():
    rng = np.random.default_rng(12345)
    outcomes = {"ok": 0, "error": 0}
    rolls = [(a, b) for a in range(1, 7) for b in range(1, 7)]
    for k, board in enumerate(fuzz_boards(rng, 4000)):
        outcomes[check_board(board, rolls[k % 36])] += 1
    # Both branches were really exercised.
    assert outcomes["ok"] > 300 and outcomes["error"] > 2000, outcomes


def test_legal_boards_in_other_dtypes_and_layouts():
    """Legal positions as floats, int8, big-endian, Fortran order and lists: same moves."""
    rng = np.random.default_rng(7)
    prng = random.Random(7)
    for _ in range(100):
        b = constructed_position(prng)
        d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
        ref = {x.tobytes() for x in legal_afterstates(b, d1, d2)[0]}
        for variant in (b.astype(np.float64), b.astype(np.int8), b.astype(">i4"),
                        np.asfortranarray(b), b.tolist(), np.ascontiguousarray(b.T).T):
            got = legal_afterstates(variant, np.int64(d1), np.uint8(d2))[0]
            assert {x.tobytes() for x in got} == ref
        assert check_board(b, (d1, d2)) == "ok"


def test_input_is_not_modified():
    b = START.copy()
    legal_afterstates(b, 6, 6)
    legal_afterstates_batch(b[None], [[6, 6]])
    count_afterstates(b[None], [[6, 6]])
    np.testing.assert_array_equal(b, START)


# ------------------------------------------------------------------ wrong shapes and types

BAD_SHAPES = [
    np.zeros((2, 24), np.uint8), np.zeros((2, 26), np.uint8), np.zeros((3, 25), np.uint8),
    np.zeros(50, np.uint8), np.zeros((25, 2), np.uint8), np.zeros((1, 2, 25), np.uint8),
    np.zeros((), np.uint8), [], [[0] * 26, [0] * 26], [[0] * 25], 0,
]
BAD_TYPES = [
    [[0] * 25, [0] * 24],                         # ragged lists
    [[0] * 25, [0] * 25 + [[1]]],
    np.zeros((2, 25), dtype=bool), np.zeros((2, 25), dtype=complex),
    np.zeros((2, 25), dtype=object), np.zeros((2, 25), dtype="U1"),
    np.zeros((2, 25), dtype="datetime64[s]"), None, "board", b"\x00" * 50, {0: 1},
    [[0] * 24 + [2 ** 70], [0] * 25],               # too big for any integer dtype
]
NOT_WHOLE = [np.full((2, 25), np.nan), np.full((2, 25), np.inf), np.full((2, 25), 0.5),
             np.where(np.arange(50).reshape(2, 25) == 3, 1.25, 0.0)]


@pytest.mark.parametrize("board", BAD_SHAPES, ids=lambda b: f"shape{np.shape(b)}")
@pytest.mark.parametrize("name", sorted(SINGLE))
def test_wrong_shape(name, board):
    with pytest.raises(ValueError, match=r"shape"):
        SINGLE[name](board)


@pytest.mark.parametrize("name", sorted(BATCH))
@pytest.mark.parametrize("boards", [np.zeros((2, 25), np.uint8), np.zeros((4, 25, 2), np.uint8),
                                    np.zeros((4, 2, 24), np.uint8), np.zeros(50, np.uint8),
                                    np.zeros((1, 1, 2, 25), np.uint8)],
                         ids=lambda b: f"shape{b.shape}")
def test_batch_wrong_shape(name, boards):
    with pytest.raises(ValueError, match=r"shape"):
        BATCH[name](boards)


@pytest.mark.parametrize("board", BAD_TYPES, ids=lambda b: type(b).__name__ + str(
    getattr(b, "dtype", "")))
@pytest.mark.parametrize("name", sorted(SINGLE))
def test_wrong_type(name, board):
    with pytest.raises(ValueError, match=r"integer|array|shape"):
        SINGLE[name](board)


@pytest.mark.parametrize("board", NOT_WHOLE, ids=["nan", "inf", "half", "one-fraction"])
@pytest.mark.parametrize("name", sorted(SINGLE) + sorted(BATCH))
def test_not_whole_numbers(name, board):
    if name in BATCH:
        with pytest.raises(ValueError, match=r"whole"):
            BATCH[name](board[None])
    else:
        with pytest.raises(ValueError, match=r"whole"):
            SINGLE[name](board)


def test_whole_floats_are_accepted():
    got = legal_afterstates(START.astype(np.float32), 3, 1)[0]
    np.testing.assert_array_equal(got, legal_afterstates(START, 3, 1)[0])


# ------------------------------------------------------------------ dice

BAD_DIE = [0, 7, -1, 100, 2 ** 70, 3.0, 2.5, True, False, np.True_, "3", None, 1 + 0j,
           np.float64(3), np.array([3]), np.uint8(255), np.int64(-3), float("nan")]


@pytest.mark.parametrize("die", BAD_DIE, ids=repr)
def test_bad_die(die):
    for fn in (legal_afterstates, GEN.legal_afterstates, GEN.count):
        with pytest.raises(ValueError, match=r"d1.*1\.\.6"):
            fn(START, die, 3)
        with pytest.raises(ValueError, match=r"d2.*1\.\.6"):
            fn(START, 3, die)


@pytest.mark.parametrize("die", [np.int8(4), np.uint64(4), np.int32(4), 4])
def test_numpy_integer_dice_accepted(die):
    assert GEN.count(START, die, 2) == GEN.count(START, 4, 2)


BAD_DICE_ARRAYS = [
    ([[0, 1]], r"dice\[0\].*1\.\.6"), ([[3, 1], [7, 2]], r"dice\[1\].*1\.\.6"),
    ([[3, -1]], r"1\.\.6"), (np.array([[255, 1]], np.uint8), r"1\.\.6"),
    ([[3.0, 1.0]], r"integer"), ([[True, False]], r"integer"), ([[2 ** 70, 1]], r"integer"),
    ([3, 1], r"shape"), ([[3, 1, 2]], r"shape"), (np.zeros((1, 2, 2), int), r"shape"),
    ([], r"shape"), ([["3", "1"]], r"integer"),
]


@pytest.mark.parametrize("dice,match", BAD_DICE_ARRAYS, ids=lambda x: repr(x)[:30])
def test_bad_dice_arrays(dice, match):
    with pytest.raises(ValueError, match=match):
        count_afterstates(START[None], dice)
    n = len(dice) if np.ndim(dice) == 2 else 1
    with pytest.raises(ValueError, match=match):
        legal_afterstates_batch(np.repeat(START[None], n, axis=0), dice)


def test_batch_needs_one_roll_per_board():
    with pytest.raises(ValueError, match=r"2 boards, 1 rolls"):
        legal_afterstates_batch(np.stack([START, START]), [[3, 1]])


def test_empty_batches():
    assert count_afterstates(np.zeros((0, 2, 25), np.uint8), [[3, 1]]).shape == (0, 1)
    assert count_afterstates(START[None], np.zeros((0, 2), int)).shape == (1, 0)
    a, s, off = legal_afterstates_batch(np.zeros((0, 2, 25), np.uint8), np.zeros((0, 2), int))
    assert a.shape == (0, 2, 25) and s.shape == (0, 4, 2) and off.tolist() == [0]


@pytest.mark.parametrize("n_threads,exc", [(0, ValueError), (-1, ValueError), (2.5, ValueError),
                                           (True, ValueError), (2 ** 31, ValueError),
                                           (10 ** 6, ValueError), ("2", ValueError),
                                           (None, ValueError)])
def test_bad_thread_count(n_threads, exc):
    with pytest.raises(exc):
        count_afterstates(START[None], [[3, 1]], n_threads)


def test_more_threads_than_cores():
    boards = np.repeat(START[None], 10, axis=0)
    np.testing.assert_array_equal(count_afterstates(boards, [[3, 1], [6, 6]], n_threads=16),
                                  count_afterstates(boards, [[3, 1], [6, 6]]))


# ------------------------------------------------------------------ edge positions

def test_mover_with_nothing_left_has_no_play():
    b = np.zeros((2, 25), np.uint8)
    b[0, 5] = 15
    for d1, d2 in [(3, 1), (6, 6)]:
        a, s = legal_afterstates(b, d1, d2)
        assert a.shape == (1, 2, 25) and (a[0] == b).all() and (s == -1).all()
        assert oracle.legal_plays(b, d1, d2) == {oracle.to_state(b): ()}
    assert game_result(b) == 2


def test_fifteen_on_the_bar():
    b = np.zeros((2, 25), np.uint8)
    b[1, 24] = 15
    b[0, 0:6] = 2                                 # closed board
    assert all(GEN.count(b, d1, d2) == 1 for d1 in range(1, 7) for d2 in range(1, 7))
    b[0, 0] = 0                                   # open its 1-point (our 24)
    a, s = legal_afterstates(b, 1, 1)
    assert len(a) == 1 and int(a[0, 1, 23]) == 4 and int(a[0, 1, 24]) == 11
    assert check_board(b, (1, 1)) == "ok"


# ------------------------------------------------------------------ known weak spots

@pytest.mark.parametrize("board", [np.full((2, 25), 2 ** 64 - 1, dtype=np.uint64),
                                   np.where(np.arange(50).reshape(2, 25) == 30, 1e20, 0.0)],
                         ids=["uint64-max", "float-1e20"])
def test_huge_counts_are_not_reported_as_negative(board):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError) as err:
            validate_board(board)
    assert "negative" not in str(err.value)


RACE_SCRIPT = textwrap.dedent("""
    import random, threading
    import numpy as np
    from bgengine.core.movegen import MoveGenerator, legal_afterstates
    start = np.zeros((2, 25), np.uint8)
    start[:, [5, 7, 12, 23]] = [5, 3, 5, 2]
    home = np.zeros((2, 25), np.uint8)
    home[1, :6] = [3, 2, 3, 2, 3, 2]
    home[0, 6:12] = 2
    boards = [start, home]
    rolls = [(1, 1), (2, 2), (6, 6), (3, 1)]
    ref = {(i, r): {a.tobytes() for a in legal_afterstates(b, *r)[0]}
           for i, b in enumerate(boards) for r in rolls}
    shared = MoveGenerator()
    wrong = [0]
    def work(seed):
        rng = random.Random(seed)
        for _ in range(4000):
            i, r = rng.randrange(2), rng.choice(rolls)
            try:
                got = {a.tobytes() for a in shared.legal_afterstates(boards[i], *r)[0]}
            except RuntimeError:
                continue          # refusing concurrent use is an acceptable fix
            wrong[0] += got != ref[i, r]
    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads: t.start()
    for t in threads: t.join()
    print("WRONG", wrong[0])
""")


# The race showed every run on the 2-core development machine before the fix.
def test_shared_move_generator_across_threads():
    """One MoveGenerator used from several Python threads must give right answers
    (a lock) or refuse (RuntimeError), never wrong moves.  Run in a subprocess
    so that a crash cannot take the test session down."""
    proc = subprocess.run([sys.executable, "-c", RACE_SCRIPT], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, f"crashed: rc={proc.returncode} {proc.stderr[-500:]}"
    assert "WRONG 0" in proc.stdout, proc.stdout
