"""tools/calibration_vs_gnubg.py: outputs and cube actions against gnubg's."""

from __future__ import annotations

import numpy as np
import pytest
from tool_modules import load_tool

from bgengine.gnubg.binary import GnubgNotFound, find_gnubg


def _has_gnubg() -> bool:
    try:
        find_gnubg()
    except GnubgNotFound:
        return False
    return True



@pytest.fixture(scope="module")
def calibration():
    return load_tool("calibration_vs_gnubg")


def _probs(n, seed=0):
    rng = np.random.default_rng(seed)
    win = rng.uniform(0.05, 0.95, n)
    wg = win * rng.uniform(0, 0.4, n)
    lg = (1 - win) * rng.uniform(0, 0.4, n)
    return np.stack([win, wg, wg * 0.05, lg, lg * 0.05], axis=1)


def test_identical_outputs_agree_everywhere(calibration):
    ref = _probs(400)
    r = calibration.compare(ref.copy(), ref, calibration.money_cube(ref))
    assert r["equity_rmse"] == 0 and r["equity_bias"] == 0
    assert r["double_disagree"] == 0 and r["doubler_loss"] == 0
    assert r["taker_loss_where_double"] == 0
    assert 0 < r["gnubg_doubles"] < 400


def test_an_optimistic_player_shows_bias_and_cube_errors(calibration):
    ref = _probs(400, seed=1)
    ours = ref.copy()
    ours[:, 0] = np.clip(ours[:, 0] + 0.1, 0, 1)     # ten points more wins than gnubg
    r = calibration.compare(ours, ref, calibration.money_cube(ref))
    assert r["equity_bias"] > 0.1 and r["rmse"]["win"] == pytest.approx(
        np.sqrt(((ours[:, 0] - ref[:, 0]) ** 2).mean()))
    assert r["doubles"] > r["gnubg_doubles"]             # doubles too early
    assert r["doubler_loss"] > 0 and r["double_disagree"] > 0


@pytest.mark.skipif(not _has_gnubg(), reason="GNU Backgammon (gnubg) is not installed")
def test_gnubg_values_the_opening_position(calibration):
    board = np.zeros((2, 2, 25), np.uint8)
    for side in (0, 1):
        board[:, side, [5, 7, 12, 23]] = [5, 3, 5, 2]
    out = calibration.gnubg_outputs(board, plies=0, jobs=2)
    assert out.shape == (2, 5) and np.array_equal(out[0], out[1])
    assert 0.5 < out[0, 0] < 0.56                      # the side on roll is slightly ahead
    assert 0 < out[0, 2] < out[0, 1] < out[0, 0]
