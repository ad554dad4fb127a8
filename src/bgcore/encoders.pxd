# C-level API of the feature encoders.
#
# An encoder maps a position (side on roll in row 1) to float32 network
# inputs.  The hot path uses the sparse form: most inputs are 0, so an
# encoder writes only the nonzero ones as (index, value) pairs, and the
# network's first layer adds just those weight rows, in the order written.
# That order is fixed per encoder (summation_order: ascending, except that the
# expert and contact encoders put the side on roll's features that need its
# checkers alone right after its point units), so a dense input summed in that
# order gives the same bits.  The side on roll's part comes first: sibling afterstates share it.
#
#     cdef int32_t idx[MAX_INPUTS]
#     cdef real_t val[MAX_INPUTS]
#     nnz = encode_sparse(ENC_TESAURO198, &board, idx, val)
#
# idx and val must hold MAX_INPUTS entries: an encoder may write a few past the last pair.

from bgengine.core._types cimport checker_t, int32_t, uint32_t, real_t
from bgengine.core.board cimport board_t

cdef enum:
    ENC_TESAURO198 = 0      # TD-Gammon 0.0: 198 inputs
    ENC_TESAURO212 = 1      # tesauro198 + race and maximal-block units: 212
    ENC_EXPERT = 2          # tesauro198 points + hand-made features: 222
    ENC_CONTACT = 3         # gnubg-style point units + 22 contact features per side: 250
    ENC_RACE = 4            # point units, off thermometer, race features per side: 235
    N_ENCODERS = 5
    MAX_INPUTS = 256        # upper bound on any encoder's size (buffers)
    N_SIDE_UNITS = 98       # tesauro198, extra and expert start with the side on roll's 98
                            # point units (inputs 0..97), then the other side's (98..195)
    N_EXPERT_SIDE = 12      # hand-made features per side of the expert encoder
    N_CONTACT_SIDE = 22     # ... of the contact encoder
    N_CONTACT_OWN = 10      # of which the first 10 need the side's checkers alone
    N_CONTACT_CROSS = 12    # ... and the other 12 the other side's too
    N_CONTACT_TAIL_FEATURES = 34    # a contact tail's features: the head side's 12 cross
                                    # features, then the other side's 22
    N_HEAD_MAX = 128        # pairs an encode_head may write (the largest head + room)
    Q_BREAK = 0             # contact terms of a side that depend on the other side through
    Q_FREE = 1              # its rearmost point q (0..25) alone: pips to break contact,
    Q_TIMING = 2            # free pips, timing
    N_Q_TERMS = 3
    MADE_MEMO_BITS = 3      # enc_head_t.made_memo has 1 << MADE_MEMO_BITS slots
    N_MADE_MEMO = 1 << MADE_MEMO_BITS

ctypedef struct side_summary_t:     # one side's checkers, in its own numbering
    uint32_t occ            # bit t (1..24): point t holds any of its checkers
    uint32_t made           # ... two or more
    uint32_t blot           # ... exactly one
    uint32_t made_seen      # made and blot in the other side's numbering (point t -> 25 - t)
    uint32_t blot_seen
    int pips                # pip count (bar = 25)
    int back                # checkers on points 19..24 and the bar
    int outfield            # checkers on points 7..18
    int stack               # checkers beyond the third on home points (1..6)
    int checkers            # checkers on the board and the bar
    int bar                 # checkers on the bar

# Contact terms that depend on the tail's made points alone (its made_seen), remembered in
# the head by that mask: sibling afterstates often differ only in their blots and stacks
# (per head, 44% of the made masks are new, self-play).  Direct-mapped, N_MADE_MEMO slots.
ctypedef struct made_memo_t:
    uint32_t key                    # the tail's made_seen | 1 (bits 1..24: never 0); 0: none
    int mobility                    # the head side's _mobility past those points
    unsigned char escapes           # escapes of the head side's rearmost checker past them
    unsigned char contain[9]        # the tail's containment minima (_contact_own's contain)

# The part of an encoding that depends on the side on roll's checkers alone: its
# point units, for the expert and contact encoders its features that need nothing
# else (for race, all its features), and its summary.  Sibling afterstates share one (the side to roll next is the
# same in all, unless a play hits), so it is computed once for them.
ctypedef struct enc_head_t:
    int nnz
    int32_t idx[N_HEAD_MAX]
    real_t val[N_HEAD_MAX]
    side_summary_t side
    real_t expert[N_EXPERT_SIDE]    # its expert features (those it alone decides)
    checker_t c[25]                 # contact: its checkers (the tail's features need them)
    unsigned char contain[9]        # contact: min escapes of a checker of the other side on
                                    # the other's points 16..16+j past its points, j = 0..8
    uint32_t q_known                # contact: bit q set when q_terms[q] is filled (by
    int q_terms[26][N_Q_TERMS]      # encode_tail, as the other side's rearmost points come)
    uint32_t esc_known              # contact: bit p set when esc[p] is filled (by encode_tail)
    unsigned char esc[26]           # escapes of the other side's checker on its point p (25:
                                    # the bar) past this side's points
    made_memo_t made_memo[N_MADE_MEMO]  # contact: what the tail's made points alone decide


cdef int encoder_size(int encoder) noexcept nogil
cdef int encode_sparse(int encoder, const board_t* b, int32_t* idx, real_t* val) noexcept nogil
# encode_sparse of b in two parts, from b's rows (so an afterstate is encoded in place,
# without swapping its rows first): the head from the side on roll's checkers (b.c[1]),
# then the rest of the inputs from the other side's (b.c[0]) and that head.  Concatenated,
# the same pairs.  encode_tail may fill the head's caches (q_terms).
cdef void encode_head(int encoder, const checker_t* on_roll, enc_head_t* head) noexcept nogil
cdef int encode_tail(int encoder, const checker_t* other, enc_head_t* head,
                     int32_t* idx, real_t* val) noexcept nogil
# encode_tail, and for the contact encoder its N_CONTACT_TAIL_FEATURES features densely in
# ``feat`` (NULL: not wanted; other encoders leave it alone).  Contact only: with idx and
# val NULL, the features alone (no pairs; returns 0).
cdef int encode_tail_features(int encoder, const checker_t* other, enc_head_t* head,
                              int32_t* idx, real_t* val, real_t* feat) noexcept nogil
# The inputs in which two contact tails of one head differ, as (didx, dval) with dval = the
# value in (c, feat) - the value in (ref_c, ref_feat): c the other side's checkers (25 slots),
# feat encode_tail_features' features.  Returns how many; didx and dval hold
# 4 * 25 + 3 + N_CONTACT_TAIL_FEATURES entries.
cdef int contact_tail_delta(const checker_t* ref_c, const real_t* ref_feat,
                            const checker_t* c, const real_t* feat,
                            int32_t* didx, real_t* dval) noexcept nogil
cdef void encode_dense(int encoder, const board_t* b, real_t* out) noexcept nogil
# The encoder's summation order: its encoder_size input indices in the order encode_sparse
# writes the nonzero ones (a static array).
cdef const int32_t* summation_order(int encoder) noexcept nogil

# Features the expert encoder is built from, exposed for tests and players.
cdef int shots_36(const board_t* b, int roller) noexcept nogil
cdef int escapes_36(const board_t* b, int side) noexcept nogil
cdef int longest_prime(const board_t* b, int side) noexcept nogil
