# C-level API of evaluators: which network values a position, or an exact value.
#
# Positions fall into classes: contact (a checker can still be hit), race (no
# contact), and, when an exact database is attached, exact (both sides have all
# their checkers home and the database covers them).  An evaluator holds one
# network per network class (the same network for all of them when it was made
# from a single-network file) and, optionally, the database; every network gives
# the same output form (K outputs, from the side on roll).
#
#     cdef const evaluator_t* ev = &evaluator.ev
#     ev_static(ev, &board, buf, out)           # outputs of board, side on roll
#     cls = ev_class(ev, &board)                 # CLASS_CONTACT, CLASS_RACE or CLASS_EXACT

from bgengine._types cimport real_t, checker_t, uint32_t
from bgengine.board cimport board_t, BAR
from bgengine.network cimport net_t, netbuf_t
from bgengine.bitops cimport bg_point_masks, bg_msb32

cdef enum:
    CLASS_CONTACT = 0
    CLASS_RACE = 1
    N_NET_CLASSES = 2       # classes valued by a network
    CLASS_EXACT = 2         # valued by the exact database

# A refinement of a race network's outputs in place, given the rows of the side on roll and
# of the other side (racegammon.pxd's rg_refine5: exact gammon chances); returns 1 when it
# changed anything.
ctypedef int (*race_fn_t)(void* tables, const checker_t* on_roll, const checker_t* other,
                          real_t* out) noexcept nogil

# An exact evaluation: writes K outputs of b (side on roll) and returns 1 when the
# database covers b, returns 0 otherwise.
ctypedef int (*exact_fn_t)(const void* db, const board_t* b, real_t* out) noexcept nogil

ctypedef struct evaluator_t:
    int K                   # outputs of every network (1, 4 or 5)
    bint routed             # the network classes have different networks
    net_t* net[N_NET_CLASSES]       # borrowed from the owning Evaluator's Networks
    int encoder[N_NET_CLASSES]
    const void* exact_db    # NULL: no exact class
    exact_fn_t exact
    void* race_tables       # NULL: race outputs are the race network's alone
    race_fn_t race_refine


# An evaluator's copy for a stretch of work during which its networks' weights do not change
# (a rollout, a batch of evaluations): the same evaluator with its networks frozen
# (net_freeze: the same outputs bit for bit, faster).  ev_freeze, then in a try the work on
# &f.ev, and ev_frozen_free in its finally.  f points into itself: it must not move.
ctypedef struct ev_frozen_t:
    evaluator_t ev
    net_t net[N_NET_CLASSES]
    real_t* buf             # their transposed output layers (owned)

# keep_race: keep the race refinement (race_tables); rollouts drop it (see evaluator.pyx).
cdef int ev_freeze(const evaluator_t* src, ev_frozen_t* f, bint keep_race=*) except -1
cdef void ev_frozen_free(ev_frozen_t* f) noexcept nogil


# Rearmost slot holding a checker of ``side`` (24 = the bar), -1 if it has none left.
cdef inline int board_back(const board_t* b, int side) noexcept nogil:
    cdef uint32_t occ, one
    if b.c[side][BAR]:
        return 24
    bg_point_masks(b.c[side], &occ, &one)
    return bg_msb32(occ) - 1 if occ else -1


# The class of b regardless of any database: CLASS_CONTACT, CLASS_RACE, or CLASS_EXACT
# when no contact is left and both sides have all their checkers home (a bear-off).
cdef inline int board_shape(const board_t* b) noexcept nogil:
    cdef int b0 = board_back(b, 0), b1 = board_back(b, 1)
    if b0 + b1 >= 23:       # side 1's slot i is side 0's slot 23 - i: not yet past each other
        return CLASS_CONTACT
    if b0 <= 5 and b1 <= 5:
        return CLASS_EXACT
    return CLASS_RACE


# The class that values b under ev (CLASS_EXACT only with a database attached).
cdef inline int ev_class(const evaluator_t* ev, const board_t* b) noexcept nogil:
    cdef int c = board_shape(b)
    if c == CLASS_EXACT and ev.exact_db == NULL:
        return CLASS_RACE
    return c


# Outputs of b from the side on roll: the exact value where the database covers b,
# else its class network's.  b must not be a finished game.
cdef void ev_static(const evaluator_t* ev, const board_t* b, netbuf_t* buf,
                    real_t* out) noexcept nogil


cdef class Evaluator:
    cdef evaluator_t ev
    cdef readonly object contact        # Network of contact positions
    cdef readonly object race           # Network of races (may be the same object)
    cdef readonly object database       # the exact database object, or None
    cdef readonly object race_gammons   # RaceGammonTables refining races' gammons, or None
    cdef public dict metadata
