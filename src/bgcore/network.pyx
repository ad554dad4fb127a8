"""Fully connected sigmoid networks: batched forward and backward, float32.

The C functions (``network.pxd``) run without the GIL on one input at a
time, the first layer either sparse (the encoders' (index, value) pairs) or
dense; :class:`Network` owns the parameters and adds batched numpy entry
points, position evaluation, and ``.npz`` save/load.

The sigmoid is computed from a polynomial of ``exp`` (``nnkernels.h``; within
1.2e-7 of the exact sigmoid), one IEEE operation a step, so it is the same on
every platform and in every SIMD lane.  The inner loops are SIMD kernels (``nnkernels.h``:
AVX2 with FMA, AVX-512 or portable C, the first of ``KERNELS`` this CPU runs,
see :func:`kernel`) that all compute the same bits, in one fixed summation
order with fused multiply-adds; the first layer sums its rows in the encoder's
order (``bgengine.core.encoders.input_order``).
"""

import json
from pathlib import Path

import numpy as np

from bgengine.core.fileio import NotARegularFile, open_regular
cimport numpy as cnp
from libc.stdint cimport uintptr_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset

from bgengine.core._types cimport int32_t, real_t
from bgengine.core.board cimport board_t, board_swap, board_side_empty, board_win_value, OPPONENT
from bgengine.core.outputs cimport outputs_target, MAX_OUTPUTS
from bgengine.core.checks cimport checked_int, checked_real
from bgengine.core.memory cimport zeroed_or_raise
from bgengine.core.encoders cimport encode_sparse, summation_order, MAX_INPUTS
from bgengine.core.network cimport net_t, netbuf_t, MAX_LAYERS, MAX_WIDTH

from bgengine.core.board import validate_boards
from bgengine.core.fileio import atomic_write
from bgengine.core.encoders import ENCODERS, encoder_id, n_inputs as encoder_inputs

cnp.import_array()

FORMAT_VERSION = 1
OUTPUT_FORMS = {
    1: ("win",),
    4: ("win", "lose", "win_gammon", "lose_gammon"),
    5: ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"),
}

# ---------------------------------------------------------------- kernels

cdef extern from "nnkernels.h" nogil:
    ctypedef void (*bg_add_rows_fn)(const real_t* W, int H, const int32_t* idx, const real_t* val,
                                    int nnz, const real_t* h_in, real_t* h) noexcept nogil
    ctypedef void (*bg_forward1_fn)(const real_t* W0, int H, const real_t* pre, const int32_t* idx,
                                    const real_t* val, int nnz, const real_t* W1,
                                    const real_t* W1t, const real_t* b1, int K, real_t* act1,
                                    real_t* act2, real_t* sums) noexcept nogil
    ctypedef void (*bg_hidden_fn)(const real_t* W0, int H, const int32_t* idx, const real_t* val,
                                  int nnz, const real_t* pre, real_t* act1) noexcept nogil
    ctypedef void (*bg_dense_fn)(const real_t* a, int n_in, const real_t* W, const real_t* b,
                                 int n_out, real_t* out) noexcept nogil
    ctypedef struct bg_kernels_t:
        const char* name
        bg_add_rows_fn add_rows
        bg_forward1_fn forward1
        bg_hidden_fn hidden
        bg_dense_fn dense
        bg_dense_fn output
    bg_kernels_t bg_kernels
    real_t bg_sigmoid(real_t x)
    int bg_kernels_available(const char* name)
    int bg_kernels_select(const char* name)

bg_kernels_select(NULL)

#: SIMD kernels of the forward pass, in order of preference (measured fastest first on an
#: AMD EPYC Zen 5, see bench/test_bench_kernels.py); all give bit-identical results.
KERNELS = ("avx512", "avx2", "c")


def available_kernels() -> tuple:
    """The forward-pass kernels this CPU runs (see ``KERNELS``)."""
    return tuple(k for k in KERNELS if bg_kernels_available(k.encode()))


def kernel() -> str:
    """The forward-pass kernel in use (the first of ``KERNELS`` available unless
    :func:`use_kernel` chose)."""
    return bg_kernels.name.decode()


def use_kernel(name=None) -> str:
    """Use forward-pass kernel ``name`` (None: the preferred one available), process-wide; returns
    the previous one.  Results do not change, only speed: for tests and benchmarks.  Not to be
    called while other threads evaluate."""
    previous = kernel()
    if name is not None and name not in KERNELS:
        raise ValueError(f"unknown kernel {name!r}; known: {', '.join(KERNELS)}")
    if name is not None and name not in available_kernels():
        raise ValueError(f"kernel {name!r} does not run on this CPU; available: "
                         f"{', '.join(available_kernels())}")
    if name is None:
        bg_kernels_select(NULL)
    else:
        bg_kernels_select(name.encode())
    return previous


cdef inline real_t sigmoid(real_t x) noexcept nogil:
    return bg_sigmoid(x)


# Outputs seen by the other side: a permutation, plus 1 - p for the win output of the
# 1- and 5-output forms (the 4-output form lists both sides' wins).
OUTPUT_FLIP_ORDER = {1: (0,), 4: (1, 0, 3, 2), 5: (0, 3, 4, 1, 2)}


def flip_outputs(v) -> np.ndarray:
    """The same probabilities seen by the other side: ``(..., K)`` -> float64 ``(..., K)``."""
    t = np.asarray(v, dtype=np.float64)
    K = t.shape[t.ndim - 1]      # (wraparound is off in the core: no negative indices)
    if K not in OUTPUT_FLIP_ORDER:
        raise ValueError(f"outputs must have 1, 4 or 5 values, got {K}")
    out = t[..., list(OUTPUT_FLIP_ORDER[K])]
    if K != 4:
        out[..., 0] = 1.0 - out[..., 0]
    return out


def equity_of(v):
    """Cubeless equity (points per game) of outputs ``(..., K)`` for the side they
    belong to: a float for one set of outputs, else an array of shape ``(...)``."""
    t = np.asarray(v, dtype=np.float64)
    K = t.shape[t.ndim - 1]      # (wraparound is off in the core: no negative indices)
    if K == 1:
        e = 2 * t[..., 0] - 1
    elif K == 4:
        e = t[..., 0] - t[..., 1] + t[..., 2] - t[..., 3]
    elif K == 5:
        e = 2 * t[..., 0] - 1 + t[..., 1] - t[..., 3] + t[..., 2] - t[..., 4]
    else:
        raise ValueError(f"outputs must have 1, 4 or 5 values, got {K}")
    return float(e) if t.ndim == 1 else e


def sigmoid_table(x) -> np.ndarray:
    """The network's sigmoid applied to an array (float32), for tests."""
    arr = np.ascontiguousarray(x, dtype=np.float32)
    out = np.empty_like(arr)
    cdef real_t[::1] a = arr.reshape(-1), o = out.reshape(-1)
    cdef Py_ssize_t i
    for i in range(a.shape[0]):
        o[i] = sigmoid(a[i])
    return out


# ---------------------------------------------------------------- forward

cdef inline void _upper_layers(const net_t* net, netbuf_t* buf) noexcept nogil:
    """Layers 1.. from the first hidden layer's activations in buf.act[1]."""
    cdef int l
    for l in range(1, net.n_layers):
        (bg_kernels.output if net.sizes[l + 1] <= 8 else bg_kernels.dense)(
            buf.act[l], net.sizes[l], net.params + net.offset_W[l],
            net.params + net.offset_b[l], net.sizes[l + 1], buf.act[l + 1])


cdef void net_first_layer_partial(const net_t* net, const int32_t* idx, const real_t* val,
                                  int nnz, real_t* pre) noexcept nogil:
    net_first_layer_add(net, net.params + net.offset_b[0], idx, val, nnz, pre)


cdef void net_first_layer_add(const net_t* net, const real_t* h_in, const int32_t* idx,
                              const real_t* val, int nnz, real_t* h) noexcept nogil:
    bg_kernels.add_rows(net.params + net.offset_W[0], net.sizes[1], idx, val, nnz, h_in, h)


cdef void net_forward_sparse_from(const net_t* net, const real_t* pre, const int32_t* idx,
                                  const real_t* val, int nnz, netbuf_t* buf) noexcept nogil:
    net_forward_sparse_keep(net, pre, idx, val, nnz, NULL, buf)


cdef void net_forward_sparse_keep(const net_t* net, const real_t* pre, const int32_t* idx,
                                  const real_t* val, int nnz, real_t* sums,
                                  netbuf_t* buf) noexcept nogil:
    cdef int H = net.sizes[1]
    if net.n_layers == 2 and net.sizes[2] <= 8:     # the usual shape: one fused kernel
        bg_kernels.forward1(net.params + net.offset_W[0], H, pre, idx, val, nnz,
                            net.params + net.offset_W[1], net.out_t, net.params + net.offset_b[1],
                            net.sizes[2], buf.act[1], buf.act[2], sums)
        return
    if sums != NULL:
        net_first_layer_add(net, pre, idx, val, nnz, sums)
        bg_kernels.hidden(net.params + net.offset_W[0], H, idx, val, 0, sums, buf.act[1])
    else:
        bg_kernels.hidden(net.params + net.offset_W[0], H, idx, val, nnz, pre, buf.act[1])
    _upper_layers(net, buf)


cdef enum:
    # Byte boundary of a network's weights (and of a frozen copy's output layer): a 32-byte
    # load of a row then never straddles two cache lines.  Rollouts measured 5-10% slower
    # with the weights 16 bytes off such a boundary, where numpy's allocation put them in
    # some processes and not others.
    WEIGHTS_ALIGNMENT = 64


cdef int net_frozen_size(const net_t* src) noexcept nogil:
    # only the fused kernel of one hidden layer and at most 8 outputs reads out_t; room to
    # align it as the weights are
    if src.n_layers == 2 and src.sizes[2] <= 8 and src.sizes[1] % 8 == 0:
        return src.sizes[1] * src.sizes[2] + WEIGHTS_ALIGNMENT // sizeof(real_t)
    return 0


cdef void net_freeze(const net_t* src, net_t* dst, real_t* buf) noexcept nogil:
    cdef int H = src.sizes[1], K, i, j
    cdef const real_t* W1
    cdef real_t* out_t = <real_t*> ((<uintptr_t> buf + WEIGHTS_ALIGNMENT - 1)
                                    & ~<uintptr_t> (WEIGHTS_ALIGNMENT - 1))
    memcpy(dst, src, sizeof(net_t))
    if net_frozen_size(src) == 0:
        return
    K = src.sizes[2]
    W1 = src.params + src.offset_W[1]
    for i in range(H):
        for j in range(K):
            out_t[j * H + i] = W1[i * K + j]
    dst.out_t = out_t


cdef void net_forward_sparse(const net_t* net, const int32_t* idx, const real_t* val, int nnz,
                             netbuf_t* buf) noexcept nogil:
    """Outputs land in buf.act[net.n_layers]; hidden activations stay in buf."""
    net_forward_sparse_from(net, net.params + net.offset_b[0], idx, val, nnz, buf)


cdef inline int _nonzero_inputs(const net_t* net, const real_t* x, int32_t* idx,
                                real_t* val) noexcept nogil:
    """The nonzero inputs of x as (idx, val), in the encoder's summation order; how many."""
    cdef int i, j, nnz = 0
    for j in range(net.sizes[0]):
        i = net.order[j]
        if x[i] != 0:
            idx[nnz] = i
            val[nnz] = x[i]
            nnz += 1
    return nnz


cdef void net_forward_dense(const net_t* net, const real_t* x, netbuf_t* buf) noexcept nogil:
    """The sparse pass over the nonzero inputs of x, in the encoder's summation order: the
    same result bit for bit as from the encoder's sparse pairs."""
    cdef int32_t idx[MAX_WIDTH]
    cdef real_t val[MAX_WIDTH]
    net_forward_sparse(net, idx, val, _nonzero_inputs(net, x, idx, val), buf)


def _forward_keeping_sums(Network network, x) -> tuple:
    """(outputs (N, K), first-layer pre-activations (N, H)) of inputs ``x`` (N, n_inputs),
    by net_forward_sparse_keep from the first layer's bias with the sums written over it
    (in place, as a chain of siblings does), for tests."""
    arr = network._inputs(x)
    cdef const net_t* net = &network.net
    cdef Py_ssize_t n = arr.shape[0], r
    cdef int H = net.sizes[1], K = net.sizes[net.n_layers]
    out = np.empty((n, K), dtype=np.float32)
    sums = np.empty((n, H), dtype=np.float32)
    cdef const real_t[:, ::1] xv = arr
    cdef real_t[:, ::1] ov = out
    cdef real_t[:, ::1] sv = sums
    cdef int32_t idx[MAX_WIDTH]
    cdef real_t val[MAX_WIDTH]
    cdef netbuf_t* buf = _new_buf()
    try:
        with nogil:
            for r in range(n):
                memcpy(&sv[r, 0], net.params + net.offset_b[0], H * sizeof(real_t))
                net_forward_sparse_keep(net, &sv[r, 0], idx, val,
                                        _nonzero_inputs(net, &xv[r, 0], idx, val), &sv[r, 0], buf)
                memcpy(&ov[r, 0], buf.act[net.n_layers], K * sizeof(real_t))
    finally:
        free(buf)
    return out, sums


# ---------------------------------------------------------------- backward

cdef inline void _backward_upper(const net_t* net, netbuf_t* buf, const real_t* dout,
                                 real_t* grad, real_t scale) noexcept nogil:
    """Deltas down to layer 1 (pre-activation of the first hidden layer) and
    gradients of every layer above the first, added (times ``scale``) to grad."""
    cdef int L = net.n_layers, l, i, j, n_in, n_out
    cdef real_t y, a, s, d
    cdef const real_t* W
    cdef const real_t* row
    cdef real_t* g
    cdef real_t* gb
    for j in range(net.sizes[L]):
        y = buf.act[L][j]
        buf.delta[L][j] = dout[j] * y * (1 - y)
    for l in range(L - 1, 0, -1):
        n_in = net.sizes[l]
        n_out = net.sizes[l + 1]
        W = net.params + net.offset_W[l]
        g = grad + net.offset_W[l]
        gb = grad + net.offset_b[l]
        for j in range(n_out):
            gb[j] += scale * buf.delta[l + 1][j]
        for i in range(n_in):
            a = buf.act[l][i]
            row = W + i * n_out
            s = 0
            for j in range(n_out):
                d = buf.delta[l + 1][j]
                s += row[j] * d                 # read W before writing: grad may alias params
                g[i * n_out + j] += scale * a * d
            buf.delta[l][i] = s * a * (1 - a)


cdef void net_backward_sparse(const net_t* net, const int32_t* idx, const real_t* val, int nnz,
                              netbuf_t* buf, const real_t* dout, real_t* grad,
                              real_t scale) noexcept nogil:
    """Add ``scale`` times the gradient of sum_k dout[k] * y_k to ``grad``
    (flat, shaped like params).  buf must hold the forward pass of the same
    input.  Only the first-layer rows of nonzero inputs are touched."""
    cdef int H = net.sizes[1], k, j
    cdef real_t* g
    cdef real_t* gb = grad + net.offset_b[0]
    cdef real_t v
    _backward_upper(net, buf, dout, grad, scale)
    for j in range(H):
        gb[j] += scale * buf.delta[1][j]
    for k in range(nnz):
        g = grad + net.offset_W[0] + idx[k] * H
        v = scale * val[k]
        for j in range(H):
            g[j] += v * buf.delta[1][j]


cdef void net_backward_dense(const net_t* net, const real_t* x, netbuf_t* buf,
                             const real_t* dout, real_t* grad) noexcept nogil:
    cdef int H = net.sizes[1], i, j
    cdef real_t* g
    cdef real_t* gb = grad + net.offset_b[0]
    _backward_upper(net, buf, dout, grad, 1)
    for j in range(H):
        gb[j] += buf.delta[1][j]
    for i in range(net.sizes[0]):
        if x[i] != 0:
            g = grad + net.offset_W[0] + i * H
            for j in range(H):
                g[j] += x[i] * buf.delta[1][j]


# ---------------------------------------------------------------- Python class

#: The widest range of initial weights (a finite number in [0, MAX_INIT_RANGE]), as the
#: training config's ``init_range``: wider gives weights far past the sigmoid's range.
cdef double MAX_INIT_RANGE = 10.0


def _aligned(params):
    """``params`` (float32, 1-D) copied to start on a WEIGHTS_ALIGNMENT-byte boundary."""
    room = np.empty(params.shape[0] + WEIGHTS_ALIGNMENT // 4, dtype=np.float32)
    start = (-room.ctypes.data % WEIGHTS_ALIGNMENT) // 4
    out = room[start:start + params.shape[0]]
    out[:] = params
    return out


cdef class Network:
    """A fully connected sigmoid network over one of the encoders' inputs.

    Parameters
    ----------
    hidden : sequence of int
        Widths of the hidden layers, e.g. ``(80,)``: 1 to 3 layers, each 1..1024 wide
        (Python or numpy integers; a bool, a float or a string is refused).
    n_outputs : {1, 4, 5}
        Output form (see ``OUTPUT_FORMS``): win only, the sources' four, or gnubg's five.
    encoder : str
        Input encoder name; fixes the number of inputs.
    seed : int
        Initial weights are uniform in ``[-init_range, init_range]`` from this seed.
    init_range : float
        A finite number in [0, 10] (the training config's bound).
    """

    def __init__(self, hidden=(80,), n_outputs=5, str encoder="tesauro198", seed=0,
                 init_range=0.1, params=None, metadata=None):
        if isinstance(hidden, (str, bytes)) or not hasattr(hidden, "__iter__"):
            raise ValueError(f"hidden must be a sequence of layer widths, got {hidden!r}")
        hidden = tuple(checked_int(h, "hidden widths", 1, MAX_WIDTH, f"1..{MAX_WIDTH}",
                                   "whole numbers") for h in hidden)
        if not hidden or len(hidden) > MAX_LAYERS - 1:
            raise ValueError(f"need 1 to {MAX_LAYERS - 1} hidden layers, got {len(hidden)}")
        n_outputs = checked_int(n_outputs, "n_outputs", 1, MAX_OUTPUTS, "{1, 4, 5}",
                                "an integer: 1, 4 or 5")
        if n_outputs not in OUTPUT_FORMS:
            raise ValueError(f"n_outputs must be 1, 4 or 5, got {n_outputs}")
        init_range = checked_real(init_range, "init_range", 0.0, MAX_INIT_RANGE, "[0, 10]")
        n_in = encoder_inputs(encoder)
        self.encoder = encoder
        self.sizes = (n_in,) + hidden + (n_outputs,)
        cdef int l, off = 0
        self.net.n_layers = len(self.sizes) - 1
        for l in range(self.net.n_layers + 1):
            self.net.sizes[l] = self.sizes[l]
        for l in range(self.net.n_layers):
            self.net.offset_W[l] = off
            off += self.sizes[l] * self.sizes[l + 1]
            self.net.offset_b[l] = off
            off += self.sizes[l + 1]
        self.net.n_params = off
        if params is None:
            rng = np.random.default_rng(seed)
            params = rng.uniform(-init_range, init_range, off).astype(np.float32)
        else:
            params = np.array(params, dtype=np.float32, copy=True).reshape(-1)
            if params.shape[0] != off:
                raise ValueError(f"params has {params.shape[0]} values; sizes {self.sizes} need {off}")
            if not np.all(np.isfinite(params)):
                raise ValueError("params contain NaN or infinite values")
        self.params = _aligned(params)
        self.net.params = <real_t*> cnp.PyArray_DATA(self.params)
        self.net.order = summation_order(encoder_id(encoder))
        self.metadata = dict(metadata or {})

    # ------------------------------------------------------------ shape
    @property
    def n_inputs(self) -> int:
        return self.sizes[0]

    @property
    def n_outputs(self) -> int:
        return self.sizes[len(self.sizes) - 1]

    @property
    def hidden(self) -> tuple:
        return self.sizes[1:len(self.sizes) - 1]

    @property
    def output_names(self) -> tuple:
        return OUTPUT_FORMS[self.sizes[len(self.sizes) - 1]]

    def weights(self, layer) -> tuple:
        """Views ``(W, b)`` of weight layer ``layer`` (an integer; ``IndexError`` out of
        0..n_layers-1): W (in, out), b (out,)."""
        layer = checked_int(layer, "layer", float("-inf"), float("inf"), "", "an integer")
        if not 0 <= layer < self.net.n_layers:
            raise IndexError(f"layer {layer} out of range 0..{self.net.n_layers - 1}")
        n_in, n_out = self.sizes[layer], self.sizes[layer + 1]
        W = self.params[self.net.offset_W[layer]:self.net.offset_b[layer]].reshape(n_in, n_out)
        b = self.params[self.net.offset_b[layer]:self.net.offset_b[layer] + n_out]
        return W, b

    def copy(self) -> "Network":
        return Network(self.hidden, self.n_outputs, self.encoder, params=self.params,
                       metadata=json.loads(json.dumps(self.metadata)))

    def __reduce__(self):
        # pickling (multiprocessing, Ray): the weights and metadata, rebuilt by the constructor
        return (_rebuild_network, (self.hidden, self.n_outputs, self.encoder,
                                   np.array(self.params, copy=True), json.dumps(self.metadata)))

    def __repr__(self) -> str:
        return f"Network({'-'.join(map(str, self.sizes))}, encoder={self.encoder!r})"

    # ------------------------------------------------------------ numpy entry points
    def _inputs(self, x):
        arr = np.ascontiguousarray(x, dtype=np.float32)
        if arr.ndim != 2 or arr.shape[1] != self.sizes[0]:
            raise ValueError(f"inputs must have shape (N, {self.sizes[0]}), got {arr.shape}")
        return arr

    def forward(self, x) -> np.ndarray:
        """Outputs for inputs ``x`` (N, n_inputs) float32 -> (N, n_outputs)."""
        arr = self._inputs(x)
        cdef Py_ssize_t n = arr.shape[0], i
        cdef int K = self.sizes[len(self.sizes) - 1], L = self.net.n_layers
        out = np.empty((n, K), dtype=np.float32)
        cdef const real_t[:, ::1] xv = arr
        cdef real_t[:, ::1] ov = out
        cdef netbuf_t* buf = _new_buf()
        try:
            with nogil:
                for i in range(n):
                    net_forward_dense(&self.net, &xv[i, 0], buf)
                    memcpy(&ov[i, 0], buf.act[L], K * sizeof(real_t))
        finally:
            free(buf)
        return out

    def backward(self, x, dout) -> np.ndarray:
        """Gradient with respect to params of ``sum(dout * forward(x))``.

        x : (N, n_inputs); dout : (N, n_outputs).  Returns float32 (n_params,).
        """
        arr = self._inputs(x)
        darr = np.ascontiguousarray(dout, dtype=np.float32)
        if darr.shape != (arr.shape[0], self.sizes[len(self.sizes) - 1]):
            raise ValueError(f"dout must have shape {(arr.shape[0], self.sizes[len(self.sizes) - 1])}, got {darr.shape}")
        grad = np.zeros(self.net.n_params, dtype=np.float32)
        cdef Py_ssize_t n = arr.shape[0], i
        cdef const real_t[:, ::1] xv = arr
        cdef const real_t[:, ::1] dv = darr
        cdef real_t[::1] gv = grad
        cdef netbuf_t* buf = _new_buf()
        try:
            with nogil:
                for i in range(n):
                    net_forward_dense(&self.net, &xv[i, 0], buf)
                    net_backward_dense(&self.net, &xv[i, 0], buf, &dv[i, 0], &gv[0])
        finally:
            free(buf)
        return grad

    def evaluate(self, boards) -> np.ndarray:
        """Outputs (float32, (N, K) or (K,)) of positions (N, 2, 25) or (2, 25), from the
        side on roll.  A game the opponent has won (its checkers all borne off) has its
        exact outputs (a loss of 1, 2 or 3 points); a position where the side on roll has
        no checker left cannot arise and is refused."""
        arr = np.asarray(boards)
        single = arr.ndim == 2
        cdef cnp.ndarray barr = validate_boards(arr[None] if single else arr)
        if barr.shape[0] and np.any(barr.reshape(-1, 50)[:, 25:].sum(axis=1) == 0):
            raise ValueError("a finished game (the side on roll has borne off every checker) "
                             "has no evaluation")
        cdef Py_ssize_t n = barr.shape[0], i
        cdef int K = self.sizes[len(self.sizes) - 1], L = self.net.n_layers, enc = encoder_id(self.encoder), nnz
        out = np.empty((n, K), dtype=np.float32)
        cdef real_t[:, ::1] ov = out
        cdef const board_t* bp = <const board_t*> cnp.PyArray_DATA(barr)
        cdef int32_t idx[MAX_INPUTS]
        cdef real_t val[MAX_INPUTS]
        cdef net_t frozen           # a copy for the call: the weights stay put during it
        cdef real_t* out_t = NULL
        cdef netbuf_t* buf = NULL
        try:
            out_t = <real_t*> zeroed_or_raise(net_frozen_size(&self.net) + 1, sizeof(real_t))
            buf = _new_buf()
            net_freeze(&self.net, &frozen, out_t)
            with nogil:
                for i in range(n):
                    if board_side_empty(&bp[i], OPPONENT):
                        outputs_target(K, -board_win_value(&bp[i], OPPONENT), &ov[i, 0])
                        continue
                    nnz = encode_sparse(enc, &bp[i], idx, val)
                    net_forward_sparse(&frozen, idx, val, nnz, buf)
                    memcpy(&ov[i, 0], buf.act[L], K * sizeof(real_t))
        finally:
            free(out_t)
            free(buf)
        return out[0] if single else out

    def equity(self, boards) -> np.ndarray:
        """Cubeless equity (ppg) of the side on roll for each position."""
        return equity_of(self.evaluate(boards))

    # ------------------------------------------------------------ files
    def save(self, path) -> None:
        """Write ``path`` (.npz: params + JSON metadata), atomically."""
        text = json.dumps(network_meta(self), sort_keys=True)
        atomic_write(Path(path), lambda f: np.savez(f, params=self.params, metadata=np.array(text)))

    @classmethod
    def load(cls, path) -> "Network":
        """Read a network written by :meth:`save`; ``ValueError`` if the file
        is not one, is corrupt, or its shapes disagree with its metadata."""
        arrays, meta = read_archive(path)
        if meta.get("format") == "bgengine-evaluator":
            raise ValueError(f"{path}: holds an evaluator (a network per position class), not "
                             f"one network; load it with bgengine.core.evaluator.load_evaluator")
        if "params" not in arrays:
            raise ValueError(f"{path}: not a bgengine network file (missing 'params')")
        return network_from_parts(meta, arrays["params"], path)


#: Largest archive member read (uncompressed bytes): a network of the widest layers
#: allowed is far smaller, and a zip bomb is refused before it is inflated.
MAX_MEMBER_BYTES = 64 << 20


def read_archive(path, required=()) -> tuple:
    """The arrays and the JSON metadata of a bgengine ``.npz`` file.

    Returns ``(arrays, meta)``: a dict of the members named in ``required`` plus
    every other member, and the parsed ``metadata`` object.  ``ValueError`` (naming
    ``path``) if the file is missing, not a zip, corrupt, larger than
    ``MAX_MEMBER_BYTES`` per member once inflated, or lacks a member.
    """
    import zipfile
    path = Path(path)
    try:
        # our own handle, so that it is closed whatever np.load makes of the bytes
        with open_regular(path, "network file") as f:
            if f.read(4) != b"PK\x03\x04":
                raise ValueError("not an .npz (zip) file")
            f.seek(0)
            with zipfile.ZipFile(f) as zf:
                for info in zf.infolist():
                    if info.file_size > MAX_MEMBER_BYTES:
                        raise ValueError(f"member {info.filename!r} inflates to "
                                         f"{info.file_size} bytes (limit {MAX_MEMBER_BYTES})")
            f.seek(0)
            with np.load(f, allow_pickle=False) as z:
                missing = [k for k in ("metadata",) + tuple(required) if k not in z.files]
                if missing:
                    raise ValueError(f"missing {', '.join(repr(k) for k in missing)}")
                arrays = {k: z[k] for k in z.files if k != "metadata"}
                meta = json.loads(str(z["metadata"]))
    except FileNotFoundError:
        raise ValueError(f"{path}: no such network file") from None
    except NotARegularFile:
        raise
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the network file "
                         f"({exc.strerror or type(exc).__name__})") from None
    except ValueError as exc:
        raise ValueError(f"{path}: not a bgengine network file ({exc})") from None
    except Exception as exc:
        raise ValueError(f"{path}: not a bgengine network file ({type(exc).__name__}: {exc})") from None
    if not isinstance(meta, dict):
        raise ValueError(f"{path}: not a bgengine network file (metadata is not a JSON object)")
    if meta.get("format") not in ("bgengine-network", "bgengine-evaluator"):
        raise ValueError(f"{path}: not a bgengine network file (format {meta.get('format')!r})")
    if not isinstance(meta.get("format_version", 0), int):
        raise ValueError(f"{path}: format_version must be an integer, got "
                         f"{meta.get('format_version')!r}")
    if meta.get("format_version", 0) > FORMAT_VERSION:
        raise ValueError(f"{path}: format version {meta['format_version']} is newer than "
                         f"this bgengine reads ({FORMAT_VERSION}); upgrade bgengine")
    return arrays, meta


def network_meta(Network net) -> dict:
    """The metadata :meth:`Network.save` writes (the file's own fields win over the
    network's user metadata of the same name)."""
    from bgengine import __version__
    return {
        **net.metadata,
        "format": "bgengine-network", "format_version": FORMAT_VERSION,
        "bgengine_version": __version__, "encoder": net.encoder,
        "sizes": list(net.sizes), "n_outputs": net.n_outputs,
        "outputs": list(net.output_names),
    }


def network_from_parts(meta, params, where) -> Network:
    """A :class:`Network` from the metadata and parameters of a file (``where`` names
    it in errors); every shape is checked against the metadata.  ``meta["sizes"]``:
    whole numbers 1..``MAX_WIDTH`` (Python or numpy integers; bools and floats refused)."""
    if not isinstance(meta, dict):
        raise ValueError(f"{where}: network metadata is not a JSON object")
    try:
        # whole numbers (Python or numpy integers, for metadata built in Python), not bools
        sizes = [checked_int(s, "sizes", 1, MAX_WIDTH, f"1..{MAX_WIDTH}", "whole numbers")
                 for s in meta["sizes"]]
        encoder = meta["encoder"]
    except (KeyError, TypeError) as exc:
        raise ValueError(f"{where}: metadata lacks a valid {exc}") from None
    except ValueError as exc:
        raise ValueError(f"{where}: metadata: {exc}") from None
    if len(sizes) < 3:
        raise ValueError(f"{where}: sizes {sizes} need inputs, hidden layers and outputs")
    if encoder not in ENCODERS:
        raise ValueError(f"{where}: unknown encoder {encoder!r}")
    if sizes[0] != encoder_inputs(encoder):
        raise ValueError(f"{where}: {sizes[0]} inputs but encoder {encoder!r} has "
                         f"{encoder_inputs(encoder)}")
    if not isinstance(params, np.ndarray) or params.dtype != np.float32 or params.ndim != 1:
        raise ValueError(f"{where}: params must be a flat float32 array, got "
                         f"{getattr(params, 'dtype', type(params).__name__)} "
                         f"{getattr(params, 'shape', '')}")
    extra = {k: v for k, v in meta.items() if k not in (
        "format", "format_version", "bgengine_version", "encoder", "sizes", "n_outputs", "outputs")}
    extra["saved_by"] = meta.get("bgengine_version")
    try:
        return Network(sizes[1:len(sizes) - 1], sizes[len(sizes) - 1], encoder, params=params,
                       metadata=extra)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None


def _rebuild_network(hidden, n_outputs, encoder, params, metadata_json):
    return Network(hidden, n_outputs, encoder, params=params, metadata=json.loads(metadata_json))


cdef netbuf_t* _new_buf() except NULL:
    cdef netbuf_t* buf = <netbuf_t*> malloc(sizeof(netbuf_t))
    if buf == NULL:
        raise MemoryError()
    return buf
