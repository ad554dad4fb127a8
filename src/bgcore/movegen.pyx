"""Legal move generation with afterstate deduplication.

Notes
-----
The generator walks every sequence of single-die steps depth-first, in the
same order as GNU Backgammon's ``GenerateMoves`` (dice in the order given,
then swapped for a non-double; sources from the highest point down; for
doubles a later step never starts above the previous one), and keeps:

* only sequences that play the most dice, and among those the most pips
  (which is the "larger die if only one can be played" rule);
* one entry per distinct resulting position: the first sequence found, so the
  canonical sequence, and therefore the notation, is gnubg's.

Speed comes from: a 50-byte board copied on the stack per step (no
allocation per move); a Zobrist key updated with a few XORs per step; an
open-addressed table (linear probing, power-of-two size) emptied in O(1) by
bumping a generation stamp; lists that grow geometrically and are reused
across calls.  A full board compare on key match makes dedup exact even if
two keys ever collided.
"""

import numpy as np
cimport numpy as cnp
from cython.parallel cimport prange, threadid
from libc.stdlib cimport free
from libc.string cimport memcpy, memcmp, memset

from bgengine.core.checks cimport checked_int
from bgengine.core.memory cimport grow_or_raise, zeroed_or_raise
from bgengine.core._types cimport checker_t, point_t, key_t, int32_t, uint32_t, int64_t
from bgengine.core.board cimport board_t, board_key, zobrist, BAR, N_SLOTS
from bgengine.core.bitops cimport bg_msb32, bg_mirror24, bg_point_masks
from bgengine.core.movegen cimport move_t, movelist_t

from bgengine.core.board import validate_board, validate_boards

cnp.import_array()

cdef enum:
    INITIAL_CAPACITY = 64
    SLOTS_PER_ENTRY = 4      # table load factor stays <= 1/4


# ---------------------------------------------------------------- move list

cdef int _grow(movelist_t* ml, int capacity) except -1 nogil:
    """Enlarge the list to ``capacity`` entries and rebuild the table."""
    cdef int i, s, mask
    grow_or_raise(<void**> &ml.boards, capacity * sizeof(board_t), b"move list")
    grow_or_raise(<void**> &ml.moves, capacity * sizeof(move_t), b"move list")
    grow_or_raise(<void**> &ml.keys, capacity * sizeof(key_t), b"move list")
    cdef int n_slots = capacity * SLOTS_PER_ENTRY
    grow_or_raise(<void**> &ml.slots, n_slots * sizeof(int32_t), b"move list")
    grow_or_raise(<void**> &ml.stamps, n_slots * sizeof(uint32_t), b"move list")
    memset(ml.stamps, 0, n_slots * sizeof(uint32_t))
    ml.stamp = 1
    ml.capacity = capacity
    ml.n_slots = n_slots
    mask = n_slots - 1
    for i in range(ml.count):
        s = <int>(ml.keys[i] & mask)
        while ml.stamps[s] == ml.stamp:
            s = (s + 1) & mask
        ml.slots[s] = i
        ml.stamps[s] = ml.stamp
    return 0


cdef int movelist_init(movelist_t* ml) except -1 nogil:
    memset(ml, 0, sizeof(movelist_t))
    return _grow(ml, INITIAL_CAPACITY)


cdef void movelist_free(movelist_t* ml) noexcept nogil:
    free(ml.boards)
    free(ml.moves)
    free(ml.keys)
    free(ml.slots)
    free(ml.stamps)
    memset(ml, 0, sizeof(movelist_t))


cdef inline void _clear(movelist_t* ml) noexcept nogil:
    ml.count = 0
    ml.stamp += 1
    if ml.stamp == 0:          # wrapped after 2**32 clears: really wipe
        memset(ml.stamps, 0, ml.n_slots * sizeof(uint32_t))
        ml.stamp = 1


cdef inline int _lookup(const movelist_t* ml, const board_t* b, key_t key) noexcept nogil:
    """The slot holding ``b``'s entry, or ``-(free slot) - 1`` when absent."""
    cdef int mask = ml.n_slots - 1
    cdef int s = <int>(key & mask)
    cdef int i
    while ml.stamps[s] == ml.stamp:
        i = ml.slots[s]
        if ml.keys[i] == key and memcmp(&ml.boards[i], b, sizeof(board_t)) == 0:
            return s
        s = (s + 1) & mask
    return -s - 1


cdef int _save(movelist_t* ml, const board_t* b, key_t key, int n_steps, int pips,
               const move_t* seq) except -1 nogil:
    """Record a finished sequence if it plays as much as the best so far."""
    cdef int s, i, k
    if n_steps > ml.max_steps or pips > ml.max_pips:
        _clear(ml)
        ml.max_steps = n_steps
        ml.max_pips = pips
    elif n_steps < ml.max_steps or pips < ml.max_pips:
        return 0
    s = _lookup(ml, b, key)
    if s >= 0:
        return 0                  # same position by another sequence: keep the first
    if ml.count == ml.capacity:
        _grow(ml, 2 * ml.capacity)
        s = _lookup(ml, b, key)
    s = -s - 1
    i = ml.count
    ml.boards[i] = b[0]
    ml.keys[i] = key
    ml.moves[i] = seq[0]
    ml.moves[i].n_steps = n_steps
    for k in range(n_steps, 4):
        ml.moves[i].steps[k][0] = -1
        ml.moves[i].steps[k][1] = -1
    ml.slots[s] = i
    ml.stamps[s] = ml.stamp
    ml.count += 1
    return 0


# ---------------------------------------------------------------- generation

cdef inline key_t _step(board_t* nb, const board_t* b, key_t key, int src, int dst) noexcept nogil:
    """``nb`` = ``b`` with one mover checker moved from slot ``src`` to slot
    ``dst`` (-1 = borne off), hitting a lone opponent checker there; returns
    the updated key."""
    cdef int n, o
    nb[0] = b[0]
    n = nb.c[1][src]
    key ^= zobrist[1][src][n] ^ zobrist[1][src][n - 1]
    nb.c[1][src] = n - 1
    if dst >= 0:
        o = 23 - dst                      # the same point in the opponent's numbering
        if nb.c[0][o] == 1:
            key ^= zobrist[0][o][1]
            nb.c[0][o] = 0
            n = nb.c[0][BAR]
            key ^= zobrist[0][BAR][n] ^ zobrist[0][BAR][n + 1]
            nb.c[0][BAR] = n + 1
        n = nb.c[1][dst]
        key ^= zobrist[1][dst][n] ^ zobrist[1][dst][n + 1]
        nb.c[1][dst] = n + 1
    return key


cdef int _gen(movelist_t* ml, const board_t* b, key_t key, const int* dice, int depth,
              int start, int pips, move_t* seq, uint32_t occ, uint32_t blocked) except -1 nogil:
    """Play ``dice[depth]`` in every legal way from ``b`` and recurse.

    ``occ``: bit s + 1 for every slot s holding a mover checker in ``b``; ``blocked``: the
    same for slots the opponent holds (two or more), which no play changes.  Sources are
    tried from slot ``start`` down.  Returns 1 if the die could be played, 0 if not: then
    ``b`` ends a sequence and the caller saves it.
    """
    cdef int die, i, t, dst, back, rc, nxt
    cdef int moved = 0
    cdef uint32_t cand, nocc
    cdef board_t nb
    cdef key_t nkey
    if depth == 4:
        return 0
    die = dice[depth]
    if die == 0:
        return 0
    if b.c[1][BAR]:
        dst = BAR - die
        if (blocked >> (dst + 1)) & 1:
            return 0
        nkey = _step(&nb, b, key, BAR, dst)
        seq.steps[depth][0] = 25
        seq.steps[depth][1] = dst + 1
        rc = _gen(ml, &nb, nkey, dice, depth + 1, 23, pips + die, seq,
                  occ | ((<uint32_t>1) << (dst + 1)), blocked)
        if rc == 0:
            _save(ml, &nb, nkey, depth + 1, pips + die, seq)
        return 1
    back = -2                              # not computed yet
    cand = occ & (((<uint32_t>2) << (start + 1)) - 1)     # slots start, start - 1, ..., 0
    while cand:
        t = bg_msb32(cand)
        cand ^= (<uint32_t>1) << t
        i = t - 1
        dst = i - die
        if dst >= 0:
            if (blocked >> (dst + 1)) & 1:
                continue
        else:
            # Bearing off: all checkers home; an exact roll, or the highest
            # checker with a larger die.
            if back == -2:
                back = bg_msb32(occ) - 1
            if back > 5:
                break                      # every lower source also overshoots
            if dst != -1 and i != back:
                continue
            dst = -1
        nocc = occ & ~((<uint32_t>1) << t) if b.c[1][i] == 1 else occ
        if dst >= 0:
            nocc |= (<uint32_t>1) << (dst + 1)
        nkey = _step(&nb, b, key, i, dst)
        seq.steps[depth][0] = i + 1
        seq.steps[depth][1] = dst + 1
        nxt = i if dice[0] == dice[1] else 23
        rc = _gen(ml, &nb, nkey, dice, depth + 1, nxt, pips + die, seq, nocc, blocked)
        if rc == 0:
            _save(ml, &nb, nkey, depth + 1, pips + die, seq)
        moved = 1
    return moved


cdef int generate_moves(movelist_t* ml, const board_t* b, int d1, int d2) except -1 nogil:
    """Fill ``ml`` with the unique afterstates of ``b`` (side 1 on roll) for
    the roll ``d1``-``d2``; return how many (always >= 1: with no legal play
    the list holds the unchanged position with ``n_steps == 0``)."""
    cdef int dice[4]
    cdef move_t seq
    cdef key_t key = board_key(b)
    cdef uint32_t occ, one, opp, opp_one, blocked
    bg_point_masks(b.c[1], &occ, &one)
    bg_point_masks(b.c[0], &opp, &opp_one)
    blocked = bg_mirror24(opp & ~opp_one)     # the opponent's points, in the mover's numbering
    _clear(ml)
    ml.max_steps = 0
    ml.max_pips = 0
    dice[0] = d1
    dice[1] = d2
    dice[2] = d1 if d1 == d2 else 0
    dice[3] = dice[2]
    _gen(ml, b, key, dice, 0, 23, 0, &seq, occ, blocked)
    if d1 != d2:
        dice[0] = d2
        dice[1] = d1
        _gen(ml, b, key, dice, 0, 23, 0, &seq, occ, blocked)
    if ml.count == 0:
        _save(ml, b, key, 0, 0, &seq)
    return ml.count


# ---------------------------------------------------------------- Python API

def check_die(d, str name="die") -> int:
    """``d`` as an int in 1..6, or ``ValueError`` naming ``name``."""
    return checked_int(d, name, 1, 6, "1..6", "an integer 1..6")


MAX_THREADS = 256


def check_threads(n_threads) -> int:
    """``n_threads`` as an int in 1..MAX_THREADS, or ``ValueError``."""
    return checked_int(n_threads, "n_threads", 1, MAX_THREADS, f"1..{MAX_THREADS}", "an integer")


def check_seed(value, str name="seed") -> int:
    """``value`` as an int in 0..2**64-1 (seeds, stream and game numbers), or ``ValueError``."""
    return checked_int(value, name, 0, 2 ** 64 - 1, "0..2**64-1", "an integer")


def _check_dice_array(dice):
    """``dice`` (M, 2), each die an integer 1..6, as a contiguous int32 array; a bool (an
    array of them, or one in a list, which numpy would read as 0 or 1) or a float is
    refused, as ``check_die`` refuses it."""
    arr = np.asarray(dice)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"dice must have shape (M, 2), got {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"dice must be integers, got dtype {arr.dtype}")
    if not isinstance(dice, np.ndarray):
        # a list's bools become integers in the array: the type of each of its dice
        # checked (the range below, for every array alike)
        for d in np.asarray(dice, dtype=object).flat:
            checked_int(d, "dice", float("-inf"), float("inf"), "", "integers 1..6")
    if arr.size and (arr.min() < 1 or arr.max() > 6):
        k = int(np.flatnonzero(((arr < 1) | (arr > 6)).any(axis=1))[0])
        raise ValueError(f"dice[{k}] = {arr[k].tolist()}: each die must be in 1..6")
    return np.ascontiguousarray(arr, dtype=np.int32)


cdef void _copy_steps(cnp.int8_t[:, ::1] sv, const move_t* moves, Py_ssize_t n) noexcept:
    cdef Py_ssize_t i
    cdef int k
    for i in range(n):
        for k in range(4):
            sv[i, 2 * k] = moves[i].steps[k][0]
            sv[i, 2 * k + 1] = moves[i].steps[k][1]


cdef tuple _export(const movelist_t* ml):
    cdef int n = ml.count
    cdef int i, k
    boards = np.empty((n, 2, N_SLOTS), dtype=np.uint8)
    steps = np.empty((n, 4, 2), dtype=np.int8)
    cdef cnp.uint8_t[:, :, ::1] bv = boards
    if n:
        memcpy(&bv[0, 0, 0], ml.boards, n * sizeof(board_t))
    _copy_steps(steps.reshape(n, 8), ml.moves, n)
    return boards, steps


cdef class MoveGenerator:
    """A reusable move generator; owns its buffers (no allocation per call
    once they have grown to fit).

    >>> gen = MoveGenerator()
    >>> afterstates, steps = gen.legal_afterstates(board, 3, 1)
    """
    cdef movelist_t ml
    cdef bint busy      # set (with the GIL held) while a call fills ml

    def __cinit__(self):
        movelist_init(&self.ml)

    cdef int _claim(self) except -1:
        if self.busy:
            raise RuntimeError("this MoveGenerator is in use by another thread; "
                               "give each thread its own")
        self.busy = True
        return 0

    def __dealloc__(self):
        movelist_free(&self.ml)

    def legal_afterstates(self, board, d1, d2) -> tuple[np.ndarray, np.ndarray]:
        """The unique positions the side on roll can reach with the roll ``d1``-``d2``.

        Parameters
        ----------
        board : array-like (2, 25)
            The position, row 1 on roll (validated; ``ValueError`` if illegal).
        d1, d2 : int
            The dice, 1..6 each.  The order only decides which of several
            equivalent checker sequences is kept (gnubg's rule: the first found).

        Returns
        -------
        afterstates : uint8 array (n, 2, 25)
            Resulting positions, the mover still in row 1 (not swapped).
        steps : int8 array (n, 4, 2)
            For each, one canonical sequence of single-die steps ``(from, to)``
            in the mover's numbering (25 = bar, 0 = off); unused steps are -1.

        With no legal play, ``n == 1``: the unchanged position with no steps.
        """
        cdef cnp.ndarray arr = validate_board(board)
        cdef int a = check_die(d1, "d1"), c = check_die(d2, "d2")
        cdef const board_t* b = <const board_t*> cnp.PyArray_DATA(arr)
        self._claim()
        try:
            with nogil:
                generate_moves(&self.ml, b, a, c)
            return _export(&self.ml)
        finally:
            self.busy = False

    def count(self, board, d1, d2) -> int:
        """Number of unique afterstates (1 when there is no legal play)."""
        cdef cnp.ndarray arr = validate_board(board)
        cdef int a = check_die(d1, "d1"), c = check_die(d2, "d2")
        cdef int n
        self._claim()
        try:
            with nogil:
                n = generate_moves(&self.ml, <const board_t*> cnp.PyArray_DATA(arr), a, c)
        finally:
            self.busy = False
        return n


def legal_afterstates(board, d1, d2) -> tuple[np.ndarray, np.ndarray]:
    """Shorthand for ``MoveGenerator().legal_afterstates(board, d1, d2)``."""
    return MoveGenerator().legal_afterstates(board, d1, d2)


def count_afterstates(boards, dice, n_threads=1) -> np.ndarray:
    """Unique afterstate counts for every position and every roll.

    Parameters
    ----------
    boards : array-like (N, 2, 25)
    dice : array-like (M, 2), each die 1..6
    n_threads : int
        OpenMP threads over positions (1 = serial; results do not depend on it).

    Returns
    -------
    int32 array (N, M); a roll with no legal play counts 1.
    """
    cdef cnp.ndarray barr = validate_boards(boards)
    cdef cnp.ndarray darr = _check_dice_array(dice)
    cdef int nt = check_threads(n_threads)
    cdef Py_ssize_t n = barr.shape[0], m = darr.shape[0], p, r
    out = np.zeros((n, m), dtype=np.int32)
    cdef int32_t[:, ::1] ov = out
    cdef const int32_t[:, ::1] dv = darr
    cdef const board_t* bp = <const board_t*> cnp.PyArray_DATA(barr)
    cdef movelist_t* lists = <movelist_t*> zeroed_or_raise(nt, sizeof(movelist_t))
    cdef int t, n_ready = 0
    try:
        for t in range(nt):
            movelist_init(&lists[t])
            n_ready += 1
        with nogil:
            for p in prange(n, schedule="dynamic", num_threads=nt):
                for r in range(m):
                    ov[p, r] = generate_moves(&lists[threadid()], &bp[p], dv[r, 0], dv[r, 1])
    finally:
        for t in range(n_ready):
            movelist_free(&lists[t])
        free(lists)
    return out


def legal_afterstates_batch(boards, dice) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Afterstates of many (position, roll) pairs at once, CSR style.

    Parameters
    ----------
    boards : array-like (N, 2, 25)
    dice : array-like (N, 2), the roll for each position

    Returns
    -------
    afterstates : uint8 (T, 2, 25); steps : int8 (T, 4, 2);
    offsets : int64 (N + 1,): position ``k``'s moves are rows
    ``offsets[k]:offsets[k+1]``.
    """
    cdef cnp.ndarray barr = validate_boards(boards)
    cdef cnp.ndarray darr = _check_dice_array(dice)
    cdef Py_ssize_t n = barr.shape[0], k, t, total = 0, cap = 0
    if darr.shape[0] != n:
        raise ValueError(f"need one roll per position: {n} boards, {darr.shape[0]} rolls")
    cdef const int32_t[:, ::1] dv = darr
    cdef const board_t* bp = <const board_t*> cnp.PyArray_DATA(barr)
    offsets = np.zeros(n + 1, dtype=np.int64)
    cdef int64_t[::1] offv = offsets
    cdef MoveGenerator gen = MoveGenerator()
    cdef board_t* out_b = NULL
    cdef move_t* out_m = NULL
    cdef int c
    try:
        with nogil:
            for k in range(n):
                c = generate_moves(&gen.ml, &bp[k], dv[k, 0], dv[k, 1])
                if total + c > cap:
                    cap = 2 * (total + c) + 256
                    grow_or_raise(<void**> &out_b, cap * sizeof(board_t), NULL)
                    grow_or_raise(<void**> &out_m, cap * sizeof(move_t), NULL)
                memcpy(&out_b[total], gen.ml.boards, c * sizeof(board_t))
                memcpy(&out_m[total], gen.ml.moves, c * sizeof(move_t))
                total += c
                offv[k + 1] = total
        afterstates = np.empty((total, 2, N_SLOTS), dtype=np.uint8)
        steps = np.empty((total, 4, 2), dtype=np.int8)
        if total:
            memcpy(cnp.PyArray_DATA(afterstates), out_b, total * sizeof(board_t))
        sv = steps.reshape(total, 8)
        _copy_steps(sv, out_m, total)
    finally:
        free(out_b)
        free(out_m)
    return afterstates, steps, offsets
