"""``bgengine play`` on the command line: its parser and options, and a whole session
through a real process's stdin (garbage bytes included)."""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys

import pytest

from bgengine.cli.play import play_main, register
from bgengine.core.network import Network

NET = Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=11)


def script(*lines) -> io.StringIO:
    return io.StringIO("".join(line + "\n" for line in lines))


def test_play_main_and_parser():
    import argparse

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    register(sub)
    args = parser.parse_args(["play", "--match", "3", "--seed", "4", "--player", "pubeval"])
    out = io.StringIO()
    assert play_main(args, input=script("score", "quit"), output=out) == 0
    assert "a match to 3 points" in out.getvalue() and "Match to 3: you 0, engine 0." in out.getvalue()
    with pytest.raises(ValueError):
        play_main(parser.parse_args(["play", "--match", "0"]), input=script(), output=io.StringIO())
    with pytest.raises(SystemExit):
        parser.parse_args(["play", "--match", "3", "--money"])


def test_subprocess_stdin(tmp_path):
    net = tmp_path / "net.npz"
    NET.save(net)
    code = ("import sys; from bgengine.cli import main; "
            f"sys.exit(main(['play', '--seed', '3', '--net', {str(net)!r}, '--hint-plies', '1']))")
    data = (b"roll\nhint\n\xff\xfe\x00garbage \xc3\x28\n13/5\n" + "☃\n".encode()
            + b"help\nquit\n")
    proc = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True,
                          timeout=60, env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    out = proc.stdout.decode("utf-8", "replace")
    assert proc.returncode == 0, proc.stderr.decode()
    assert "Traceback" not in proc.stderr.decode()
    assert "Dice seed 3" in out and "Leaving the game." in out and "Commands:" in out
    assert "could not be handled" not in out

    proc = subprocess.run([sys.executable, "-c", code], input=random.Random(3).randbytes(3000),
                          capture_output=True, timeout=60)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    assert b"End of input" in proc.stdout or b"Leaving" in proc.stdout


# ---------------------------------------------------------------- saving and continuing

def _main(argv, lines, capsys):
    """``bgengine ARGV`` with ``lines`` on standard input: (status, out, err)."""
    import sys as _sys
    from bgengine.cli import main

    old = _sys.stdin
    _sys.stdin = io.StringIO("".join(line + "\n" for line in lines))
    try:
        status = main(argv)
    finally:
        _sys.stdin = old
    out, err = capsys.readouterr()
    return status, out, err


def test_play_saves_where_it_says_and_continues(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    status, out, _ = _main(["play", "--match", "3", "--seed", "4", "--player", "pubeval"],
                           ["roll", "quit"], capsys)
    assert status == 0
    folder = tmp_path / "data" / "bgengine" / "sessions"
    saved = list(folder.glob("match3-*.mat"))
    assert len(saved) == 1 and f"Saving to {saved[0]} after every move" in out
    assert "bgengine play --continue" in out
    status, out, _ = _main(["play", "--continue", str(saved[0]), "--player", "pubeval"],
                           ["score", "quit"], capsys)
    assert status == 0 and f"Continuing {saved[0]} at game 1" in out
    assert "Dice seed 4" in out and "Match to 3: you 0, engine 0." in out
    assert list(folder.glob("*.mat")) == saved          # saved back into the same file

    own = tmp_path / "mine.mat"
    status, out, _ = _main(["play", "--money", "--save", str(own), "--player", "pubeval"],
                           ["roll", "quit"], capsys)
    assert status == 0 and f"Saving to {own}" in out and own.exists()
    status, out, _ = _main(["play", "--no-save", "--player", "pubeval"], ["quit"], capsys)
    assert status == 0 and "Saving" not in out and list(folder.glob("money-*")) == []
    status, out, _ = _main(["play", "--position", "4HPwATDgc/ABMA", "--player", "pubeval"],
                           ["quit"], capsys)
    assert status == 0 and "Not saved: a game from a set position" in out


@pytest.mark.parametrize("argv, words", [
    (["--continue", "m.mat", "--match", "5"], "--match cannot be given with it"),
    (["--continue", "m.mat", "--jacoby"], "--jacoby cannot be given with it"),
    (["--save", "m.txt"], "saved as a .mat file"),
    (["--continue", "none.mat"], "none.mat: No such file or directory"),
    (["--continue", "over.mat"], "the match is over"),
    (["--continue", "garbled.mat"], "cannot continue garbled.mat: game 1, move 1"),
    (["--position", "4HPwATDgc/ABMA", "--save", "p.mat"], "cannot be saved"),
])
def test_play_refuses_what_it_cannot_save_or_continue(tmp_path, capsys, monkeypatch, argv, words):
    monkeypatch.chdir(tmp_path)
    from bgengine.matchfiles.record import Double, Drop, GameRecord, MatchRecord, Play, Win
    from bgengine.matchfiles.mat import write_mat

    over = [Play(0, (3, 1), ((8, 5), (6, 5))), Double(1), Drop(0), Win(1, 1)]
    (tmp_path / "over.mat").write_text(write_mat(MatchRecord(length=1, games=[GameRecord(
        (0, 0), over)])))
    (tmp_path / "garbled.mat").write_text(" 3 point match\n\n Game 1\n a : 0    b : 0\n"
                                          "  1) 31: 8/5 6/4\n")
    status, _, err = _main(["play", "--player", "pubeval", *argv], ["quit"], capsys)
    assert status == 2 and words in err and err.count("\n") == 1, err
