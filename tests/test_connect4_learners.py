"""Connect Four in the small games' compiled learners (bgengine.core.smalllearners): its table
(bgengine.core.connect4_players.GAME), TD(0) reproducible and learning in seconds, and
`bgengine train` on the shipped config."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bgengine.cli import main
from bgengine.core.connect4 import Board
from bgengine.games import GAMES, connect4, game_module
from bgengine.games import learners
from bgengine.games.network import GameNetwork
from bgengine.games.study import GameRunConfig
from bgengine.training.run_dir import read_log

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


def reference_best_move(net: GameNetwork, moves: str) -> int:
    """The greedy move in plain Python: exact values of moves that end the game, else one minus
    the network (sigmoid hidden layer and output) on the afterstate; the first of equals."""
    p, (n, hidden, _) = net.params.astype(np.float64), net.sizes
    W0, b0 = p[:n * hidden].reshape(n, hidden), p[n * hidden:n * hidden + hidden]
    W1, b1 = p[n * hidden + hidden:n * hidden + 2 * hidden], p[-1]
    values = {}
    for col in Board.from_moves(moves).legal_moves():
        after = Board.from_moves(moves)
        after.play(col)
        r = after.result()
        if r >= 0:
            values[col] = 1.0 if r == 1 else 0.5
        else:
            h = 1 / (1 + np.exp(-(after.encode(net.representation_name) @ W0 + b0)))
            values[col] = 1 - 1 / (1 + np.exp(-(h @ W1 + b1)))
    return max(values, key=lambda c: values[c])


def test_best_move_is_the_greedy_players_move():
    net = GameNetwork("connect4", "separated", (20,), seed=3)
    learners.train_td(net, 300, 0.1, 0.0, seed=3)
    for moves in ("", "4", "4453", "1234567", "44444"):
        assert learners.best_move(net, [int(c) - 1 for c in moves]) == \
            reference_best_move(net, moves)
    # a win at once is always taken: column 4 (0-based 3) completes four
    assert learners.best_move(net, [3, 4, 3, 4, 3, 4]) == 3
    with pytest.raises(ValueError, match="not legal"):
        learners.best_move(net, [0] * 7)
    with pytest.raises(ValueError, match="over"):
        learners.best_move(net, [3, 4, 3, 4, 3, 4, 3, 0])


def test_network_chooser_on_the_concepts_and_the_solver():
    net = GameNetwork("connect4", "separated", (20,), seed=5)
    choose = connect4.network_chooser(net)
    board = Board.from_moves("4455")
    assert choose(board) == learners.best_move(net, [3, 3, 4, 4])
    rates = connect4.concept_rates(choose)
    # attack positions: a win at once is valued exactly, so the net always takes it
    assert rates["attack"] == 1.0 and 0 <= rates["defence"] <= 1


def test_the_guided_search_is_a_player():
    a = GameNetwork("connect4", "separated", (20,), seed=6)
    b = GameNetwork("connect4", "separated", (20,), seed=7)
    learners.train_simulation(a, 20, 0.1, best=2, trials=5, seed=1)
    # with one candidate the playouts cannot change the move: the greedy network's games
    one = learners.GuidedSearch(a, best=1, trials=5)
    assert learners.play("connect4", one, b, 4, seed=3) == learners.play("connect4", a, b, 4)
    # with every move a candidate it is a plain simulation search: strong against random,
    # and reproducible from the seed
    search = learners.GuidedSearch(a, best=7, trials=20)
    r = learners.play("connect4", search, "random", 100, seed=4)
    assert r.wins > 85 and r == learners.play("connect4", search, "random", 100, seed=4)
    with pytest.raises(ValueError, match="named player"):
        learners.train_td(a, 1, 0.1, opponent=search)


def test_match_takes_connect4_networks(tmp_path, capsys):
    """``connect4:net:PATH`` plays through the learners' match loop: the counts are those of
    ``learners.play`` with the seats taken in turn, the same from either side, and a network
    meets only the players that loop knows."""
    net = GameNetwork("connect4", "separated", (20,), seed=3)
    learners.train_td(net, 300, alpha=0.1, seed=3)
    path = tmp_path / "c4.npz"
    net.save(path)
    result = connect4.match(f"net:{path}", "mm1", games=21, seed=5)
    first = learners.play("connect4", net, "mm1", 11, seed=5)
    second = learners.play("connect4", "mm1", net, 10, seed=5)
    assert result == {"games": 21, "a_wins": first.wins + second.losses,
                      "b_wins": first.losses + second.wins,
                      "draws": first.draws + second.draws, "a_first_wins": first.wins,
                      "b_first_wins": second.wins}
    swapped = connect4.match("mm1", net, games=20, seed=5)
    again = connect4.match(net, "mm1", games=20, seed=5)
    assert (swapped["a_wins"], swapped["b_wins"]) == (again["b_wins"], again["a_wins"])
    with pytest.raises(ValueError, match="plays against"):
        connect4.match(f"net:{path}", "mm6", games=2)
    with pytest.raises(ValueError, match="empty board"):
        connect4.match(net, "random", games=2, start="44")
    assert main(["match", f"connect4:net:{path}", "connect4:random", "--games", "4",
                 "--json"]) in (0, None)
    assert json.loads(capsys.readouterr().out)["games"] == 4
