"""bgengine.growth: widening a trained network keeps what it computes."""
from __future__ import annotations

import numpy as np
import pytest

from bgengine.bearoff import default as default_bearoff
from bgengine.evaluator import Evaluator
from bgengine.growth import widen, widen_evaluator
from bgengine.network import Network
from game_positions import random_positions


@pytest.fixture(scope="module")
def boards() -> np.ndarray:
    return np.array(random_positions(20, seed=5, every=3))


@pytest.mark.parametrize("hidden,new", [((40,), (100,)), ((24, 12), (48, 12)), ((24, 12), (30, 31))])
def test_widen_without_noise_keeps_the_outputs(boards, hidden, new):
    net = Network(hidden, 5, "contact", seed=3, init_range=0.5)
    wide = widen(net, new, noise=0.0)
    assert wide.hidden == new and wide.encoder == net.encoder
    assert wide.metadata["widened_from"] == list(net.sizes)
    np.testing.assert_allclose(wide.evaluate(boards), net.evaluate(boards), atol=2e-6)
    assert not np.allclose(net.weights(0)[0][:, 0], 0)      # the check above had weights to keep


def test_widen_with_noise_breaks_symmetry_but_stays_close(boards):
    net = Network((32,), 5, "race", seed=4, init_range=0.5)
    wide = widen(net, (64,), noise=0.01, seed=9)
    W = wide.weights(0)[0]
    assert not np.array_equal(W[:, 0], W[:, 32])             # the copy differs from its original
    assert np.max(np.abs(W[:, 32] - W[:, 0])) <= 0.01 + 1e-7
    diff = np.abs(wide.evaluate(boards) - net.evaluate(boards)).max()
    assert 0 < diff < 0.05
    again = widen(net, (64,), noise=0.01, seed=9)
    assert np.array_equal(again.params, wide.params)         # the seed fixes the noise


def test_widen_rejects_bad_requests():
    net = Network((16,), 5, "race", seed=1)
    with pytest.raises(ValueError, match="narrow"):
        widen(net, (8,))
    with pytest.raises(ValueError, match="hidden layers"):
        widen(net, (16, 16))
    with pytest.raises(ValueError, match="noise"):
        widen(net, (32,), noise=-1)


def test_widen_evaluator_keeps_classes_and_database(boards):
    contact = Network((20,), 5, "contact", seed=1, init_range=0.5)
    race = Network((10,), 5, "race", seed=2, init_range=0.5)
    ev = Evaluator(contact, race, database=default_bearoff(), metadata={"x": 1})
    wide = widen_evaluator(ev, (50,), noise=0.0)
    assert wide.contact.hidden == (50,) and wide.race.hidden == (10,)
    assert wide.database is ev.database and wide.metadata == {"x": 1}
    np.testing.assert_allclose(wide.evaluate(boards), ev.evaluate(boards), atol=2e-6)
    both = widen_evaluator(ev, (50,), (30,), noise=0.0)
    assert both.race.hidden == (30,)
    np.testing.assert_allclose(both.evaluate(boards), ev.evaluate(boards), atol=2e-6)
