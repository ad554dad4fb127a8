"""Connect Four in the small games' compiled learners (bgengine.smalllearners): its table
(bgengine.connect4_players.GAME), TD(0) reproducible and learning in seconds, and
`bgengine train` on the shipped config."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bgengine.cli import main
from bgengine.connect4 import Board
from bgengine.games import GAMES, connect4, game_module
from bgengine.games import learners
from bgengine.games.network import GameNetwork
from bgengine.games.study import GameRunConfig
from bgengine.runs import read_log

CONFIG = Path(__file__).resolve().parent.parent / "configs" / "connect4-td.toml"


def test_connect4_is_a_small_game():
    assert "connect4" in GAMES
    module = game_module("connect4")
    assert module.PLAYERS[0] == "random" and len(set(module.PLAYERS)) == len(module.PLAYERS)
    # the inputs the learners expect are the ones the rules encode
    board = Board.from_moves("4453")
    assert module.N_INPUTS == (len(board.encode("simple")), len(board.encode("separated")))
    # every reference player of the table has a name make_player knows
    for name in module.PLAYERS:
        connect4.make_player(name)


def test_the_tables_reference_players():
    # random against random: the first player wins a little more often (about 55%)
    r = learners.play("connect4", "random", "random", 4000, seed=1)
    assert r.games == 4000 and 0.50 < r.wins / 4000 < 0.62 and r.draws < 40
    # deeper and greedier is stronger; the studies' 20% random moves cost games
    assert learners.play("connect4", "mm2", "random", 200, seed=2).wins > 180
    greedy = learners.play("connect4", "mm2-greedy", "mm2", 400, seed=3)
    assert greedy.wins > greedy.losses
    deep = learners.play("connect4", "mm4-greedy", "mm1-greedy", 200, seed=4)
    assert deep.wins > deep.losses
    # a game is drawn from its stream of the seed
    assert learners.play("connect4", "mm3", "random", 100, seed=5) == \
        learners.play("connect4", "mm3", "random", 100, seed=5)
    with pytest.raises(ValueError, match="unknown connect4 player"):
        learners.play("connect4", "smart", "random", 10)


def against_random(net: GameNetwork, games: int = 400) -> float:
    """The net's score rate (win 1, draw 1/2) against random, half the games from each seat."""
    first = learners.play("connect4", net, "random", games // 2, seed=77)
    second = learners.play("connect4", "random", net, games // 2, seed=78)
    return (first.wins + second.losses + (first.draws + second.draws) / 2) / games


def test_td0_on_connect4_is_reproducible_and_learns():
    a = GameNetwork("connect4", "separated", (20,), seed=4)
    start = against_random(a)
    learners.train_td(a, 1500, 0.1, 0.0, epsilon=0.1, seed=9)
    b = GameNetwork("connect4", "separated", (20,), seed=4)
    learners.train_td(b, 1000, 0.1, 0.0, epsilon=0.1, seed=9)
    learners.train_td(b, 500, 0.1, 0.0, epsilon=0.1, seed=9, first_game=1000)
    assert (a.params == b.params).all()         # the same games, in one chunk or two
    c = GameNetwork("connect4", "separated", (20,), seed=4)
    learners.train_td(c, 1500, 0.1, 0.0, epsilon=0.1, seed=10)
    assert not (a.params == c.params).all()
    after = against_random(a)
    assert after > start + 0.1 and after > 0.8, (start, after)


def test_the_simple_representation_trains_too():
    net = GameNetwork("connect4", "simple", (10,), seed=1)
    before = net.params.copy()
    learners.train_td(net, 50, 0.1, 0.3, seed=2)
    assert net.sizes[0] == 85 and not (net.params == before).all()
    assert np.isfinite(net.params).all()


def test_bgengine_train_runs_the_shipped_connect4_config(tmp_path, capsys):
    config = GameRunConfig.from_toml(CONFIG)
    assert config.game == "connect4" and config.method == "td" and config.eval_games <= 1000
    assert {"random", "mm1", "mm2", "mm3", "mm4"} <= set(config.eval_opponents)
    run = tmp_path / "run"
    assert main(["train", str(run), "--config", str(CONFIG), "--games", "20", "--quiet",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "connect4" and out["games"] == 20
    evals = [r for r in read_log(run) if r["kind"] == "game_eval"]
    assert sorted({r["opponent"] for r in evals}) == sorted(config.eval_opponents)
    assert all(abs(r["win"] + r["draw"] + r["loss"] - 1) < 1e-9 for r in evals)
    assert GameNetwork.load(run / "network.npz").game == "connect4"
