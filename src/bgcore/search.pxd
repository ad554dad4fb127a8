# C-level API of lookahead (n-ply expectimax) and rollouts over a network.
#
# A searcher_t is per thread: it owns one move list per ply level, a network
# workspace and an evaluation cache, so no allocation happens per position.
# Positions are valued by an evaluator (class networks, exact values).

from bgengine.core._types cimport real_t, key_t, uint64_t
from bgengine.core.board cimport board_t
from bgengine.core.dice cimport rng_t
from bgengine.core.movegen cimport movelist_t
from bgengine.core.network cimport netbuf_t
from bgengine.core.evaluator cimport evaluator_t

cdef enum:
    MAX_PLIES = 3
    MAX_CANDIDATES = 32

ctypedef struct cache_entry_t:
    key_t key               # Zobrist key of the position (side on roll) ^ ply salt; 0 = empty
    real_t out[5]

ctypedef struct searcher_t:
    const evaluator_t* ev
    int K
    netbuf_t* buf
    movelist_t ml[MAX_PLIES + 2]
    cache_entry_t* cache    # open table, replace-always; NULL = no cache
    uint64_t cache_mask
    uint64_t hits
    uint64_t lookups
    int candidates          # move filter: at most this many moves searched deeper
    double margin           # ... and only those within this equity of the 0-ply best
    bint by_delta           # ev_best_move's by_delta (searcher_init: True)
    char _pad[64]           # threads' searchers side by side share no cache line

# Index of the afterstate of highest 0-ply equity for the mover; its outputs
# (mover's side) in ``out``.  Game-ending afterstates score their exact value.
# by_delta: the first layer of sibling afterstates by difference (layer_delta.pxd) where the
# network is at least LAYER_DELTA_MIN_WIDTH wide (LAYER_DELTA_MIN_WIDTH_PARTS for contact
# networks): faster, outputs within 1e-5 of each
# afterstate's own evaluation; False, or narrower networks: bit for bit those.
cdef int ev_best_move(const evaluator_t* ev, const movelist_t* ml, int n, netbuf_t* buf,
                      real_t* out, bint by_delta) noexcept nogil

cdef int searcher_init(searcher_t* S, const evaluator_t* ev, int cache_bits,
                       int candidates, double margin) except -1 nogil
cdef void searcher_free(searcher_t* S) noexcept nogil

# The per-thread workspaces of a threaded loop (rollouts, matches): for each of nt threads
# a move list, a network buffer and up to two searchers (one per searching player), each
# array set up only when asked for.  Use: workspaces_init, then in a try the workspaces_add_*
# the loop needs, and workspaces_free in its finally (it frees what was set up, and only that).
ctypedef struct workspaces_t:
    int nt                          # threads
    movelist_t* lists               # nt move lists, or NULL
    netbuf_t* bufs                  # nt network buffers, or NULL
    searcher_t* searchers[2]        # nt searchers each, or NULL
    int n_lists                     # how many of each are initialised
    int n_searchers[2]

cdef void workspaces_init(workspaces_t* W, int nt) noexcept nogil
cdef int workspaces_add_lists(workspaces_t* W) except -1
cdef int workspaces_add_bufs(workspaces_t* W) except -1
cdef int workspaces_add_searchers(workspaces_t* W, int k, const evaluator_t* ev, int cache_bits,
                                  int candidates, double margin) except -1
cdef void workspaces_free(workspaces_t* W) noexcept nogil

# Outputs of position ``s`` (side on roll, before its roll) from its side, at ``plies``.
cdef void eval_position(searcher_t* S, const board_t* s, int plies, real_t* out) noexcept nogil
# ``lower``: eval_position(s, plies - 1); ``upper``: an unbiased estimate of
# eval_position(s, plies), its deepest ply sampled (``samples`` of the 36 rolls; divides 36),
# from offset ``start`` (0..36/samples-1; -1: drawn from the position's key).
cdef void eval_pair(searcher_t* S, const board_t* s, int plies, int samples, int start,
                    real_t* lower, real_t* upper) noexcept nogil
# Best play among ml.boards[0..n-1] (afterstates of ``level``'s list) at ``plies``;
# the chosen afterstate's outputs, mover's side, in ``out``.
cdef int search_best_move(searcher_t* S, const movelist_t* ml, int n, int plies,
                          real_t* out) noexcept nogil
