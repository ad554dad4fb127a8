# The outputs vocabulary of the core: what a network's (or an exact table's) outputs mean,
# and the four operations every module does with them, declared once.
#
# Outputs are always from the side on roll.  Forms (n_outputs):
#   1: P(win)
#   4: the sources' (win, lose, win gammon, lose gammon)
#   5: gnubg's (win, win gammon, win backgammon, lose gammon, lose backgammon)
#
# flip: the same probabilities seen by the other side; equity: cubeless points per game;
# target: the outputs of a finished game; from_five: gnubg's five in another form.
# Header-only (inline): cimporting it adds no module to import.

from libc.string cimport memcpy, memset

from bgengine.core._types cimport real_t

cdef enum:
    MAX_OUTPUTS = 5


# Outputs of the side on roll -> the same probabilities seen by the other side.
cdef inline void outputs_flip(int n_outputs, const real_t* v, real_t* out) noexcept nogil:
    # (read into locals first: v may be out; no memcpy of a run-time size, a libc call)
    cdef real_t a0 = v[0], a1, a2, a3, a4
    if n_outputs == 1:
        out[0] = 1 - a0
    elif n_outputs == 4:
        a1 = v[1]; a2 = v[2]; a3 = v[3]
        out[0] = a1; out[1] = a0; out[2] = a3; out[3] = a2
    else:
        a1 = v[1]; a2 = v[2]; a3 = v[3]; a4 = v[4]
        out[0] = 1 - a0; out[1] = a3; out[2] = a4; out[3] = a1; out[4] = a2


# Cubeless equity (points per game) of the side on roll.
cdef inline double outputs_equity(int n_outputs, const real_t* v) noexcept nogil:
    if n_outputs == 1:
        return 2.0 * v[0] - 1.0
    if n_outputs == 4:
        return <double>v[0] - v[1] + v[2] - v[3]
    return 2.0 * v[0] - 1.0 + v[1] - v[3] + v[2] - v[4]


# The training target of a finished game won by the side on roll (value > 0)
# or lost (value < 0), value = 1, 2 or 3 points.
cdef inline void outputs_target(int n_outputs, int value, real_t* out) noexcept nogil:
    cdef int a = value if value > 0 else -value
    cdef bint won = value > 0
    memset(out, 0, n_outputs * sizeof(real_t))
    if n_outputs == 1:
        out[0] = 1 if won else 0
    elif n_outputs == 4:
        out[0 if won else 1] = 1
        out[2 if won else 3] = 1 if a >= 2 else 0
    else:
        out[0] = 1 if won else 0
        out[1 if won else 3] = 1 if a >= 2 else 0
        out[2 if won else 4] = 1 if a >= 3 else 0


# gnubg's five outputs (v) in the form of n_outputs (out may not be v).
cdef inline void outputs_from_five(int n_outputs, const real_t* v, real_t* out) noexcept nogil:
    if n_outputs == 5:
        memcpy(out, v, 5 * sizeof(real_t))
    elif n_outputs == 4:
        out[0] = v[0]
        out[1] = 1 - v[0]
        out[2] = v[1]
        out[3] = v[3]
    else:
        out[0] = v[0]
