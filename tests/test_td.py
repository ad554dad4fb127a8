"""Self-play learning (bgengine.core.td.train_games): reproducibility, continuation,
a plain-Python re-implementation of TD(0), TD(lambda) and backprop-to-result
move by move, and a short run that learns to beat the random player."""

from __future__ import annotations

import numpy as np
import pytest

from bgengine.core.agents import Player, play_match
from bgengine.core.network import Network
from bgengine.core.td import train_games
from td_reference import ref_train

# ---------------------------------------------------------------- against the reference

@pytest.mark.parametrize("K", [1, 4, 5])
def test_td0_matches_reference_bit_for_bit(K):
    """w += alpha * sum_k d_k grad V_k with grad V at the current weights.

    (Fails while td.pyx passes ``L.net.params`` as the gradient buffer of
    net_backward_sparse: _backward_upper then updates W[l] in place before
    reading it for the delta of layer l, so lower layers get the gradient at
    partly updated weights -- an O(alpha^2) error per move.)"""
    a = Network((6,), K, "tesauro198", seed=K, init_range=0.3)
    b = a.copy()
    got = train_games(a, 2, 0.1, 0.0, seed=7, first_game=3)
    want = ref_train(b, 2, 0.1, 0.0, seed=7, first_game=3)
    np.testing.assert_array_equal(got["moves"], want["moves"])
    np.testing.assert_array_equal(got["result"], want["result"])
    np.testing.assert_allclose(got["error"], want["error"], rtol=1e-12)
    np.testing.assert_array_equal(a.params, b.params)


def test_td0_with_exploration_matches_reference():
    a = Network((5,), 5, "tesauro198+extra", seed=1, init_range=0.3)
    b = a.copy()
    got = train_games(a, 2, 0.05, 0.0, seed=3, epsilon=0.3)
    want = ref_train(b, 2, 0.05, 0.0, seed=3, epsilon=0.3)
    np.testing.assert_array_equal(got["moves"], want["moves"])
    np.testing.assert_array_equal(got["result"], want["result"])
    np.testing.assert_array_equal(a.params, b.params)


@pytest.mark.parametrize("K", [1, 5])
def test_backprop_matches_reference_bit_for_bit(K):
    a = Network((6,), K, "expert", seed=2, init_range=0.3)
    b = a.copy()
    got = train_games(a, 2, 0.05, seed=11, method="backprop")
    want = ref_train(b, 2, 0.05, 0.0, seed=11, method="backprop")
    np.testing.assert_array_equal(got["moves"], want["moves"])
    np.testing.assert_array_equal(got["result"], want["result"])
    np.testing.assert_allclose(got["error"], want["error"], rtol=1e-12)
    np.testing.assert_array_equal(a.params, b.params)


@pytest.mark.parametrize("K,lam", [(1, 0.7), (4, 0.5), (5, 0.7), (5, 1.0)])
def test_td_lambda_matches_reference(K, lam):
    """Eligibility traces per output in the first mover's frame (float64 here,
    scaled float32 in the C code), so equal up to rounding."""
    a = Network((5,), K, "tesauro198", seed=4, init_range=0.3)
    b = a.copy()
    start = a.params.copy()
    got = train_games(a, 2, 0.1, lam, seed=5)
    want = ref_train(b, 2, 0.1, lam, seed=5)
    np.testing.assert_array_equal(got["moves"], want["moves"])
    np.testing.assert_array_equal(got["result"], want["result"])
    np.testing.assert_allclose(got["error"], want["error"], rtol=1e-4, atol=1e-6)
    change = np.abs(a.params - start).max()
    assert change > 1e-3
    np.testing.assert_allclose(a.params, b.params, rtol=0, atol=1e-5 * max(1, change))


def test_td0_first_order_update():
    """lam=0, tiny alpha: the change in params is alpha * sum_t sum_k delta_k grad V_k
    with everything evaluated at the initial weights."""
    net = Network((8,), 1, "tesauro198", seed=6, init_range=0.3)
    start = net.params.copy()
    alpha = 1e-4
    frozen = ref_train(net.copy(), 1, alpha, 0.0, seed=2, freeze=True)
    train_games(net, 1, alpha, 0.0, seed=2)
    change = (net.params.astype(np.float64) - start) / alpha
    # float32 params: each step adds ~alpha*g to weights of size ~0.3 (ulp 3e-8)
    np.testing.assert_allclose(change, frozen["total"], rtol=0,
                               atol=0.02 * np.abs(frozen["total"]).max())


def test_tiny_lambda_is_td0():
    """The trace code path with lambda -> 0 (scaled traces rescaled every few
    moves) performs TD(0)'s update."""
    a = Network((6,), 5, "tesauro198", seed=8, init_range=0.3)
    b = a.copy()
    start = a.params.copy()
    ra = train_games(a, 3, 0.1, 1e-7, seed=9)
    rb = ref_train(b, 3, 0.1, 0.0, seed=9)
    np.testing.assert_array_equal(ra["moves"], rb["moves"])
    change = np.abs(a.params - start).max()
    np.testing.assert_allclose(a.params, b.params, rtol=0, atol=1e-5 * max(1, change))


# ---------------------------------------------------------------- reproducibility

CASES = [dict(lam=0.0), dict(lam=0.7), dict(method="backprop"), dict(lam=0.7, epsilon=0.1)]


@pytest.mark.parametrize("kw", CASES)
def test_deterministic(kw):
    nets = [Network((10,), 5, "tesauro198", seed=1) for _ in range(3)]
    r = [train_games(n, 10, 0.1, seed=s, **kw) for n, s in zip(nets, (4, 4, 5))]
    np.testing.assert_array_equal(nets[0].params, nets[1].params)
    for key in ("moves", "result", "error"):
        np.testing.assert_array_equal(r[0][key], r[1][key])
    assert not np.array_equal(nets[0].params, nets[2].params)
    assert not np.array_equal(r[0]["moves"], r[2]["moves"])


@pytest.mark.parametrize("kw", CASES)
def test_first_game_continuation(kw):
    a = Network((10,), 1, "tesauro198", seed=2)
    b = a.copy()
    r1 = train_games(a, 10, 0.1, seed=3, first_game=0, **kw)
    r2 = train_games(a, 10, 0.1, seed=3, first_game=10, **kw)
    r = train_games(b, 20, 0.1, seed=3, **kw)
    np.testing.assert_array_equal(a.params, b.params)
    for key in ("moves", "result", "error"):
        np.testing.assert_array_equal(np.concatenate([r1[key], r2[key]]), r[key])


def test_game_dice_depend_only_on_game_number():
    """Game g's dice are stream g: with the weights frozen at the start (alpha
    tiny enough not to change a greedy choice) games 5..9 alone replay games
    5..9 of a batch 0..9."""
    a = Network((4,), 1, "tesauro198", seed=0)
    b = a.copy()
    ra = train_games(a, 10, 1e-12, 0.0, seed=1)
    rb = train_games(b, 5, 1e-12, 0.0, seed=1, first_game=5)
    np.testing.assert_array_equal(ra["moves"][5:], rb["moves"])
    np.testing.assert_array_equal(ra["result"][5:], rb["result"])


# ---------------------------------------------------------------- outputs and arguments

@pytest.mark.parametrize("kw", CASES)
def test_returned_arrays_are_sane(kw):
    net = Network((10,), 5, "tesauro198", seed=3)
    r = train_games(net, 30, 0.1, seed=1, **kw)
    assert set(r) == {"moves", "result", "error"}
    assert r["moves"].dtype == np.int32 and r["moves"].shape == (30,)
    assert r["result"].dtype == np.int8 and r["error"].dtype == np.float64
    assert r["moves"].min() >= 14        # 15 checkers need 14+ plays to bear off... by one side
    assert set(np.unique(r["result"])) <= {-3, -2, -1, 1, 2, 3}
    assert np.all((r["error"] >= 0) & (r["error"] <= 1))
    assert np.isfinite(net.params).all()
    r0 = train_games(net, 0, 0.1, seed=1, **kw)
    assert all(v.shape == (0,) for v in r0.values())


def test_bad_arguments():
    net = Network((4,), 1, "tesauro198", seed=0)
    before = net.params.copy()
    bad = [dict(n_games=-1), dict(alpha=0.0), dict(alpha=-0.1), dict(alpha=float("nan")),
           dict(lam=-0.1), dict(lam=1.5), dict(lam=float("nan")), dict(epsilon=-0.01),
           dict(epsilon=1.01), dict(method="sarsa"), dict(method="TD")]
    for kw in bad:
        args = dict(n_games=2, alpha=0.1, lam=0.0) | kw
        with pytest.raises(ValueError):
            train_games(net, args.pop("n_games"), args.pop("alpha"), args.pop("lam"), **args)
    np.testing.assert_array_equal(net.params, before)
    with pytest.raises(TypeError):
        train_games("not a network", 1, 0.1)


def test_negative_seed_is_a_value_error():
    net = Network((4,), 1, "tesauro198", seed=0)
    with pytest.raises(ValueError):
        train_games(net, 1, 0.1, seed=-1)
    with pytest.raises(ValueError):
        train_games(net, 1, 0.1, first_game=-1)


# ---------------------------------------------------------------- it learns

def test_short_td0_training_beats_random():
    net = Network((20,), 1, "tesauro198", seed=1)
    rand = Player("random")
    before, _ = play_match(Player("net", net.copy()), rand, 300, seed=2)
    r = train_games(net, 3000, 0.2, 0.0, seed=1)
    after, _ = play_match(Player("net", net), rand, 300, seed=2)
    assert after.mean() > 0.5 + before.mean() and after.mean() > 0.5
    # games got shorter than the untrained net's long random-ish games
    assert r["moves"][-500:].mean() < r["moves"][:50].mean()
