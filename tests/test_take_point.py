"""The take point of a double: where double/take equals double/pass in the cube model,
shown by ``bgengine hint`` before the roll."""

from __future__ import annotations

import json

import pytest

from bgengine.cli import main
from bgengine.decisions.cube import CubeInfo, cube_decision, take_point
from bgengine.notation.ids import MatchState

MONEY = CubeInfo.from_match_state(MatchState(match_length=0, score=(0, 0), player_on_roll=1), 1)


@pytest.mark.parametrize("x,expected", [(0.0, 0.25), (0.68, 0.5 / 2.34), (1.0, 0.2)])
def test_without_gammons_it_is_janowskis(x, expected):
    assert take_point([0.7, 0, 0, 0, 0], MONEY, x) == pytest.approx(expected, abs=1e-6)


def test_it_is_where_the_decision_turns_from_take_to_pass():
    probs = [0.72, 0.25, 0.01, 0.08, 0.004]
    t = take_point(probs, MONEY, 0.68)
    assert 0.2 < t < 0.35                   # the doubler's gammons raise it above 21.4%
    shares = (probs[1] / probs[0], probs[2] / probs[0], probs[3] / (1 - probs[0]),
              probs[4] / (1 - probs[0]))

    def at(q):                              # the doubler wins q, the same gammon shares
        return [q, q * shares[0], q * shares[1], (1 - q) * shares[2], (1 - q) * shares[3]]
    assert cube_decision(at(1 - t + 0.002), MONEY, 0.68).take is False
    assert cube_decision(at(1 - t - 0.002), MONEY, 0.68).take is True


def test_the_hint_shows_it_before_the_roll(capsys):
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    assert main(["hint", xgid, "--plies", "0"]) == 0
    assert "Take point: 2" in capsys.readouterr().out
    assert main(["hint", xgid, "--plies", "0", "--json"]) == 0
    assert 0.2 < json.loads(capsys.readouterr().out)["cube"]["take_point"] < 0.35
    crawford = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:4:1:5:10"      # 4-0 in a 5-point match
    assert main(["hint", crawford, "--plies", "0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cube"]["take_point"] is None
