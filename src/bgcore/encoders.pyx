"""Feature encoders: a position (side on roll in row 1) -> float32 network inputs.

Three encoders, by name:

``tesauro198``
    TD-Gammon 0.0.  For each side (the side on roll first, then its
    opponent), for each of its points 1..24 in its own numbering, four units
    for ``n`` checkers there: ``n >= 1``, ``n >= 2``, ``n >= 3``,
    ``(n - 3) / 2`` if ``n > 3``; then its bar ``n / 2`` and its borne-off
    checkers ``n / 15``.  Two turn units close it: always ``(1, 0)``, since
    positions are encoded from the side on roll (kept for the classic size).
``tesauro198+extra``
    The sources' "Extra" (212 inputs): tesauro198, then a race unit and a
    contact unit, then for each side six thermometer units for its longest
    run of made points (``>= 1`` .. ``>= 6``).
``expert``
    Our encoder aimed at strength (222 inputs): the 196 point/bar/off units
    of tesauro198, then for each side 12 hand-made features (pips, back
    checkers, home points, prime, anchors, shots against its blots, escapes
    of its rearmost checker, blots, entering, outfield, stacking), then a
    race unit and the pip difference.  Feature ``k`` of side ``s`` is input
    ``196 + 12 * (1 - s) + k``; see ``EXPERT_FEATURES``.
"""

import numpy as np
cimport numpy as cnp
from libc.stdint cimport uint32_t
from libc.string cimport memcpy, memset

from bgengine._types cimport checker_t, int32_t, real_t
from bgengine.board cimport board_t, BAR
from bgengine.encoders cimport (ENC_TESAURO198, ENC_TESAURO212, ENC_EXPERT, N_ENCODERS, MAX_INPUTS,
                                N_SIDE_UNITS, N_EXPERT_SIDE, side_summary_t, enc_head_t)

from bgengine.board import validate_boards

cnp.import_array()

#: Encoder names, in the order of their C ids.
ENCODERS = ("tesauro198", "tesauro198+extra", "expert")
_SIZES = (198, 212, 222)

#: Names of the 12 per-side features of the expert encoder.
EXPERT_FEATURES = (
    "pips/100", "back checkers/5", "home points/6", "longest prime/6",
    "anchors/2", "shots against its blots/36", "escapes of rearmost/36",
    "blots/5", "closed points in the other home/6", "entering difficulty",
    "outfield checkers/15", "home stacking/10",
)
cdef enum:
    N_POINT_UNITS = 196     # 2 sides x (24 x 4 + bar + off)


cdef int encoder_size(int encoder) noexcept nogil:
    if encoder == ENC_TESAURO198:
        return 198
    if encoder == ENC_TESAURO212:
        return 212
    if encoder == ENC_EXPERT:
        return 222
    return -1


# ---------------------------------------------------------------- features

cdef int longest_prime(const board_t* b, int side) noexcept nogil:
    """Longest run of consecutive points (1..24) holding 2+ checkers of ``side``."""
    cdef int i, run = 0, best = 0
    for i in range(24):
        if b.c[side][i] >= 2:
            run += 1
            if run > best:
                best = run
        else:
            run = 0
    return best


# Point masks: bit t (1..24) is point t in one side's numbering; a move of d pips
# toward home is a right shift by d, and bits shifted below 1 have left the board.
cdef enum:
    POINTS_MASK = 0x1FFFFFE      # bits 1..24


cdef inline uint32_t _reach(uint32_t from_, int d1, int d2, uint32_t open_) noexcept nogil:
    """Points one checker standing on a point of ``from_`` can land on with the
    roll d1-d2, intermediate landings open (a double moves up to four steps)."""
    cdef uint32_t r, out
    cdef int k
    if d1 != d2:
        out = ((from_ >> d1) | (from_ >> d2)) & open_
        out |= (((from_ >> d1) & open_) >> d2 | ((from_ >> d2) & open_) >> d1) & open_
        return out
    out = 0
    r = from_
    for k in range(4):
        r = (r >> d1) & open_
        if r == 0:
            break
        out |= r
    return out


from bgengine.bitops cimport bg_ctz32, bg_msb32, bg_mirror24, bg_point_masks


cdef extern from *:
    """
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
    """
    int bg_shots_avx2(uint32_t mine, uint32_t blot, uint32_t open_) noexcept nogil
    int bg_shots_bar_avx2(uint32_t mine, uint32_t blot, uint32_t open_, int n_bar) noexcept nogil
    int bg_shots_use_avx2() noexcept nogil

cdef bint SHOTS_AVX2 = bg_shots_use_avx2()


cdef inline int _popcount(uint32_t x) noexcept nogil:
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    return <int>((((x + (x >> 4)) & 0x0F0F0F0F) * 0x01010101) >> 24)


cdef inline int _longest_run(uint32_t x) noexcept nogil:
    """Length of the longest run of consecutive set bits."""
    cdef int n = 0
    while x:
        x &= x >> 1
        n += 1
    return n


# The four tesauro units of a point with n checkers: how many are nonzero, and their values.
cdef int UNIT_COUNT[16]
cdef real_t UNIT_VALUE[16][4]
# Per slot 0..23: 0 home (points 1..6), 1 outfield (7..18), 2 back (19..24)
cdef int REGION[24]


cdef void _init_tables() noexcept nogil:
    cdef int n, i
    for n in range(16):
        UNIT_COUNT[n] = n if n <= 3 else 4
        for i in range(4):
            UNIT_VALUE[n][i] = 1.0 if i < 3 and n > i else 0.0
        UNIT_VALUE[n][3] = (n - 3) * 0.5 if n > 3 else 0.0
    for i in range(24):
        REGION[i] = 0 if i < 6 else (1 if i < 18 else 2)

_init_tables()


cdef inline int _side(const checker_t* c, int base, int32_t* idx, real_t* val, int k,
                      side_summary_t* S) noexcept nogil:
    """The 98 tesauro units of one side from input ``base`` (four entries written per point,
    ``k`` advanced by the nonzero ones), and its summary."""
    cdef uint32_t occ, blot, x
    cdef int i, n, u, total = 0, pips = 0, stack = 0
    cdef int region[3]
    region[0] = region[1] = region[2] = 0
    bg_point_masks(c, &occ, &blot)
    x = occ >> 1
    while x:
        i = bg_ctz32(x)
        x &= x - 1
        n = c[i]
        u = base + 4 * i
        idx[k] = u; idx[k + 1] = u + 1; idx[k + 2] = u + 2; idx[k + 3] = u + 3
        memcpy(&val[k], UNIT_VALUE[n], 4 * sizeof(real_t))
        k += UNIT_COUNT[n]
        total += n
        pips += n * (i + 1)
        region[REGION[i]] += n
        if i < 6 and n > 3:
            stack += n - 3
    n = c[BAR]
    if n:
        idx[k] = base + 96; val[k] = n * 0.5; k += 1
    total += n
    if total < 15:
        idx[k] = base + 97; val[k] = (15 - total) / 15.0; k += 1
    S.occ, S.blot, S.made = occ, blot, occ & ~blot
    S.made_seen, S.blot_seen = bg_mirror24(S.made), bg_mirror24(blot)
    S.pips = pips + 25 * n
    S.back = region[2] + n
    S.outfield = region[1]
    S.stack = stack
    S.checkers = total
    S.bar = n
    return k


cdef inline bint _is_race(const side_summary_t* a, const side_summary_t* b) noexcept nogil:
    """board_is_race from two summaries: nobody on the bar and every checker of one side
    past every checker of the other."""
    if a.bar or b.bar:
        return False
    if a.occ == 0 or b.occ == 0:
        return True
    return bg_msb32(a.occ) + bg_msb32(b.occ) < 25


cdef int _shots(const side_summary_t* R, const side_summary_t* O) noexcept nogil:
    """shots_36 of the roller R against the blots of the other side O (see there)."""
    cdef uint32_t blot_m = O.blot_seen
    cdef uint32_t open_m = ~O.made_seen & <uint32_t> POINTS_MASK
    cdef uint32_t mine = R.occ
    if blot_m == 0:
        return 0
    if R.bar == 0:
        if mine == 0 or bg_msb32(mine) <= bg_ctz32(blot_m):
            return 0                # every blot is behind every checker of the roller
        if SHOTS_AVX2:
            return bg_shots_avx2(mine, blot_m, open_m)
        return _shots_scalar(mine, blot_m, open_m)
    if SHOTS_AVX2:
        return bg_shots_bar_avx2(mine, blot_m, open_m, R.bar)
    return _shots_bar(mine, blot_m, open_m, R.bar)


cdef int _shots_scalar(uint32_t mine, uint32_t blot_m, uint32_t open_m) noexcept nogil:
    """bg_shots_avx2 in plain C: the roller's checkers all on points (none on the bar)."""
    cdef int d, d1, d2, k, count = 0
    cdef uint32_t r, direct = 0
    cdef uint32_t land[7]
    for d in range(1, 7):
        land[d] = (mine >> d) & open_m
        if land[d] & blot_m:
            direct |= 1u << d   # bit d: a die of d hits (blots stand on open points)
    for d1 in range(1, 7):
        if (direct >> d1) & 1:
            count += 1 + 2 * (6 - d1)       # the double and every pair with a higher die
            continue
        r = land[d1]
        k = 1
        while r and not (r & blot_m) and k < 4:
            r = (r >> d1) & open_m
            k += 1
        if r & blot_m:
            count += 1
        for d2 in range(d1 + 1, 7):
            if (direct >> d2) & 1 or ((land[d1] >> d2) | (land[d2] >> d1)) & blot_m:
                count += 2
    return count


cdef int _shots_bar(uint32_t mine, uint32_t blot_m, uint32_t open_m, int n_bar) noexcept nogil:
    """bg_shots_bar_avx2 in plain C: n_bar >= 1 checkers on the bar enter first (on the
    point 25 - die)."""
    cdef int d, d1, d2, s, count = 0
    cdef uint32_t r
    cdef uint32_t enter[7]          # the entry point of each die, if open
    for d in range(1, 7):
        enter[d] = ((<uint32_t>1) << (25 - d)) & open_m
    for d1 in range(1, 7):
        # a double: enter them all, then up to 4 - n_bar steps for any one checker
        if enter[d1]:
            if enter[d1] & blot_m:
                count += 1
            else:
                r = mine | enter[d1]
                for s in range(4 - n_bar):
                    r = (r >> d1) & open_m
                    if r & blot_m:
                        count += 1
                        break
                    if r == 0:
                        break
        for d2 in range(d1 + 1, 7):
            if (enter[d1] | enter[d2]) & blot_m:
                count += 2
            elif n_bar == 1 and (
                    (enter[d1] and ((enter[d1] >> d2) | (mine >> d2)) & open_m & blot_m) or
                    (enter[d2] and ((enter[d2] >> d1) | (mine >> d1)) & open_m & blot_m)):
                # enter with one die, then play the other with any checker
                count += 2
    return count


cdef int _escapes_search(int p, uint32_t blocked) noexcept nogil:
    """escapes_36 of a rearmost checker on point p (25: the bar) past the points of
    ``blocked`` (its own numbering), by trying the 21 rolls.  Builds ESCAPES."""
    cdef int lo, lowest, d1, d2, count = 0
    cdef uint32_t window, x, open_m, beyond_m, start
    lo = p - 12 if p > 13 else 1
    window = (((<uint32_t>1) << p) - 1) & ~(((<uint32_t>1) << lo) - 1)
    x = blocked & window
    if x == 0:
        return 36
    lowest = bg_ctz32(x)
    beyond_m = (((<uint32_t>1) << lowest) - 1) & <uint32_t> POINTS_MASK
    open_m = ~blocked & <uint32_t> POINTS_MASK
    start = (<uint32_t>1) << p
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            if _reach(start, d1, d2, open_m) & beyond_m:
                count += 1 if d1 == d2 else 2
    return count


# escapes_36 by table.  Every roll's landings lie within 12 pips of the checker but one:
# 5-5 can first get past the farthest held point at 15 pips (held points at 11 or 12 pips,
# 5 and 10 open).  So the count is a function of the 12 points in front, n of them on the
# board (n = min(12, p - 1)), plus that one point.  ESCAPES[(1 << n) | open bits] holds the
# count with the 15-pip point held, and bit 7 set when opening it adds the 5-5 escape.
cdef unsigned char ESCAPES[1 << 13]


cdef void _init_escapes() noexcept nogil:
    cdef int n, w, p, m, a, b
    cdef uint32_t blocked
    for n in range(13):
        p = 25 if n == 12 else n + 1
        for w in range(1 << n):
            blocked = 0
            for m in range(1, n + 1):            # bit m - 1 of w: the point m pips ahead is open
                if not (w >> (n - m)) & 1:
                    blocked |= (<uint32_t>1) << (p - m)
            a = _escapes_search(p, blocked | ((<uint32_t>1) << (p - 15) if p > 15 else 0))
            b = _escapes_search(p, blocked)
            ESCAPES[(1 << n) | w] = a | (0x80 if b != a else 0)


cdef inline int _escapes_table(int p, uint32_t blocked) noexcept nogil:
    """_escapes_search(p, blocked) by table."""
    cdef int n = p - 1 if p < 13 else 12, e
    cdef uint32_t open_m = ~blocked & <uint32_t> POINTS_MASK
    # bits n-1 .. 0: the points 1 .. n pips ahead (p - 1 down to p - n)
    e = ESCAPES[(1 << n) | ((open_m >> (p - n)) & ((1u << n) - 1))]
    if e & 0x80:                # the 5-5 escape, if the point 15 pips ahead is on the board and open
        return (e & 0x7F) + (<int>((open_m >> (p - 15)) & 1) if p >= 15 else 0)
    return e


cdef inline int _escapes(const side_summary_t* S, const side_summary_t* O) noexcept nogil:
    """escapes_36 of side S's rearmost checker past the points of the other side O."""
    if S.bar:
        return _escapes_table(25, O.made_seen)
    if S.occ:
        return _escapes_table(bg_msb32(S.occ), O.made_seen)
    return 36


_init_escapes()


cdef inline void _summaries(const board_t* b, side_summary_t* S) noexcept nogil:
    cdef int32_t idx[N_SIDE_UNITS + 4]
    cdef real_t val[N_SIDE_UNITS + 4]
    _side(b.c[0], 0, idx, val, 0, &S[0])
    _side(b.c[1], 0, idx, val, 0, &S[1])


cdef int shots_36(const board_t* b, int roller) noexcept nogil:
    """Of the 36 rolls of ``roller``, how many hit at least one blot of the
    other side.  Direct and combination shots, checkers on the roller's bar
    entering first.  An approximation of the full rules: a hit with one die
    counts even when the rules would force both dice to be played and the
    other die could not be (about 0.4% of positions overcount by 2-6 rolls)."""
    cdef side_summary_t S[2]
    _summaries(b, S)
    return _shots(&S[roller], &S[1 - roller])


cdef int escapes_36(const board_t* b, int side) noexcept nogil:
    """Of 36 rolls, how many let ``side``'s rearmost checker get past every
    point the other side holds in the 12 pips in front of it (36 when none).
    An anchor of the other side in ``side``'s home board counts as a block
    too, so a rearmost checker already home in front of one scores 0."""
    cdef side_summary_t S[2]
    _summaries(b, S)
    return _escapes(&S[side], &S[1 - side])


# ---------------------------------------------------------------- encoders

cdef inline int _put(int32_t* idx, real_t* val, int k, int unit, real_t x) noexcept nogil:
    # written always, kept if nonzero: no branch to mispredict (buffers hold MAX_INPUTS)
    idx[k] = unit
    val[k] = x
    return k + (x != 0)


# n / d as the encoders round it (in double, then to float), by table: a division per
# feature was a fifth of the encoder's time.  Q_d[n] for every n a feature can take.
cdef real_t Q2[8], Q5[16], Q6[25], Q10[16], Q15[16], Q36[37], Q100[376]


cdef void _fill(real_t* q, int n, double d) noexcept nogil:
    cdef int i
    for i in range(n):
        q[i] = <real_t>(i / d)


cdef void _init_quotients() noexcept nogil:
    _fill(Q2, 8, 2.0); _fill(Q5, 16, 5.0); _fill(Q6, 25, 6.0); _fill(Q10, 16, 10.0)
    _fill(Q15, 16, 15.0); _fill(Q36, 37, 36.0); _fill(Q100, 376, 100.0)

_init_quotients()

# checkers on the 6 points of a home board (mask bits 1..6 or 19..24, shifted to 0..5)
cdef unsigned char POP6[64]
cdef void _init_pop6() noexcept nogil:
    cdef int i
    for i in range(64):
        POP6[i] = _popcount(i)

_init_pop6()


cdef inline void _expert_own(const side_summary_t* S, real_t* f) noexcept nogil:
    """The hand-made features of side S that need its checkers alone: f[k] for k in
    EXPERT_OWN (0-4, 7, 10, 11)."""
    f[0] = Q100[S.pips]
    f[1] = Q5[S.back]
    f[2] = Q6[POP6[(S.made >> 1) & 0x3F]]
    f[3] = Q6[_longest_run(S.made)]
    f[4] = Q2[POP6[(S.made >> 19) & 0x3F]]
    f[7] = Q5[_popcount(S.blot)]
    f[10] = Q15[S.outfield]
    f[11] = Q10[S.stack]


cdef inline void _expert_cross(const side_summary_t* S, const side_summary_t* O,
                               real_t* f) noexcept nogil:
    """... and those that need the other side O too: f[5], f[6], f[8], f[9]."""
    cdef int closed = POP6[(O.made >> 1) & 0x3F]         # the other side's home points made
    f[5] = Q36[_shots(O, S)]
    f[6] = Q36[_escapes(S, O)]
    f[8] = Q6[closed]
    # chance of NOT entering a checker, (closed / 6)^2, with one on the bar
    f[9] = Q36[closed * closed] if S.bar else 0


cdef inline int _put_features(const real_t* f, const int* which, int n, int base,
                              int32_t* idx, real_t* val, int k) noexcept nogil:
    cdef int j
    for j in range(n):
        k = _put(idx, val, k, base + which[j], f[which[j]])
    return k


# The expert features of one side by what they need: the side's checkers alone (the side on
# roll's go in the head, shared by sibling afterstates), or the other side's too.
cdef int EXPERT_OWN[8]
cdef int EXPERT_CROSS[4]
cdef int EXPERT_ALL[N_EXPERT_SIDE]
EXPERT_OWN[:] = [0, 1, 2, 3, 4, 7, 10, 11]
EXPERT_CROSS[:] = [5, 6, 8, 9]
EXPERT_ALL[:] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]

# Summation orders (see encoders.pxd): input indices in the order encode_sparse writes them.
cdef int32_t ORDER_ASCENDING[MAX_INPUTS]
cdef int32_t ORDER_EXPERT[222]


cdef void _init_orders() noexcept nogil:
    cdef int i, k = 0
    for i in range(MAX_INPUTS):
        ORDER_ASCENDING[i] = i
    for i in range(N_SIDE_UNITS):
        ORDER_EXPERT[k] = i; k += 1
    for i in range(8):
        ORDER_EXPERT[k] = N_POINT_UNITS + EXPERT_OWN[i]; k += 1
    for i in range(N_SIDE_UNITS, N_POINT_UNITS):
        ORDER_EXPERT[k] = i; k += 1
    for i in range(4):
        ORDER_EXPERT[k] = N_POINT_UNITS + EXPERT_CROSS[i]; k += 1
    for i in range(N_POINT_UNITS + N_EXPERT_SIDE, 222):
        ORDER_EXPERT[k] = i; k += 1

_init_orders()


cdef const int32_t* summation_order(int encoder) noexcept nogil:
    if encoder == ENC_EXPERT:
        return &ORDER_EXPERT[0]
    return &ORDER_ASCENDING[0]


cdef void encode_head(int encoder, const checker_t* on_roll, enc_head_t* head) noexcept nogil:
    head.nnz = _side(on_roll, 0, head.idx, head.val, 0, &head.side)
    if encoder == ENC_EXPERT:
        _expert_own(&head.side, head.expert)
        head.nnz = _put_features(head.expert, EXPERT_OWN, 8, N_POINT_UNITS,
                                 head.idx, head.val, head.nnz)


cdef int encode_tail(int encoder, const checker_t* other, const enc_head_t* head,
                     int32_t* idx, real_t* val) noexcept nogil:
    cdef const side_summary_t* S1 = &head.side
    cdef side_summary_t S0
    cdef real_t f[N_EXPERT_SIDE]
    cdef int k, i, n, run
    cdef bint race
    k = _side(other, N_SIDE_UNITS, idx, val, 0, &S0)
    if encoder == ENC_EXPERT:
        memcpy(f, head.expert, sizeof(f))
        _expert_cross(S1, &S0, f)
        k = _put_features(f, EXPERT_CROSS, 4, N_POINT_UNITS, idx, val, k)
        _expert_own(&S0, f)
        _expert_cross(&S0, S1, f)
        k = _put_features(f, EXPERT_ALL, N_EXPERT_SIDE, N_POINT_UNITS + N_EXPERT_SIDE, idx, val, k)
        k = _put(idx, val, k, 220, 1.0 if _is_race(S1, &S0) else 0.0)
        n = S1.pips - S0.pips           # (n / 100.0 rounds symmetrically about 0)
        k = _put(idx, val, k, 221, Q100[n] if n >= 0 else -Q100[-n])
        return k
    idx[k] = 196; val[k] = 1.0; k += 1      # turn units: side on roll = (1, 0)
    if encoder == ENC_TESAURO212:
        idx[k] = 198 if _is_race(S1, &S0) else 199; val[k] = 1.0; k += 1
        for i in range(2):
            run = _longest_run(S1.made if i == 0 else S0.made)
            for n in range(run if run < 6 else 6):
                idx[k] = 200 + 6 * i + n; val[k] = 1.0; k += 1
    return k


cdef int encode_sparse(int encoder, const board_t* b, int32_t* idx, real_t* val) noexcept nogil:
    """Write the nonzero inputs of ``b`` as (idx, val), in the encoder's summation order;
    return how many."""
    cdef enc_head_t head
    encode_head(encoder, b.c[1], &head)
    memcpy(idx, head.idx, head.nnz * sizeof(int32_t))
    memcpy(val, head.val, head.nnz * sizeof(real_t))
    return head.nnz + encode_tail(encoder, b.c[0], &head, idx + head.nnz, val + head.nnz)


cdef void encode_dense(int encoder, const board_t* b, real_t* out) noexcept nogil:
    cdef int32_t idx[MAX_INPUTS]
    cdef real_t val[MAX_INPUTS]
    cdef int k, nnz = encode_sparse(encoder, b, idx, val)
    memset(out, 0, encoder_size(encoder) * sizeof(real_t))
    for k in range(nnz):
        out[idx[k]] = val[k]


# ---------------------------------------------------------------- Python

def encoder_id(name: str) -> int:
    """The C id of encoder ``name`` (``ValueError`` listing the known names)."""
    try:
        return ENCODERS.index(name)
    except ValueError:
        raise ValueError(f"unknown encoder {name!r}; known: {', '.join(ENCODERS)}") from None


def input_order(name: str) -> np.ndarray:
    """The order (int32, one entry per input) in which a network's first layer sums the
    rows of encoder ``name``'s nonzero inputs: ascending, except that ``expert`` puts the
    side on roll's features that need its checkers alone (EXPERT_OWN) right after its
    point units, where sibling afterstates share them."""
    cdef int enc = encoder_id(name)
    cdef const int32_t* order = summation_order(enc)
    return np.array([order[i] for i in range(encoder_size(enc))], dtype=np.int32)


def _sparse_pairs(board, name: str) -> tuple:
    """(idx int32, val float32): encode_sparse's pairs for one position, in its order."""
    cdef int enc = encoder_id(name)
    cdef cnp.ndarray barr = validate_boards(np.asarray(board)[None])
    cdef int32_t idx[MAX_INPUTS]
    cdef real_t val[MAX_INPUTS]
    cdef int n = encode_sparse(enc, <const board_t*> cnp.PyArray_DATA(barr), idx, val)
    return (np.array([idx[i] for i in range(n)], dtype=np.int32),
            np.array([val[i] for i in range(n)], dtype=np.float32))


def n_inputs(name: str) -> int:
    """Number of inputs of encoder ``name``."""
    return _SIZES[encoder_id(name)]


def encode(boards, name: str = "tesauro198", out=None) -> np.ndarray:
    """Encode positions.

    Parameters
    ----------
    boards : array-like (N, 2, 25) or (2, 25)
        Positions, side on roll in row 1 (validated).
    name : str
        One of ``ENCODERS``.
    out : float32 array (N, n_inputs), optional
        Preallocated, C-contiguous buffer to fill.

    Returns
    -------
    float32 array (N, n_inputs), or (n_inputs,) for a single position.
    """
    cdef int enc = encoder_id(name)
    arr = np.asarray(boards)
    single = arr.ndim == 2
    cdef cnp.ndarray barr = validate_boards(arr[None] if single else arr)
    cdef Py_ssize_t n = barr.shape[0], i
    cdef int size = _SIZES[enc]
    if out is None:
        out = np.empty((n, size), dtype=np.float32)
    elif (not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != (n, size)
          or not out.flags.c_contiguous or not out.flags.writeable):
        raise ValueError(f"out must be a writeable C-contiguous float32 array of shape ({n}, {size})")
    cdef real_t[:, ::1] ov = out
    cdef const board_t* bp = <const board_t*> cnp.PyArray_DATA(barr)
    with nogil:
        for i in range(n):
            encode_dense(enc, &bp[i], &ov[i, 0])
    return out[0] if single else out


def _escapes_both(int p, blocked) -> tuple:
    """(by table, by search) escape counts of a checker on point ``p`` (25: the bar) past
    the points of the mask ``blocked`` (bit t: point t), for tests."""
    if not 1 <= p <= 25:
        raise ValueError(f"p must be 1..25, got {p}")
    cdef uint32_t m = <uint32_t>(int(blocked) & POINTS_MASK)
    return _escapes_table(p, m), _escapes_search(p, m)


def _shots_both(mine, blot, open_, int bar=0) -> tuple:
    """(AVX2 or None when this CPU lacks it, plain C) shot counts of a roller with ``bar``
    checkers on the bar: ``mine``, ``blot``, ``open_`` are point masks (bits 1..24) in the
    roller's numbering, ``blot`` within ``open_``.  For tests."""
    cdef uint32_t m = <uint32_t>(int(mine) & POINTS_MASK), o = <uint32_t>(int(open_) & POINTS_MASK)
    cdef uint32_t b = <uint32_t>(int(blot) & POINTS_MASK) & o
    if not 0 <= bar <= 15:
        raise ValueError(f"bar must be 0..15, got {bar}")
    if bar == 0:
        return (bg_shots_avx2(m, b, o) if bg_shots_use_avx2() else None), _shots_scalar(m, b, o)
    return (bg_shots_bar_avx2(m, b, o, bar) if bg_shots_use_avx2() else None), _shots_bar(m, b, o, bar)


def expert_features(board) -> dict:
    """The raw (unscaled) hand-made features of one position, for tests and
    inspection: shots and escapes out of 36 for each side, longest primes."""
    cdef cnp.ndarray barr = validate_boards(np.asarray(board)[None])
    cdef const board_t* b = <const board_t*> cnp.PyArray_DATA(barr)
    return {
        "shots_by_on_roll": shots_36(b, 1),
        "shots_by_opponent": shots_36(b, 0),
        "escapes_on_roll": escapes_36(b, 1),
        "escapes_opponent": escapes_36(b, 0),
        "prime_on_roll": longest_prime(b, 1),
        "prime_opponent": longest_prime(b, 0),
    }
