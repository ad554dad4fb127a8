"""The command line as a script sees it: closed pipes, clear refusals, honest figures."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from bgengine.cli import EXIT_BROKEN_PIPE, main
from bgengine.results import CubeMatchResult, MatchResult, ci_text


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
