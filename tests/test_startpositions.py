"""Training from start positions (bgengine.training.startpositions, train_games(starts=...),
TrainConfig.starts): sampling, files, the learner against the plain-Python reference,
runs with threads, and games from a given position."""

from __future__ import annotations

import numpy as np
import pytest

from bgengine.core.agents import Player
from bgengine.core.dice import Dice
from bgengine.core.evaluator import Evaluator, load_evaluator
from bgengine.matches.game import game_decisions
from bgengine.core.network import Network
from bgengine.training.startpositions import load_positions, play_positions, sample_positions, save_positions
from bgengine.core.td import train_games
from bgengine.training.trainer import TrainConfig, train
from td_reference import ref_train


def classed() -> Evaluator:
    return Evaluator(Network((12,), 5, "expert", seed=1, init_range=0.3),
                     Network((7,), 5, "race", seed=2, init_range=0.3))


@pytest.fixture(scope="module")
def races() -> np.ndarray:
    return sample_positions(classed(), 12, "race", seed=5)


def test_sampled_positions_are_of_their_class(races):
    ev = classed()
    assert races.shape == (12, 2, 25) and races.dtype == np.uint8
    assert (ev.classify(races) == 1).all()                      # race
    np.testing.assert_array_equal(sample_positions(classed(), 12, "race", seed=5), races)
    assert not np.array_equal(sample_positions(classed(), 12, "race", seed=6), races)
    contact = sample_positions(classed(), 3, "contact", seed=5)
    assert (ev.classify(contact) == 0).all()
    with pytest.raises(ValueError, match="position_class"):
        sample_positions(ev, 3, "crashed")
    with pytest.raises(ValueError, match="n must be"):
        sample_positions(ev, 0)


def test_play_positions_are_every_position_of_the_games():
    ev = classed()
    boards = play_positions(ev, 3, seed=4)
    # without noise: the positions of the model's own games, every decision of each
    want = []
    for game in range(3):
        loop = game_decisions(Dice(4, stream=game))
        k = None
        try:
            while True:
                d = loop.send(k)
                want.append(d.board)
                k = 0 if len(d.afterstates) == 1 else Player("net", ev).choose(d.board, d.d1, d.d2)
        except StopIteration:
            pass
    np.testing.assert_array_equal(boards, np.array(want))
    noisy = play_positions(ev, 3, seed=4, epsilon=0.5)
    assert noisy.dtype == np.uint8 and noisy.shape[1:] == (2, 25)
    np.testing.assert_array_equal(play_positions(ev, 3, seed=4, epsilon=0.5), noisy)
    assert noisy.shape != boards.shape or not np.array_equal(noisy, boards)
    with pytest.raises(ValueError, match="n_games"):
        play_positions(ev, 0)


def test_positions_file_round_trip(tmp_path, races):
    save_positions(tmp_path / "r.npz", races, {"class": "race"})
    boards, meta = load_positions(tmp_path / "r.npz")
    np.testing.assert_array_equal(boards, races)
    assert meta == {"class": "race"}
    np.savez(tmp_path / "bad.npz", other=np.zeros(3))
    with pytest.raises(ValueError, match="bad.npz: not a positions file"):
        load_positions(tmp_path / "bad.npz")
    with pytest.raises(ValueError, match="not a positions file"):
        load_positions(tmp_path / "missing.npz")
    with pytest.raises(ValueError):
        save_positions(tmp_path / "x.npz", np.full((1, 2, 25), 9, np.uint8))


@pytest.mark.parametrize("method", ["td", "backprop"])
def test_games_from_starts_match_reference(races, method):
    """Game g starts from starts[g % S] with an ordinary roll; only races: the contact
    network is not touched."""
    model, other = classed(), classed()
    got = train_games(model, 5, 0.1, 0.0, seed=11, first_game=3, method=method, starts=races)
    want = ref_train(other, 5, 0.1, 0.0, seed=11, first_game=3, method=method, starts=races)
    np.testing.assert_array_equal(got["moves"], want["moves"])
    np.testing.assert_array_equal(got["result"], want["result"])
    np.testing.assert_array_equal(model.race.params, other.race.params)
    np.testing.assert_array_equal(model.contact.params, classed().contact.params)
    assert not np.array_equal(model.race.params, classed().race.params)
    assert got["moves"].max() < 60                  # races are short


def test_bad_starts(races):
    ev = classed()
    with pytest.raises(ValueError, match="at least one"):
        train_games(ev, 1, 0.1, starts=np.zeros((0, 2, 25), np.uint8))
    finished = races[:2].copy()
    finished[1, 1] = 0
    with pytest.raises(ValueError, match=r"starts\[1\] is a finished game"):
        train_games(ev, 1, 0.1, starts=finished)
    with pytest.raises(ValueError, match="shape"):
        train_games(ev, 1, 0.1, starts=races[0])


def config(path, **kw) -> TrainConfig:
    base = dict(encoder="expert", hidden=[12], race_encoder="race", race_hidden=[7], lam=0.0,
                games=64, checkpoint_every=32, eval_every=64, eval_games=10, threads=1,
                snapshot_every=0, seed=3, starts=str(path))
    base.update(kw)
    return TrainConfig(**base)


def test_run_from_starts_resumes_exactly_with_threads(tmp_path, races):
    save_positions(tmp_path / "races.npz", races)
    cfg = config(tmp_path / "races.npz", train_threads=2, sync_games=8, sync_mode="rolling")
    whole = train(cfg, tmp_path / "a", progress=False)
    train(cfg, tmp_path / "b", progress=False, stop_after=32)
    resumed = train(cfg, tmp_path / "b", progress=False)
    np.testing.assert_array_equal(whole.race.params, resumed.race.params)
    start = train(config(tmp_path / "races.npz", games=1), tmp_path / "c", progress=False,
                  stop_after=0)
    np.testing.assert_array_equal(whole.contact.params, start.contact.params)   # races only
    assert not np.array_equal(whole.race.params, start.race.params)
    saved = load_evaluator(tmp_path / "a" / "network.npz")
    np.testing.assert_array_equal(saved.race.params, whole.race.params)


def test_config_checks_starts(tmp_path):
    with pytest.raises(ValueError, match="starts"):
        TrainConfig(method="mutation", mutation_games=4, games=8, checkpoint_every=4,
                    eval_every=4, starts="x.npz")
    with pytest.raises(ValueError, match="not a positions file"):
        train(config(tmp_path / "missing.npz"), tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()          # nothing written


def test_game_from_a_start_position(races):
    loop = game_decisions(Dice(4, stream=2), start=races[0])
    first = next(loop)
    np.testing.assert_array_equal(first.board, races[0])
    assert (first.d1, first.d2) == Dice(4, stream=2).roll()
    k = 0
    while True:
        try:
            loop.send(k)
        except StopIteration as end:
            points, plays = end.value
            break
    assert points in (-3, -2, -1, 1, 2, 3) and plays >= 1
    from bgengine.core.agents import Player
    from bgengine.matches.game import play_game

    players = (Player("pubeval"), Player("random"))
    a = play_game(players, Dice(4, stream=2), 0, 0, 0, start=races[0])
    assert a == play_game(players, Dice(4, stream=2), 0, 0, 0, start=races[0])
    assert a[1] < 60 and a[0] != 0
