"""Evaluators (bgengine.core.evaluator): class networks routed by position class, the same
bits as a single network where there is one, files, and training class networks
(TD(0), n-ply targets, threads) against the plain-Python reference learner."""

from __future__ import annotations

import numpy as np
import pytest

from bgengine.core.agents import Player, play_match
from bgengine.core.evaluator import CLASSES, Evaluator, as_evaluator, load_evaluator
from bgengine.core.movegen import legal_afterstates
from bgengine.core.network import Network
from bgengine.core.search import Searcher, rollout
from bgengine.core.td import train_games
from bgengine.training.trainer import TrainConfig, train
from game_positions import random_positions
from td_reference import check_best_moves, mover_values, equity, ref_train, start_board


def game_positions(n_games: int = 6, seed: int = 3) -> np.ndarray:
    """Positions (side on roll) from random-play games: contact, races, bear-offs."""
    return np.array(random_positions(n_games, seed)[1:])


def races_and_contact(boards: np.ndarray, ev: Evaluator) -> tuple[np.ndarray, np.ndarray]:
    cls = ev.classify(boards)
    return boards[cls == 0], boards[cls != 0]


@pytest.fixture(scope="module")
def boards() -> np.ndarray:
    return game_positions()


@pytest.fixture
def classed() -> Evaluator:
    return Evaluator(Network((12,), 5, "expert", seed=1, init_range=0.3),
                     Network((7,), 5, "tesauro198", seed=2, init_range=0.3))


def python_class(b: np.ndarray) -> int:
    """Class by the definition: contact unless every checker of one side has passed every
    checker of the other (nobody on the bar); exact shape when both are all home."""
    if b[0, 24] or b[1, 24]:
        return 0
    back = [max([i for i in range(24) if b[s, i]], default=-1) for s in (0, 1)]
    if back[0] + back[1] >= 23:
        return 0
    return 2 if max(back) <= 5 else 1


def test_classes_match_the_definition(boards, classed):
    got = classed.classify(boards)
    want = np.array([python_class(b) for b in boards])
    want[want == 2] = 1                   # no database: bear-offs are races
    np.testing.assert_array_equal(got, want)
    assert {0, 1} <= set(got.tolist())
    assert CLASSES[:2] == ("contact", "race")


def test_single_network_evaluator_is_the_network(boards):
    net = Network((9,), 5, "expert", seed=4, init_range=0.3)
    ev = as_evaluator(net)
    assert ev.single and ev.contact is net and ev.race is net
    np.testing.assert_array_equal(ev.evaluate(boards), net.evaluate(boards))
    # searches, rollouts, matches and training: the same bits as the network itself
    s1, s2 = Searcher(net), Searcher(ev)
    for b in boards[::25]:
        assert s1.best_move(b, 3, 1, plies=1)[0] == s2.best_move(b, 3, 1, plies=1)[0]
        np.testing.assert_array_equal(s1.evaluate(b, 1), s2.evaluate(b, 1))
    r1 = rollout(net, boards[0], trials=40, seed=2)
    r2 = rollout(ev, boards[0], trials=40, seed=2)
    np.testing.assert_array_equal(r1["per_trial"], r2["per_trial"])
    p1 = play_match(Player("net", net), Player("pubeval"), 20, seed=1)
    p2 = play_match(Player("net", ev), Player("pubeval"), 20, seed=1)
    np.testing.assert_array_equal(p1[0], p2[0])
    a, b = net.copy(), net.copy()
    train_games(a, 3, 0.1, 0.7, seed=5)
    train_games(Evaluator.from_network(b), 3, 0.1, 0.7, seed=5)
    np.testing.assert_array_equal(a.params, b.params)


def test_routing_uses_each_class_network(boards, classed):
    contact, race = races_and_contact(boards, classed)
    assert len(contact) and len(race)
    np.testing.assert_array_equal(classed.evaluate(contact), classed.contact.evaluate(contact))
    np.testing.assert_array_equal(classed.evaluate(race), classed.race.evaluate(race))
    # the two networks disagree, so routing is visible
    assert not np.allclose(classed.contact.evaluate(race), classed.race.evaluate(race))


def test_best_move_with_class_networks_matches_python(boards, classed):
    """The compiled 0-ply choice (shared heads per class) picks the first play of highest
    equity computed position by position in Python, including plays that end contact."""
    def crossing(after):
        live = [a for a in after if a[1].sum()]
        return live and len({int(c) for c in classed.classify(np.array(live))}) > 1

    n = check_best_moves(classed, boards[::3], ((6, 5), (3, 1), (4, 4)), crossing)
    assert n > 0, "no roll had plays of both classes: the test lost its point"


def test_save_and_load(tmp_path, classed):
    path = tmp_path / "ev.npz"
    classed.metadata["note"] = "x"
    classed.save(path)
    back = load_evaluator(path)
    assert not back.single and back.metadata["note"] == "x"
    np.testing.assert_array_equal(back.contact.params, classed.contact.params)
    np.testing.assert_array_equal(back.race.params, classed.race.params)
    assert back.race.encoder == "tesauro198"
    with pytest.raises(ValueError, match="evaluator"):
        Network.load(path)
    # a single network's file loads as an evaluator too
    net = Network((5,), 5, "expert", seed=3)
    net.save(tmp_path / "net.npz")
    ev = load_evaluator(tmp_path / "net.npz")
    assert ev.single
    np.testing.assert_array_equal(ev.contact.params, net.params)


def test_bad_files_and_arguments(tmp_path, classed):
    classed.save(tmp_path / "ev.npz")
    with np.load(tmp_path / "ev.npz") as z:
        parts = dict(z)
    np.savez(tmp_path / "norace.npz", metadata=parts["metadata"], contact_params=parts["contact_params"])
    with pytest.raises(ValueError, match="race network's parameters"):
        load_evaluator(tmp_path / "norace.npz")
    np.savez(tmp_path / "short.npz", metadata=parts["metadata"],
             contact_params=parts["contact_params"][:-1], race_params=parts["race_params"])
    with pytest.raises(ValueError, match="contact network"):
        load_evaluator(tmp_path / "short.npz")
    (tmp_path / "junk.npz").write_bytes(b"PK\x03\x04junk")
    with pytest.raises(ValueError, match="junk.npz"):
        load_evaluator(tmp_path / "junk.npz")
    with pytest.raises(ValueError, match="outputs"):
        Evaluator(Network((3,), 5, "expert"), Network((3,), 1, "expert"))
    for bad in (None, "net", 3):
        with pytest.raises(TypeError):
            as_evaluator(bad)
        with pytest.raises(TypeError):
            Searcher(bad)
        with pytest.raises(TypeError):
            rollout(bad, start_board(), trials=2)
        with pytest.raises(TypeError):
            train_games(bad, 1, 0.1)
    for args in ((None, Player("random")), (Player("random"), None), ("net", Player("random"))):
        with pytest.raises(TypeError):          # was a segfault / garbage read (issue 13)
            play_match(*args, 2)
    with pytest.raises(ValueError, match="lam = 0"):
        train_games(classed, 1, 0.1, 0.7)
    finished = np.zeros((2, 25), np.uint8)
    finished[0, 0] = 15                 # the side on roll has borne off every checker
    with pytest.raises(ValueError, match="finished game"):
        classed.evaluate(finished)
    with pytest.raises(ValueError, match="both sides have borne off"):
        classed.evaluate(np.zeros((2, 25), np.uint8))


def test_class_td0_matches_reference_bit_for_bit(classed):
    """Each state trains its own class network toward the next state's value."""
    other = classed.copy()
    got = train_games(classed, 3, 0.1, 0.0, seed=11, first_game=2)
    want = ref_train(other, 3, 0.1, 0.0, seed=11, first_game=2)
    np.testing.assert_array_equal(got["moves"], want["moves"])
    np.testing.assert_array_equal(got["result"], want["result"])
    np.testing.assert_array_equal(classed.contact.params, other.contact.params)
    np.testing.assert_array_equal(classed.race.params, other.race.params)
    start = Evaluator(Network((12,), 5, "expert", seed=1, init_range=0.3),
                      Network((7,), 5, "tesauro198", seed=2, init_range=0.3))
    assert not np.array_equal(classed.race.params, start.race.params)   # races were trained


def test_class_backprop_matches_reference(classed):
    other = classed.copy()
    train_games(classed, 2, 0.05, method="backprop", seed=4)
    ref_train(other, 2, 0.05, 0.0, seed=4, method="backprop")
    np.testing.assert_array_equal(classed.contact.params, other.contact.params)
    np.testing.assert_array_equal(classed.race.params, other.race.params)


@pytest.mark.parametrize("single", [True, False])
def test_one_ply_targets_match_reference(single, classed):
    """TD(0) toward the state's 1-ply value (the mean over the 21 rolls)."""
    model = Network((6,), 5, "tesauro198", seed=9, init_range=0.3) if single else classed
    other = model.copy()
    got = train_games(model, 1, 0.1, 0.0, seed=6, target_plies=1)
    want = ref_train(other, 1, 0.1, 0.0, seed=6, target_plies=1)
    np.testing.assert_array_equal(got["moves"], want["moves"])
    for a, b in zip(as_evaluator(model).networks.values(), as_evaluator(other).networks.values()):
        np.testing.assert_array_equal(a.params, b.params)
    with pytest.raises(ValueError, match="TD\\(0\\)"):
        train_games(model, 1, 0.1, 0.5, target_plies=1)


def small_config(**kw) -> TrainConfig:
    base = dict(encoder="expert", hidden=[8], race_encoder="tesauro198", race_hidden=[4], lam=0.0,
                games=600, checkpoint_every=200, eval_every=600, eval_games=20, threads=1,
                snapshot_every=0, seed=3)
    base.update(kw)
    return TrainConfig(**base)


@pytest.mark.parametrize("mode", ["round", "rolling"])
def test_class_run_resumes_exactly_and_threads_are_reproducible(tmp_path, mode):
    threaded = small_config(train_threads=2, sync_games=8, sync_mode=mode)
    whole = train(threaded, tmp_path / "a", progress=False)
    again = train(threaded, tmp_path / "b", progress=False)
    train(threaded, tmp_path / "c", progress=False, stop_after=400)
    resumed = train(threaded, tmp_path / "c", progress=False)
    one = train(small_config(), tmp_path / "d", progress=False)
    for other in (again, resumed):
        np.testing.assert_array_equal(whole.contact.params, other.contact.params)
        np.testing.assert_array_equal(whole.race.params, other.race.params)
    # two threads merge their updates: a different (still reproducible) path than one thread
    assert not np.array_equal(whole.contact.params, one.contact.params)
    saved = load_evaluator(tmp_path / "a" / "network.npz")
    np.testing.assert_array_equal(saved.race.params, whole.race.params)
    assert Player("net", saved).evaluator is saved


def test_threads_merge_is_the_sum_of_thread_updates(tmp_path):
    """One round of two threads equals the start plus both threads' own changes."""
    cfg = small_config(race_encoder="", race_hidden=[], games=16, checkpoint_every=16,
                       eval_every=16, train_threads=2, sync_games=8)
    start = Network((8,), 5, "expert", seed=3, init_range=0.1)
    got = train(cfg, tmp_path / "r", progress=False)
    a, b = start.copy(), start.copy()
    train_games(a, 8, 0.1, 0.0, seed=3, first_game=0)
    train_games(b, 8, 0.1, 0.0, seed=3, first_game=8)
    want = start.params + (a.params - start.params) + (b.params - start.params)
    np.testing.assert_array_equal(got.params, want)


def test_config_checks():
    with pytest.raises(ValueError, match="lam = 0"):
        small_config(lam=0.7)
    with pytest.raises(ValueError, match="race_encoder"):
        small_config(race_encoder="nope")
    with pytest.raises(ValueError, match="TD\\(0\\)"):
        small_config(race_encoder="", target_plies=1, lam=0.5)
    with pytest.raises(ValueError, match="train_threads"):
        small_config(train_threads=0)
    with pytest.raises(ValueError, match="sync_mode"):
        small_config(sync_mode="async")
    with pytest.raises(ValueError, match="steps"):
        small_config(schedule="steps")


def test_init_from(tmp_path, classed):
    classed.save(tmp_path / "start.npz")
    cfg = small_config(hidden=[12], race_hidden=[7], games=0 + 200, checkpoint_every=200,
                       eval_every=200, init_from=str(tmp_path / "start.npz"))
    cfg_zero = small_config(hidden=[12], race_hidden=[7], games=200, checkpoint_every=200,
                            eval_every=200)
    got = train(cfg, tmp_path / "run", progress=False, stop_after=0)
    np.testing.assert_array_equal(got.contact.params, classed.contact.params)
    np.testing.assert_array_equal(got.race.params, classed.race.params)
    fresh = train(cfg_zero, tmp_path / "run0", progress=False, stop_after=0)
    assert not np.array_equal(fresh.contact.params, classed.contact.params)
    with pytest.raises(ValueError, match="init_from"):
        train(small_config(init_from=str(tmp_path / "start.npz")), tmp_path / "bad", progress=False)


def test_searcher_shared_by_threads_gives_the_same_answers(boards):
    """Threads sharing one Searcher take turns: every answer equals a lone searcher's."""
    from concurrent.futures import ThreadPoolExecutor

    net = Network((10,), 5, "expert", seed=8, init_range=0.3)
    shared = Searcher(net)
    jobs = [(b, d1, d2) for b in boards[::10] for d1, d2 in ((3, 1), (6, 6), (5, 2))]
    want = [Searcher(net).best_move(b, d1, d2, plies=1)[0] for b, d1, d2 in jobs]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda j: shared.best_move(j[0], j[1], j[2], plies=1)[0], jobs * 3))
    assert got == want * 3


def test_zip_bomb_is_refused_before_inflating(tmp_path):
    import zipfile

    path = tmp_path / "bomb.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("params.npy", b"\0" * (65 << 20))
        zf.writestr("metadata.npy", b"\0")
    with pytest.raises(ValueError, match="inflates"):
        load_evaluator(path)
    with pytest.raises(ValueError, match="inflates"):
        Network.load(path)


@pytest.fixture
def with_database(classed) -> Evaluator:
    from bgengine.core.bearoff import default

    return Evaluator(classed.contact, classed.race, database=default())


def test_bearoffs_are_exact(boards, with_database):
    db = with_database.database
    cls = with_database.classify(boards)
    want = np.array([python_class(b) for b in boards])
    np.testing.assert_array_equal(cls, want)
    exact = boards[cls == 2]
    assert len(exact) > 5
    for b in exact:
        np.testing.assert_array_equal(with_database.evaluate(b), np.float32(db.outputs(b)))
    others = boards[cls != 2]
    np.testing.assert_array_equal(with_database.evaluate(others), Evaluator(
        with_database.contact, with_database.race).evaluate(others))
    # plays are chosen on the exact values where they apply
    s = Searcher(with_database)
    for b in exact[::2]:
        after, _ = legal_afterstates(b, 6, 2)
        vals = mover_values(with_database, after)
        assert s.best_move(b, 6, 2)[0] == int(np.argmax([equity(v) for v in vals]))


def test_rollouts_truncated_at_the_bearoff_database(boards, with_database):
    """truncate_bearoff: a trial that reaches a position the database values stops there
    with its value; from a bear-off every trial is the database's value, from a race near
    home the mean agrees with the played-out trials', and without a database nothing
    changes."""
    cls = with_database.classify(boards)
    bearoff = boards[cls == 2][0]
    r = rollout(with_database, bearoff, 72, seed=4, truncate_bearoff=True)
    np.testing.assert_array_equal(r["per_trial"], np.tile(with_database.evaluate(bearoff), (72, 1)))
    assert r["stderr"] == 0
    board = np.zeros((2, 25), np.uint8)          # a race: both sides a checker or two outside
    board[0, [1, 3, 5, 7]] = [4, 4, 5, 2]
    board[1, [0, 2, 4, 8]] = [5, 4, 4, 2]
    played = rollout(with_database, board, 2592, seed=5)
    stopped = rollout(with_database, board, 2592, seed=5, truncate_bearoff=True)
    assert abs(stopped["equity"] - played["equity"]) < 4 * np.hypot(stopped["stderr"],
                                                                      played["stderr"])
    assert stopped["stderr"] < played["stderr"]
    plain = Evaluator(with_database.contact, with_database.race)
    np.testing.assert_array_equal(
        rollout(plain, board, 36, seed=6, truncate_bearoff=True)["per_trial"],
        rollout(plain, board, 36, seed=6)["per_trial"])


def test_td0_with_exact_bearoffs_matches_reference(with_database):
    other = Evaluator(with_database.contact.copy(), with_database.race.copy(),
                      database=with_database.database)
    train_games(with_database, 3, 0.1, 0.0, seed=12)
    ref_train(other, 3, 0.1, 0.0, seed=12)
    np.testing.assert_array_equal(with_database.contact.params, other.contact.params)
    np.testing.assert_array_equal(with_database.race.params, other.race.params)


def test_database_in_every_output_form_and_files(tmp_path, with_database):
    from bgengine.core.bearoff import default

    b = np.zeros((2, 25), np.uint8)
    b[1, :3] = (2, 1, 1)
    b[0, 1:6] = 3
    for K in (1, 4):           # exact values in every output form
        ev = Evaluator(Network((3,), K, "expert"), database=default())
        np.testing.assert_array_equal(ev.evaluate(b), default().outputs(b, n_outputs=K))
    with pytest.raises(TypeError):
        Evaluator(Network((3,), 5, "expert"), database="bearoff")
    with_database.save(tmp_path / "e.npz")
    back = load_evaluator(tmp_path / "e.npz")
    assert back.database is not None and not back.single
    import pickle
    again = pickle.loads(pickle.dumps(with_database))
    assert again.database is not None
    np.testing.assert_array_equal(again.race.params, with_database.race.params)


def test_class_td0_with_two_hidden_layers_matches_reference():
    model = Evaluator(Network((8, 6), 5, "contact", seed=3, init_range=0.3),
                      Network((5, 4), 5, "race", seed=4, init_range=0.3))
    other = model.copy()
    train_games(model, 2, 0.1, 0.0, seed=13)
    ref_train(other, 2, 0.1, 0.0, seed=13)
    np.testing.assert_array_equal(model.contact.params, other.contact.params)
    np.testing.assert_array_equal(model.race.params, other.race.params)


def test_fuzzed_network_and_evaluator_files(tmp_path, with_database):
    """Random byte flips, truncations and member swaps of network and evaluator files: every
    load either gives a working model or a ValueError naming the file (nothing else)."""
    import zipfile

    rng = np.random.default_rng(21)
    sources = {}
    with_database.save(tmp_path / "ev.npz")
    with_database.contact.save(tmp_path / "net.npz")
    for name in ("ev.npz", "net.npz"):
        sources[name] = (tmp_path / name).read_bytes()
    loaded = refused = 0
    for i in range(240):
        name = ("ev.npz", "net.npz")[i % 2]
        data = bytearray(sources[name])
        kind = i % 3
        if kind == 0:
            for _ in range(rng.integers(1, 4)):
                data[rng.integers(len(data))] ^= 1 << int(rng.integers(8))
        elif kind == 1:
            data = data[:rng.integers(len(data))]
        path = tmp_path / f"m{i}.npz"
        path.write_bytes(bytes(data))
        if kind == 2:           # a member replaced by the other file's, or dropped
            with zipfile.ZipFile(tmp_path / name) as zin, zipfile.ZipFile(path, "w") as zout:
                members = zin.namelist()
                drop = members[rng.integers(len(members))]
                for m in members:
                    if m != drop or rng.random() < 0.5:
                        zout.writestr(m, zin.read(m) if m != drop else b"\x93NUMPY junk")
        for load in (load_evaluator, Network.load):
            try:
                model = load(path)
            except ValueError as exc:
                assert str(path) in str(exc)
                refused += 1
                continue
            loaded += 1
            out = as_evaluator(model).evaluate(start_board())
            assert out.shape == (5,)
    assert refused > 200 and loaded >= 0


def test_self_play_refuses_contact_experts_and_names_the_way_to_fit_them():
    from bgengine import load_default_network

    ev = load_default_network()
    assert ev.experts
    with pytest.raises(ValueError, match="bgengine distill fit --experts"):
        train_games(ev.copy(), 1, 0.01)
