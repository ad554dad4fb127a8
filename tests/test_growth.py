"""bgengine.training.growth: widening a trained network keeps what it computes."""
from __future__ import annotations

import json

import numpy as np
import pytest

from bgengine.core.bearoff import default as default_bearoff
from bgengine.core.evaluator import Evaluator, load_evaluator
from bgengine.training.growth import deepen, deepen_evaluator, widen, widen_evaluator
from bgengine.core.network import Network
from bgengine.core.search import Searcher
from bgengine.training.startpositions import play_positions
from bgengine.core.td import train_games
from bgengine import load_default_network
from bgengine.cli import main
from td_reference import without_experts
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


@pytest.mark.parametrize("hidden,new", [((8,), (20,)), ((6, 5), (9, 5))])
def test_widen_with_fresh_units_keeps_the_outputs_exactly(boards, hidden, new):
    net = Network(hidden=hidden, n_outputs=5, encoder="tesauro198", seed=4)
    wide = widen(net, new, copies=False, noise=0.1, seed=1)
    assert wide.hidden == new and wide.encoder == net.encoder
    assert np.allclose(wide.evaluate(boards), net.evaluate(boards), atol=1e-6)
    W, b = wide.weights(0)
    assert np.abs(W[:, hidden[0]:]).max() > 0.01 and not b[hidden[0]:].any()   # fresh, not copies
    assert not wide.weights(1)[0][hidden[0]:].any()                           # silent for now


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


# ---------------------------------------------------------------- deepening

@pytest.fixture(scope="module")
def shipped() -> Evaluator:
    # growth works on one contact network: the shipped one's first expert if it has experts
    return without_experts(load_default_network())


@pytest.fixture(scope="module")
def fit_boards(shipped) -> np.ndarray:
    """Positions of the shipped evaluator's own play (10% random plays), to refit on."""
    return play_positions(shipped, 60, seed=1, epsilon=0.1)


@pytest.fixture(scope="module")
def contact_boards(shipped) -> np.ndarray:
    """Other positions of its play (other dice): about 3300 contact positions to check on."""
    boards = play_positions(shipped, 80, seed=2)
    return boards[np.asarray(shipped.classify(boards)) == 0]


def test_deepen_small_slope_keeps_the_outputs_within_the_bound(shipped, contact_boards):
    """The shipped contact network (trained weights, not random ones) deepened with a small
    slope and no refit: every output within the bound of growth's docstring (the cubic
    term, slope^2 / 96 times the outgoing weights' absolute sum, through the output
    sigmoid's slope of at most 1/4, plus float rounding) on thousands of positions."""
    net, slope = shipped.contact, 0.08
    deep = deepen(net, slope=slope, seed=1)
    assert deep.hidden == net.hidden * 2
    assert deep.metadata["deepened_from"] == list(net.sizes)
    assert len(contact_boards) > 3000
    bound = 0.25 * (slope ** 2 / 96 * np.abs(net.weights(1)[0]).sum(axis=0).max()) + 1e-4
    diff = np.abs(deep.evaluate(contact_boards) - net.evaluate(contact_boards))
    assert 0 < diff.max() < bound < 4e-3


@pytest.mark.parametrize("width", [None, 160])
def test_deepen_with_refit_keeps_the_outputs(shipped, fit_boards, contact_boards, width):
    """The default slope (1) with the least-squares refit on other positions of play: mean
    error below 1e-3 and every output within 0.02 (without the refit: about 0.1)."""
    net = shipped.contact
    deep = deepen(net, width, boards=fit_boards, seed=1)
    assert deep.hidden == net.hidden + ((width or net.hidden[-1]),)
    diff = np.abs(deep.evaluate(contact_boards) - net.evaluate(contact_boards))
    assert diff.mean() < 1e-3 and diff.max() < 0.02
    plain = np.abs(deepen(net, width, seed=1).evaluate(contact_boards) - net.evaluate(contact_boards))
    assert plain.max() > 3 * diff.max() and plain.mean() > 10 * diff.mean()


def test_deepen_changes_almost_no_decision(shipped, fit_boards, contact_boards):
    deep = deepen_evaluator(shipped, boards=fit_boards)
    old, new = Searcher(shipped), Searcher(deep)
    rng = np.random.default_rng(3)
    boards = contact_boards[::3]
    same = 0
    for board in boards:
        d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
        same += old.best_move(board, d1, d2)[0] == new.best_move(board, d1, d2)[0]
    assert same >= 0.98 * len(boards)


def test_deepen_slope_trades_error(shipped, contact_boards):
    """The cubic error grows as the slope squared: ten times the slope, far more than ten
    times the error."""
    net = shipped.contact
    before = net.evaluate(contact_boards[:500])
    small = np.abs(deepen(net, slope=0.08).evaluate(contact_boards[:500]) - before).max()
    large = np.abs(deepen(net, slope=0.8).evaluate(contact_boards[:500]) - before).max()
    assert large > 20 * small


def test_deepen_extra_units_start_silent_and_the_layer_learns(boards):
    net = Network((24,), 5, "contact", seed=3, init_range=0.5)
    deep = deepen(net, 40, slope=0.1, noise=0.05, seed=4)
    W_new, b_new = deep.weights(1)
    W_out, _ = deep.weights(2)
    assert np.allclose(W_new[:, :24], np.diag(np.diag(W_new[:, :24])))   # old units: identity
    assert np.abs(W_new[:, 24:]).max() > 0 and np.abs(W_out[24:]).max() == 0
    np.testing.assert_allclose(deep.evaluate(boards), net.evaluate(boards), atol=1e-3)
    # TD games move every layer's weights, the new layer's off-diagonal ones too
    trained = deep.copy()
    train_games(trained, 2, 0.01, seed=0)
    changed = trained.weights(1)[0] != W_new
    assert changed[0, 1:].any() and changed[:, 24:].any() and (trained.weights(2)[0][24:] != 0).any()


def test_deepen_rejects_bad_requests():
    net = Network((16,), 5, "race", seed=1)
    with pytest.raises(ValueError, match="at least 16"):
        deepen(net, 8)
    with pytest.raises(ValueError, match="slope"):
        deepen(net, slope=0)
    with pytest.raises(ValueError, match="noise"):
        deepen(net, noise=-1)
    with pytest.raises(ValueError, match="hidden layers"):
        deepen(Network((8, 8, 8), 5, "race", seed=1))


def test_deepen_evaluator_round_trip(shipped, fit_boards, boards, tmp_path):
    deep = deepen_evaluator(shipped, boards=fit_boards)
    assert deep.contact.hidden == shipped.contact.hidden * 2
    assert deep.race.hidden == shipped.race.hidden               # race kept by default
    assert np.array_equal(deep.race.params, shipped.race.params)
    assert deep.database is shipped.database and deep.metadata == shipped.metadata
    # the contact network was refit on the contact positions only: the same as deepen's
    contact_fit = fit_boards[np.asarray(shipped.classify(fit_boards)) == 0]
    assert np.array_equal(deep.contact.params,
                          deepen(shipped.contact, boards=contact_fit).params)
    both = deepen_evaluator(shipped, race=True, boards=fit_boards)
    assert both.race.hidden == shipped.race.hidden * 2
    deep.save(tmp_path / "deep.npz")
    loaded = load_evaluator(tmp_path / "deep.npz")
    assert loaded.contact.hidden == deep.contact.hidden
    assert np.array_equal(loaded.contact.params, deep.contact.params)
    np.testing.assert_array_equal(loaded.evaluate(boards), deep.evaluate(boards))
    np.testing.assert_allclose(deep.evaluate(boards), shipped.evaluate(boards), atol=0.02)


def test_network_deepen_writes_a_deeper_evaluator(shipped, tmp_path, capsys):
    """``bgengine network deepen``: the file a deeper run's init_from names."""
    source = tmp_path / "in.npz"
    shipped.save(source)
    assert main(["network", "deepen", str(source), str(tmp_path / "out.npz"),
                 "--width", "136", "--fit-games", "20", "--seed", "3"]) == 0
    out = load_evaluator(tmp_path / "out.npz")
    assert out.contact.hidden == (128, 136) and out.race.hidden == shipped.race.hidden
    boards = play_positions(shipped, 20, seed=3, epsilon=0.1)
    contact_fit = boards[np.asarray(shipped.classify(boards)) == 0]
    assert np.array_equal(out.contact.params,
                          deepen(shipped.contact, 136, boards=contact_fit, seed=3).params)
    assert "-> " in capsys.readouterr().out


def test_network_widen_writes_a_wider_evaluator(shipped, tmp_path, capsys):
    """``bgengine network widen``: the same networks as ``widen_evaluator`` gives."""
    source = tmp_path / "in.npz"
    shipped.save(source)
    race = shipped.race.hidden[0] + 8
    assert main(["network", "widen", str(source), str(tmp_path / "out.npz"),
                 "--contact", "140", "--race", str(race), "--seed", "5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["target"] == str(tmp_path / "out.npz")
    out = load_evaluator(tmp_path / "out.npz")
    expected = widen_evaluator(shipped, [140], [race], noise=0.01, seed=5)
    assert out.contact.hidden == (140,) and out.race.hidden == (race,)
    assert np.array_equal(out.contact.params, expected.contact.params)
    assert np.array_equal(out.race.params, expected.race.params)


@pytest.mark.parametrize("argv, message", [
    (["widen", "IN", "IN", "--contact", "140"], "overwrite its source"),
    (["widen", "IN", "OUT", "--contact", "0"], "widths >= 1"),
    (["widen", "IN", "OUT", "--contact", "1.5"], "expected widths"),
    (["deepen", "IN", "OUT", "--fit-epsilon", "2"], "share in [0, 1]"),
    (["deepen", "IN", "OUT", "--noise", "nan"], "finite number"),
    (["widen", "MISSING", "OUT", "--contact", "140"], "missing.npz: no such"),
])
def test_network_refuses_bad_input_in_one_line(shipped, tmp_path, capsys, argv, message):
    source = tmp_path / "in.npz"
    shipped.save(source)
    names = {"IN": str(source), "OUT": str(tmp_path / "out.npz"),
             "MISSING": str(tmp_path / "missing.npz")}
    try:
        status = main(["network"] + [names.get(a, a) for a in argv])
    except SystemExit as exc:            # argparse's usage errors
        status = exc.code
    assert status == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "out.npz").exists()

def test_network_widen_race_alone_keeps_the_contact_experts(tmp_path, capsys):
    """``network widen net OUT --race N``: the shipped file's race network widened, its
    contact experts untouched; nothing to widen is one line and exit 2."""
    full = load_default_network()
    wider = full.race.hidden[0] + 32
    assert main(["network", "widen", "net", str(tmp_path / "r.npz"), "--race", str(wider)]) == 0
    out = load_evaluator(tmp_path / "r.npz")
    assert out.race.hidden == (wider,) and len(out.experts) == len(full.experts)
    assert np.array_equal(out.race.params, widen(full.race, [wider], noise=0.01, seed=1).params)
    for mine, theirs in zip(out.experts, full.experts):
        assert np.array_equal(mine.params, theirs.params)
    assert main(["network", "widen", "net", str(tmp_path / "f.npz"), "--race", str(wider),
                 "--fresh"]) == 0
    fresh = load_evaluator(tmp_path / "f.npz").race
    assert np.array_equal(fresh.params, widen(full.race, [wider], noise=0.01, seed=1,
                                              copies=False).params)
    capsys.readouterr()
    assert main(["network", "widen", "net", str(tmp_path / "x.npz")]) == 2
    assert "nothing to widen" in capsys.readouterr().err
