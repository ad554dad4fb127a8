# C-level API of tic-tac-toe on bitboards, in the small games' interface (smallgame.pxd).
#
# Cell i = 3 * row + column (0..8) is bit i.  `own` holds the side to move's pieces, `mask`
# both sides' pieces, `moves` the pieces played (the first player is to move when it is even).
#
#     cdef ttt_t s
#     cdef int moves[9]
#     ttt_init(&s)
#     n = ttt_legal(&s, moves)
#     ttt_play(&s, moves[0])       # the other side is to move
#     ttt_result(&s)               # 1: the side that just moved won, 0: draw, -1: goes on

from bgengine.core._types cimport uint64_t, real_t
from bgengine.core.dice cimport rng_t
from bgengine.core.smallgame cimport smallgame_t

cdef enum:
    TTT_CELLS = 9
    TTT_FULL = 0x1FF
    TTT_INPUTS_SIMPLE = 19      # first player's cells, second player's cells, first to move
    TTT_INPUTS_SEPARATED = 18   # side to move's cells, the other side's
    TTT_RANDOM = 0              # reference players
    TTT_PRIMITIVE = 1           # takes a win if there is one, else random
    TTT_SMART = 2               # takes a win, else blocks, else the cell with most open lines
    TTT_SOLVER = 3              # exact: a random one of the best moves
    TTT_N_PLAYERS = 4

ctypedef struct ttt_t:
    uint64_t own
    uint64_t mask
    int moves

cdef void ttt_init(ttt_t* s) noexcept nogil
cdef int ttt_legal(const ttt_t* s, int* moves) noexcept nogil
cdef void ttt_play(ttt_t* s, int move) noexcept nogil
cdef int ttt_result(const ttt_t* s) noexcept nogil
cdef int ttt_encode(const ttt_t* s, int representation, real_t* x) noexcept nogil
# The exact value of an ongoing state for the side to move: 1 win, 0 draw, -1 loss.
cdef int ttt_solve(const ttt_t* s) noexcept nogil
cdef int ttt_player(const ttt_t* s, int kind, rng_t* rng) noexcept nogil
cdef const smallgame_t* ttt_game() noexcept nogil
