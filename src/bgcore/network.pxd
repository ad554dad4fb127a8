# C-level API of the fully connected sigmoid networks.
#
# All parameters live in one flat float32 array (so that optimisers,
# eligibility traces and checkpoints treat them as one vector):
#
#     [W0 (sizes[0] x sizes[1]), b0 (sizes[1]), W1 (sizes[1] x sizes[2]), b1, ...]
#
# W[l] is row-major (inputs x outputs): input unit i owns the contiguous row
# W[l][i, :], so a sparse first layer adds one row per nonzero input.
#
# Outputs are always from the side on roll, in one of the forms of outputs.pxd (which
# also holds what is done with them: flip, equity, target, from five).

from bgengine.core._types cimport int32_t, real_t

cdef enum:
    MAX_LAYERS = 4          # weight layers (hidden layers + 1)
    MAX_WIDTH = 1024        # widest layer, inputs included

ctypedef struct net_t:
    int n_layers            # weight layers
    int sizes[MAX_LAYERS + 1]   # sizes[0] inputs ... sizes[n_layers] outputs
    int offset_W[MAX_LAYERS]    # offsets of W[l] and b[l] in params
    int offset_b[MAX_LAYERS]
    int n_params
    real_t* params          # borrowed from the owning Network's numpy array
    const int32_t* order    # the encoder's summation order of the inputs (dense inputs)
    const real_t* out_t     # NULL, or a copy of the output layer's weights transposed
                            # (K x H; net_freeze), which forward passes may read instead

ctypedef struct netbuf_t:   # per-thread workspace: activations and deltas
    real_t act[MAX_LAYERS + 1][MAX_WIDTH]   # act[0] unused for sparse input
    real_t delta[MAX_LAYERS + 1][MAX_WIDTH]

cdef real_t sigmoid(real_t x) noexcept nogil
cdef void net_forward_sparse(const net_t* net, const int32_t* idx, const real_t* val, int nnz,
                             netbuf_t* buf) noexcept nogil
# The first layer in two parts, for siblings that share inputs: pre = b0 + the rows of the
# first nnz inputs; then forward from pre adding the rest.  Rows are added in the order
# given, so splitting an encoder's list (encode_head, then encode_tail) gives the same bits.
cdef void net_first_layer_partial(const net_t* net, const int32_t* idx, const real_t* val,
                                  int nnz, real_t* pre) noexcept nogil
# h = h_in + the rows of the nnz inputs, in the order given (h may be h_in).
cdef void net_first_layer_add(const net_t* net, const real_t* h_in, const int32_t* idx,
                              const real_t* val, int nnz, real_t* h) noexcept nogil
cdef void net_forward_sparse_from(const net_t* net, const real_t* pre, const int32_t* idx,
                                  const real_t* val, int nnz, netbuf_t* buf) noexcept nogil
# ... and the first layer's pre-activations pre + rows left in ``sums`` too (H floats; may be
# pre itself): a later pass may go by difference from them.
cdef void net_forward_sparse_keep(const net_t* net, const real_t* pre, const int32_t* idx,
                                  const real_t* val, int nnz, real_t* sums,
                                  netbuf_t* buf) noexcept nogil
cdef void net_forward_dense(const net_t* net, const real_t* x, netbuf_t* buf) noexcept nogil
# A copy of ``src`` for forward passes while its weights do not change (a rollout, a batch
# of evaluations): ``dst`` = ``src`` with out_t = the output layer transposed into ``buf``
# (net_frozen_size(src) floats, room to align them included; none when no kernel reads it:
# out_t stays as it was).  The
# same outputs, bit for bit; faster where the AVX2 output kernel reads it.  The weights
# must not change while dst is in use: out_t would go stale.
cdef int net_frozen_size(const net_t* src) noexcept nogil
cdef void net_freeze(const net_t* src, net_t* dst, real_t* buf) noexcept nogil
cdef void net_backward_sparse(const net_t* net, const int32_t* idx, const real_t* val, int nnz,
                              netbuf_t* buf, const real_t* dout, real_t* grad,
                              real_t scale) noexcept nogil
cdef void net_backward_dense(const net_t* net, const real_t* x, netbuf_t* buf,
                             const real_t* dout, real_t* grad) noexcept nogil

cdef class Network:
    cdef net_t net
    cdef readonly object params     # float32 (n_params,), owns the weights
    cdef readonly tuple sizes
    cdef readonly str encoder
    cdef public dict metadata
