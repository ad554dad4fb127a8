"""Training runs against damaged directories and bad configs (the hardening issue).

Every case either gives a clear one-line error naming the file and the problem, with the
run directory left byte for byte as it was, or the correct result.  The command line
never shows a traceback.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bgengine.cli import main
from bgengine.training.trainer import TrainConfig, read_log, train

TIMING = {"games_per_s", "elapsed"}


def tiny(**kw) -> TrainConfig:
    base = dict(hidden=[10], outputs=1, lam=0.7, alpha=0.1, games=1000, seed=3,
                checkpoint_every=250, eval_every=500, eval_games=40, threads=1)
    return TrainConfig(**(base | kw))


def records(run) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in TIMING} for r in read_log(run)]


def snapshot(run: Path) -> dict[str, bytes]:
    """Every file under ``run`` with its bytes."""
    return {str(p.relative_to(run)): p.read_bytes() for p in sorted(run.rglob("*")) if p.is_file()}


def params(path) -> np.ndarray:
    with np.load(path, allow_pickle=False) as z:
        return z["params"].copy()


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A finished run and the same run stopped half way (at its checkpoint of game 500)."""
    root = tmp_path_factory.mktemp("runs")
    train(tiny(), root / "full", progress=False)
    train(tiny(), root / "half", progress=False, stop_after=500)
    return root / "full", root / "half"


@pytest.fixture
def half(runs, tmp_path) -> Path:
    copy = tmp_path / "half"
    shutil.copytree(runs[1], copy)
    return copy


def assert_refused(run: Path, config: TrainConfig, match: str, **kw) -> None:
    before = snapshot(run)
    with pytest.raises(ValueError, match=match):
        train(config, run, progress=False, **kw)
    assert snapshot(run) == before, "a failing command changed the run's files"


# ---------------------------------------------------------------- the checkpoint

def test_run_without_its_checkpoint_is_refused(half, runs):
    (half / "checkpoint.npz").unlink()
    assert_refused(half, tiny(), r"holds log.jsonl, network.npz, best.npz but no checkpoint.npz"
                                 r".*--restart")
    # starting over on purpose is allowed, and gives the run from game 0
    net = train(tiny(), half, resume=False, progress=False)
    np.testing.assert_array_equal(net.params, params(runs[0] / "checkpoint.npz"))
    assert records(half) == records(runs[0])


def test_killed_before_the_first_checkpoint_starts_again(runs, tmp_path):
    # a kill between the first chunk's log record and its checkpoint: nothing past the
    # first chunk is lost, so the start from game 0 goes ahead and writes the same files
    run = tmp_path / "r"
    train(tiny(), run, progress=False, stop_after=250)
    (run / "checkpoint.npz").unlink()
    net = train(tiny(), run, progress=False)
    np.testing.assert_array_equal(net.params, params(runs[0] / "checkpoint.npz"))
    assert records(run) == records(runs[0])


def _with_state(run: Path, **changes) -> None:
    with np.load(run / "checkpoint.npz", allow_pickle=False) as z:
        arrays = {k: z[k].copy() for k in z.files}
    state = json.loads(str(arrays["state"]))
    state.update(changes)
    arrays["state"] = np.array(json.dumps(state))
    with open(run / "checkpoint.npz", "wb") as f:
        np.savez(f, **arrays)


@pytest.mark.parametrize("changes, match", [
    (dict(games=-500), "at game -500, outside the run's 0..1000"),
    (dict(games=10**12), "at game 1000000000000, outside"),
    (dict(games=250.5), "at game 250.5"),
    (dict(games=True), "at game True"),
    (dict(games="500"), "at game '500'"),
    (dict(step_index=99), "step_index 99"),
    (dict(step_index=-1), "step_index -1"),
    (dict(plateau_results=[1e308]), "plateau_results"),
    (dict(plateau_results="x"), "plateau_results"),
    (dict(best_ppg=7.5), "best_ppg 7.5"),
    (dict(elapsed=-1), "elapsed -1"),
    (dict(snapshot_games="x"), "snapshot_games"),
    (dict(snapshot_games=[250]), "snapshot_250"),
])
def test_checkpoint_state_is_checked_before_any_write(half, changes, match):
    _with_state(half, **changes)
    assert_refused(half, tiny(), "checkpoint.npz: .*" + match)


def test_checkpoint_weights_of_another_type_are_refused(half):
    with np.load(half / "checkpoint.npz", allow_pickle=False) as z:
        arrays = {k: z[k].copy() for k in z.files}
    arrays["params"] = np.array(["x"] * arrays["params"].size)
    np.savez(half / "checkpoint.npz", **arrays)
    assert_refused(half, tiny(), "checkpoint.npz: the checkpoint's weights .* not finite numbers")


def test_checkpoint_zip_bomb_is_refused_before_inflating(half):
    import zipfile

    with zipfile.ZipFile(half / "checkpoint.npz", "w", zipfile.ZIP_DEFLATED) as zf:
        with zf.open("params.npy", "w", force_zip64=True) as f:
            chunk = bytes(1 << 20)
            for _ in range(80):                     # 80 MB of zeros: a few kB on disk
                f.write(chunk)
    assert_refused(half, tiny(), "checkpoint.npz: unreadable checkpoint .*inflates")


# ---------------------------------------------------------------- the log

def test_unreadable_log_lines_do_not_block_resume(half, runs, caplog):
    good = (half / "log.jsonl").read_bytes()
    bad = [b"\xff\xfe\x00 not text\n", b"[1, 2]\n", b'{"kind": "train", "games": "x"}\n']
    (half / "log.jsonl").write_bytes(good + b"".join(bad) + b'{"kind": "ev')
    with caplog.at_level("WARNING", logger="bgengine.training.run_dir"):
        assert len(list(read_log(half))) == len(good.splitlines())
    assert "log.jsonl: 3 unreadable line(s) skipped" in caplog.text
    net = train(tiny(), half, progress=False)
    np.testing.assert_array_equal(net.params, params(runs[0] / "checkpoint.npz"))
    assert records(half) == records(runs[0])
    assert (half / "log.jsonl.unreadable").read_bytes() == b"".join(bad)     # kept aside


def test_unreadable_log_file_is_named(half):
    (half / "log.jsonl").unlink()
    (half / "log.jsonl").mkdir()
    assert_refused(half, tiny(), r"log.jsonl: not a regular file \(a folder\)")


# ---------------------------------------------------------------- config.toml

def test_damaged_run_config_is_named_not_a_different_config(half):
    (half / "config.toml").write_text("")
    assert_refused(half, tiny(), r"half/config.toml: no training settings \(an empty file\).*"
                                 r"the config of the run")
    (half / "config.toml").write_bytes(b"\xff\x00")
    assert_refused(half, tiny(), "config.toml: not valid TOML")
    (half / "config.toml").unlink()
    assert_refused(half, tiny(), "no config.toml to check the config against")


def test_config_written_atomically_once_and_stale_tmp_removed(half):
    cfg = half / "config.toml"
    inode, mtime = cfg.stat().st_ino, cfg.stat().st_mtime_ns
    stale = [half / "checkpoint.npz.k2j3h4.tmp", half / "config.toml.x.tmp",
             half / "log.jsonl.abc.tmp"]
    for p in stale:
        p.write_bytes(b"half written")
    mine = half / "notes.tmp"            # not one of the run's: left alone
    mine.write_text("mine")
    train(tiny(), half, progress=False, stop_after=750)
    assert (cfg.stat().st_ino, cfg.stat().st_mtime_ns) == (inode, mtime)   # not rewritten
    assert not any(p.exists() for p in stale) and mine.read_text() == "mine"
    assert not list(half.glob("*.*.tmp"))


def test_failed_start_leaves_nothing_and_does_not_lock(tmp_path):
    run = tmp_path / "new"
    with pytest.raises(ValueError, match="hidden widths"):
        train(tiny(hidden=[100000]), run, progress=False)
    assert not run.exists()
    # a directory holding only a config (an older failed start) locks nothing either
    run.mkdir()
    (run / "config.toml").write_text(tiny(hidden=[100000]).to_toml())
    (run / "log.jsonl").write_text("")
    train(tiny(games=250), run, progress=False)
    assert TrainConfig.from_toml(run / "config.toml") == tiny(games=250)
    with pytest.raises(ValueError, match="init_from"):
        train(tiny(init_from=str(tmp_path / "nope.npz")), tmp_path / "x", progress=False)
    assert not (tmp_path / "x").exists()


def test_second_trainer_in_the_same_directory_is_refused(half):
    fcntl = pytest.importorskip("fcntl")
    fd = os.open(half, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert_refused(half, tiny(), "in use by another training process")
    finally:
        os.close(fd)
    train(tiny(), half, progress=False, stop_after=750)


# ---------------------------------------------------------------- configs

BAD_CONFIGS = {
    "nan": ("[train]\ninit_range = nan\n", "init_range must be a finite number"),
    "inf": ("[train]\nalpha = inf\n", "alpha must be a finite number"),
    "huge alpha": ("[train]\nalpha = 1e30\n", "alpha must be at most 10"),
    "huge init": ("[train]\ninit_range = 1e39\n", "init_range must be at most 10"),
    "negative init": ("[train]\ninit_range = -1.0\n", "init_range must be >= 0"),
    "fractional width": ("[train]\nhidden = [80.5]\n", "hidden must be a list of whole numbers"),
    "width as text": ('[train]\nhidden = ["80"]\n', "hidden must be a list of whole numbers"),
    "nan step": ("[train]\nalpha_steps = [0.1, nan]\n", "alpha_steps must be finite"),
    "unknown table": ("[train]\ngames = 10\n[other]\nx = 1\n", "unknown table.*other"),
    "unknown table, flat": ("games = 10\n[other]\nx = 1\n", "unknown training option.*other"),
    "unknown key": ("[train]\ngames = 10\nalpah = 0.1\n", "unknown training option.*alpah"),
    "empty": ("", r"no training settings \(an empty file\)"),
    "empty table": ("[train]\n", r"no training settings"),
    "huge games": ("[train]\ngames = 99999999999999999999\n", "games must be at most"),
    "huge eval": ("[train]\neval_games = 10000000000\n", "eval_games must be at most"),
    "negative eval seed": ("[train]\neval_seed = -1\n", "eval_seed"),
    "too wide": ("[train]\nhidden = [100000]\ngames = 10\n", "hidden widths must be in 1..1024"),
    "not utf-8": (b"[train]\ngames = \xff\n", "not valid TOML"),
    "not toml": ("[train\n", "not valid TOML"),
}


@pytest.mark.parametrize("name", BAD_CONFIGS)
def test_bad_configs_are_one_line_errors(name, tmp_path, capsys):
    text, match = BAD_CONFIGS[name]
    path = tmp_path / "c.toml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    run = tmp_path / "run"
    assert main(["train", str(run), "--config", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bgengine: error: "), err
    assert __import__("re").search(match, err[0]), err[0]
    assert not run.exists()


def test_missing_or_odd_config_paths(tmp_path, capsys):
    for path, match in ((tmp_path / "nope.toml", "nope.toml: cannot read the training config"),
                        (tmp_path, "not a regular file (a folder)")):
        assert main(["train", str(tmp_path / "r"), "--config", str(path), "--quiet"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and match in err[0], err


def test_command_line_shows_no_traceback(tmp_path):
    """The real command, as a user runs it: one line on stderr, exit status 2."""
    (tmp_path / "c.toml").write_text("[train]\nalpha = nan\n")
    for args in (["--config", str(tmp_path / "nope.toml")], ["--config", str(tmp_path / "c.toml")]):
        p = subprocess.run([sys.executable, "-m", "bgengine", "train", str(tmp_path / "r"),
                            *args, "--quiet"], capture_output=True, text=True, timeout=120)
        assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
        assert len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_config_limits_are_inclusive_and_round_trip(tmp_path):
    c = tiny(alpha=10.0, init_range=0.0, games=10**12, checkpoint_every=10**6,
             eval_every=10**6, seed=2**62)
    p = tmp_path / "c.toml"
    p.write_text(c.to_toml())
    assert TrainConfig.from_toml(p) == c


# ---------------------------------------------------------------- bounded fuzz

VALUES = ["nan", "inf", "-inf", "1e30", "-1", "0", "1", "80.5", '"x"', "[]", "[1e9]", "[0.5]",
          "true", "99999999999999999999", '"tesauro198"', "{}", "[[1]]", '""', "-0.0", "3"]


def test_fuzzed_configs_are_value_errors_or_valid(tmp_path):
    rng = np.random.default_rng(21)
    lines = tiny().to_toml().splitlines()
    path = tmp_path / "c.toml"
    outcomes = {"ok": 0, "error": 0}
    for _ in range(400):
        mutated = list(lines)
        for _ in range(rng.integers(1, 4)):
            i = int(rng.integers(len(mutated)))
            kind = rng.integers(5)
            if kind == 0 and "=" in mutated[i]:         # another value
                mutated[i] = mutated[i].split("=")[0] + "= " + VALUES[rng.integers(len(VALUES))]
            elif kind == 1:                             # a line dropped or doubled
                mutated[i:i + 1] = [] if rng.random() < 0.5 else [mutated[i]] * 2
            elif kind == 2:                             # a stray table or key
                mutated.insert(i, rng.choice(["[extra]", "junk = 1", "[train.sub]", "[train]"]))
        data = "\n".join(mutated).encode() + b"\n"
        if rng.random() < 0.2:                          # bytes cut off or garbled
            cut = int(rng.integers(len(data)))
            data = data[:cut] + (rng.bytes(3) if rng.random() < 0.5 else b"")
        path.write_bytes(data)
        try:
            c = TrainConfig.from_toml(path)
        except ValueError:
            outcomes["error"] += 1
            continue
        c.validate()
        path.write_text(c.to_toml())
        assert TrainConfig.from_toml(path) == c         # a valid config round-trips
        outcomes["ok"] += 1
    assert outcomes["ok"] > 20 and outcomes["error"] > 200, outcomes


def test_fuzzed_checkpoint_states_are_value_errors_or_resume(runs, tmp_path):
    rng = np.random.default_rng(5)
    pool = [-1, 0, 1, 250, 500, 1000, 1001, 10**30, 0.5, float("nan"), "x", None, [], [1.0],
            {}, True, -1e308, [250, 500]]
    keys = ["games", "step_index", "plateau_results", "best_ppg", "elapsed", "snapshot_games"]
    for k in range(30):
        run = tmp_path / f"r{k}"
        shutil.copytree(runs[1], run)
        _with_state(run, **{keys[k % len(keys)]: pool[int(rng.integers(len(pool)))]})
        before = snapshot(run)
        try:
            train(tiny(), run, progress=False, stop_after=500)
        except ValueError as exc:
            assert "checkpoint.npz" in str(exc)
            assert snapshot(run) == before
