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
# Outputs are always from the side on roll.  Forms (n_outputs):
#   1: P(win)
#   4: the sources' (win, lose, win gammon, lose gammon)
#   5: gnubg's (win, win gammon, win backgammon, lose gammon, lose backgammon)

from libc.string cimport memcpy

from bgengine._types cimport int32_t, real_t

cdef enum:
    MAX_LAYERS = 4          # weight layers (hidden layers + 1)
    MAX_WIDTH = 1024        # widest layer, inputs included
    MAX_OUTPUTS = 5

ctypedef struct net_t:
    int n_layers            # weight layers
    int sizes[MAX_LAYERS + 1]   # sizes[0] inputs ... sizes[n_layers] outputs
    int offset_W[MAX_LAYERS]    # offsets of W[l] and b[l] in params
    int offset_b[MAX_LAYERS]
    int n_params
    real_t* params          # borrowed from the owning Network's numpy array
    const int32_t* order    # the encoder's summation order of the inputs (dense inputs)

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
cdef void net_forward_dense(const net_t* net, const real_t* x, netbuf_t* buf) noexcept nogil
cdef void net_backward_sparse(const net_t* net, const int32_t* idx, const real_t* val, int nnz,
                              netbuf_t* buf, const real_t* dout, real_t* grad,
                              real_t scale) noexcept nogil
cdef void net_backward_dense(const net_t* net, const real_t* x, netbuf_t* buf,
                             const real_t* dout, real_t* grad) noexcept nogil

# The training target of a finished game won by the side on roll (value > 0)
# or lost (value < 0), value = 1, 2 or 3 points.
cdef void outputs_target(int n_outputs, int value, real_t* out) noexcept nogil


cdef class Network:
    cdef net_t net
    cdef readonly object params     # float32 (n_params,), owns the weights
    cdef readonly tuple sizes
    cdef readonly str encoder
    cdef public dict metadata


# Outputs of the side on roll -> the same probabilities seen by the other side.
cdef inline void outputs_flip(int n_outputs, const real_t* v, real_t* out) noexcept nogil:
    cdef real_t t[MAX_OUTPUTS]
    memcpy(t, v, n_outputs * sizeof(real_t))
    if n_outputs == 1:
        out[0] = 1 - t[0]
    elif n_outputs == 4:
        out[0] = t[1]; out[1] = t[0]; out[2] = t[3]; out[3] = t[2]
    else:
        out[0] = 1 - t[0]; out[1] = t[3]; out[2] = t[4]; out[3] = t[1]; out[4] = t[2]


# Cubeless equity (points per game) of the side on roll.
cdef inline double outputs_equity(int n_outputs, const real_t* v) noexcept nogil:
    if n_outputs == 1:
        return 2.0 * v[0] - 1.0
    if n_outputs == 4:
        return <double>v[0] - v[1] + v[2] - v[3]
    return 2.0 * v[0] - 1.0 + v[1] - v[3] + v[2] - v[4]
