"""bgengine.training.run_dir: the run directory's layout, log and checkpoint formats, as training
writes them and the tournament, plot and tools read them."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from bgengine.training.run_dir import RunDir, read_checkpoint, read_log, write_checkpoint
from bgengine.training.trainer import TrainConfig, train


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A finished tiny run with snapshots kept in checkpoint.npz and checkpoints/."""
    path = tmp_path_factory.mktemp("runs") / "r"
    cfg = TrainConfig(hidden=[6], outputs=1, games=400, seed=2, checkpoint_every=100,
                      eval_every=200, eval_games=10, snapshot_every=200, threads=1)
    train(cfg, path, progress=False)
    return path


def test_training_writes_the_layout_runs_describes(run):
    rd = RunDir(run)
    assert rd.path == run and rd.is_run()
    for p in (rd.config, rd.checkpoint, rd.network, rd.best, rd.log):
        assert p.is_file() and p.parent == run
    assert rd.snapshot_files() == [(200, rd.snapshot(200)), (400, rd.snapshot(400))]
    assert rd.snapshot(200).name == "games_000000200.npz"
    assert rd.progress_files() == ["checkpoint.npz", "network.npz", "best.npz", "log.jsonl",
                                   "checkpoints/"]
    assert TrainConfig.from_toml(rd.config).games == 400
    assert [r["games"] for r in read_log(run) if r["kind"] == "train"] == [100, 200, 300, 400]


def test_snapshot_files_are_ordered_by_games_and_others_ignored(tmp_path):
    rd = RunDir(tmp_path)
    assert rd.snapshot_files() == [] and not rd.is_run() and rd.progress_files() == []
    rd.snapshots.mkdir()
    for name in ("games_000001000.npz", "games_20.npz", "games_x.npz", "notes.npz"):
        (rd.snapshots / name).write_bytes(b"")
    assert [g for g, _ in rd.snapshot_files()] == [20, 1000]


def test_checkpoint_round_trip(tmp_path):
    w = {"params": np.arange(5, dtype=np.float32)}
    snaps = {300: np.ones(5, np.float32), 100: np.zeros(5, np.float32)}
    write_checkpoint(tmp_path, w, {"games": 400, "note": "x"}, snaps)
    state, weights, got = read_checkpoint(tmp_path, ["params"])
    assert state == {"games": 400, "note": "x", "snapshot_games": [100, 300]}
    np.testing.assert_array_equal(weights["params"], w["params"])
    assert sorted(got) == [100, 300]
    np.testing.assert_array_equal(got[300], snaps[300])
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_reading_a_damaged_checkpoint_is_a_value_error(tmp_path):
    rd = RunDir(tmp_path)
    rd.checkpoint.write_bytes(b"not a zip file")
    with pytest.raises(ValueError, match="unreadable checkpoint"):
        read_checkpoint(tmp_path)
    np.savez(rd.checkpoint, state=np.array(json.dumps({"snapshot_games": [5]})))
    with pytest.raises(ValueError, match="unreadable checkpoint .*snapshot_5"):
        read_checkpoint(tmp_path)


def test_log_plan_keeps_records_up_to_the_checkpoint_and_sets_bad_lines_aside(tmp_path):
    rd = RunDir(tmp_path)
    rd.log.write_bytes(b'{"games": 100}\n\xff bad\n{"games": 200}\n{"games": 300}\n{"gam')
    plan = rd.log_plan(200)
    assert plan == (b'{"games": 100}\n{"games": 200}\n', [b"\xff bad\n"])
    rd.truncate_log(plan)
    assert rd.log.read_bytes() == plan[0]
    assert rd.unreadable_log.read_bytes() == b"\xff bad\n"


def test_the_lock_refuses_a_second_holder(tmp_path):
    rd = RunDir(tmp_path)
    fd = rd.lock()
    if fd is None:
        pytest.skip("no directory locks on this platform")
    try:
        with pytest.raises(ValueError, match="in use by another training process"):
            rd.lock()
    finally:
        rd.unlock(fd)
    rd.unlock(rd.lock())            # free again
