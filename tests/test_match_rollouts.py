"""Cubeful rollouts of cube decisions at a match score (bgengine.decisions.rollouts with a
score table, compiled in bgengine.core.cuberollout)."""

from __future__ import annotations

import json

import pytest

from bgengine.cli import main
from bgengine.decisions.cube import CubeInfo, gnubg_met, score_table
from bgengine.decisions.engine import Engine
from bgengine.decisions.rollouts import rollout_cube_decision
from bgengine.notation.ids import MatchState, match_id
from bgengine.position import Position
from game_positions import board_of

MIDGAME = "jGfkASjg8wcBAA"
MET = gnubg_met()


@pytest.fixture(scope="module")
def engine():
    return Engine("net")


def _state(length, score, on_roll=1, **kw) -> MatchState:
    return MatchState(match_length=length, score=score, player_on_roll=on_roll, turn=on_roll, **kw)


def _rollout(engine, board, state, trials, **kw):
    return rollout_cube_decision(engine.network, board, CubeInfo.from_match_state(state),
                                 trials, engine.efficiency, engine.met, **kw)


def test_the_score_table_is_the_match_equity_table():
    """What a game's outcome is worth at the score, for the side on roll (orientation 0)
    and the other side (1), at every cube level the search or a rollout reaches."""
    values, live, complement = score_table(CubeInfo.from_match_state(_state(7, (2, 3))), MET)
    # the side on roll has 3 points (4-away), the other 2 (5-away)
    assert complement == 1.0 and values.shape == (2, 4, 7)
    assert values[0, 0, 4] == MET(3, 5) and values[0, 0, 2] == MET(4, 4)   # win 1, lose 1
    assert values[0, 1, 5] == 1.0 and values[1, 0, 5] == MET(3, 4)          # win 4; theirs 2
    assert values[0, 2, 6] == 1.0 and values[0, 2, 0] == 0.0                # 12 points
    assert live[0, 0] and live[0, 1] and not live[0, 2]     # 4-away doubles from 1 and 2
    assert live[1, 2] and not live[:, -1].any()             # 5-away from 4 as well
    crawford = CubeInfo.from_match_state(_state(7, (6, 3), crawford=True))
    values, live, _ = score_table(crawford, MET)
    assert not live.any() and values[0, 0, 4] == MET(3, 1, post_crawford=True)
    assert values[1, 0, 4] == 1.0                           # 1-away wins the match


def test_a_sure_win_is_worth_the_cube(engine):
    """The side on roll bears off its last two checkers: with no double it wins 1 point,
    doubled and taken 2, on every trial; a pass gives the single point now."""
    board = board_of({0: 2}, {5: 3})
    r = _rollout(engine, board, _state(7, (2, 3)), 20, seed=1)
    assert (r.no_double, r.double_take, r.double_pass) == (MET(3, 5), MET(2, 5), MET(3, 5))
    assert r.no_double_stderr == r.double_take_stderr == r.difference_stderr == 0
    assert r.trials == 20 and not r.decision.double        # doubling gains nothing


def test_a_rollout_is_its_seed_and_agrees_with_the_model(engine):
    board = Position.from_id(MIDGAME).board
    state = _state(7, (2, 3))
    a = _rollout(engine, board, state, 256, seed=4)
    assert a == _rollout(engine, board, state, 256, seed=4, n_threads=2)
    assert a != _rollout(engine, board, state, 256, seed=5)
    model = engine.cube_analysis(board, state)
    assert abs(a.no_double - model.no_double) < 4 * a.no_double_stderr + 0.02
    assert abs(a.double_take - model.double_take) < 4 * a.double_take_stderr + 0.02
    assert a.double_pass == model.double_pass and a.difference_stderr < a.double_take_stderr


def test_bad_arguments(engine):
    board = Position.from_id(MIDGAME).board
    with pytest.raises(ValueError, match="cannot double"):
        _rollout(engine, board, _state(7, (6, 3), crawford=True), 8)
    with pytest.raises(ValueError, match="trials"):
        _rollout(engine, board, _state(7, (2, 3)), 0)
    values, live, complement = score_table(CubeInfo.from_match_state(_state(7, (2, 3))))
    with pytest.raises(ValueError, match="two cube levels"):
        from bgengine.core.cuberollout import rollout_cube
        rollout_cube(engine.network, board, 8, table=(values[:, :1], live[:, :1] & False,
                                                      complement))
    with pytest.raises(ValueError, match="Jacoby"):
        from bgengine.core.cuberollout import rollout_cube
        rollout_cube(engine.network, board, 8, jacoby=True,
                     table=score_table(CubeInfo.from_match_state(_state(7, (2, 3)))))


def test_commands_roll_out_the_cube_at_the_score(capsys):
    state = f"{MIDGAME}:{match_id(_state(7, (2, 3)))}"
    assert main(["rollout", state, "--cube", "--trials", "32", "--json"]) == 0
    cube = json.loads(capsys.readouterr().out)["cube"]
    assert cube["trials"] == 32 and cube["double_pass"] == MET(3, 5)     # 4-away wins 1 point
    assert main(["rollout", state, "--cube", "--trials", "32", "--plies", "1"]) == 0
    assert "match-winning chances, 4-away against 5-away" in capsys.readouterr().out
    assert main(["hint", state, "--rollout", "32", "--threads", "1", "--json"]) == 0
    hint = json.loads(capsys.readouterr().out)["cube"]
    assert hint["cube_rollout"]["trials"] == 32
    assert hint["evaluation"]["cubeful"] == hint["no_double"]
