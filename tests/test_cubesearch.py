"""Cube decisions by a cubeful search (bgengine.core.cubesearch), in money play and at match
scores, against a pure-Python search over the Python cube model, and their use by the engine."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from bgengine.core.cuberollout import money_cube_action
from bgengine.core.cubesearch import cube_search, money_cube_search
from bgengine.core.movegen import legal_afterstates
from bgengine.core.network import equity_of
from bgengine.decisions.cube import (CubeEfficiency, CubeInfo, _Sides, cube_decision, cubeful_value,
                                     default_met, score_table)
from bgengine.decisions.engine import Engine
from bgengine.matches.players import load_default_network
from bgengine.notation.ids import MatchState
from bgengine.notation.ids import board_from_position_id as board_of

MIDGAME = "jGfkASjg8wcBAA"
#: Close money cube decisions of training/cubes/bench-cubes-r1-t3.npz (crashed, contact, back
#: game, holding, race) and a bear-off where every roll ends the game.
POSITIONS = ["7+cBABCz7QYCQA", "bTOKAQx4NwcHAA", "2m4EgA0buzESAA", "tJshgAdufjICAA",
             "HQwAgAIAAAAAAA", "4P8PAAABAAAAAA"]
ROLLS = [(a, b, 1 if a == b else 2) for a in range(1, 7) for b in range(1, a + 1)]


@pytest.fixture(scope="module")
def ev():
    return load_default_network()


def _value(ev, board, info, depth):
    """The side on roll's cubeful value in ``info`` (per its cube), searched ``depth``
    plies: the method in plain Python over the Python cube model."""
    if depth == 0:
        x = float(CubeEfficiency.of_evaluator(ev).of_boards(board[None])[0])
        return cubeful_value(ev.evaluate(board), info, x)
    nd, dt = _reference(ev, board, info, depth)
    return max(nd, min(dt, _pass(info))) if info.can_double() else nd


def _pass(info):
    """What a passed double gives the doubler: 1 per cube, or the match-winning chance."""
    return _Sides((0.5, 0, 0, 0, 0), info, default_met()).value(0, info.cube)


def _reference(ev, board, info, depth):
    """No double and double/take of the side on roll, every roll of the tree played as the
    0-ply evaluation plays it, the next side's values searched ``depth`` - 1 plies: money
    values per the cube (the next side's negated), match values match-winning chances (the
    next side's complements), a finished game its points or the table's entry at the new
    score."""
    nd = info.swapped()
    dt = replace(info, cube=2 * info.cube, owner="opponent").swapped()
    total = np.zeros(2)
    for d1, d2, w in ROLLS:
        after, _ = legal_afterstates(board, d1, d2)
        turned = np.ascontiguousarray((after if len(after) else board[None])[:, ::-1, :])
        probs = ev.evaluate(turned)
        child = turned[int(np.argmin(equity_of(probs)))]
        if child[0].sum() == 0:                       # the mover bore off its last checker
            loser = child[1]
            won = 1 if loser.sum() < 15 else (3 if loser[18:].sum() else 2)
            total += w * np.array([_lost(c, won) for c in (nd, dt)])
            continue
        total += w * np.array([_value(ev, child, c, depth - 1) for c in (nd, dt)])
    if info.is_money:
        return -total[0] / 36, -2 * total[1] / 36
    return 1 - total[0] / 36, 1 - total[1] / 36


def _lost(info, won):
    """What losing a game of ``won`` points (1 to 3) a cube is worth to the side of ``info``."""
    if info.is_money:
        return -(1 if info.jacoby and info.owner == "centre" else won)
    return _Sides((0.5, 0, 0, 0, 0), info, default_met()).value(0, -won * info.cube)


@pytest.mark.parametrize("pid", POSITIONS)
def test_one_ply_search_is_the_python_search(ev, pid):
    board = board_of(pid)
    for owner, jacoby in (("centre", False), ("me", False), ("centre", True)):
        info = CubeInfo(owner=owner, jacoby=jacoby)
        nd, dt, dp = money_cube_search(ev, board, 1, owner=owner, jacoby=jacoby)
        assert dp == 1.0
        assert (nd, dt) == pytest.approx(_reference(ev, board, info, 1), abs=2e-5)


def test_two_ply_search_is_the_python_search_and_differs_from_the_model(ev):
    board = board_of(MIDGAME)
    nd, dt, _ = money_cube_search(ev, board, 2)
    assert (nd, dt) == pytest.approx(_reference(ev, board, CubeInfo(), 2), abs=2e-5)
    zero = money_cube_search(ev, board, 0)
    five = ev.evaluate(board)
    x = CubeEfficiency.of_evaluator(ev).of_boards(board[None])[0]
    assert tuple(zero) == pytest.approx(money_cube_action(five, x)[:3], abs=1e-12)
    assert abs(nd - zero[0]) > 1e-4                  # the search is not the 0-ply model


def test_batches_threads_and_bad_arguments(ev):
    boards = np.stack([board_of(p) for p in POSITIONS])
    one = money_cube_search(ev, boards, 1)
    assert one.shape == (len(POSITIONS), 3)
    assert np.array_equal(money_cube_search(ev, boards, 1, n_threads=2), one)
    assert np.array_equal(money_cube_search(ev, boards[1], 1), one[1])
    for bad in (dict(plies=4), dict(plies=-1), dict(plies=True), dict(owner="mine"),
                dict(jacoby=1)):
        with pytest.raises(ValueError):
            money_cube_search(ev, boards, **{"plies": 1, **bad})
    finished = boards[0].copy()
    finished[0] = 0
    with pytest.raises(ValueError, match="finished"):
        money_cube_search(ev, finished, 1)


def test_the_engine_decides_money_cubes_by_the_search(ev):
    engine = Engine(network=ev, cube_plies=1)
    board = board_of(MIDGAME)
    money = MatchState(cube=2, cube_owner=1, player_on_roll=1)
    d = engine.cube_analysis(board, money, plies=1)
    nd, dt, dp = money_cube_search(ev, board, 1, owner="me")
    assert (d.no_double, d.double_take, d.double_pass) == (nd, dt, dp)
    match = MatchState(match_length=7, score=(2, 3), player_on_roll=1)
    m = engine.cube_analysis(board, match, plies=1)       # matches: the search at the score
    info = CubeInfo.from_match_state(match)
    values, live, complement = score_table(info)
    nd, dt, dp = cube_search(ev, board, 1, values, live, complement)
    assert (m.no_double, m.double_take, m.double_pass) == (nd, dt, dp)
    assert 0 < m.no_double < 1 and m.double_pass <= 1


#: Match scores (length, score of the side on roll, the other's, cube, owner, Crawford game).
SCORES = [(7, 0, 0, 1, "centre", False), (7, 2, 4, 2, "me", False), (5, 3, 2, 1, "centre", False),
          (5, 4, 1, 1, "centre", True), (5, 1, 4, 1, "centre", False), (9, 5, 5, 4, "opponent", False)]


def _match_info(length, mine, theirs, cube, owner, crawford):
    away, opp = length - mine, length - theirs
    post = not crawford and 1 in (away, opp)
    return CubeInfo(cube=cube, owner=owner, away=away, opp_away=opp, crawford=crawford,
                    post_crawford=post)


@pytest.mark.parametrize("score", SCORES)
def test_match_search_is_the_python_search(ev, score):
    info = _match_info(*score)
    values, live, complement = score_table(info)
    for pid in POSITIONS[:4] + POSITIONS[5:]:
        board = board_of(pid)
        nd, dt, dp = cube_search(ev, board, 1, values, live, complement, owner=info.owner)
        assert dp == pytest.approx(_pass(info), abs=1e-12)
        assert (nd, dt) == pytest.approx(_reference(ev, board, info, 1), abs=2e-5)


def test_match_search_at_zero_ply_is_the_python_model_and_two_ply_the_python_search(ev):
    info = _match_info(7, 2, 4, 1, "centre", False)
    values, live, complement = score_table(info)
    board = board_of(MIDGAME)
    zero = cube_search(ev, board, 0, values, live, complement)
    x = float(CubeEfficiency.of_evaluator(ev).of_boards(board[None])[0])
    d = cube_decision(ev.evaluate(board), info, x)
    assert tuple(zero) == pytest.approx((d.no_double, d.double_take, d.double_pass), abs=1e-9)
    nd, dt, _ = cube_search(ev, board, 2, values, live, complement)
    assert (nd, dt) == pytest.approx(_reference(ev, board, info, 2), abs=2e-5)


def test_the_money_table_is_the_money_search():
    values, live, complement = score_table(CubeInfo(cube=4, owner="me"))
    from bgengine.core.cuberollout import money_table
    mv, ml, mc = money_table()
    assert np.array_equal(values, mv) and np.array_equal(live, ml) and complement == mc


def test_bad_tables_are_refused(ev):
    values, live, complement = score_table(_match_info(7, 0, 0, 1, "centre", False))
    board = board_of(MIDGAME)
    with pytest.raises(ValueError, match="values"):
        cube_search(ev, board, 1, values[:, :, :6], live, complement)
    bad = values.copy()
    bad[0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="values"):
        cube_search(ev, board, 1, bad, live, complement)
    always = np.ones_like(live)
    with pytest.raises(ValueError, match="live"):
        cube_search(ev, board, 1, values, always, complement)
