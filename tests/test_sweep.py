"""Parameter sweeps and the sources' comparison, scaled down to seconds."""

from __future__ import annotations

import json

import pytest

from bgengine.cli import main
from bgengine.training.sweep import SweepSpec, compare_methods, point_name, run_sweep, sweep_table

SWEEP = """
[sweep]
seeds = [1, 2]
eval_games = 20

[base]
games = 40
outputs = 1
checkpoint_every = 20
eval_every = 40
eval_games = 10
threads = 1

[grid]
hidden = [[4], [6]]
lam = [0.0, 0.7]
"""


def test_sweep_runs_every_point_and_seed(tmp_path):
    (tmp_path / "s.toml").write_text(SWEEP)
    spec = SweepSpec.from_toml(tmp_path / "s.toml")
    assert len(spec.points()) == 4 and len(spec.configs()) == 8
    doc = run_sweep(spec, tmp_path / "out", parallel=2)
    assert len(doc["points"]) == 4 and len(doc["runs"]) == 8
    for row in doc["points"]:
        assert row["seeds"] == 2 and len(row["ppg_runs"]) == 2 and row["ppg_ci95"] is not None
        assert (tmp_path / "out" / row["point"] / "seed_1" / "network.npz").exists()
    assert (tmp_path / "out" / "sweep.csv").read_text().count("\n") == 5
    # a second call reuses the finished runs and gives the same table
    again = run_sweep(spec, tmp_path / "out", parallel=1)
    assert again["points"] == doc["points"]
    assert "hidden=4_lam=0.0" in sweep_table(doc)


def test_sweep_file_errors(tmp_path):
    bad = tmp_path / "b.toml"
    for text, msg in [("[grid]\nwidth = [1]\n", "cannot vary 'width'"),
                      ("[grid]\nlam = 0.5\n", "non-empty list"),
                      ("[sweep]\nseeds = []\n", "seeds"),
                      ("[extra]\n", "unknown section"),
                      ("[grid]\nlam = [2.0]\n", "lam must be in"),
                      ("[base]\nseed = 3\n", "seeds under")]:
        bad.write_text(text)
        with pytest.raises(ValueError, match=msg):
            SweepSpec.from_toml(bad)
    with pytest.raises(ValueError, match="cannot read"):
        SweepSpec.from_toml(tmp_path / "missing.toml")
    assert point_name({"hidden": [40, 20], "lam": 0.7}) == "hidden=40-20_lam=0.7"


def test_cli_sweep(tmp_path, capsys):
    (tmp_path / "s.toml").write_text(SWEEP.replace("lam = [0.0, 0.7]", "lam = [0.7]"))
    assert main(["sweep", str(tmp_path / "s.toml"), "--out", str(tmp_path / "o"), "--parallel", "2"]) == 0
    out = capsys.readouterr().out
    assert "hidden=6_lam=0.7" in out and "sweep.json" in out


def test_compare_methods_small(tmp_path):
    s = compare_methods(tmp_path / "c", games=40, hidden=4, rr_games=20, eval_games=10, parallel=3)
    assert set(s["vs_pubeval"]) == {"td", "backprop", "mutation"}
    names = [p["name"] for p in s["matrix"]["players"]]
    assert names == ["td", "backprop", "mutation", "random", "simple3", "pubeval"]
    for m in ("td", "backprop", "mutation"):
        assert (tmp_path / "c" / m / "log.jsonl").exists()
    doc = json.loads((tmp_path / "c" / "compare.json").read_text())
    assert doc["vs_pubeval"]["td"]["published"] == 0.26
    assert (tmp_path / "c" / "learning_curves.png").exists()
    assert "pubeval" in s["table"]


def test_ctrl_c_stops_every_run_and_keeps_the_finished_ones(tmp_path, monkeypatch, capsys):
    import os
    import signal
    import time

    import bgengine.training.trainer as T

    calls = [0]
    real = T._train_chunk

    def chunk(*args, **kw):
        calls[0] += 1
        if calls[0] == 3:
            os.kill(os.getpid(), signal.SIGINT)    # as Ctrl-C would, while runs are training
            time.sleep(0.5)                        # the main thread's handler sets the stop event
        return real(*args, **kw)

    monkeypatch.setattr(T, "_train_chunk", chunk)
    (tmp_path / "s.toml").write_text(SWEEP)
    code = main(["sweep", str(tmp_path / "s.toml"), "--out", str(tmp_path / "o"), "--parallel", "1"])
    assert code == 130
    doc = json.loads((tmp_path / "o" / "sweep.json").read_text())
    assert not doc["complete"]
    assert sum(r["complete"] for r in doc["runs"]) == 1      # the first run had finished
    assert "interrupted" in capsys.readouterr().err
    # running again resumes and completes everything
    monkeypatch.setattr(T, "_train_chunk", real)
    assert main(["sweep", str(tmp_path / "s.toml"), "--out", str(tmp_path / "o"), "--parallel", "1"]) == 0
    assert json.loads((tmp_path / "o" / "sweep.json").read_text())["complete"]


def test_cli_compare(tmp_path, capsys):
    assert main(["compare", "--out", str(tmp_path / "c"), "--games", "40", "--hidden", "4",
                 "--rr-games", "20", "--eval-games", "10"]) == 0
    out = capsys.readouterr().out
    assert "published" in out and "mutation" in out and "Ranking" in out


GAME_SWEEP = """
[sweep]
seeds = [1, 2]
eval_games = 40

[base]
game = "tictactoe"
method = "q"
hidden = [8]
opponent = "smart"
games = 600
eval_every = 300
eval_games = 10
eval_opponents = ["random", "smart"]

[grid]
alpha = [0.1, 0.3]
epsilon = [0.1]
"""


def test_a_small_games_sweep_trains_game_runs_and_rates_each_opponent(tmp_path):
    from bgengine.games.learners import play
    from bgengine.games.network import GameNetwork

    (tmp_path / "g.toml").write_text(GAME_SWEEP)
    spec = SweepSpec.from_toml(tmp_path / "g.toml")
    assert spec.game == "tictactoe" and len(spec.configs()) == 4
    doc = run_sweep(spec, tmp_path / "out", parallel=2)
    assert doc["complete"] and doc["game"] == "tictactoe" and len(doc["points"]) == 2
    row = next(r for r in doc["points"] if r["point"] == "alpha=0.1_epsilon=0.1")
    assert row["seeds"] == 2 and set(row["opponents"]) == {"random", "smart"}
    # the rates are the final networks' greedy games, mean over the seeds
    nets = [GameNetwork.load(tmp_path / "out" / row["point"] / f"seed_{s}" / "network.npz")
            for s in (1, 2)]
    assert all(n.metadata["games"] == 600 for n in nets)
    wins = [play("tictactoe", n, "random", 40, seed=777).wins / 40 for n in nets]
    assert row["opponents"]["random"]["first"]["win"] == pytest.approx(sum(wins) / 2)
    losses = [play("tictactoe", "smart", n, 40, seed=777).wins / 40 for n in nets]
    assert row["opponents"]["smart"]["second"]["loss"] == pytest.approx(sum(losses) / 2)
    for run, ppg in zip(doc["runs"], [r for p in doc["points"] for r in p["ppg_runs"]]):
        assert -1 <= ppg <= 1
    text = sweep_table(doc)
    assert "win - loss" in text and "smart (W-D-L % 1st / 2nd)" in text
    assert "random_first_win" in (tmp_path / "out" / "sweep.csv").read_text()
    assert run_sweep(spec, tmp_path / "out", parallel=1)["points"] == doc["points"]


def test_a_small_games_sweep_checks_its_settings(tmp_path):
    bad = tmp_path / "b.toml"
    for text, msg in [('[base]\ngame = "tictactoe"\n[grid]\nlam = [0.1]\nencoder = ["x"]\n',
                       "cannot vary 'encoder'"),
                      ('[base]\ngame = "tictactoe"\n[grid]\ngamma = [1.5]\n', "gamma must be"),
                      ('[grid]\ngame = ["tictactoe"]\n', "one for the whole sweep")]:
        bad.write_text(text)
        with pytest.raises(ValueError, match=msg):
            SweepSpec.from_toml(bad)


def test_the_shipped_tictactoe_grid_parses():
    from pathlib import Path

    spec = SweepSpec.from_toml(Path(__file__).resolve().parent.parent / "configs" /
                               "sweep-tictactoe-q.toml")
    assert spec.game == "tictactoe" and len(spec.points()) == 3 * 4 * 3 * 4
    assert {cfg.games for _, _, cfg in spec.configs()} == {30000}     # equal in games


def test_cli_sweep_of_a_small_game(tmp_path, capsys):
    (tmp_path / "g.toml").write_text(GAME_SWEEP.replace("seeds = [1, 2]", "seeds = [1]")
                                     .replace("alpha = [0.1, 0.3]", "alpha = [0.3]"))
    assert main(["sweep", str(tmp_path / "g.toml"), "--out", str(tmp_path / "o"), "--quiet",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["game"] == "tictactoe" and doc["complete"]
    (row,) = doc["points"]
    assert row["point"] == "alpha=0.3_epsilon=0.1" and set(row["opponents"]) == {"random",
                                                                                   "smart"}
