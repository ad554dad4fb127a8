/* Bit tricks over point masks, shared by the move generator and the encoders.
 * A point mask has bit t (1..24) for point t of one side's numbering, or bit s (0..23)
 * for slot s; either way a move of d pips toward home is a right shift by d. */
#ifndef BG_BITOPS_H
#define BG_BITOPS_H

#if defined(_MSC_VER)
#define BG_ALWAYS_INLINE __forceinline
#else
#define BG_ALWAYS_INLINE inline __attribute__((always_inline))
#endif

#if defined(_MSC_VER)
#include <intrin.h>
static inline int bg_ctz32(unsigned int x) { unsigned long i; _BitScanForward(&i, x); return (int)i; }
static inline int bg_ctz64(unsigned long long x) { unsigned long i; _BitScanForward64(&i, x); return (int)i; }
static inline int bg_msb32(unsigned int x) { unsigned long i; _BitScanReverse(&i, x); return (int)i; }
#else
static inline int bg_ctz32(unsigned int x) { return __builtin_ctz(x); }
static inline int bg_ctz64(unsigned long long x) { return __builtin_ctzll(x); }
static inline int bg_msb32(unsigned int x) { return 31 - __builtin_clz(x); }
#endif

/* A mask of one side's points seen in the other side's numbering (bit t -> bit 25 - t) */
static inline unsigned int bg_mirror24(unsigned int m)
{
    m = ((m >> 1) & 0x55555555u) | ((m & 0x55555555u) << 1);
    m = ((m >> 2) & 0x33333333u) | ((m & 0x33333333u) << 2);
    m = ((m >> 4) & 0x0F0F0F0Fu) | ((m & 0x0F0F0F0Fu) << 4);
    m = ((m >> 8) & 0x00FF00FFu) | ((m & 0x00FF00FFu) << 8);
    m = (m >> 16) | (m << 16);
    return m >> 6;
}

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#endif
/* bits 1..24: points 1..24 (slots 0..23) of one side holding any checker / exactly one */
static inline void bg_point_masks(const unsigned char *c, unsigned int *occ, unsigned int *one)
{
#if defined(__SSE2__) || defined(_M_X64)
    __m128i lo = _mm_loadu_si128((const __m128i *)c);
    __m128i hi = _mm_loadl_epi64((const __m128i *)(c + 16));
    __m128i z = _mm_setzero_si128(), u = _mm_set1_epi8(1);
    unsigned int empty = (unsigned int)_mm_movemask_epi8(_mm_cmpeq_epi8(lo, z))
                       | ((unsigned int)_mm_movemask_epi8(_mm_cmpeq_epi8(hi, z)) << 16);
    unsigned int ones = (unsigned int)_mm_movemask_epi8(_mm_cmpeq_epi8(lo, u))
                      | ((unsigned int)_mm_movemask_epi8(_mm_cmpeq_epi8(hi, u)) << 16);
    *occ = (~empty & 0xFFFFFFu) << 1;
    *one = (ones & 0xFFFFFFu) << 1;
#else
    unsigned int o = 0, b = 0;
    int i;
    for (i = 0; i < 24; i++) {
        o |= (unsigned int)(c[i] != 0) << (i + 1);
        b |= (unsigned int)(c[i] == 1) << (i + 1);
    }
    *occ = o;
    *one = b;
#endif
}

/* bit i (0..24): slot i (points 1..24, the bar) holds a different count in a and b */
static inline unsigned int bg_diff_mask25(const unsigned char *a, const unsigned char *b)
{
#if defined(__SSE2__) || defined(_M_X64)
    __m128i lo = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)a),
                                _mm_loadu_si128((const __m128i *)b));
    __m128i hi = _mm_cmpeq_epi8(_mm_loadl_epi64((const __m128i *)(a + 16)),
                                _mm_loadl_epi64((const __m128i *)(b + 16)));
    unsigned int same = (unsigned int)_mm_movemask_epi8(lo)
                      | ((unsigned int)_mm_movemask_epi8(hi) << 16);
    return (~same & 0xFFFFFFu) | ((unsigned int)(a[24] != b[24]) << 24);
#else
    unsigned int m = 0;
    int i;
    for (i = 0; i < 25; i++) m |= (unsigned int)(a[i] != b[i]) << i;
    return m;
#endif
}

/* checkers on slots 0..24 (points and bar) */
static inline int bg_sum25(const unsigned char *c)
{
#if defined(__SSE2__) || defined(_M_X64)
    __m128i z = _mm_setzero_si128();
    __m128i s = _mm_add_epi64(_mm_sad_epu8(_mm_loadu_si128((const __m128i *)c), z),
                              _mm_sad_epu8(_mm_loadl_epi64((const __m128i *)(c + 16)), z));
    return (int)(_mm_cvtsi128_si32(s) + _mm_cvtsi128_si32(_mm_unpackhi_epi64(s, s))) + c[24];
#else
    int i, n = 0;
    for (i = 0; i < 25; i++) n += c[i];
    return n;
#endif
}

#if defined(__SSE2__) || defined(_M_X64)
/* The pips of slots 0..23 (slot i: i + 1) given as bytes: lo slots 0..15, hi 16..23 (then
 * zeros): the counts widened to 16 bits, times 1..24 by pairs (pmaddwd). */
static inline int bg_pips24_sse2(__m128i lo, __m128i hi)
{
    const __m128i z = _mm_setzero_si128();
    __m128i w = _mm_add_epi32(
        _mm_add_epi32(_mm_madd_epi16(_mm_unpacklo_epi8(lo, z),
                                     _mm_setr_epi16(1, 2, 3, 4, 5, 6, 7, 8)),
                      _mm_madd_epi16(_mm_unpackhi_epi8(lo, z),
                                     _mm_setr_epi16(9, 10, 11, 12, 13, 14, 15, 16))),
        _mm_madd_epi16(_mm_unpacklo_epi8(hi, z), _mm_setr_epi16(17, 18, 19, 20, 21, 22, 23, 24)));
    w = _mm_add_epi32(w, _mm_shuffle_epi32(w, 0x4E));
    w = _mm_add_epi32(w, _mm_shuffle_epi32(w, 0xB1));
    return _mm_cvtsi128_si32(w);
}
#endif

/* One side's pip count, the bar included (slot i: i + 1 pips, the bar 25): the contact
 * experts' routing, once per evaluation. */
static inline int bg_pips(const unsigned char *c)
{
#if defined(__SSE2__) || defined(_M_X64)
    return bg_pips24_sse2(_mm_loadu_si128((const __m128i *)c),
                          _mm_loadl_epi64((const __m128i *)(c + 16))) + 25 * c[24];
#else
    int i, p = 0;
    for (i = 0; i < 25; i++)
        p += c[i] * (i + 1);
    return p;
#endif
}

/* Sums over one side's points 1..24 (slots 0..23, the bar not included): its checkers, their
 * pips (slot i: i + 1 pips), the checkers on 7..18 (outfield) and on 19..24 (back), and those
 * beyond the third on each of 1..6 (stack).  Branch-free: a loop over the occupied points
 * costs a mispredicted exit per side. */
static inline void bg_side_counts(const unsigned char *c, int *total, int *pips, int *outfield,
                                  int *back, int *stack)
{
#if defined(__SSE2__) || defined(_M_X64)
    const __m128i z = _mm_setzero_si128();
    const __m128i lo = _mm_loadu_si128((const __m128i *)c);            /* slots 0..15 */
    const __m128i hi = _mm_loadl_epi64((const __m128i *)(c + 16));     /* 16..23, then 0 */
    /* bytes 6..15 (points 7..16); of hi, bytes 0..1 (17, 18) and 2..7 (19..24) */
    const __m128i out_lo = _mm_setr_epi8(0, 0, 0, 0, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m128i out_hi = _mm_setr_epi8(-1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m128i home = _mm_setr_epi8(-1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    __m128i s, o;
    *pips = bg_pips24_sse2(lo, hi);
    s = _mm_add_epi64(_mm_sad_epu8(lo, z), _mm_sad_epu8(hi, z));
    *total = _mm_cvtsi128_si32(s) + _mm_cvtsi128_si32(_mm_unpackhi_epi64(s, s));
    o = _mm_add_epi64(_mm_sad_epu8(_mm_and_si128(lo, out_lo), z),
                      _mm_sad_epu8(_mm_and_si128(hi, out_hi), z));
    *outfield = _mm_cvtsi128_si32(o) + _mm_cvtsi128_si32(_mm_unpackhi_epi64(o, o));
    *back = _mm_cvtsi128_si32(_mm_sad_epu8(_mm_andnot_si128(out_hi, hi), z));
    *stack = _mm_cvtsi128_si32(_mm_sad_epu8(
        _mm_and_si128(_mm_subs_epu8(lo, _mm_set1_epi8(3)), home), z));
#else
    int i, n, t = 0, p = 0, of = 0, bk = 0, st = 0;
    for (i = 0; i < 24; i++) {
        n = c[i];
        t += n;
        p += n * (i + 1);
        if (i >= 6 && i < 18) of += n;
        if (i >= 18) bk += n;
        if (i < 6 && n > 3) st += n - 3;
    }
    *total = t; *pips = p; *outfield = of; *back = bk; *stack = st;
#endif
}

/* Sums over one side's points t = lo..24 (slots lo - 1..23; lo >= 1, the bar not included):
 * n its checkers there, nt their pips (sum of n t), ntt the sum of n t^2; and over those of
 * them it holds (two or more checkers): made their count, made_t the sum of their t.
 * Branch-free, for the contact features that sum over a range of points (a loop over the
 * occupied points costs a mispredicted exit). */
typedef struct {
    int n, nt, ntt, made, made_t;
} bg_range_sums_t;

static BG_ALWAYS_INLINE void bg_range_sums(const unsigned char *c, int lo, bg_range_sums_t *r)
{
#if defined(__SSE2__) || defined(_M_X64)
    const __m128i z = _mm_setzero_si128();
    const __m128i slot_lo = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m128i slot_hi = _mm_setr_epi8(16, 17, 18, 19, 20, 21, 22, 23, 99, 99, 99, 99, 99,
                                          99, 99, 99);
    const __m128i first = _mm_set1_epi8((char)(lo - 2));       /* slots > lo - 2 */
    __m128i in_lo = _mm_cmpgt_epi8(slot_lo, first), in_hi = _mm_cmpgt_epi8(slot_hi, first);
    __m128i a = _mm_and_si128(_mm_loadu_si128((const __m128i *)c), in_lo);
    __m128i b = _mm_and_si128(_mm_loadl_epi64((const __m128i *)(c + 16)), in_hi);
    __m128i one = _mm_set1_epi8(1);
    /* points held: count 1 per slot with two or more */
    __m128i ma = _mm_and_si128(_mm_cmpgt_epi8(a, one), one);
    __m128i mb = _mm_and_si128(_mm_cmpgt_epi8(b, one), one);
    __m128i a0 = _mm_unpacklo_epi8(a, z), a1 = _mm_unpackhi_epi8(a, z), b0 = _mm_unpacklo_epi8(b, z);
    __m128i m0 = _mm_unpacklo_epi8(ma, z), m1 = _mm_unpackhi_epi8(ma, z), n0 = _mm_unpacklo_epi8(mb, z);
    const __m128i t0 = _mm_setr_epi16(1, 2, 3, 4, 5, 6, 7, 8);
    const __m128i t1 = _mm_setr_epi16(9, 10, 11, 12, 13, 14, 15, 16);
    const __m128i t2 = _mm_setr_epi16(17, 18, 19, 20, 21, 22, 23, 24);
    __m128i nt, ntt, mt, s, cnt;
    nt = _mm_add_epi32(_mm_add_epi32(_mm_madd_epi16(a0, t0), _mm_madd_epi16(a1, t1)),
                       _mm_madd_epi16(b0, t2));
    ntt = _mm_add_epi32(
        _mm_add_epi32(_mm_madd_epi16(a0, _mm_setr_epi16(1, 4, 9, 16, 25, 36, 49, 64)),
                      _mm_madd_epi16(a1, _mm_setr_epi16(81, 100, 121, 144, 169, 196, 225, 256))),
        _mm_madd_epi16(b0, _mm_setr_epi16(289, 324, 361, 400, 441, 484, 529, 576)));
    mt = _mm_add_epi32(_mm_add_epi32(_mm_madd_epi16(m0, t0), _mm_madd_epi16(m1, t1)),
                       _mm_madd_epi16(n0, t2));
    /* their horizontal sums */
    nt = _mm_add_epi32(nt, _mm_shuffle_epi32(nt, 0x4E));
    ntt = _mm_add_epi32(ntt, _mm_shuffle_epi32(ntt, 0x4E));
    mt = _mm_add_epi32(mt, _mm_shuffle_epi32(mt, 0x4E));
    nt = _mm_add_epi32(nt, _mm_shuffle_epi32(nt, 0xB1));
    ntt = _mm_add_epi32(ntt, _mm_shuffle_epi32(ntt, 0xB1));
    mt = _mm_add_epi32(mt, _mm_shuffle_epi32(mt, 0xB1));
    s = _mm_add_epi64(_mm_sad_epu8(a, z), _mm_sad_epu8(b, z));
    cnt = _mm_add_epi64(_mm_sad_epu8(ma, z), _mm_sad_epu8(mb, z));
    r->n = _mm_cvtsi128_si32(s) + _mm_cvtsi128_si32(_mm_unpackhi_epi64(s, s));
    r->made = _mm_cvtsi128_si32(cnt) + _mm_cvtsi128_si32(_mm_unpackhi_epi64(cnt, cnt));
    r->nt = _mm_cvtsi128_si32(nt);
    r->ntt = _mm_cvtsi128_si32(ntt);
    r->made_t = _mm_cvtsi128_si32(mt);
#else
    int t, k;
    r->n = r->nt = r->ntt = r->made = r->made_t = 0;
    for (t = lo < 1 ? 1 : lo; t <= 24; t++) {
        k = c[t - 1];
        r->n += k; r->nt += k * t; r->ntt += k * t * t;
        r->made += k >= 2; r->made_t += (k >= 2) * t;
    }
#endif
}

/* bit j (0..n-1, n <= 64): a[j] != b[j] as floats (0 and -0 equal) */
static inline unsigned long long bg_diff_mask_f32(const float *a, const float *b, int n)
{
    unsigned long long m = 0;
    int j = 0;
#if defined(__SSE2__) || defined(_M_X64)
    for (; j + 4 <= n; j += 4)
        m |= (unsigned long long)_mm_movemask_ps(_mm_cmpneq_ps(_mm_loadu_ps(a + j),
                                                               _mm_loadu_ps(b + j))) << j;
#endif
    for (; j < n; j++) m |= (unsigned long long)(a[j] != b[j]) << j;
    return m;
}

#endif  /* BG_BITOPS_H */
