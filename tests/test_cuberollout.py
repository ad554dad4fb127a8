"""Cubeful money rollouts (bgengine.core.cuberollout) and their use by hint and rollout."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bgengine.cli import main
from bgengine.core.cuberollout import money_cube_action, rollout_cube
from bgengine.core.search import rollout
from bgengine.decisions.cube import CubeInfo, cube_decision
from bgengine.decisions.rollouts import rollout_cube_decision
from bgengine.matches.players import load_default_network
from bgengine.position import Position
from game_positions import board_of

OPENING = "4HPwATDgc/ABMA"
MIDGAME = "jGfkASjg8wcBAA"


@pytest.fixture(scope="module")
def ev():
    return load_default_network()


def test_c_cube_model_is_the_python_model():
    """The rollout's cube model gives the values and decisions of decisions.cube."""
    rng = np.random.default_rng(7)
    for i in range(1500):
        w = rng.uniform(0, 1)
        wg = w * rng.uniform(0, 0.7)
        lg = (1 - w) * rng.uniform(0, 0.7)
        five = np.array([w, wg, wg * rng.uniform(0, 0.3), lg, lg * rng.uniform(0, 0.3)],
                        np.float32)
        if i % 50 == 0:                      # the edges: sure wins and losses
            five = np.array([float(i % 100 == 0), 0, 0, 0, 0], np.float32)
        x = rng.uniform(0.5, 0.8)
        owner, jacoby = ("centre", "me", "opponent")[i % 3], bool(i % 2)
        nd, dt, dp, double, take = money_cube_action(five, x, owner, jacoby)
        ref = cube_decision(five, CubeInfo(owner=owner, jacoby=jacoby), x)
        assert (nd, dt, dp) == pytest.approx((ref.no_double, ref.double_take, ref.double_pass),
                                             abs=1e-12)
        assert (double, take) == (ref.double, ref.take)


@pytest.mark.parametrize("pid,truncate,plies,trials",
                         [(OPENING, 0, 0, 648), (MIDGAME, 7, 0, 648), (MIDGAME, 0, 1, 36)])
def test_cubeless_part_is_the_cubeless_rollout(ev, pid, truncate, plies, trials):
    board = Position.from_id(pid).board
    r = rollout_cube(ev, board, trials, truncate=truncate, plies=plies, seed=3, n_threads=2)
    c = rollout(ev, board, trials, truncate=truncate, plies=plies, seed=3, n_threads=2)
    np.testing.assert_array_equal(r["per_trial_cubeless"], c["per_trial"])
    assert r["equity"] == c["equity"] and r["stderr"] == c["stderr"]


def test_results_are_whole_points_and_thread_independent(ev):
    board = Position.from_id(OPENING).board
    one = rollout_cube(ev, board, 432, seed=5, n_threads=1)
    two = rollout_cube(ev, board, 432, seed=5, n_threads=2)
    np.testing.assert_array_equal(one["per_trial"], two["per_trial"])
    per = np.abs(one["per_trial"])
    # a game's 1, 2 or 3 points times a power of two, or a cash at a power of two
    k = np.log2(per / np.where(per % 3 == 0, 3, 1))
    assert np.all(per >= 1) and np.allclose(k, np.round(k))
    assert np.any(per[:, 0] > 1)                # some games were doubled, or gammons
    assert one["double_pass"] == 1.0
    assert one["difference_stderr"] < one["double_take_stderr"]     # common dice


def test_sure_single_win(ev):
    """The side on roll bears off its last two checkers: +1, or +2 after double/take."""
    board = board_of({0: 2}, {5: 3})
    r = rollout_cube(ev, board, 72, n_threads=2)
    assert np.all(r["per_trial"][:, 0] == 1) and np.all(r["per_trial"][:, 1] == 2)
    assert r["equity"] == 1.0


@pytest.mark.parametrize("jacoby,nd,dt", [(False, -2, -4), (True, -1, -4)])
def test_opponent_too_good_wins_a_gammon(ev, jacoby, nd, dt):
    """The side on roll cannot bear off; the other side's last checker is on its 1-point:
    too good to double, it wins a gammon (single with the Jacoby rule and a centred cube)."""
    board = board_of({12: 15}, {0: 1})
    r = rollout_cube(ev, board, 72, jacoby=jacoby, n_threads=2)
    assert np.all(r["per_trial"][:, 0] == nd) and np.all(r["per_trial"][:, 1] == dt)


def test_bad_arguments(ev):
    board = Position.from_id(OPENING).board
    with pytest.raises(ValueError, match="owner"):
        rollout_cube(ev, board, 36, owner="nobody")
    with pytest.raises(ValueError, match="jacoby"):
        rollout_cube(ev, board, 36, jacoby=1)
    with pytest.raises(ValueError, match="trials"):
        rollout_cube(ev, board, 0)
    with pytest.raises(ValueError, match="finished"):
        rollout_cube(ev, board_of({}, {0: 1}), 36)
    with pytest.raises(ValueError, match="cannot double"):
        rollout_cube_decision(ev, board, CubeInfo(away=1, opp_away=5, crawford=True), 36)


def test_decision_of_a_rollout(ev):
    r = rollout_cube_decision(ev, Position.from_id(OPENING).board, CubeInfo(), 1296,
                              n_threads=2)
    assert r.decision.action == "no double, take"      # nobody doubles at the start
    assert r.double_take < r.no_double < r.double_pass
    assert r.cubeless.trials == r.trials == 1296


def test_rollout_cube_command(capsys):
    # enough trials that the opening's no double is clear of the noise (72 trials are not)
    assert main(["rollout", OPENING, "--cube", "--trials", "648", "--threads", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["cube"]
    assert out["decision"]["action"] == "no double, take" and out["trials"] == 648
    assert main(["rollout", OPENING, "--cube", "--trials", "324", "--threads", "1"]) == 0
    assert "proper cube action: no double, take" in capsys.readouterr().out
    assert main(["rollout", OPENING, "--cube", "--dice", "31"]) == 2
    assert "not with --dice" in capsys.readouterr().err
    # the Crawford game (the side on roll 1-away): no cube decision to roll out
    assert main(["rollout", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:6:3:1:7:10", "--cube"]) == 2
    assert "cannot double here" in capsys.readouterr().err


def test_hint_rollout_is_cubeful_in_money_play(capsys):
    assert main(["hint", OPENING, "--rollout", "72", "--threads", "2", "--json"]) == 0
    cube = json.loads(capsys.readouterr().out)["cube"]
    assert cube["cube_rollout"]["trials"] == 72
    assert cube["evaluation"]["cubeful"] == cube["no_double"]
    assert main(["hint", OPENING, "--rollout", "36", "--threads", "1"]) == 0
    text = capsys.readouterr().out
    assert "from a cubeful rollout of 36 trials" in text and "±" in text
