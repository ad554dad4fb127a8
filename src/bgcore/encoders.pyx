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
``contact``
    For contact networks (250 inputs), after GNU Backgammon's contact inputs (our own
    definitions and code).  Two halves of 125, the side on roll's (inputs 0..124) then the
    other side's (125..249), each: for its points 1..24 four units for ``n`` checkers,
    ``n == 1``, ``n >= 2``, ``n >= 3``, ``(n - 3) / 2`` if ``n > 3`` (half + 0..95); its bar
    ``n >= 1``, ``n >= 2``, ``n >= 3``, ``(n - 3) / 2`` (96..99); its ``n`` borne-off
    checkers ``min(n, 5) / 5``, ``clip(n - 5, 0, 5) / 5``, ``clip(n - 10, 0, 5) / 5``
    (100..102); then its 22 features (103..124), ``CONTACT_FEATURES``.  In a side's numbering
    (t = 1..24 its points, 25 its bar), q = the other side's rearmost point in *its*
    numbering (25 its bar, 0 when it has none left; a checker of ours on t is past it when
    t + q <= 24, behind it when t + q >= 26), "held" = two or more checkers,
    escapes(p) = rolls of 36 on which a checker on p alone gets past every held point of
    the other side among the 12 in front of it (36 when none; as the expert encoder's):

    0. pips / 100.
    1. rearmost checker t / 25 (0 when none).
    2. rearmost held point / 24 (0 when none).
    3. forward anchor: the most advanced point it holds in the other home board, in the
       other side's numbering k = 25 - t (1..6), else the rearmost it holds on 13..18
       (k = 7..12): k / 6; 2 when none.
    4. moment2: with A = the mean point of its checkers rounded up, the mean of
       (t - A)^2 over its checkers with t > A, / 400.
    5. backbone: its held points from the back, each gap d to the next weighted by the
       checkers on the rear point: c = 11 (d <= 6), 13 - d (d <= 11), 0; 1 - sum(c n) /
       (11 sum n); 0 with fewer than two held points.
    6. back game: with two or more held points on 19..24, (checkers on 19..25 - 3) / 4.
    7. ... with exactly one, checkers on 19..25 / 8.
    8. containment: 1 - min escapes / 36 of a checker of the other side on its points
       16..24 (our points 9..1) past our held points.
    9. (8) squared.
    10. containment up to the other side's rearmost: (8) over its points 16..min(q, 24);
        0 when q < 16.
    11. (10) squared.
    12. break contact: pips to get every checker behind the other side's rearmost past it,
        sum of n (t + q - 24) over t + q >= 26, / 167 (the opening: 1).
    13. free pips: pips of its checkers past the other side's rearmost / 100.
    14. timing / 100: pips (distance to its 1-point, t - 1) it can play before breaking its
        home board: checkers on the bar and on 7..24 are free, except that on 13..24 behind
        q a point keeps two (a blot gives one); home points give their checkers beyond two,
        and, from the 6-point down, a home point with fewer than two takes free checkers to
        fill it when enough are left (minus their pips); at least 0.
    15. P1: rolls of 36 on which it hits one or more of the other side's blots, / 36.
    16. P2: ... two or more, / 36.
    17. pip loss: sum over the 36 rolls of the pips the farthest blot it hits costs the
        other side (our point t: t pips), / 432.  15-17 count moves as shots_36 does: any
        sequence of single-die moves, bar checkers entering first, no forced-move rule.
    18. escapes of its rearmost checker / 36.
    19. mobility: sum over its checkers on 7..25 of (t - 6) escapes(t), / 3600.
    20. entering loss, with checkers on the bar: over the 36 rolls, the pips of dice that
        cannot enter (a double: 4d; both dice closed: both; with two or more on the bar,
        one closed die too), / 294 (all closed: 1); else 0.
    21. (closed points of the other home board / 6)^2.

    Features 0..9 need the side's checkers alone: the side on roll's join its units in the
    head; summation order: its units and features 0..9, the other side's units, its
    features 10..21, the other side's features.
``race``
    For race networks (235 inputs).  Two halves of 117 (side on roll 0..116, other
    117..233), each: its points 1..24 with contact's four units (0..95; a race has no bar
    checkers, so no bar units), 14 off units ``off > j`` for j = 0..13 (96..109), then 7
    features (110..116, ``RACE_FEATURES``): pips / 100; pips of checkers outside its home
    board / 50; crossovers to bring them home (a checker on 7..12 needs 1, 13..18 2, 19..24
    3, the bar 4) / 10; checkers outside home / 15; gaps: empty home points up to
    min(6, rearmost) / 6; checkers on its 1- and 2-points / 15 (wastage); all home (1 when
    every checker left is on 1..6).  Input 234: the side on roll's pip lead relative to
    its pips, (other - own) / own clipped to [-1, 1] (0 when own is 0).  Every half needs
    its side alone: the head is the side on roll's half; summation order ascending.
"""

import numpy as np
cimport numpy as cnp
from libc.stdint cimport uint32_t
from libc.string cimport memcmp, memcpy, memset

from bgengine.core._types cimport checker_t, int32_t, real_t
from bgengine.core.board cimport board_t, BAR
from bgengine.core.encoders cimport (ENC_TESAURO198, ENC_TESAURO212, ENC_EXPERT, ENC_CONTACT, ENC_RACE,
                                N_ENCODERS, MAX_INPUTS, N_SIDE_UNITS, N_EXPERT_SIDE,
                                N_CONTACT_SIDE, N_CONTACT_OWN, N_CONTACT_CROSS,
                                N_CONTACT_TAIL_FEATURES, side_summary_t, enc_head_t)

from bgengine.core.board import validate_boards

cnp.import_array()

#: Encoder names, in the order of their C ids.
ENCODERS = ("tesauro198", "tesauro198+extra", "expert", "contact", "race")
_SIZES = (198, 212, 222, 250, 235)

#: Names of the 12 per-side features of the expert encoder.
EXPERT_FEATURES = (
    "pips/100", "back checkers/5", "home points/6", "longest prime/6",
    "anchors/2", "shots against its blots/36", "escapes of rearmost/36",
    "blots/5", "closed points in the other home/6", "entering difficulty",
    "outfield checkers/15", "home stacking/10",
)

#: Names of the 22 per-side features of the contact encoder (the first 10 need the side's
#: checkers alone); feature ``k`` of the side on roll is input ``103 + k``, of the other
#: side ``228 + k``.
CONTACT_FEATURES = (
    "pips/100", "rearmost checker/25", "rearmost anchor/24", "forward anchor/6",
    "moment2/400", "backbone", "back game (2+ anchors)", "back game (1 anchor)",
    "containment", "containment^2",
    "containment to its rearmost", "containment to its rearmost^2", "break contact/167",
    "free pips/100", "timing/100", "rolls hitting 1+ (P1)/36", "rolls hitting 2+ (P2)/36",
    "pip loss/432", "escapes of rearmost/36", "mobility/3600", "entering loss/294",
    "closed entry points^2/36",
)
#: Names of the 7 per-side features of the race encoder: feature ``k`` of the side on roll
#: is input ``110 + k``, of the other side ``227 + k``; input 234 is the pip lead.
RACE_FEATURES = (
    "pips/100", "outside pips/50", "crossovers/10", "outside checkers/15", "home gaps/6",
    "checkers on the 1- and 2-points/15", "all home",
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
    if encoder == ENC_CONTACT:
        return 250
    if encoder == ENC_RACE:
        return 235
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


from bgengine.core.bitops cimport (bg_ctz32, bg_msb32, bg_mirror24, bg_point_masks,
                              bg_diff_mask25, bg_sum25, bg_diff_mask_f32, bg_ctz64,
                              bg_side_counts, bg_range_sums, bg_range_sums_t)

cdef extern from "encoders_simd.h":
    # the AVX2 shots and hits kernels (encoders_simd.h); -1 / 0 where AVX2 is missing
    int bg_shots_avx2(uint32_t mine, uint32_t blot, uint32_t open_) noexcept nogil
    int bg_shots_bar_avx2(uint32_t mine, uint32_t blot, uint32_t open_, int n_bar) noexcept nogil
    int bg_shots_use_avx2() noexcept nogil
    bint bg_two_direct(uint32_t Da, uint32_t Db, int a, int b, uint32_t made) noexcept nogil
    void bg_hits_avx2(uint32_t mine, uint32_t made, uint32_t blot, uint32_t open_,
                      int* p1, int* p2, int* loss) noexcept nogil
    void bg_hits_bar_avx2(uint32_t mine, uint32_t blot, uint32_t open_, int n_bar,
                          int* p1, int* p2, int* loss) noexcept nogil
    int bg_hits_use_avx2() noexcept nogil

cdef bint SHOTS_AVX2 = bg_shots_use_avx2()
cdef bint HITS_AVX2 = bg_hits_use_avx2()


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


cdef void _init_tables() noexcept nogil:
    cdef int n, i
    for n in range(16):
        UNIT_COUNT[n] = n if n <= 3 else 4
        for i in range(4):
            UNIT_VALUE[n][i] = 1.0 if i < 3 and n > i else 0.0
        UNIT_VALUE[n][3] = (n - 3) * 0.5 if n > 3 else 0.0

_init_tables()


cdef inline int _points(const checker_t* c, int base, int32_t* idx, real_t* val, int k,
                        side_summary_t* S, bint gnubg) noexcept nogil:
    """The units of one side's points 1..24 from input ``base``, four per point: tesauro's
    (n >= 1, n >= 2, n >= 3, (n - 3) / 2) or, with ``gnubg``, gnubg's (n == 1 first).  Four
    entries written per occupied point, ``k`` advanced by the nonzero ones (none with a
    NULL ``idx``).  And the side's summary (its sums branch-free, bg_side_counts).  (Inline
    with a constant ``gnubg``: one specialised loop each.)"""
    cdef uint32_t occ, blot, x
    cdef int i, n, u, total, pips, outfield, back, stack
    bg_point_masks(c, &occ, &blot)
    if idx != NULL:
        x = occ >> 1
        while x:
            i = bg_ctz32(x)
            x &= x - 1
            n = c[i]
            u = base + 4 * i
            if gnubg:
                # its nonzero units are not a prefix: their offsets come from a table
                idx[k] = u + G_OFF[n][0]; idx[k + 1] = u + G_OFF[n][1]
                idx[k + 2] = u + G_OFF[n][2]; idx[k + 3] = u + G_OFF[n][3]
                memcpy(&val[k], G_VAL[n], 4 * sizeof(real_t))
                k += G_COUNT[n]
            else:
                idx[k] = u; idx[k + 1] = u + 1; idx[k + 2] = u + 2; idx[k + 3] = u + 3
                memcpy(&val[k], UNIT_VALUE[n], 4 * sizeof(real_t))
                k += UNIT_COUNT[n]
    bg_side_counts(c, &total, &pips, &outfield, &back, &stack)
    n = c[BAR]
    S.occ, S.blot, S.made = occ, blot, occ & ~blot
    S.made_seen, S.blot_seen = bg_mirror24(S.made), bg_mirror24(blot)
    S.pips = pips + 25 * n
    S.back = back + n
    S.outfield = outfield
    S.stack = stack
    S.checkers = total + n
    S.bar = n
    return k


cdef inline int _side(const checker_t* c, int base, int32_t* idx, real_t* val, int k,
                      side_summary_t* S) noexcept nogil:
    """The 98 tesauro units of one side from input ``base`` (four entries written per point,
    ``k`` advanced by the nonzero ones), and its summary."""
    k = _points(c, base, idx, val, k, S, False)
    if S.bar:
        idx[k] = base + 96; val[k] = S.bar * 0.5; k += 1
    if S.checkers < 15:
        idx[k] = base + 97; val[k] = (15 - S.checkers) / 15.0; k += 1
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


# ---------------------------------------------------------------- contact and race encoders

# Layouts (see the module docstring).  Contact, per side (the side on roll from 0, the
# other from CONTACT_HALF): 4 units per point 1..24, 4 bar units, 3 off units, then its
# N_CONTACT_SIDE features.  Race, per side (from 0 and RACE_HALF): 4 units per point, 14
# off units, RACE_SIDE features; then the shared pip lead.
cdef enum:
    CONTACT_FEAT = 103                      # first feature of a contact half
    CONTACT_HALF = CONTACT_FEAT + 22        # N_CONTACT_SIDE
    CONTACT_SIZE = 2 * CONTACT_HALF         # 250
    RACE_FEAT = 110
    RACE_SIDE = 7
    RACE_HALF = RACE_FEAT + RACE_SIDE       # 117
    RACE_SIZE = 2 * RACE_HALF + 1           # 235

# gnubg-style units of a point with n checkers (n == 1, n >= 2, n >= 3, (n - 3) / 2): the
# nonzero ones' offsets (0..3, ascending) and values, and how many.  Unlike tesauro's, the
# nonzero units are not a prefix, so offsets come from a table.
cdef int G_COUNT[16]
cdef int32_t G_OFF[16][4]
cdef real_t G_VAL[16][4]
# off units: contact (n/5 thermometer in three: min(n, 5)/5, ...), as a prefix of 3
cdef int OFF3_COUNT[16]
cdef real_t OFF3_VAL[16][4]
# pips a side on the bar loses over the 36 rolls: ENTER_LOSS[two or more on the bar][mask of
# the other side's closed home points, bit d - 1: its point d, where die d enters]
cdef int ENTER_LOSS[2][64]
cdef real_t Q24[26], Q25[26], Q4[16], Q8[16], Q36SQ[37]
# 1 / n, and the mean point rounded up of n checkers with p pips: no divisions per encoding
cdef double RECIP[16]
cdef unsigned char MEAN_UP[16][376]


cdef void _init_contact_tables() noexcept nogil:
    cdef int n, j, two, m, d1, d2, b1, b2, loss
    cdef real_t u[4]
    for n in range(16):
        u[0] = 1.0 if n == 1 else 0.0
        u[1] = 1.0 if n >= 2 else 0.0
        u[2] = 1.0 if n >= 3 else 0.0
        u[3] = (n - 3) * 0.5 if n > 3 else 0.0
        G_COUNT[n] = 0
        for j in range(4):
            G_OFF[n][j] = 3             # unused entries: harmless writes past the count
            G_VAL[n][j] = 0.0
        for j in range(4):
            if u[j] != 0:
                G_OFF[n][G_COUNT[n]] = j
                G_VAL[n][G_COUNT[n]] = u[j]
                G_COUNT[n] += 1
        OFF3_VAL[n][0] = (n if n < 5 else 5) / 5.0
        OFF3_VAL[n][1] = (0 if n < 5 else (n - 5 if n < 10 else 5)) / 5.0
        OFF3_VAL[n][2] = (0 if n < 10 else n - 10) / 5.0
        OFF3_VAL[n][3] = 0.0
        OFF3_COUNT[n] = 0 if n == 0 else (1 if n <= 5 else (2 if n <= 10 else 3))
    for two in range(2):
        for m in range(64):
            loss = 0
            for d1 in range(1, 7):
                for d2 in range(1, 7):
                    b1 = (m >> (d1 - 1)) & 1
                    b2 = (m >> (d2 - 1)) & 1
                    if d1 == d2:
                        loss += 4 * d1 if b1 else 0
                    elif b1 and b2:
                        loss += d1 + d2
                    elif two:
                        loss += d1 * b1 + d2 * b2
            ENTER_LOSS[two][m] = loss
    _fill(Q24, 26, 24.0); _fill(Q25, 26, 25.0); _fill(Q4, 16, 4.0); _fill(Q8, 16, 8.0)
    for n in range(37):
        Q36SQ[n] = <real_t>((n / 36.0) * (n / 36.0))
    RECIP[0] = 0.0
    for n in range(1, 16):
        RECIP[n] = 1.0 / n
        for m in range(376):
            MEAN_UP[n][m] = (m + n - 1) // n

_init_contact_tables()


cdef inline int _contact_units(const checker_t* c, int base, int32_t* idx, real_t* val, int k,
                               side_summary_t* S) noexcept nogil:
    """The 103 contact units of one side: points, bar (n >= 1, n >= 2, n >= 3, (n - 3) / 2),
    off (min(n, 5) / 5, then the next five, then the last five)."""
    cdef int n, off
    k = _points(c, base, idx, val, k, S, True)
    n = S.bar
    idx[k] = base + 96; idx[k + 1] = base + 97; idx[k + 2] = base + 98; idx[k + 3] = base + 99
    memcpy(&val[k], UNIT_VALUE[n], 4 * sizeof(real_t))
    k += UNIT_COUNT[n]
    off = 15 - S.checkers
    idx[k] = base + 100; idx[k + 1] = base + 101; idx[k + 2] = base + 102
    memcpy(&val[k], OFF3_VAL[off], 3 * sizeof(real_t))
    return k + OFF3_COUNT[off]


cdef inline int _race_units(const checker_t* c, int base, int32_t* idx, real_t* val, int k,
                            side_summary_t* S) noexcept nogil:
    """The 110 race units of one side: points (no bar: a race has none), and 14 off units
    (off > j for j = 0..13)."""
    cdef int j, off
    k = _points(c, base, idx, val, k, S, True)
    off = 15 - S.checkers
    for j in range(off if off < 14 else 14):
        idx[k] = base + 96 + j; val[k] = 1.0; k += 1
    return k


cdef inline int _rearmost(const side_summary_t* S) noexcept nogil:
    """Rearmost point of a side in its numbering: 25 the bar, 0 when it has none left."""
    if S.bar:
        return 25
    return bg_msb32(S.occ) if S.occ else 0


cdef inline void _race_own(const checker_t* c, const side_summary_t* S, real_t* f) noexcept nogil:
    """The RACE_SIDE race features of one side (its checkers alone)."""
    cdef int outside = S.outfield + S.back, opips, cross, h, i
    cdef uint32_t home_occ
    opips = S.pips
    for i in range(6):
        opips -= (i + 1) * c[i]
    cross = S.outfield + (c[12] + c[13] + c[14] + c[15] + c[16] + c[17]) + 3 * (S.back - S.bar) \
        + 4 * S.bar
    h = _rearmost(S)
    if h > 6:
        h = 6
    home_occ = S.occ & ((2u << h) - 2)          # its points 1..h
    f[0] = Q100[S.pips]
    f[1] = <real_t>(opips * (1.0 / 50.0))
    f[2] = <real_t>(cross * (1.0 / 10.0))
    f[3] = Q15[outside]
    f[4] = Q6[h - _popcount(home_occ)]
    f[5] = Q15[c[0] + c[1]]
    f[6] = 1.0 if outside == 0 and S.checkers > 0 else 0.0


cdef inline int _race_side(const checker_t* c, int base, int32_t* idx, real_t* val, int k,
                           side_summary_t* S) noexcept nogil:
    cdef real_t f[RACE_SIDE]
    cdef int j
    k = _race_units(c, base, idx, val, k, S)
    _race_own(c, S, f)
    for j in range(RACE_SIDE):
        k = _put(idx, val, k, base + RACE_FEAT + j, f[j])
    return k


cdef inline int _containment(uint32_t made_seen, unsigned char* contain) noexcept nogil:
    """The running minima (contain[j], j = 0..8) of the escapes that the points of one side
    (``made_seen``: its made points in the other side's numbering) allow the other side's
    checkers on the other's points 16..16+j; returns the last, the fewest."""
    cdef int j, e, m = 36
    for j in range(9):
        e = _escapes_table(16 + j, made_seen)
        if e < m:
            m = e
        contain[j] = m
        if m == 0:              # fully contained from here on (common: skip the lookups)
            memset(&contain[j + 1], 0, 8 - j)
            break
    return m


cdef inline void _contact_own(const checker_t* c, const side_summary_t* S, real_t* f,
                              unsigned char* contain, bint have_contain) noexcept nogil:
    """Contact features 0..9 of one side (its checkers alone), and the running minima of
    escapes its points allow the other side's checkers on the other's points 16..24
    (_containment; with ``have_contain``, already in ``contain``)."""
    cdef int t, n, a, s, pa, d, w, tot, m
    cdef uint32_t x, made = S.made
    cdef bg_range_sums_t r
    f[0] = Q100[S.pips]
    f[1] = Q25[_rearmost(S)]
    f[2] = Q24[bg_msb32(made) if made else 0]
    # forward anchor: the most advanced point held in the other home (its numbering 1..6),
    # else the rearmost held in our 13..18 (its 7..12); 2 when none
    x = made & (0x3Fu << 19)
    if x:
        f[3] = Q6[25 - bg_ctz32(x)]
    else:
        x = made & (0x3Fu << 13)
        f[3] = Q6[25 - bg_msb32(x)] if x else 2.0
    # one-sided second moment beyond the mean point A (rounded up): sum of n (t - A)^2 over
    # t > A, as sum n t^2 - 2 A sum n t + A^2 sum n (the same integers)
    f[4] = 0.0
    if S.checkers:
        a = MEAN_UP[S.checkers][S.pips]
        bg_range_sums(c, a + 1, &r)
        n = r.n
        s = r.ntt - 2 * a * r.nt + a * a * r.n
        if S.bar and 25 > a:
            n += S.bar
            s += S.bar * (25 - a) * (25 - a)
        if n:
            f[4] = <real_t>(s * RECIP[n] * (1.0 / 400.0))
    # backbone: consecutive held points from the back, each gap d weighted by the checkers on
    # its rear point: 11 when d <= 6, 13 - d up to 11, else 0
    f[5] = 0.0
    x = made
    if x & (x - 1):
        w = tot = 0
        pa = bg_msb32(x)
        x &= ~(1u << pa)
        while x:
            t = bg_msb32(x)
            x &= ~(1u << t)
            d = pa - t
            w += c[pa - 1] * (11 if d <= 6 else (13 - d if d <= 11 else 0))
            tot += c[pa - 1]
            pa = t
        f[5] = <real_t>(1.0 - w * RECIP[tot] * (1.0 / 11.0))
    # back game: anchors in the other home, and the checkers there and on the bar
    a = POP6[(made >> 19) & 0x3F]
    f[6] = Q4[S.back - 3] if a >= 2 else 0.0
    f[7] = Q8[S.back] if a == 1 else 0.0
    # containment: fewest escapes of a checker on the other side's points 16..24
    m = contain[8] if have_contain else _containment(S.made_seen, contain)
    f[8] = Q36[36 - m]
    f[9] = Q36SQ[36 - m]


cdef inline void _dbl(uint32_t src, int d, int r, uint32_t open_m, uint32_t blot_m,
                      uint32_t* hit, bint* two) noexcept nogil:
    """A double of d: up to r steps, each path one checker from a point of src through open
    points.  hit: the blots some path lands on; two: some moves hit two blots (one
    checker passing both, or two checkers whose steps add up to at most r)."""
    cdef uint32_t R = src, A = 0, h, seen = 0
    cdef uint32_t K[4]
    cdef bint chain = False
    cdef int s
    K[0] = K[1] = K[2] = K[3] = 0
    for s in range(r):
        R = (R >> d) & open_m
        if R == 0:
            break
        h = R & blot_m
        if (A >> d) & blot_m:
            chain = True            # a checker that has hit lands on another blot
        A = ((A >> d) & open_m) | h
        K[s] = h & ~seen            # blots first reached in s + 1 steps
        seen |= h
    hit[0] = seen
    two[0] = (chain or (r >= 2 and _popcount(K[0]) >= 2) or (r >= 3 and K[0] and K[1])
              or (r >= 4 and ((K[0] and K[2]) or _popcount(K[1]) >= 2)))


cdef void _hits_scalar(uint32_t mine, uint32_t made, uint32_t blot_m, uint32_t open_m,
                       int* p1, int* p2, int* loss) noexcept nogil:
    """_hits of a roller with no checker on the bar (bg_hits_avx2 in plain C): branch-free
    but for P2, looked at only when a roll can hit two blots."""
    cdef uint32_t L[7]
    cdef uint32_t D[7]
    cdef uint32_t H, h2, r
    cdef int a, b, n1 = 0, n2 = 0, lost = 0
    cdef bint two, multi = (blot_m & (blot_m - 1)) != 0     # two blots or more: P2 possible
    for a in range(1, 7):
        L[a] = (mine >> a) & open_m
        D[a] = L[a] & blot_m
    for a in range(1, 7):
        r = L[a]
        H = r
        r = (r >> a) & open_m
        H |= r
        r = (r >> a) & open_m
        H |= r
        H = (H | ((r >> a) & open_m)) & blot_m
        n1 += H != 0
        lost += bg_msb32(H | 1)
        if multi and H & (H - 1):
            _dbl(mine, a, 4, open_m, blot_m, &h2, &two)
            n2 += two
        for b in range(a + 1, 7):
            H = D[a] | D[b] | (((L[a] >> b) | (L[b] >> a)) & blot_m)
            n1 += 2 * (H != 0)
            lost += 2 * bg_msb32(H | 1)
            if multi and H & (H - 1):
                n2 += 2 * ((D[a] >> b) & blot_m != 0 or (D[b] >> a) & blot_m != 0
                           or bg_two_direct(D[a], D[b], a, b, made))
    p1[0], p2[0], loss[0] = n1, n2, lost


cdef void _hits(const side_summary_t* R, const side_summary_t* O, int* p1, int* p2,
                int* loss) noexcept nogil:
    """R hitting the blots of O, over the 36 rolls: p1 rolls that hit one or more, p2 rolls
    that hit two or more, loss the sum over rolls of the most pips a hit costs O (the
    farthest blot hit; R's point t costs O t pips).  Moves as for shots_36: any sequence of
    single-die moves, bar checkers entering first."""
    cdef uint32_t blot_m = O.blot_seen
    cdef uint32_t open_m = ~O.made_seen & <uint32_t> POINTS_MASK
    cdef uint32_t mine = R.occ
    cdef int nb = R.bar
    p1[0] = p2[0] = loss[0] = 0
    if blot_m == 0:
        return
    if blot_m & (blot_m - 1) == 0:
        # one blot: no roll hits two, and every roll that hits costs O its point: the shots
        p1[0] = _shots(R, O)
        loss[0] = p1[0] * bg_ctz32(blot_m)
        return
    if nb == 0:
        if mine == 0 or bg_msb32(mine) <= bg_ctz32(blot_m):
            return                  # every blot is behind every checker of R
        if HITS_AVX2:
            bg_hits_avx2(mine, R.made, blot_m, open_m, p1, p2, loss)
        else:
            _hits_scalar(mine, R.made, blot_m, open_m, p1, p2, loss)
        return
    if HITS_AVX2:
        bg_hits_bar_avx2(mine, blot_m, open_m, nb, p1, p2, loss)
    else:
        _hits_bar(mine, blot_m, open_m, nb, p1, p2, loss)


cdef void _hits_bar(uint32_t mine, uint32_t blot_m, uint32_t open_m, int nb, int* p1, int* p2,
                    int* loss) noexcept nogil:
    """_hits of a roller with nb >= 1 checkers on the bar, which enter first (bg_hits_bar_avx2
    in plain C)."""
    cdef uint32_t H, h2, ea, eb, hit0
    cdef int a, b, w, n1 = 0, n2 = 0, lost = 0
    cdef bint two
    for a in range(1, 7):
        for b in range(a, 7):
            w = 1 if a == b else 2
            two = False
            ea = (1u << (25 - a)) & open_m
            if a == b:
                H = 0
                if ea:
                    hit0 = ea & blot_m
                    H = hit0
                    if nb < 4:
                        _dbl(mine | ea, a, 4 - nb, open_m, blot_m & ~ea, &h2, &two)
                        two = two or (hit0 != 0 and h2 != 0)
                        H |= h2
            else:
                eb = (1u << (25 - b)) & open_m
                if nb >= 2:
                    H = (ea | eb) & blot_m
                    two = (ea & blot_m) != 0 and (eb & blot_m) != 0
                else:
                    H = 0
                    if ea:                  # enter with a, then b with any checker
                        h2 = ((mine | ea) >> b) & blot_m & ~ea
                        H |= (ea & blot_m) | h2
                        two = two or ((ea & blot_m) != 0 and h2 != 0)
                    if eb:
                        h2 = ((mine | eb) >> a) & blot_m & ~eb
                        H |= (eb & blot_m) | h2
                        two = two or ((eb & blot_m) != 0 and h2 != 0)
            if H:
                n1 += w
                lost += w * bg_msb32(H)
                n2 += w * two
    p1[0], p2[0], loss[0] = n1, n2, lost


cdef inline int _timing_home(const checker_t* c, int spare, int tot) noexcept nogil:
    """The end of timing (see _q_terms): from the 6-point down, a home point gives its
    checkers beyond two, or takes free checkers to fill it (minus their pips) when enough
    are left."""
    cdef int t, n, need
    for t in range(6, 0, -1):
        n = c[t - 1]
        if n > 2:
            tot += (t - 1) * (n - 2)
            spare += n - 2
        elif n < 2:
            need = 2 - n
            if spare >= need:
                tot -= (t - 1) * need
                spare -= need
    return tot if tot > 0 else 0


cdef inline void _q_terms(const checker_t* c, const side_summary_t* S, int q,
                          int* terms) noexcept nogil:
    """Contact features of side S that depend on the other side through its rearmost point
    q alone: terms[Q_BREAK] pips to break contact, [Q_FREE] free pips, [Q_TIMING] timing.
    Its checkers on t >= 26 - q are behind q (t + q == 25 is one point for both sides:
    never); sums over ranges of points (bg_range_sums), no loop over them."""
    cdef int behind = 26 - q, m0 = 26 - q if q < 13 else 13, spare, tot
    cdef bg_range_sums_t R, F, M
    bg_range_sums(c, behind, &R)
    # pips to break contact: n (t + q - 24) over the checkers behind q (the bar's: q + 1);
    # free pips: those of the checkers past it
    terms[Q_BREAK] = R.nt + (q - 24) * R.n + (S.bar * (q + 1) if q else 0)
    terms[Q_FREE] = S.pips - 25 * S.bar - R.nt
    # timing's free checkers: the bar's and those on 7..24 (t - 1 pips each), but a point of
    # 13..24 behind q keeps two (a blot gives its one): two fewer per point held there
    bg_range_sums(c, 7, &F)
    bg_range_sums(c, m0, &M)
    spare = S.bar + F.n - 2 * M.made
    tot = 24 * S.bar + F.nt - F.n - 2 * (M.made_t - M.made)
    terms[Q_TIMING] = _timing_home(c, spare, tot)


# Escapes past a fixed set of points, remembered: the escapes of the tail side's checkers past
# the head side's points (enc_head_t.esc), the same for every sibling afterstate.  With a
# NULL table, computed each time.
cdef inline int _escapes_at(int p, uint32_t blocked, unsigned char* esc,
                            uint32_t* known) noexcept nogil:
    if esc == NULL:
        return _escapes_table(p, blocked)
    if not (known[0] >> p) & 1:
        esc[p] = <unsigned char> _escapes_table(p, blocked)
        known[0] |= 1u << p
    return esc[p]


cdef inline int _mobility(const checker_t* c, const side_summary_t* S, uint32_t blocked,
                          unsigned char* esc, uint32_t* known) noexcept nogil:
    """Checkers of side S outside home (bar: 25), each (t - 6) x its escapes past the points
    of ``blocked`` (the other side's made points in S's numbering; esc, known: as for
    _escapes_at)."""
    cdef int t, mob = 19 * S.bar * _escapes_at(25, blocked, esc, known) if S.bar else 0
    cdef uint32_t x = S.occ & ~(<uint32_t>0x7F)
    while x:
        t = bg_ctz32(x)
        x &= x - 1
        mob += (t - 6) * c[t - 1] * _escapes_at(t, blocked, esc, known)
    return mob


cdef inline void _contact_cross(const checker_t* c, const side_summary_t* S,
                                const unsigned char* contain, const side_summary_t* O,
                                const int* terms, unsigned char* esc, uint32_t* known,
                                const made_memo_t* memo, real_t* f) noexcept nogil:
    """Contact features 10..21 of side S, which need the other side O too; ``terms``: its
    _q_terms for O's rearmost point; ``esc``, ``known``: S's escapes past O's points
    remembered (_escapes_at), or NULL; ``memo``: S's escapes and mobility past O's made
    points (_made_memo), or NULL."""
    cdef int q = _rearmost(O), p1, p2, loss, closed, m, n
    # containment of O's checkers up to its rearmost
    if q >= 16:
        m = contain[(q if q < 24 else 24) - 16]
        f[10] = Q36[36 - m]
        f[11] = Q36SQ[36 - m]
    else:
        f[10] = f[11] = 0.0
    f[12] = <real_t>(terms[Q_BREAK] * (1.0 / 167.0))     # (a multiply: divisions cost here)
    f[13] = Q100[terms[Q_FREE]]
    f[14] = Q100[terms[Q_TIMING]]
    _hits(S, O, &p1, &p2, &loss)
    f[15] = Q36[p1]
    f[16] = Q36[p2]
    f[17] = <real_t>(loss * (1.0 / 432.0))
    # escapes of S's rearmost checker (_escapes), mobility
    if memo != NULL:
        f[18] = Q36[memo.escapes]
        f[19] = <real_t>(memo.mobility * (1.0 / 3600.0))
    else:
        f[18] = Q36[_escapes_at(_rearmost(S), O.made_seen, esc, known) if S.bar or S.occ
                    else 36]
        f[19] = <real_t>(_mobility(c, S, O.made_seen, esc, known) * (1.0 / 3600.0))
    closed = (O.made >> 1) & 0x3F               # O's home points held: S's entry points
    f[20] = <real_t>(ENTER_LOSS[S.bar >= 2][closed] * (1.0 / 294.0)) if S.bar else 0.0
    n = POP6[closed]
    f[21] = Q36[n * n]


cdef inline void _contact_cross_all(const checker_t* c, const side_summary_t* S,
                                    const unsigned char* contain, const side_summary_t* O,
                                    unsigned char* esc, uint32_t* known,
                                    real_t* f) noexcept nogil:
    """_contact_cross with S's _q_terms computed here."""
    cdef int terms[N_Q_TERMS]
    _q_terms(c, S, _rearmost(O), terms)
    _contact_cross(c, S, contain, O, terms, esc, known, NULL, f)


cdef inline made_memo_t* _made_memo(enc_head_t* head,
                                    const side_summary_t* O) noexcept nogil:
    """The head's made_memo_t slot of the tail side O's made points, filled if new: the
    head side's escapes and mobility past them, O's containment minima."""
    cdef const side_summary_t* S = &head.side
    cdef uint32_t key = O.made_seen | 1
    # Fibonacci hashing: the top bits of key times 2^32 / golden ratio
    cdef made_memo_t* slot = &head.made_memo[(key * <uint32_t>0x9E3779B1) >> (32 - MADE_MEMO_BITS)]
    if slot.key != key:
        slot.key = key
        slot.escapes = <unsigned char>(_escapes_table(_rearmost(S), O.made_seen)
                                       if S.bar or S.occ else 36)
        slot.mobility = _mobility(head.c, S, O.made_seen, NULL, NULL)
        _containment(O.made_seen, slot.contain)
    return slot


cdef inline int _contact_put(const real_t* f, int lo, int hi, int base, int32_t* idx,
                             real_t* val, int k) noexcept nogil:
    cdef int j
    for j in range(lo, hi):
        k = _put(idx, val, k, base + CONTACT_FEAT + j, f[j])
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
cdef int32_t ORDER_CONTACT[CONTACT_SIZE]


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
    # contact: the side on roll's units and own features (the head), the other side's units,
    # the side on roll's features that need both, the other side's features
    k = 0
    for i in range(CONTACT_FEAT + N_CONTACT_OWN):
        ORDER_CONTACT[k] = i; k += 1
    for i in range(CONTACT_HALF, CONTACT_HALF + CONTACT_FEAT):
        ORDER_CONTACT[k] = i; k += 1
    for i in range(CONTACT_FEAT + N_CONTACT_OWN, CONTACT_HALF):
        ORDER_CONTACT[k] = i; k += 1
    for i in range(CONTACT_HALF + CONTACT_FEAT, CONTACT_SIZE):
        ORDER_CONTACT[k] = i; k += 1

_init_orders()


cdef const int32_t* summation_order(int encoder) noexcept nogil:
    if encoder == ENC_EXPERT:
        return &ORDER_EXPERT[0]
    if encoder == ENC_CONTACT:
        return &ORDER_CONTACT[0]
    return &ORDER_ASCENDING[0]      # race too: its head is its first half


cdef void encode_head(int encoder, const checker_t* on_roll, enc_head_t* head) noexcept nogil:
    cdef real_t f[N_CONTACT_SIDE]
    if encoder == ENC_CONTACT:
        head.nnz = _contact_units(on_roll, 0, head.idx, head.val, 0, &head.side)
        memcpy(head.c, on_roll, 25)
        head.q_known = 0
        head.esc_known = 0
        memset(head.made_memo, 0, sizeof(head.made_memo))
        _contact_own(on_roll, &head.side, f, head.contain, False)
        head.nnz = _contact_put(f, 0, N_CONTACT_OWN, 0, head.idx, head.val, head.nnz)
        return
    if encoder == ENC_RACE:
        head.nnz = _race_side(on_roll, 0, head.idx, head.val, 0, &head.side)
        return
    head.nnz = _side(on_roll, 0, head.idx, head.val, 0, &head.side)
    if encoder == ENC_EXPERT:
        _expert_own(&head.side, head.expert)
        head.nnz = _put_features(head.expert, EXPERT_OWN, 8, N_POINT_UNITS,
                                 head.idx, head.val, head.nnz)


cdef int encode_tail(int encoder, const checker_t* other, enc_head_t* head,
                     int32_t* idx, real_t* val) noexcept nogil:
    return encode_tail_features(encoder, other, head, idx, val, NULL)


cdef int encode_tail_features(int encoder, const checker_t* other, enc_head_t* head,
                              int32_t* idx, real_t* val, real_t* feat) noexcept nogil:
    cdef const side_summary_t* S1 = &head.side
    cdef side_summary_t S0
    cdef real_t f[N_CONTACT_SIDE]
    cdef int k, i, n, run, q
    cdef bint race
    cdef made_memo_t* memo
    cdef double lead
    if encoder == ENC_CONTACT:
        if idx == NULL:             # the features alone: the other side's summary
            k = _points(other, 0, NULL, NULL, 0, &S0, True)
        else:
            k = _contact_units(other, CONTACT_HALF, idx, val, 0, &S0)
        # the side on roll's terms that depend on the other side through its rearmost
        # point alone: made once per rearmost point for all the tails of this head
        q = _rearmost(&S0)
        if not (head.q_known >> q) & 1:
            _q_terms(head.c, S1, q, head.q_terms[q])
            head.q_known |= 1u << q
        memo = _made_memo(head, &S0)
        _contact_cross(head.c, S1, head.contain, &S0, head.q_terms[q], NULL, NULL, memo, f)
        if feat != NULL:
            memcpy(feat, &f[N_CONTACT_OWN], N_CONTACT_CROSS * sizeof(real_t))
        if idx != NULL:
            k = _contact_put(f, N_CONTACT_OWN, N_CONTACT_SIDE, 0, idx, val, k)
        _contact_own(other, &S0, f, memo.contain, True)
        _contact_cross_all(other, &S0, memo.contain, S1, head.esc, &head.esc_known, f)
        if feat != NULL:
            memcpy(&feat[N_CONTACT_CROSS], f, N_CONTACT_SIDE * sizeof(real_t))
        if idx == NULL:
            return 0
        return _contact_put(f, 0, N_CONTACT_SIDE, CONTACT_HALF, idx, val, k)
    if encoder == ENC_RACE:
        k = _race_side(other, RACE_HALF, idx, val, 0, &S0)
        # the side on roll's lead, relative to its pips, within [-1, 1]
        lead = (S0.pips - S1.pips) / <double>S1.pips if S1.pips else 0.0
        lead = 1.0 if lead > 1.0 else (-1.0 if lead < -1.0 else lead)
        return _put(idx, val, k, RACE_SIZE - 1, <real_t>lead)
    k = _side(other, N_SIDE_UNITS, idx, val, 0, &S0)
    if encoder == ENC_EXPERT:
        memcpy(f, head.expert, N_EXPERT_SIDE * sizeof(real_t))
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


# The dense units of a point with n checkers by offset (0..3), contact's (n == 1 first) and
# the bar's (n >= 1 first): unit differences between two counts without compacting.
cdef real_t G_DENSE[16][4]


cdef void _init_dense_units() noexcept nogil:
    cdef int n
    for n in range(16):
        G_DENSE[n][0] = 1.0 if n == 1 else 0.0
        G_DENSE[n][1] = 1.0 if n >= 2 else 0.0
        G_DENSE[n][2] = 1.0 if n >= 3 else 0.0
        G_DENSE[n][3] = (n - 3) * 0.5 if n > 3 else 0.0

_init_dense_units()


# The unit differences of a point whose count goes from a to b (UNIT_DELTA[0], contact's dense
# units G_DENSE) or of the bar (UNIT_DELTA[1], UNIT_VALUE), the nonzero ones first in unit
# order: contact_tail_delta copies four and keeps n, the same pairs a loop over the four
# units writes, without its per-unit compare.
ctypedef struct unit_delta_t:
    int32_t off[4]          # unit offsets 0..3 of the nonzero differences, then 0
    real_t val[4]           # the differences (b's value - a's), then 0
    int n                   # how many are nonzero


cdef unit_delta_t UNIT_DELTA[2][16][16]


cdef void _init_unit_deltas() noexcept nogil:
    cdef int bar, a, b, j, n
    cdef real_t d
    cdef const real_t* ga
    cdef const real_t* gb
    cdef unit_delta_t* e
    for bar in range(2):
        for a in range(16):
            for b in range(16):
                ga = &UNIT_VALUE[a][0] if bar else &G_DENSE[a][0]
                gb = &UNIT_VALUE[b][0] if bar else &G_DENSE[b][0]
                e = &UNIT_DELTA[bar][a][b]
                n = 0
                for j in range(4):
                    e.off[j] = 0
                    e.val[j] = 0.0
                for j in range(4):
                    d = gb[j] - ga[j]
                    if d != 0:
                        e.off[n] = j
                        e.val[n] = d
                        n += 1
                e.n = n

_init_unit_deltas()


# Feature k of a contact tail's dense features (encode_tail_features): its input index.
cdef int32_t TAIL_FEATURE_INPUT[N_CONTACT_TAIL_FEATURES]


cdef void _init_tail_feature_inputs() noexcept nogil:
    cdef int j
    for j in range(N_CONTACT_CROSS):
        TAIL_FEATURE_INPUT[j] = CONTACT_FEAT + N_CONTACT_OWN + j
    for j in range(N_CONTACT_SIDE):
        TAIL_FEATURE_INPUT[N_CONTACT_CROSS + j] = CONTACT_HALF + CONTACT_FEAT + j

_init_tail_feature_inputs()


cdef int contact_tail_delta(const checker_t* ref_c, const real_t* ref_feat,
                            const checker_t* c, const real_t* feat,
                            int32_t* didx, real_t* dval) noexcept nogil:
    cdef uint32_t diff = bg_diff_mask25(ref_c, c)
    cdef unsigned long long fdiff
    cdef int i, j, a, b, u, nd = 0
    cdef const unit_delta_t* e
    cdef real_t d
    if diff:
        # the other side's units (from CONTACT_HALF): those of each point that changed and
        # of its bar (UNIT_DELTA), and the off units when its count of checkers changed
        while diff:
            i = bg_ctz32(diff)
            diff &= diff - 1
            e = &UNIT_DELTA[i == BAR][ref_c[i]][c[i]]
            u = CONTACT_HALF + 4 * i
            for j in range(4):
                didx[nd + j] = u + e.off[j]
                dval[nd + j] = e.val[j]
            nd += e.n
        a = 15 - bg_sum25(ref_c)
        b = 15 - bg_sum25(c)
        if a != b:
            for j in range(3):
                d = OFF3_VAL[b][j] - OFF3_VAL[a][j]
                didx[nd] = CONTACT_HALF + 100 + j
                dval[nd] = d
                nd += d != 0
    fdiff = bg_diff_mask_f32(feat, ref_feat, N_CONTACT_TAIL_FEATURES)
    while fdiff:
        j = bg_ctz64(fdiff)
        fdiff &= fdiff - 1
        didx[nd] = TAIL_FEATURE_INPUT[j]
        dval[nd] = feat[j] - ref_feat[j]
        nd += 1
    return nd


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


def _head_tail_pairs(board, name: str) -> tuple:
    """((idx, val) of encode_head of the side on roll, (idx, val) of encode_tail), as
    int32 / float32 arrays, for tests: concatenated they are _sparse_pairs."""
    cdef int enc = encoder_id(name)
    cdef cnp.ndarray barr = validate_boards(np.asarray(board)[None])
    cdef const board_t* b = <const board_t*> cnp.PyArray_DATA(barr)
    cdef enc_head_t head
    cdef int32_t idx[MAX_INPUTS]
    cdef real_t val[MAX_INPUTS]
    cdef int n
    encode_head(enc, b.c[1], &head)
    n = encode_tail(enc, b.c[0], &head, idx, val)
    return ((np.array([head.idx[i] for i in range(head.nnz)], dtype=np.int32),
             np.array([head.val[i] for i in range(head.nnz)], dtype=np.float32)),
            (np.array([idx[i] for i in range(n)], dtype=np.int32),
             np.array([val[i] for i in range(n)], dtype=np.float32)))


def _shared_head_tails(boards, name: str) -> list:
    """encode_tail's (idx, val) of each of ``boards`` (positions with the same side on roll,
    row 1) in turn under one head, that of the first, as a search encodes siblings (the
    head's caches filled as the tails come), for tests: each the tail of _head_tail_pairs."""
    cdef int enc = encoder_id(name)
    cdef cnp.ndarray barr = validate_boards(np.asarray(boards))
    cdef const board_t* b = <const board_t*> cnp.PyArray_DATA(barr)
    cdef enc_head_t head
    cdef int32_t idx[MAX_INPUTS]
    cdef real_t val[MAX_INPUTS]
    cdef Py_ssize_t i, n_boards = barr.shape[0]
    cdef int n
    if n_boards and np.any(barr[:, 1] != barr[0, 1]):
        raise ValueError("the boards must share the side on roll's checkers (row 1)")
    out = []
    if n_boards:
        encode_head(enc, b[0].c[1], &head)
    for i in range(n_boards):
        n = encode_tail(enc, b[i].c[0], &head, idx, val)
        out.append((np.array([idx[k] for k in range(n)], dtype=np.int32),
                    np.array([val[k] for k in range(n)], dtype=np.float32)))
    return out


def _contact_tail_delta(ref_board, board) -> np.ndarray:
    """contact_tail_delta of two positions with the same side on roll (row 1), as a dense
    float32 vector of the 250 contact inputs (0 where they agree), for tests: the contact
    encoding of ``board`` minus that of ``ref_board``."""
    cdef cnp.ndarray rarr = validate_boards(np.asarray(ref_board)[None])
    cdef cnp.ndarray barr = validate_boards(np.asarray(board)[None])
    cdef const board_t* r = <const board_t*> cnp.PyArray_DATA(rarr)
    cdef const board_t* b = <const board_t*> cnp.PyArray_DATA(barr)
    if memcmp(r.c[1], b.c[1], sizeof(b.c[1])) != 0:
        raise ValueError("the two positions' sides on roll differ: they share no head")
    cdef enc_head_t head
    cdef int32_t idx[MAX_INPUTS]
    cdef real_t val[MAX_INPUTS]
    cdef int32_t didx[4 * 25 + 3 + N_CONTACT_TAIL_FEATURES]
    cdef real_t dval[4 * 25 + 3 + N_CONTACT_TAIL_FEATURES]
    cdef real_t rfeat[N_CONTACT_TAIL_FEATURES]
    cdef real_t feat[N_CONTACT_TAIL_FEATURES]
    cdef int k, nd
    encode_head(ENC_CONTACT, r.c[1], &head)
    encode_tail_features(ENC_CONTACT, r.c[0], &head, idx, val, rfeat)
    encode_tail_features(ENC_CONTACT, b.c[0], &head, idx, val, feat)
    nd = contact_tail_delta(r.c[0], rfeat, b.c[0], feat, didx, dval)
    out = np.zeros(CONTACT_SIZE, dtype=np.float32)
    for k in range(nd):
        if out[didx[k]] != 0:
            raise AssertionError(f"input {didx[k]} listed twice")
        out[didx[k]] = dval[k]
    return out


def _encode_timed(boards, name: str, bint head_only=False, bint siblings=False) -> tuple:
    """(pairs written, seconds of this thread's CPU time: a shared machine's other jobs do
    not count): encode_sparse of every position in one nogil loop, for benchmarks.  With
    ``head_only``, just encode_head of its side on roll.  With ``siblings``, the boards are
    afterstates (the side that moved in row 1, not swapped) encoded in place as a search
    does it: one encode_head shared by consecutive ones whose side to roll next (row 0) is
    the same, then encode_tail."""
    import time
    cdef int enc = encoder_id(name)
    cdef cnp.ndarray barr = validate_boards(np.asarray(boards))
    cdef const board_t* bp = <const board_t*> cnp.PyArray_DATA(barr)
    cdef Py_ssize_t n = barr.shape[0], i, last = -1
    cdef long total = 0
    cdef int32_t idx[MAX_INPUTS]
    cdef real_t val[MAX_INPUTS]
    cdef enc_head_t head
    t0 = time.thread_time()
    with nogil:
        for i in range(n):
            if siblings:
                if last < 0 or memcmp(bp[last].c[0], bp[i].c[0], sizeof(bp[i].c[0])) != 0:
                    encode_head(enc, bp[i].c[0], &head)
                    total += head.nnz
                    last = i
                total += encode_tail(enc, bp[i].c[1], &head, idx, val)
            elif head_only:
                encode_head(enc, bp[i].c[1], &head)
                total += head.nnz
            else:
                total += encode_sparse(enc, &bp[i], idx, val)
    return total, time.thread_time() - t0


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


def _hits_both(mine, made, blot, open_, int bar=0) -> tuple:
    """((p1, p2, pip loss) by AVX2 or None when this CPU lacks it, the same in plain C) of a
    roller with ``bar`` checkers on the bar: point masks (bits 1..24) in the roller's
    numbering, ``made`` within ``mine``, ``blot`` within ``open_``.  For tests."""
    cdef uint32_t m = <uint32_t>(int(mine) & POINTS_MASK), o = <uint32_t>(int(open_) & POINTS_MASK)
    cdef uint32_t b = <uint32_t>(int(blot) & POINTS_MASK) & o
    cdef uint32_t md = <uint32_t>(int(made) & POINTS_MASK) & m
    cdef int p1, p2, loss, q1, q2, qloss
    if not 0 <= bar <= 15:
        raise ValueError(f"bar must be 0..15, got {bar}")
    if bar == 0:
        _hits_scalar(m, md, b, o, &p1, &p2, &loss)
    else:
        _hits_bar(m, b, o, bar, &p1, &p2, &loss)
    if not bg_hits_use_avx2():
        return None, (p1, p2, loss)
    if bar == 0:
        bg_hits_avx2(m, md, b, o, &q1, &q2, &qloss)
    else:
        bg_hits_bar_avx2(m, b, o, bar, &q1, &q2, &qloss)
    return (q1, q2, qloss), (p1, p2, loss)


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


def contact_features(board) -> dict:
    """Raw (unscaled) contact features of one position, for tests and inspection: for each
    side (``"on_roll"``, ``"opponent"``): ``p1``, ``p2`` (rolls of 36 on which it hits one
    or more, two or more of the other side's blots), ``pip_loss`` (sum over the 36 rolls of
    the pips the farthest blot it hits would cost the other side), ``timing``,
    ``escapes``, ``rearmost``; and ``scaled``: its 22 features as encoded."""
    cdef cnp.ndarray barr = validate_boards(np.asarray(board)[None])
    cdef const board_t* b = <const board_t*> cnp.PyArray_DATA(barr)
    cdef side_summary_t S[2]
    cdef real_t f[N_CONTACT_SIDE]
    cdef unsigned char contain[9]
    cdef int p1, p2, loss, side
    out = {}
    for side, key in ((1, "on_roll"), (0, "opponent")):
        _summaries(b, S)
        _hits(&S[side], &S[1 - side], &p1, &p2, &loss)
        _contact_own(b.c[side], &S[side], f, contain, False)
        _contact_cross_all(b.c[side], &S[side], contain, &S[1 - side], NULL, NULL, f)
        out[key] = {"p1": p1, "p2": p2, "pip_loss": loss,
                    "timing": int(round(f[14] * 100)),
                    "escapes": _escapes(&S[side], &S[1 - side]), "rearmost": _rearmost(&S[side]),
                    "scaled": np.array([f[i] for i in range(N_CONTACT_SIDE)], dtype=np.float32)}
    return out


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
