"""The race distribution network (bgengine.core.racedist), its training data and fit
(bgengine.labelling.race_distributions), and race values combined from it.

Oracles: a numpy forward pass of the same weights over a plain-Python encoding; the exact
recursion's own queries (for the solved positions it hands out); the combination formula
of the two sides' distributions, written out in Python.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest

from bgengine.cli import main
from bgengine.core import bearoff as bo
from bgengine.core.evaluator import Evaluator, load_evaluator
from bgengine.core.network import Network
from bgengine.core.racedist import INPUTS, ROLLS, RaceDistributionNetwork, encode_sides
from bgengine.core.racegammon import RaceGammonTables
from bgengine.labelling.race_distributions import (SolveConfig, fit_race_distributions,
                                                    load_solved, solve_sides,
                                                    with_race_distributions)
from bgengine.training.recipe import load_recipe, run_recipe


def row(points: dict[int, int]) -> np.ndarray:
    r = np.zeros(25, np.uint8)
    for p, n in points.items():
        r[p - 1] += n
    return r


def encode_reference(r: np.ndarray) -> np.ndarray:
    """The inputs, written out point by point."""
    x = []
    for p in range(24):
        n = int(r[p])
        x += [n >= 1, n >= 2, n >= 3, max(n - 3, 0) / 2]
    on_board = int(r[:24].sum())
    pips = sum((p + 1) * int(r[p]) for p in range(24))
    outside = int(r[6:24].sum())
    home = sum((p - 5) * int(r[p]) for p in range(6, 24))
    return np.array(x + [(15 - on_board) / 15, pips / 100, outside / 15, home / 50], np.float32)


def random_net(hidden=16, seed=0, max_outside=6) -> RaceDistributionNetwork:
    g = np.random.default_rng(seed)
    return RaceDistributionNetwork(g.normal(0, 0.3, (INPUTS, hidden)), g.normal(0, 0.1, hidden),
                                   g.normal(0, 0.5, (hidden, 2 * ROLLS)),
                                   g.normal(0, 0.5, 2 * ROLLS), max_outside=max_outside)


def constant_net(all_off: np.ndarray, first: np.ndarray, max_outside=6) -> RaceDistributionNetwork:
    """A network whose distributions are ``all_off`` and ``first`` for every side."""
    b2 = np.log(np.maximum(np.concatenate([all_off, first]), 1e-30))
    return RaceDistributionNetwork(np.zeros((INPUTS, 4)), np.zeros(4), np.zeros((4, 2 * ROLLS)),
                                   b2, max_outside=max_outside)


SIDES = [row({24: 1, 13: 2, 8: 3, 6: 5, 5: 2, 4: 2}), row({9: 1, 6: 2, 4: 3, 2: 2}),
         row({12: 5, 11: 4, 6: 6}), row({1: 1}), row({})]


def test_inputs_are_the_reference_encoding():
    x = encode_sides(np.array(SIDES))
    assert x.shape == (len(SIDES), INPUTS) and x.dtype == np.float32
    for r, xi in zip(SIDES, x):
        assert np.allclose(xi, encode_reference(r))


def test_distributions_are_the_numpy_forward_pass():
    net = random_net()
    a, f = net.distributions(np.array(SIDES))
    w = net.arrays()
    x = np.array([encode_reference(r) for r in SIDES], np.float64)
    h = 1 / (1 + np.exp(-(x @ w["w1"] + w["b1"])))
    z = h @ w["w2"] + w["b2"]
    soft = lambda v: np.exp(v - v.max(1, keepdims=True)) / np.exp(v - v.max(1, keepdims=True)).sum(1, keepdims=True)
    assert np.allclose(a, soft(z[:, :ROLLS]), atol=1e-5)
    assert np.allclose(a.sum(1), 1) and np.allclose(f.sum(1), 1)
    full = np.array([r.sum() == 15 for r in SIDES])
    assert np.allclose(f[full], soft(z[full, ROLLS:]), atol=1e-5)
    assert np.allclose(f[~full], np.eye(ROLLS)[0])      # a checker is off: 0 rolls


def test_bad_weights_and_sides_are_refused():
    with pytest.raises(ValueError, match="w1"):
        RaceDistributionNetwork(np.zeros((99, 4)), np.zeros(4), np.zeros((4, 64)), np.zeros(64))
    with pytest.raises(ValueError, match="shapes"):
        RaceDistributionNetwork(np.zeros((INPUTS, 4)), np.zeros(5), np.zeros((4, 64)), np.zeros(64))
    with pytest.raises(ValueError, match="finite"):
        RaceDistributionNetwork(np.full((INPUTS, 4), np.nan), np.zeros(4), np.zeros((4, 64)),
                                np.zeros(64))
    with pytest.raises(ValueError, match="max_outside"):
        random_net(max_outside=16)
    net = random_net()
    with pytest.raises(ValueError, match="bar"):
        net.distributions(row({25: 1, 6: 14}))
    with pytest.raises(ValueError, match="0..15"):
        net.distributions(row({6: 16}))
    with pytest.raises(ValueError, match="shape"):
        net.distributions(np.zeros((2, 24), np.uint8))
    with pytest.raises(TypeError):
        RaceGammonTables(network="net")


def test_network_pickles_and_reports():
    net = random_net(hidden=8, max_outside=5)
    back = pickle.loads(pickle.dumps(net))
    assert back.hidden == 8 and back.max_outside == 5 and "hidden=8" in repr(back)
    assert np.array_equal(back.distributions(SIDES[0])[0], net.distributions(SIDES[0])[0])
    assert not net.w1.flags.writeable


def race_board(other: np.ndarray, on_roll: np.ndarray) -> np.ndarray:
    b = np.zeros((2, 25), np.uint8)
    b[0], b[1] = other, on_roll
    return b


def test_refine_takes_the_network_beyond_the_exact_reach():
    # the other side has 3 outside, one still in the winner's home board: beyond
    # max_outside=1, within the network's 6
    other = row({20: 1, 12: 1, 8: 1, 6: 4, 5: 4, 4: 4})
    on_roll = row({7: 1, 6: 3, 4: 3, 2: 3, 1: 2})          # 12 checkers, 1 outside
    exact = RaceGammonTables(max_outside=1)
    a_on = exact.bear_off_distribution(on_roll)
    a_net = np.eye(ROLLS)[8] * 0.5 + np.eye(ROLLS)[9] * 0.5
    f_net = np.eye(ROLLS)[4] * 0.25 + np.eye(ROLLS)[5] * 0.75
    tables = RaceGammonTables(max_outside=1, network=constant_net(a_net, f_net))
    assert tables.network is not None and "network=" in repr(tables)
    out = tables.refine(race_board(other, on_roll), [0.5, 0.1, 0.01, 0.0, 0.0])
    win = sum(a_on[n] * a_net[n:].sum() for n in range(ROLLS))
    gammon = sum(a_on[n] * f_net[n:].sum() for n in range(ROLLS))
    assert out[0] == pytest.approx(win, abs=1e-5)
    assert out[1] == pytest.approx(gammon, abs=1e-5) and out[1] > 0
    assert out[2] == pytest.approx(min(0.01, out[1]))       # not exact: the network's stands
    home = row({12: 2, 8: 1, 6: 4, 5: 4, 4: 4})             # none left there: no backgammon
    assert tables.refine(race_board(home, on_roll), [0.5, 0.1, 0.01, 0.0, 0.0])[2] == 0
    assert out[3] == 0 and out[4] == 0
    # without the network the race network's values stand
    assert np.allclose(exact.refine(race_board(other, on_roll), [0.5, 0.1, 0.01, 0, 0]),
                       [0.5, 0.1, 0.01, 0, 0])
    # beyond the network's reach too
    narrow = RaceGammonTables(max_outside=1, network=constant_net(a_net, f_net, max_outside=2))
    assert np.allclose(narrow.refine(race_board(other, on_roll), [0.5, 0.1, 0.01, 0, 0]),
                       [0.5, 0.1, 0.01, 0, 0])


def test_solved_positions_are_the_recursions_values():
    t = RaceGammonTables(max_outside=15, state_budget=1 << 30, shards=1)
    side = row({13: 1, 9: 1, 6: 4, 5: 3, 4: 3, 3: 3})
    t.bear_off_distribution(side)
    t.first_off_distribution(side)
    rows, dists = t.solved("all")
    assert len(rows) > 20 and rows.dtype == np.uint8 and dists.shape == (len(rows), 32)
    assert any(np.array_equal(r, side) for r in rows)
    fresh = RaceGammonTables(max_outside=15, state_budget=1 << 30, shards=1)
    for r, d in list(zip(rows, dists))[:: max(1, len(rows) // 10)]:
        assert np.allclose(fresh.bear_off_distribution(r), d, atol=1e-6)
    rf, df = t.solved("first")
    assert len(rf) > 0 and all(r.sum() == 15 for r in rf)
    with pytest.raises(ValueError, match="mode"):
        t.solved("some")


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    path = tmp_path_factory.mktemp("race") / "sides.npz"
    sides = np.array([row({9: 1, 8: 1, 6: 4, 5: 3, 4: 3, 3: 3}),
                      row({11: 2, 6: 4, 5: 3, 4: 3, 3: 3}),
                      row({10: 1, 7: 1, 6: 3, 2: 2}),
                      row({12: 1, 8: 1, 6: 5, 4: 4, 1: 4})])
    config = SolveConfig(min_outside=2, max_outside=2, sides=3, keep=0.5, seed=1)
    n = solve_sides(path, sides, config)
    return path, sides, config, n


def test_solve_sides_writes_exact_distributions_and_resumes(solved):
    path, sides, config, n = solved
    rows, all_off, first = load_solved([path])
    assert n >= 3 and len(rows) <= n
    check = RaceGammonTables(max_outside=15, state_budget=1 << 30, shards=1)
    for r, a, f in list(zip(rows, all_off, first))[:8]:
        assert np.allclose(check.bear_off_distribution(r), a, atol=1e-6)
        if r.sum() == 15:
            assert np.allclose(check.first_off_distribution(r), f, atol=1e-6)
        else:
            assert np.isnan(f).all()
    # a second run with the same settings has nothing left to do
    assert solve_sides(path, sides, config) == n
    with pytest.raises(ValueError, match="other settings"):
        solve_sides(path, sides, SolveConfig(min_outside=2, max_outside=2, sides=3, keep=0.4))


def test_fit_learns_the_distributions_and_the_evaluator_keeps_them(solved, tmp_path):
    path, *_ = solved
    rows, all_off, first = load_solved([path])
    net, history = fit_race_distributions(rows, all_off, first, hidden=16, epochs=30,
                                          held_out=0.2, patience=30, lr=1e-2)
    assert history[-1][0] < history[0][0]        # the held-out error falls
    assert net.hidden == 16 and net.max_outside == 6
    contact = Network((16,), 5, encoder="contact", seed=3)
    race = Network((16,), 5, encoder="race", seed=4)
    ev = with_race_distributions(Evaluator(contact, race, database=bo.default()), net)
    assert ev.race_gammons.max_outside == 1 and ev.race_gammons.network is net
    file = tmp_path / "ev.npz"
    ev.save(file)
    back = load_evaluator(file)
    assert back.race_gammons.network is not None and "race distributions" in repr(back)
    board = race_board(row({11: 2, 6: 4, 5: 3, 4: 3, 3: 3}), row({9: 1, 6: 3, 4: 3, 2: 3}))
    assert np.allclose(back.evaluate(board), ev.evaluate(board), atol=1e-6)
    assert not np.allclose(ev.evaluate(board), ev.with_race_gammons(False).evaluate(board))
    assert np.allclose(pickle.loads(pickle.dumps(ev)).evaluate(board), ev.evaluate(board))


def test_solve_settings_are_checked():
    for bad in ({"min_outside": 3, "max_outside": 2}, {"max_outside": 16}, {"keep": 1.5},
                {"sides": 0}):
        with pytest.raises(ValueError):
            SolveConfig(**bad)


POOL = Path(__file__).resolve().parents[1] / "training/positions/race-r1.npz"


def test_cli_solves_fits_and_refuses_bad_input(tmp_path, capsys):
    sides = tmp_path / "sides.npz"
    assert main(["data", "race-solve", str(sides), "--pool", str(POOL), "--min-outside", "2",
                 "--max-outside", "2", "--sides", "3", "--keep", "0.2", "--quiet"]) == 0
    assert "sides" in capsys.readouterr().out
    out = tmp_path / "ev.npz"
    assert main(["data", "race-fit", str(out), "--data", str(sides), "--hidden", "8",
                 "--epochs", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["epochs"] == 2 and report["sides"] >= 3
    assert load_evaluator(out).race_gammons.network.hidden == 8
    assert main(["data", "race-solve", str(tmp_path / "x.npz"), "--pool", str(POOL),
                 "--keep", "2"]) != 0
    assert "keep" in capsys.readouterr().err


def test_recipe_phase_fits_from_solved_data(solved, tmp_path):
    path, *_ = solved
    contact = Network((16,), 5, encoder="contact", seed=3)
    start = tmp_path / "start.npz"
    Evaluator(contact, Network((16,), 5, encoder="race", seed=4), database=bo.default()).save(start)
    recipe = tmp_path / "r.toml"
    recipe.write_text(f'[[phase]]\nkind = "race-fit"\ndata = ["{path}"]\nhidden = 8\n'
                      'epochs = 2\n')
    result = run_recipe(tmp_path / "run", load_recipe(recipe), start=str(start))
    assert load_evaluator(result).race_gammons.network.hidden == 8


def test_recipe_phase_solves_each_table_of_its_solve_list(tmp_path):
    contact = Network((16,), 5, encoder="contact", seed=3)
    start = tmp_path / "start.npz"
    Evaluator(contact, Network((16,), 5, encoder="race", seed=4), database=bo.default()).save(start)
    recipe = tmp_path / "r.toml"
    recipe.write_text(f'[[phase]]\nkind = "race-fit"\nname = "races"\npools = ["{POOL}"]\n'
                      'solve = [{min_outside = 2, max_outside = 2, sides = 2, keep = 0.2},\n'
                      '         {min_outside = 3, max_outside = 3, sides = 1, keep = 0.1, seed = 1}]\n'
                      'hidden = 8\nepochs = 1\n')
    result = run_recipe(tmp_path / "run", load_recipe(recipe), start=str(start))
    assert load_evaluator(result).race_gammons.network.hidden == 8
    folder = next((tmp_path / "run").rglob("sides-1.npz")).parent
    for k, outside in ((1, 2), (2, 3)):
        with np.load(folder / f"sides-{k}.npz") as d:
            assert json.loads(str(d["settings"]))["min_outside"] == outside
    recipe.write_text('[[phase]]\nkind = "race-fit"\nsolve = [{outside = 2}]\n')
    with pytest.raises(ValueError, match="unknown solve settings"):
        load_recipe(recipe)
