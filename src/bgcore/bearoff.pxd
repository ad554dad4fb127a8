# C-level API of the exact bear-off databases (bearoff.pyx), computed from the rules.
#
# A one-sided position is the checkers a side still has on its six home points:
# n[6], n[i] = checkers on its own point i+1 (board slot i), 0..15 in all.  Its index
# is a combinatorial rank (bo_rank): 0 = all borne off; the C(k+6, 6) positions of at
# most k checkers come first, so the 924 of at most 6 checkers are 0..923 and the 15504
# of exactly 15 checkers are BO_FIRST_15..BO_ONE_SIDED-1.  Every legal bear-off move
# lowers the index, which is the order the tables are built in.
#
# Usage from Cython:
#
#     cdef const bearoff_t* db = bearoff_default()    # with the GIL, once (builds, ~0.4 s)
#     ...
#     if bearoff_outputs(db, &board, out5): ...        # nogil: both sides home and covered
#
# All tables are float64 and read-only once built; any number of threads may read them.

from bgengine.core._types cimport checker_t, int32_t, real_t
from bgengine.core.board cimport board_t

cdef enum:
    BO_POINTS = 6               # home points covered
    BO_ONE_SIDED = 54264        # positions of 0..15 checkers on 6 points, C(21, 6)
    BO_FIRST_15 = 38760         # index of the first 15-checker position, C(20, 6)
    BO_GAMMON = 15504           # positions of exactly 15 checkers, C(20, 5)
    BO_TS_CHECKERS = 6          # the two-sided table covers up to 6 checkers a side
    BO_TWO_SIDED = 924          # positions of 0..6 checkers on 6 points, C(12, 6)
    BO_MAX_ROLLS = 32           # distributions hold P(n rolls) for n = 0..31

ctypedef struct bearoff_t:
    const double* dist          # [BO_ONE_SIDED][BO_MAX_ROLLS] P(all off in exactly n rolls),
                                # playing to minimise the expected number of rolls
    const double* mean          # [BO_ONE_SIDED] expected rolls to bear off all
    const double* first         # [BO_GAMMON][BO_MAX_ROLLS] for index BO_FIRST_15 + k (15
                                # checkers): P(first checker off in exactly n rolls), playing
                                # to minimise the expected rolls to the first checker off
    const double* mean_first    # [BO_GAMMON] expected rolls to the first checker off
    const double* two_sided     # [BO_TWO_SIDED][BO_TWO_SIDED] [on roll][opponent]: P(the side
                                # on roll wins), both playing to maximise it; 1 when the side
                                # on roll has none left, 0 when only the opponent has none

# The 21 distinct rolls (d1 >= d2, in the order 1-1, 2-1, 2-2, 3-1, ...) and their weights in
# 36ths (1 for doubles, 2 otherwise), for any module that averages over the rolls.
cdef int BO_ROLL_D1[21]
cdef int BO_ROLL_D2[21]
cdef double BO_ROLL_W[21]

# Rank table: bo_rank(n) = sum_i bo_rank_table[i][n[i] + ... + n[5]], i.e. C(s + 5 - i, 6 - i).
cdef int32_t bo_rank_table[BO_POINTS][16]

cdef int bo_rank_counts(const int* n) noexcept nogil
cdef int bo_home_index(const checker_t* row) noexcept nogil
cdef int bearoff_outputs(const bearoff_t* db, const board_t* b, real_t* out5) noexcept nogil
# The same in a network's output form, n_outputs 1, 4 or 5 (outputs.pxd).
cdef int bearoff_outputs_k(const bearoff_t* db, const board_t* b, real_t* out,
                           int n_outputs) noexcept nogil
# The same with an evaluator's exact-function signature (db = const bearoff_t*), per form.
cdef int bearoff_exact1(const void* db, const board_t* b, real_t* out) noexcept nogil
cdef int bearoff_exact4(const void* db, const board_t* b, real_t* out) noexcept nogil
cdef int bearoff_exact5(const void* db, const board_t* b, real_t* out) noexcept nogil
cdef double bearoff_win(const bearoff_t* db, int i_on_roll, int i_opponent) noexcept nogil
cdef int bearoff_moves(const int* n, int d1, int d2, int32_t* out) noexcept nogil
cdef const bearoff_t* bearoff_default() except NULL


cdef inline int bo_rank(const checker_t* n) noexcept nogil:
    """Index of the one-sided position ``n[0..5]`` (a board row's home slots): six table
    loads and adds."""
    cdef int s = n[5]
    cdef int r = bo_rank_table[5][s]
    s += n[4]; r += bo_rank_table[4][s]
    s += n[3]; r += bo_rank_table[3][s]
    s += n[2]; r += bo_rank_table[2][s]
    s += n[1]; r += bo_rank_table[1][s]
    s += n[0]; r += bo_rank_table[0][s]
    return r


cdef inline double bo_first_before(const double* p, const double* q, int later) noexcept nogil:
    """sum_n p[n] * sum_{k >= n + later} q[k] over distributions of BO_MAX_ROLLS: P(X done
    in its n-th roll while Y, with distribution q, needs at least n + later rolls).  later
    = 0 when X rolls first (Y has had n - 1 rolls), 1 when Y rolls first."""
    cdef double tail = 0.0, s = 0.0
    cdef int n
    for n in range(BO_MAX_ROLLS - 1, 0, -1):
        if later:
            s += p[n] * tail
            tail += q[n]
        else:
            tail += q[n]
            s += p[n] * tail
    return s


cdef inline double bearoff_mean_rolls(const bearoff_t* db, int index) noexcept nogil:
    """Expected rolls to bear off all the checkers of one-sided position ``index``."""
    return db.mean[index]


cdef class BearoffDatabase:
    cdef bearoff_t db
    cdef readonly object dist           # float64 (54264, 32)
    cdef readonly object mean           # float64 (54264,)
    cdef readonly object first          # float64 (15504, 32)
    cdef readonly object mean_first     # float64 (15504,)
    cdef readonly object two_sided      # float64 (924, 924)
    cdef readonly double build_seconds  # time the tables took to compute (0 when loaded)
    cdef readonly str source            # "built" or the cache file it was loaded from
