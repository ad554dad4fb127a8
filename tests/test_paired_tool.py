"""tools/paired_vs_gnubg.py: file names, the paired table, a run against a fake gnubg."""

from __future__ import annotations

import numpy as np
import pytest
from tool_modules import load_tool

from bgengine.players import default_network_path
from bgengine.results import ci95
from test_gnubg import fake, no_leftovers  # noqa: F401  (fixtures)


def test_file_names():
    tool = load_tool("paired_vs_gnubg")
    assert tool.file_name("net:training/x/round7-candidate.npz", 17) == "round7-candidate_17.npz"
    assert tool.file_name("gnubg:1", 3) == "gnubg_1_3.npz"
    assert tool.file_name("net", 5) == "net_5.npz"


def _run(points, luck, bad=None):
    points = np.asarray(points, np.int8)
    return {"points": points, "luck": np.asarray(luck, float),
            "bad": np.zeros(points.shape, bool) if bad is None else np.asarray(bad),
            "moves": np.full(points.shape, 40)}


def test_report_pairs_the_same_dice_and_drops_bad_pairs():
    tool = load_tool("paired_vs_gnubg")
    a = [_run([[1, -1], [2, 1]], [[0.5, -0.5], [1.0, 1.0]]), _run([[-1, -1]], [[-1.0, 0.0]])]
    b = [_run([[1, 1], [3, 3]], [[0.5, 0.5], [0.0, 0.0]], bad=[[False, False], [True, False]]),
         _run([[1, -1]], [[0.0, 0.0]])]
    lines = tool.report(["A", "B"], {"A": a, "B": b})
    adj_a = np.array([0.0, 0.5, -0.5])                  # pair means of points - luck
    adj_b = np.array([0.5, 3.0, 0.0])
    keep = np.array([True, False, True])                # B's second pair had a bad reply
    assert lines[2] == (f"| A | 6 | {np.mean([0, 1.5, -1]):+.4f} ± {ci95([0, 1.5, -1]):.4f} | "
                        f"{adj_a.mean():+.4f} ± {ci95(adj_a):.4f} |  |")
    d = adj_b[keep] - adj_a[keep]
    assert lines[3].startswith("| B | 4 |")
    assert lines[3].endswith(f"| {d.mean():+.4f} ± {ci95(d):.4f} |")


@pytest.mark.skipif(not default_network_path().exists(), reason="no shipped network")
def test_run_against_a_fake_gnubg_and_resume(fake, tmp_path, monkeypatch, capsys,  # noqa: F811
                                             no_leftovers):  # noqa: F811
    tool = load_tool("paired_vs_gnubg")
    monkeypatch.setenv("BGENGINE_GNUBG", fake.binary)
    out = tmp_path / "games"
    args = [str(out), "pubeval", "net", "--seeds", "3", "4", "--games", "4",
            "--gnubg-processes", "2"]
    tool.main(args)
    first = capsys.readouterr().out
    saved = sorted(p.name for p in out.iterdir())
    assert saved == ["net_3.npz", "net_4.npz", "pubeval_3.npz", "pubeval_4.npz"]
    run = np.load(out / "net_3.npz")
    assert run["points"].shape == run["luck"].shape == (2, 2) and not run["bad"].any()
    monkeypatch.setenv("BGENGINE_GNUBG", "/nonexistent")     # read back, not played again
    tool.main(args)
    again = capsys.readouterr().out
    assert "games in" in first and "games in" not in again
    assert first.splitlines()[-2:] == again.splitlines()[-2:]
    assert again.splitlines()[-1].startswith("| net | 8 |")


@pytest.mark.skipif(not default_network_path().exists(), reason="no shipped network")
def test_any_opponent_is_played_from_python(tmp_path, capsys):
    """``--opponent pubeval``: the games of ``bgengine match`` on the same dice (the
    compiled runner's, for deterministic players), luck measured; a file saved against
    another opponent is refused, not mixed in."""
    from bgengine.agents import play_match
    from bgengine.players import make_player

    tool = load_tool("paired_vs_gnubg")
    out = tmp_path / "games"
    tool.main([str(out), "net", "simple1", "--seeds", "5", "--games", "6", "--opponent", "pubeval"])
    assert "against pubeval" in capsys.readouterr().out
    run = np.load(out / "net_5.npz")
    assert str(run["opponent"]) == "pubeval" and not run["bad"].any()
    points, _ = play_match(make_player("net"), make_player("pubeval"), 3, seed=5, n_threads=1)
    assert np.array_equal(run["points"], points)
    assert np.abs(run["luck"]).sum() > 0
    with pytest.raises(ValueError, match="against 'pubeval', not 'random'"):
        tool.main([str(out), "net", "--seeds", "5", "--games", "6", "--opponent", "random"])
