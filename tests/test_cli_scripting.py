"""The command line as a script sees it: closed pipes, clear refusals, honest figures."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from bgengine.cli import EXIT_BROKEN_PIPE, build_parser, main
from bgengine.position import Position
from bgengine.matches.results import CubeMatchResult, MatchResult, ci_text


def _bgengine(*args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "bgengine", *args], **kw)


def test_a_reader_that_leaves_early_is_no_traceback():
    # `bgengine moves ... | head -1`: the reader is gone before the output is written
    proc = _bgengine("moves", "4HPwATDgc/ABMA", "11", stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == EXIT_BROKEN_PIPE
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


def test_match_help_says_95_percent_once(capsys):
    with pytest.raises(SystemExit):
        main(["match", "--help"])
    out = capsys.readouterr().out
    assert "95%" in out and "95%%" not in out


@pytest.mark.parametrize("argv, words", [
    (["match", "pubeval", "random", "--games", "7"], ["--games 7", "even", "6 or 8"]),
    (["match", "pubeval", "random", "--games", "4", "--jacoby"], ["--jacoby", "--cube"]),
    (["match", "pubeval", "random", "--games", "4", "--jacoby", "--match-length", "3"],
     ["--jacoby", "--cube"]),
])
def test_match_refuses_what_it_would_silently_change(argv, words, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    for w in words:
        assert w in err, err


def test_two_games_say_they_have_no_interval(capsys):
    assert main(["match", "pubeval", "random", "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert "inf" not in out and "no 95% interval" in out, out


def test_ci_text():
    assert ci_text(0.0171) == "± 0.017 (95%)"
    assert ci_text(0.0123, ".1f", 100, "%") == "± 1.2% (95%)"
    assert "inf" not in ci_text(math.inf)
    r = MatchResult("a", "b", 2, 1.0, math.inf, 1.0, 0, 0, 0, 0, 30.0)
    c = CubeMatchResult("a", "b", 3, 2, 0.5, math.inf, 9, 0.5, 0.1, 1.5)
    assert "inf" not in str(r) and "inf" not in str(c)


def test_plot_of_a_missing_run_says_no_such_run(tmp_path, capsys):
    assert main(["plot", str(tmp_path / "nope")]) == 2
    assert "no such run" in capsys.readouterr().err
    assert main(["plot", str(tmp_path)]) == 2
    assert "not a training run" in capsys.readouterr().err


# ---------------------------------------------------------------- one spelling of players

def _network_copy(tmp_path):
    from bgengine.matches.players import default_network_path

    path = tmp_path / "copy.npz"
    path.write_bytes(default_network_path().read_bytes())
    return path


def test_a_bare_network_file_is_a_player_everywhere(tmp_path, capsys):
    from bgengine.matches.players import is_network_spec, make_player, network_file

    path = _network_copy(tmp_path)
    assert network_file(str(path)) == path and network_file(f"net:{path}") == path
    assert network_file("net") is None and network_file("pubeval") is None
    assert is_network_spec("net") and is_network_spec(str(path)) and not is_network_spec("random")
    assert make_player(str(path)).kind == "net"
    assert main(["match", str(path), "random", "--games", "4", "--json"]) == 0
    assert '"games": 4' in capsys.readouterr().out
    with pytest.raises(ValueError, match="missing.npz: no such network file"):
        make_player(str(tmp_path / "missing.npz"))


@pytest.mark.parametrize("command, old", [
    (["rollout", "4HPwATDgc/ABMA", "--trials", "2", "--threads", "1"], "--network"),
    (["play", "--seed", "1"], "--net")])
def test_old_network_options_still_work_with_a_warning(command, old, tmp_path):
    path = _network_copy(tmp_path)
    assert build_parser().parse_args([*command, old, str(path)]).player == f"net:{path}"
    proc = subprocess.run([sys.executable, "-m", "bgengine", *command, old, str(path)],
                          input="quit\n", capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert f"{old} FILE is deprecated" in proc.stderr and "--player" in proc.stderr


def test_rollout_takes_a_network_spec_and_refuses_other_players(tmp_path, capsys):
    path = _network_copy(tmp_path)
    assert main(["rollout", "4HPwATDgc/ABMA", "--trials", "2", "--threads", "1",
                 "--player", str(path)]) == 0
    assert "equity" in capsys.readouterr().out
    assert main(["rollout", "4HPwATDgc/ABMA", "--player", "pubeval"]) == 2
    assert "not a network" in capsys.readouterr().err


def test_play_takes_a_network_as_its_player(tmp_path):
    import io

    from bgengine.cli.play import play_main

    path = _network_copy(tmp_path)
    args = build_parser().parse_args(["play", "--seed", "3", "--player", str(path)])
    out = io.StringIO()
    assert play_main(args, io.StringIO("quit\n"), out) == 0
    args = build_parser().parse_args(["play", "--seed", "3", "--player",
                                      str(tmp_path / "missing.npz")])
    with pytest.raises(ValueError, match="no such network file"):
        play_main(args, io.StringIO("quit\n"), io.StringIO())


# ---------------------------------------------------------------- --json

#: Commands that hold a conversation rather than print a result (ubgi and web: engine
#: protocol and browser server, should they be registered).
INTERACTIVE = {"play", "serve", "ubgi", "web"}


def _commands(parser, prefix=()):
    """(path of sub-command names, parser) of every leaf command."""
    import argparse

    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield prefix, parser
        return
    for name, sub in subs[0].choices.items():
        yield from _commands(sub, (*prefix, name))


def test_every_command_that_prints_a_result_has_json():
    found = dict(_commands(build_parser()))
    assert ("match",) in found and ("tournament", "older") in found
    for path, parser in found.items():
        options = {o for a in parser._actions for o in a.option_strings}
        assert ("--json" in options) != (path[0] in INTERACTIVE), path


def _json_of(argv, capsys):
    import json

    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_json_of_the_quick_commands(capsys):
    start = "4HPwATDgc/ABMA"
    assert _json_of(["show", "--json"], capsys)["pips"] == [167, 167]
    doc = _json_of(["moves", start, "31", "--json"], capsys)
    assert doc["dice"] == [3, 1] and len(doc["moves"]) == 16
    after = Position.from_id(start).play("8/5 6/5", 3, 1).position_id  # opponent on roll, as gnubg
    assert {"notation": "8/5 6/5", "position_id": after} in doc["moves"]
    dance = "27bBAQDg/wcAQA"     # on the bar against a closed board
    assert _json_of(["moves", dance, "31", "--json"], capsys)["moves"] == []
    doc = _json_of(["demo", "--x", "pubeval", "--o", "random", "--json"], capsys)
    assert doc["winner"] in ("X", "O") and doc["points"] in (1, 2, 3)
    doc = _json_of(["match", "pubeval", "random", "--games", "2", "--json"], capsys)
    assert doc["games"] == 2 and doc["ci95"] is None        # null, never Infinity
    doc = _json_of(["rollout", start, "--trials", "4", "--threads", "1", "--dice", "31",
                    "--candidates", "2", "--json"], capsys)
    assert len(doc["results"]) == 2 and doc["results"][0]["trials"] == 4


def test_json_of_train_plot_and_tournament(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    run = str(tmp_path / "run")
    doc = _json_of(["train", run, "--games", "200", "--hidden", "4", "--quiet", "--json"], capsys)
    assert doc["games"] == 200 and doc["network"].endswith("network.npz")
    doc = _json_of(["plot", run, "--json"], capsys)
    assert doc["plot"].endswith(".png")
    doc = _json_of(["tournament", "roundrobin", "pubeval", "random", "--games", "4",
                    "--out", str(tmp_path / "t"), "--quiet", "--json"], capsys)
    assert doc["complete"] is True and any(f.endswith("roundrobin.json") for f in doc["files"])


def test_json_of_sweep_and_compare(tmp_path, capsys):
    (tmp_path / "s.toml").write_text("[sweep]\nseeds = [1]\neval_games = 10\n\n[base]\n"
                                     "games = 20\noutputs = 1\ncheckpoint_every = 20\n"
                                     "eval_every = 20\neval_games = 10\nthreads = 1\n\n"
                                     "[grid]\nhidden = [[4]]\n")
    doc = _json_of(["sweep", str(tmp_path / "s.toml"), "--out", str(tmp_path / "o"),
                    "--parallel", "1", "--json"], capsys)
    assert doc["complete"] is True and doc["files"][0].endswith("sweep.json")
    doc = _json_of(["compare", "--out", str(tmp_path / "c"), "--games", "40", "--hidden", "4",
                    "--rr-games", "20", "--eval-games", "10", "--json"], capsys)
    assert doc["complete"] is True and set(doc["vs_pubeval"]) >= {"td", "mutation"}


# ---------------------------------------------------------------- train RUN

def _small(**kw):
    from bgengine.training.trainer import TrainConfig

    base = dict(hidden=[6], outputs=1, lam=0.7, alpha=0.1, games=400, seed=5,
                checkpoint_every=100, eval_every=200, eval_games=20, threads=1)
    return TrainConfig(**{**base, **kw})


def _params(path):
    from bgengine.core.evaluator import load_evaluator

    return load_evaluator(path).contact.params


def test_train_resumes_from_the_runs_own_config(tmp_path, capsys):
    import numpy as np

    from bgengine.training.trainer import train

    straight = train(_small(), tmp_path / "straight", progress=False)
    train(_small(), tmp_path / "run", progress=False, stop_after=200)
    assert main(["train", str(tmp_path / "run"), "--quiet"]) == 0     # no --config
    np.testing.assert_array_equal(_params(tmp_path / "run" / "network.npz"), straight.params)


def test_a_finished_run_is_extended_bit_for_bit(tmp_path, capsys, caplog):
    import numpy as np

    from bgengine.training.trainer import train

    straight = train(_small(games=600), tmp_path / "straight", progress=False)
    run = tmp_path / "run"
    train(_small(), run, progress=False)
    assert main(["train", str(run), "--games", "600", "--quiet"]) == 0
    np.testing.assert_array_equal(_params(run / "network.npz"), straight.params)
    assert main(["train", str(run), "--games", "500", "--quiet"]) == 2
    assert "already at game 600" in capsys.readouterr().err
    assert main(["train", str(run), "--games", "600", "--seed", "9", "--quiet"]) == 2
    assert "different config (seed differ)" in capsys.readouterr().err


def test_extending_a_decaying_schedule_says_it_changes(tmp_path, caplog):
    from bgengine.training.trainer import train

    train(_small(schedule="linear", games=200), tmp_path / "run", progress=False)
    with caplog.at_level("WARNING", logger="bgengine.training.trainer"):
        net = train(_small(schedule="linear", games=300), tmp_path / "run", progress=False)
    assert net.metadata["training"]["games"] == 300
    assert "depends on the run's length" in caplog.text


# ---------------------------------------------------------------- serve

def test_serve_logs_a_line_when_a_client_comes_and_goes():
    import queue
    import re
    import signal
    import socket
    import threading

    # SIGINT as at a terminal even when the suite runs as a background job (which starts
    # its children with SIGINT ignored, so Ctrl-C would never reach the server)
    proc = _bgengine("serve", "--port", "0", "--player", "pubeval", stdout=subprocess.DEVNULL,
                     stderr=subprocess.PIPE, text=True,
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stderr], daemon=True).start()

    def wait_for(word: str) -> str:
        while True:
            line = lines.get(timeout=60)
            if word in line:
                return line

    try:
        host, port = re.search(r"listening on ([\d.]+):(\d+)", wait_for("listening on")).groups()
        with socket.create_connection((host, int(port)), timeout=30) as s:
            assert "connected from 127.0.0.1:" in wait_for("connected")
            s.sendall(b"version\n")
            assert s.recv(100)
        assert "left: closed by client" in wait_for("left")
        assert lines.empty()        # one line each, nothing else
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0


# ---------------------------------------------------------------- progress

def _stderr_on_a_terminal(argv, cwd) -> str:
    """Run ``bgengine ARGV`` with standard error on a pseudo-terminal (100 columns)."""
    import fcntl
    import os
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "bgengine", *argv], cwd=cwd,
                            stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    data = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:             # EIO: the child closed the terminal
            break
        if not chunk:
            break
        data += chunk
    assert proc.wait(timeout=120) == 0, data
    os.close(master)
    return data.decode("utf-8", "replace")


@pytest.mark.parametrize("argv, bar", [
    (["tournament", "roundrobin", "pubeval", "random", "simple1", "--games", "4",
      "--out", "t"], "3/3 [" ),
    (["train", "run", "--games", "400", "--hidden", "4"], "400/400 ["),
    (["rollout", "4HPwATDgc/ABMA", "--dice", "31", "--candidates", "2", "--trials", "4",
      "--threads", "1"], "2/2 ["),
    (["match", "pubeval", "random", "--cube", "--games", "4"], "4/4 ["),
])
def test_long_commands_draw_a_bar_on_a_terminal_only(argv, bar, tmp_path):
    for d in ("tty", "quiet", "piped"):
        (tmp_path / d).mkdir()
    on_terminal = _stderr_on_a_terminal(argv, tmp_path / "tty")
    assert bar in on_terminal and "%|" in on_terminal, on_terminal
    assert "%|" not in _stderr_on_a_terminal([*argv, "--quiet"], tmp_path / "quiet")
    piped = subprocess.run([sys.executable, "-m", "bgengine", *argv], cwd=tmp_path / "piped",
                           capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0 and "%|" not in piped.stderr, piped.stderr


def test_compiled_matches_draw_no_bar(tmp_path):
    # their games are played in whole batches: a bar would sit at 0 and jump to the end
    out = _stderr_on_a_terminal(["match", "pubeval", "random", "--games", "4"], tmp_path)
    assert "%|" not in out and "games/s" not in out, out


def test_library_progress_callbacks(tmp_path):
    from bgengine.matches.players import load_default_network
    from bgengine.decisions.rollouts import rollout_moves
    from bgengine.training.sweep import SweepSpec, run_sweep
    from bgengine.training.trainer import train

    seen = []
    train(_small(games=300), tmp_path / "run", progress=seen.append)
    assert [(p.games, p.total, p.chunk) for p in seen] == [(100, 300, 100), (200, 300, 100),
                                                          (300, 300, 100)]
    calls = []
    rollout_moves(load_default_network(), Position.initial().board, 3, 1, trials=4,
                  candidates=2, n_threads=1, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(1, 2), (2, 2)]
    (tmp_path / "s.toml").write_text("[sweep]\nseeds = [1, 2]\neval_games = 10\n\n[base]\n"
                                     "games = 40\noutputs = 1\ncheckpoint_every = 20\n"
                                     "eval_every = 40\neval_games = 10\nthreads = 1\n\n"
                                     "[grid]\nhidden = [[4]]\n")
    sums = []
    run_sweep(SweepSpec.from_toml(tmp_path / "s.toml"), tmp_path / "o", parallel=2,
              progress=lambda d, t: sums.append((d, t)))
    assert sums[-1] == (80, 80) and len(sums) == 4 and all(t == 80 for _, t in sums)


# ---------------------------------------------------------------- shell completion

@pytest.mark.parametrize("line, expected", [
    ("bgengine mat", {"match", "matchfile"}),
    ("bgengine match pu", {"pubeval"}),
    ("bgengine match net:r", {"net:runs/"}),
    ("bgengine match a", {"a.npz"}),
    ("bgengine train r --con", {"--config"}),
    ("bgengine serve --player sim", {"simple1", "simple2", "simple3"}),
])
def test_shell_completion(line, expected, tmp_path):
    import os

    pytest.importorskip("argcomplete")
    (tmp_path / "runs").mkdir()
    (tmp_path / "a.npz").touch()
    (tmp_path / "notes.txt").touch()
    out = tmp_path / "completions"
    env = {**os.environ, "_ARGCOMPLETE": "1", "COMP_LINE": line, "COMP_POINT": str(len(line)),
           "_ARGCOMPLETE_STDOUT_FILENAME": str(out)}
    proc = subprocess.run([sys.executable, "-m", "bgengine"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert {c.strip() for c in out.read_text().split("\x0b")} - {""} == expected


def test_play_refuses_jacoby_in_a_match():
    import io

    from bgengine.cli.play import play_main

    args = build_parser().parse_args(["play", "--match", "3", "--jacoby", "--seed", "1"])
    with pytest.raises(ValueError, match="--jacoby.*money"):
        play_main(args, io.StringIO("quit\n"), io.StringIO())


def test_a_file_that_cannot_be_read_or_written_is_one_line(tmp_path, capsys):
    """An OSError from any command (here: a directory where a file is asked for, a file
    in a folder that does not exist) is one line on standard error, exit 2."""
    folder = tmp_path / "a-folder.mat"
    folder.mkdir()
    assert main(["matchfile", "show", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bgengine: error: "), err
    assert str(folder) in err and "Traceback" not in err
    src = tmp_path / "m.mat"
    src.write_text(" 1 point match\n\n Game 1\n a : 0    b : 0\n  1) 31: 8/5 6/5\n")
    assert main(["matchfile", "convert", str(src), str(tmp_path / "nope" / "out.sgf")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope" in err and "Traceback" not in err, err


def test_a_broken_pipe_is_still_exit_141_not_an_error_line(monkeypatch, capsys):
    """BrokenPipeError is an OSError: the pipe's own status comes first."""
    import bgengine.cli as cli

    def gone(argv):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(cli, "_run", gone)
    assert main(["demo"]) == EXIT_BROKEN_PIPE
    assert "error" not in capsys.readouterr().err


def test_a_broken_pipe_inside_a_command_is_exit_141(monkeypatch, capsys):
    """Raised by a command's handler, the pipe still wins over the OSError line."""
    import bgengine.cli.position as position
    from bgengine.cli import build_parser

    def gone(args):
        raise BrokenPipeError(32, "Broken pipe")

    handler = build_parser().parse_args(["show", "4HPwATDgc/ABMA"]).func
    monkeypatch.setattr(position, handler.__name__, gone)    # registered afresh by main
    assert main(["show", "4HPwATDgc/ABMA"]) == EXIT_BROKEN_PIPE
    assert "error" not in capsys.readouterr().err


def test_rollout_truncated_at_the_bearoff_database(capsys):
    import json

    import numpy as np

    from bgengine.notation.ids import position_id

    board = np.zeros((2, 25), np.uint8)                 # both sides home: the database's
    board[0, :3] = [2, 2, 1]
    board[1, :3] = [1, 2, 2]
    pid = position_id(board)
    assert main(["rollout", pid, "--trials", "36", "--threads", "1", "--truncate-bearoff",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["stderr"] == 0
    assert main(["rollout", pid, "--trials", "36", "--threads", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["stderr"] > 0
    assert main(["rollout", "4HPwATDgc/ABMA", "--cube", "--truncate-bearoff"]) == 2
    assert "--truncate-bearoff" in capsys.readouterr().err
