"""The command line on game states: ``show`` and ``moves`` read gnubg IDs and XGIDs."""

from __future__ import annotations

from bgengine.cli import main

XGID_52 = "XGID=-b----E-C---eE---c-e----B-:1:1:-1:52:2:3:0:7:10"


def test_show_a_state_prints_its_context_and_ids(capsys):
    assert main(["show", XGID_52]) == 0
    out = capsys.readouterr().out
    assert "7-point match, score 3-2 (side on roll first); cube 2 owned by the opponent" in out
    assert "gnubg ID: 4HPwATDgc/ABMA:EYHqADAAEAAE" in out and XGID_52 in out


def test_show_a_state_without_xgid(capsys):
    assert main(["show", "4HPwATDgc/ABMA:cAoAAAAAAAAA"]) == 0     # game over: no XGID
    assert "(no XGID: an XGID holds a game in progress" in capsys.readouterr().out


def test_moves_take_the_dice_of_the_state(capsys):
    assert main(["moves", XGID_52]) == 0
    from_state = capsys.readouterr().out
    assert main(["moves", "4HPwATDgc/ABMA", "52"]) == 0
    assert capsys.readouterr().out == from_state and "13/11 13/8" in from_state
    assert main(["moves", "4HPwATDgc/ABMA:UYnqADAAEAAE", "31"]) == 0    # the roll given wins
    assert "8/5 6/5" in capsys.readouterr().out


def test_moves_without_dice_is_an_error(capsys):
    assert main(["moves", "4HPwATDgc/ABMA"]) == 2
    assert "no dice" in capsys.readouterr().err


def test_bad_state_is_an_error(capsys):
    assert main(["show", "XGID=-b----E-C---eE---c-e----B-:1:1:-1:99:2:3:0:7:10"]) == 2
    assert "field 5 (dice) '99'" in capsys.readouterr().err
