"""tools/strength_curve.py and tools/distill_curve.py: the rounds, the records, the figure."""

from __future__ import annotations

import json
import shutil
import sys

import pytest
from tool_modules import TOOLS, load_tool


@pytest.fixture(scope="module")
def curves():
    sys.path.insert(0, str(TOOLS))          # distill_curve imports strength_curve, as when run
    try:
        yield load_tool("strength_curve"), load_tool("distill_curve")
    finally:
        sys.path.remove(str(TOOLS))


def test_rounds_in_order_with_the_last_as_network(curves, tmp_path):
    _, distill = curves
    for name in ("round2.npz", "round10.npz", "round1.npz", "round4-contact.npz", "network.npz"):
        (tmp_path / name).write_bytes(b"")
    assert [(k, p.name) for k, p in distill.rounds(tmp_path)] == [
        (1, "round1.npz"), (2, "round2.npz"), (10, "round10.npz"), (11, "network.npz")]


def test_measure_appends_once_and_the_figure_is_drawn(curves, tmp_path):
    strength, distill = curves
    from bgengine.players import default_network_path

    pytest.importorskip("matplotlib")
    net = tmp_path / "network.npz"
    shutil.copy(default_network_path(), net)
    out, done = tmp_path / "strength.jsonl", {}
    for _ in range(2):                      # the second call finds it measured
        strength.measure_against_both(net, 3, {"round": 3}, done, out, None, 0, 20, "r3")
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) == 1 and lines[0]["opponent"] == "pubeval" and lines[0]["games"] == 20
    assert lines[0]["round"] == 3 and lines[0]["trained_games"] == 3
    td = [{"trained_games": g, "opponent": "pubeval", "ppg": 0.5, "ci95": 0.02} for g in (1, 2)]
    distill.plot(td, lines, {"3": 1.5}, 10, tmp_path / "c.png")
    assert (tmp_path / "c.png").stat().st_size > 1000


def test_luck_adjusted_points_are_measured_again_and_drawn(curves, tmp_path):
    strength, _ = curves
    from bgengine.agents import Player
    from bgengine.luck import LuckMeter
    from bgengine.players import default_network_path, load_default_network

    net = tmp_path / "network.npz"
    shutil.copy(default_network_path(), net)
    out, done = tmp_path / "strength.jsonl", {}
    stand_in = Player("pubeval")                 # in gnubg's place: only its results are read
    meter = LuckMeter(load_default_network())
    strength.measure_against_both(net, 1, {}, done, out, stand_in, 20, 0, "plain")
    for _ in range(2):                           # measured again once, for the luck
        strength.measure_against_both(net, 1, {}, done, out, stand_in, 20, 0, "luck", luck=meter)
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["luck_adjusted_ppg"] is None for r in lines] == [True, False]
    assert lines[0]["ppg"] == lines[1]["ppg"]    # the same games (deterministic players)
    assert done[(1, "gnubg")]["luck_adjusted_ppg"] == lines[1]["luck_adjusted_ppg"]
    y, c, adjusted = strength.series(lines[1:])
    assert adjusted and y == [lines[1]["luck_adjusted_ppg"]] and c[0] < lines[1]["ci95"]
    assert strength.series(lines) == ([r["ppg"] for r in lines], [r["ci95"] for r in lines],
                                      False)
