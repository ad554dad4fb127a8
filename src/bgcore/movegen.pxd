# C-level API of legal move generation with afterstate deduplication.
#
# Usage from Cython (allocate once, reuse for every position):
#
#     cdef movelist_t ml
#     movelist_init(&ml)
#     n = generate_moves(&ml, &board, d1, d2)     # n >= 1, or -1 on MemoryError
#     ... ml.boards[0..n-1], ml.moves[0..n-1] ...
#     movelist_free(&ml)

from bgengine.core._types cimport checker_t, point_t, key_t, int32_t, uint32_t
from bgengine.core.board cimport board_t

ctypedef struct move_t:
    point_t steps[4][2]     # (from, to) per die in the mover's numbering: 25 bar, 0 off; -1 unused
    int n_steps             # dice played, 0 (no legal play) .. 4

ctypedef struct movelist_t:
    board_t* boards         # [capacity] afterstates, the mover still in row 1 (not swapped); owned
    move_t* moves           # [capacity] one canonical checker sequence per afterstate; owned
    key_t* keys             # [capacity] Zobrist key of each afterstate; owned
    int count               # afterstates in the list
    int capacity            # allocated entries of boards/moves/keys
    int max_steps           # most dice played by any sequence so far
    int max_pips            # most pips played by a sequence of max_steps dice
    int32_t* slots          # [n_slots] open-addressing table: index into boards; owned
    uint32_t* stamps        # [n_slots] a slot is live iff stamps[s] == stamp; owned
    uint32_t stamp          # current generation; bumping it empties the table in O(1)
    int n_slots             # table size, a power of two, at least 2 * capacity
    char _pad[64]           # threads' lists side by side in an array share no cache line

cdef int movelist_init(movelist_t* ml) except -1 nogil
cdef void movelist_free(movelist_t* ml) noexcept nogil
cdef int generate_moves(movelist_t* ml, const board_t* b, int d1, int d2) except -1 nogil
