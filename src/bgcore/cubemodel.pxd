# The cube model in C, for cubeful rollouts and the cubeful search: the same Janowski-style
# model as bgengine.decisions.cube (its docstring gives the method), so that a rollout's and
# a search's cube actions are the ones the engine takes when it plays.
#
# The score enters as a table of what the game's outcomes are worth at every cube level
# (cube_table_t): match-winning chances in a match, points per the root's cube in money
# play.  The fully live line of a side at level n runs through (0, L), its take point
# (T, value of losing the cube), its cash point (C, value of winning it) and (1, W), L and W
# the values of losing and winning with this position's gammon rates; the take points come
# from the same lines one level up, recursively, down from the last level (where nobody can
# double): with the money table's MONEY_LEVELS levels, the Python model's _MONEY_LEVELS, the
# same numbers in double precision.  The table holds both orientations: orientation 0 has
# the root's side on roll, 1 the other side; a node's other side reads the other one.
# Header-only (inline): cimporting it adds no module.
#
#     cdef cube_table_t t                             # table_fill(&t, values, live, ...)
#     cdef table_cube_t m
#     table_cube_init(&m, &t, 0, five, x)             # five: gnubg's outputs, side on roll
#     table_cube_decide(&m, 0, OWNER_CENTRE, &d)      # d.no_double, d.double_take, ...

from libc.math cimport fmax
from libc.string cimport memcpy

from bgengine.core._types cimport real_t, checker_t
from bgengine.core.bitops cimport bg_pips
from bgengine.core.board cimport board_t
from bgengine.core.positionclass cimport position_class, POS_RACE

cdef enum:
    MONEY_LEVELS = 12       # cube levels of the take-point recursion (bgengine.decisions.cube)
    OWNER_CENTRE = 0        # who holds the cube, from the side on roll
    OWNER_ME = 1
    OWNER_OPPONENT = 2


# gnubg's five outputs (win, win gammon, win backgammon, lose gammon, lose backgammon) from
# an evaluator's K outputs (no gammons where it has none).
cdef inline void cube_five(int K, const real_t* v, real_t* five) noexcept nogil:
    five[1] = 0; five[2] = 0; five[3] = 0; five[4] = 0
    five[0] = v[0]
    if K == 5:
        memcpy(five, v, 5 * sizeof(real_t))
    elif K == 4:
        five[1] = v[2]
        five[3] = v[3]


ctypedef struct cube_choice_t:
    double no_double            # the doubler's cubeful values, in the table's units
    double double_take
    double double_pass
    bint can_double             # the side on roll has access
    bint double                 # ... and should double
    bint take                   # the other side should take a double


cdef inline double _line_at(const double* xs, const double* ys, int k, double p) noexcept nogil:
    cdef int i
    for i in range(k - 1):
        if p <= xs[i + 1]:
            if xs[i + 1] <= xs[i]:
                return ys[i]
            return ys[i] + (ys[i + 1] - ys[i]) * (p - xs[i]) / (xs[i + 1] - xs[i])
    return ys[k - 1]


# The least p with line(p) >= target (the lines are non-decreasing).
cdef inline double _line_solve(const double* xs, const double* ys, int k,
                               double target) noexcept nogil:
    cdef int i
    if target <= ys[0]:
        return 0.0
    for i in range(k - 1):
        if target <= ys[i + 1]:
            if ys[i + 1] <= ys[i]:
                return xs[i]
            return xs[i] + (xs[i + 1] - xs[i]) * (target - ys[i]) / (ys[i + 1] - ys[i])
    return 1.0


# gnubg's five outputs made consistent: win in 0..1, each gammon rate within its side's
# chance, each backgammon rate within its gammons.
cdef inline void _clean_five(const real_t* five, double* c) noexcept nogil:
    cdef double win = five[0], lose
    win = 0.0 if win < 0.0 else (1.0 if win > 1.0 else win)
    lose = 1.0 - win
    c[0] = win
    c[1] = 0.0 if five[1] < 0.0 else (win if five[1] > win else five[1])
    c[3] = 0.0 if five[3] < 0.0 else (lose if five[3] > lose else five[3])
    c[2] = 0.0 if five[2] < 0.0 else (c[1] if five[2] > c[1] else five[2])
    c[4] = 0.0 if five[4] < 0.0 else (c[3] if five[4] > c[3] else five[4])


# The cube efficiency of b (row 1 on roll; bgengine.decisions.cube.CubeEfficiency):
# x[c] for a position of class c (positionclass.pxd) in contact, and in a race gnubg's
# rule, 0.55 + 0.00125 pips of the side on roll within 0.6..0.7.
cdef inline double money_cube_efficiency(const board_t* b, const double* x) noexcept nogil:
    cdef double r
    cdef int c = position_class(b)
    if c != POS_RACE:
        return x[c]
    r = 0.55 + 0.00125 * bg_pips(b.c[1])
    return 0.6 if r < 0.6 else (0.7 if r > 0.7 else r)


# ---------------------------------------------------------------- the model at a score

cdef enum:
    TABLE_LEVELS = 16           # cube levels of a table: the root's cube times 1 .. 2**15

ctypedef struct cube_table_t:
    double value[2][TABLE_LEVELS][7]    # value[o][n][k + 3]: the side on roll in orientation
                                        # o winning k (k < 0: losing -k) times the cube at
                                        # level n (the root's cube times 2**n)
    bint live[2][TABLE_LEVELS]          # that side could usefully double from level n
    int levels                          # levels in use; none is live at the last
    double complement                   # a side's value plus the other side's: 0 or 1
    bint jacoby                         # money: gammons count only once the cube is turned

# Fill t from C arrays: values (2, levels, 7) and live (2, levels), row-major (the arrays of
# bgengine.core.cuberollout.check_table).
cdef inline void table_fill(cube_table_t* t, const double* values, const unsigned char* live,
                            int levels, double complement, bint jacoby) noexcept nogil:
    cdef int o, n, k
    t.levels = levels
    t.complement = complement
    t.jacoby = jacoby
    for o in range(2):
        for n in range(levels):
            t.live[o][n] = live[o * levels + n] != 0
            for k in range(7):
                t.value[o][n][k] = values[(o * levels + n) * 7 + k]

ctypedef struct table_cube_t:
    const cube_table_t* t
    int o                       # orientation of the side on roll
    double p                    # its win chance (clamped to 0..1)
    double mix[2][3]            # side s's single, gammon, backgammon shares of its wins
    double take[2][TABLE_LEVELS]    # take[s][n]: side s's take point of a double from level n
    double x                    # cube efficiency


cdef inline double table_value(const table_cube_t* m, int s, int n, int k) noexcept nogil:
    """Side s (0 on roll) winning k times the cube at level n."""
    return m.t.value[m.o if s == 0 else 1 - m.o][n][k + 3]


cdef inline bint table_live(const table_cube_t* m, int s, int n) noexcept nogil:
    return m.t.live[m.o if s == 0 else 1 - m.o][n]


cdef inline double _table_win(const table_cube_t* m, int s, int n, bint gammons) noexcept nogil:
    if not gammons:
        return table_value(m, s, n, 1)
    return (m.mix[s][0] * table_value(m, s, n, 1) + m.mix[s][1] * table_value(m, s, n, 2)
            + m.mix[s][2] * table_value(m, s, n, 3))


cdef inline double _table_lose(const table_cube_t* m, int s, int n, bint gammons) noexcept nogil:
    if not gammons:
        return table_value(m, s, n, -1)
    return (m.mix[1 - s][0] * table_value(m, s, n, -1)
            + m.mix[1 - s][1] * table_value(m, s, n, -2)
            + m.mix[1 - s][2] * table_value(m, s, n, -3))


cdef inline int _table_line(const table_cube_t* m, int s, int n, bint can_double,
                            bint opp_can_double, bint gammons, double* xs,
                            double* ys) noexcept nogil:
    """Side s's line at level n, as _money_line's."""
    cdef int k = 0, i
    xs[k] = 0.0; ys[k] = _table_lose(m, s, n, gammons); k += 1
    if opp_can_double:
        xs[k] = m.take[s][n]; ys[k] = table_value(m, s, n, -1); k += 1
    if can_double:
        xs[k] = 1.0 - m.take[1 - s][n]; ys[k] = table_value(m, s, n, 1); k += 1
    xs[k] = 1.0; ys[k] = _table_win(m, s, n, gammons); k += 1
    for i in range(1, k):
        xs[i] = fmax(xs[i], xs[i - 1])
    return k


# The model of one evaluation under table t, the side on roll in orientation o.
cdef inline void table_cube_init(table_cube_t* m, const cube_table_t* t, int o,
                                 const real_t* five, double x) noexcept nogil:
    cdef double c[5], xs[4], ys[4]
    cdef int s, n, k
    _clean_five(five, c)
    cdef double win = c[0], wg = c[1], wbg = c[2], lg = c[3], lbg = c[4], lose = 1.0 - win
    m.t = t
    m.o = o
    m.p = win
    m.x = x
    if win <= 0:
        m.mix[0][0] = 1.0; m.mix[0][1] = 0.0; m.mix[0][2] = 0.0
    else:
        m.mix[0][0] = (win - wg) / win; m.mix[0][1] = (wg - wbg) / win; m.mix[0][2] = wbg / win
    if lose <= 0:
        m.mix[1][0] = 1.0; m.mix[1][1] = 0.0; m.mix[1][2] = 0.0
    else:
        m.mix[1][0] = (lose - lg) / lose; m.mix[1][1] = (lg - lbg) / lose
        m.mix[1][2] = lbg / lose
    m.take[0][t.levels - 1] = 0.0
    m.take[1][t.levels - 1] = 0.0
    # take points from the top level down: side s doubled from n owns the cube at n + 1
    for n in range(t.levels - 2, -1, -1):
        for s in range(2):
            k = _table_line(m, s, n + 1, table_live(m, s, n + 1), False, True, xs, ys)
            m.take[s][n] = _line_solve(xs, ys, k, table_value(m, s, n, -1))


# The cubeful value of the side on roll at level n with the cube's owner.
cdef inline double table_cubeful(const table_cube_t* m, int n, int owner) noexcept nogil:
    cdef double xs[4], ys[4], dead
    cdef bint gam = not (m.t.jacoby and owner == OWNER_CENTRE)
    cdef bint me_can = owner != OWNER_OPPONENT and table_live(m, 0, n)
    cdef bint opp_can = owner != OWNER_ME and table_live(m, 1, n)
    cdef int k = _table_line(m, 0, n, me_can, opp_can, gam, xs, ys)
    dead = m.p * _table_win(m, 0, n, gam) + (1.0 - m.p) * _table_lose(m, 0, n, gam)
    return m.x * _line_at(xs, ys, k, m.p) + (1.0 - m.x) * dead


# No double, double/take, double/pass of the side on roll at level n with the cube at owner.
cdef inline void table_cube_decide(const table_cube_t* m, int n, int owner,
                                   cube_choice_t* d) noexcept nogil:
    d.no_double = table_cubeful(m, n, owner)
    d.double_pass = table_value(m, 0, n, 1)
    d.double_take = (table_cubeful(m, n + 1, OWNER_OPPONENT) if n + 1 < m.t.levels
                     else d.double_pass)
    d.take = d.double_take <= d.double_pass
    d.can_double = owner != OWNER_OPPONENT and table_live(m, 0, n)
    d.double = d.can_double and (d.double_take if d.double_take < d.double_pass
                                 else d.double_pass) > d.no_double
