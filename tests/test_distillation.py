"""bgengine.training.distillation and ``bgengine distill``: decision groups and the pairwise
(play-ranking) loss."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(scope="module")
def distill():
    import bgengine.training.distillation

    return bgengine.training.distillation


@pytest.fixture(scope="module")
def one_contact(tmp_path_factory) -> str:
    """The spec of the shipped evaluator with one contact network (its first expert, if it
    has experts): for fits whose figures were measured on one network."""
    from bgengine.core.evaluator import as_evaluator
    from bgengine.matches.players import load_network_spec
    from td_reference import without_experts

    path = tmp_path_factory.mktemp("one_contact") / "net.npz"
    without_experts(as_evaluator(load_network_spec("net"))).save(path)
    return f"net:{path}"


def test_groups_from_mover_pips_when_the_file_has_none(distill):
    boards = np.zeros((5, 2, 25), np.uint8)
    boards[:, 1, 5] = 15                                    # the side on roll: unchanged
    boards[0, 0, [3, 7]] = [10, 5]                          # mover: 4*10 + 8*5 = 80 pips
    boards[1, 0, [2, 8]] = [11, 4]                          # 3*11 + 9*4 = 69: a new decision
    boards[2:5, 0, 3] = 15                                  # 60 pips: one decision, 3 plays
    groups = distill.decision_groups({"boards": boards})
    assert groups.tolist() == [0, 1, 2, 2, 2]
    explicit = np.array([4, 4, 4, 9, 9])
    assert distill.decision_groups({"boards": boards, "group": explicit}).tolist() == [4, 4, 4, 9, 9]


def test_pairwise_fit_moves_equity_differences_toward_the_targets(distill, tmp_path):
    """Targets equal to the network's own outputs plus a shift per play: the pairwise loss
    must learn the differences (the held-out pair error falls)."""
    from bgengine.core.evaluator import as_evaluator
    from bgengine.matches.players import load_network_spec
    from bgengine.training.startpositions import play_positions

    ev = as_evaluator(load_network_spec("net"))
    boards = play_positions(load_network_spec("net"), 6, seed=3)
    boards = boards[np.array([ev.classify(b) for b in boards]) == 0][:120]
    boards = boards[:len(boards) // 3 * 3]
    static = np.array([ev.evaluate(b) for b in boards], np.float32)
    group = np.arange(len(boards)) // 3
    targets = static.copy()
    targets[:, 0] = np.clip(targets[:, 0] + np.where(np.arange(len(boards)) % 3 == 0, 0.05, -0.02),
                            0, 1)
    np.savez(tmp_path / "d.npz", boards=boards, static=static, targets=targets, group=group)
    fitted = distill.fit("net", [str(tmp_path / "d.npz")], lr=3e-3, epochs=30, batch=30,
                         pairwise=8.0, absolute=1.0)
    w = distill.EQUITY_WEIGHTS

    def pair_error(outputs):
        e = (outputs - targets) @ w
        centred = e - np.repeat(e.reshape(-1, 3).mean(axis=1), 3)
        return float((centred ** 2).mean())

    before = pair_error(static.astype(np.float64))
    after = pair_error(np.array([fitted.evaluate(b) for b in boards], np.float64))
    assert after < 0.5 * before


def _tiny_data(tmp_path, n_decisions=20):
    """A small file of contact positions from the shipped network's play, 3 per decision."""
    from bgengine.core.evaluator import as_evaluator
    from bgengine.matches.players import load_network_spec
    from bgengine.training.startpositions import play_positions

    ev = as_evaluator(load_network_spec("net"))
    boards = play_positions(load_network_spec("net"), 4, seed=5)
    boards = boards[np.array([ev.classify(b) for b in boards]) == 0][:3 * n_decisions]
    static = np.array([ev.evaluate(b) for b in boards], np.float32)
    targets = np.clip(static + 0.03, 0, 1)
    np.savez(tmp_path / "t.npz", boards=boards, static=static, targets=targets,
             group=np.arange(len(boards)) // 3)
    return [str(tmp_path / "t.npz")]


def _params(evaluator):
    return np.concatenate([np.concatenate([w.ravel() for w in evaluator.contact.weights(i)])
                           for i in range(len(evaluator.contact.sizes) - 1)])


def test_step_size_schedule(distill, tmp_path):
    """No ``lr_end``: a constant step; lr and lr_end 0: nothing moves; a decay to 0 moves
    the weights less than the constant step and is recorded in the metadata."""
    from bgengine.core.evaluator import as_evaluator
    from bgengine.matches.players import load_network_spec

    files = _tiny_data(tmp_path)
    start = _params(as_evaluator(load_network_spec("net")))
    kw = dict(epochs=3, batch=12, pairwise=8.0)
    constant = distill.fit("net", files, lr=1e-3, **kw)
    assert np.array_equal(_params(constant), _params(distill.fit("net", files, lr=1e-3,
                                                                 lr_end=1e-3, **kw)))
    assert np.array_equal(_params(distill.fit("net", files, lr=0.0, lr_end=0.0, **kw)), start)
    decayed = distill.fit("net", files, lr=1e-3, lr_end=0.0, **kw)
    moved = np.abs(_params(decayed) - start).sum()
    assert 0 < moved < np.abs(_params(constant) - start).sum()
    assert decayed.contact.metadata["distilled"]["lr_end"] == 0.0


def test_race_class_fits_the_race_network_only(distill, tmp_path):
    from bgengine.core.evaluator import as_evaluator
    from bgengine.matches.players import load_network_spec

    data = distill.collect("net", games=3, seed=1, every=1, top=3, plies=1, klass=distill.RACE)
    ev = as_evaluator(load_network_spec("net"))
    assert len(data["boards"]) > 0
    assert all(ev.classify(b) == distill.RACE for b in data["boards"])
    np.savez(tmp_path / "r.npz", **data)
    fitted = distill.fit("net", [str(tmp_path / "r.npz")], lr=1e-3, epochs=2, batch=16,
                         pairwise=8.0, klass=distill.RACE)
    race = np.concatenate([w.ravel() for w in fitted.race.weights(0)])
    assert not np.array_equal(race, np.concatenate([w.ravel() for w in ev.race.weights(0)]))
    assert np.array_equal(_params(fitted), _params(ev))            # contact untouched
    assert fitted.race.metadata["distilled"]["class"] == "race"
    with pytest.raises(ValueError, match="class 2"):
        distill.fit("net", [str(tmp_path / "r.npz")], lr=1e-3, epochs=1, klass=2)


def test_top_layers_fits_the_output_layer_alone(distill, tmp_path):
    """``top_layers=1``: the hidden layer keeps its weights, the output layer moves;
    ``top_layers`` covering every layer is the full fit, bit for bit."""
    from bgengine.core.evaluator import as_evaluator
    from bgengine.matches.players import load_network_spec

    files = _tiny_data(tmp_path)
    start = as_evaluator(load_network_spec("net")).contact
    kw = dict(lr=1e-3, epochs=3, batch=12)
    top = distill.fit("net", files, top_layers=1, **kw).contact
    for i, same in ((0, True), (1, False)):
        for a, b in zip(top.weights(i), start.weights(i)):
            assert np.array_equal(a, b) is same
    full = distill.fit("net", files, **kw)
    assert np.array_equal(_params(full), _params(distill.fit("net", files, top_layers=2, **kw)))
    assert top.metadata["distilled"]["top_layers"] == 1


def test_anchor_keeps_the_weights_nearer_the_start(distill, tmp_path):
    """``anchor`` adds a pull toward the starting weights: they move less the larger it is;
    ``anchor=0`` is the plain fit, bit for bit; another ``seed`` another minibatch order."""
    from bgengine.core.evaluator import as_evaluator
    from bgengine.matches.players import load_network_spec

    files = _tiny_data(tmp_path)
    start = _params(as_evaluator(load_network_spec("net")))
    kw = dict(lr=1e-3, epochs=3, batch=12, pairwise=8.0)
    plain = distill.fit("net", files, **kw)
    assert np.array_equal(_params(plain), _params(distill.fit("net", files, anchor=0.0, **kw)))
    moved = [np.abs(_params(distill.fit("net", files, anchor=a, **kw)) - start).sum()
             for a in (0.0, 10.0, 100.0)]
    assert moved[0] > moved[1] > moved[2] > 0
    anchored = distill.fit("net", files, anchor=10.0, seed=1, **kw)
    assert anchored.contact.metadata["distilled"]["anchor"] == 10.0
    assert not np.array_equal(_params(anchored), _params(distill.fit("net", files, anchor=10.0,
                                                                     **kw)))


def test_mean_averages_the_search_values_of_the_same_positions(distill):
    rng = np.random.default_rng(0)
    boards = rng.integers(0, 3, (6, 2, 25)).astype(np.uint8)
    group = np.array([1, 1, 1, 2, 2, 3])
    static = rng.random((6, 5)).astype(np.float32)
    two = {"boards": boards, "group": group, "static": static,
           "targets": rng.random((6, 5)).astype(np.float32)}
    three = dict(two, targets=rng.random((6, 5)).astype(np.float32))
    mean = distill.mean_targets([two, three])
    np.testing.assert_allclose(mean["targets"], (two["targets"] + three["targets"]) / 2, rtol=1e-6)
    assert mean["targets"].dtype == np.float32
    assert np.array_equal(mean["boards"], boards) and np.array_equal(mean["group"], group)
    other = dict(three, boards=boards[::-1].copy())
    with pytest.raises(ValueError, match="boards"):
        distill.mean_targets([two, other])
    with pytest.raises(ValueError, match="group"):
        distill.mean_targets([two, dict(three, group=group[::-1].copy())])
    with pytest.raises(ValueError, match="static"):
        distill.mean_targets([two, dict(three, static=static[:, ::-1].copy())])
    with pytest.raises(ValueError, match="boards"):
        distill.mean_targets([two, dict(three, boards=boards[:5])])     # fewer positions
    with pytest.raises(ValueError, match="at least two"):
        distill.mean_targets([two])


def test_sampled_collect_keeps_the_exact_values_one_ply_less(distill):
    """``sample``: the same positions as without it; ``targets_lower`` is the collect one
    ply less, bit for bit; ``mean`` of that one file averages its two sets of values."""
    kw = dict(games=2, seed=4, every=2, top=3)
    sampled = distill.collect("net", plies=2, sample=2, **kw)
    one = distill.collect("net", plies=1, **kw)
    assert len(one["boards"]) > 0 and "targets_lower" not in one
    for key in ("boards", "group", "static"):
        assert np.array_equal(sampled[key], one[key])
    assert np.array_equal(sampled["targets_lower"], one["targets"])
    assert sampled["targets"].shape == one["targets"].shape
    assert np.abs(sampled["targets"] - one["targets"]).max() > 1e-4
    mean = distill.mean_targets([sampled])
    np.testing.assert_allclose(mean["targets"], (sampled["targets"] + one["targets"]) / 2,
                               rtol=1e-6)
    with pytest.raises(ValueError, match="at least two"):
        distill.mean_targets([one])


def test_rollout_collect_values_the_same_positions_by_rollouts(distill):
    """``rollout_trials``: the same positions as a search collect; each value is the
    rollout of that position (the plays of one decision on the same dice)."""
    from bgengine.matches.players import load_network_spec
    from bgengine.core.search import rollout

    kw = dict(games=3, seed=6, every=1, top=3, klass=distill.RACE)
    rolled = distill.collect("net", plies=0, rollout_trials=36, **kw)
    plain = distill.collect("net", plies=0, **kw)
    assert len(plain["boards"]) > 0
    for key in ("boards", "group", "static"):
        assert np.array_equal(rolled[key], plain[key])
    model = load_network_spec("net")
    i = len(rolled["boards"]) // 2
    want = rollout(model, rolled["boards"][i], 36, variance_reduction=True,
                   seed=(6 << 32) + int(rolled["group"][i]))["outputs"]
    np.testing.assert_allclose(rolled["targets"][i], want, rtol=1e-6)
    assert np.abs(rolled["targets"] - plain["targets"]).max() > 1e-3


def test_opponent_makes_one_seats_plays(distill, monkeypatch):
    """``opponent``: that player makes the plays of seat 1 in even games and seat 0 in odd
    ones (the rest of the collect unchanged); the same player as the collector's gives the
    same data as no opponent, a different one different games, reproducibly."""
    from bgengine.matches.players import make_player

    kw = dict(games=2, seed=8, every=2, top=3, plies=0)
    plain = distill.collect("net", **kw)
    same = distill.collect("net", opponent="net", **kw)
    for key in ("boards", "group", "static", "targets"):
        assert np.array_equal(same[key], plain[key])
    weak = distill.collect("net", opponent="random", **kw)
    assert not np.array_equal(weak["boards"][:20], plain["boards"][:20])
    again = distill.collect("net", opponent="random", **kw)
    assert np.array_equal(weak["boards"], again["boards"])

    asked = []

    class Recorder:
        """The random player, counting the decisions it is asked to make."""
        def __init__(self):
            self.inner = make_player("random")

        def choose(self, board, d1, d2, seed):
            asked.append(seed)
            return self.inner.choose(board, d1, d2, seed)

    import bgengine.matches.game as game_module
    turns = []
    real = game_module.game_decisions

    def watched(dice, **kw):
        loop = real(dice, **kw)
        k = None
        try:
            while True:
                d = loop.send(k)
                if len(d.afterstates) > 1:            # forced plays are not asked for
                    turns.append(d.turn)
                k = yield d
        except StopIteration as done:
            return done.value

    import bgengine.training.distillation.targets as targets   # where collect looks them up

    monkeypatch.setattr(targets, "make_player", lambda spec: Recorder())
    monkeypatch.setattr(targets, "game_decisions", watched)
    recorded = distill.collect("net", opponent="x", **dict(kw, games=1))
    assert np.array_equal(recorded["boards"], weak["boards"][:len(recorded["boards"])])
    assert len(asked) == turns.count(1) > 0               # game 0: seat 1 is the opponent's


def test_blend_moves_the_start_toward_the_mean_of_the_fits(distill, tmp_path):
    from bgengine.core.evaluator import Evaluator, as_evaluator
    from bgengine.core.network import Network
    from bgengine.matches.players import load_network_spec

    files = _tiny_data(tmp_path)
    start = as_evaluator(load_network_spec("net"))
    fits = []
    for seed in (0, 1):
        path = tmp_path / f"fit{seed}.npz"
        distill.fit("net", files, lr=1e-3, epochs=2, batch=12, seed=seed).save(path)
        fits.append(str(path))
    mean = (as_evaluator(load_network_spec(f"net:{fits[0]}")).contact.params.astype(np.float64)
            + as_evaluator(load_network_spec(f"net:{fits[1]}")).contact.params) / 2
    for share in (0.0, 0.3, 1.0):
        got = distill.blend("net", fits, share)
        want = (1 - share) * start.contact.params.astype(np.float64) + share * mean
        np.testing.assert_allclose(got.contact.params, want, atol=1e-6)
        assert np.array_equal(got.race.params, start.race.params)
        assert got.contact.metadata["blended"]["share"] == share
        assert got.contact.metadata["blended"]["fitted"][1]["seed"] == 1
    narrow = tmp_path / "narrow.npz"
    Evaluator(Network((8,), 5, start.contact.encoder, seed=0), start.race,
              database=start.database).save(narrow)
    with pytest.raises(ValueError, match="not the start's"):
        distill.blend("net", [fits[0], str(narrow)], 0.5)


def test_race_gammons_collect_targets_are_the_race_values(distill):
    """``race_gammons``: the player's race values set so; at 0 plies the targets are that
    evaluator's own values (what a race network is fitted to), and they differ from the
    race network's alone where both sides have few checkers outside."""
    from bgengine.matches.players import load_network_spec

    kw = dict(games=4, seed=8, every=1, top=3, plies=0, klass=distill.RACE)
    data = distill.collect("net", race_gammons=3, **kw)
    assert len(data["boards"]) > 0
    from bgengine.decisions.engine import Engine

    evaluator = load_network_spec("net").with_race_gammons(3)
    # the engine's values: the outputs made consistent (a backgammon no likelier than its
    # gammon), as the collection's search values are
    engine = Engine(network=evaluator)
    want = np.array([engine.evaluate(b) for b in data["boards"]])
    np.testing.assert_allclose(data["targets"], want, atol=1e-6)
    alone = load_network_spec("net").with_race_gammons(False).evaluate(data["boards"])
    assert np.abs(data["targets"] - alone).max() > 1e-3


def test_listwise_fit_learns_which_play_is_best(distill, tmp_path, one_contact):
    """Targets that make the first play of every decision the best by 0.05 equity: the
    listwise loss alone (no squared errors) must teach the network to pick it more often;
    its weight 0 changes nothing against the fit without it."""
    from bgengine.core.evaluator import as_evaluator
    from bgengine.matches.players import load_network_spec
    from bgengine.training.startpositions import play_positions

    ev = as_evaluator(load_network_spec(one_contact))
    boards = play_positions(load_network_spec(one_contact), 6, seed=3)
    boards = boards[np.array([ev.classify(b) for b in boards]) == 0][:120]
    boards = boards[:len(boards) // 3 * 3]
    static = np.array([ev.evaluate(b) for b in boards], np.float32)
    targets = static.copy()
    equity = static.astype(np.float64) @ distill.EQUITY_WEIGHTS
    best = equity.reshape(-1, 3).max(axis=1)
    first = np.arange(len(boards)) % 3 == 0
    # the first play's win chance raised until its equity is the decision's best + 0.05
    targets[first, 0] = np.clip(targets[first, 0] + (best - equity[first] + 0.05) / 2, 0, 1)
    np.savez(tmp_path / "d.npz", boards=boards, static=static, targets=targets,
             group=np.arange(len(boards)) // 3)

    def first_picked(evaluator):
        e = np.array([evaluator.evaluate(b) for b in boards], np.float64) @ distill.EQUITY_WEIGHTS
        return float((e.reshape(-1, 3).argmax(axis=1) == 0).mean())

    # where the win chance is clipped at 1 the first play cannot be made the best
    target_equity = targets.astype(np.float64) @ distill.EQUITY_WEIGHTS
    attainable = float((target_equity.reshape(-1, 3).argmax(axis=1) == 0).mean())

    kw = dict(lr=3e-3, epochs=30, batch=30, absolute=0.0, pairwise=0.0)
    fitted = distill.fit(one_contact, [str(tmp_path / "d.npz")], listwise=1.0, temperature=0.02, **kw)
    assert first_picked(fitted) >= max(0.85 * attainable, first_picked(ev) + 0.3)
    assert fitted.contact.metadata["distilled"]["listwise"] == 1.0
    plain = dict(kw, absolute=1.0, epochs=2)
    assert np.array_equal(_params(distill.fit(one_contact, [str(tmp_path / "d.npz")], **plain)),
                          _params(distill.fit(one_contact, [str(tmp_path / "d.npz")], listwise=0.0,
                                              **plain)))


def _board(mover: dict, other: dict) -> np.ndarray:
    """A board (row 1 the side on roll) from {point index: checkers} per side."""
    b = np.zeros((2, 25), np.uint8)
    for row, side in ((1, mover), (0, other)):
        for i, n in side.items():
            b[row, i] = n
    return b


def test_position_phases_follow_gnubgs_crashed_rule_and_the_diagnosis_classes(distill):
    opening = _board({5: 5, 7: 3, 12: 5, 23: 2}, {5: 5, 7: 3, 12: 5, 23: 2})
    # crashed (gnubg: 1 + checkers - ace - deuce <= 6 with both points stacked): the side
    # not on roll has 12 checkers on its 1- and 2-points and 3 beyond (4 <= 6); with 5 and
    # 5 there and 5 beyond (6 <= 6) too; not with 3 and 5 there and 7 beyond
    crashed = _board({5: 5, 7: 3, 12: 5, 23: 2}, {0: 6, 1: 6, 20: 3})
    six_beyond = _board({5: 5, 7: 3, 12: 5, 23: 2}, {0: 5, 1: 5, 18: 2, 20: 3})
    seven_beyond = _board({5: 5, 7: 3, 12: 5, 23: 2}, {0: 3, 1: 5, 18: 4, 20: 3})
    few_left = _board({5: 5, 7: 3, 12: 5, 23: 2}, {2: 3, 20: 3})          # 6 checkers: crashed
    # back game: the side on roll holds its 20- and 22-points (its opponent's home board)
    # and trails by 30 pips or more
    back = _board({19: 2, 21: 2, 5: 5, 7: 3, 12: 3}, {0: 3, 1: 3, 2: 3, 3: 3, 4: 3})
    # holding: an anchor on the 20-point (the opponent's 5-point), trailing by 10 or more
    holding = _board({19: 2, 5: 5, 7: 4, 12: 4}, {5: 6, 4: 5, 3: 4})
    phases = distill.position_phases(np.stack([opening, crashed, six_beyond, seven_beyond,
                                               few_left, back, holding]))
    assert phases.tolist() == ["middle", "crashed", "crashed", "middle", "crashed",
                               "back game", "holding"]


def test_phase_fit_trains_on_that_phase_only_and_errors_report_by_phase(distill, tmp_path):
    """A phase absent from the data is refused; the errors' phases add up to the whole."""
    files = _tiny_data(tmp_path, n_decisions=30)
    boards = np.load(files[0])["boards"]
    present = set(distill.position_phases(boards[::3]).tolist())
    absent = [p for p in distill.PHASES if p not in present]
    if absent:
        with pytest.raises(ValueError, match="no decision of phase"):
            distill.fit("net", files, lr=1e-3, epochs=1, batch=12, phase=absent[0])
    phase = sorted(present)[0]
    fitted = distill.fit("net", files, lr=1e-3, epochs=1, batch=12, pairwise=8.0, phase=phase)
    assert fitted.contact.metadata["distilled"]["phase"] == phase
    with pytest.raises(ValueError, match="phase must be one of"):
        distill.fit("net", files, lr=1e-3, epochs=1, phase="opening")
    errors = distill.phase_errors(["net"], files)["net"]
    for key in ("pair_se", "pairs", "decisions", "agree", "lost"):
        assert sum(errors[p][key] for p in distill.PHASES) == pytest.approx(errors["all"][key])
    assert errors["all"]["decisions"] == 3          # the held-out tenth of 30 decisions


def _final_held_out_pair_error(records) -> float:
    import re

    last = [r.getMessage() for r in records if r.getMessage().startswith("epoch ")][-1]
    return float(re.search(r"held out: .*?pair equity squared error ([0-9.e-]+)", last).group(1))


def test_extra_inputs_zero_change_nothing_and_a_planted_one_is_learned(distill, tmp_path,
                                                                       caplog):
    """Candidate inputs appended with weights from zero: all-zero columns leave the fit
    exactly as without them (their weights get no gradient); a column that carries part
    of the targets (a shift of the win chance on a pseudo-random half of the positions,
    which the network's inputs cannot tell) lowers the held-out pair error."""
    import logging

    from bgengine.core.evaluator import as_evaluator
    from bgengine.matches.players import load_network_spec
    from bgengine.training.startpositions import play_positions

    ev = as_evaluator(load_network_spec("net"))
    boards = play_positions(load_network_spec("net"), 24, seed=8)
    boards = boards[np.array([ev.classify(b) for b in boards]) == 0]
    boards = boards[:len(boards) // 3 * 3]
    static = np.array([ev.evaluate(b) for b in boards], np.float32)
    planted = (np.random.default_rng(0).random(len(boards)) < 0.5).astype(np.float32)
    targets = static.copy()
    targets[:, 0] = np.clip(targets[:, 0] + 0.08 * planted - 0.04, 0, 1)
    np.savez(tmp_path / "p.npz", boards=boards, static=static, targets=targets,
             group=np.arange(len(boards)) // 3)
    files = [str(tmp_path / "p.npz")]
    column = {b.tobytes(): p for b, p in zip(boards, planted)}
    kw = dict(lr=3e-3, epochs=8, batch=30, pairwise=8.0)
    errors = {}
    for name, extra in (("none", None),
                        ("zeros", lambda b: np.zeros((len(b), 3), np.float32)),
                        ("planted", lambda b: np.array([[column[x.tobytes()]] for x in b]))):
        caplog.clear()
        with caplog.at_level(logging.INFO):
            result = distill.fit("net", files, extra_inputs=extra, **kw)
        assert (result is None) == (extra is not None)
        errors[name] = _final_held_out_pair_error(caplog.records)
    assert errors["zeros"] == errors["none"]
    assert errors["planted"] < 0.6 * errors["none"]


def test_experts_fit_each_expert_on_its_own_positions(distill, tmp_path, caplog, one_contact):
    """Contact experts: a cut that no position reaches leaves expert 1 at the start and
    expert 0 exactly where the plain fit goes (the same minibatches), and a cut that
    every position passes the other way round; a real split moves both, and a refit of
    the result keeps its routing."""
    import logging

    from bgengine.core.evaluator import as_evaluator, load_evaluator
    from bgengine.matches.players import load_network_spec

    files = _tiny_data(tmp_path, n_decisions=30)
    kw = dict(lr=3e-3, epochs=3, batch=30, pairwise=8.0)
    start = as_evaluator(load_network_spec(one_contact))
    plain = distill.fit(one_contact, files, **kw)
    none_above = distill.fit(one_contact, files, experts=([10_000], []), **kw)
    all_above = distill.fit(one_contact, files, experts=([0], []), **kw)
    for ev, moved, kept in ((none_above, none_above.contact, none_above.experts[0]),
                            (all_above, all_above.experts[0], all_above.contact)):
        assert ev.stage_cuts in ((10_000,), (0,)) and ev.lead_cuts == ()
        np.testing.assert_array_equal(moved.params, plain.contact.params)
        np.testing.assert_array_equal(kept.params, start.contact.params)
    assert distill.parse_experts("stage:230/280,lead:0") == ([230, 280], [0])
    for bad in ("stage:", "pips:3", "lead:x", "stage:1,stage:2"):
        with pytest.raises(ValueError, match="--experts"):
            distill.parse_experts(bad)

    boards = np.concatenate([np.load(f)["boards"] for f in files])
    pips = (boards.astype(int) * np.arange(1, 26)).sum(axis=(1, 2))
    cut = int(np.median(pips))
    split = distill.fit(one_contact, files, experts=([cut], []), **kw)
    assert not np.array_equal(split.contact.params, start.contact.params)
    assert not np.array_equal(split.experts[0].params, start.contact.params)
    split.save(tmp_path / "split.npz")
    caplog.clear()
    with caplog.at_level(logging.INFO):
        again = distill.fit(f"net:{tmp_path / 'split.npz'}", files, **kw)
    assert any(r.getMessage().startswith("2 experts") for r in caplog.records)
    assert again.stage_cuts == (cut,) and len(again.experts) == 1
    assert load_evaluator(tmp_path / "split.npz").stage_cuts == (cut,)
    with pytest.raises(ValueError, match="race"):
        distill.fit(one_contact, files, experts=([cut], []), klass=distill.RACE, **kw)


def test_blend_moves_every_contact_expert(distill, tmp_path):
    """A start with contact experts: the blend moves each expert toward the mean of the fits'
    same expert, keeps the routing, and refuses a fit routed otherwise."""
    from bgengine.core.evaluator import as_evaluator
    from bgengine.matches.players import load_network_spec

    files = _tiny_data(tmp_path, n_decisions=20)
    base = as_evaluator(load_network_spec("net"))
    start = distill.Evaluator(base.contact, base.race, database=base.database,
                              experts=[base.contact.copy()], stage_cuts=[250])
    start.save(tmp_path / "start.npz")
    spec = f"net:{tmp_path / 'start.npz'}"
    fits = []
    for seed in (0, 1):
        path = tmp_path / f"fit{seed}.npz"
        distill.fit(spec, files, lr=1e-3, epochs=2, batch=12, seed=seed).save(path)
        fits.append(str(path))
    got = distill.blend(spec, fits, 0.5)
    assert got.stage_cuts == (250,) and len(got.experts) == 1
    loaded = [distill.Evaluator.load(f) for f in fits]
    for name in ("contact", "contact1"):
        want = 0.5 * np.asarray(start.networks[name].params, np.float64) + 0.5 * np.mean(
            [np.asarray(ev.networks[name].params, np.float64) for ev in loaded], axis=0)
        np.testing.assert_allclose(got.networks[name].params, want, atol=1e-6)
    other = distill.Evaluator(base.contact, base.race, experts=[base.contact.copy()],
                              stage_cuts=[200])
    other.save(tmp_path / "other.npz")
    with pytest.raises(ValueError, match="routing"):
        distill.blend(spec, [fits[0], str(tmp_path / "other.npz")], 0.5)


def test_distill_commands_save_what_the_functions_give(distill, tmp_path, capsys):
    """``bgengine distill collect | mean | fit | blend``: the files hold what the
    functions return; bad values are refused in one line before any work."""
    from bgengine.cli import main
    from bgengine.core.evaluator import load_evaluator

    data = tmp_path / "d.npz"
    assert main(["distill", "collect", str(data), "--games", "2", "--seed", "4", "--every", "1",
                 "--top", "2", "--plies", "0"]) == 0
    expected = distill.collect("net", games=2, seed=4, every=1, top=2, plies=0)
    got = dict(np.load(data))
    assert set(got) == set(expected)
    for key in expected:
        assert np.array_equal(got[key], expected[key]), key
    capsys.readouterr()
    assert main(["distill", "mean", str(tmp_path / "m.npz"), str(data)]) == 2
    assert "at least two data sets" in capsys.readouterr().err
    deeper = tmp_path / "d1.npz"
    assert main(["distill", "collect", str(deeper), "--games", "2", "--seed", "4", "--every",
                 "1", "--top", "2", "--plies", "1"]) == 0
    assert main(["distill", "mean", str(tmp_path / "m.npz"), str(data), str(deeper)]) == 0
    mean = distill.mean_targets([dict(np.load(data)), dict(np.load(deeper))])
    assert np.array_equal(np.load(tmp_path / "m.npz")["targets"], mean["targets"])
    assert main(["distill", "fit", str(tmp_path / "f.npz"), str(data), "--epochs", "1",
                 "--pairwise", "8", "--seed", "2"]) == 0
    fitted = distill.fit("net", [str(data)], 3e-4, 1, pairwise=8.0, seed=2)
    saved = load_evaluator(tmp_path / "f.npz")
    assert np.array_equal(saved.contact.params, fitted.contact.params)
    assert main(["distill", "blend", str(tmp_path / "b.npz"), str(tmp_path / "f.npz"),
                 "--share", "0.5"]) == 0
    blended = load_evaluator(tmp_path / "b.npz")
    assert np.array_equal(blended.contact.params,
                          distill.blend("net", [str(tmp_path / "f.npz")], 0.5).contact.params)
    capsys.readouterr()
    for argv in (["collect", "x.npz", "--games", "0"], ["fit", "x.npz", "y.npz", "--lr", "nan"],
                 ["collect", "x.npz", "--top", "1.5"]):
        try:
            status = main(["distill", *argv])
        except SystemExit as exc:           # argparse's usage errors
            status = exc.code
        assert status == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "Traceback" not in err
