"""bgengine.training.outcomes: self-play outcomes and the outputs' Platt calibration."""

from __future__ import annotations

import numpy as np
import pytest

from bgengine.core.evaluator import as_evaluator
from bgengine.training.outcomes import (GameOutcomes, calibrate_evaluator, calibrate_network,
                               outcome_events, output_logits, platt_fit, play_outcomes)
from bgengine.matches.players import load_network_spec
from td_reference import without_experts


@pytest.fixture(scope="module")
def shipped():
    return as_evaluator(load_network_spec("net"))


@pytest.fixture(scope="module")
def outcomes(shipped):
    return play_outcomes(shipped, games=24, seed=5)


def test_platt_fit_recovers_the_generating_map():
    rng = np.random.default_rng(0)
    z = rng.normal(0.0, 2.0, 200_000)
    y = (rng.random(len(z)) < 1.0 / (1.0 + np.exp(-(0.8 * z - 0.5)))).astype(float)
    a, b = platt_fit(z, y)
    assert a == pytest.approx(0.8, abs=0.02)
    assert b == pytest.approx(-0.5, abs=0.02)


def test_platt_fit_of_calibrated_logits_is_the_identity():
    rng = np.random.default_rng(1)
    z = rng.normal(0.0, 1.5, 200_000)
    y = (rng.random(len(z)) < 1.0 / (1.0 + np.exp(-z))).astype(float)
    a, b = platt_fit(z, y)
    assert a == pytest.approx(1.0, abs=0.02)
    assert b == pytest.approx(0.0, abs=0.02)


def test_platt_fit_refuses_events_all_alike():
    with pytest.raises(ValueError, match="all alike"):
        platt_fit(np.arange(5.0), np.zeros(5))
    with pytest.raises(ValueError, match="non-empty"):
        platt_fit(np.arange(5.0), np.zeros(4))


def test_events_of_points():
    ev = outcome_events(np.array([1, 2, 3, -1, -2, -3]))
    assert ev.tolist() == [[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 1, 1, 0, 0],
                           [0, 0, 0, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 1, 1]]


def test_play_outcomes_records_each_game_from_the_side_on_roll(shipped, outcomes):
    o = outcomes
    assert len(o) > 24 * 20
    assert set(np.unique(o.games)) == set(range(24))
    for g in range(24):
        pts = o.points[o.games == g].astype(int)
        # one result per game, its sign alternating with the side on roll
        assert np.all(np.abs(pts) == abs(pts[0]))
        assert np.all(pts[1:] == -pts[:-1])
    assert np.array_equal(o.classes, np.array([shipped.classify(b) for b in o.boards]))
    # deterministic in the seed
    again = play_outcomes(shipped, games=3, seed=5)
    n = len(again)
    assert np.array_equal(again.boards, o.boards[:n]) and np.array_equal(again.points, o.points[:n])


def test_save_load_and_concatenate(outcomes, tmp_path):
    outcomes.save(tmp_path / "o.npz")
    back = GameOutcomes.load(tmp_path / "o.npz")
    assert np.array_equal(back.boards, outcomes.boards)
    assert np.array_equal(back.points, outcomes.points)
    both = GameOutcomes.concatenate([back, back])
    assert len(both) == 2 * len(back)
    assert len(np.unique(both.games)) == 2 * len(np.unique(back.games))
    np.savez(tmp_path / "bad.npz", boards=outcomes.boards)
    with pytest.raises(ValueError, match="not an outcomes file"):
        GameOutcomes.load(tmp_path / "bad.npz")
    with pytest.raises(ValueError, match="points"):
        GameOutcomes(outcomes.boards[:1], outcomes.classes[:1], np.array([0], np.int8),
                     outcomes.games[:1])


def test_calibration_is_folded_exactly_and_matches_the_frequencies(shipped, outcomes):
    contact = outcomes.of_class(0)
    net, report = calibrate_network(shipped.contact, contact, outputs=(0, 1, 3))
    z = output_logits(shipped.contact, contact.boards)
    expected = 1.0 / (1.0 + np.exp(-(z * np.array(report.a) + np.array(report.b))))
    got = np.asarray(net.evaluate(contact.boards), np.float64)
    assert np.max(np.abs(got - expected)) < 2e-3          # the compiled pass is float32
    # a maximum-likelihood fit with an intercept matches the mean to the frequency
    assert np.allclose(np.array(report.mean_after)[[0, 1, 3]], np.array(report.frequency)[[0, 1, 3]],
                       atol=1e-6)
    assert report.a[2] == 1.0 and report.b[2] == 0.0
    assert all(after <= before + 1e-12
               for before, after in zip(report.log_loss_before, report.log_loss_after))
    assert net.metadata["output_calibration"]["a"] == report.a


def test_calibrate_evaluator_keeps_the_rest(shipped, outcomes):
    # one contact network (24 games are too few to calibrate each of several experts)
    shipped = without_experts(shipped)
    calibrated, reports = calibrate_evaluator(shipped, outcomes, classes=("contact",),
                                               outputs=(0, 1, 3))
    assert set(reports) == {"contact"}
    assert np.array_equal(calibrated.race.params, shipped.race.params)
    assert not np.array_equal(calibrated.contact.params, shipped.contact.params)
    assert calibrated.database is shipped.database
    assert calibrated.race_gammons is shipped.race_gammons
    assert calibrated.metadata == shipped.metadata
    with pytest.raises(ValueError, match="unknown network classes"):
        calibrate_evaluator(shipped, outcomes, classes=("crashed",))


def test_a_single_network_evaluator_is_calibrated_on_all_its_positions(shipped, outcomes):
    from bgengine.core.evaluator import Evaluator

    single = Evaluator(shipped.contact, None)
    assert single.race is single.contact
    calibrated, reports = calibrate_evaluator(single, outcomes, outputs=(0, 1, 3))
    assert calibrated.race is calibrated.contact
    assert reports["contact"].positions == len(outcomes)


def test_calibrating_needs_five_outputs_and_positions(shipped, outcomes):
    from bgengine.core.network import Network

    one = Network((8,), 1, "contact")
    with pytest.raises(ValueError, match="five-output"):
        calibrate_network(one, outcomes)
    with pytest.raises(ValueError, match="no positions"):
        calibrate_network(shipped.contact, outcomes.of_class(7))


def test_contact_experts_are_each_calibrated_on_their_own_positions(shipped, outcomes):
    """Two experts (copies of the contact network, split at the median stage): each gets
    the calibration that its own positions alone give, and the routing is kept."""
    from bgengine.core.evaluator import Evaluator

    contact = outcomes.of_class(0)
    cut = int(np.median((contact.boards.astype(int) * np.arange(1, 26)).sum(axis=(1, 2))))
    split = Evaluator(shipped.contact, shipped.race, database=shipped.database,
                      experts=[shipped.contact.copy()], stage_cuts=[cut])
    calibrated, reports = calibrate_evaluator(split, outcomes, classes=("contact",),
                                              outputs=(0, 1, 3))
    assert set(reports) == {"contact", "contact1"}
    assert calibrated.stage_cuts == (cut,) and len(calibrated.experts) == 1
    expert = split.expert_of(contact.boards)
    for e, net in enumerate((calibrated.contact, calibrated.experts[0])):
        mine = contact.subset(expert == e)
        assert reports["contact" if e == 0 else "contact1"].positions == len(mine) > 0
        alone, _ = calibrate_network(shipped.contact, mine, outputs=(0, 1, 3))
        np.testing.assert_array_equal(net.params, alone.params)
    assert not np.array_equal(calibrated.contact.params, calibrated.experts[0].params)
    assert np.array_equal(calibrated.race.params, shipped.race.params)


def test_network_outcomes_and_calibrate_commands(shipped, tmp_path, capsys):
    """``bgengine network outcomes`` records what ``play_outcomes`` does; ``network
    calibrate`` saves what ``calibrate_evaluator`` gives, and names the output it cannot fit."""
    import json

    from bgengine.cli import main
    from bgengine.core.evaluator import load_evaluator

    single = without_experts(shipped)
    source = tmp_path / "single.npz"
    single.save(source)
    player = f"net:{source}"
    assert main(["network", "outcomes", str(tmp_path / "o.npz"), "--games", "24", "--seed", "7",
                 "--player", player, "--quiet"]) == 0
    recorded = GameOutcomes.load(tmp_path / "o.npz")
    expected = play_outcomes(single, games=24, seed=7)
    assert np.array_equal(recorded.boards, expected.boards)
    assert np.array_equal(recorded.points, expected.points)
    capsys.readouterr()
    assert main(["network", "calibrate", str(tmp_path / "c.npz"), str(tmp_path / "o.npz"),
                 "--player", player, "--classes", "contact", "--outputs", "0", "1", "3",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)["classes"]["contact"]
    calibrated, reports = calibrate_evaluator(single, expected, classes=("contact",),
                                              outputs=(0, 1, 3))
    assert report["a"] == pytest.approx(list(reports["contact"].a))
    got = load_evaluator(tmp_path / "c.npz")
    assert np.array_equal(got.contact.params, calibrated.contact.params)
    assert got.metadata["output_calibration"]["files"] == [str(tmp_path / "o.npz")]
    # all five outputs of 24 games: no backgammon was won, so output 2 cannot be fitted
    assert main(["network", "calibrate", str(tmp_path / "d.npz"), str(tmp_path / "o.npz"),
                 "--player", player, "--classes", "contact"]) == 2
    assert "output 2 (win backgammon)" in capsys.readouterr().err
    assert not (tmp_path / "d.npz").exists()
