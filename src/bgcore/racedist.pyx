"""A network that gives one side's race distributions.

In a race each side's progress depends on its own checkers alone, and
:mod:`bgengine.core.racegammon` computes from the rules how many rolls a side needs to bear
off all its checkers, or its first, exactly.  Beyond a few checkers outside the home board
that costs seconds a new side.  This network, fitted to the exact distributions
(:mod:`bgengine.labelling.race_distributions`), gives both at once in microseconds: one
hidden layer (sigmoid) over a side's checkers, and two softmax heads of 32 rolls.
:class:`~bgengine.core.racegammon.RaceGammonTables` made with ``network=`` combines the two
sides' distributions into a race's win and gammon chances where a side has more checkers
outside than its exact recursion takes, up to the network's ``max_outside``.

The inputs of a side (25 slots in its own numbering, slot i = point i+1): for each point
1..24 whether it holds 1, 2, 3 or more checkers and (n - 3) / 2 beyond three; then the
checkers borne off / 15, the pip count / 100, the checkers outside the home board / 15 and
the pips they need to come home / 50 (:func:`encode_sides` is the one definition, used by
training and evaluation alike).
"""

import numpy as np
cimport numpy as cnp
from libc.math cimport exp
from libc.string cimport memset

from libc.stdint cimport int32_t

from bgengine.core._types cimport checker_t

cnp.import_array()

# The network kernels' row sums (the first layer's, fused with the sigmoid, and the output
# layer's as a sum of H rows of weights): SIMD chosen at run time, the same bits on every
# kernel (nnkernels.h).
cdef extern from "nnkernels.h" nogil:
    ctypedef void (*bg_add_rows_fn)(const float* W, int H, const int32_t* idx,
                                    const float* val, int nnz, const float* h_in,
                                    float* h) noexcept nogil
    ctypedef void (*bg_hidden_fn)(const float* W0, int H, const int32_t* idx,
                                  const float* val, int nnz, const float* pre,
                                  float* act1) noexcept nogil
    ctypedef struct bg_kernels_t:
        bg_add_rows_fn add_rows
        bg_hidden_fn hidden
    bg_kernels_t bg_kernels
    int bg_kernels_select(const char* name)

bg_kernels_select(NULL)

cdef int32_t _EVERY_ROW[RD_MAX_HIDDEN]       # 0, 1, ..., the output layer's rows
cdef int _k
for _k in range(RD_MAX_HIDDEN):
    _EVERY_ROW[_k] = _k

ROLLS = RD_ROLLS
INPUTS = RD_INPUTS


cdef inline int _outside(const checker_t* row) noexcept nogil:
    cdef int i, n = 0
    for i in range(6, 25):
        n += row[i]
    return n


cdef bint rd_covers(const rd_net_t* net, const checker_t* row) noexcept nogil:
    """Whether the network values this side (no checker on the bar, at most
    ``max_outside`` outside the home board)."""
    return row[24] == 0 and _outside(row) <= net.max_outside


cdef void _encode(const checker_t* row, float* x) noexcept nogil:
    """The RD_INPUTS inputs of a side (see the module docstring)."""
    cdef int p, n, on_board = 0, pips = 0, outside = 0, home_pips = 0
    memset(x, 0, RD_INPUTS * sizeof(float))
    for p in range(24):
        n = row[p]
        if n == 0:
            continue
        on_board += n
        pips += n * (p + 1)
        if p >= 6:
            outside += n
            home_pips += n * (p - 5)
        x[4 * p] = 1
        if n >= 2:
            x[4 * p + 1] = 1
        if n >= 3:
            x[4 * p + 2] = 1
        if n > 3:
            x[4 * p + 3] = (n - 3) * 0.5
    x[96] = (15 - on_board) / 15.0
    x[97] = pips / 100.0
    x[98] = outside / 15.0
    x[99] = home_pips / 50.0


cdef inline void _softmax(const float* z, double* out) noexcept nogil:
    cdef int i
    cdef double m = z[0], s = 0.0
    for i in range(1, RD_ROLLS):
        if z[i] > m:
            m = z[i]
    for i in range(RD_ROLLS):
        out[i] = exp(z[i] - m)
        s += out[i]
    for i in range(RD_ROLLS):
        out[i] /= s


cdef void rd_distributions(const rd_net_t* net, const checker_t* row, double* all_off,
                           double* first_off) noexcept nogil:
    """P(the side bears off all its checkers in exactly n rolls) in ``all_off`` and
    P(... its first checker ...) in ``first_off`` (n = 0..31; "0 rolls" when a checker is
    already off).  The first layer adds the weight rows of the inputs that are set (a side
    has at most 15 occupied points); the output layer is dense."""
    cdef float x[RD_INPUTS]
    cdef float val[RD_INPUTS]
    cdef int32_t idx[RD_INPUTS]
    cdef float h[RD_MAX_HIDDEN]
    cdef float z[2 * RD_ROLLS]
    cdef int i, nnz = 0, H = net.n_hidden
    _encode(row, x)
    for i in range(RD_INPUTS):
        if x[i] != 0:
            idx[nnz] = i
            val[nnz] = x[i]
            nnz += 1
    bg_kernels.hidden(net.w1, H, idx, val, nnz, net.b1, h)                # sigmoid(b1 + rows)
    bg_kernels.add_rows(net.w2, 2 * RD_ROLLS, _EVERY_ROW, h, H, net.b2, z)  # b2 + h W2
    _softmax(z, all_off)
    if x[96] > 0:                       # a checker is off already
        memset(first_off, 0, RD_ROLLS * sizeof(double))
        first_off[0] = 1.0
    else:
        _softmax(z + RD_ROLLS, first_off)


def _rows(rows) -> np.ndarray:
    a = np.asarray(rows)
    if a.ndim == 1:
        a = a[None]
    if a.ndim != 2 or a.shape[1] != 25:
        raise ValueError(f"sides must have shape (n, 25), got {np.shape(rows)}")
    if a.dtype.kind not in "iub" or (a < 0).any() or (a.sum(1) > 15).any():
        raise ValueError("a side holds 0..15 checkers in all, none negative")
    return np.ascontiguousarray(a, dtype=np.uint8)


def encode_sides(rows) -> np.ndarray:
    """float32 (n, 100): the network's inputs of sides ``rows`` (n, 25), each in its own
    numbering."""
    cdef cnp.ndarray a = _rows(rows)
    out = np.zeros((a.shape[0], RD_INPUTS), np.float32)
    cdef float[:, ::1] o = out
    cdef const unsigned char[:, ::1] r = a
    cdef Py_ssize_t k
    with nogil:
        for k in range(r.shape[0]):
            _encode(<const checker_t*> &r[k, 0], &o[k, 0])
    return out


cdef class RaceDistributionNetwork:
    """One side's race distributions from a network (see the module docstring).

    Parameters
    ----------
    w1 : float32 (100, H)
        First-layer weights, input-major; H hidden units, 1..1024.
    b1 : float32 (H,)
    w2 : float32 (H, 64)
        Output weights: the 32 all-off logits, then the 32 first-off ones.
    b2 : float32 (64,)
    max_outside : int
        The sides it values: at most this many checkers outside the home board, 0..15 (what
        it was fitted on; beyond it the race network's values stand).
    """

    def __cinit__(self, w1, b1, w2, b2, max_outside=6):
        arrays = [np.ascontiguousarray(a, dtype=np.float32) for a in (w1, b1, w2, b2)]
        w1, b1, w2, b2 = arrays
        if w1.ndim != 2 or w1.shape[0] != RD_INPUTS or not 1 <= w1.shape[1] <= RD_MAX_HIDDEN:
            raise ValueError(f"w1 must have shape ({RD_INPUTS}, H), H 1..{RD_MAX_HIDDEN}, "
                             f"got {w1.shape}")
        H = w1.shape[1]
        if b1.shape != (H,) or w2.shape != (H, 2 * RD_ROLLS) or b2.shape != (2 * RD_ROLLS,):
            raise ValueError(f"with {H} hidden units b1, w2, b2 must have shapes ({H},), "
                             f"({H}, {2 * RD_ROLLS}), ({2 * RD_ROLLS},); got {b1.shape}, "
                             f"{w2.shape}, {b2.shape}")
        if not all(np.isfinite(a).all() for a in arrays):
            raise ValueError("the weights must be finite")
        if isinstance(max_outside, bool) or not isinstance(max_outside, (int, np.integer)) \
                or not 0 <= max_outside <= 15:
            raise ValueError(f"max_outside must be an integer 0..15, got {max_outside!r}")
        for a in arrays:
            a.flags.writeable = False
        self.w1, self.b1, self.w2, self.b2 = arrays
        self.net.n_hidden = H
        self.net.max_outside = int(max_outside)
        self.net.w1 = <const float*> cnp.PyArray_DATA(w1)
        self.net.b1 = <const float*> cnp.PyArray_DATA(b1)
        self.net.w2 = <const float*> cnp.PyArray_DATA(w2)
        self.net.b2 = <const float*> cnp.PyArray_DATA(b2)

    def __reduce__(self):
        return (RaceDistributionNetwork, (self.w1, self.b1, self.w2, self.b2,
                                          self.net.max_outside))

    def __repr__(self) -> str:
        return (f"RaceDistributionNetwork(hidden={self.net.n_hidden}, "
                f"max_outside={self.net.max_outside})")

    @property
    def hidden(self) -> int:
        return self.net.n_hidden

    @property
    def max_outside(self) -> int:
        return self.net.max_outside

    def arrays(self) -> dict:
        """The weights by name (``w1``, ``b1``, ``w2``, ``b2``), read-only."""
        return {"w1": self.w1, "b1": self.b1, "w2": self.w2, "b2": self.b2}

    def distributions(self, rows) -> tuple[np.ndarray, np.ndarray]:
        """float64 (n, 32) each: the all-off and the first-off distributions of sides
        ``rows`` (n, 25) in their own numbering, whatever their checkers outside (the
        caller keeps to ``max_outside``)."""
        cdef cnp.ndarray a = _rows(rows)
        if a[:, 24].any():
            raise ValueError("a checker on the bar is not in a race")
        n = a.shape[0]
        all_off = np.zeros((n, RD_ROLLS), np.float64)
        first_off = np.zeros((n, RD_ROLLS), np.float64)
        cdef double[:, ::1] av = all_off
        cdef double[:, ::1] fv = first_off
        cdef const unsigned char[:, ::1] r = a
        cdef Py_ssize_t k
        with nogil:
            for k in range(r.shape[0]):
                rd_distributions(&self.net, <const checker_t*> &r[k, 0], &av[k, 0], &fv[k, 0])
        return all_off, first_off
