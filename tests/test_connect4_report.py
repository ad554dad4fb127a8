"""A Connect Four network's report card (bgengine.games.connect4_report)."""

from __future__ import annotations

from bgengine.core.connect4 import Board
from bgengine.games import learners
from bgengine.games.connect4_report import (AGREEMENT_STONES, agreement_positions,
                                            network_report, seat_results)
from bgengine.games.network import GameNetwork


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
