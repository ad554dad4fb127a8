"""Cubeful rollouts, in money play and at a match score: both sides use the doubling cube.

Each trial plays the position out twice in step, on the same dice and with the same
chequer plays (0-ply or searched, cubeless, as :func:`bgengine.core.search.rollout`):
once with no double now, once after a double and a take.  Before every later roll the side
on roll considers the cube with the model of ``cubemodel.pxd`` (the engine's own,
:mod:`bgengine.decisions.cube`), on the value of the position the last play left (the
chosen afterstate's outputs, so it costs no evaluation); a double is taken or passed by the
same model.  In money play a trial's result is the points the side on roll at the start
wins, per the cube it starts with: a game's value (1, 2 or 3; with the Jacoby rule 1 while
the cube is centred) times the cube, or the cube when a double is passed, or, when a trial
is truncated, the model's cubeful value of where it stopped.  At a match score (a score
table, :func:`check_table`) it is the side's match-winning chance after the game, from the
match equity table.

The trials' dice are those of the cubeless rollout with the same seed and trial numbers.

The cubeful search (gnubg's n-ply cubeful evaluation) is :mod:`bgengine.core.cubesearch`.
"""

import math

import numpy as np
cimport numpy as cnp
from cython.parallel cimport prange, threadid
from libc.string cimport memcpy

from bgengine.core._types cimport real_t, uint64_t
from bgengine.core.board cimport (board_t, board_swap, board_side_empty, board_win_value,
                                 MOVER, OPPONENT)
from bgengine.core.interrupt cimport interrupt_t, interrupt_init, interrupt_poll
from bgengine.core.dice cimport rng_t, rng_seed, rng_roll
from bgengine.core.movegen cimport generate_moves
from bgengine.core.outputs cimport MAX_OUTPUTS, outputs_flip, outputs_target
from bgengine.core.evaluator cimport (Evaluator, ev_frozen_t,
                                      ev_freeze, ev_frozen_free)
from bgengine.core.search cimport (searcher_t, workspaces_t, workspaces_init,
                                   workspaces_add_searchers, workspaces_free, eval_position,
                                   search_best_move, MAX_PLIES)
from bgengine.core.positionclass cimport position_class, POS_RACE, N_POSITION_CLASSES
from bgengine.core.cubemodel cimport (cube_choice_t, cube_five, money_cube_efficiency,
                                      cube_table_t, table_cube_t, table_cube_init, table_cubeful,
                                      table_cube_decide, table_fill, TABLE_LEVELS, MONEY_LEVELS,
                                      OWNER_CENTRE, OWNER_ME, OWNER_OPPONENT)

from bgengine.core.board import validate_board
from bgengine.core.evaluator import as_evaluator
from bgengine.core.movegen import check_seed, check_threads
from bgengine.core.search import _rollout_arguments, _rollout_summary

__all__ = ["rollout_cube", "money_cube_action", "money_table", "check_table",
           "position_class_of", "OWNERS", "MAX_CUBE_LEVEL"]

#: Doublings a trial may reach past its start (gnubg's cube holds at most 2**15).
MAX_CUBE_LEVEL = CUBE_LEVELS

cnp.import_array()

#: Who may hold the cube at the start, from the side on roll.
OWNERS = ("centre", "me", "opponent")
cdef enum:
    CUBE_LEVELS = 15            # doublings a trial may reach past its start (gnubg: 2**15)
    TOP = MAX_PLIES + 1         # the searcher's move list of top-level plays
    MAX_GAME_PLAYS = 10000      # as search.pyx: a last resort, as if truncated
    N_VARIANTS = 2              # no double, double/take


cdef inline int _relative(int owner, bint root_to_move) noexcept nogil:
    """An owner in the root's frame (OWNER_ME: the root side) seen by the side on roll."""
    if owner == OWNER_CENTRE:
        return OWNER_CENTRE
    return owner if root_to_move else (OWNER_OPPONENT if owner == OWNER_ME else OWNER_ME)


cdef inline double _root_view(const cube_table_t* tab, double v, bint root_to_move) noexcept nogil:
    """A value of the side on roll (the table's units) as the root side's."""
    return v if root_to_move else tab.complement - v


cdef void _trial(searcher_t* S, const board_t* start, int t, uint64_t seed, int truncate,
                 int plies, int owner0, const cube_table_t* tab, const double* xs,
                 double* result, real_t* outputs) noexcept nogil:
    """Trial t: result[0] no double, result[1] double/take, the root side's value in the
    table's units (money: points per the starting cube); ``outputs`` the game's cubeless
    outcome from that view, as :func:`bgengine.core.search.rollout`'s trial (the game goes
    on to its end whatever the cube did).  ``xs``: the cube efficiency of each position
    class (money_cube_efficiency).  A money table (complement 0) is read at level 0 and
    scaled by the cube, as money values are proportional to it: the model then looks as
    many doublings ahead at every cube, as the Python model does."""
    cdef board_t s, after
    cdef real_t m[MAX_OUTPUTS]
    cdef real_t five[MAX_OUTPUTS]
    cdef rng_t rng
    cdef table_cube_t model
    cdef cube_choice_t d
    cdef int K = S.K, d1, d2, n, c, v, moves = 0, value, own, o, lv
    cdef bint root_to_move = True, modelled, money = tab.complement == 0.0
    cdef double scale
    cdef int level[N_VARIANTS]          # log2 of the cube over the starting one
    cdef int owner[N_VARIANTS]          # in the root's frame
    cdef bint alive[N_VARIANTS]
    level[0] = 0; owner[0] = owner0
    level[1] = 1; owner[1] = OWNER_OPPONENT      # the root doubled, the other side took
    alive[0] = True; alive[1] = True
    rng_seed(&rng, seed, <uint64_t>t)
    memcpy(&s, start, sizeof(board_t))
    while True:
        o = 0 if root_to_move else 1
        if board_side_empty(&s, OPPONENT):         # the previous mover won
            value = board_win_value(&s, OPPONENT)
            outputs_target(K, -value, m)
            for v in range(N_VARIANTS):
                if alive[v]:
                    lv = 0 if money else level[v]
                    scale = (1 << level[v]) if money else 1.0
                    result[v] = _root_view(tab, scale * tab.value[o][lv][3 - (
                        1 if tab.jacoby and owner[v] == OWNER_CENTRE else value)],
                        root_to_move)
            break
        if (truncate > 0 and moves >= truncate) or moves >= MAX_GAME_PLAYS:
            eval_position(S, &s, 0, m)
            if alive[0] or alive[1]:
                cube_five(K, m, five)
                table_cube_init(&model, tab, o, five, money_cube_efficiency(&s, xs))
                for v in range(N_VARIANTS):
                    if alive[v]:
                        lv = 0 if money else level[v]
                        scale = (1 << level[v]) if money else 1.0
                        result[v] = _root_view(tab, scale * table_cubeful(
                            &model, lv, _relative(owner[v], root_to_move)), root_to_move)
            break
        if moves > 0:           # the cube, before the roll (the root's first: the variants)
            modelled = False
            for v in range(N_VARIANTS):
                own = _relative(owner[v], root_to_move)
                lv = 0 if money else level[v]
                if not alive[v] or own == OWNER_OPPONENT or level[v] >= CUBE_LEVELS \
                        or not tab.live[o][lv]:
                    continue
                if not modelled:
                    cube_five(K, m, five)
                    table_cube_init(&model, tab, o, five, money_cube_efficiency(&s, xs))
                    modelled = True
                table_cube_decide(&model, lv, own, &d)
                if not d.double:
                    continue
                if d.take:
                    level[v] += 1
                    owner[v] = OWNER_OPPONENT if root_to_move else OWNER_ME
                else:
                    scale = (1 << level[v]) if money else 1.0
                    result[v] = _root_view(tab, scale * d.double_pass, root_to_move)
                    alive[v] = False
        if moves == 0:
            d1 = t % 36 // 6 + 1; d2 = t % 36 % 6 + 1
        elif moves == 1:
            d1 = (t // 36) % 36 // 6 + 1; d2 = (t // 36) % 36 % 6 + 1
        else:
            rng_roll(&rng, &d1, &d2)
        n = generate_moves(&S.ml[TOP], &s, d1, d2)
        c = search_best_move(S, &S.ml[TOP], n, plies, m)     # m: the mover's view
        memcpy(&after, &S.ml[TOP].boards[c], sizeof(board_t))
        moves += 1
        board_swap(&s, &after)
        root_to_move = not root_to_move
        # m becomes the view of the side now on roll (the next cube decision's input)
        outputs_flip(K, m, m)
    # m is from the view of the side on roll at s
    if root_to_move:
        memcpy(outputs, m, K * sizeof(real_t))
    else:
        outputs_flip(K, m, outputs)


def rollout_cube(network, board, trials: int = 1296, *, owner: str = "centre",
                 jacoby=False, seed: int = 0, truncate: int = 0, plies: int = 0,
                 n_threads: int = 1, first_trial: int = 0, efficiency=None,
                 table=None) -> dict:
    """Cubeful rollout of ``board`` (side on roll in row 1, before it rolls), in money play
    or at the match score of ``table``.

    Parameters
    ----------
    network : Network or Evaluator
        Chooses every play (cubeless, at ``plies``) and values the positions the cube
        model reads.
    trials : int
        Games played out, 1..10**7; multiples of 1296 stratify the first two rolls.
    owner : str
        Who holds the cube now, from the side on roll: ``"centre"``, ``"me"`` or
        ``"opponent"`` (then the side on roll cannot double and ``double_take`` is what a
        double would be worth, were it allowed).
    jacoby : bool
        Gammons and backgammons count single while the cube is centred.
    seed, truncate, plies, n_threads, first_trial
        As :func:`bgengine.core.search.rollout` (the same dice for the same trials).
    efficiency : sequence of float, optional
        The cube efficiency of contact, holding, back-game and crashed positions
        (:class:`bgengine.decisions.cube.CubeEfficiency`, whose ``classes`` gives them);
        races always use gnubg's pip rule.  Default gnubg's 0.68 for all four.
    table : (values, live, complement), optional
        The score, as :func:`bgengine.decisions.cube.score_table` gives it (see
        :func:`bgengine.core.cubesearch.cube_search`); values are then match-winning chances.
        Default: money play (:func:`money_table`).

    Returns
    -------
    dict: ``no_double`` and ``double_take`` (mean points per the current cube won by the
    side on roll, or its match-winning chance, as the game goes on without a double now,
    and after a double and a take), their ``no_double_stderr`` and ``double_take_stderr``,
    ``difference_stderr`` (of double/take minus no double: the variants share their dice,
    so it is smaller than either), ``double_pass`` (1.0 in money play), ``trials``, and
    ``per_trial`` (trials, 2) float64; and
    the cubeless rollout of the same games, as :func:`bgengine.core.search.rollout` returns
    it (``outputs``, ``outputs_stderr``, ``equity``, ``stderr``; ``per_trial_cubeless``).
    """
    cdef Py_ssize_t n_trials, first
    cdef int trunc, np_
    n_trials, trunc, first, np_ = _rollout_arguments(trials, truncate, first_trial, plies)
    if owner not in OWNERS:
        raise ValueError(f"owner must be one of {', '.join(OWNERS)}, got {owner!r}")
    if not isinstance(jacoby, (bool, np.bool_)):
        raise ValueError(f"jacoby must be a bool, got {jacoby!r}")
    cdef int own = (OWNER_CENTRE, OWNER_ME, OWNER_OPPONENT)[OWNERS.index(owner)]
    vals, lv, comp = check_table(*(money_table() if table is None else table))
    if vals.shape[1] < 2:
        raise ValueError("a cubeful rollout's table needs two cube levels or more (the "
                         "double/take variant is played at the second)")
    if jacoby and comp != 0.0:
        raise ValueError("the Jacoby rule is a rule of money play, not of a match score")
    cdef cube_table_t tab
    cdef const double[:, :, ::1] vv = vals
    cdef const unsigned char[:, ::1] lvv = lv.view(np.uint8)
    table_fill(&tab, &vv[0, 0, 0], &lvv[0, 0], vals.shape[1], comp, bool(jacoby))
    cdef int nt = check_threads(n_threads)
    cdef uint64_t sd = check_seed(seed)
    cdef double[::1] xv = _efficiency_table(efficiency)
    cdef cnp.ndarray arr = validate_board(board)
    cdef const board_t* b = <const board_t*> cnp.PyArray_DATA(arr)
    if board_side_empty(b, 0) or board_side_empty(b, 1):
        raise ValueError("a finished game has no rollout")
    cdef Evaluator ev = as_evaluator(network)
    per = np.zeros((n_trials, N_VARIANTS), dtype=np.float64)
    cdef double[:, ::1] pv = per
    cubeless = np.zeros((n_trials, ev.ev.K), dtype=np.float32)
    cdef real_t[:, ::1] cv = cubeless
    cdef workspaces_t W
    cdef Py_ssize_t t
    cdef interrupt_t it
    cdef ev_frozen_t frozen         # the weights stay put during the rollout
    pending = []
    interrupt_init(&it, pending)
    workspaces_init(&W, nt)
    frozen.buf = NULL
    try:
        ev_freeze(&ev.ev, &frozen, False)   # as rollout: no race refinement inside trials
        workspaces_add_searchers(&W, 0, &frozen.ev, 16 if np_ > 0 else 0, 8, 0.16)
        with nogil:
            for t in prange(n_trials, schedule="dynamic", num_threads=nt):
                if not interrupt_poll(&it, threadid() == 0):
                    _trial(&W.searchers[0][threadid()], b, <int>(first + t), sd, trunc, np_,
                           own, &tab, &xv[0], &pv[t, 0], &cv[t, 0])
        if pending:
            raise pending[0]
    finally:
        workspaces_free(&W)
        ev_frozen_free(&frozen)
    (nd, nd_se), (dt, dt_se), (_, diff_se) = (
        _mean_stderr(v) for v in (per[:, 0], per[:, 1], per[:, 1] - per[:, 0]))
    return dict(_rollout_summary(cubeless), per_trial_cubeless=cubeless,
                no_double=nd, double_take=dt, double_pass=float(vals[0, 0, 4]),
                no_double_stderr=nd_se, double_take_stderr=dt_se, difference_stderr=diff_se,
                per_trial=per)


def _mean_stderr(v) -> tuple:
    """Mean and its standard error (inf for one value), summed exactly: values all equal
    give that value and 0, so a sure result stays a tie with double/pass."""
    n = len(v)
    mean = math.fsum(v) / n
    if n < 2:
        return mean, float("inf")
    return mean, math.sqrt(math.fsum((v - mean) ** 2) / (n - 1) / n)


def _efficiency_table(efficiency) -> np.ndarray:
    """The per-class efficiencies ``(N_POSITION_CLASSES,)`` float64 (the race entry unused)
    of contact, holding, back game and crashed ``efficiency`` (None: gnubg's 0.68)."""
    table = np.full(N_POSITION_CLASSES, 0.68)       # bgengine.decisions.cube.CONTACT_EFFICIENCY
    if efficiency is not None:
        xs = np.asarray(efficiency, dtype=np.float64).reshape(-1)
        if xs.shape != (POS_RACE,) or not np.all((xs >= 0) & (xs <= 1)):
            raise ValueError(f"efficiency must be {POS_RACE} cube efficiencies in 0..1 (contact, "
                             f"holding, back game, crashed), got {efficiency!r}")
        table[:POS_RACE] = xs
    return table


def position_class_of(board) -> int:
    """The C classifier's class of ``board`` (an index into
    :data:`bgengine.labelling.classes.POSITION_CLASSES`), for tests against the Python one."""
    cdef cnp.ndarray arr = validate_board(board)
    return position_class(<const board_t*> cnp.PyArray_DATA(arr))


def money_cube_action(five, double x, str owner="centre", bint jacoby=False) -> tuple:
    """The C model's (no double, double/take, double/pass, double, take) of gnubg's five
    outputs ``five`` of the side on roll in money play, for tests against
    :func:`bgengine.decisions.cube.cube_decision`."""
    cdef real_t f[5]
    cdef table_cube_t model
    cdef cube_table_t tab
    cdef cube_choice_t d
    cdef int i
    if owner not in OWNERS:
        raise ValueError(f"owner must be one of {', '.join(OWNERS)}, got {owner!r}")
    for i in range(5):
        f[i] = five[i]
    vals, lv, comp = money_table()
    cdef const double[:, :, ::1] vv = vals
    cdef const unsigned char[:, ::1] lvv = lv.view(np.uint8)
    table_fill(&tab, &vv[0, 0, 0], &lvv[0, 0], vals.shape[1], comp, jacoby)
    table_cube_init(&model, &tab, 0, f, x)
    table_cube_decide(&model, 0, (OWNER_CENTRE, OWNER_ME, OWNER_OPPONENT)[OWNERS.index(owner)],
                      &d)
    return d.no_double, d.double_take, d.double_pass, bool(d.double), bool(d.take)


def money_table() -> tuple:
    """The money score table (see :func:`check_table`): ``(values, live, complement)``, values
    ``k * 2**n`` (points per the current cube), the cube live below level 12 (the Python
    model's money recursion), complement 0."""
    levels = MONEY_LEVELS + 1
    values = np.zeros((2, levels, 7))
    values[:] = (np.arange(-3, 4)[None, :] * (2.0 ** np.arange(levels))[:, None])[None]
    live = np.zeros((2, levels), dtype=bool)
    live[:, :MONEY_LEVELS] = True
    return values, live, 0.0


def check_table(values, live, complement) -> tuple:
    """A score table checked and in C order: ``values`` float64 (2, L, 7), ``values[o, n,
    k + 3]`` what the side on roll (``o`` 0: the root's side, 1: the other) wins for
    winning ``k`` (``k < 0``: losing ``-k``) times the cube at level ``n`` (the root's cube
    times ``2**n``), L 1..16; ``live`` bool (2, L), that side could usefully double from
    level ``n``, False at the last; ``complement``, a side's value plus the other's: 0
    (money points) or 1 (match-winning chances).  ``ValueError`` otherwise."""
    vals = np.ascontiguousarray(values, dtype=np.float64)
    lv = np.ascontiguousarray(live)
    if vals.ndim != 3 or vals.shape[0] != 2 or vals.shape[2] != 7 \
            or not 1 <= vals.shape[1] <= TABLE_LEVELS or not np.all(np.isfinite(vals)):
        raise ValueError(f"values must be finite, of shape (2, 1..{TABLE_LEVELS}, 7), "
                         f"got shape {vals.shape}")
    if lv.dtype != np.bool_ or lv.shape != vals.shape[:2] or lv[:, -1].any():
        raise ValueError(f"live must be bools of shape {vals.shape[:2]}, False at the last level")
    if complement not in (0, 1):
        raise ValueError(f"complement must be 0 (money) or 1 (a match), got {complement!r}")
    return vals, lv, float(complement)