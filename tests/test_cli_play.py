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
from bgengine.network import Network

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
