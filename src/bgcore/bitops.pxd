# Bit tricks over point masks (bitops.h), for the move generator and the encoders.

from bgengine.core._types cimport checker_t, uint32_t

cdef extern from "bitops.h" nogil:
    int bg_ctz32(uint32_t x) noexcept     # lowest set bit (x != 0)
    int bg_ctz64(unsigned long long x) noexcept     # ... of a 64-bit mask
    int bg_msb32(uint32_t x) noexcept     # highest set bit (x != 0)
    uint32_t bg_mirror24(uint32_t m) noexcept   # bit t (1..24) -> bit 25 - t
    # bits 1..24: points 1..24 (slots 0..23) of one side holding any checker / exactly one
    void bg_point_masks(const checker_t* c, uint32_t* occ, uint32_t* one) noexcept
    # bit i (0..24): slot i (points 1..24, the bar) holds a different count in a and b
    uint32_t bg_diff_mask25(const checker_t* a, const checker_t* b) noexcept
    int bg_sum25(const checker_t* c) noexcept       # checkers on the points and the bar
    # sums over points 1..24 (no bar): checkers, pips, on 7..18, on 19..24, beyond 3 on 1..6
    int bg_pips(const checker_t* c)
    void bg_side_counts(const checker_t* c, int* total, int* pips, int* outfield, int* back,
                        int* stack) noexcept
    # sums over points lo..24: checkers n, sum n t, sum n t^2; held points, sum of their t
    ctypedef struct bg_range_sums_t:
        int n, nt, ntt, made, made_t
    void bg_range_sums(const checker_t* c, int lo, bg_range_sums_t* r) noexcept
    # bit j (0..n-1, n <= 64): a[j] != b[j] as floats
    unsigned long long bg_diff_mask_f32(const float* a, const float* b, int n) noexcept
