"""Cube efficiency by position class (bgengine.decisions.efficiency), its C classifier, its
use by the engine and the cubeful rollouts, and its fit (data cube-fit)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bgengine.cli import main
from bgengine.core.cuberollout import position_class_of, rollout_cube
from bgengine.decisions.efficiency import (GNUBG_EFFICIENCY, CubeEfficiency, cube_efficiencies,
                                           cube_efficiency)
from bgengine.labelling.classes import POSITION_CLASSES, RACE, classify_positions
from bgengine.labelling.cubes import CubeDecisionSet, fit_cube_efficiency, model_cube_values
from bgengine.labelling.store import keys_to_boards, load_pool
from bgengine.matches.players import load_default_network, load_network_spec
from bgengine.position import Position

POOL = "training/positions/bench-r1.npz"
MIDGAME = "jGfkASjg8wcBAA"


@pytest.fixture(scope="module")
def ev():
    return load_default_network()


@pytest.fixture(scope="module")
def pool_boards():
    return keys_to_boards(load_pool(POOL).keys)


def _gnubg_rule(board: np.ndarray) -> float:
    """gnubg's rule written out: 0.68 in contact, the pip rule in a race."""
    mine, theirs = board[1].astype(int), board[0].astype(int)
    back = [max((i for i in range(24) if side[i]), default=-1) for side in (mine, theirs)]
    race = mine[24] == 0 and theirs[24] == 0 and (min(back) < 0 or sum(back) < 23)
    if not race:
        return 0.68
    return min(0.7, max(0.6, 0.55 + 0.00125 * int(mine @ np.arange(1, 26))))


def test_c_classifier_is_the_python_classifier(pool_boards):
    """The cubeful rollouts' C classifier agrees with labelling.classes on every position
    of the benchmark pool (all five classes) and on random ones."""
    rng = np.random.default_rng(11)
    random = np.zeros((3000, 2, 25), np.uint8)
    for b in random:            # legal: no point held by both sides; some borne off
        mine = rng.choice(25 if rng.random() < 0.2 else 24, rng.integers(1, 16))
        np.add.at(b[1], mine, 1)
        free = [s for s in range(24) if b[1, 23 - s] == 0] + [24] * (rng.random() < 0.2)
        np.add.at(b[0], rng.choice(free, rng.integers(1, 16)), 1)
    boards = np.concatenate([pool_boards, random])
    expected = classify_positions(boards)
    got = np.array([position_class_of(b) for b in boards])
    np.testing.assert_array_equal(got, expected)
    assert set(expected[: len(pool_boards)].tolist()) == set(range(len(POSITION_CLASSES)))


def test_gnubg_default_is_gnubgs_rule(pool_boards):
    boards = pool_boards[::7]
    expected = np.array([_gnubg_rule(b) for b in boards])
    np.testing.assert_array_equal(cube_efficiencies(boards), expected)
    assert cube_efficiency(boards[0]) == expected[0]


def test_efficiency_by_class(pool_boards):
    fitted = CubeEfficiency(contact=0.7, holding=0.8, back_game=0.95, crashed=0.5)
    classes = classify_positions(pool_boards)
    x = fitted.of_boards(pool_boards)
    for c, value in enumerate(fitted.values):
        assert np.all(x[classes == c] == value)
    # races keep gnubg's rule whatever the contact classes' values
    np.testing.assert_array_equal(x[classes == RACE],
                                  cube_efficiencies(pool_boards[classes == RACE]))


def test_dict_form_and_errors():
    fitted = CubeEfficiency(0.7, 0.75, 1.0, 0.8)
    assert CubeEfficiency.from_dict(fitted.as_dict()) == fitted
    assert CubeEfficiency.from_dict({"crashed": 0.5}) == CubeEfficiency(crashed=0.5)
    assert CubeEfficiency.from_dict({}) == GNUBG_EFFICIENCY
    with pytest.raises(ValueError, match="unknown position classes"):
        CubeEfficiency.from_dict({"race": 0.6})
    with pytest.raises(ValueError, match="mapping"):
        CubeEfficiency.from_dict([0.7, 0.7])
    for bad in (1.2, -0.1, float("nan"), True, "0.7"):
        with pytest.raises(ValueError, match="must be a number in 0..1"):
            CubeEfficiency(holding=bad)


def test_evaluator_file_carries_the_efficiency(ev, tmp_path):
    from bgengine.decisions.engine import Engine
    from bgengine.notation.ids import MatchState

    assert CubeEfficiency.of_evaluator(ev) == GNUBG_EFFICIENCY
    fitted = CubeEfficiency(0.95, 0.95, 0.95, 0.95)
    path = tmp_path / "fitted.npz"
    model = load_network_spec(f"net:{_save_with(ev, path, fitted)}")
    assert CubeEfficiency.of_evaluator(model) == fitted
    engine = Engine(network=model)
    assert engine.efficiency == fitted
    assert Engine(network=model, efficiency=GNUBG_EFFICIENCY).efficiency == GNUBG_EFFICIENCY
    board = Position.from_id(MIDGAME).board
    live = engine.cube_analysis(board, MatchState(), jacoby=False)
    plain = Engine(network=ev).cube_analysis(board, MatchState(), jacoby=False)
    assert live.no_double != plain.no_double           # a livelier cube values the position anew
    v = model_cube_values(model, board[None], 0)[0]
    assert tuple(v) == pytest.approx((live.no_double, live.double_take, live.double_pass))
    broken = load_network_spec(f"net:{_save_with(ev, tmp_path / 'bad.npz', None)}")
    broken.metadata = {**broken.metadata, CubeEfficiency.METADATA_KEY: {"contact": 3}}
    with pytest.raises(ValueError, match="0..1"):
        CubeEfficiency.of_evaluator(broken)


def _save_with(ev, path, efficiency: CubeEfficiency | None):
    model = load_default_network()
    if efficiency is not None:
        model.metadata = {**model.metadata, CubeEfficiency.METADATA_KEY: efficiency.as_dict()}
    model.save(path)
    return path


def test_rollout_efficiency_argument(ev):
    board = Position.from_id(MIDGAME).board
    default = rollout_cube(ev, board, 144, seed=2, n_threads=2)
    gnubg = rollout_cube(ev, board, 144, seed=2, n_threads=2, efficiency=GNUBG_EFFICIENCY.values)
    np.testing.assert_array_equal(default["per_trial"], gnubg["per_trial"])
    other = rollout_cube(ev, board, 144, seed=2, n_threads=2, efficiency=(1.0, 1.0, 1.0, 1.0))
    np.testing.assert_array_equal(other["per_trial_cubeless"], default["per_trial_cubeless"])
    assert not np.array_equal(other["per_trial"], default["per_trial"])   # the cube moves
    for bad in ((0.7, 0.7), (0.7, 0.7, 0.7, 1.5), (0.7, 0.7, 0.7, float("nan"))):
        with pytest.raises(ValueError, match="efficiency must be 4"):
            rollout_cube(ev, board, 36, efficiency=bad)


@pytest.fixture(scope="module")
def cube_set(tmp_path_factory):
    path = tmp_path_factory.mktemp("cubes") / "cubes.npz"
    assert main(["data", "cube-decisions", str(path), "--pool", POOL, "--per-class", "6",
                 "--trials", "36", "--threads", "2", "--quiet"]) == 0
    return path


def test_fit_never_loses_to_gnubgs_efficiency(ev, cube_set):
    cubes = CubeDecisionSet.load(cube_set)
    fitted, report = fit_cube_efficiency(ev, cubes, 0, min_decisions=1)
    assert set(report) <= set(CubeEfficiency.classes) and report
    for name, r in report.items():
        assert r["fitted"] <= r["gnubg"] and r["x"] == fitted.as_dict()[name]
    _, none = fit_cube_efficiency(ev, cubes, 0, min_decisions=10 ** 6)
    assert none == {}
    with pytest.raises(ValueError, match="grid"):
        fit_cube_efficiency(ev, cubes, 0, grid=(0.5, 1.5))


def test_cube_fit_command(cube_set, tmp_path, capsys):
    out = tmp_path / "fitted.npz"
    capsys.readouterr()
    assert main(["data", "cube-fit", str(cube_set), "--out", str(out), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    model = load_network_spec(f"net:{out}")
    assert CubeEfficiency.of_evaluator(model).as_dict() == result["cube_efficiency"]
    assert model.metadata["cube_efficiency_fit"]["set"] == str(cube_set)
    # six decisions a class at most: too few to move any class off gnubg's 0.68
    assert result["classes"] == {} and CubeEfficiency.of_evaluator(model) == GNUBG_EFFICIENCY
    assert main(["data", "cube-fit", str(cube_set), "--out", str(out)]) == 0
    assert "too few decisions" in capsys.readouterr().out
