"""Tic-tac-toe on the command line: ``bgengine match tictactoe:A tictactoe:B``, the players by
spec, ``bgengine play --game tictactoe``; and the small games' run defaults and curves."""

from __future__ import annotations

import io
import json

import pytest

from bgengine.cli import main
from bgengine.games import tictactoe
from bgengine.games.learners import play, train_q
from bgengine.games.network import GameNetwork
from bgengine.games.study import DEFAULT_EVAL_OPPONENTS, GameRunConfig


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A small network trained a little against smart, saved."""
    net = GameNetwork("tictactoe", "separated", (16,), seed=2)
    train_q(net, 3000, alpha=0.3, gamma=0.9, epsilon=0.2, opponent="smart", seed=2)
    path = tmp_path_factory.mktemp("ttt") / "net.npz"
    net.save(path)
    return net, path


def test_match_counts_add_up_and_seats_alternate():
    r = tictactoe.match("solver", "random", games=301, seed=4)
    assert r["games"] == 301 and r["a_wins"] + r["b_wins"] + r["draws"] == 301
    assert r["b_wins"] == 0                             # the solver never loses
    # a moved first in 151 games, b in 150: the halves are the compiled matches themselves
    first = play("tictactoe", "solver", "random", 151, seed=4)
    second = play("tictactoe", "random", "solver", 150, seed=4)
    assert r["a_first_wins"] == first.wins and r["b_first_wins"] == second.wins
    assert r["a_wins"] == first.wins + second.losses
    assert tictactoe.match("solver", "random", games=301, seed=4) == r     # reproducible


def test_match_command_plays_tictactoe(capsys):
    assert main(["match", "tictactoe:solver", "tictactoe:smart", "--games", "400",
                 "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["game"] == "tictactoe" and r["games"] == 400 and r["b_wins"] == 0
    assert r["a_wins"] + r["draws"] == 400 and 0.5 <= r["score"] <= 1
    assert main(["match", "tictactoe:random", "tictactoe:primitive", "--games", "20"]) == 0
    assert "tictactoe:random vs tictactoe:primitive: score" in capsys.readouterr().out


def test_a_network_by_its_file(trained, capsys):
    net, path = trained
    assert main(["match", f"tictactoe:net:{path}", "tictactoe:random", "--games", "200",
                 "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    expected = tictactoe.match(net, "random", games=200)
    assert {k: r[k] for k in expected} == expected


@pytest.mark.parametrize("a, b, message", [
    ("tictactoe:smartest", "tictactoe:random", "unknown tic-tac-toe player 'smartest'"),
    ("tictactoe:smart", "connect4:random", "both players must be of one game"),
    ("tictactoe:net:/no/such.npz", "tictactoe:random", "no such network file"),
])
def test_bad_specs_say_what_is_wrong(a, b, message, capsys):
    assert main(["match", a, b, "--games", "10"]) == 2
    assert message in capsys.readouterr().err


def test_a_network_of_another_game_is_refused(tmp_path, capsys):
    GameNetwork("connect4", "separated", (4,)).save(tmp_path / "c4.npz")
    assert main(["match", f"tictactoe:net:{tmp_path / 'c4.npz'}", "tictactoe:random",
                 "--games", "10"]) == 2
    assert "a connect4 network, not a tic-tac-toe one" in capsys.readouterr().err


def test_small_games_round_robin(tmp_path, capsys):
    """A round robin of one small game's players: each pairing is the seat-alternating
    match of ``bgengine match`` (pairing k with seed + k), the matrix is consistent, the
    ranking is by mean score; mixed games and knock-outs are refused, naming what works."""
    from bgengine.games.specs import game_match

    players = ["tictactoe:random", "tictactoe:smart", "tictactoe:solver"]
    assert main(["tournament", "roundrobin", *players, "--games", "40", "--seed", "3",
                 "--out", str(tmp_path), "--quiet", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["complete"] and len(doc["pairings"]) == 3
    pairs = [(0, 1), (0, 2), (1, 2)]
    for k, ((i, j), got) in enumerate(zip(pairs, doc["pairings"])):
        assert got == game_match(players[i], players[j], 40, seed=3 + k)
    assert [r["player"] for r in doc["ranking"]][0] == "tictactoe:solver"
    assert doc["ranking"][-1]["player"] == "tictactoe:random"
    assert (tmp_path / "gameroundrobin.txt").read_text().count("tictactoe:") == 6
    assert main(["tournament", "roundrobin", "tictactoe:smart", "connect4:random",
                 "--games", "10", "--quiet"]) == 2
    assert "takes players of one game" in capsys.readouterr().err
    assert main(["tournament", "roundrobin", "tictactoe:smart", "pubeval",
                 "--games", "10", "--quiet"]) == 2
    assert "not backgammon players among them" in capsys.readouterr().err
    assert main(["tournament", "knockout", "tictactoe:smart", "tictactoe:random",
                 "--games", "10", "--quiet"]) == 2
    assert "only round robins take" in capsys.readouterr().err


def test_each_game_has_its_own_default_evaluation_opponents():
    assert GameRunConfig(game="tictactoe").eval_opponents == ["random", "primitive", "smart",
                                                               "solver"]
    assert GameRunConfig(game="connect4").eval_opponents == ["random", "mm1", "mm2", "mm3",
                                                              "mm4"]
    assert set(DEFAULT_EVAL_OPPONENTS) == {"tictactoe", "connect4"}
    assert GameRunConfig(game="connect4", eval_opponents=["mm2"]).eval_opponents == ["mm2"]


@pytest.mark.parametrize("opponent, method, label", [
    ("smart", "q", "training games"), ("self", "q", "self-play games"),
    ("smart", "simulation", "self-play games")])
def test_the_curve_says_what_games_it_counts(tmp_path, monkeypatch, opponent, method, label):
    pytest.importorskip("matplotlib")
    from matplotlib.axes import Axes

    from bgengine.games.study import train_game_run
    from bgengine.training.plot import plot_run

    labels = []
    monkeypatch.setattr(Axes, "set_xlabel", lambda self, text, *a, **k: labels.append(text))
    config = GameRunConfig(hidden=[4], method=method, opponent=opponent, games=300,
                           eval_games=10, eval_opponents=["random"], trials=2)
    train_game_run(config, tmp_path / "run")
    plot_run([tmp_path / "run"], tmp_path / "curve.png")
    assert labels == [label] and (tmp_path / "curve.png").stat().st_size > 0


def test_choose_move_is_the_move_of_the_matches(trained):
    """Replaying a greedy game move by move gives the compiled match's result."""
    from bgengine.games.learners import choose_move

    net, _ = trained
    for first, second in ((net, "smart"), ("solver", net), (net, net)):
        p, history = tictactoe.TicTacToe(), []
        while p.legal_moves():
            cell = choose_move("tictactoe", (first, second)[len(history) % 2], history)
            assert cell in p.legal_moves()
            p, history = p.play(cell), history + [cell]
        outcome = 0 if p.result() == 0 else (1 if len(history) % 2 else -1)
        if "solver" not in (first, second):         # deterministic players: the same game
            r = play("tictactoe", first, second, 1)
            assert (r.wins, r.draws, r.losses) == ((1, 0, 0), (0, 1, 0), (0, 0, 1))[1 - outcome]
    assert choose_move("tictactoe", "solver", [4, 0, 8]) in (2, 6)      # the drawing corners
    with pytest.raises(ValueError, match="not legal"):
        choose_move("tictactoe", "smart", [4, 4])
    with pytest.raises(ValueError, match="over"):
        choose_move("tictactoe", "smart", [0, 3, 1, 4, 2])


def test_console_game_to_the_end():
    from bgengine.games.tictactoe_console import play_tictactoe

    out = io.StringIO()
    # every cell in turn: what is taken is refused, so the human plays the lowest empty cell
    moves = "\n".join(["0", "hint"] + [str(c) for c in range(1, 10) for _ in range(5)]) + "\n"
    assert play_tictactoe(io.StringIO(moves), out, "smart", seed=1) == 0
    text = out.getvalue()
    assert "'0' is no empty cell" in text and "best: 1 2 3 4 5 6 7 8 9 (draw" in text
    assert "smart plays" in text
    assert text.rstrip().endswith(("You win.", "smart wins.", "A draw."))


def test_the_solver_never_loses_at_the_console():
    from bgengine.games.tictactoe_console import play_tictactoe

    for seed in range(5):
        out = io.StringIO()
        moves = "\n".join(str(c) for c in range(1, 10) for _ in range(5)) + "\n"
        play_tictactoe(io.StringIO(moves), out, "solver", human_first=seed % 2 == 0, seed=seed)
        assert not out.getvalue().rstrip().endswith("You win.")


def test_play_command_takes_tictactoe(trained, monkeypatch, capsys):
    _, path = trained
    monkeypatch.setattr("sys.stdin", io.StringIO("5\nquit\n"))
    assert main(["play", "--game", "tictactoe", "--player", f"net:{path}", "--second"]) == 0
    text = capsys.readouterr().out
    assert f"against net:{path}" in text and f"net:{path} plays" in text
    monkeypatch.setattr("sys.stdin", io.StringIO("hint\nquit\n"))
    assert main(["play", "--game", "tictactoe"]) == 0
    assert "against solver" in capsys.readouterr().out


def test_a_small_games_curve_is_its_win_rate_per_opponent_and_seat(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from matplotlib.axes import Axes

    from bgengine.games.study import train_game_run
    from bgengine.training.plot import plot_run

    ylabels, lines = [], []
    monkeypatch.setattr(Axes, "set_ylabel", lambda self, text, *a, **k: ylabels.append(text))
    real_plot = Axes.plot
    monkeypatch.setattr(Axes, "plot", lambda self, *a, **k: (lines.append(k.get("label")),
                                                             real_plot(self, *a, **k))[1])
    config = GameRunConfig(hidden=[4], games=600, eval_every=300, eval_games=10,
                           eval_opponents=["random", "smart"])
    train_game_run(config, tmp_path / "run")
    plot_run([tmp_path / "run"], tmp_path / "all.png")
    assert ylabels[-1] == "win rate vs random, smart"
    assert lines == [f"run: vs {o}, {s}" for o in ("random", "smart") for s in ("first", "second")]
    lines.clear()
    plot_run([tmp_path / "run"], tmp_path / "smart.png", opponents=["smart"])
    assert ylabels[-1] == "win rate vs smart" and len(lines) == 2
    with pytest.raises(ValueError, match="no evaluations against mm4; it has random, smart"):
        plot_run([tmp_path / "run"], tmp_path / "x.png", opponents=["mm4"])
