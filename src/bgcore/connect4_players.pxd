# Connect Four reference players at C level: random, minimax to a depth (MM1..MM4) with a share
# of random moves, the pure-simulation bot, and the exact solver; and the game loop.

from bgengine.core.connect4 cimport c4_t
from bgengine.core.connect4_solver cimport c4_solver_t
from bgengine.core.dice cimport rng_t

cdef enum:
    C4_RANDOM = 0
    C4_MINIMAX = 1
    C4_SIMULATION = 2
    C4_PERFECT = 3

ctypedef struct c4_player_t:
    int kind                # C4_RANDOM, C4_MINIMAX, C4_SIMULATION or C4_PERFECT
    int depth               # C4_MINIMAX: plies searched (1..)
    double epsilon          # chance of a uniformly random move instead
    int playouts            # C4_SIMULATION: random playouts per move decision, over all moves
    c4_solver_t* solver     # C4_PERFECT: the solver (its table) to use

# the line-count value of one side's stones (the sum over its cells of the lines through them)
cdef int c4_line_value(unsigned long long stones) noexcept nogil
# the 0-based column the player picks (the game must go on)
cdef int c4_player_move(const c4_player_t* p, const c4_t* s, rng_t* rng) noexcept nogil
# one game from the position s: 1 the side to move at s won, 0 a draw, -1 it lost
cdef int c4_play_game(const c4_player_t* first, const c4_player_t* second, c4_t s,
                      rng_t* rng) noexcept nogil


cdef class Player:
    cdef c4_player_t p
    cdef object solver_ref      # keeps a C4_PERFECT player's Solver alive
