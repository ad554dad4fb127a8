"""tools/rollout_referee.py: rollouts of both engines' plays where they differ."""

from __future__ import annotations

import json

import numpy as np
import pytest
from tool_modules import load_tool

from bgengine.players import default_network_path

pytestmark = pytest.mark.skipif(not default_network_path().exists(), reason="no shipped network")


def _race_decisions(n: int) -> list[dict]:
    """``n`` race decisions of a self-play game, as ``diagnose_vs_gnubg`` writes them, the
    "gnubg" play being the network's second choice."""
    from bgengine.dice import Dice
    from bgengine.evaluator import CLASSES, as_evaluator
    from bgengine.game import game_decisions
    from bgengine.players import load_network_spec

    ev = as_evaluator(load_network_spec(None))
    rows, k, g = [], None, 0
    while len(rows) < n:
        loop = game_decisions(Dice(3, stream=g))
        k = None
        try:
            while True:
                d = loop.send(k)
                opp = np.ascontiguousarray(d.afterstates[:, ::-1])
                order = np.argsort(ev.equity(opp), kind="stable")      # the mover's best first
                k = int(order[0])
                if len(order) > 1 and CLASSES[ev.classify(d.board)] == "race" and len(rows) < n:
                    rows.append({"id": len(rows), "pair": g, "game": 0, "number": d.number,
                                 "side": "net", "board": d.board.tolist(), "dice": [d.d1, d.d2],
                                 "net": k, "gnubg": int(order[1])})
        except StopIteration:
            g += 1
    return rows


def test_referee_rolls_out_both_plays_on_the_same_dice(tmp_path, capsys):
    tool = load_tool("rollout_referee")
    from bgengine.players import load_network_spec

    rows = _race_decisions(3)
    rows.append(dict(rows[0], id=3, gnubg=rows[0]["net"]))     # the same play: not compared
    (tmp_path / "decisions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "judged-0.jsonl").write_text(json.dumps(
        {"id": 1, "class": 8, "eqn": {str(rows[1]["net"]): 0.1, str(rows[1]["gnubg"]): 0.05}}) + "\n")
    tool.main([str(tmp_path), "--trials", "72", "--threads", "1"])
    text = capsys.readouterr().out
    saved = json.loads((tmp_path / "referee-race.json").read_text())
    assert [r["id"] for r in saved] == [0, 1, 2]
    model = load_network_spec(None)
    d = rows[2]
    want = (tool.play_equity(model, np.array(d["board"], np.uint8), tuple(d["dice"]), d["gnubg"],
                             72, 1002, 1)
            - tool.play_equity(model, np.array(d["board"], np.uint8), tuple(d["dice"]), d["net"],
                               72, 1002, 1))
    assert saved[2]["diff"] == pytest.approx(want.mean(), abs=1e-9)
    assert 0 < saved[2]["stderr"] < 0.05
    assert "3 decisions where the plays differ" in text
    assert "the gnubg judge on the same 1 decisions: -0.050" in text


def test_a_play_that_bears_off_the_last_checker_wins_its_points():
    tool = load_tool("rollout_referee")
    from bgengine.players import load_network_spec

    board = np.zeros((2, 25), np.uint8)
    board[1, 0] = 1                                  # the mover: one checker on its 1-point
    board[0, 10] = 15                                # the opponent: none off, none in our home
    model = load_network_spec(None)
    assert tool.play_equity(model, board, (3, 1), 0, 8, 0, 1).tolist() == [2.0] * 8   # a gammon
    board[0, 10], board[0, 20] = 14, 1               # one on its 21-point: our 4-point
    assert tool.play_equity(model, board, (3, 1), 0, 8, 0, 1).tolist() == [3.0] * 8


def test_candidate_plays_are_compared_with_the_networks(tmp_path, capsys):
    """``--candidate``: the other play is that player's choice at the same decision; the
    network itself as the candidate differs nowhere."""
    tool = load_tool("rollout_referee")
    rows = _race_decisions(6)
    (tmp_path / "decisions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert tool.referee(tmp_path, "race", 36, None, 1, progress=False, candidate="net") == []
    tool.main([str(tmp_path), "--trials", "36", "--threads", "1", "--candidate", "pubeval"])
    assert "pubeval's play minus the network's" in capsys.readouterr().out
    saved = json.loads((tmp_path / "referee-race-candidate.json").read_text())
    from bgengine.players import load_network_spec, make_player

    pub, model = make_player("pubeval"), load_network_spec(None)
    differ = [r for r in rows if pub.choose(np.array(r["board"], np.uint8), *r["dice"], 0) != r["net"]]
    assert [s["id"] for s in saved] == [r["id"] for r in differ]
    if differ:
        r = differ[0]
        b = np.array(r["board"], np.uint8)
        k = pub.choose(b, *r["dice"], 0)
        want = (tool.play_equity(model, b, tuple(r["dice"]), k, 36, 1000 + r["id"], 1)
                - tool.play_equity(model, b, tuple(r["dice"]), r["net"], 36, 1000 + r["id"], 1))
        assert saved[0]["diff"] == pytest.approx(want.mean(), abs=1e-9)
