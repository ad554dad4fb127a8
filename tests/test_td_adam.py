"""Batch TD(0) with Adam (``train_games(adam=...)``): each step against a numpy
reference (the TD gradients of the batch summed at fixed weights by td_reference, then
Adam's update), data-parallel threads, reproducibility and argument checks."""

from __future__ import annotations

import numpy as np
import pytest

from bgengine.core.network import Network
from bgengine.training.optimizer import AdamState
from bgengine.core.td import train_games
from td_reference import ref_train

B1, B2, EPS = 0.9, 0.99, 1e-4


def numpy_adam(w, g, m, v, step, lr):
    """Adam's step in float64 (ascent along g); returns the new (w, m, v)."""
    m = B1 * m + (1 - B1) * g
    v = B2 * v + (1 - B2) * g * g
    mhat, vhat = m / (1 - B1 ** step), v / (1 - B2 ** step)
    return w + lr * mhat / (np.sqrt(vhat) + EPS), m, v


def tiny(K: int = 5) -> Network:
    return Network((6,), K, "tesauro198", seed=K, init_range=0.3)


@pytest.mark.parametrize("K", [1, 5])
def test_each_step_is_adam_on_the_summed_td_gradients(K):
    """Two calls of one game each, a batch larger than a game: one step per call, on the
    gradients of the whole game at the weights the call started with."""
    net = tiny(K)
    state = AdamState.zeros(net, B1, B2, EPS)
    w = net.params.astype(np.float64)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    lr = 0.01
    for step, game in enumerate((4, 9), start=1):
        frozen = net.copy()
        grad = ref_train(frozen, 1, 1.0, 0.0, seed=7, first_game=game, freeze=True)["total"]
        np.testing.assert_array_equal(frozen.params, net.params)
        got = train_games(net, 1, lr, 0.0, seed=7, first_game=game, adam=state,
                          batch_positions=10_000)
        assert state.step == step
        w, m, v = numpy_adam(w, grad, m, v, step, lr)
        np.testing.assert_allclose(net.params, w, rtol=0, atol=2e-6)
        np.testing.assert_allclose(state.m[0], m, rtol=1e-4, atol=1e-7)
        np.testing.assert_allclose(state.v[0], v, rtol=1e-4, atol=1e-9)
        want = ref_train(frozen.copy(), 1, 1.0, 0.0, seed=7, first_game=game, freeze=True)
        np.testing.assert_array_equal(got["moves"], want["moves"])
        np.testing.assert_array_equal(got["result"], want["result"])


def test_two_threads_sum_their_gradients_before_one_step():
    """Thread 0 plays game 0, thread 1 game 1, with the same weights: one step on the sum
    of both games' gradients."""
    net = tiny()
    grad = ref_train(net.copy(), 2, 1.0, 0.0, seed=5, freeze=True)["total"]
    w, _, _ = numpy_adam(net.params.astype(np.float64), grad, 0.0, 0.0, 1, 0.01)
    state = AdamState.zeros(net, B1, B2, EPS)
    got = train_games(net, 2, 0.01, 0.0, seed=5, adam=state, batch_positions=20_000,
                      threads=2)
    assert state.step == 1
    np.testing.assert_allclose(net.params, w, rtol=0, atol=2e-6)
    want = ref_train(tiny(), 2, 1.0, 0.0, seed=5, freeze=True)
    np.testing.assert_array_equal(got["moves"], want["moves"])


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_reproducible_from_seed_and_thread_count(threads):
    def run():
        net = tiny()
        state = AdamState.zeros(net)
        stats = train_games(net, 12, 0.003, 0.0, seed=2, adam=state, batch_positions=64,
                            threads=threads)
        return net.params, state, stats

    (a, sa, ra), (b, sb, rb) = run(), run()
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(sa.m[0], sb.m[0])
    np.testing.assert_array_equal(sa.v[0], sb.v[0])
    # every position counts once: ceil(positions / batch) steps at least
    assert sa.step == sb.step >= -(-int(ra["moves"].sum()) // 64)
    assert (ra["moves"] > 0).all() and (np.abs(ra["result"]) >= 1).all()
    np.testing.assert_array_equal(ra["moves"], rb["moves"])


_TEAM_RUN = """
import sys
import numpy as np
sys.path.insert(0, {tests!r})
from test_td_adam import tiny
from bgengine.training.optimizer import AdamState
from bgengine.core.td import train_games
net = tiny()
train_games(net, 12, 0.003, 0.0, seed=2, adam=AdamState.zeros(net), batch_positions=64,
            threads=3)
sys.stdout.write(net.params.tobytes().hex())
"""


def test_a_smaller_team_of_threads_gives_the_same_bits():
    """The batch's shares (``threads``) are spread over the threads OpenMP gives: with one
    thread in all (``OMP_THREAD_LIMIT=1``), the weights of a 3-share batch are the same."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = _TEAM_RUN.format(tests=str(Path(__file__).parent))
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout
    net = tiny()
    train_games(net, 12, 0.003, 0.0, seed=2, adam=AdamState.zeros(net), batch_positions=64,
                threads=3)
    assert out == net.params.tobytes().hex()


def test_threads_play_the_same_games_with_other_weights():
    """Two threads step on other batches than one: the weights differ, the dice do not."""
    nets = []
    for threads in (1, 2):
        net = tiny()
        train_games(net, 6, 0.003, 0.0, seed=2, adam=AdamState.zeros(net), batch_positions=32,
                    threads=threads)
        nets.append(net.params)
    assert not np.array_equal(*nets)


def test_class_networks_each_get_their_moments():
    from bgengine.core.bearoff import default as bearoff_db
    from bgengine.core.evaluator import Evaluator

    ev = Evaluator(Network((8,), 5, "contact", seed=1), Network((4,), 5, "race", seed=2),
                   database=bearoff_db())
    before = [ev.contact.params.copy(), ev.race.params.copy()]
    state = AdamState.zeros(ev)
    assert [m.shape for m in state.m] == [ev.contact.params.shape, ev.race.params.shape]
    train_games(ev, 4, 0.001, 0.0, seed=1, adam=state, batch_positions=50, threads=2)
    for b, n, m in zip(before, (ev.contact, ev.race), state.m):
        assert not np.array_equal(b, n.params) and np.abs(m).max() > 0


def test_bad_adam_arguments():
    net = tiny()
    state = AdamState.zeros(net)
    with pytest.raises(ValueError, match="TD\\(0\\)"):
        train_games(net, 1, 0.01, 0.5, adam=state, batch_positions=8)
    with pytest.raises(ValueError, match="TD\\(0\\)"):
        train_games(net, 1, 0.01, 0.0, method="backprop", adam=state, batch_positions=8)
    with pytest.raises(ValueError, match="batch_positions"):
        train_games(net, 1, 0.01, 0.0, adam=state, batch_positions=0)
    with pytest.raises(ValueError, match="threads"):
        train_games(net, 1, 0.01, 0.0, adam=state, batch_positions=8, threads=9)
    with pytest.raises(ValueError, match="threads"):
        train_games(net, 1, 0.01, 0.0, threads=2)
    with pytest.raises(ValueError, match="float32"):
        train_games(net, 1, 0.01, 0.0, adam=AdamState(m=[np.zeros(3, np.float32)], v=[]),
                    batch_positions=8)
    with pytest.raises(ValueError, match="beta1"):
        train_games(net, 1, 0.01, 0.0, adam=AdamState.zeros(net, beta1=1.0), batch_positions=8)
    np.testing.assert_array_equal(net.params, tiny().params)


# ---------------------------------------------------------------- training runs

def adam_config(**kw):
    from bgengine.training.trainer import TrainConfig

    base = dict(hidden=[10], outputs=5, encoder="tesauro198", lam=0.0, alpha=0.002, games=600,
                seed=3, checkpoint_every=200, eval_every=200, eval_games=50, threads=1,
                optimizer="adam", batch_positions=100, adam_beta2=0.99, train_threads=2)
    base.update(kw)
    return TrainConfig(**base)


def test_adam_run_resumes_exactly(tmp_path):
    """Stopped after its first checkpoint and resumed, a run ends with the weights and the
    moments of the run that never stopped, bit for bit."""
    from bgengine.training.run_dir import read_checkpoint
    from bgengine.training.trainer import train

    whole = train(adam_config(), tmp_path / "whole", progress=False)
    half = train(adam_config(), tmp_path / "split", progress=False, stop_after=200)
    assert not np.array_equal(half.params, whole.params)
    again = train(adam_config(), tmp_path / "split", progress=False)
    np.testing.assert_array_equal(again.params, whole.params)
    keys = ["params", "adam_m_params", "adam_v_params"]
    (s1, w1, _), (s2, w2, _) = (read_checkpoint(tmp_path / r, keys) for r in ("whole", "split"))
    assert s1["adam_step"] == s2["adam_step"] > 0
    for k in keys:
        np.testing.assert_array_equal(w1[k], w2[k])
    assert np.abs(w1["adam_v_params"]).max() > 0


def test_adam_checkpoint_without_moments_is_refused(tmp_path):
    from bgengine.training.trainer import train

    run = tmp_path / "r"
    train(adam_config(optimizer="sgd", train_threads=1), run, progress=False, stop_after=200)
    (run / "config.toml").write_text(adam_config(games=600).to_toml())
    with pytest.raises(ValueError, match="checkpoint"):
        train(adam_config(), run, progress=False)


def test_sgd_stays_the_default_and_unchanged(tmp_path):
    """``optimizer = "sgd"`` (the default) trains as before: the online learner's weights."""
    from bgengine.training.trainer import TrainConfig, train

    assert TrainConfig().optimizer == "sgd"
    cfg = adam_config(optimizer="sgd", train_threads=1, games=200)
    net = train(cfg, tmp_path / "sgd", progress=False)
    ref = Network([10], 5, "tesauro198", seed=3, init_range=cfg.init_range)
    train_games(ref, 200, 0.002, 0.0, seed=3)
    np.testing.assert_array_equal(net.params, ref.params)


@pytest.mark.parametrize("bad, match", [
    (dict(lam=0.7), "TD\\(0\\)"), (dict(method="backprop"), "TD\\(0\\)"),
    (dict(batch_positions=1), "batch_positions"), (dict(adam_beta1=1.0), "adam_beta1"),
    (dict(adam_eps=0.0), "adam_eps"), (dict(optimizer="rmsprop"), "optimizer")])
def test_bad_adam_settings(bad, match):
    with pytest.raises(ValueError, match=match):
        adam_config(**bad)
