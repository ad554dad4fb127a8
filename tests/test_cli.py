"""The command line and the demonstration game (the README's main job)."""

from __future__ import annotations

import json
import io
import subprocess
import sys

import pytest

from bgengine.cli import main
from bgengine.matches.demo import play_demo_game


def test_demo_game_is_reproducible_and_finishes():
    out1, out2 = io.StringIO(), io.StringIO()
    r1 = play_demo_game("simple3", "random", seed=7, out=out1)
    r2 = play_demo_game("simple3", "random", seed=7, out=out2)
    assert r1 == r2 and out1.getvalue() == out2.getvalue()
    assert r1.points in (1, 2, 3) and r1.winner in ("X", "O") and r1.n_moves > 10
    assert "wins a" in out1.getvalue()


def test_pubeval_beats_random_most_of_the_time():
    wins = sum(play_demo_game("pubeval", "random", seed=s).winner == "X" for s in range(40))
    assert wins >= 32


def test_demo_unknown_player():
    with pytest.raises(ValueError, match="unknown player"):
        play_demo_game("gnubq", "random")


def test_cli_demo(capsys):
    assert main(["demo", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "  1. " in out and "Position ID:" in out and "wins a" in out


def test_cli_show_and_moves(capsys):
    assert main(["show"]) == 0
    assert "4HPwATDgc/ABMA" in capsys.readouterr().out
    assert main(["moves", "4HPwATDgc/ABMA", "31"]) == 0
    out = capsys.readouterr().out
    assert "8/5 6/5" in out and len(out.strip().splitlines()) == 16


def test_cli_bad_input(capsys):
    assert main(["moves", "not-an-id", "31"]) == 2
    assert "error" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["moves", "4HPwATDgc/ABMA", "71"])


def test_console_script_help():
    proc = subprocess.run([sys.executable, "-m", "bgengine", "--help"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "demo" in proc.stdout


def test_cli_match_with_the_cube(tmp_path, capsys):
    from bgengine.core.network import Network

    path = tmp_path / "tiny.npz"
    Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=11).save(path)
    assert main(["match", f"net:{path}", f"net:{path}", "--games", "4", "--cube"]) == 0
    out = capsys.readouterr().out
    assert "money, with the cube" in out and "over 4 games" in out
    assert main(["match", f"net:{path}", f"net:{path}", "--games", "2", "--match-length", "3",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["match_length"] == 3 and doc["n"] == 2 and doc["games"] >= 2


def test_cli_missing_optional_dependency_is_a_clean_error(monkeypatch, capsys):
    import bgengine.matches.distributed as D

    def no_ray(*args, **kw):
        raise ImportError("the Ray backend needs Ray: pip install 'bgengine[distributed]'")

    monkeypatch.setattr(D, "make_backend", no_ray)
    assert main(["match", "pubeval", "random", "--games", "2", "--backend", "ray"]) == 2
    assert "bgengine[distributed]" in capsys.readouterr().err
