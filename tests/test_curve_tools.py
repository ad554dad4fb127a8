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
