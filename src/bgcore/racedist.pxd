# C-level API of the race distribution network (racedist.pyx): one side's bear-off
# distributions in a race (rolls to bear off all its checkers, and its first), learned from
# the exact ones that bgengine.core.racegammon computes, at network speed.
#
# Usage from Cython (net = &obj.net of a RaceDistributionNetwork object, which owns it):
#
#     if rd_covers(net, row): rd_distributions(net, row, all_off, first_off)   # nogil
#
# The weights are read-only once made: any number of threads may evaluate at once.

from bgengine.core._types cimport checker_t

cdef enum:
    RD_ROLLS = 32           # P(n rolls) for n = 0..31, as the bear-off database keeps them
    RD_POINT_INPUTS = 4     # per point: 1+, 2+, 3+ checkers, (n - 3) / 2 beyond three
    RD_INPUTS = 100         # 24 points x 4, then borne off / 15, pips / 100, outside / 15,
                            # pips to bring every checker home / 50
    RD_MAX_HIDDEN = 1024

ctypedef struct rd_net_t:
    int n_hidden
    int max_outside         # the sides it values: at most this many checkers off their home
                            # points (and none on the bar)
    const float* w1         # [RD_INPUTS][n_hidden]
    const float* b1         # [n_hidden]
    const float* w2         # [n_hidden][2 * RD_ROLLS]: all-off logits, then first-off ones
    const float* b2         # [2 * RD_ROLLS]

cdef bint rd_covers(const rd_net_t* net, const checker_t* row) noexcept nogil
cdef void rd_distributions(const rd_net_t* net, const checker_t* row, double* all_off,
                           double* first_off) noexcept nogil

cdef class RaceDistributionNetwork:
    cdef rd_net_t net
    cdef readonly object w1, b1, w2, b2
