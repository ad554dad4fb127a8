"""Rollout-labelled positions: classes, sampling, the store, labelling, benchmark and fit."""

from __future__ import annotations

import logging

import json

import numpy as np
import pytest

from bgengine.core.board import is_race, validate_board
from bgengine.cli import main
from bgengine.core.evaluator import Evaluator
from bgengine.notation.ids import position_key
from bgengine.labelling.benchmark import format_table, value_errors
from bgengine.labelling.classes import (BACK_GAME, CRASHED, POSITION_CLASSES, RACE,
                                        class_counts, classify_positions)
from bgengine.labelling.fit import FitConfig, fit_evaluator, held_out_mask
from bgengine.labelling.labeller import label_boards, label_pool
from bgengine.labelling.sampling import SOURCES, SamplingConfig, build_start, sample_positions
from bgengine.labelling.store import (LabelSettings, LabelStore, Labels, boards_to_keys,
                                      keys_to_boards, load_pool, position_seed, save_pool)
from bgengine.core.network import Network
from bgengine.position import Position
from bgengine.core.search import rollout
from bgengine.training.startpositions import play_positions


@pytest.fixture(scope="module")
def small_net() -> Network:
    return Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=3)


@pytest.fixture(scope="module")
def boards(small_net) -> np.ndarray:
    return play_positions(small_net, 6, seed=11, epsilon=0.3)


def test_keys_round_trip_and_match_gnubg_keys(boards):
    keys = boards_to_keys(boards)
    assert keys.shape == (len(boards), 10)
    assert all(bytes(k) == position_key(b) for k, b in zip(keys, boards))
    assert np.array_equal(keys_to_boards(keys), boards)


def test_keys_refuse_bad_input():
    with pytest.raises(ValueError, match="30 checkers"):
        boards_to_keys(np.full((1, 2, 25), 2, np.uint8))
    with pytest.raises(ValueError, match=r"\(N, 10\)"):
        keys_to_boards(np.zeros((3, 9), np.uint8))
    with pytest.raises(ValueError, match="15 checkers"):
        keys_to_boards(np.full((1, 10), 0xFF, np.uint8))


def test_classes(boards):
    c = classify_positions(boards)
    assert np.array_equal(c == RACE, np.array([is_race(b) for b in boards]))
    back = np.zeros((2, 25), np.uint8)
    back[0, [18, 19]] = 2                 # row 0 holds two points in row 1's home board
    back[0, 5] = 11
    back[1, :6] = [3, 3, 3, 2, 2, 2]      # row 1 far ahead
    assert POSITION_CLASSES[classify_positions(back[None])[0]] == "back game"
    crashed = back.copy()
    crashed[1, :6] = [4, 2, 0, 0, 0, 0]   # row 1 has few checkers left, stacked on its ace,
    crashed[1, 20] = 1                    # and one back: contact
    assert classify_positions(crashed[None])[0] == CRASHED
    assert sum(class_counts(c).values()) == len(boards)
    assert classify_positions(back[None])[0] == BACK_GAME


@pytest.mark.parametrize("source", SOURCES[2:])
def test_built_starts_are_legal_positions_with_contact(source):
    rng = np.random.default_rng(5)
    made = [b for b in (build_start(source, rng) for _ in range(60)) if b is not None]
    assert len(made) >= 20
    for b in made:
        validate_board(b)
        assert not is_race(b)
        assert b.sum(axis=1).max() <= 15


def test_sampling_is_reproducible_and_splits_by_game(small_net):
    config = SamplingConfig(games=12, seed=4, keep=0.5)
    a = sample_positions(small_net, config)
    b = sample_positions(small_net, config)
    assert np.array_equal(a.keys, b.keys) and len(a.keys) > 20
    assert len({bytes(k) for k in a.keys}) == len(a.keys)          # deduplicated
    assert set(a.sources) > {0}                                     # several sources met
    seen: set[bytes] = set()
    first = sample_positions(small_net, SamplingConfig(games=5, seed=4, keep=0.5), seen=seen)
    rest = sample_positions(small_net, SamplingConfig(games=7, seed=4, keep=0.5),
                            first_game=5, seen=seen)
    assert np.array_equal(np.concatenate([first.keys, rest.keys]), a.keys)


def test_sampling_config_is_checked():
    with pytest.raises(ValueError, match="games"):
        SamplingConfig(games=0)
    with pytest.raises(ValueError, match="games"):
        SamplingConfig(games=True)
    with pytest.raises(ValueError, match="unknown sources"):
        SamplingConfig(games=1, mix={"nowhere": 1.0})
    with pytest.raises(ValueError, match="keep"):
        SamplingConfig(games=1, keep=0)


def test_label_settings_are_checked():
    for bad in (dict(trials=0), dict(trials=1.5), dict(plies=3), dict(truncate=-1),
                dict(variance_reduction=1), dict(shard_size=0), dict(seed=-1),
                dict(truncate_bearoff=1)):
        with pytest.raises(ValueError):
            LabelSettings(**bad)


def test_stores_made_before_truncate_bearoff_read_it_as_off(tmp_path, small_net, boards):
    pool = _pool(tmp_path, boards[:3])
    store = LabelStore(tmp_path / "s", LabelSettings(trials=4, shard_size=3), "e" * 64)
    label_pool(store, pool, small_net)
    manifest = tmp_path / "s" / "manifest.json"
    data = json.loads(manifest.read_text())
    del data["settings"]["truncate_bearoff"]            # as an older bgengine wrote it
    manifest.write_text(json.dumps(data))
    assert LabelStore(tmp_path / "s").settings == LabelSettings(trials=4, shard_size=3)
    with pytest.raises(ValueError, match="labelled with"):
        LabelStore(tmp_path / "s", LabelSettings(trials=4, shard_size=3, truncate_bearoff=True),
                   "e" * 64)
    net = tmp_path / "n.npz"
    small_net.save(net)
    assert main(["data", "label", str(tmp_path / "t"), "--pool", str(pool.path), "--trials", "4",
                 "--truncate-bearoff", "--player", str(net), "--quiet"]) == 0
    assert LabelStore(tmp_path / "t").settings.truncate_bearoff is True


def _pool(tmp_path, boards, name="pool.npz"):
    keys = boards_to_keys(boards)
    path = tmp_path / name
    save_pool(path, keys, classify_positions(boards), np.zeros(len(keys), np.uint8), {"x": 1})
    return load_pool(path)


def test_a_label_is_the_position_rollout_with_its_own_seed(small_net, boards):
    settings = LabelSettings(trials=16)
    keys = boards_to_keys(boards[:3])
    labels = label_boards(small_net, keys, settings)
    for i in range(3):
        r = rollout(small_net, boards[i], 16, seed=position_seed(keys[i], 0))
        assert np.allclose(labels.outputs[i], r["outputs"])
        assert labels.equity_stderr[i] == pytest.approx(r["stderr"])
    # and whatever the threads
    assert np.array_equal(label_boards(small_net, keys, settings, n_threads=2).outputs,
                          labels.outputs)


def test_store_resumes_to_the_same_labels(tmp_path, small_net, boards):
    pool = _pool(tmp_path, boards[:25])
    settings = LabelSettings(trials=8, shard_size=10)
    whole = LabelStore(tmp_path / "whole", settings, "e" * 64)
    run = label_pool(whole, pool, small_net)
    assert (run.shards_done, run.positions) == (3, 25)
    parts = LabelStore(tmp_path / "parts", settings, "e" * 64)
    assert label_pool(parts, pool, small_net, max_shards=1).shards_done == 1
    again = LabelStore(tmp_path / "parts")               # a new process reads the manifest
    run = label_pool(again, pool, small_net)
    assert (run.shards_done, run.shards_skipped) == (2, 1)
    a, b = whole.load(), LabelStore(tmp_path / "parts").load()
    assert np.array_equal(a.keys, pool.keys) and np.array_equal(a.keys, b.keys)
    assert np.array_equal(a.outputs, b.outputs)
    assert a.outputs.dtype == np.float32 and len(a) == 25
    manifest = json.loads((tmp_path / "whole" / "manifest.json").read_text())
    assert manifest["positions"] == 25 and sum(manifest["counts"].values()) == 25


def test_store_refuses_other_settings_and_bad_checksums(tmp_path, small_net, boards):
    pool = _pool(tmp_path, boards[:5])
    store = LabelStore(tmp_path / "s", LabelSettings(trials=4), "a" * 64)
    label_pool(store, pool, small_net)
    with pytest.raises(ValueError, match="labelled with"):
        LabelStore(tmp_path / "s", LabelSettings(trials=5), "a" * 64)
    with pytest.raises(ValueError, match="evaluator"):
        LabelStore(tmp_path / "s", LabelSettings(trials=4), "b" * 64)
    with pytest.raises(ValueError, match="no label store"):
        LabelStore(tmp_path / "nothing")
    shard = next((tmp_path / "s").glob("pool-*.npz"))
    shard.write_bytes(shard.read_bytes()[:-3] + b"xyz")
    with pytest.raises(ValueError, match="checksum"):
        LabelStore(tmp_path / "s").load()


def test_store_refuses_a_second_pool_of_the_same_file_name(tmp_path, small_net, boards):
    # shards are named by the pool's file name: another pool.npz must not overwrite them
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = _pool(tmp_path / "a", boards[:5]), _pool(tmp_path / "b", boards[5:9])
    store = LabelStore(tmp_path / "s", LabelSettings(trials=4), "a" * 64)
    label_pool(store, first, small_net)
    before = store.load()
    with pytest.raises(ValueError, match="another pool named pool.npz"):
        label_pool(LabelStore(tmp_path / "s"), second, small_net)
    after = LabelStore(tmp_path / "s").load()
    assert np.array_equal(after.keys, before.keys) and np.array_equal(after.outputs,
                                                                      before.outputs)


def test_benchmark_figures(boards):
    keys = boards_to_keys(boards[:40])
    rng = np.random.default_rng(0)
    outputs = rng.uniform(0.05, 0.3, (40, 5)).astype(np.float32)
    labels = Labels(keys, classify_positions(boards[:40]), outputs, np.zeros((40, 5), np.float32),
                    np.full(40, 0.01, np.float32))
    exact = value_errors(outputs, labels)
    assert exact[-1].name == "all" and exact[-1].positions == 40
    assert all(r.equity_mae == pytest.approx(0, abs=1e-6) and r.equity_rmse == 0 for r in exact)
    off = outputs + np.array([0.1, 0, 0, 0, 0], np.float32)      # equity + 0.2 everywhere
    rows = value_errors(off, labels)
    assert rows[-1].equity_mae == pytest.approx(0.2, abs=1e-5)
    assert rows[-1].equity_rmse == pytest.approx(np.sqrt(0.04 - 0.0001), abs=1e-5)
    assert "all" in format_table({"a": rows, "b": exact})
    with pytest.raises(ValueError, match="shape"):
        value_errors(outputs[:3], labels)


def test_fit_moves_a_network_toward_its_labels(tmp_path):
    teacher = Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=1)
    student = Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=2)
    boards = play_positions(teacher, 40, seed=2, epsilon=0.5)
    boards, labels = _labelled_by(teacher, boards)
    fitted, reports = fit_evaluator(student, labels, FitConfig(epochs=6, lr=3e-3, seed=1))
    (r,) = reports
    assert r.name == "contact" and r.held > 50 and r.trained > 500
    assert r.after < 0.7 * r.before and r.best_epoch > 0
    held = held_out_mask(labels.keys, 0.1)
    err = lambda net: np.abs(net.evaluate(boards[held]) - labels.outputs[held]).mean()
    assert err(fitted) < err(student)
    fitted.save(tmp_path / "f.npz")
    assert np.array_equal(Evaluator.load(tmp_path / "f.npz").evaluate(boards[:5]),
                          fitted.evaluate(boards[:5]))


def test_step_size_drops_go_on_from_the_best_weights(caplog):
    """With lr_drop, a fit that stalls goes on from its best epoch at a smaller step; it
    never ends worse than its best, and a too-large step recovers."""
    teacher = Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=1)
    student = Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=2)
    boards, labels = _labelled_by(teacher, play_positions(teacher, 40, seed=2, epsilon=0.5))
    config = dict(epochs=12, lr=0.3, seed=1, patience=2)     # a step far too large
    _, (plain,) = fit_evaluator(student, labels, FitConfig(**config))
    with caplog.at_level(logging.INFO, logger="bgengine.labelling.fit"):
        _, (dropped,) = fit_evaluator(student, labels, FitConfig(
            **config, lr_drop=0.1, drop_patience=1))
    assert "step size times 0.1" in caplog.text
    assert dropped.after < plain.after and dropped.epochs >= plain.epochs
    for bad in (0, 1.5, float("nan")):
        with pytest.raises(ValueError, match="lr_drop"):
            FitConfig(lr_drop=bad)


def test_held_out_mask_depends_on_the_position_alone(boards):
    keys = boards_to_keys(boards)
    a = held_out_mask(keys, 0.3)
    b = held_out_mask(keys[::-1], 0.3)[::-1]
    assert np.array_equal(a, b) and 0.15 < a.mean() < 0.45


def test_cli_sample_label_info_benchmark_fit(tmp_path, capsys, small_net):
    net = tmp_path / "n.npz"
    small_net.save(net)
    pool = tmp_path / "p.npz"
    assert main(["data", "sample", str(pool), "--games", "4", "--player", str(net),
                 "--quiet"]) == 0
    assert "positions" in capsys.readouterr().out
    store = tmp_path / "st"
    args = ["data", "label", str(store), "--pool", str(pool), "--trials", "4", "--shard-size",
            "7", "--player", str(net), "--threads", "1", "--quiet"]
    assert main(args + ["--max-shards", "1"]) == 0
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "1 there already" in out
    assert main(["data", "info", str(store)]) == 0
    capsys.readouterr()
    assert main(["data", "info", str(store), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["positions"] == len(load_pool(pool)) and info["checksums"] == "ok"
    assert main(["data", "benchmark", str(store), "--player", str(net), "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert table["values"][f"{net} 0-ply"][-1]["name"] == "all"
    out_net = tmp_path / "fit.npz"
    assert main(["data", "fit", str(out_net), "--store", str(store), "--player", str(net),
                 "--epochs", "2", "--held-out", "0.3", "--prefer", "first", "--quiet"]) == 0
    fitted = Evaluator.load(out_net).metadata["fitted_to_rollouts"]
    assert fitted["positions"] == info["positions"] and fitted["prefer"] == "first"
    other_pool = tmp_path / "q.npz"                 # positions no store labels, taught
    assert main(["data", "sample", str(other_pool), "--games", "3", "--seed", "5", "--player",
                 str(net), "--quiet"]) == 0
    assert main(["data", "fit", str(out_net), "--store", str(store), "--player", str(net),
                 "--epochs", "1", "--teach", str(other_pool), "--teach-plies", "0",
                 "--search-cache", str(tmp_path / "cache"), "--quiet", "--json"]) == 0
    capsys.readouterr()
    assert Evaluator.load(out_net).metadata["fitted_to_rollouts"]["teach"] == [str(other_pool)]
    # another evaluator may not add to the store
    other = tmp_path / "o.npz"
    Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=9).save(other)
    assert main(["data", "label", str(store), "--pool", str(pool), "--trials", "4",
                 "--shard-size", "7", "--player", str(other), "--quiet"]) == 2
    assert "evaluator" in capsys.readouterr().err


def test_cli_refuses_a_missing_pool(tmp_path, capsys):
    assert main(["data", "label", str(tmp_path / "s"), "--pool", str(tmp_path / "none.npz"),
                 "--quiet"]) == 2
    assert "not a positions pool" in capsys.readouterr().err


def test_position_from_a_key_is_the_position():
    pos = Position.from_id("4HPwATDgc/ABMA")
    assert np.array_equal(keys_to_boards(boards_to_keys(pos.board[None]))[0], pos.board)


def test_decisions_judge_plays_by_their_rollouts(tmp_path, small_net, boards):
    from bgengine.labelling.decisions import (DecisionSet, build_decision_set, decision_dice,
                                              play_errors, searcher_chooser)
    from bgengine.core.movegen import legal_afterstates

    keys = boards_to_keys(boards[:12])
    classes = classify_positions(boards[:12])
    path = tmp_path / "d.npz"
    part = build_decision_set(path, small_net, keys[:5], classes[:5], chunk=5, trials=8,
                              top0=2, top2=1, seed=3)
    whole = build_decision_set(path, small_net, keys, classes, chunk=5, trials=8, top0=2,
                               top2=1, seed=3)      # resumes after the first five
    assert whole.metadata["positions_done"] == 12 and len(part) <= len(whole) <= 12
    fresh = build_decision_set(tmp_path / "e.npz", small_net, keys, classes, chunk=12, trials=8,
                               top0=2, top2=1, seed=3)
    assert np.array_equal(fresh.equity, whole.equity, equal_nan=True)
    with pytest.raises(ValueError, match="built with"):
        build_decision_set(path, small_net, keys, classes, trials=9, top0=2, top2=1, seed=3)
    loaded = DecisionSet.load(path)
    assert np.array_equal(loaded.candidates, whole.candidates)
    assert tuple(loaded.dice[0]) == decision_dice(loaded.keys[0], 3)
    # the labelling network's own 0-ply choice is a candidate; the worst play may not be
    own = play_errors(searcher_chooser(small_net, 0), loaded, small_net)[-1]
    assert own.outside == 0 and own.decisions == len(loaded)

    def worst(board, d1, d2):
        after, _ = legal_afterstates(board, d1, d2)
        return int(np.argmin(small_net.equity(np.ascontiguousarray(after[:, ::-1])) * -1))

    bad = play_errors(worst, loaded, small_net)[-1]
    assert bad.equity_lost >= own.equity_lost - 1e-9
    # the same decisions rolled out again: by the same player and seed the same figures; by
    # another player the same positions, rolls and candidates with other equities
    same = tmp_path / "same.npz"
    assert main(["data", "decisions", str(same), "--positions-from", str(path), "--player",
                 "net:" + str(_saved(small_net, tmp_path)),
                 "--trials", "8", "--seed", "3", "--quiet"]) == 0
    redone = DecisionSet.load(same)
    assert np.array_equal(redone.equity, loaded.equity, equal_nan=True)
    assert redone.metadata["positions_from"] == str(path)
    other = Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=9)
    again = build_decision_set(tmp_path / "again.npz", other, loaded.keys, loaded.classes,
                               source=loaded, chunk=4, trials=8, seed=3)
    assert np.array_equal(again.candidates, loaded.candidates)
    assert np.array_equal(np.isnan(again.equity), np.isnan(loaded.equity))
    assert not np.array_equal(again.equity, loaded.equity, equal_nan=True)
    assert main(["data", "decisions", str(same), "--positions-from", str(path), "--pool",
                 str(path), "--quiet"]) == 2


def _saved(net, folder):
    path = folder / "saved-net.npz"
    net.save(path)
    return path


def test_sampling_alternatives_are_positions_after_a_top_play(small_net):
    from bgengine.core.movegen import legal_afterstates

    plain = sample_positions(small_net, SamplingConfig(games=6, seed=8, keep=0.5,
                                                       mix={"self-play": 1.0}))
    alt = sample_positions(small_net, SamplingConfig(games=6, seed=8, keep=0.5,
                                                     mix={"self-play": 1.0}, alternatives=1.0))
    assert len(alt.keys) > 10
    assert {bytes(k) for k in alt.keys} != {bytes(k) for k in plain.keys}
    for b in keys_to_boards(alt.keys):
        validate_board(b)
    # the opening's alternatives: each is the position after a legal play of some roll
    first = keys_to_boards(alt.keys[:1])[0]
    start = Position.from_id("4HPwATDgc/ABMA").board
    if (first.sum(axis=1) == 15).all() and not np.array_equal(first, start):
        swapped = np.ascontiguousarray(first[::-1])
        assert any((legal_afterstates(start, a, b)[0] == swapped).all(axis=(1, 2)).any()
                   for a in range(1, 7) for b in range(1, 7))


def test_labelling_through_a_backend_gives_the_same_store(tmp_path, small_net, boards):
    from bgengine.matches.distributed import LocalBackend

    pool = _pool(tmp_path, boards[:12])
    path = tmp_path / "n.npz"
    small_net.save(path)
    settings = LabelSettings(trials=4, shard_size=5)
    here = LabelStore(tmp_path / "here", settings, "c" * 64)
    label_pool(here, pool, small_net)
    there = LabelStore(tmp_path / "there", settings, "c" * 64)
    run = label_pool(there, pool, small_net, backend=LocalBackend(1), model_path=path,
                     batch_shards=2)
    assert run.shards_done == 3
    assert np.array_equal(here.load().outputs, there.load().outputs)
    with pytest.raises(ValueError, match="model_path"):
        label_pool(LabelStore(tmp_path / "x", settings, "c" * 64), pool, small_net,
                   backend=LocalBackend(1))


def test_labels_unique_keeps_the_most_precise_label(boards):
    keys = boards_to_keys(boards[:4])
    out = np.arange(20, dtype=np.float32).reshape(4, 5) / 40
    a = Labels(keys, np.zeros(4, np.uint8), out, out, np.array([0.1, 0.2, 0.3, 0.4], np.float32))
    b = Labels(keys[[2, 0]], np.zeros(2, np.uint8), out[[0, 1]] + 0.5, out[[0, 1]],
               np.array([0.05, 0.5], np.float32))
    u = Labels.concatenate([a, b]).unique()
    assert len(u) == 4
    got = {bytes(k): (o[0], se) for k, o, se in zip(u.keys, u.outputs, u.equity_stderr)}
    assert got[bytes(keys[2])] == (pytest.approx(0.5), pytest.approx(0.05))   # b's, more precise
    assert got[bytes(keys[0])][1] == pytest.approx(0.1)                       # a's


def test_a_store_refuses_another_pool_of_the_same_name(tmp_path, small_net, boards):
    store = LabelStore(tmp_path / "s", LabelSettings(trials=2), "a" * 64)
    label_pool(store, _pool(tmp_path, boards[:4], "q.npz"), small_net)
    other = _pool(tmp_path, boards[4:9], "q.npz")          # resampled under the same name
    with pytest.raises(ValueError, match="another pool named q.npz"):
        label_pool(store, other, small_net)
    assert len(LabelStore(tmp_path / "s").load()) == 4      # the store is intact


def test_a_store_adopts_shards_its_manifest_lost(tmp_path, small_net, boards):
    pool = _pool(tmp_path, boards[:25])
    settings = LabelSettings(trials=4, shard_size=10)
    store = LabelStore(tmp_path / "s", settings, "e" * 64)
    label_pool(store, pool, small_net, max_shards=1)
    old_manifest = (tmp_path / "s" / "manifest.json").read_text()
    label_pool(store, pool, small_net)
    full = store.load()
    # a manifest restored from an older copy names one shard of three; a stray file and a
    # shard whose keys are not the pool's are on disk too
    (tmp_path / "s" / "manifest.json").write_text(old_manifest)
    (tmp_path / "s" / "pool-00009.npz").write_bytes(b"not a shard")
    wrong = tmp_path / "s" / "pool-00001.npz"
    good = wrong.read_bytes()
    with np.load(wrong) as f:
        arrays = {k: f[k] for k in f}
    arrays["keys"] = arrays["keys"][::-1].copy()
    np.savez_compressed(wrong, **arrays)
    store = LabelStore(tmp_path / "s")
    assert len(store) == 10
    assert store.adopt(pool) == 1                        # shard 2 taken, the others refused
    assert len(LabelStore(tmp_path / "s")) == 15
    wrong.write_bytes(good)
    run = label_pool(LabelStore(tmp_path / "s"), pool, small_net)   # adopts, labels nothing
    assert run.shards_done == 0 and run.shards_skipped == 3
    again = LabelStore(tmp_path / "s").load()
    assert np.array_equal(again.keys, full.keys) and np.array_equal(again.outputs, full.outputs)


def _labelled_by(teacher, boards):
    """``boards`` without repeats, and labels giving them ``teacher``'s outputs, noise-free."""
    keys = boards_to_keys(boards)
    keep = np.unique(keys, axis=0, return_index=True)[1]
    boards, keys = boards[keep], keys[keep]
    outputs = np.clip(teacher.evaluate(boards), 0, 1).astype(np.float32)
    return boards, Labels(keys, classify_positions(boards), outputs,
                          np.zeros((len(keys), 5), np.float32), np.zeros(len(keys), np.float32))


def test_the_old_widening_name_is_the_one_widening(boards):
    from bgengine.labelling.fit import widen_network
    net = Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=4)
    with pytest.warns(DeprecationWarning, match="growth.widen"):
        wide = widen_network(net, 20, seed=1)
    assert wide.hidden == (20,) and np.allclose(wide.evaluate(boards), net.evaluate(boards),
                                                atol=1e-6)


def test_spill_trains_an_expert_on_the_other_experts_positions(boards):
    from bgengine.core.evaluator import CLASSES
    from bgengine.matches.players import load_network_spec
    shipped = load_network_spec("net")
    keys = boards_to_keys(boards)
    keep = np.unique(keys, axis=0, return_index=True)[1]
    boards, keys = boards[keep], keys[keep]
    kind = classify_positions(boards)
    outputs = np.clip(shipped.evaluate(boards) + 0.05, 0, 1).astype(np.float32)
    labels = Labels(keys, kind, outputs, np.zeros((len(keys), 5), np.float32),
                    np.zeros(len(keys), np.float32))
    route = shipped.expert_of(boards)
    contact = shipped.classify(boards) == CLASSES.index("contact")
    expert = int(np.bincount(route[contact]).argmax())
    name = "contact" if expert == 0 else f"contact{expert}"
    own = int((contact & (route == expert)).sum())
    assert 10 < own < contact.sum()
    runs = {}
    for spill in (0.0, 0.5):
        _, (r,) = fit_evaluator(shipped, labels, FitConfig(epochs=1, seed=1, spill=spill),
                                only={name})
        runs[spill] = r
    assert runs[0.0].trained + runs[0.0].held == own
    assert runs[0.5].trained > runs[0.0].trained
    assert runs[0.5].held == runs[0.0].held  # the held-out figure counts its own positions only
    with pytest.raises(ValueError, match="spill"):
        FitConfig(spill=1.5)


def test_positions_around_are_the_positions_after_legal_plays(boards):
    from bgengine.labelling.fit import play_positions_around
    from bgengine.core.movegen import legal_afterstates
    around, origin = play_positions_around(boards, 3, seed=5)
    assert np.array_equal(around, play_positions_around(boards, 3, seed=5)[0])
    assert len(origin) == len(around) and np.all(np.diff(origin) >= 0)
    assert len(boards) < len(around) <= 3 * len(boards)
    validate_board(around[0])
    legal = set()
    for b in boards:               # every position is one a legal play of some roll reaches
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                legal.update(bytes(a[::-1].tobytes()) for a in legal_afterstates(b, d1, d2)[0])
    assert all(a.tobytes() in legal for a in around)


def test_keep_trains_on_the_positions_around_the_labels(boards):
    teacher = Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=1)
    student = Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=2)
    boards, labels = _labelled_by(teacher, boards)
    _, (plain,) = fit_evaluator(student, labels, FitConfig(epochs=1, seed=1))
    _, (kept,) = fit_evaluator(student, labels, FitConfig(epochs=1, seed=1, keep=0.5,
                                                           keep_plays=2))
    assert kept.trained > plain.trained and kept.held == plain.held
    with pytest.raises(ValueError, match="keep"):
        FitConfig(keep=-1)


def test_teach_fits_unlabelled_positions_to_the_starts_search(boards, tmp_path):
    """Teach positions no label holds join the fit once each (those labelled, and repeats,
    are left out), valued by the start's search; weight 0 leaves the fit as it was."""
    teacher = Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=1)
    student = Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=2)
    unique, labels = _labelled_by(teacher, boards)
    half = len(unique) // 2
    sub = Labels(labels.keys[:half], labels.classes[:half], labels.outputs[:half],
                 labels.outputs_stderr[:half], labels.equity_stderr[:half])
    teach = np.concatenate([unique, unique[-5:]])          # half labelled, five repeated
    config = dict(epochs=1, seed=1, teach_plies=0)
    fit_plain, (plain,) = fit_evaluator(student, sub, FitConfig(**config))
    fit_taught, (taught,) = fit_evaluator(student, sub, FitConfig(**config), teach_boards=teach,
                                          search_cache=tmp_path)
    assert taught.trained == plain.trained + (len(unique) - half) and taught.held == plain.held
    assert not np.array_equal(fit_plain.evaluate(unique), fit_taught.evaluate(unique))
    fit_none, _ = fit_evaluator(student, sub, FitConfig(**config, teach=0), teach_boards=teach)
    assert np.array_equal(fit_none.evaluate(unique), fit_plain.evaluate(unique))
    # the positions after two random plays from each labelled one, taught too
    from bgengine.labelling.fit import play_positions_around
    around, _ = play_positions_around(unique[:half], 2, seed=1)
    _, (both,) = fit_evaluator(student, sub, FitConfig(**config, teach_around=2),
                               teach_boards=teach)
    assert both.trained == taught.trained + len(around)
    with pytest.raises(ValueError, match="teach_plies"):
        FitConfig(teach_plies=3)
    with pytest.raises(ValueError, match="teach_around"):
        FitConfig(teach_around=-1)


def test_keep_differences_keeps_the_starts_ranking_of_plays(boards):
    from bgengine.labelling.fit import play_positions_around
    teacher = Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=1)
    student = Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=2)
    boards, labels = _labelled_by(teacher, boards)
    config = dict(epochs=20, lr=1e-2, seed=1, keep_plays=3, patience=20)
    around, origin = play_positions_around(boards, 3, seed=1, evaluator=student)
    for k in np.unique(origin):     # the student's best plays of the roll, best first
        eq = -student.equity(around[origin == k])
        assert len(eq) <= 3

    def differences(net):
        eq = net.equity(around)
        means = np.bincount(origin, eq) / np.maximum(np.bincount(origin), 1)
        return eq - means[origin]

    start = differences(student)
    plain, (r_plain,) = fit_evaluator(student, labels, FitConfig(**config))
    paired, (r_paired,) = fit_evaluator(student, labels, FitConfig(
        **config, keep=5.0, keep_form="differences"))
    assert r_paired.trained == r_plain.trained      # the plays are not labelled rows
    drift = lambda net: np.abs(differences(net) - start).mean()
    assert drift(paired) < 0.7 * drift(plain)
    with pytest.raises(ValueError, match="keep_form"):
        FitConfig(keep_form="ranks")


def test_keep_plies_fits_the_differences_of_the_starts_search(boards, tmp_path):
    from bgengine.labelling.fit import play_positions_around
    from bgengine.labelling.teacher import search_outputs
    teacher = Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=1)
    student = Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=2)
    boards, labels = _labelled_by(teacher, boards)
    config = dict(epochs=20, lr=1e-2, seed=1, keep_plays=3, patience=20, keep=5.0,
                  keep_form="differences")
    around, origin = play_positions_around(boards, 3, seed=1, evaluator=student)
    from bgengine.core.evaluator import as_evaluator
    from bgengine.core.network import equity_of
    searched = equity_of(search_outputs(as_evaluator(student), around, 1))

    static = student.equity(around)

    def drift(net, target):      # from the target's equity differences within each roll
        d = net.equity(around) - target
        means = np.bincount(origin, d) / np.maximum(np.bincount(origin), 1)
        return np.abs(d - means[origin]).mean()

    at0, _ = fit_evaluator(student, labels, FitConfig(**config))
    at1, _ = fit_evaluator(student, labels, FitConfig(**config, keep_plies=1),
                           n_threads=2, search_cache=tmp_path / "cache")
    assert drift(at1, searched) < drift(at0, searched)      # each keeps its own teacher's
    assert drift(at0, static) < drift(at1, static)
    assert any((tmp_path / "cache").iterdir())
    for bad in (3, -1, 1.0, True):
        with pytest.raises(ValueError, match="keep_plies"):
            FitConfig(keep_plies=bad)


def test_search_outputs_are_the_searchers_and_cached(boards, tmp_path, monkeypatch):
    import bgengine.labelling.teacher as teacher
    from bgengine.core.evaluator import as_evaluator
    from bgengine.core.search import Searcher
    net = as_evaluator(Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=5))
    boards = boards[:37]
    searcher = Searcher(net)
    expected = np.array([searcher.evaluate(b, 1) for b in boards])
    monkeypatch.setattr(teacher, "CHUNK", 8)
    seen = []
    got = teacher.search_outputs(net, boards, 1, n_threads=2, cache=tmp_path,
                                 progress=lambda done, total: seen.append((done, total)))
    assert np.array_equal(got, expected)
    assert seen[0] == (0, 37) and seen[-1] == (37, 37) and len(seen) == 6
    files = sorted(tmp_path.iterdir())
    assert len(files) == 5
    np.save(files[0], np.full((8, 5), np.nan, np.float32))     # a bad chunk is redone
    files[1].write_bytes(b"not an array")
    assert np.array_equal(teacher.search_outputs(net, boards, 1, cache=tmp_path), expected)
    # cached chunks are read, not searched: a searcher that fails proves it
    import bgengine.core.search

    class Failing:
        def __init__(self, *args, **kw):
            raise AssertionError("searched although cached")

    monkeypatch.setattr(bgengine.core.search, "Searcher", Failing)
    assert np.array_equal(teacher.search_outputs(net, boards, 1, cache=tmp_path), expected)
    other = as_evaluator(Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=6))
    assert teacher.evaluator_digest(other) != teacher.evaluator_digest(net)
    assert np.array_equal(teacher.search_outputs(net, boards, 0), net.evaluate(boards))
    with pytest.raises(ValueError, match="n_threads"):
        teacher.search_outputs(net, boards, 1, n_threads=0)


def test_teach_searches_only_the_positions_of_the_networks_fitted(boards, tmp_path):
    from bgengine.core.evaluator import CLASSES
    from bgengine.matches.players import load_network_spec
    shipped = load_network_spec("net")
    unique = boards[np.unique(boards_to_keys(boards), axis=0, return_index=True)[1]]
    kind = shipped.classify(unique)
    races = unique[kind == CLASSES.index("race")]
    contact = unique[kind == CLASSES.index("contact")]
    assert len(races) >= 10 and len(contact)
    _, labels = _labelled_by(shipped, races)
    config = FitConfig(epochs=1, seed=1, teach_plies=1)
    _, (alone,) = fit_evaluator(shipped, labels, config, only={"race"})
    _, (taught,) = fit_evaluator(shipped, labels, config, only={"race"}, teach_boards=contact,
                                 search_cache=tmp_path / "only")
    assert taught.trained == alone.trained and not (tmp_path / "only").exists()  # none searched
    # the contact experts have no labels, so none is fitted and their positions not searched
    fit_evaluator(shipped, labels, config, teach_boards=contact, search_cache=tmp_path / "all")
    assert not (tmp_path / "all").exists()
    _, contact_labels = _labelled_by(shipped, contact)
    fitted = fit_evaluator(shipped, contact_labels, config, teach_boards=races,
                           search_cache=tmp_path / "races")[1]
    assert "race" not in {r.name for r in fitted} and not (tmp_path / "races").exists()


def test_select_keeps_the_classes_asked_in_order_each_once(tmp_path, capsys, boards):
    a = _pool(tmp_path, boards, "a.npz")
    b = _pool(tmp_path, boards[::-1], "b.npz")          # the same positions again
    out = tmp_path / "sel.npz"
    assert main(["data", "select", str(out), "--pool", str(a.path), str(b.path),
                 "--classes", "race", "crashed", "--json"]) == 0
    got = load_pool(out)
    wanted = np.isin(a.classes, [POSITION_CLASSES.index("race"), POSITION_CLASSES.index("crashed")])
    assert wanted.any() and not wanted.all()
    assert np.array_equal(got.keys, a.keys[wanted])     # a's order, b's repeats left out
    assert np.array_equal(got.classes, a.classes[wanted])
    report = json.loads(capsys.readouterr().out)
    assert report["positions"] == int(wanted.sum())
    assert report["counts"]["contact"] == 0
    # an existing file is kept unless --force
    assert main(["data", "select", str(out), "--pool", str(a.path)]) == 2
    assert "exists" in capsys.readouterr().err
    assert main(["data", "select", str(out), "--pool", str(a.path), "--force"]) == 0
    assert len(load_pool(out)) == len(np.unique(a.keys, axis=0))


def test_unique_may_prefer_the_first_stores_label(boards):
    keys = boards_to_keys(boards[:3])
    out = np.full((3, 5), 0.5, np.float32)
    first = Labels(keys, np.zeros(3, np.uint8), out, out * 0, np.full(3, 0.02, np.float32))
    second = Labels(keys[:2], np.zeros(2, np.uint8), out[:2] * 0.5, out[:2] * 0,
                    np.full(2, 0.01, np.float32))         # more precise, listed second
    both = Labels.concatenate([first, second])
    assert np.allclose(both.unique("first").outputs, 0.5)
    precise = both.unique()
    assert len(precise) == 3 and np.isclose(precise.outputs, 0.25).sum() == 10
    with pytest.raises(ValueError, match="prefer"):
        both.unique("best")
