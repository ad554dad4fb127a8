# Seedable dice: PCG32 (O'Neill, pcg-random.org, "pcg32_random_r"), chosen
# because its 64-bit integer arithmetic gives the same stream on every
# platform and compiler, it is tiny, and independent streams come from the
# increment.  Everything is inline so game loops in other modules roll dice
# without a function call across modules.

from libc.stdint cimport uint32_t, uint64_t

ctypedef struct rng_t:
    uint64_t state          # current 64-bit LCG state
    uint64_t inc            # stream selector, always odd


cdef inline uint32_t rng_next32(rng_t* r) noexcept nogil:
    cdef uint64_t old = r.state
    r.state = old * 6364136223846793005ULL + r.inc
    cdef uint32_t xorshifted = <uint32_t>(((old >> 18) ^ old) >> 27)
    cdef uint32_t rot = <uint32_t>(old >> 59)
    return (xorshifted >> rot) | (xorshifted << ((32 - rot) & 31))


cdef inline void rng_seed(rng_t* r, uint64_t seed, uint64_t stream) noexcept nogil:
    r.state = 0
    r.inc = (stream << 1) | 1
    rng_next32(r)
    r.state += seed
    rng_next32(r)


cdef inline int rng_below(rng_t* r, uint32_t n) noexcept nogil:
    """Uniform integer in [0, n), without modulo bias (rejection sampling)."""
    # 64-bit limit: for n a power of two it is 2**32, which a uint32 cannot hold
    cdef uint64_t limit = 0x100000000ULL - (0x100000000ULL % n)
    cdef uint32_t x = rng_next32(r)
    while x >= limit:
        x = rng_next32(r)
    return <int>(x % n)


cdef inline void rng_roll(rng_t* r, int* d1, int* d2) noexcept nogil:
    """Two dice from one draw of 36 outcomes."""
    cdef int x = rng_below(r, 36)
    d1[0] = x // 6 + 1
    d2[0] = x % 6 + 1


cdef inline void rng_opening_roll(rng_t* r, int* d1, int* d2) noexcept nogil:
    """The opening roll: each side rolls one die, equal dice are rolled again,
    so it is never a double.  d1 is the die of the side that will move first
    (the higher one)."""
    rng_roll(r, d1, d2)
    while d1[0] == d2[0]:
        rng_roll(r, d1, d2)
    if d1[0] < d2[0]:
        d1[0], d2[0] = d2[0], d1[0]


cdef class Dice:
    cdef rng_t rng          # owned generator state; pass &self.rng to nogil code
    cdef readonly object seed
    cdef readonly object stream
