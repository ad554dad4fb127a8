# One step of Adam (Kingma and Ba, 2015) on a flat float32 parameter vector, ascending
# along a gradient sum (the TD learner's ``sum delta * dV/dw`` points uphill).
#
# Header-only (inline): cimporting it adds no module to import.

from libc.math cimport sqrtf, pow

from bgengine.core._types cimport real_t


cdef inline void adam_step(real_t* w, const real_t* g, real_t* m, real_t* v, Py_ssize_t n,
                           double lr, double beta1, double beta2, double eps,
                           long long step) noexcept nogil:
    """``m <- beta1 m + (1 - beta1) g``, ``v <- beta2 v + (1 - beta2) g^2``, then
    ``w <- w + lr * mhat / (sqrt(vhat) + eps)`` with the bias corrections
    ``mhat = m / (1 - beta1^step)``, ``vhat = v / (1 - beta2^step)``; ``step`` counts
    from 1.  Every one of the ``n`` parameters moves (the moments of a weight without
    gradient in this step decay)."""
    cdef real_t b1 = <real_t>beta1, b2 = <real_t>beta2
    cdef real_t a1 = <real_t>(1 - beta1), a2 = <real_t>(1 - beta2)
    cdef real_t rate = <real_t>(lr / (1 - pow(beta1, <double>step)))
    cdef real_t inv_c2 = <real_t>(1 / (1 - pow(beta2, <double>step)))
    cdef real_t e = <real_t>eps
    cdef Py_ssize_t i
    cdef real_t gi
    for i in range(n):
        gi = g[i]
        m[i] = b1 * m[i] + a1 * gi
        v[i] = b2 * v[i] + a2 * gi * gi
        w[i] += rate * m[i] / (sqrtf(v[i] * inv_c2) + e)
