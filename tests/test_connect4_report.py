"""A Connect Four network's report card (bgengine.games.connect4_report) and the study's grid
tool (tools/connect4_study.py)."""

from __future__ import annotations

from pathlib import Path

from bgengine.connect4 import Board
from bgengine.games import learners
from bgengine.games.connect4_report import (AGREEMENT_STONES, agreement_positions,
                                            network_report, seat_results)
from bgengine.games.network import GameNetwork
from tool_modules import load_tool

ROOT = Path(__file__).resolve().parent.parent


def test_seat_results_are_the_nets_from_both_seats():
    net = GameNetwork("connect4", "separated", (10,), seed=1)
    r = seat_results(net, "random", 50, seed=4)
    first = learners.play("connect4", net, "random", 50, seed=4)
    second = learners.play("connect4", "random", net, 50, seed=5)
    assert r["first"]["win"] == first.wins / 50 and r["second"]["win"] == second.losses / 50
    assert r["mean"]["loss"] == (first.losses + second.wins) / 100


def test_agreement_positions_stop_in_the_range():
    positions = agreement_positions(40, seed=2)
    assert len(positions) == 40 and positions == agreement_positions(40, seed=2)
    lo, hi = AGREEMENT_STONES
    for seq in positions:
        assert lo <= len(seq) <= hi and Board.from_moves(seq).legal_moves()
    assert len({len(seq) for seq in positions}) > 4


def test_network_report():
    net = GameNetwork("connect4", "separated", (10,), seed=1)
    learners.train_td(net, 200, 0.1, seed=1)
    report = network_report(net, 20, opponents=("random", "mm1"), simulations=(14,),
                            agreement=6)
    assert set(report["opponents"]) == {"random", "mm1", "sim14"}
    assert report["concepts"]["attack"] == 1.0 and len(report["concepts"]) == 12
    assert report["agreement"]["positions"] == 6
    assert 0 <= report["agreement"]["exact"] <= report["agreement"]["outcome"] <= 1


def study_tool():
    return load_tool("connect4_study")


def test_the_study_tool_reads_the_grid():
    study = study_tool()
    runs = study.runs(study.GRID, games=1000)
    assert len(runs) == 2 * 4 * 3 and len({name for name, _, _ in runs}) == 24
    assert {(c.representation, c.hidden[0], c.lam) for _, _, c in runs} == {
        (r, h, lam) for r in ("simple", "separated") for h in (20, 40, 80, 120)
        for lam in (0.0, 0.3, 0.6)}
    assert all(c.games == 1000 and c.game == "connect4" and c.opponent == "self"
               for _, _, c in runs)
    net = GameNetwork("connect4", "simple", (20,), seed=1)
    line = study.row(runs[0][2], network_report(net, 4), 0.5)
    assert line.count("|") == study.HEADER.splitlines()[0].count("|")


def test_the_study_tool_runs_the_simulation_learner(tmp_path):
    report = study_tool().simulation_study(tmp_path, 12, 2, 3, 4)
    assert GameNetwork.load(tmp_path / "simulation" / "network.npz").metadata["games"] == 12
    assert report["search_vs_simulation"]["budget"] == 6
    for seat in ("first", "second"):
        assert abs(sum(report["search_vs_simulation"][seat].values()) - 1) < 1e-9
    assert "mm4" in report["opponents"] and "mean" in report["greedy_vs_simulation"]
