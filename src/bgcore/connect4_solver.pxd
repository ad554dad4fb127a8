# The exact Connect Four solver at C level: negamax alpha-beta with a transposition table,
# move ordering (centre first, then by threats) and iterative null-window search.
#
# Scores are the usual ones for Connect Four (from the side to move): 0 a draw; a win with the
# mover's k-th stone of the game scores 22 - k; a loss to the opponent's k-th stone scores
# k - 22.  So larger is better, and the sooner a win the larger.

from libc.stdint cimport uint64_t, int8_t
from bgengine.core.connect4 cimport c4_t

cdef enum:
    C4_NO_SCORE = -100          # c4_move_scores: the column is full

ctypedef struct c4_solver_t:
    uint64_t* keys          # transposition table: position keys (0 = empty slot) ...
    int8_t* values          # ... and an upper bound of each one's score, offset to be > 0
    size_t size             # slots (a prime)
    uint64_t nodes          # positions searched since the last reset

cdef int c4_solver_init(c4_solver_t* sv, size_t size) noexcept nogil   # 0, or -1 out of memory
cdef void c4_solver_free(c4_solver_t* sv) noexcept nogil
cdef void c4_solver_clear(c4_solver_t* sv) noexcept nogil
# the score of a position where the game goes on; weak: only its sign (-1, 0, 1) is exact
cdef int c4_solve(c4_solver_t* sv, const c4_t* s, bint weak) noexcept nogil
# the score of playing each column (C4_NO_SCORE where full) into scores[7]; the best score
cdef int c4_move_scores(c4_solver_t* sv, const c4_t* s, bint weak, int* scores) noexcept nogil


cdef class Solver:
    cdef c4_solver_t sv
