"""``bgengine analyse``: small hand-made matches, the golden comparison with gnubg's own
analysis (``tests/data/analysis``), a live gnubg run, and the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest

from bgengine.decisions.analysis import BLUNDER, analyse_match
from bgengine.decisions.engine import Engine
from bgengine.matchfiles.mat import read_mat
from bgengine.matchfiles.files import read_match_file
from bgengine.state import GameState
from bgengine.opponents.gnubg.analysis import analyse_golden, analysis_script, compare_analyses

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "analysis"
GNUBG = Path("/usr/games/gnubg")

#: The first 14 lines of a 7-point match bgengine played (net against pubeval): a double
#: and a take, a dance (pubeval's 55 at move 12, no legal play); the game is unfinished.
SEVEN_POINT = """ 7 point match

 Game 1
 net : 0                        pubeval : 0
  1)                             56: 24/18 18/13
  2) 23: 24/21 13/11             66: 24/18 13/7 13/7 13/7
  3) 46: 13/7* 11/7              34: 25/21 7/4*
  4) 23: 25/23 24/21*            61: 25/24 21/15
  5) 16: 23/22 21/15             65: 15/10* 13/7
  6) 15: 25/24 6/1*              15: 25/24* 8/3*
  7) 45: 25/21 25/20              Doubles => 2
  8)  Takes                      51: 10/5* 6/5
  9) 61: 25/24 21/15             11: 6/5 6/5 5/4 4/3
 10) 62: 15/9 13/11              52: 13/11 13/8
 11) 46: 11/5 9/5                26: 24/22 22/16
 12) 45: 13/9* 13/8              55:
 13) 62: 9/7 8/2                 52: 25/23* 11/6
 14) 11: 25/24 24/23 24/23 6/5   23: 7/4 6/4
"""

#: A money game: Anna opens 31 with 8/7 8/5 (8/5 6/5 is the play: a blunder), Bob
#: doubles at once (no double is right) and Anna passes (a take is right).
MONEY = """ 0 point match

 Game 1
 Anna : 0                       Bob : 0
  1) 31: 8/7 8/5                 Doubles => 2
  2)  Drops
                                  Wins 1 point
"""


@lru_cache(maxsize=None)
def _engine(plies: int) -> Engine:
    return Engine("net", plies=plies)


@lru_cache(maxsize=None)
def _analysis(text: str, plies: int):
    return analyse_match(read_mat(text), _engine(plies), plies)


def _decision(analysis, number: int, player: int, kind: str):
    return next(d for d in analysis.decisions
                if (d.number, d.player, d.kind) == (number, player, kind))


def test_a_forced_play_is_listed_but_not_counted():
    a = _analysis(SEVEN_POINT, 0)
    dance = _decision(a, 12, 1, "play")
    assert dance.action == "55: (no play)" and not dance.counted and dance.equity_lost == 0
    plays = [d for d in a.decisions if d.kind == "play" and d.player == 1]
    forced = [d for d in plays if not d.counted]
    assert forced == [dance]
    assert a.players[1].plays == len(plays) and a.players[1].unforced_plays == len(plays) - 1


def test_a_known_blunder_is_flagged_with_its_positions():
    a = _analysis(MONEY, 1)
    play = _decision(a, 1, 0, "play")
    assert play.action == "31: 8/5 8/7" or play.action == "31: 8/7 8/5"
    assert play.best == "31: 8/5 6/5"
    assert play.mark == "blunder" and play.equity_lost >= BLUNDER and play.counted
    assert play in a.marked and a.players[0].blunders >= 1
    back = GameState.from_gnubgid(play.to_dict()["gnubgid"])     # the state before the play
    assert back.position_id == "4HPwATDgc/ABMA" and sorted(back.dice) == [1, 3]
    assert back.match.player_on_roll == 0 and back.is_money
    assert GameState.from_xgid(play.to_dict()["xgid"]).to_gnubgid() == play.state.to_gnubgid()


def test_luck_of_a_joker_is_positive_and_a_dance_is_unlucky():
    a = _analysis(SEVEN_POINT, 0)
    opening = _decision(a, 1, 1, "play")            # 65 to open: lover's leap, a good roll
    assert opening.luck > 0
    joker = _decision(a, 2, 1, "play")              # 66 in reply: the best roll there is
    assert joker.action.startswith("66:") and joker.luck > 0.2
    dance = _decision(a, 12, 1, "play")             # 55 on the bar, no entry
    assert dance.luck < -0.1
    assert a.players[1].rolls == len([d for d in a.decisions if d.kind == "play"
                                      and d.player == 1])


def test_cube_errors_in_a_money_game():
    a = _analysis(MONEY, 1)
    double = _decision(a, 1, 1, "cube")
    assert (double.action, double.best) == ("double", "no double")
    assert double.counted and double.equity_lost > 0.05
    answer = _decision(a, 2, 0, "answer")
    assert (answer.action, answer.best) == ("pass", "take")
    # the taker's values: passing loses 1 point per cube, taking keeps about even
    assert answer.value == pytest.approx(-1.0)
    assert answer.equity_lost > 0.5 and answer.mark == "blunder"
    assert a.players[1].cube_error == pytest.approx(double.equity_lost)
    assert a.players[0].cube_error == pytest.approx(answer.equity_lost)
    assert a.players[0].decisions == 2                      # the opening play and the pass


def test_no_double_decisions_are_counted_when_close_or_missed():
    a = _analysis(SEVEN_POINT, 0)
    cube = [d for d in a.decisions if d.kind == "cube"]
    assert cube and all(d.action in ("double", "no double") for d in cube)
    # no cube decision before a game's first roll or right after taking a double
    assert all(d.number > 1 for d in cube)
    assert not any(d.number == 8 and d.player == 1 for d in cube)
    for d in cube:
        if d.action == "no double" and d.best == "no double":
            assert d.equity_lost == 0
    counted = sum(d.counted for d in a.decisions if d.kind != "play" and d.player == 0)
    assert a.players[0].cube_decisions == counted
    p = a.players[0]
    assert p.error_rate == pytest.approx(1000 * (p.checker_error + p.cube_error) / p.decisions)
    assert p.pr == pytest.approx(p.error_rate / 2)


#: The golden matches the test analyses (the shorter ones; the tool does all ten).
GOLDEN_FILES = ["net-eps05_vs_net-eps30.mat", "net_vs_net-eps10.mat", "net_vs_net-eps05.mat",
                "pubeval_vs_net-eps20.mat", "net-eps02_vs_net-eps10.mat"]


def test_against_gnubg_golden_analysis():
    """bgengine at 2-ply against gnubg 1.07's ``analyse match`` at 2-ply: the same
    decisions counted (within 2 a player), error rates that correlate, most of gnubg's
    blunders flagged (docs/analysis.md has the figures over all ten matches)."""
    golden = json.loads((DATA / "gnubg_2ply.json").read_text())
    golden["matches"] = [m for m in golden["matches"] if m["file"] in GOLDEN_FILES]
    result = compare_analyses(golden, analyse_golden(golden, DATA, 2))
    for p in result["players"]:
        assert abs(p["decisions"] - p["gnubg_decisions"]) <= 2, p
        assert p["unforced"] == p["gnubg_unforced"], p
    assert result["checker_rate_correlation"] > 0.95
    assert result["error_rate_correlation"] > 0.95
    assert result["blunders_flagged"] >= 0.8 * result["gnubg_blunders"]
    assert result["gnubg_blunders"] >= 10


@pytest.mark.skipif(not GNUBG.exists(), reason="GNU Backgammon is not installed")
def test_live_gnubg_analysis_counts_the_same_decisions(tmp_path):
    """gnubg's own analysis at 0-ply, run now, against bgengine's at 0-ply."""
    match = DATA / "net_vs_net-eps20.mat"
    out = tmp_path / "gnubg.json"
    env = dict(os.environ, HOME=str(tmp_path), ANALYSE_FILES=str(match), ANALYSE_OUT=str(out),
               ANALYSE_PLIES="0")
    subprocess.run([str(GNUBG), "-t", "-q", "-r", "-p", str(analysis_script())],
                   env=env, cwd=ROOT, check=True, capture_output=True, timeout=300)
    golden = json.loads(out.read_text())
    result = compare_analyses(golden, analyse_golden(golden, DATA, 0))
    for p in result["players"]:
        assert p["unforced"] == p["gnubg_unforced"]
        assert abs(p["close_cube"] - p["gnubg_close_cube"]) <= 2
    weak, strong = result["players"][1], result["players"][0]       # net@0.2 against net
    assert weak["error_rate"] > 5 * strong["error_rate"]
    assert weak["gnubg_error_rate"] > 5 * strong["gnubg_error_rate"]
    assert result["blunders_flagged"] >= 0.7 * result["gnubg_blunders"]


def test_cli_analyse_text_json_and_plot(tmp_path):
    path = tmp_path / "money.mat"
    path.write_text(MONEY)
    png = tmp_path / "equity.png"
    run = subprocess.run([sys.executable, "-m", "bgengine", "analyse", str(path), "--plies", "0",
                          "--json", "--plot", str(png)], capture_output=True, text=True,
                         check=True)
    doc = json.loads(run.stdout)
    assert doc["players"] == ["Anna", "Bob"] and doc["plies"] == 0
    assert [d["kind"] for d in doc["decisions"]] == ["play", "cube", "answer"]
    assert doc["decisions"][2]["mark"] == "blunder"
    assert png.stat().st_size > 1000 and png.read_bytes()[:4] == b"\x89PNG"
    text = subprocess.run([sys.executable, "-m", "bgengine", "analyse", str(path), "--plies", "0"],
                          capture_output=True, text=True, check=True).stdout
    assert "Error rate (mEMG per decision)" in text and "PR (XG scale)" in text
    assert "game 1 move 2, Anna: blunder" in text and "XGID=" in text


def test_cli_analyse_rejects_a_bad_file(tmp_path):
    bad = tmp_path / "bad.mat"
    bad.write_text(MONEY.replace("31: 8/7 8/5", "31: 8/2"))
    run = subprocess.run([sys.executable, "-m", "bgengine", "analyse", str(bad)],
                         capture_output=True, text=True)
    assert run.returncode == 2 and "game 1" in run.stderr and "move 1" in run.stderr


def test_a_match_file_analysed_whole():
    """Every play of a real match file is analysed once; luck sums per player."""
    record = read_match_file(DATA / "net_vs_net-eps20.mat")
    a = analyse_match(record, _engine(0), 0)
    plays = sum(isinstance(x, type(record.games[0].actions[0]))
                for g in record.games for x in g.actions)
    assert sum(p.plays for p in a.players) == plays
    assert sum(p.luck for p in a.players) == pytest.approx(
        sum(d.luck for d in a.decisions if d.luck is not None))


def _resigned(*actions, length: int = 0):
    from bgengine.matchfiles.record import GameRecord, MatchRecord

    return MatchRecord(("Anna", "Bob"), length, [GameRecord((0, 0), list(actions))])


def test_resignations_judge_the_resigner_and_the_acceptor():
    from bgengine.matchfiles.record import Play, Resign, Win

    opening = Play(0, (3, 1), ((8, 5), (6, 5)))
    # Bob resigns a single game at the start: a blunder of his, Anna rightly accepts
    a = analyse_match(_resigned(opening, Resign(1, 1), Win(0, 1)), _engine(0), 0)
    resign, accept = (_decision(a, 1, p, k) for p, k in ((1, "resign"), (0, "accept")))
    assert (resign.action, resign.best) == ("resign a single game", "play on")
    assert resign.value == -1.0 and resign.equity_lost > 0.5 and resign.mark == "blunder"
    assert (accept.action, accept.best) == ("accept", "accept") and accept.equity_lost == 0
    assert accept.value == 1.0 and not resign.counted and not accept.counted
    assert a.players[1].errors + a.players[1].blunders >= 1
    # ... a backgammon in a 3-point match: the same, at the score (match-winning chances)
    m = analyse_match(_resigned(opening, Resign(1, 3), Win(0, 3), length=3), _engine(0), 0)
    resign = _decision(m, 1, 1, "resign")
    assert resign.value == 0.0 and resign.equity_lost > 0.5


def test_the_engine_offers_a_resignation_when_the_game_is_decided():
    import numpy as np

    from bgengine.notation.ids import MatchState

    e = _engine(0)
    sure_gammon = np.zeros((2, 25), np.uint8)
    sure_gammon[1, 12], sure_gammon[0, 0] = 15, 1      # it cannot bear off; the other side wins next
    assert e.resign_offer(sure_gammon, MatchState()) == 2
    assert e.resign_offer(sure_gammon, MatchState(), jacoby=True) == 1   # gammons single
    assert e.resign_offer(sure_gammon, MatchState(match_length=7, score=(3, 4))) == 2
    # ... which the other side values as playing on, and a single far below it
    other = np.ascontiguousarray(sure_gammon[::-1])
    play, gammon = e.resignation_values(other, MatchState(jacoby=False), 2)
    assert abs(play - gammon) < 0.01 and not e.resign_decision(other, MatchState(jacoby=False), 1)
    opening = GameState.from_string("4HPwATDgc/ABMA").board
    assert e.resign_offer(opening, MatchState()) == 0
    one_roll_shot = np.zeros((2, 25), np.uint8)
    one_roll_shot[1, 5], one_roll_shot[0, 0] = 3, 2     # only 6-6 wins: play on
    assert e.resign_offer(one_roll_shot, MatchState()) == 0
