"""Cube decisions by a cubeful search, in money play and in matches.

:func:`cube_search` values a cube decision as gnubg's n-ply cubeful evaluation does: the
n-ply tree (each of the 21 rolls played as the 0-ply evaluation plays it) is valued for every
cube state a node can be reached in, the side on roll at an inner node doubling where that
is worth more and the other side taking where that costs less; only the leaves read the
cube model (``cubemodel.pxd``, the engine's :mod:`bgengine.decisions.cube`, over their 0-ply
outputs).  Reading the model once over n-ply cubeless outputs instead leaves out the cube's
later turns.

The score enters as a table of what the game's outcomes are worth
(:func:`bgengine.decisions.cube.score_table` builds it from a match equity table):
match-winning chances in a match, points in money play.  :func:`money_cube_search` is the
search with the money table.
"""

import numpy as np
cimport numpy as cnp
from cython.parallel cimport prange, threadid

from bgengine.core._types cimport real_t
from bgengine.core.board cimport (board_t, board_swap, board_side_empty, board_win_value,
                                 MOVER)
from bgengine.core.interrupt cimport interrupt_t, interrupt_init, interrupt_poll
from bgengine.core.movegen cimport generate_moves
from bgengine.core.outputs cimport MAX_OUTPUTS, outputs_flip
from bgengine.core.evaluator cimport Evaluator, ev_frozen_t, ev_freeze, ev_frozen_free
from bgengine.core.search cimport (searcher_t, workspaces_t, workspaces_init,
                                   workspaces_add_searchers, workspaces_free, eval_position,
                                   ev_best_move, MAX_PLIES)
from bgengine.core.cubemodel cimport (cube_choice_t, cube_five, money_cube_efficiency,
                                      cube_table_t, table_cube_t, table_cube_init,
                                      table_cubeful, table_cube_decide, table_fill,
                                      OWNER_CENTRE, OWNER_ME, OWNER_OPPONENT)

from bgengine.core.board import validate_boards
from bgengine.core.evaluator import as_evaluator
from bgengine.core.movegen import check_threads
from bgengine.core.cuberollout import (OWNERS as _OWNERS, _efficiency_table, check_table,
                                      money_table)

__all__ = ["cube_search", "money_cube_search"]

cnp.import_array()

cdef enum:
    MAX_STATES = 16             # cube states a node of the search is valued in


ctypedef struct cube_state_t:
    int level                   # log2 of the cube over the root's
    int owner                   # from the side on roll at the node


cdef inline int _state(cube_state_t* states, int* n, int level, int owner) noexcept nogil:
    """The index of (level, owner) in states[0..n), added at the end when new."""
    cdef int i
    for i in range(n[0]):
        if states[i].level == level and states[i].owner == owner:
            return i
    states[n[0]].level = level
    states[n[0]].owner = owner
    n[0] += 1
    return n[0] - 1


cdef inline int _seen_by_other(int owner) noexcept nogil:
    return owner if owner == OWNER_CENTRE else (OWNER_OPPONENT if owner == OWNER_ME else OWNER_ME)


cdef void _rolls_total(searcher_t* S, const board_t* b, int depth, int o,
                       const cube_state_t* states, int n, const cube_table_t* t,
                       const double* xs, double* total) noexcept nogil:
    """total[i]: the 36ths-weighted sum over the 21 rolls of the next side's cubeful value in
    states[i] (its own view), after the roll's 0-ply best play from ``b`` (the side on roll
    in orientation ``o``), valued at ``depth`` - 1.  Uses the searcher's move list ``depth``."""
    cdef real_t mover[MAX_OUTPUTS]
    cdef real_t probs[MAX_OUTPUTS]
    cdef double v[MAX_STATES]
    cdef board_t child
    cdef const board_t* after
    cdef int d1, d2, w, k, best, i, points
    for i in range(n):
        total[i] = 0.0
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            w = 1 if d1 == d2 else 2
            k = generate_moves(&S.ml[depth], b, d1, d2)
            best = ev_best_move(S.ev, &S.ml[depth], k, S.buf, mover, S.by_delta)
            after = &S.ml[depth].boards[best]
            if board_side_empty(after, MOVER):          # the mover has borne off its last
                points = board_win_value(after, MOVER)
                for i in range(n):
                    total[i] += w * t.value[1 - o][states[i].level][3 - (
                        1 if t.jacoby and states[i].owner == OWNER_CENTRE else points)]
                continue
            board_swap(&child, after)
            outputs_flip(S.K, mover, probs)
            _node(S, &child, probs, depth - 1, 1 - o, states, n, t, xs, v)
            for i in range(n):
                total[i] += w * v[i]


cdef void _node(searcher_t* S, const board_t* b, const real_t* probs, int depth, int o,
                const cube_state_t* states, int n, const cube_table_t* t, const double* xs,
                double* out) noexcept nogil:
    """out[i]: the cubeful value of the side on roll of ``b`` (before its roll, orientation
    ``o``; ``probs`` its 0-ply outputs, its view) in cube state states[i], searched ``depth``
    plies: the model at depth 0; deeper, no double or (where the side has access) the better
    of it and the double the other side answers best."""
    cdef real_t five[MAX_OUTPUTS]
    cdef table_cube_t model
    cdef cube_state_t child[MAX_STATES]
    cdef int nd_of[MAX_STATES]
    cdef int dt_of[MAX_STATES]
    cdef double total[MAX_STATES]
    cdef int i, nc = 0
    cdef double nd, dt, dp
    if depth == 0:
        cube_five(S.K, probs, five)
        table_cube_init(&model, t, o, five, money_cube_efficiency(b, xs))
        for i in range(n):
            out[i] = table_cubeful(&model, states[i].level, states[i].owner)
        return
    for i in range(n):
        nd_of[i] = _state(child, &nc, states[i].level, _seen_by_other(states[i].owner))
        dt_of[i] = (_state(child, &nc, states[i].level + 1, OWNER_ME)
                    if states[i].owner != OWNER_OPPONENT and t.live[o][states[i].level]
                    else -1)
    _rolls_total(S, b, depth, o, child, nc, t, xs, total)
    for i in range(n):
        nd = t.complement - total[nd_of[i]] / 36.0
        if dt_of[i] < 0:
            out[i] = nd
        else:
            dt = t.complement - total[dt_of[i]] / 36.0
            dp = t.value[o][states[i].level][4]
            out[i] = max(nd, min(dt, dp))


cdef void _cube_values(searcher_t* S, const board_t* b, int plies, int owner,
                       const cube_table_t* t, const double* xs, double* out) noexcept nogil:
    """No double, double/take, double/pass of the side on roll of ``b`` (orientation 0)."""
    cdef real_t m[MAX_OUTPUTS]
    cdef real_t five[MAX_OUTPUTS]
    cdef table_cube_t model
    cdef cube_choice_t d
    cdef cube_state_t child[2]
    cdef double total[2]
    out[2] = t.value[0][0][4]
    if plies == 0 or t.levels < 2:
        eval_position(S, b, 0, m)
        cube_five(S.K, m, five)
        table_cube_init(&model, t, 0, five, money_cube_efficiency(b, xs))
        table_cube_decide(&model, 0, owner, &d)
        out[0] = d.no_double
        out[1] = d.double_take
        if plies == 0:
            return
    child[0].level = 0
    child[0].owner = _seen_by_other(owner)
    child[1].level = 1                  # doubled and taken: the other side owns it
    child[1].owner = OWNER_ME
    _rolls_total(S, b, plies, 0, child, 2 if t.levels >= 2 else 1, t, xs, total)
    out[0] = t.complement - total[0] / 36.0
    if t.levels >= 2:
        out[1] = t.complement - total[1] / 36.0


def cube_search(network, boards, plies, values, live, complement, *, owner="centre",
                jacoby=False, efficiency=None, n_threads=1) -> np.ndarray:
    """Cube values of positions at one score by a cubeful ``plies``-ply search.

    Parameters
    ----------
    network : Network or Evaluator
        Plays every roll of the tree (0-ply, cubeless) and values its leaves.
    boards : array (N, 2, 25) or (2, 25)
        Positions, side on roll in row 1, before it rolls; none finished.
    plies : int
        0 (the cube model over the 0-ply outputs) to 3.
    values : float64 (2, L, 7)
        ``values[o, n, k + 3]``: what the side on roll wins for winning ``k`` (``k < 0``:
        losing ``-k``) times the cube at level ``n`` (the root's cube times ``2**n``),
        ``o`` 0 the root's side on roll, 1 the other side; ``L`` 1..16 levels.
    live : bool (2, L)
        That side could usefully double from level ``n`` (access aside); False at the last.
    complement : float
        A side's value plus the other side's: 0 (points) or 1 (match-winning chances).
    owner : str
        ``"centre"``, ``"me"`` or ``"opponent"``: who holds the cube, from the side on roll.
    jacoby : bool
        Money play: gammons count only once the cube is turned.
    efficiency : array (4,) or None
        Cube efficiencies in contact, holding, back game and crashed positions (races use
        gnubg's pip rule); None: gnubg's 0.68.
    n_threads : int
        Positions searched at once.

    Returns
    -------
    float64 (N, 3) or (3,): no double, double/take, double/pass for the side on roll of each
    position, in the table's units.
    """
    if isinstance(plies, bool) or not isinstance(plies, (int, np.integer)) \
            or not 0 <= plies <= MAX_PLIES:
        raise ValueError(f"plies must be an integer 0..{MAX_PLIES}, got {plies!r}")
    if owner not in _OWNERS:
        raise ValueError(f"owner must be one of {', '.join(_OWNERS)}, got {owner!r}")
    if not isinstance(jacoby, (bool, np.bool_)):
        raise ValueError(f"jacoby must be a bool, got {jacoby!r}")
    vals, lv, comp = check_table(values, live, complement)
    cdef cube_table_t table
    cdef const double[:, :, ::1] vv = vals
    cdef const unsigned char[:, ::1] lvv = lv.view(np.uint8)
    table_fill(&table, &vv[0, 0, 0], &lvv[0, 0], vals.shape[1], comp, bool(jacoby))
    arr = np.asarray(boards)
    single = arr.ndim == 2
    cdef cnp.ndarray barr = validate_boards(arr[None] if single else arr)
    cdef const board_t* bp = <const board_t*> cnp.PyArray_DATA(barr)
    cdef Py_ssize_t n = barr.shape[0], i
    for i in range(n):
        if board_side_empty(&bp[i], 0) or board_side_empty(&bp[i], 1):
            raise ValueError(f"boards[{i}]: a finished game has no cube decision")
    cdef int own = (OWNER_CENTRE, OWNER_ME, OWNER_OPPONENT)[_OWNERS.index(owner)]
    cdef int nt = check_threads(n_threads), depth = int(plies)
    cdef double[::1] xv = _efficiency_table(efficiency)
    cdef Evaluator ev = as_evaluator(network)
    out = np.zeros((n, 3), dtype=np.float64)
    cdef double[:, ::1] ov = out
    cdef workspaces_t W
    cdef interrupt_t it
    cdef ev_frozen_t frozen
    pending = []
    interrupt_init(&it, pending)
    workspaces_init(&W, nt)
    frozen.buf = NULL
    try:
        ev_freeze(&ev.ev, &frozen, True)    # races refined, as the engine's 0-ply values
        workspaces_add_searchers(&W, 0, &frozen.ev, 0, 8, 0.16)
        with nogil:
            for i in prange(n, schedule="dynamic", num_threads=nt):
                if not interrupt_poll(&it, threadid() == 0):
                    _cube_values(&W.searchers[0][threadid()], &bp[i], depth, own, &table,
                                 &xv[0], &ov[i, 0])
        if pending:
            raise pending[0]
    finally:
        workspaces_free(&W)
        ev_frozen_free(&frozen)
    return out[0] if single else out


def money_cube_search(network, boards, plies=2, *, owner="centre", jacoby=False,
                      efficiency=None, n_threads=1) -> np.ndarray:
    """:func:`cube_search` in money play: no double, double/take, double/pass per the
    current cube (double/pass 1.0), float64 (N, 3) or (3,)."""
    values, live, complement = money_table()
    return cube_search(network, boards, plies, values, live, complement, owner=owner,
                       jacoby=jacoby, efficiency=efficiency, n_threads=n_threads)
