"""Exact bear-off databases, computed by bgengine from the rules.

One-sided: for each of the 54,264 positions of 0 to 15 checkers on a side's six home
points, the distribution of the number of rolls needed to bear them all off, playing
every roll to minimise the expected number of rolls (as gnubg's one-sided database
does), and for the 15,504 positions of exactly 15 checkers the distribution of the rolls
needed to bear off the first checker (playing to minimise its expectation), from which
gammon chances follow.

Two-sided: for both sides with up to 6 checkers on their home points (924 x 924
positions), the exact probability that the side on roll wins with both sides playing to
maximise their winning chances.  A side with fewer than 15 checkers has borne one off,
so there are no gammons.

Both are built from scratch in 0.3 to 0.4 s of nogil loops on one core, so they are not
stored on disk: :func:`default` builds them once per process, on first use.  Moves come
from a bear-off generator specialised to the six home points: with every checker home a
die can always be played while a checker is left (a checker on the die's point or above moves or bears off exactly; otherwise the
highest checker bears off), so every sequence plays all its dice or bears everything
off, and the must-use-both-dice and larger-die rules never bind.  The tests check it
against ``generate_moves``.
"""

import threading
import time

import numpy as np
cimport numpy as cnp
from libc.stdlib cimport malloc, free
from libc.stdint cimport uint64_t
from libc.string cimport memcpy, memset

from bgengine.core.memory cimport grow_block
from bgengine.core.checks cimport checked_int
from bgengine.core.outputs cimport outputs_from_five
from bgengine.core._types cimport checker_t, int32_t, real_t
from bgengine.core.board cimport board_t, N_SLOTS
from bgengine.core.bearoff cimport (bearoff_t, bo_rank, bo_rank_table, bo_first_before,
                               BO_ROLL_D1, BO_ROLL_D2, BO_ROLL_W, BO_POINTS,
                               BO_ONE_SIDED, BO_FIRST_15, BO_GAMMON, BO_TWO_SIDED, BO_MAX_ROLLS)

from bgengine.core.board import validate_board, validate_boards
from bgengine.core.movegen import check_die

cnp.import_array()

ONE_SIDED = BO_ONE_SIDED
TWO_SIDED = BO_TWO_SIDED
GAMMON = BO_GAMMON
FIRST_15 = BO_FIRST_15
MAX_ROLLS = BO_MAX_ROLLS

cdef enum:
    MAX_LEAVES = 1024           # move sequences of one roll (the build fails if ever short)

# The 21 distinct rolls and their weights in 36ths (BO_ROLL_*, declared in bearoff.pxd: sums
# are taken in 36ths and divided once, so a sure thing is exactly 1 and a probability never
# leaves [0, 1]).


cdef void _init_tables() noexcept nogil:
    cdef int i, s, k, a, m
    cdef long long c
    for i in range(BO_POINTS):
        for s in range(16):
            # C(s + 5 - i, 6 - i)
            a = s + 5 - i
            m = 6 - i
            c = 1
            if a < m:
                c = 0
            else:
                for k in range(m):
                    c = c * (a - k) // (k + 1)
            bo_rank_table[i][s] = <int32_t>c
    k = 0
    for i in range(1, 7):
        for s in range(1, i + 1):
            BO_ROLL_D1[k] = i
            BO_ROLL_D2[k] = s
            BO_ROLL_W[k] = 1.0 if i == s else 2.0
            k += 1

_init_tables()


# ---------------------------------------------------------------- indexing

cdef int bo_rank_counts(const int* n) noexcept nogil:
    """bo_rank of an int array of six counts."""
    cdef int i, s = 0, r = 0
    for i in range(BO_POINTS - 1, -1, -1):
        s += n[i]
        r += bo_rank_table[i][s]
    return r


cdef int bo_home_index(const checker_t* row) noexcept nogil:
    """The index of a board row whose checkers are all on its home points (slots 0..5,
    nothing on the bar), else -1."""
    cdef uint64_t w[2]
    memcpy(w, row + BO_POINTS, 16)          # slots 6..21 as two words, then 22..24
    if (w[0] | w[1]) != 0 or (row[22] | row[23] | row[24]) != 0:
        return -1
    return bo_rank(row)


cdef void _unrank(int r, int* n) noexcept nogil:
    """The six counts of index ``r`` (greedy combinatorial number system)."""
    cdef int i, s
    cdef int S[6]
    for i in range(BO_POINTS):
        # the largest suffix sum s with table[i][s] <= r (s is at most the previous one)
        s = 15 if i == 0 else S[i - 1]
        while s > 0 and bo_rank_table[i][s] > r:
            s -= 1
        S[i] = s
        r -= bo_rank_table[i][s]
    for i in range(BO_POINTS):
        n[i] = S[i] - (S[i + 1] if i < BO_POINTS - 1 else 0)


# ---------------------------------------------------------------- moves

cdef int _seq(int* n, const int* dice, int step, int n_dice, int top, bint doubles,
              int32_t* out, int count) noexcept nogil:
    """Append the index reached by every legal way to play dice[step..n_dice) to
    ``out``; sources from the highest point down, and for doubles never above ``top``
    (the previous source): any order of equal dice reaches the same positions."""
    cdef int src, dst, high, d
    high = BO_POINTS - 1
    while high >= 0 and n[high] == 0:
        high -= 1
    if step == n_dice or high < 0:
        if count < MAX_LEAVES:
            out[count] = bo_rank_counts(n)
        return count + 1
    d = dice[step]
    for src in range(high if not doubles or top > high else top, -1, -1):
        if n[src] == 0:
            continue
        dst = src - d
        if dst < -1 and src != high:    # a larger die bears off only from the highest point
            continue
        n[src] -= 1
        if dst >= 0:
            n[dst] += 1
        count = _seq(n, dice, step + 1, n_dice, src, doubles, out, count)
        if dst >= 0:
            n[dst] -= 1
        n[src] += 1
    return count


cdef int bearoff_moves(const int* n, int d1, int d2, int32_t* out) noexcept nogil:
    """The indices of the positions one-sided position ``n[0..5]`` can reach with roll
    (d1, d2), one per legal checker sequence (so possibly repeated); ``out`` needs
    MAX_LEAVES (1024) entries.  Returns the count (>= 1; the index of the empty
    position 0 when everything bears off), or -1 if ``out`` was too small."""
    cdef int m[6]
    cdef int dice[4]
    cdef int i, count
    for i in range(BO_POINTS):
        m[i] = n[i]
    if d1 == d2:
        dice[0] = dice[1] = dice[2] = dice[3] = d1
        count = _seq(m, dice, 0, 4, BO_POINTS - 1, True, out, 0)
    else:
        dice[0] = d1
        dice[1] = d2
        count = _seq(m, dice, 0, 2, BO_POINTS - 1, False, out, 0)
        dice[0] = d2
        dice[1] = d1
        count = _seq(m, dice, 0, 2, BO_POINTS - 1, False, out, count)
    return count if count <= MAX_LEAVES else -1


# ---------------------------------------------------------------- building

cdef inline int _shift_add(double* row, const double* src, double w) noexcept nogil:
    """row[n + 1] += w * src[n]: one more roll.  -1 if src's last entry would fall off."""
    cdef int j
    if src[BO_MAX_ROLLS - 1] != 0.0:
        return -1
    for j in range(BO_MAX_ROLLS - 1):
        row[j + 1] += w * src[j]
    return 0


cdef inline double _mean_of(const double* row) noexcept nogil:
    cdef double m = 0.0
    cdef int j
    for j in range(BO_MAX_ROLLS):
        m += j * row[j]
    return m


cdef int _build_one_sided(double* dist, double* mean, double* first, double* mean_first,
                          int32_t* leaves) noexcept nogil:
    """Fill the one-sided tables in index order (every move lowers the index).  Each roll
    plays the afterstate with the least expected rolls to bear off all; for 15 checkers,
    separately, the one with the least expected rolls to the first checker off (any
    afterstate below BO_FIRST_15 has one off).  Returns 0, or -1 if a distribution would
    run past BO_MAX_ROLLS or a roll had too many sequences."""
    cdef int r, k, j, t, best, best1, c
    cdef int n[6]
    cdef double m, bm, bm1, w
    cdef double* row
    cdef double* row1 = NULL
    memset(dist, 0, BO_MAX_ROLLS * sizeof(double))
    dist[0] = 1.0                   # index 0: nothing left, 0 rolls
    mean[0] = 0.0
    for r in range(1, BO_ONE_SIDED):
        _unrank(r, n)
        row = dist + <Py_ssize_t>r * BO_MAX_ROLLS
        memset(row, 0, BO_MAX_ROLLS * sizeof(double))
        if r >= BO_FIRST_15:
            row1 = first + <Py_ssize_t>(r - BO_FIRST_15) * BO_MAX_ROLLS
            memset(row1, 0, BO_MAX_ROLLS * sizeof(double))
        for k in range(21):
            c = bearoff_moves(n, BO_ROLL_D1[k], BO_ROLL_D2[k], leaves)
            if c < 0:
                return -1
            w = BO_ROLL_W[k]
            best = leaves[0]
            bm = mean[best]
            for j in range(1, c):
                t = leaves[j]
                if mean[t] < bm:
                    bm = mean[t]
                    best = t
            if _shift_add(row, dist + <Py_ssize_t>best * BO_MAX_ROLLS, w) < 0:
                return -1
            if r < BO_FIRST_15:
                continue
            best1 = -1
            bm1 = 1e300
            for j in range(c):
                t = leaves[j]
                m = 0.0 if t < BO_FIRST_15 else mean_first[t - BO_FIRST_15]
                if m < bm1:
                    bm1 = m
                    best1 = t
            if best1 < BO_FIRST_15:
                row1[1] += w
            elif _shift_add(row1, first + <Py_ssize_t>(best1 - BO_FIRST_15) * BO_MAX_ROLLS,
                            w) < 0:
                return -1
        for j in range(BO_MAX_ROLLS):
            row[j] /= 36.0
        mean[r] = _mean_of(row)
        if r >= BO_FIRST_15:
            for j in range(BO_MAX_ROLLS):
                row1[j] /= 36.0
            mean_first[r - BO_FIRST_15] = _mean_of(row1)
    return 0


cdef int _build_two_sided(double* P, int32_t* leaves) noexcept nogil:
    """P[a * 924 + b] = P(win) of the side on roll at a against b, for every pair, in
    order of a + b (a move lowers the mover's index, and the reply swaps the sides).
    The legal afterstates of each (position, roll) are listed once, deduplicated."""
    cdef int N = BO_TWO_SIDED
    cdef int a, b, s, k, j, c, t, u, start, end
    cdef int n[6]
    cdef double p, worst, q
    # CSR of afterstates: off[a * 21 + k] .. off[a * 21 + k + 1]
    cdef int32_t* off = <int32_t*> malloc((N * 21 + 1) * sizeof(int32_t))
    cdef int32_t* moves = NULL
    cdef int cap = N * 21 * 8, used = 0
    if off == NULL:
        return -1
    moves = <int32_t*> malloc(cap * sizeof(int32_t))
    if moves == NULL:
        free(off)
        return -1
    for a in range(N):
        _unrank(a, n)
        for k in range(21):
            off[a * 21 + k] = used
            if a == 0:
                continue
            c = bearoff_moves(n, BO_ROLL_D1[k], BO_ROLL_D2[k], leaves)
            if c < 0:
                free(off); free(moves)
                return -1
            if used + c > cap:
                cap = 2 * cap + c
                if not grow_block(<void**> &moves, cap * sizeof(int32_t)):
                    free(off); free(moves)
                    return -1
            start = used
            for j in range(c):             # keep the first of each distinct afterstate
                t = leaves[j]
                u = start
                while u < used and moves[u] != t:
                    u += 1
                if u == used:
                    moves[used] = t
                    used += 1
    off[N * 21] = used
    P[0] = 1.0
    for b in range(1, N):
        P[b] = 1.0                  # the side on roll has borne everything off
        P[b * N] = 0.0              # only the opponent has
    for s in range(2, 2 * N - 1):
        for a in range(max(1, s - N + 1), min(s, N)):
            b = s - a
            if b < 1:
                continue
            p = 0.0
            for k in range(21):
                start = off[a * 21 + k]
                end = off[a * 21 + k + 1]
                worst = 2.0          # the opponent's least chance after our move
                for j in range(start, end):
                    q = P[b * N + moves[j]]
                    if q < worst:
                        worst = q
                p += BO_ROLL_W[k] * (1.0 - worst)
            P[a * N + b] = p / 36.0
    free(off)
    free(moves)
    return 0


def _alloc_tables():
    return dict(
        dist=np.zeros((BO_ONE_SIDED, BO_MAX_ROLLS), np.float64),
        mean=np.zeros(BO_ONE_SIDED, np.float64),
        first=np.zeros((BO_GAMMON, BO_MAX_ROLLS), np.float64),
        mean_first=np.zeros(BO_GAMMON, np.float64),
        two_sided=np.zeros((BO_TWO_SIDED, BO_TWO_SIDED), np.float64),
    )


def build_tables() -> dict:
    """Compute the tables from the rules (nogil; about 0.4 s on one core).

    Returns ``{"dist": (54264, 32), "mean": (54264,), "first": (15504, 32),
    "mean_first": (15504,), "two_sided": (924, 924)}``, all float64; see ``bearoff.pxd``.
    """
    t = _alloc_tables()
    cdef double[:, ::1] dist = t["dist"]
    cdef double[::1] mean = t["mean"]
    cdef double[:, ::1] first = t["first"]
    cdef double[::1] mean_first = t["mean_first"]
    cdef double[:, ::1] ts = t["two_sided"]
    cdef int32_t* leaves = <int32_t*> malloc(MAX_LEAVES * sizeof(int32_t))
    cdef int rc = 0, rc2 = 0
    if leaves == NULL:
        raise MemoryError("bear-off build")
    with nogil:
        rc = _build_one_sided(&dist[0, 0], &mean[0], &first[0, 0], &mean_first[0], leaves)
        if rc == 0:
            rc2 = _build_two_sided(&ts[0, 0], leaves)
    free(leaves)
    if rc != 0:
        raise RuntimeError("bear-off build: a distribution ran past MAX_ROLLS")
    if rc2 != 0:
        raise MemoryError("bear-off two-sided build")
    return t


# ---------------------------------------------------------------- evaluation

cdef double bearoff_win(const bearoff_t* db, int i_on_roll, int i_opponent) noexcept nogil:
    """P(the side on roll wins) from the one-sided distributions of indices ``i_on_roll``
    and ``i_opponent`` (1..54263), taken as independent: it wins in its n-th roll when
    the opponent needs at least n rolls."""
    return bo_first_before(db.dist + <Py_ssize_t>i_on_roll * BO_MAX_ROLLS,
                         db.dist + <Py_ssize_t>i_opponent * BO_MAX_ROLLS, 0)


cdef int bearoff_outputs(const bearoff_t* db, const board_t* b, real_t* out5) noexcept nogil:
    """gnubg's five outputs of the side on roll when both sides have all their checkers on
    their home points and at least one left: returns 1 and writes ``out5`` (exact from the
    two-sided table when both have at most 6 checkers, else from the one-sided
    distributions taken as independent; backgammons are impossible).  Returns 0 and
    leaves ``out5`` alone otherwise."""
    cdef int im = bo_home_index(b.c[1])
    cdef int io = bo_home_index(b.c[0])
    cdef const double* pm
    cdef const double* po
    if im <= 0 or io <= 0:
        return 0
    out5[1] = 0
    out5[2] = 0
    out5[3] = 0
    out5[4] = 0
    if im < BO_TWO_SIDED and io < BO_TWO_SIDED:
        out5[0] = <real_t>db.two_sided[im * BO_TWO_SIDED + io]
        return 1
    pm = db.dist + <Py_ssize_t>im * BO_MAX_ROLLS
    po = db.dist + <Py_ssize_t>io * BO_MAX_ROLLS
    out5[0] = <real_t>bo_first_before(pm, po, 0)
    if io >= BO_FIRST_15:       # we finish before the opponent's first checker is off
        out5[1] = <real_t>bo_first_before(
            pm, db.first + <Py_ssize_t>(io - BO_FIRST_15) * BO_MAX_ROLLS, 0)
    if im >= BO_FIRST_15:       # they finish, rolling second, before our first is off
        out5[3] = <real_t>bo_first_before(
            po, db.first + <Py_ssize_t>(im - BO_FIRST_15) * BO_MAX_ROLLS, 1)
    return 1


cdef int bearoff_outputs_k(const bearoff_t* db, const board_t* b, real_t* out,
                           int n_outputs) noexcept nogil:
    """bearoff_outputs in a network's output form (outputs.pxd): 1 (win), 4 (win, lose,
    win gammon, lose gammon) or 5 (gnubg's).  Returns 1 when covered, else 0."""
    cdef real_t v[5]
    if not bearoff_outputs(db, b, v):
        return 0
    outputs_from_five(n_outputs, v, out)
    return 1


# The same with the (const void* database, board, out) signature of an evaluator's exact
# function, one per output form.
cdef int bearoff_exact1(const void* db, const board_t* b, real_t* out) noexcept nogil:
    return bearoff_outputs_k(<const bearoff_t*>db, b, out, 1)


cdef int bearoff_exact4(const void* db, const board_t* b, real_t* out) noexcept nogil:
    return bearoff_outputs_k(<const bearoff_t*>db, b, out, 4)


cdef int bearoff_exact5(const void* db, const board_t* b, real_t* out) noexcept nogil:
    return bearoff_outputs(<const bearoff_t*>db, b, out)


# ---------------------------------------------------------------- Python API

def _points6(points) -> np.ndarray:
    """A side's home points as int64 (6,): counts on its points 1..6, 0..15 in all.  A
    full board row (25,) is accepted when nothing is off its home points."""
    a = np.asarray(points)
    if a.dtype.kind not in "iub":
        raise TypeError(f"points must be integers, got {a.dtype}")
    a = a.astype(np.int64)
    if a.shape == (N_SLOTS,):
        if a[BO_POINTS:].any():
            raise ValueError("the row has checkers off its home points")
        a = a[:BO_POINTS]
    if a.shape != (BO_POINTS,):
        raise ValueError(f"points must have shape (6,) or (25,), got {a.shape}")
    if (a < 0).any() or a.sum() > 15:
        raise ValueError(f"points must be 0..15 checkers in all, got {a.tolist()}")
    return a


def index(points) -> int:
    """The database index (0..54263) of a side's home points ``(6,)`` (or its board row
    ``(25,)``): 0 = all borne off; at most 6 checkers <=> index < 924; exactly 15 <=>
    index >= 38760."""
    cdef int n[6]
    a = _points6(points)
    for i in range(BO_POINTS):
        n[i] = a[i]
    return bo_rank_counts(n)


def position(i) -> np.ndarray:
    """The home points ``uint8 (6,)`` of database index ``i``, an integer in
    0..54263 (inverse of :func:`index`)."""
    cdef int n[6]
    cdef int idx = checked_int(i, "index", 0, BO_ONE_SIDED - 1, f"0..{BO_ONE_SIDED - 1}",
                             "an integer")
    _unrank(idx, n)
    res = np.empty(BO_POINTS, dtype=np.uint8)
    for k in range(BO_POINTS):
        res[k] = n[k]
    return res


def afterstates(points, d1, d2) -> np.ndarray:
    """The distinct home points ``uint8 (k, 6)`` a side can reach from ``points`` with roll
    (d1, d2) (integers 1..6) when all its checkers are home (sorted by index)."""
    cdef int n[6]
    cdef int32_t out[MAX_LEAVES]
    a = _points6(points)
    cdef int a1 = check_die(d1, "d1"), a2 = check_die(d2, "d2")
    for i in range(BO_POINTS):
        n[i] = a[i]
    c = bearoff_moves(n, a1, a2, out)
    if c < 0:
        raise RuntimeError("too many move sequences")
    seen = set()
    for k in range(c):
        seen.add(out[k])
    return np.array([position(i) for i in sorted(seen)], dtype=np.uint8).reshape(-1, BO_POINTS)


cdef class BearoffDatabase:
    """The bear-off tables (read-only float64 arrays) and lookups on them.

    ``dist[i, n]``: P(the one-sided position of index ``i`` bears off all its checkers
    in exactly ``n`` rolls), n = 0..31, playing to minimise the expected rolls;
    ``mean[i]`` its mean.  ``first[i - FIRST_15, n]``: for a 15-checker position,
    P(its first checker is off in exactly ``n`` rolls); ``mean_first`` its mean.
    ``two_sided[i, j]``: P(the side on roll with index ``i`` beats index ``j``), both
    with at most 6 checkers (index < 924).  Build with :meth:`build`, or get the shared
    cached one from :func:`default`.
    """

    def __init__(self, tables, double build_seconds=0.0, str source="given"):
        self.dist = _frozen(tables["dist"], (BO_ONE_SIDED, BO_MAX_ROLLS))
        self.mean = _frozen(tables["mean"], (BO_ONE_SIDED,))
        self.first = _frozen(tables["first"], (BO_GAMMON, BO_MAX_ROLLS))
        self.mean_first = _frozen(tables["mean_first"], (BO_GAMMON,))
        self.two_sided = _frozen(tables["two_sided"], (BO_TWO_SIDED, BO_TWO_SIDED))
        self.build_seconds = build_seconds
        self.source = source
        self.db.dist = <const double*> cnp.PyArray_DATA(self.dist)
        self.db.mean = <const double*> cnp.PyArray_DATA(self.mean)
        self.db.first = <const double*> cnp.PyArray_DATA(self.first)
        self.db.mean_first = <const double*> cnp.PyArray_DATA(self.mean_first)
        self.db.two_sided = <const double*> cnp.PyArray_DATA(self.two_sided)

    @staticmethod
    def default() -> "BearoffDatabase":
        """The shared database: the same as the module's :func:`default`."""
        return _shared()

    @classmethod
    def build(cls) -> "BearoffDatabase":
        """Compute the databases from the rules (about 0.4 s on one core)."""
        t0 = time.perf_counter()
        tables = build_tables()
        return cls(tables, time.perf_counter() - t0, "built")

    def tables(self) -> dict:
        """The five arrays by name (read-only views)."""
        return {k: getattr(self, k) for k in _TABLES}

    def __repr__(self) -> str:
        return f"BearoffDatabase(source={self.source!r}, build_seconds={self.build_seconds:.3f})"

    def __reduce__(self):
        return (BearoffDatabase, (self.tables(), self.build_seconds, self.source))

    def distribution(self, points) -> np.ndarray:
        """float64 (32,): P(bearing off all of ``points`` (6,) takes exactly n rolls)."""
        return self.dist[index(points)].copy()

    def first_off_distribution(self, points) -> np.ndarray:
        """float64 (32,): P(the first checker of ``points`` (6,) is off in exactly n
        rolls); all mass at 0 when fewer than 15 checkers are left."""
        i = index(points)
        if i < BO_FIRST_15:
            d = np.zeros(BO_MAX_ROLLS)
            d[0] = 1.0
            return d
        return self.first[i - BO_FIRST_15].copy()

    def mean_rolls(self, points) -> float:
        """Expected number of rolls to bear off all of ``points`` (6,)."""
        return float(self.mean[index(points)])

    def mean_first_rolls(self, points) -> float:
        """Expected number of rolls to the first checker off (0 with fewer than 15)."""
        i = index(points)
        return 0.0 if i < BO_FIRST_15 else float(self.mean_first[i - BO_FIRST_15])

    def win_probability(self, on_roll, opponent) -> float:
        """P(the side on roll with home points ``on_roll`` (6,) wins against ``opponent``
        (6,)): exact when both have at most 6 checkers, else from the one-sided
        distributions."""
        b = np.zeros((2, N_SLOTS), np.uint8)
        b[1, :BO_POINTS] = _points6(on_roll)
        b[0, :BO_POINTS] = _points6(opponent)
        v = self.outputs(b)
        if v is None:
            raise ValueError("a side has no checkers left: the game is over")
        return float(v[0])

    def outputs(self, board, n_outputs=5):
        """float32 (n_outputs,): the outputs of the side on roll of ``board`` (2, 25) in a
        network's form: 5 = gnubg's (win, win gammon, win backgammon, lose gammon, lose
        backgammon), 4 = (win, lose, win gammon, lose gammon), 1 = (win,); or None when a
        side has a checker off its home points or none left."""
        cdef cnp.ndarray arr = validate_board(board)
        cdef real_t out[5]
        cdef int K = _check_form(n_outputs)
        if not bearoff_outputs_k(&self.db, <board_t*> cnp.PyArray_DATA(arr), out, K):
            return None
        return np.array([out[k] for k in range(K)], dtype=np.float32)

    def outputs_batch(self, boards, n_outputs=5) -> tuple:
        """``(outputs float32 (N, n_outputs), covered bool (N,))`` for boards (N, 2, 25);
        rows not covered are zero."""
        cdef cnp.ndarray arr = validate_boards(boards)
        cdef Py_ssize_t k, N = arr.shape[0]
        cdef int K = _check_form(n_outputs)
        res = np.zeros((N, K), np.float32)
        ok = np.zeros(N, np.uint8)
        cdef real_t[:, ::1] r = res
        cdef unsigned char[::1] o = ok
        cdef const board_t* bp = <const board_t*> cnp.PyArray_DATA(arr)
        if N:
            with nogil:
                for k in range(N):
                    o[k] = bearoff_outputs_k(&self.db, &bp[k], &r[k, 0], K)
        return res, ok.astype(bool)


_TABLES = ("dist", "mean", "first", "mean_first", "two_sided")


cdef int _check_form(object n_outputs) except -1:
    """``n_outputs`` (an integer: 1, 4 or 5) as an int, or ``ValueError``."""
    cdef int k = checked_int(n_outputs, "n_outputs", 1, 5, "{1, 4, 5}", "an integer: 1, 4 or 5")
    if k not in (1, 4, 5):
        raise ValueError(f"n_outputs must be 1, 4 or 5, got {n_outputs}")
    return k


def _frozen(a, shape) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=np.float64)
    if a.shape != shape:
        raise ValueError(f"bear-off table has shape {a.shape}, expected {shape}")
    a = a.view()
    a.flags.writeable = False
    return a


# The lazily built shared database: the module's only mutable state, set once under the
# lock and never changed after, so its tables (and bearoff_default's pointer) live as
# long as the process.
_default = None
_default_lock = threading.Lock()


def default() -> BearoffDatabase:
    """The shared :class:`BearoffDatabase`, built on the first call (about 0.4 s) and
    kept for the life of the process; thread-safe.  ``BearoffDatabase.default()`` too."""
    return _shared()


def _shared() -> BearoffDatabase:
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = BearoffDatabase.build()
    return _default


cdef const bearoff_t* bearoff_default() except NULL:
    """The shared database's tables for C callers (builds it on first use; needs the
    GIL then).  The pointer stays valid for the life of the process."""
    cdef BearoffDatabase d = _shared()
    return &d.db
