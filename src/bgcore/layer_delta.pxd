# The first layer of sibling afterstates by difference from a reference sibling.
#
# Sibling afterstates (the plays of one roll) that share the side to roll next share the
# head of their encoding (encoders.pxd) and differ only in their tails, and two tails differ
# in about half their nonzero inputs (contact encoder, measured: 21 of 39 on average).  So
# a reference sibling's first-layer pre-activations are kept, and another sibling's are the
# reference's plus (its value - the reference's value) x the row of each input that differs:
#
#     h(x) = h(ref) + sum over k with x_k != ref_k of (x_k - ref_k) W0[k, :]
#
# in place of h(head) + the rows of all of x's tail.  Exactness: the same sum in another
# order (and x_k - ref_k rounded to float), so the last bits of h differ from the full sum;
# a few float ulps of h, below 1e-5 on the outputs (tests pin it).  The reference itself is
# valued bit for bit as on its own.  Everything is deterministic: a sibling's bits depend
# only on its list of siblings.  Used for first layers at least LAYER_DELTA_MIN_WIDTH wide,
# and for contact networks at least LAYER_DELTA_MIN_WIDTH_PARTS wide, whose tails are
# compared by their parts (layer_ref_set_parts, layer_ref_delta_parts).
# Header-only (inline): cimporting it adds no module.
#
#     cdef layer_ref_t ref                           # per head (a few KB)
#     layer_ref_init(&ref)
#     layer_ref_set(&ref, net, pre_head, idx, val, nnz)
#     nd = layer_ref_delta(&ref, idx2, val2, nnz2, didx, dval)
#     if nd < nnz2: net_forward_sparse_from(net, ref.pre, didx, dval, nd, buf)

from libc.string cimport memcpy, memset

from bgengine.core._types cimport int32_t, real_t, checker_t
from bgengine.core.network cimport net_t, MAX_WIDTH, net_first_layer_add
from bgengine.core.encoders cimport MAX_INPUTS, N_CONTACT_TAIL_FEATURES, contact_tail_delta

cdef enum:
    MAX_DELTA = 2 * MAX_INPUTS      # inputs of a difference: at most both lists (+ slack)
    # Narrower first layers are summed in full: finding the differing inputs one by one
    # costs about what their rows save at 128 hidden units (rollouts, shipped 250-128-5:
    # 2-4% slower by difference), and gains from 256 (rollouts of a 250-256-5: 7% faster).
    LAYER_DELTA_MIN_WIDTH = 256
    # Contact tails are compared by their parts (layer_ref_set_parts): the other side's
    # checkers point by point and the dense features, a few times cheaper than input by
    # input, so that 128-wide first layers gain too.
    LAYER_DELTA_MIN_WIDTH_PARTS = 128

    # A contact sibling by parts is taken from the sibling valued just before it with the
    # same head (whose tail is nearer: 13 differing inputs on average against 20 from the
    # head's reference, round-7 self-play positions), at most LAYER_CHAIN_MAX in a row,
    # then from the reference again: each link adds its own rounding to the sums, so the
    # chain is kept short (the outputs stay within a few 1e-6 of the full sums).
    LAYER_CHAIN_MAX = 8

ctypedef struct layer_ref_t:
    int nnz                         # the reference tail's nonzero inputs (idx, val)
    unsigned int stamp              # seen[i] == stamp: input i is in the tail being compared
    int32_t idx[MAX_INPUTS]
    real_t dense[MAX_INPUTS]        # the reference tail's value of every input (0 elsewhere)
    unsigned int seen[MAX_INPUTS]
    real_t pre[MAX_WIDTH]           # h(ref): first-layer pre-activations of the reference
    checker_t c[32]                 # by parts (contact): the reference's other side (25 slots)
    real_t feat[N_CONTACT_TAIL_FEATURES]    # ... and its features


# The last contact tail valued by difference under one head, and its first-layer sums
# (search.pyx's _forward_by_parts).
ctypedef struct layer_chain_t:
    int depth                       # links since the head's reference (0: none yet)
    checker_t c[32]                 # the last tail's other side (25 slots)
    real_t feat[N_CONTACT_TAIL_FEATURES]    # ... and its features
    real_t pre[MAX_WIDTH]           # ... and its first-layer pre-activations


cdef inline void layer_ref_init(layer_ref_t* ref) noexcept nogil:
    """No reference yet, every input 0 and unseen."""
    memset(ref.dense, 0, sizeof(ref.dense))
    memset(ref.seen, 0, sizeof(ref.seen))
    ref.nnz = 0
    ref.stamp = 0


# Make the tail (idx, val, nnz) over the head's first-layer sum ``pre_head`` the reference.
cdef inline void layer_ref_set(layer_ref_t* ref, const net_t* net, const real_t* pre_head,
                               const int32_t* idx, const real_t* val, int nnz) noexcept nogil:
    cdef int k
    for k in range(ref.nnz):                # clear the previous reference's values
        ref.dense[ref.idx[k]] = 0
    for k in range(nnz):
        ref.dense[idx[k]] = val[k]
    memcpy(ref.idx, idx, nnz * sizeof(int32_t))
    ref.nnz = nnz
    net_first_layer_add(net, pre_head, idx, val, nnz, ref.pre)


# The inputs in which the tail (idx, val, nnz) differs from the reference, as (didx, dval):
# first x's inputs in x's order (value x_k - ref_k), then the reference's that x lacks
# (value -ref_k); returns how many.  didx and dval hold MAX_DELTA entries.  Branch-free
# (every pair is written, and kept when it counts): which inputs differ is unpredictable.
cdef inline int layer_ref_delta(layer_ref_t* ref, const int32_t* idx, const real_t* val,
                                int nnz, int32_t* didx, real_t* dval) noexcept nogil:
    cdef int k, j, nd = 0
    cdef real_t d
    cdef unsigned int stamp
    ref.stamp += 1
    if ref.stamp == 0:                      # wrapped around: forget every old stamp
        for k in range(MAX_INPUTS):
            ref.seen[k] = 0
        ref.stamp = 1
    stamp = ref.stamp
    for k in range(nnz):
        j = idx[k]
        d = val[k] - ref.dense[j]
        ref.seen[j] = stamp
        didx[nd] = j
        dval[nd] = d
        nd += d != 0
    for k in range(ref.nnz):
        j = ref.idx[k]
        didx[nd] = j
        dval[nd] = -ref.dense[j]
        nd += ref.seen[j] != stamp
    return nd


# By parts, for contact tails (encoders.pxd, contact_tail_delta): make the tail (idx, val,
# nnz) over ``pre_head``, whose other side's checkers are ``c`` and features ``feat``, the
# reference.
cdef inline void layer_ref_set_parts(layer_ref_t* ref, const net_t* net, const real_t* pre_head,
                                     const int32_t* idx, const real_t* val, int nnz,
                                     const checker_t* c, const real_t* feat) noexcept nogil:
    memcpy(ref.c, c, 25 * sizeof(checker_t))
    memcpy(ref.feat, feat, N_CONTACT_TAIL_FEATURES * sizeof(real_t))
    net_first_layer_add(net, pre_head, idx, val, nnz, ref.pre)


# ... and the inputs in which the tail of (c, feat) differs from it, as layer_ref_delta's.
cdef inline int layer_ref_delta_parts(const layer_ref_t* ref, const checker_t* c,
                                      const real_t* feat, int32_t* didx,
                                      real_t* dval) noexcept nogil:
    return contact_tail_delta(ref.c, ref.feat, c, feat, didx, dval)
