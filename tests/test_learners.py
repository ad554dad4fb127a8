"""Mutation hill-climbing and rollout-target training (the sources' other methods)."""

from __future__ import annotations

import numpy as np
import pytest

from bgengine.training.learners import mutation_games, rollout_target_games
from bgengine.core.network import Network, equity_of, flip_outputs
from bgengine.training.trainer import TrainConfig, read_log, train


def small(n_outputs=4, seed=1) -> Network:
    return Network(hidden=(6,), n_outputs=n_outputs, encoder="tesauro198", seed=seed)


# ---------------------------------------------------------------- mutation

def test_mutation_from_zero_is_reproducible_and_resumes_exactly():
    a, b = small(), small()
    a.params[:] = 0
    b.params[:] = 0
    sa = mutation_games(a, 64, seed=5)
    mutation_games(b, 32, seed=5)
    sb = mutation_games(b, 32, seed=5, first_game=32)
    np.testing.assert_array_equal(a.params, b.params)
    assert np.array_equal(sa["accepted"][8:], sb["accepted"])
    assert 0 < sa["accepted"].sum() < 16          # some mutants win, not all
    assert np.abs(a.params).max() <= 1.0 and np.abs(a.params).max() > 0


def test_mutation_moves_toward_the_winner_and_renormalizes():
    net = small()
    net.params[:] = 0
    before = net.params.copy()
    st = mutation_games(net, 4, seed=1, sigma=0.5, step=1.0)
    if st["accepted"][0]:
        # step 1: the champion became the mutant, then was scaled into [-1, 1]
        assert np.abs(net.params).max() == pytest.approx(1.0)
    else:
        np.testing.assert_array_equal(net.params, before)
    # every generation's outcome is the sign of the champion's points
    net.params[:] = 0
    st = mutation_games(net, 40, seed=2)
    pts = st["result"].reshape(10, 4).sum(axis=1)
    assert np.array_equal(st["accepted"], pts < 0)


def test_mutation_argument_errors():
    with pytest.raises(ValueError, match="even"):
        mutation_games(small(), 6, games_per_generation=3)
    with pytest.raises(ValueError, match="multiples"):
        mutation_games(small(), 6)


# ---------------------------------------------------------------- rollout targets

def test_flip_is_an_involution():
    v = np.array([[0.6, 0.2, 0.01, 0.1, 0.02]])
    assert np.allclose(flip_outputs(flip_outputs(v)), v)
    assert np.allclose(flip_outputs(np.array([[0.7, 0.3, 0.1, 0.05]])), [[0.3, 0.7, 0.05, 0.1]])
    assert equity_of(flip_outputs(v[0])) == pytest.approx(-equity_of(v[0]))


def test_rollout_targets_train_and_are_reproducible():
    a, b = small(5), small(5)
    sa = rollout_target_games(a, 2, 0.1, trials=4, truncate=4, seed=3)
    rollout_target_games(b, 1, 0.1, trials=4, truncate=4, seed=3)
    rollout_target_games(b, 1, 0.1, trials=4, truncate=4, seed=3, first_game=1)
    np.testing.assert_array_equal(a.params, b.params)
    assert not np.array_equal(a.params, small(5).params)          # it learned something
    assert all(m > 0 for m in sa["moves"]) and set(np.abs(sa["result"])) <= {1, 2, 3}


# ---------------------------------------------------------------- in training runs

@pytest.mark.parametrize("method, extra", [
    ("mutation", {"mutation_games": 4}),
    ("rollout", {"rollout_trials": 2, "rollout_truncate": 2, "rollout_best": 2, "rollout_worst": 0}),
])
def test_training_runs_with_the_other_methods(tmp_path, method, extra):
    cfg = TrainConfig(hidden=[4], outputs=4, games=8, seed=2, checkpoint_every=4, eval_every=8,
                      eval_games=10, threads=1, method=method, **extra)
    net = train(cfg, tmp_path / "r", progress=False)
    kinds = [r["kind"] for r in read_log(tmp_path / "r")]
    assert kinds.count("train") == 2 and kinds.count("eval") == 1
    # an interrupted run resumes to the same weights
    half = train(cfg, tmp_path / "s", progress=False, stop_after=4)
    again = train(cfg, tmp_path / "s", progress=False)
    assert not np.array_equal(half.params, net.params) or method == "mutation"
    np.testing.assert_array_equal(again.params, net.params)


def test_mutation_config_errors():
    with pytest.raises(ValueError, match="mutation_games"):
        TrainConfig(method="mutation", mutation_games=3)
    with pytest.raises(ValueError, match="method must be one of"):
        TrainConfig(method="annealing")
