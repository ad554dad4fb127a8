"""Cubeful rollouts of cube decisions at a match score (bgengine.decisions.match_rollouts)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bgengine.cli import main
from bgengine.decisions.cube import gnubg_met
from bgengine.decisions.engine import Engine
from bgengine.decisions.match_rollouts import (match_winning_chance_after,
                                               rollout_match_cube_decision)
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


def test_match_winning_chance_after_a_game():
    s = _state(7, (2, 3))
    assert match_winning_chance_after(s, 1, 1, 2, MET) == MET(2, 5)
    assert match_winning_chance_after(s, 0, 1, 2, MET) == MET(5, 2)
    assert match_winning_chance_after(s, 1, 1, 4, MET) == 1.0          # the match won
    assert match_winning_chance_after(s, 1, 0, 6, MET) == 0.0
    # 6-away reaching 1-away: the Crawford game comes next (the table's pre-Crawford entry)
    s = _state(7, (5, 3))
    assert match_winning_chance_after(s, 0, 0, 1, MET) == MET(1, 4)
    # in the Crawford game and after it, the post-Crawford entries
    s = _state(7, (6, 3), crawford=True)
    assert match_winning_chance_after(s, 1, 1, 1, MET) == MET(3, 1, post_crawford=True)
    s = _state(7, (6, 3))
    assert match_winning_chance_after(s, 1, 1, 2, MET) == MET(2, 1, post_crawford=True)


def test_a_sure_win_is_worth_the_cube(engine):
    """The side on roll bears off its last two checkers: with no double it wins 1 point,
    doubled and taken 2, on every trial; a pass gives the single point now."""
    board = board_of({0: 2}, {5: 3})
    r = rollout_match_cube_decision(engine, board, _state(7, (2, 3)), 20, seed=1)
    assert (r.no_double, r.double_take, r.double_pass) == (MET(3, 5), MET(2, 5), MET(3, 5))
    assert r.no_double_stderr == r.double_take_stderr == r.difference_stderr == 0
    assert r.trials == 20 and not r.decision.double        # doubling gains nothing


def test_a_rollout_is_its_seed_and_agrees_with_the_model(engine):
    board = Position.from_id(MIDGAME).board
    state = _state(7, (2, 3))
    a = rollout_match_cube_decision(engine, board, state, 128, seed=4)
    assert a == rollout_match_cube_decision(engine, board, state, 128, seed=4)
    assert a != rollout_match_cube_decision(engine, board, state, 128, seed=5)
    model = engine.cube_analysis(board, state)
    assert abs(a.no_double - model.no_double) < 4 * a.no_double_stderr + 0.02
    assert a.double_pass == model.double_pass and a.difference_stderr < a.double_take_stderr


def test_bad_arguments(engine):
    board = Position.from_id(MIDGAME).board
    with pytest.raises(ValueError, match="money play"):
        rollout_match_cube_decision(engine, board, MatchState(player_on_roll=1, turn=1), 8)
    with pytest.raises(ValueError, match="cannot double"):
        rollout_match_cube_decision(engine, board, _state(7, (6, 3), crawford=True), 8)
    with pytest.raises(ValueError, match="trials"):
        rollout_match_cube_decision(engine, board, _state(7, (2, 3)), 0)


def test_commands_roll_out_the_cube_at_the_score(capsys):
    state = f"{MIDGAME}:{match_id(_state(7, (2, 3)))}"
    assert main(["rollout", state, "--cube", "--trials", "32", "--json"]) == 0
    cube = json.loads(capsys.readouterr().out)["cube"]
    assert cube["trials"] == 32 and cube["double_pass"] == MET(3, 5)     # 4-away wins 1 point
    assert main(["rollout", state, "--cube", "--trials", "32"]) == 0
    assert "match-winning chances, 4-away against 5-away" in capsys.readouterr().out
    assert main(["rollout", state, "--cube", "--trials", "8", "--plies", "1"]) == 2
    assert "0-ply" in capsys.readouterr().err
    assert main(["hint", state, "--rollout", "32", "--threads", "1", "--json"]) == 0
    hint = json.loads(capsys.readouterr().out)["cube"]
    assert hint["cube_rollout"]["trials"] == 32
    assert hint["evaluation"]["cubeful"] == hint["no_double"]
