"""tools/diagnose_vs_gnubg.py: classes, phases and the report's sums on made-up
judgements, and (with gnubg installed) one pair of games played and judged at 0-ply, where
gnubg's own plays must lose nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from bgengine.position import STARTING_BOARD
from tool_modules import load_tool

D = load_tool("diagnose_vs_gnubg")


def test_classes_and_phases():
    home = np.zeros((2, 25), np.uint8)
    home[:, 0:6] = [[3, 2, 2, 0, 0, 1], [2, 2, 2, 2, 2, 2]]
    assert D.position_class(home, 7) == "bearoff"
    race = home.copy()
    race[1, 10] = 1
    assert D.position_class(race, D.GNUBG_RACE) == "race"
    assert D.position_class(STARTING_BOARD, D.GNUBG_CONTACT) == "contact"
    assert D.position_class(STARTING_BOARD, D.GNUBG_CRASHED) == "crashed"
    assert D.phase(STARTING_BOARD, 3) == "opening"
    assert D.phase(STARTING_BOARD, 10) == "middle"
    back = STARTING_BOARD.copy()             # row 0 (the opponent) holds its 20 and 22 points
    back[0] = 0
    back[0, [19, 21]] = 2
    back[0, 5], back[0, 15] = 5, 6           # 15 checkers, 210 pips to 167: 43 behind
    assert D.phase(back, 10) == "back game"


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_report_sums(tmp_path):
    board = STARTING_BOARD.tolist()
    decisions = [  # pair 0: game 0 judged in full, game 1 only in part (left out)
        {"id": 0, "pair": 0, "game": 0, "number": 8, "side": "net", "board": board,
         "dice": [3, 1], "net": 1, "gnubg": 0},
        {"id": 1, "pair": 0, "game": 0, "number": 9, "side": "gnubg", "board": board,
         "dice": [3, 1], "net": 2, "gnubg": 0},
        {"id": 2, "pair": 0, "game": 1, "number": 8, "side": "net", "board": board,
         "dice": [3, 1], "net": 0, "gnubg": 0},
        {"id": 3, "pair": 0, "game": 1, "number": 9, "side": "net", "board": board,
         "dice": [3, 1], "net": 0, "gnubg": 0},
    ]
    judged = [
        {"id": 0, "class": D.GNUBG_CONTACT, "eq0": [], "eqn": {"0": 0.10, "1": 0.04}},
        {"id": 1, "class": D.GNUBG_CONTACT, "eq0": [], "eqn": {"0": 0.20, "2": 0.25}},
        {"id": 2, "class": D.GNUBG_CONTACT, "eq0": [], "eqn": {"0": 0.0}},
    ]
    write_jsonl(tmp_path / "decisions.jsonl", decisions)
    write_jsonl(tmp_path / "judged-0.jsonl", judged)
    (tmp_path / "points.json").write_text(json.dumps([1, -2]))
    s = D.report(tmp_path)
    assert s["games"] == 1 and s["judged"] == 2
    row = s["rows"]["contact: middle"]
    assert row["net"]["decisions"] == 1 and row["gnubg"]["decisions"] == 1
    assert row["net"]["equity_lost"] == pytest.approx(0.06)     # best 0.10, played 0.04
    assert row["gnubg"]["equity_lost"] == pytest.approx(0.05)   # best 0.25, played 0.20
    # gnubg's play minus the network's, at both decisions: +0.06 and -0.05
    assert row["net_loss_vs_gnubg_choice_per_game"][0] == pytest.approx(0.01)
    assert s["rows"]["all"]["differ"] == 2
    assert s["network_ppg_judged_games"][0] == 1
    assert "contact: middle" in D.markdown(s)


@pytest.mark.skipif(not Path("/usr/games/gnubg").exists() and shutil.which("gnubg") is None,
                    reason="GNU Backgammon is not installed")
def test_one_pair_judged_at_zero_ply(tmp_path):
    """Judged at gnubg's own 0-ply, gnubg 0-ply's plays are the judge's best (ties aside)."""
    D.main([str(tmp_path), "--pairs", "1", "--plies", "0", "--top", "1", "--jobs", "1"])
    from bgengine.matfile import read_mat

    match = read_mat((tmp_path / "games.mat").read_text())
    assert len(match.games) == 2
    s = json.loads((tmp_path / "report.json").read_text())
    assert s["games"] == 2 and s["judged"] == s["decisions"] > 20
    assert s["rows"]["all"]["gnubg"]["equity_lost"] == pytest.approx(0.0, abs=1e-6)
    assert s["rows"]["all"]["net"]["equity_lost"] >= 0
