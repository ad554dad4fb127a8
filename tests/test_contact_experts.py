"""Contact experts (bgengine.core.evaluator): the contact class split among several networks by
the stage of the game and the pip lead, checked against the definition in Python, on the
static path and on the compiled search's sibling path, and through files and pickles."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from bgengine.core.evaluator import Evaluator, load_evaluator
from bgengine.core.network import Network
from game_positions import random_positions
from td_reference import check_best_moves

STAGE, LEAD = (250,), (-20, 20)


def _nets(n: int, hidden: int = 12) -> list[Network]:
    return [Network((hidden,), 5, "contact", seed=10 + i, init_range=0.3) for i in range(n)]


@pytest.fixture(scope="module")
def boards() -> np.ndarray:
    return np.array(random_positions(8, 4)[1:])


@pytest.fixture
def experts() -> Evaluator:
    nets = _nets(6)
    return Evaluator(nets[0], Network((7,), 5, "race", seed=2, init_range=0.3),
                     experts=nets[1:], stage_cuts=STAGE, lead_cuts=LEAD)


def python_expert(b: np.ndarray) -> int:
    """The definition: stage bin (cuts at or below both sides' pips) times the lead bins,
    plus the lead bin (cuts at or below the other side's pips minus the side on roll's);
    the side on roll is row 1, a checker in slot i counts i + 1 pips."""
    pips = (b.astype(int) * np.arange(1, 26)).sum(axis=1)
    stage = sum(pips.sum() >= c for c in STAGE)
    lead = sum(pips[0] - pips[1] >= c for c in LEAD)
    return stage * (len(LEAD) + 1) + lead


def test_expert_of_matches_the_definition(boards, experts):
    got = experts.expert_of(boards)
    cls = experts.classify(boards)
    assert (got[cls != 0] == -1).all()
    want = np.array([python_expert(b) for b in boards[cls == 0]])
    np.testing.assert_array_equal(got[cls == 0], want)
    assert len(set(want.tolist())) >= 4, "too few experts reached: the test lost its point"


def test_each_contact_position_is_valued_by_its_expert(boards, experts):
    nets = [experts.contact, *experts.experts]
    cls = experts.classify(boards)
    out = experts.evaluate(boards)
    for b, c, o in zip(boards, cls, out):
        want = (nets[python_expert(b)] if c == 0 else experts.race).evaluate(b[None])[0]
        np.testing.assert_array_equal(o, want)


def test_the_search_values_each_play_by_its_expert(boards, experts):
    """The compiled 0-ply choice (shared first-layer heads between sibling plays) picks the
    play of highest equity computed position by position, with decisions whose plays go to
    different experts."""
    def spanning(after):
        live = after[[a[1].sum() > 0 for a in after]]
        routed = experts.expert_of(live[:, ::-1]) if len(live) else []
        return len({int(e) for e in routed if e >= 0}) > 1

    n = check_best_moves(experts, boards[::2], ((6, 5), (3, 1), (4, 4), (6, 6)), spanning)
    assert n > 0, "no roll had plays of two experts: the test lost its point"


def test_files_pickles_and_copies_keep_the_experts(tmp_path, boards, experts):
    want = experts.evaluate(boards)
    experts.save(tmp_path / "e.npz")
    loaded = load_evaluator(tmp_path / "e.npz")
    copies = [loaded, pickle.loads(pickle.dumps(experts)), experts.copy(),
              experts.with_race_gammons(1)]
    for ev in copies:
        assert len(ev.experts) == 5 and ev.stage_cuts == STAGE and ev.lead_cuts == LEAD
    for ev in copies[:3]:
        np.testing.assert_array_equal(ev.evaluate(boards), want)
    assert set(experts.networks) == {"contact", "race", *(f"contact{i}" for i in range(1, 6))}
    assert "6 contact experts" in repr(experts)


def test_without_experts_nothing_changes(boards):
    net, race = _nets(1)[0], Network((7,), 5, "race", seed=2, init_range=0.3)
    plain = Evaluator(net, race)
    assert plain.experts == () and plain.stage_cuts == () and plain.lead_cuts == ()
    cls = plain.classify(boards)
    np.testing.assert_array_equal(plain.expert_of(boards), np.where(cls == 0, 0, -1))
    # one cut that every position passes: expert 1 values them all
    other = _nets(2)[1]
    shifted = Evaluator(net, race, experts=[other], stage_cuts=[0])
    np.testing.assert_array_equal(shifted.evaluate(boards[cls == 0]),
                                  other.evaluate(boards[cls == 0]))


def test_bad_experts_are_refused(tmp_path, experts):
    nets = _nets(3)
    race = Network((7,), 5, "race", seed=2, init_range=0.3)
    with pytest.raises(ValueError, match="contact experts"):
        Evaluator(nets[0], race, experts=nets[1:], stage_cuts=[250])       # 2 bins, 3 nets
    with pytest.raises(ValueError, match="increasing"):
        Evaluator(nets[0], race, experts=nets[1:], stage_cuts=[280, 250])
    with pytest.raises(ValueError, match="sizes and encoder"):
        Evaluator(nets[0], race, experts=_nets(1, hidden=8), stage_cuts=[250])
    with pytest.raises(ValueError, match="at most 8"):
        Evaluator(nets[0], race, experts=[nets[1]] * 8, stage_cuts=[100, 200], lead_cuts=[0, 9])
    with pytest.raises(TypeError, match="Networks"):
        Evaluator(nets[0], race, experts=["x"], stage_cuts=[250])
    # a file whose routing does not match its networks
    experts.save(tmp_path / "e.npz")
    data = dict(np.load(tmp_path / "e.npz"))
    meta = str(data["metadata"]).replace('"lead_cuts": [-20, 20]', '"lead_cuts": [0]')
    np.savez(tmp_path / "bad.npz", **{**data, "metadata": np.array(meta)})
    with pytest.raises(ValueError, match="unknown position classes"):
        load_evaluator(tmp_path / "bad.npz")
    meta = str(data["metadata"]).replace('"lead_cuts": [-20, 20]', '"lead_cuts": "x"')
    np.savez(tmp_path / "bad2.npz", **{**data, "metadata": np.array(meta)})
    with pytest.raises(ValueError, match="contact_experts"):
        load_evaluator(tmp_path / "bad2.npz")


def test_self_play_training_of_experts_is_refused(experts):
    from bgengine.core.td import train_games

    with pytest.raises(ValueError, match="not supported"):
        train_games(experts, 2, 0.1)


def test_growth_and_init_from_refuse_experts(tmp_path, experts):
    from bgengine.training.growth import widen_evaluator
    from bgengine.training.trainer import TrainConfig, train

    with pytest.raises(ValueError, match="contact experts"):
        widen_evaluator(experts, (16,))
    experts.save(tmp_path / "e.npz")
    config = TrainConfig(games=2, hidden=(12,), encoder="contact", race_encoder="race",
                         race_hidden=(7,), lam=0.0, init_from=str(tmp_path / "e.npz"))
    with pytest.raises(ValueError, match="experts"):
        train(config, tmp_path / "run", progress=False)
