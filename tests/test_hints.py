"""Hints and evaluations of game states: Engine.hint, Engine.evaluate_state, ``bgengine hint``
and ``bgengine eval``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bgengine.cli import main
from bgengine.decisions.engine import Engine, EngineError
from bgengine.notation.ids import MatchState
from bgengine.core.network import equity_of
from bgengine.position import Position
from bgengine.state import GameState

START = "-b----E-C---eE---c-e----B-"
#: Double match point: 1-away against 1-away, the cube dead; a play's match-winning chance
#: is the mover's chance to win the game, whatever the gammons.
DMP_31 = f"XGID={START}:0:0:1:31:0:0:0:1:10"
MONEY_31 = f"XGID={START}:0:0:1:31:0:0:0:0:10"


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(plies=1)


def _bearoff_state(mine: dict[int, int], double_offered: bool = False) -> GameState:
    """Money, cube 1 centred, no Jacoby rule: the side on roll has ``mine`` (point: checkers)
    left, the opponent four checkers on its 1-point (it has borne off: no gammons), so that
    the probabilities are exact (the bear-off database)."""
    board = np.zeros((2, 25), dtype=np.uint8)
    for point, n in mine.items():
        board[1, point - 1] = n
    board[0, 0] = 4
    ms = MatchState(player_on_roll=1, jacoby=False, double_offered=double_offered,
                    turn=0 if double_offered else 1)
    return GameState(Position(board), ms)


#: The side on roll misses only with 11, 21, 31, 41, 32 (9/36) and then loses to a double
#: (1/6): it wins 95.8%, a pass.
PASS = {6: 1}
#: 6 and 5 against 4 checkers on the 1-point: about 76%, a double and a take.
TAKE = {6: 1, 5: 1}


def test_plays_are_ranked_by_value_with_differences(engine):
    hint = engine.hint(GameState.from_string(MONEY_31), n=8, plies=0)
    assert hint.cube is None and len(hint.plays) == 8
    values = [p.value for p in hint.plays]
    assert values == sorted(values, reverse=True)
    assert [p.difference for p in hint.plays] == pytest.approx([v - values[0] for v in values])
    legal = {m.notation for m in Position.initial().legal_moves(3, 1)}
    assert {p.notation for p in hint.plays} <= legal
    assert hint.plays[0].notation == "8/5 6/5"
    for p in hint.plays:
        assert p.cubeless == pytest.approx(float(equity_of(p.outputs)))
        assert p.after.match.player_on_roll == 0 and p.after.dice == (0, 0)
        assert p.after.position == next(m.position for m in Position.initial().legal_moves(3, 1)
                                         if m.notation == p.notation)


def test_at_double_match_point_a_play_is_worth_its_winning_chance(engine):
    hint = engine.hint(GameState.from_string(DMP_31), n=5, plies=1)
    assert hint.measure.startswith("match-winning chance")
    for p in hint.plays:
        assert p.plies == 1
        assert p.value == pytest.approx(p.outputs[0], abs=1e-9)


def test_evaluation_at_double_match_point(engine):
    state = GameState.from_string(DMP_31).without_dice()
    ev = engine.evaluate_state(state, plies=0)
    np.testing.assert_allclose(ev.outputs, engine.evaluate(state.board))
    assert ev.cubeless == pytest.approx(float(equity_of(ev.outputs)))
    assert ev.cubeful == pytest.approx(ev.outputs[0]) and ev.cubeless_mwc == pytest.approx(ev.outputs[0])


def test_cube_action_before_the_roll(engine):
    hint = engine.hint(_bearoff_state(PASS), plies=0)
    assert hint.plays == () and hint.cube is not None
    d = hint.cube.decision
    assert hint.cube.evaluation.outputs[0] == pytest.approx(1 - 9 / 36 / 6, abs=1e-4)
    assert d.double_pass == pytest.approx(1.0) and d.double_take > 1.0 > d.no_double
    assert hint.cube.proper_action == "double, pass" and d.double and not d.take
    take = engine.hint(_bearoff_state(TAKE), plies=0).cube
    assert 0.7 < take.evaluation.outputs[0] < 0.8
    assert take.proper_action == "double, take" and take.decision.take
    dmp = engine.hint(GameState.from_string(DMP_31).without_dice(), plies=0)
    assert dmp.cube.proper_action == "no access to the cube"


def test_cube_hint_with_a_double_pending_says_take_or_pass(engine):
    assert engine.hint(_bearoff_state(PASS, double_offered=True), plies=0).cube.decision.take is False
    assert engine.hint(_bearoff_state(TAKE, double_offered=True), plies=0).cube.decision.take is True


def test_no_hint_for_a_finished_game_or_a_resignation(engine):
    with pytest.raises(ValueError, match="no hint"):
        engine.hint(GameState(Position.initial(), MatchState(player_on_roll=1, game_state=2)))
    with pytest.raises(ValueError, match="no hint"):
        engine.hint(GameState(Position.initial(),
                              MatchState(player_on_roll=1, turn=0, resignation=1)))
    with pytest.raises(ValueError, match="plays to show"):
        engine.hint(GameState(), n=0)


def test_hints_need_a_network():
    e = Engine("pubeval")
    e.network = None
    with pytest.raises(EngineError, match="need a network"):
        e.hint(GameState())


def test_to_dict_is_json():
    e = Engine(plies=0)
    d = json.loads(json.dumps(e.hint(GameState.from_string(MONEY_31), n=3).to_dict()))
    assert d["state"]["xgid"] == MONEY_31 and len(d["plays"]) == 3
    assert d["plays"][0]["play"] == "8/5 6/5" and d["plays"][0]["difference"] == 0.0
    cube = json.loads(json.dumps(e.hint(GameState()).to_dict()))["cube"]
    assert set(cube) >= {"no_double", "double_take", "double_pass", "proper_action"}


# ------------------------------------------------------------------ the command line

def test_cli_hint_plays(capsys):
    assert main(["hint", "4HPwATDgc/ABMA", "--dice", "31", "--plies", "0", "--num", "3"]) == 0
    out = capsys.readouterr().out
    assert "Best plays for 3-1 at 0-ply (cubeful equity per cube of the mover)" in out
    assert "   1. 8/5 6/5" in out and "   3. " in out and "   4. " not in out


def test_cli_hint_match_shows_match_winning_chances(capsys):
    assert main(["hint", DMP_31, "--plies", "0", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["measure"].startswith("match-winning chance")
    assert all(p["value"] == pytest.approx(p["probabilities"]["win"]) for p in d["plays"])


def test_cli_hint_cube(capsys):
    text = _bearoff_state(PASS).to_gnubgid()
    assert main(["hint", text, "--plies", "0"]) == 0
    out = capsys.readouterr().out
    assert "No double" in out and "Double, take" in out and "Double, pass" in out
    assert "Proper action: double, pass" in out


def test_cli_eval(capsys):
    assert main(["eval", f"XGID={START}:0:0:1:00:2:4:0:7:10", "--plies", "0"]) == 0
    out = capsys.readouterr().out
    assert "Evaluation at 0-ply" in out and "match-winning chance" in out
    assert main(["eval", "4HPwATDgc/ABMA", "--plies", "0", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["probabilities"]["win"] + d["probabilities"]["lose"] == pytest.approx(1.0)
    assert d["cubeless_mwc"] is None and d["measure"].startswith("cubeful equity")


def test_cli_hint_bad_input(capsys):
    assert main(["hint", "XGID=nonsense", "--plies", "0"]) == 2
    assert "XGID" in capsys.readouterr().err
    assert main(["hint", "4HPwATDgc/ABMA", "--plies", "4"]) == 2
    assert "error" in capsys.readouterr().err


# ------------------------------------------------------------------ rollouts

def test_rollout_of_the_plays_shown(engine):
    hint = engine.hint(GameState.from_string(DMP_31), n=3, plies=0, rollout=72, threads=1)
    assert len(hint.plays) == 3
    values = [p.value for p in hint.plays]
    assert values == sorted(values, reverse=True)
    legal = {m.notation for m in Position.initial().legal_moves(3, 1)}
    for p in hint.plays:
        assert p.notation in legal and p.rollout is not None and p.rollout.trials == 72
        assert p.rollout.label == p.notation and p.cubeless == p.rollout.equity
        assert p.value == pytest.approx(p.outputs[0], abs=1e-9)     # the cube is dead
        np.testing.assert_allclose(p.outputs, p.rollout.outputs)


def test_rollout_of_the_cube_action_agrees_with_the_bearoff_database(engine):
    hint = engine.hint(_bearoff_state(PASS), plies=0, rollout=1296, threads=1)
    ev = hint.cube.evaluation
    assert ev.rollout is not None and ev.rollout.trials == 1296
    assert abs(ev.outputs[0] - (1 - 9 / 36 / 6)) <= 3 * max(ev.rollout.outputs_stderr[0], 1e-3)
    assert hint.cube.proper_action == "double, pass"


def test_rollout_trials_must_be_whole(engine):
    with pytest.raises(ValueError, match="rollout trials"):
        engine.hint(GameState(), rollout=-1)


def test_cli_hint_rollout(capsys):
    assert main(["hint", "4HPwATDgc/ABMA", "--dice", "31", "--plies", "0", "--num", "2",
                 "--rollout", "36", "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert "Best plays for 3-1 from a rollout of 36 trials" in out and " ± " in out
    assert main(["hint", "4HPwATDgc/ABMA", "--plies", "0", "--rollout", "36", "--threads", "1",
                 "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["cube"]["evaluation"]["rollout"]["trials"] == 36
