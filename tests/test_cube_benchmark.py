"""The cube half of the accuracy benchmark (bgengine.labelling.cubes, data cube-*)."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from bgengine.cli import main
from bgengine.labelling.cubes import (CubeDecisionSet, action_agreement, build_cube_set,
                                      close_cube_decisions, cube_errors, model_cube_values,
                                      screened_cube_values)
from bgengine.core.network import Network
from bgengine.labelling.store import boards_to_keys
from bgengine.matches.players import load_default_network
from bgengine.position import Position

POOL = "training/positions/bench-r1.npz"
# judged values (no double, double/take, double/pass) of five positions
JUDGE = np.array([[0.60, 0.80, 1.0],     # double, take
                  [0.60, 1.40, 1.0],     # double, pass
                  [0.40, 0.20, 1.0],     # no double, take
                  [1.20, 1.60, 1.0],     # too good, pass
                  [0.50, 0.50, 1.0]])    # a tie: no double (a double must gain), take


def test_losses_by_kind():
    classes = np.array([0, 0, 1, 4, 4], np.uint8)
    assert all(r.per_decision == 0 for r in cube_errors(JUDGE, JUDGE, classes))
    # the player: never doubles, always takes
    never = np.tile([0.9, 0.5, 1.0], (5, 1))
    total = cube_errors(never, JUDGE, classes)[-1]
    # missed doubles: 0.8 - 0.6 and 1.0 - 0.6; wrong takes of the passes: 1.4 - 1.0, 1.6 - 1.0
    assert total.by_kind["missed double"] == pytest.approx((0.2 + 0.4) / 5)
    assert total.by_kind["wrong take"] == pytest.approx((0.4 + 0.6) / 5)
    assert total.by_kind["wrong double"] == total.by_kind["too good"] == 0
    assert total.doubler == pytest.approx(0.6 / 5) and total.taker == pytest.approx(1.0 / 5)
    assert total.per_decision == pytest.approx(1.6 / 10) and total.errors == 4
    # the player: always doubles, always passes
    always = np.tile([0.0, 2.0, 1.0], (5, 1))
    total = cube_errors(always, JUDGE, classes)[-1]
    assert total.by_kind["wrong double"] == pytest.approx((0.4 - 0.2 + 0.0) / 5)
    assert total.by_kind["too good"] == pytest.approx((1.2 - 1.0) / 5)
    assert total.by_kind["wrong pass"] == pytest.approx((0.2 + 0.8 + 0.5) / 5)
    names = [r.name for r in cube_errors(always, JUDGE, classes)]
    assert names == ["contact", "holding", "race", "all"]


def test_agreement_and_closeness():
    assert action_agreement(JUDGE, JUDGE) == 1.0
    swapped = JUDGE.copy()
    swapped[0] = [0.9, 0.8, 1.0]                # no double, take where the judge doubles
    assert action_agreement(swapped, JUDGE) == pytest.approx(0.8)
    assert close_cube_decisions([JUDGE], 0.05).tolist() == [False, False, False, False, True]
    assert close_cube_decisions([JUDGE], 0.21).tolist() == [True, False, True, True, True]


def test_model_values_are_the_engines():
    from bgengine.decisions.engine import Engine
    from bgengine.notation.ids import MatchState

    ev = load_default_network()
    board = Position.from_id("jGfkASjg8wcBAA").board
    v = model_cube_values(ev, board[None], 0)[0]
    d = Engine("net", plies=0).cube_analysis(board, MatchState(), jacoby=False)
    assert tuple(v) == pytest.approx((d.no_double, d.double_take, d.double_pass))


def test_screened_values_decide_clear_doubles_as_the_shallow_values():
    shallow = np.array([[0.30, 0.60, 1.0],      # margin +0.30: a clear double
                        [0.60, 0.30, 1.0],      # -0.30: a clear no double
                        [0.55, 0.60, 1.0]])     # +0.05: close, the deep values decide
    deep = np.array([[0.70, 0.60, 1.0],         # deep: no double (margin -0.10)
                     [0.10, 0.20, 0.9],         # deep: double, pass
                     [0.80, 0.60, 1.0]])
    out = screened_cube_values(shallow, deep)
    assert out[0, 0] == pytest.approx(0.60 - 0.30) and out[0, 1:].tolist() == [0.60, 1.0]
    assert out[1, 0] == pytest.approx(0.20 + 0.30) and out[1, 1:].tolist() == [0.20, 0.9]
    assert out[2].tolist() == deep[2].tolist()
    assert screened_cube_values(shallow, deep, screen=0.5).tolist() == deep.tolist()


def test_deeper_cube_decisions_are_the_engines():
    """Engine(cube_plies=2): a double of a 0-ply margin wider than CUBE_SCREEN at 0-ply,
    others (and every take) at 2-ply; the benchmark's 2-ply values act the same way."""
    from bgengine.decisions.engine import CUBE_SCREEN, Engine
    from bgengine.labelling.store import keys_to_boards, load_pool
    from bgengine.notation.ids import MatchState

    boards = keys_to_boards(load_pool(POOL).keys[:60])
    ev = load_default_network()
    engine, state = Engine("net", cube_plies=2), MatchState()
    assert engine.plies == 0 and engine.cube_plies == 2
    values = screened_cube_values(model_cube_values(ev, boards, 0),
                                  model_cube_values(ev, boards, 2))
    screened = deep = 0
    for board, v in zip(boards, values):
        quick = engine.cube_analysis(board, state)
        full = engine.cube_analysis(board, state, plies=2)
        margin = min(quick.double_take, quick.double_pass) - quick.no_double
        expected = quick.double if abs(margin) > CUBE_SCREEN else full.double
        screened += abs(margin) > CUBE_SCREEN
        deep += abs(margin) <= CUBE_SCREEN
        assert engine.cube_decision(board, state) == expected
        assert engine.take_decision(board, state) == full.take
        assert expected == (min(v[1], v[2]) > v[0])
    assert screened and deep
    with pytest.raises(ValueError, match="cube plies must be"):
        Engine("net", cube_plies=-1)


def test_build_resumes_and_refuses_other_settings(tmp_path):
    ev = load_default_network()
    boards = np.stack([Position.from_id(p).board for p in
                       ("4HPwATDgc/ABMA", "jGfkASjg8wcBAA", "4PPgAyDgc/ABMA")])
    keys, classes = boards_to_keys(boards), np.zeros(3, np.uint8)
    path = tmp_path / "cubes.npz"
    build_cube_set(path, ev, keys[:2], classes[:2], chunk=1, trials=36)
    done = build_cube_set(path, ev, keys, classes, chunk=1, trials=36)
    again = build_cube_set(tmp_path / "again.npz", ev, keys, classes, chunk=2, trials=36)
    np.testing.assert_array_equal(done.values, again.values)      # resumed = made at once
    assert len(CubeDecisionSet.load(path)) == 3 and np.all(done.values[:, 2] == 1)
    with pytest.raises(ValueError, match="other positions, scores or settings"):
        build_cube_set(path, ev, keys, classes, trials=72)
    with pytest.raises(ValueError, match="not a cube decision set"):
        (tmp_path / "bad.npz").write_bytes(b"nonsense")
        CubeDecisionSet.load(tmp_path / "bad.npz")


def test_commands(tmp_path, capsys):
    out = tmp_path / "cubes.npz"
    assert main(["data", "cube-decisions", str(out), "--pool", POOL, "--per-class", "1",
                 "--trials", "36", "--threads", "2", "--quiet"]) == 0
    assert "cube decisions" in capsys.readouterr().out
    assert main(["data", "cube-benchmark", str(out), "--plies", "0", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["judge"] == "cubeful rollouts" and result["positions"] == 5
    rows = result["errors"]["net 0-ply"]
    assert rows[-1]["name"] == "all" and rows[-1]["positions"] == 5
    few = tmp_path / "few.npz"                  # 20 positions of each class considered
    assert main(["data", "cube-decisions", str(few), "--pool", POOL, "--candidates", "20",
                 "--trials", "36", "--threads", "2", "--quiet", "--json"]) == 0
    made = CubeDecisionSet.load(few)
    assert 0 < len(made) < 100 and made.metadata["candidates"] == 20
    capsys.readouterr()
    again = tmp_path / "again.npz"              # the same positions, rolled out by another player
    other = tmp_path / "other.npz"
    Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=3).save(other)
    assert main(["data", "cube-decisions", str(again), "--positions-from", str(few),
                 "--player", str(other), "--trials", "36", "--quiet"]) == 0
    redone = CubeDecisionSet.load(again)
    assert np.array_equal(redone.keys, made.keys) and np.array_equal(redone.classes, made.classes)
    assert redone.metadata["positions_from"] == str(few) and redone.metadata["candidates"] == 20
    assert not np.array_equal(redone.values, made.values)
    assert main(["data", "cube-decisions", str(again), "--positions-from", str(few),
                 "--pool", POOL, "--quiet"]) == 2
    assert "--positions-from takes" in capsys.readouterr().err
    assert main(["data", "cube-decisions", str(again), "--quiet"]) == 2
    assert "--pool" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["data", "cube-decisions", str(out), "--pool", POOL, "--window", "5"])
    assert "the window must be in (0, 3]" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("gnubg") is None and shutil.which("/usr/games/gnubg") is None,
                    reason="gnubg is not installed")
def test_gnubg_cube_values():
    from bgengine.opponents.gnubg.evaluate import gnubg_cube_values

    boards = np.stack([Position.from_id("4HPwATDgc/ABMA").board])
    nd, dt, dp = gnubg_cube_values(boards, 0, jobs=1)[0]
    assert dp == 1.0 and 0.0 < nd < 0.2 and dt < nd          # no double at the start
    with pytest.raises(ValueError, match="owner"):
        gnubg_cube_values(boards, 0, owner="nobody")


def test_match_score_sets(tmp_path, capsys):
    """A set's positions rolled out again at match scores: values as gnubg's normalised
    equity (double/pass +1), the model's at each position's score, errors in those units."""
    from bgengine.decisions.cube import (CubeEfficiency, CubeInfo, cube_decision, gnubg_met,
                                         score_table)
    from bgengine.labelling.cubes import normalised, score_info

    info = CubeInfo(away=4, opp_away=2)
    table, _, _ = score_table(info, gnubg_met())
    raw = np.array([[table[0, 0, 4], table[0, 0, 2], 0.5 * (table[0, 0, 4] + table[0, 0, 2])]])
    assert normalised(raw, info) == pytest.approx(np.array([[1.0, -1.0, 0.0]]))
    assert score_info((0, 0)).is_money and score_info((4, 2)) == info
    few = tmp_path / "few.npz"
    assert main(["data", "cube-decisions", str(few), "--pool", POOL, "--per-class", "1",
                 "--trials", "36", "--threads", "2", "--quiet"]) == 0
    at = tmp_path / "at.npz"
    assert main(["data", "cube-decisions", str(at), "--positions-from", str(few), "--scores",
                 "4-2", "7-7", "--trials", "36", "--quiet"]) == 0
    capsys.readouterr()
    made, money = CubeDecisionSet.load(at), CubeDecisionSet.load(few)
    assert not made.is_money and money.is_money and made.metadata["scores"] == ["4-2", "7-7"]
    assert made.scores.tolist() == [[4, 2], [7, 7], [4, 2], [7, 7], [4, 2]]
    np.testing.assert_allclose(made.values[:, 2], 1.0, atol=1e-6)   # double/pass: +1 a cube
    assert not np.allclose(made.values[:, :2], money.values[:, :2])
    ev = load_default_network()
    model = model_cube_values(ev, made.boards(), 0, scores=made.scores)
    x = float(CubeEfficiency.of_evaluator(ev).of_boards(made.boards()[:1])[0])
    d = cube_decision(ev.evaluate(made.boards()[0]), info, x, gnubg_met())
    assert model[0] == pytest.approx(normalised([d.no_double, d.double_take, d.double_pass],
                                                info), abs=1e-6)
    searched = model_cube_values(ev, made.boards(), 1, scores=made.scores)
    assert searched.shape == (5, 3) and not np.allclose(searched, model)
    assert main(["data", "cube-benchmark", str(at), "--plies", "0", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["positions"] == 5 and set(result["errors"]) == {"net 0-ply", "net 1-ply"}
    assert main(["data", "cube-decisions", str(at), "--pool", POOL, "--scores", "4-2",
                 "--quiet"]) == 2
    assert "--scores gives" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["data", "cube-decisions", str(at), "--positions-from", str(few), "--scores", "1-3"])
    assert "no Crawford game" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("gnubg") is None and shutil.which("/usr/games/gnubg") is None,
                    reason="gnubg is not installed")
def test_gnubg_cube_values_at_match_scores():
    """gnubg's normalised cubeful values at a score, the side on roll's first: trailing
    4-away against 2-away it doubles a position it would not double for money."""
    from bgengine.opponents.gnubg.evaluate import gnubg_cube_values

    boards = np.stack([Position.from_id("jGfkASjg8wcBAA").board] * 2)
    money = gnubg_cube_values(boards[:1], 0, jobs=1)[0]
    at = gnubg_cube_values(boards, 0, jobs=1, scores=[[4, 2], [2, 4]])
    assert at[0, 2] == at[1, 2] == 1.0
    assert not np.allclose(at[0], at[1]) and not np.allclose(at[0], money)
    with pytest.raises(ValueError, match="scores"):
        gnubg_cube_values(boards, 0, scores=[[4, 0], [2, 4]])
