"""Training runs: config TOML and validation, alpha schedules, run files,
exact resume, the plateau step-down, bad checkpoints, and the CLI."""

from __future__ import annotations

import dataclasses
import json
import shutil

import numpy as np
import pytest

from bgengine.cli import main
from bgengine.core.network import Network
from bgengine.training.trainer import STEP_LIST, TrainConfig, alpha_at, read_log, train

TIMING = {"games_per_s", "elapsed"}


def tiny(**kw) -> TrainConfig:
    base = dict(hidden=[10], outputs=1, lam=0.7, alpha=0.1, games=2000, seed=3,
                checkpoint_every=500, eval_every=1000, eval_games=100, threads=1)
    base.update(kw)
    return TrainConfig(**base)


def records(run, drop=TIMING):
    return [{k: v for k, v in r.items() if k not in drop} for r in read_log(run)]


def npz_params(path):
    with np.load(path, allow_pickle=False) as z:
        return z["params"].copy()


# ---------------------------------------------------------------- config

def test_defaults_are_the_sources():
    c = TrainConfig()
    assert c.checkpoint_every == 1000 and c.eval_every == 10_000 and c.eval_games == 1000
    assert c.alpha_steps == list(STEP_LIST) == [0.25, 0.1, 0.05, 0.025, 0.01, 0.005, 0.0025, 0.001]
    assert (c.plateau_every, c.plateau_games, c.plateau_gap, c.plateau_window) == (1000, 200, 25000, 25)
    assert c.init_range == 0.1


def test_toml_round_trip(tmp_path):
    c = tiny(encoder="tesauro198+extra", hidden=[12, 7], outputs=5, method="backprop", lam=0.0,
             alpha=1e-05, schedule="steps", alpha_steps=[0.3, 0.03, 3e-4], epsilon=0.05,
             init_range=0.25, eval_opponent="simple3", plateau_every=500, plateau_gap=1500,
             plateau_games=30, plateau_window=4, eval_seed=99)
    p = tmp_path / "c.toml"
    p.write_text(c.to_toml())
    back = TrainConfig.from_toml(p)
    assert back == c
    assert dataclasses.asdict(back) == dataclasses.asdict(c)
    # keys may sit under [train] or at the top level
    flat = tmp_path / "flat.toml"
    flat.write_text(c.to_toml().replace("[train]\n", ""))
    assert TrainConfig.from_toml(flat) == c
    assert TrainConfig.from_dict({"train": {"games": 5000}}).games == 5000
    assert TrainConfig.from_dict({"games": 5000}).games == 5000


def test_config_errors(tmp_path):
    with pytest.raises(ValueError, match="unknown training option.*learning_rate"):
        TrainConfig.from_dict({"learning_rate": 0.1})
    p = tmp_path / "bad.toml"
    p.write_text("[train]\ngames = \n")
    with pytest.raises(ValueError, match="bad.toml"):
        TrainConfig.from_toml(p)
    bad = [dict(encoder="gnubg"), dict(hidden=[]), dict(hidden=[0]), dict(outputs=3),
           dict(method="q"), dict(lam=1.5), dict(lam=-0.1), dict(schedule="cosine"),
           dict(alpha=0), dict(alpha=-1), dict(alpha=float("nan")),
           dict(schedule="steps", alpha_steps=[]), dict(schedule="steps", alpha_steps=[0.1, 0]),
           dict(games=0), dict(checkpoint_every=0), dict(eval_games=0), dict(epsilon=1.5),
           dict(eval_every=750), dict(schedule="steps", plateau_every=750),
           dict(schedule="steps", plateau_gap=1250),
           # wrong types, as a TOML file can hold them
           dict(alpha="0.1"), dict(games="many"), dict(games=2.5), dict(games=True),
           dict(hidden=80), dict(hidden=["a"]), dict(lam=None), dict(encoder=1),
           dict(seed=-1), dict(eval_opponent="gnubg")]
    for kw in bad:
        with pytest.raises(ValueError, match="bad training config"):
            tiny(**kw)
    # several problems are reported together
    with pytest.raises(ValueError, match="lam.*alpha"):
        tiny(lam=3, alpha=0)
    p.write_text('[train]\nalpha = "fast"\n')
    with pytest.raises(ValueError, match="alpha"):
        TrainConfig.from_toml(p)


def test_alpha_schedules():
    c = tiny(alpha=0.05, games=1000)
    assert alpha_at(c, 0) == alpha_at(c, 999) == 0.05
    lin = tiny(alpha=0.05, games=1000, schedule="linear")
    assert alpha_at(lin, 0) == pytest.approx(0.05)
    assert alpha_at(lin, 500) == pytest.approx(0.025)
    assert alpha_at(lin, 900) == pytest.approx(0.005)
    assert alpha_at(lin, 1000) == 0
    to = TrainConfig(alpha=0.1, alpha_end=0.02, schedule="linear", games=1000)
    assert alpha_at(to, 0) == pytest.approx(0.1)
    assert alpha_at(to, 500) == pytest.approx(0.06)
    assert alpha_at(to, 1000) == alpha_at(to, 2000) == pytest.approx(0.02)
    steps = tiny(schedule="steps", alpha_steps=[0.3, 0.2, 0.1])
    assert [alpha_at(steps, 0, i) for i in range(5)] == [0.3, 0.2, 0.1, 0.1, 0.1]
    assert alpha_at(steps, 123456, 1) == 0.2


# ---------------------------------------------------------------- runs

@pytest.fixture(scope="module")
def full_run(tmp_path_factory):
    run = tmp_path_factory.mktemp("full")
    net = train(tiny(), run, progress=False)
    return run, net


def test_run_files(full_run):
    run, net = full_run
    names = {p.name for p in run.iterdir()}
    assert {"config.toml", "checkpoint.npz", "network.npz", "best.npz", "log.jsonl"} <= names
    assert not [n for n in names if n.endswith(".tmp")]
    assert TrainConfig.from_toml(run / "config.toml") == tiny()
    log = list(read_log(run))
    train_recs = [r for r in log if r["kind"] == "train"]
    evals = [r for r in log if r["kind"] == "eval"]
    assert [r["games"] for r in train_recs] == [500, 1000, 1500, 2000]
    assert [r["games"] for r in evals] == [1000, 2000]
    for r in evals:
        assert r["eval_games"] == 100 and r["b"] == "pubeval" and -3 <= r["ppg"] <= 3
        assert r["ci95"] > 0 and 0 <= r["win"] <= 1
    for r in train_recs:
        assert r["alpha"] == 0.1 and r["mean_moves"] > 10 and 0 <= r["mean_error"] <= 1
    latest = Network.load(run / "network.npz")
    np.testing.assert_array_equal(latest.params, net.params)
    assert latest.metadata["training"]["games"] == 2000
    assert latest.metadata["training"]["config"]["seed"] == 3
    best = Network.load(run / "best.npz")
    assert best.sizes == (198, 10, 1)
    ppg = best.metadata["training"]["ppg_vs_pubeval"]
    assert ppg == max(r["ppg"] for r in evals)
    np.testing.assert_array_equal(npz_params(run / "checkpoint.npz"), net.params)


def test_exact_resume(full_run, tmp_path):
    run, net = full_run
    other = tmp_path / "split"
    half = train(tiny(), other, progress=False, stop_after=1000)
    assert [r["games"] for r in read_log(other) if r["kind"] == "train"] == [500, 1000]
    assert not np.array_equal(half.params, net.params)
    # a crash after the checkpoint: records beyond it and a torn last line
    with open(other / "log.jsonl", "a") as f:
        f.write(json.dumps({"kind": "train", "games": 1500, "alpha": 9}) + "\n")
        f.write('{"kind": "eval", "gam')
    again = train(tiny(), other, progress=False)
    np.testing.assert_array_equal(again.params, net.params)
    for name in ("network.npz", "best.npz", "checkpoint.npz"):
        np.testing.assert_array_equal(npz_params(other / name), npz_params(run / name))
    assert records(other) == records(run)
    # resuming a finished run does nothing
    done = train(tiny(), other, progress=False)
    np.testing.assert_array_equal(done.params, net.params)
    assert records(other) == records(run)


def test_resume_with_another_config_refuses(full_run, tmp_path):
    run, _ = full_run
    copy = tmp_path / "copy"
    shutil.copytree(run, copy)
    with pytest.raises(ValueError, match="different config.*seed"):
        train(tiny(seed=4), copy, progress=False)
    with pytest.raises(ValueError, match="lam"):
        train(tiny(lam=0.5), copy, progress=False)
    # restart explicitly: the old log is dropped
    train(tiny(seed=4, games=500), copy, resume=False, progress=False)
    assert [r["games"] for r in read_log(copy)] == [500, 500]      # a train and an eval record
    assert TrainConfig.from_toml(copy / "config.toml").seed == 4


def _steps_config(**kw):
    base = dict(lam=0.0, games=3000, checkpoint_every=250, schedule="steps",
                alpha_steps=[0.4, 0.1, 0.02], plateau_every=250, plateau_gap=250,
                plateau_games=20, plateau_window=1, eval_every=3000, eval_games=20)
    return tiny(**(base | kw))


def test_steps_schedule_steps_down(tmp_path):
    cfg = _steps_config()
    train(cfg, tmp_path / "s", progress=False)
    log = list(read_log(tmp_path / "s"))
    plateaus = [r for r in log if r["kind"] == "plateau"]
    trains = [r for r in log if r["kind"] == "train"]
    assert [r["games"] for r in plateaus] == list(range(500, 3001, 250))
    assert trains[0]["alpha"] == 0.4
    index = 0
    for p in plateaus:
        assert p["window_sum"] == pytest.approx(p["vs_older_ppg"])       # window of 1
        want = p["window_sum"] < 0 and index < 2
        assert p["stepped_down"] == want, p
        index += want
        assert p["alpha_next"] == cfg.alpha_steps[index]
        nxt = [t for t in trains if t["games"] == p["games"] + 250]
        if nxt:
            assert nxt[0]["alpha"] == p["alpha_next"]
    assert any(p["stepped_down"] for p in plateaus)
    alphas = [t["alpha"] for t in trains]
    assert alphas == sorted(alphas, reverse=True) and alphas[-1] < 0.4


def test_steps_schedule_resumes_exactly(tmp_path):
    cfg = _steps_config(games=1500, eval_every=1500)
    a = train(cfg, tmp_path / "a", progress=False)
    train(cfg, tmp_path / "b", progress=False, stop_after=750)
    b = train(cfg, tmp_path / "b", progress=False)
    np.testing.assert_array_equal(a.params, b.params)
    assert records(tmp_path / "a") == records(tmp_path / "b")


def _checkpoint_variants(src):
    with np.load(src, allow_pickle=False) as z:
        arrays = {k: z[k].copy() for k in z.files}
    state = json.loads(str(arrays["state"]))
    raw = src.read_bytes()
    out = {"garbage": b"this is not a checkpoint", "empty": b"", "truncated": raw[: len(raw) // 2]}

    def variant(**changes):
        a = dict(arrays)
        a.update(changes)
        return a

    s = dict(state)
    del s["games"]
    out["missing key"] = variant(state=np.array(json.dumps(s)))
    out["state not an object"] = variant(state=np.array("[1, 2]"))
    out["state not JSON"] = variant(state=np.array("{"))
    out["no params"] = {k: v for k, v in arrays.items() if k != "params"}
    out["short params"] = variant(params=arrays["params"][:-1])
    nan = arrays["params"].copy()
    nan[3] = np.nan
    out["NaN params"] = variant(params=nan)
    return out


def test_bad_checkpoints_are_clear_value_errors(full_run, tmp_path):
    run, _ = full_run
    for what, content in _checkpoint_variants(run / "checkpoint.npz").items():
        d = tmp_path / what.replace(" ", "_")
        shutil.copytree(run, d)
        cp = d / "checkpoint.npz"
        if isinstance(content, bytes):
            cp.write_bytes(content)
        else:
            cp.unlink()
            with open(cp, "wb") as f:
                np.savez(f, **content)
        with pytest.raises(ValueError, match="checkpoint.npz") as info:
            train(tiny(), d, progress=False)
        assert what and str(d) in str(info.value)


# ---------------------------------------------------------------- command line

def test_cli_match_json(capsys):
    assert main(["match", "random", "pubeval", "--games", "200", "--json", "--threads", "1",
                 "--seed", "4"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 200 and out["a"] == "random" and out["b"] == "pubeval"
    assert out["ppg"] < -1.5 and out["ci95"] > 0
    assert main(["match", "random", "pubeval", "--games", "200", "--threads", "1"]) == 0
    assert "ppg" in capsys.readouterr().out
    assert main(["match", "nobody", "pubeval", "--games", "10"]) == 2
    assert "unknown player" in capsys.readouterr().err


def test_cli_train_and_plot(tmp_path, capsys):
    cfg = tiny(games=1000, lam=0.0)
    toml = tmp_path / "c.toml"
    toml.write_text(cfg.to_toml())
    run = tmp_path / "run"
    assert main(["train", str(run), "--config", str(toml), "--quiet"]) == 0
    assert "network.npz" in capsys.readouterr().out
    assert [r["games"] for r in read_log(run) if r["kind"] == "eval"] == [1000]
    Network.load(run / "network.npz")
    # an override makes a different run: refused in the same directory
    assert main(["train", str(run), "--config", str(toml), "--quiet", "--seed", "8"]) == 2
    assert "different config" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text("[train]\nalpah = 0.1\n")
    assert main(["train", str(tmp_path / "r2"), "--config", str(bad), "--quiet"]) == 2
    assert "alpah" in capsys.readouterr().err
    pytest.importorskip("matplotlib")
    png = tmp_path / "curve.png"
    assert main(["plot", str(run), "-o", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["plot", str(tmp_path / "r2")]) == 2           # no evaluations there


def test_snapshots_for_tournaments(tmp_path):
    train(tiny(games=1500, snapshot_every=1000), tmp_path / "r", progress=False)
    snaps = sorted(p.name for p in (tmp_path / "r" / "checkpoints").iterdir())
    assert snaps == ["games_000001000.npz"]
    assert Network.load(tmp_path / "r" / "checkpoints" / snaps[0]).metadata["training"]["games"] == 1000
    with pytest.raises(ValueError, match="snapshot_every"):
        tiny(snapshot_every=-1)
