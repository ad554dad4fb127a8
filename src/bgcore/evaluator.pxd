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

from bgengine.core._types cimport real_t, checker_t, uint32_t
from bgengine.core.board cimport board_t, BAR
from bgengine.core.network cimport net_t, netbuf_t
from bgengine.core.bitops cimport bg_point_masks, bg_msb32, bg_pips

cdef enum:
    CLASS_CONTACT = 0
    CLASS_RACE = 1
    N_NET_CLASSES = 2       # classes valued by a network
    CLASS_EXACT = 2         # valued by the exact database
    # network slots: 0 the contact network (contact expert 0), 1 the race network, 2.. the
    # other contact experts (expert e in slot e + 1)
    MAX_CONTACT_EXPERTS = 8
    N_NET_SLOTS = MAX_CONTACT_EXPERTS + 1
    MAX_EXPERT_CUTS = 7

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
    net_t* net[N_NET_SLOTS]         # borrowed from the owning Evaluator's Networks
    int encoder[N_NET_SLOTS]
    # contact experts (n_experts > 1): contact positions go to expert
    # stage_bin * (n_lead_cuts + 1) + lead_bin, the bins counting the cuts at or below the
    # pips of both sides together (stage) and the other side's pips minus the side on
    # roll's (lead)
    int n_experts
    int n_stage_cuts
    int n_lead_cuts
    int stage_cuts[MAX_EXPERT_CUTS]
    int lead_cuts[MAX_EXPERT_CUTS]
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
    net_t net[N_NET_SLOTS]
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


# The contact expert (0..n_experts-1) of a contact position, given the rows of the side on
# roll and of the other side.
cdef inline int ev_expert(const evaluator_t* ev, const checker_t* on_roll,
                          const checker_t* other) noexcept nogil:
    cdef int i, mine = bg_pips(on_roll), theirs = bg_pips(other), s = 0, l = 0
    for i in range(ev.n_stage_cuts):
        s += mine + theirs >= ev.stage_cuts[i]
    for i in range(ev.n_lead_cuts):
        l += theirs - mine >= ev.lead_cuts[i]
    return s * (ev.n_lead_cuts + 1) + l


# The network slot of a position of class c (contact or race) with those rows.
cdef inline int ev_slot(const evaluator_t* ev, int c, const checker_t* on_roll,
                        const checker_t* other) noexcept nogil:
    cdef int e
    if c != CLASS_CONTACT or ev.n_experts <= 1:
        return c
    e = ev_expert(ev, on_roll, other)
    return 0 if e == 0 else e + 1


# Outputs of b from the side on roll: the exact value where the database covers b,
# else its class network's.  b must not be a finished game.
cdef void ev_static(const evaluator_t* ev, const board_t* b, netbuf_t* buf,
                    real_t* out) noexcept nogil


cdef class Evaluator:
    cdef evaluator_t ev
    cdef readonly object contact        # Network of contact positions
    cdef readonly object race           # Network of races (may be the same object)
    cdef readonly tuple experts         # contact experts 1.. (Networks; () for none)
    cdef readonly tuple stage_cuts      # the contact experts' cuts (ints, see evaluator_t)
    cdef readonly tuple lead_cuts
    cdef readonly object database       # the exact database object, or None
    cdef readonly object race_gammons   # RaceGammonTables refining races' gammons, or None
    cdef public dict metadata
