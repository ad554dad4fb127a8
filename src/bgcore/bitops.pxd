# Bit tricks over point masks (bitops.h), for the move generator and the encoders.

from bgengine._types cimport checker_t, uint32_t

cdef extern from "bitops.h" nogil:
    int bg_ctz32(uint32_t x) noexcept     # lowest set bit (x != 0)
    int bg_msb32(uint32_t x) noexcept     # highest set bit (x != 0)
    uint32_t bg_mirror24(uint32_t m) noexcept   # bit t (1..24) -> bit 25 - t
    # bits 1..24: points 1..24 (slots 0..23) of one side holding any checker / exactly one
    void bg_point_masks(const checker_t* c, uint32_t* occ, uint32_t* one) noexcept
