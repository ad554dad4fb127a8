"""Match results: the pair-mean 95% interval by hand, summaries of pair arrays,
the cube-match report."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bgengine.matches.results import CubeMatchResult, MatchResult, ci95, summarize


def test_ci95_by_hand():
    x = [0.0, 1.5, -2.0, 1.0]
    mean = sum(x) / 4
    sd = math.sqrt(sum((v - mean) ** 2 for v in x) / 3)
    assert ci95(x) == pytest.approx(1.96 * sd / 2)
    assert ci95(np.array([[1.0, 2.0], [3.0, 4.0]])) == pytest.approx(ci95([1, 2, 3, 4]))
    assert math.isinf(ci95([3.0])) and math.isinf(ci95([]))


def test_summarize_by_hand():
    pts = np.array([[1, -1], [2, 1], [-3, -1], [1, 1]], np.int8)
    moves = np.array([[50, 60], [40, 44], [70, 72], [30, 31]], np.int32)
    r = summarize("A", "B", pts, moves)
    pair = np.array([0.0, 1.5, -2.0, 1.0])
    assert isinstance(r, MatchResult) and r.games == 8
    assert r.ppg == pytest.approx(0.125)
    assert r.ci95 == pytest.approx(1.96 * pair.std(ddof=1) / 2)
    assert r.win == pytest.approx(5 / 8)
    assert r.win_gammon == pytest.approx(1 / 8) and r.win_backgammon == 0
    assert r.lose_gammon == pytest.approx(1 / 8) and r.lose_backgammon == pytest.approx(1 / 8)
    assert r.mean_moves == pytest.approx(moves.mean())
    assert r.as_dict()["ppg"] == r.ppg and "ppg" in str(r)
    one = summarize("A", "B", pts[:1], moves[:1])
    assert math.isinf(one.ci95)



def test_summarize_drops_pairs_with_a_bad_game():
    pts = np.array([[1, -1], [2, 1], [-3, -1]], np.int8)
    moves = np.ones((3, 2), np.int32)
    bad = np.array([[False, False], [False, True], [False, False]])
    r = summarize("A", "B", pts, moves, bad, ("game 3: no reply",))
    assert r.games == 4 and r.bad_games == 1
    assert r.ppg == pytest.approx(np.mean([0.0, -2.0]))
    assert "1 games with a bad reply" in str(r) and "game 3: no reply" in str(r)


def test_cube_match_result_text():
    money = CubeMatchResult("a", "b", 0, 10, 0.25, 0.5, 10, 0.4, 0.1, 1.5)
    assert "+0.250 ppg ± 0.500" in str(money) and money.as_dict()["n"] == 10
    match = CubeMatchResult("a", "b", 5, 10, 0.6, 0.1, 37, 0.4, 0.1, 1.5)
    assert "won 60.0% ± 10.0%" in str(match) and "matches to 5 (37 games)" in str(match)
