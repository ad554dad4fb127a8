/* The encoders' AVX2 kernels: shots and hits of a roller as 6 x 6 matrices of the rolls
 * (lanes of AVX2 vectors are the first die), selected at run time, with portable stubs that
 * return -1 where there is no AVX2.  encoders.pyx declares them (cdef extern) and checks
 * bg_shots_use_avx2 / bg_hits_use_avx2 once at import; its plain-C versions compute the
 * same counts and the tests compare the two.
 */
#ifndef BG_ENCODERS_SIMD_H
#define BG_ENCODERS_SIMD_H

/* Shots of a roller with no checker on the bar, as a 6 x 6 bit matrix of the rolls:
 * lanes of AVX2 vectors are the first die, so each second die costs one shift, and,
 * compare.  mine: the roller's points; blot, open: the other side's blots and the
 * points it does not hold, in the roller's numbering (bits 1..24). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define BG_HAVE_SHOTS_AVX2 1
#define BG_NZ6(v) ((unsigned)~_mm256_movemask_ps(_mm256_castsi256_ps( \
    _mm256_cmpeq_epi32((v), _mm256_setzero_si256()))) & 0x3Fu)
#define BG_ROW(d) ((unsigned long long)BG_NZ6(_mm256_and_si256(_mm256_srli_epi32(L, d), B)) \
                   << (8 * ((d) - 1)))
/* Rolls that hit, from x (byte d2 - 1, bit d1 - 1: the roll hits by d1 first or by a
 * direct d1) and doubles (bit d - 1): x or its transpose off the diagonal, each
 * non-double counted twice, plus the doubles. */
__attribute__((target("avx2,popcnt")))
static inline int bg_count_rolls(unsigned long long x, unsigned doubles)
{
    unsigned long long y = x, t;
    t = (y ^ (y >> 7)) & 0x00AA00AA00AA00AAULL; y = y ^ t ^ (t << 7);
    t = (y ^ (y >> 14)) & 0x0000CCCC0000CCCCULL; y = y ^ t ^ (t << 14);
    t = (y ^ (y >> 28)) & 0x00000000F0F0F0F0ULL; y = y ^ t ^ (t << 28);
    return __builtin_popcountll((x | y) & 0x3F3F3F3F3F3FULL & ~0x201008040201ULL)
           + __builtin_popcount(doubles);
}
__attribute__((target("avx2,popcnt")))
static int bg_shots_avx2(unsigned int mine, unsigned int blot, unsigned int open)
{
    const __m256i dv = _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 32, 32);  /* 32: lane empty */
    const __m256i B = _mm256_set1_epi32((int)blot), O = _mm256_set1_epi32((int)open);
    __m256i L = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32((int)mine), dv), O);
    __m256i R = L, H = _mm256_and_si256(L, B);
    unsigned long long x;
    unsigned direct = BG_NZ6(H), doubles;
    int k;
    for (k = 0; k < 3; k++) {       /* a double: up to four steps of one checker */
        R = _mm256_and_si256(_mm256_srlv_epi32(R, dv), O);
        H = _mm256_or_si256(H, _mm256_and_si256(R, B));
    }
    doubles = BG_NZ6(H);
    /* x: byte d2 - 1, bit d1 - 1: d1 hits directly, or d1 then d2 hits */
    x = (unsigned long long)direct * 0x010101010101ULL
        | BG_ROW(1) | BG_ROW(2) | BG_ROW(3) | BG_ROW(4) | BG_ROW(5) | BG_ROW(6);
    return bg_count_rolls(x, doubles);
}

/* The same for a roller with n_bar >= 1 checkers on the bar, which enter first (die d
 * on the point 25 - d).  Lane d1: the entry point of d1 if open.  With one on the bar,
 * d1 enters and d2 moves any checker; with more, both dice enter. */
__attribute__((target("avx2,popcnt")))
static int bg_shots_bar_avx2(unsigned int mine, unsigned int blot, unsigned int open,
                             int n_bar)
{
    const __m256i dv = _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 32, 32);
    const __m256i B = _mm256_set1_epi32((int)blot), O = _mm256_set1_epi32((int)open);
    __m256i E = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(1 << 25), dv), O);
    __m256i L, R, H = _mm256_and_si256(E, B);
    unsigned long long x;
    unsigned entered = BG_NZ6(E), direct = BG_NZ6(H);
    int k;
    /* a double: all enter, then up to 4 - n_bar steps of any one checker */
    R = _mm256_or_si256(E, _mm256_set1_epi32((int)mine));
    for (k = 0; k < 4 - n_bar; k++) {
        R = _mm256_and_si256(_mm256_srlv_epi32(R, dv), O);
        H = _mm256_or_si256(H, _mm256_and_si256(R, B));
    }
    x = (unsigned long long)direct * 0x010101010101ULL;
    if (n_bar == 1) {
        /* d1 enters, then d2 from any checker (the entered one too) */
        L = _mm256_or_si256(E, _mm256_set1_epi32((int)mine));
        x |= (BG_ROW(1) | BG_ROW(2) | BG_ROW(3) | BG_ROW(4) | BG_ROW(5) | BG_ROW(6))
             & ((unsigned long long)entered * 0x010101010101ULL);
    }
    return bg_count_rolls(x, BG_NZ6(H) & entered);
}
static int bg_shots_use_avx2(void)
{
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
}
#else
static int bg_shots_avx2(unsigned int mine, unsigned int blot, unsigned int open)
{ (void)mine; (void)blot; (void)open; return -1; }
static int bg_shots_bar_avx2(unsigned int mine, unsigned int blot, unsigned int open,
                             int n_bar)
{ (void)mine; (void)blot; (void)open; (void)n_bar; return -1; }
static int bg_shots_use_avx2(void) { return 0; }
#endif

/* Blots x (hit by a die a) and y != x (by a die b) from different checkers: not the same
 * single checker (made: points of 2+) on x + a == y + b. */
static inline int bg_two_direct(unsigned int Da, unsigned int Db, int a, int b,
                                unsigned int made)
{
    while (Da) {
        int x = __builtin_ctz(Da), s = x + a;
        unsigned int y = Db & ~(1u << x);
        Da &= Da - 1;
        if (s > b && !((made >> s) & 1u))
            y &= ~(1u << (s - b));
        if (y)
            return 1;
    }
    return 0;
}
#if BG_HAVE_SHOTS_AVX2
#define BG_NZ(v) _mm256_xor_si256(_mm256_cmpeq_epi32((v), _mm256_setzero_si256()), \
                                  _mm256_set1_epi32(-1))
#define BG_GE2(v) BG_NZ(_mm256_and_si256((v), _mm256_sub_epi32((v), _mm256_set1_epi32(1))))
/* msb of each lane (bits 1..24; 0 for an empty lane), by the float exponent of v >> 1 */
#define BG_MSB(v) _mm256_and_si256(BG_NZ(v), _mm256_sub_epi32(_mm256_srli_epi32( \
    _mm256_castps_si256(_mm256_cvtepi32_ps(_mm256_srli_epi32((v), 1))), 23), \
    _mm256_set1_epi32(126)))
/* The 15 non-double rolls as dice a < b, two vectors of eight lanes; 32 in the last lane:
 * a shift that empties it. */
static const int BG_PAIR_A[16] = {1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 4, 4, 5, 32};
static const int BG_PAIR_B[16] = {2, 3, 4, 5, 6, 3, 4, 5, 6, 4, 5, 6, 5, 6, 6, 32};
__attribute__((target("avx2,popcnt")))
static inline int bg_hsum8(__m256i v)
{
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return _mm_cvtsi128_si32(s);
}
/* _hits of a roller with no checker on the bar: the doubles in one vector (lanes the die,
 * one pass of four steps), then the 15 other rolls in two vectors of pairs a < b (lanes
 * (a, b); each counted twice, as its two orders: the terms are symmetric in a and b).  P2
 * of a non-double is a chain (one checker hits twice), or two direct hits, certain with
 * three blots among them, else settled by bg_two_direct. */
__attribute__((target("avx2,popcnt")))
static void bg_hits_avx2(unsigned int mine, unsigned int made, unsigned int blot,
                         unsigned int open, int *p1, int *p2, int *loss)
{
    const __m256i dv = _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 32, 32);
    const __m256i lanes = _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, 0, 0);
    const __m256i B = _mm256_set1_epi32((int)blot), O = _mm256_set1_epi32((int)open);
    const __m256i M = _mm256_set1_epi32((int)mine);
    __m256i L = _mm256_and_si256(_mm256_srlv_epi32(M, dv), O);
    __m256i D = _mm256_and_si256(L, B);
    const __m256i Z = _mm256_setzero_si256(), MD = _mm256_set1_epi32((int)made);
    __m256i R = L, H = D, A = D, C = Z, K2 = Z, K3 = Z, t, two;
    __m256i n1, n2, lost, m1 = Z, m2 = Z, mlost = Z;
    int h, k;
    /* doubles: steps 2..4 */
    for (k = 0; k < 3; k++) {
        R = _mm256_and_si256(_mm256_srlv_epi32(R, dv), O);
        t = _mm256_and_si256(R, B);
        C = _mm256_or_si256(C, _mm256_and_si256(_mm256_srlv_epi32(A, dv), B));
        A = _mm256_or_si256(_mm256_and_si256(_mm256_srlv_epi32(A, dv), O), t);
        if (k == 0) K2 = _mm256_andnot_si256(H, t);
        if (k == 1) K3 = _mm256_andnot_si256(H, t);
        H = _mm256_or_si256(H, t);
    }
    n1 = _mm256_and_si256(BG_NZ(H), lanes);   /* -1 per lane that hits: negated below */
    two = _mm256_or_si256(_mm256_or_si256(BG_NZ(C), BG_GE2(D)),
                          _mm256_or_si256(BG_GE2(K2), _mm256_and_si256(
                              BG_NZ(D), BG_NZ(_mm256_or_si256(K2, K3)))));
    n2 = _mm256_and_si256(two, n1);
    lost = _mm256_and_si256(BG_MSB(H), lanes);
    /* the non-doubles, eight pairs a vector */
    for (h = 0; h < 2; h++) {
        const __m256i av = _mm256_loadu_si256((const __m256i *)&BG_PAIR_A[8 * h]);
        const __m256i bv = _mm256_loadu_si256((const __m256i *)&BG_PAIR_B[8 * h]);
        const __m256i La = _mm256_and_si256(_mm256_srlv_epi32(M, av), O);
        const __m256i Lb = _mm256_and_si256(_mm256_srlv_epi32(M, bv), O);
        const __m256i Da = _mm256_and_si256(La, B), Db = _mm256_and_si256(Lb, B);
        const __m256i U = _mm256_or_si256(Da, Db);
        __m256i both, chain, lo, hi, x1, x2;
        H = _mm256_or_si256(U, _mm256_and_si256(_mm256_or_si256(
                _mm256_srlv_epi32(La, bv), _mm256_srlv_epi32(Lb, av)), B));
        m1 = _mm256_add_epi32(m1, BG_NZ(H));
        mlost = _mm256_add_epi32(mlost, BG_MSB(H));
        chain = BG_NZ(_mm256_and_si256(_mm256_or_si256(_mm256_srlv_epi32(Da, bv),
                                                       _mm256_srlv_epi32(Db, av)), B));
        both = _mm256_and_si256(BG_NZ(Da), BG_NZ(Db));
        /* both dice hit: two blots with three or more among the hits; with two (lo, hi),
           unless the one pair of different blots each die hits needs the same single
           checker (the point x + a == y + b, not made: bg_two_direct) */
        lo = _mm256_and_si256(U, _mm256_sub_epi32(Z, U));
        hi = _mm256_xor_si256(U, lo);
        x1 = _mm256_and_si256(_mm256_and_si256(BG_NZ(_mm256_and_si256(Da, lo)),
                                               BG_NZ(_mm256_and_si256(Db, hi))),
                              _mm256_or_si256(BG_NZ(_mm256_xor_si256(
                                  _mm256_sllv_epi32(lo, av), _mm256_sllv_epi32(hi, bv))),
                                  BG_NZ(_mm256_and_si256(_mm256_sllv_epi32(lo, av), MD))));
        x2 = _mm256_and_si256(_mm256_and_si256(BG_NZ(_mm256_and_si256(Da, hi)),
                                               BG_NZ(_mm256_and_si256(Db, lo))),
                              _mm256_or_si256(BG_NZ(_mm256_xor_si256(
                                  _mm256_sllv_epi32(hi, av), _mm256_sllv_epi32(lo, bv))),
                                  BG_NZ(_mm256_and_si256(_mm256_sllv_epi32(hi, av), MD))));
        two = _mm256_or_si256(_mm256_or_si256(chain, _mm256_or_si256(x1, x2)),
                              _mm256_and_si256(both, BG_GE2(_mm256_and_si256(
                                  U, _mm256_sub_epi32(U, _mm256_set1_epi32(1))))));
        m2 = _mm256_add_epi32(m2, two);
    }
    *p1 = -bg_hsum8(n1) - 2 * bg_hsum8(m1);
    *p2 = -bg_hsum8(n2) - 2 * bg_hsum8(m2);
    *loss = bg_hsum8(lost) + 2 * bg_hsum8(mlost);
}
/* _hits of a roller with n_bar >= 1 checkers on the bar, which enter first (die d on the
 * point 25 - d), as encoders.pyx's loop over the rolls does it: the doubles in one vector
 * (lanes the die: all enter, then up to 4 - n_bar steps of one checker, as _dbl), then the
 * 15 other rolls in two vectors of pairs a < b (each counted twice, as its two orders: the
 * terms are symmetric in a and b).  With one on the bar, a die enters and the other moves
 * any checker; with more, both dice enter. */
__attribute__((target("avx2,popcnt")))
static void bg_hits_bar_avx2(unsigned int mine, unsigned int blot, unsigned int open,
                             int n_bar, int *p1, int *p2, int *loss)
{
    const __m256i dv = _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 32, 32);
    const __m256i lanes = _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, 0, 0);
    const __m256i B = _mm256_set1_epi32((int)blot), O = _mm256_set1_epi32((int)open);
    const __m256i M = _mm256_set1_epi32((int)mine);
    const __m256i E = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(1 << 25), dv), O);
    const __m256i entered = _mm256_and_si256(BG_NZ(E), lanes);
    const __m256i hit0 = _mm256_and_si256(E, B);
    __m256i H = hit0, two = _mm256_setzero_si256(), n1, n2, lost;
    __m256i m1 = two, m2 = two, mlost = two;
    int v, s;
    if (n_bar < 4) {
        /* _dbl(mine | E, d, 4 - n_bar, open, blot & ~E): one checker's steps, the blots
           each step first reaches (K), and a checker that has hit landing on another
           (chain); R empties for good once no step is open, and A (within R) with it */
        const __m256i Bx = _mm256_andnot_si256(E, B);
        __m256i R = _mm256_or_si256(M, E), A = _mm256_setzero_si256(), seen = A, C = A;
        __m256i K0 = A, K1 = A, h, k;
        for (s = 0; s < 4 - n_bar; s++) {
            R = _mm256_and_si256(_mm256_srlv_epi32(R, dv), O);
            h = _mm256_and_si256(R, Bx);
            C = _mm256_or_si256(C, _mm256_and_si256(_mm256_srlv_epi32(A, dv), Bx));
            A = _mm256_or_si256(_mm256_and_si256(_mm256_srlv_epi32(A, dv), O), h);
            k = _mm256_andnot_si256(seen, h);
            if (s == 0) K0 = k;
            if (s == 1) K1 = k;
            seen = _mm256_or_si256(seen, h);
        }
        two = BG_NZ(C);
        if (n_bar <= 2)         /* r >= 2 */
            two = _mm256_or_si256(two, BG_GE2(K0));
        if (n_bar == 1)         /* r >= 3 */
            two = _mm256_or_si256(two, _mm256_and_si256(BG_NZ(K0), BG_NZ(K1)));
        two = _mm256_or_si256(two, _mm256_and_si256(BG_NZ(hit0), BG_NZ(seen)));
        two = _mm256_and_si256(two, entered);
        H = _mm256_or_si256(H, _mm256_and_si256(seen, entered));
    }
    n1 = _mm256_and_si256(BG_NZ(H), lanes);     /* -1 per lane that hits: negated below */
    n2 = _mm256_and_si256(two, n1);
    lost = _mm256_and_si256(BG_MSB(H), lanes);
    /* the non-doubles, eight pairs a < b a vector (lanes (a, b)), each counted twice */
    for (v = 0; v < 2; v++) {
        const __m256i av = _mm256_loadu_si256((const __m256i *)&BG_PAIR_A[8 * v]);
        const __m256i bv = _mm256_loadu_si256((const __m256i *)&BG_PAIR_B[8 * v]);
        const __m256i Ea = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(1 << 25), av), O);
        const __m256i Eb = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(1 << 25), bv), O);
        const __m256i ha = _mm256_and_si256(Ea, B), hb = _mm256_and_si256(Eb, B);
        if (n_bar >= 2) {
            H = _mm256_or_si256(ha, hb);
            two = _mm256_and_si256(BG_NZ(ha), BG_NZ(hb));
        } else {
            /* enter with a, then b with any checker; or enter with b, then a */
            __m256i ga = _mm256_and_si256(_mm256_andnot_si256(Ea, B), _mm256_and_si256(
                _mm256_srlv_epi32(_mm256_or_si256(M, Ea), bv), BG_NZ(Ea)));
            __m256i gb = _mm256_and_si256(_mm256_andnot_si256(Eb, B), _mm256_and_si256(
                _mm256_srlv_epi32(_mm256_or_si256(M, Eb), av), BG_NZ(Eb)));
            H = _mm256_or_si256(_mm256_or_si256(ha, ga), _mm256_or_si256(hb, gb));
            two = _mm256_or_si256(_mm256_and_si256(BG_NZ(ha), BG_NZ(ga)),
                                  _mm256_and_si256(BG_NZ(hb), BG_NZ(gb)));
        }
        m1 = _mm256_add_epi32(m1, BG_NZ(H));
        m2 = _mm256_add_epi32(m2, two);
        mlost = _mm256_add_epi32(mlost, BG_MSB(H));
    }
    *p1 = -bg_hsum8(n1) - 2 * bg_hsum8(m1);
    *p2 = -bg_hsum8(n2) - 2 * bg_hsum8(m2);
    *loss = bg_hsum8(lost) + 2 * bg_hsum8(mlost);
}
static int bg_hits_use_avx2(void) { return bg_shots_use_avx2(); }
#else
static void bg_hits_avx2(unsigned int mine, unsigned int made, unsigned int blot,
                         unsigned int open, int *p1, int *p2, int *loss)
{ (void)mine; (void)made; (void)blot; (void)open; *p1 = *p2 = *loss = -1; }
static void bg_hits_bar_avx2(unsigned int mine, unsigned int blot, unsigned int open,
                             int n_bar, int *p1, int *p2, int *loss)
{ (void)mine; (void)blot; (void)open; (void)n_bar; *p1 = *p2 = *loss = -1; }
static int bg_hits_use_avx2(void) { return 0; }
#endif

#endif /* BG_ENCODERS_SIMD_H */
