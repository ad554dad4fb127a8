# The C-level face of a small two-player game with no chance (tic-tac-toe, Connect Four): a
# table of function pointers, one instance per game, so that ONE compiled learner
# (smalllearners.pyx) plays, evaluates and trains on any of them.
#
# A state is an opaque block of state_size bytes (at most SG_MAX_STATE), copied with memcpy;
# the side to move owns it: play() makes the move and hands the state to the other side.
# result() is asked after a move: SG_WIN (the side that just moved won), SG_DRAW, or
# SG_ONGOING.  encode() writes n_inputs[representation] float32 inputs seen from the state
# (SG_SIMPLE: the first and the second player's pieces, in blocks or interleaved by cell as
# the game lays them out, then a unit set when the first player is to move; SG_SEPARATED: the
# side to move's pieces, then the other side's).  player() is the
# game's reference player number `kind` (0 = random, then the game's own: primitive, smart,
# solver, ...), drawing from `rng`.
#
# A game module publishes its table to Python as a capsule (sg_capsule: the module's GAME)
# that the learner opens with sg_from_capsule.

from cpython.pycapsule cimport PyCapsule_New, PyCapsule_IsValid, PyCapsule_GetPointer

from bgengine.core._types cimport real_t
from bgengine.core.dice cimport rng_t

cdef enum:
    SG_MAX_STATE = 32       # bytes of the largest state
    SG_MAX_MOVES = 16       # legal moves of any state, at most
    SG_MAX_INPUTS = 256     # inputs of any representation, at most
    SG_SIMPLE = 0           # representations
    SG_SEPARATED = 1
    SG_N_REPRESENTATIONS = 2
    SG_ONGOING = -1         # result() after a move
    SG_DRAW = 0
    SG_WIN = 1

ctypedef void (*sg_init_fn)(void* s) noexcept nogil
ctypedef int (*sg_legal_fn)(const void* s, int* moves) noexcept nogil
ctypedef void (*sg_play_fn)(void* s, int move) noexcept nogil
ctypedef int (*sg_result_fn)(const void* s) noexcept nogil
ctypedef int (*sg_encode_fn)(const void* s, int representation, real_t* x) noexcept nogil
ctypedef int (*sg_player_fn)(const void* s, int kind, rng_t* rng) noexcept nogil

ctypedef struct smallgame_t:
    const char* name
    int state_size          # bytes of a state
    int max_plies           # no game is longer
    int n_inputs[SG_N_REPRESENTATIONS]
    int n_players           # reference players 0 .. n_players - 1
    sg_init_fn init         # the starting position
    sg_legal_fn legal       # count of legal moves, written to moves (ascending)
    sg_play_fn play
    sg_result_fn result
    sg_encode_fn encode     # returns the number of inputs written
    sg_player_fn player


cdef inline object sg_capsule(const smallgame_t* game):
    """The game's table as a Python capsule (the game module's GAME)."""
    return PyCapsule_New(<void*> game, b"bgengine.smallgame_t", NULL)


cdef inline const smallgame_t* sg_from_capsule(object capsule) except NULL:
    """The table behind a game module's GAME (``TypeError`` for anything else)."""
    if not PyCapsule_IsValid(capsule, b"bgengine.smallgame_t"):
        raise TypeError(f"not a small game's table (a game module's GAME): {capsule!r}")
    return <const smallgame_t*> PyCapsule_GetPointer(capsule, b"bgengine.smallgame_t")
