# C-level API of one-sided race distributions (racegammon.pyx): how many rolls a side needs
# to bear off its first checker, or all of them, from any position of a race, computed from
# the rules by a memoised recursion that ends in the one-sided bear-off database.
#
# Usage from Cython (tables = &obj.s of a RaceGammonTables object, which owns them):
#
#     if rg_refine5(tables, b.c[1], b.c[0], out5): ...  # nogil; out5 = a race network's
#                                                      # outputs, side on roll = b.c[1]
#
# A RaceGammonTables is shared by threads: it holds several caches (shards), each guarded by
# a lock; a query takes the first free one.

from cpython.pythread cimport PyThread_type_lock

from bgengine.core._types cimport checker_t, key_t, real_t
from bgengine.core.board cimport board_t
from bgengine.core.bearoff cimport bearoff_t
from bgengine.core.racedist cimport rd_net_t

cdef enum:
    RG_ROLLS = 32           # distributions hold P(n rolls) for n = 0..31: BO_MAX_ROLLS, as
                            # the database and bo_first_before take them
    RG_MAX_DEPTH = 48       # rolls of recursion at most (a far race needs fewer than 30)
    RG_FIRST = 0            # mode: rolls until the first checker is off (15 on the board)
    RG_ALL = 1              # mode: rolls until every checker is off
    RG_ESCAPE = 2           # mode: rolls until no checker is left on its points 19..24
    RG_MAX_SHARDS = 16      # caches of one RaceGammonTables at most (one per thread at work)

ctypedef struct rg_entry_t:
    key_t key               # Zobrist key of the row (salted by the mode)
    double mean             # the distribution's mean (compared across plays without it)
    float dist[RG_ROLLS]
    checker_t row[25]
    unsigned char mode
    unsigned char used

ctypedef struct rg_plays_t:
    # one roll's plays of one side alone (a recursion level's buffer): distinct rows
    checker_t* rows         # n rows of 25 slots; capacity cap; owned
    key_t* keys             # each row's Zobrist key (as board_key of it in row 1)
    int n
    int cap

ctypedef struct rg_tables_t:
    const bearoff_t* db     # borrowed from the owning object's BearoffDatabase
    rg_entry_t* table       # open addressing, n_slots a power of two; owned
    Py_ssize_t n_slots
    Py_ssize_t count
    Py_ssize_t max_slots    # the table is emptied rather than grown past this
    int max_outside         # refine only when each side has at most this many checkers outside home
    long state_budget       # new positions one query may solve before it gives up
    bint wins               # refine win chances too (else gammons and backgammons only)
    long budget             # what is left of it in the current query
    rg_plays_t plays[RG_MAX_DEPTH]   # one buffer per recursion depth
    PyThread_type_lock lock
    long long queries, solved, refused
    # the last two distributions asked for in each mode: the side on roll is the same in all
    # the afterstates of one decision, so its queries repeat, between the moved side's
    checker_t last_row[3][2][25]
    double last_dist[3][2][RG_ROLLS]
    bint last_valid[3][2]
    # the same for the network's distributions (all-off and first-off at once)
    checker_t net_row[2][25]
    double net_dist[2][2][RG_ROLLS]
    bint net_valid[2]

ctypedef struct rg_shards_t:
    # what rg_refine5 is handed: caches of the same tables, each with its own lock, so that
    # threads solve at once (a query takes the first free one; values do not depend on it)
    int n
    rg_tables_t shard[RG_MAX_SHARDS]
    const rd_net_t* net     # one side's distributions where the recursion would take too
                            # long (more than max_outside outside); NULL: none

cdef int rg_distribution(rg_tables_t* t, const checker_t* row, int mode,
                         double* out) noexcept nogil
cdef int rg_refine5(void* tables, const checker_t* on_roll, const checker_t* other,
                    real_t* out5) noexcept nogil

cdef class RaceGammonTables:
    cdef rg_shards_t s
    cdef readonly object database
    cdef readonly object network
