# C-level API of the players: each picks one of the legal afterstates of a
# roll without the GIL, so whole games and matches run in compiled code.

from bgengine.core._types cimport real_t
from bgengine.core.board cimport board_t
from bgengine.core.dice cimport rng_t
from bgengine.core.movegen cimport movelist_t
from bgengine.core.network cimport netbuf_t
from bgengine.core.evaluator cimport evaluator_t
from bgengine.core.search cimport searcher_t

cdef enum:
    P_RANDOM = 0
    P_PUBEVAL = 1
    P_SIMPLE1 = 2       # most points made
    P_SIMPLE2 = 3       # ... and consecutive points
    P_SIMPLE3 = 4       # ... and in a race, bear off as fast as possible
    P_NET = 5           # a network at 0-ply: the afterstate of highest equity

ctypedef struct player_t:
    int kind
    const evaluator_t* ev   # P_NET only; borrowed from the Player's Evaluator
    double epsilon      # chance of a uniformly random legal play instead
    int plies           # P_NET: lookahead of the move choice (0 = the network alone)

# The chosen index into ml.boards[0..n-1].  For P_NET, ``out`` (if not NULL)
# receives the chosen afterstate's outputs from the mover's side; a player
# with plies > 0 searches with ``S`` (its own evaluator's searcher; NULL = 0-ply).
cdef int choose_move(const player_t* p, const board_t* before, const movelist_t* ml, int n,
                     netbuf_t* buf, rng_t* rng, real_t* out, searcher_t* S) noexcept nogil

cdef double pubeval_score(const board_t* after, bint race) noexcept nogil

# One game from the starting position: ``first`` moves first (opening roll),
# dice from ``dice``, the players' own randomness from ``prng``.  Returns the
# points won by ``first`` (negative if lost); the number of moves in n_moves.
cdef int play_one_game(const player_t* first, const player_t* second, rng_t* dice, rng_t* prng,
                       movelist_t* ml, netbuf_t* buf, int* n_moves, searcher_t* s_first,
                       searcher_t* s_second) except? -100 nogil


cdef class Player:
    cdef player_t p
    cdef readonly str name
    cdef readonly object network        # what was given: a Network or an Evaluator
    cdef readonly object evaluator      # the Evaluator the player uses (None if no network)
