# The class of a position, in C: the rules of bgengine.labelling.classes (its docstring
# gives them), checked in the same order -- race, crashed, back game, holding, contact --
# so that a compiled loop (a cubeful rollout's cube model) sees the class the Python layer
# does.  Header-only (inline): cimporting it adds no module.
#
#     c = position_class(&board)          # POS_CONTACT .. POS_RACE

from bgengine.core._types cimport checker_t
from bgengine.core.board cimport board_t

cdef enum:
    POS_CONTACT = 0     # bgengine.labelling.classes.POSITION_CLASSES, in its order
    POS_HOLDING = 1
    POS_BACK_GAME = 2
    POS_CRASHED = 3
    POS_RACE = 4
    N_POSITION_CLASSES = 5


# gnubg's crashed test of one side's row (ClassifyPosition): few checkers left in play,
# or few beyond a stacked 1-point (and 2-point).
cdef inline bint _side_crashed(const checker_t* row) noexcept nogil:
    cdef int i, tot = 0
    cdef int ace = row[0], deuce = row[1]
    for i in range(25):
        tot += row[i]
    if tot <= 6:
        return True
    if ace > 1:
        return tot <= 6 + ace or (deuce > 1 and 1 + tot - ace - deuce <= 6)
    return tot <= 6 + deuce - 1


cdef inline int _pips(const checker_t* row) noexcept nogil:
    cdef int i, p = 0
    for i in range(25):
        p += row[i] * (i + 1)
    return p


cdef inline int position_class(const board_t* b) noexcept nogil:
    cdef int s, i, back0 = -1, back1 = -1, held, behind
    cdef int pips[2]
    cdef bint back = False, holding = False
    for i in range(25):
        if b.c[0][i] > 0:
            back0 = i
        if b.c[1][i] > 0:
            back1 = i
    # no contact: the rearmost checker of row 1 below row 0's rearmost seen from row 1
    if back1 < 23 - back0 and b.c[0][24] == 0 and b.c[1][24] == 0:
        return POS_RACE
    if _side_crashed(b.c[0]) or _side_crashed(b.c[1]):
        return POS_CRASHED
    pips[0] = _pips(b.c[0])
    pips[1] = _pips(b.c[1])
    for s in range(2):
        behind = pips[s] - pips[1 - s]
        held = 0
        for i in range(18, 24):
            held += b.c[s][i] >= 2
        if held >= 2 and behind >= 30:
            back = True
        for i in range(17, 21):
            if b.c[s][i] >= 2 and behind >= 10:
                holding = True
    if back:
        return POS_BACK_GAME
    if holding:
        return POS_HOLDING
    return POS_CONTACT
