"""Backgammon positions at C level, and their validation from Python.

A position is a ``uint8`` array of shape ``(2, 25)`` in GNU Backgammon's
layout: row 1 is the side on roll, row 0 its opponent; column ``i`` in 0..23
is that side's own point ``i + 1``; column 24 is its bar.
"""

import numpy as np
cimport numpy as cnp
from libc.string cimport memcpy, memset

from bgengine.core._types cimport checker_t, key_t
from bgengine.core.board cimport board_t, BAR, N_SLOTS, N_CHECKERS, MOVER, OPPONENT

cnp.import_array()

# Error codes of board_check, mapped to messages by _check_rc.
cdef enum:
    BOARD_OK = 0
    TOO_MANY_0 = 1
    TOO_MANY_1 = 2
    SHARED_POINT = 3
    BOTH_OFF = 4
    BOTH_SHUT_OUT = 5


cdef key_t _splitmix64(key_t* state) noexcept nogil:
    # Fixed generator so that keys are the same on every platform and run.
    state[0] += 0x9E3779B97F4A7C15ULL
    cdef key_t z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef void _init_zobrist() noexcept nogil:
    cdef key_t state = 0x6267656E67696E65ULL   # "bgengine"
    cdef int s, i, n
    for s in range(2):
        for i in range(N_SLOTS):
            zobrist[s][i][0] = 0
            for n in range(1, 16):
                zobrist[s][i][n] = _splitmix64(&state)

_init_zobrist()


cdef key_t board_key(const board_t* b) noexcept nogil:
    cdef key_t k = 0
    cdef int s, i
    for s in range(2):
        for i in range(N_SLOTS):
            k ^= zobrist[s][i][b.c[s][i]]
    return k


cdef void board_start(board_t* b) noexcept nogil:
    """The starting position: 2 on the 24-point, 5 on the 13, 3 on the 8, 5 on the 6."""
    memset(b, 0, sizeof(board_t))
    cdef int s
    for s in range(2):
        b.c[s][23] = 2
        b.c[s][12] = 5
        b.c[s][7] = 3
        b.c[s][5] = 5


cdef int board_pips(const board_t* b, int side) noexcept nogil:
    """Pip count of ``side``: each checker on slot i needs i + 1 pips, the bar 25."""
    cdef int i, pips = 0
    for i in range(N_SLOTS):
        pips += b.c[side][i] * (i + 1)
    return pips


cdef int board_checkers(const board_t* b, int side) noexcept nogil:
    """Checkers of ``side`` still on the board or the bar."""
    cdef int i, n = 0
    for i in range(N_SLOTS):
        n += b.c[side][i]
    return n


cdef bint board_is_race(const board_t* b) noexcept nogil:
    """True when no further contact is possible: every checker of side 1 is
    past (below) every checker of side 0, nobody is on the bar."""
    cdef int i, back1 = -1, back0 = -1
    if b.c[0][BAR] or b.c[1][BAR]:
        return False
    for i in range(24):
        if b.c[1][i]:
            back1 = i
        if b.c[0][i]:
            back0 = i
    if back1 < 0 or back0 < 0:
        return True
    # side 1's slot i is side 0's slot 23 - i
    return back1 + back0 < 23


cdef int board_win_value(const board_t* b, int winner) noexcept nogil:
    """Points won by ``winner``, who has borne off all 15: 1 single, 2 gammon
    (the loser has borne off none), 3 backgammon (a gammon with a loser's
    checker on the bar or in the winner's home board)."""
    cdef int loser = 1 - winner
    cdef int i
    if board_checkers(b, loser) < N_CHECKERS:
        return 1
    # winner's points 1..6 are the loser's points 24..19, slots 23..18
    for i in range(18, N_SLOTS):
        if b.c[loser][i]:
            return 3
    return 2


cdef int board_result(const board_t* b) noexcept nogil:
    """0 while the game goes on; +v if side 1 has borne off all its checkers
    and wins v points; -v if side 0 has."""
    if board_checkers(b, MOVER) == 0:
        return board_win_value(b, MOVER)
    if board_checkers(b, OPPONENT) == 0:
        return -board_win_value(b, OPPONENT)
    return 0


cdef int board_check(const board_t* b) noexcept nogil:
    """BOARD_OK, or the first rule the position breaks."""
    cdef int i
    if board_checkers(b, 0) > N_CHECKERS:
        return TOO_MANY_0
    if board_checkers(b, 1) > N_CHECKERS:
        return TOO_MANY_1
    for i in range(24):
        if b.c[1][i] and b.c[0][23 - i]:
            return SHARED_POINT
    if board_checkers(b, 0) == 0 and board_checkers(b, 1) == 0:
        return BOTH_OFF
    if board_shut_out(b, 0) and board_shut_out(b, 1):
        return BOTH_SHUT_OUT
    return BOARD_OK


cdef bint board_shut_out(const board_t* b, int side) noexcept nogil:
    """True when ``side`` has checkers on the bar and the other side holds all six points
    of its home board, where they enter: ``side`` cannot move, whatever the roll."""
    cdef int i
    if not b.c[side][BAR]:
        return False
    for i in range(6):
        if b.c[1 - side][i] < 2:
            return False
    return True


_SIDE_NAME = {0: "side 0 (not on roll)", 1: "side 1 (on roll)"}


def _board_error(cnp.ndarray arr, str where=""):
    """The message for the first problem of a (2, 25) int64 array, or None."""
    cdef int s, i
    for s in range(2):
        for i in range(N_SLOTS):
            if arr[s, i] < 0:
                return f"{where}negative checker count {arr[s, i]} for {_SIDE_NAME[s]} at slot {i}"
        total = int(arr[s].sum())
        if total > N_CHECKERS:
            return f"{where}{_SIDE_NAME[s]} has {total} checkers; at most 15 allowed"
    for i in range(24):
        if arr[1, i] and arr[0, 23 - i]:
            return (f"{where}point {i + 1} of the side on roll holds checkers of both sides "
                    f"({arr[1, i]} and {arr[0, 23 - i]})")
    if arr[0].sum() == 0 and arr[1].sum() == 0:
        return (f"{where}both sides have borne off all their checkers (impossible: the game "
                f"ends when the first side finishes)")
    if _shut_out(arr, 0) and _shut_out(arr, 1):
        return (f"{where}both sides are on the bar against closed boards (impossible: "
                f"neither side could ever move)")
    return None


def _shut_out(arr, int side) -> bool:
    return bool(arr[side, BAR] > 0 and (arr[1 - side, :6] >= 2).all())


def _as_int_array(board, str name):
    try:
        arr = np.asarray(board)
    except Exception as exc:  # ragged lists and the like
        raise ValueError(f"{name} is not an array of checker counts: {exc}") from None
    if arr.dtype == np.bool_ or not (np.issubdtype(arr.dtype, np.integer)
                                     or np.issubdtype(arr.dtype, np.floating)):
        raise ValueError(f"{name} must hold integer checker counts, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise ValueError(f"{name} must hold whole checker counts")
    # range-check before converting, so huge values cannot wrap round
    if arr.size:
        hi, lo = arr.max(), arr.min()
        if hi > 1_000_000:
            raise ValueError(f"{name} has a slot holding {hi} checkers; at most 15 allowed")
        if lo < -1_000_000:
            raise ValueError(f"{name} has a negative checker count {lo}")
    return arr


def validate_board(board) -> np.ndarray:
    """Check a position and return it as a C-contiguous ``uint8`` array (2, 25).

    Raises ``ValueError`` naming what is wrong: the shape, a negative count,
    more than 15 checkers on a side, a point held by both sides, or one of the two
    impossible positions: both sides borne off, or both sides on the bar against
    closed boards.

    This is the one definition of a valid position: every compiled entry point, the
    Position ID decoder and :class:`~bgengine.position.Position` call it.  Every other
    position can be played: at least one side can move on some roll (a side that cannot
    move for any roll is on the bar against a closed board, and then the other side is
    not), so games from it end (see ``MAX_GAME_PLAYS`` for the last resort).  The two
    rejected ones cannot arise in a game: the game ends when the first side bears off its
    last checker; and a side only enters from the bar onto an open point of the other
    side's home board, so the last side to move before both boards were closed with both
    sides on the bar would have had to enter onto a point of a board that is now closed.
    """
    arr = _as_int_array(board, "board")
    if arr.shape != (2, N_SLOTS):
        raise ValueError(f"board must have shape (2, 25), got {arr.shape}")
    out = _checked_copy(arr)
    if out is None or board_check(<const board_t*> cnp.PyArray_DATA(out)) != BOARD_OK:
        raise ValueError(_board_error(arr.astype(np.int64)))
    return out


def validate_boards(boards) -> np.ndarray:
    """Check a batch of positions, shape (N, 2, 25); return it as contiguous ``uint8``.

    The same rules as :func:`validate_board`; the error names the index of the first
    bad position.
    """
    arr = _as_int_array(boards, "boards")
    if arr.ndim != 3 or arr.shape[1:] != (2, N_SLOTS):
        raise ValueError(f"boards must have shape (N, 2, 25), got {arr.shape}")
    cdef Py_ssize_t k = 0, n = arr.shape[0]
    cdef const board_t* b
    cdef cnp.ndarray out = _checked_copy(arr)
    if out is None:             # a slot outside 0..15 makes its position bad: an earlier
        n = int(np.flatnonzero(((arr < 0) | (arr > N_CHECKERS)).any(axis=(1, 2)))[0])
        out = _checked_copy(arr[:n])                    # one may be bad for another reason
    b = <const board_t*> cnp.PyArray_DATA(out)
    with nogil:                 # board_check in C: numpy's checks cost half an evaluation
        while k < n and board_check(&b[k]) == BOARD_OK:
            k += 1
    if k == arr.shape[0]:
        return out
    raise ValueError(_board_error(arr[k].astype(np.int64), f"boards[{k}]: "))


def _checked_copy(arr):
    """A C-contiguous ``uint8`` copy of an integer-valued array whose every slot holds 0..15
    checkers, else None (a slot outside that range makes its position invalid)."""
    if arr.dtype != np.uint8 and arr.size and (arr.min() < 0 or arr.max() > N_CHECKERS):
        return None
    return np.array(arr, dtype=np.uint8, order="C", copy=True)


def swap_sides(board) -> np.ndarray:
    """The same position with the other side on roll (rows exchanged)."""
    return validate_board(board)[::-1].copy()


def pip_counts(board) -> tuple[int, int]:
    """``(pips of the side on roll, pips of its opponent)``."""
    cdef cnp.ndarray arr = validate_board(board)
    cdef const board_t* b = <const board_t*> cnp.PyArray_DATA(arr)
    return board_pips(b, MOVER), board_pips(b, OPPONENT)


def game_result(board) -> int:
    """0 while the game goes on; +1/+2/+3 if the side on roll (row 1) has borne
    off all its checkers and wins a single/gammon/backgammon; -1/-2/-3 if row 0 has."""
    cdef cnp.ndarray arr = validate_board(board)
    return board_result(<const board_t*> cnp.PyArray_DATA(arr))


def is_race(board) -> bool:
    """True when the two sides can no longer hit each other."""
    cdef cnp.ndarray arr = validate_board(board)
    return bool(board_is_race(<const board_t*> cnp.PyArray_DATA(arr)))


def position_key(board) -> int:
    """The 64-bit Zobrist key the move generator uses to deduplicate afterstates."""
    cdef cnp.ndarray arr = validate_board(board)
    return board_key(<const board_t*> cnp.PyArray_DATA(arr))
