"""The small games' training runs (bgengine.games.study) and `bgengine train` on them."""

from __future__ import annotations

import json

import pytest

from bgengine.cli import main
from bgengine.games.network import GameNetwork
from bgengine.games.study import GameRunConfig, alpha_at, train_game_run
from bgengine.training.run_dir import read_log

CONFIG = """game = "tictactoe"
method = "q"
hidden = [8]
alpha = 0.2
alpha_end = 0.1
games = 900
eval_every = 300
eval_games = 50
eval_opponents = ["random", "smart"]
seed = 3
"""


def test_a_run_logs_every_evaluation_and_resumes_exactly(tmp_path):
    config = GameRunConfig(**{**GameRunConfig().__dict__, "hidden": [8], "games": 600,
                              "eval_every": 300, "eval_games": 50, "seed": 3})
    whole = train_game_run(config, tmp_path / "a")
    records = list(read_log(tmp_path / "a"))
    evals = [r for r in records if r["kind"] == "game_eval"]
    assert [r["games"] for r in records if r["kind"] == "eval"] == [300, 600]
    assert len(evals) == 2 * 4 * 2          # points x opponents x seats
    assert all(abs(r["win"] + r["draw"] + r["loss"] - 1) < 1e-9 for r in evals)
    # the same run in two parts: the same weights
    half = GameRunConfig(**{**config.__dict__, "games": 300})
    train_game_run(half, tmp_path / "b")
    resumed = train_game_run(config, tmp_path / "b")
    assert (resumed.params == whole.params).all()
    assert GameNetwork.load(tmp_path / "b" / "network.npz").metadata["games"] == 600
    with pytest.raises(ValueError, match="differs"):
        train_game_run(GameRunConfig(**{**config.__dict__, "alpha": 0.3}), tmp_path / "b")


def test_bgengine_train_runs_a_small_games_config(tmp_path, capsys):
    cfg = tmp_path / "ttt.toml"
    cfg.write_text(CONFIG)
    assert main(["train", str(tmp_path / "run"), "--config", str(cfg), "--quiet", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "tictactoe" and out["games"] == 900
    assert main(["plot", str(tmp_path / "run"), "-o", str(tmp_path / "curve.png")]) == 0
    assert (tmp_path / "curve.png").stat().st_size > 0


def test_bad_configs(tmp_path):
    with pytest.raises(ValueError, match="method"):
        GameRunConfig(method="sarsa")
    with pytest.raises(ValueError, match="opponent"):
        GameRunConfig(opponent="gnubg")
    cfg = tmp_path / "x.toml"
    cfg.write_text(CONFIG + "colour = 3\n")
    with pytest.raises(ValueError, match="unknown"):
        GameRunConfig.from_toml(cfg)
    assert alpha_at(GameRunConfig(alpha=0.3, alpha_end=0.1, games=100), 50) == pytest.approx(0.2)


def test_the_shipped_small_game_configs_parse():
    from pathlib import Path
    configs = sorted((Path(__file__).resolve().parent.parent / "configs").glob("tictactoe*.toml"))
    assert configs
    for path in configs:
        assert GameRunConfig.from_toml(path).game == "tictactoe"
