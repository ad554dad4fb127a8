"""bgengine's analysis of matches against GNU Backgammon's own ``analyse match`` of them.

gnubg's side comes from ``bgengine/data/gnubg_analyse.py``, run inside gnubg
(``gnubg -t -q -r -p gnubg_analyse.py``; :func:`analysis_script` gives its path): a JSON
document of per-player statistics and the decisions gnubg marks, per match file.
:func:`compare_analyses` sets bgengine's analyses beside it: the correlation of the two
programs' per-player error rates (mEMG per decision) and of the decisions each counts, and
how many of gnubg's blunders (0.12 EMG lost or more) and errors (0.06 or more) bgengine also
marks, a decision matched by game, player, kind (play or cube) and Position ID.  The test
suite's golden data (``tests/data/analysis/gnubg_2ply.json``) were made so; ``docs/analysis.md``
has the figures.
"""

from __future__ import annotations

import math
from importlib import resources
from pathlib import Path

from bgengine.decisions.analysis import BLUNDER, ERROR, MatchAnalysis, analyse_match
from bgengine.decisions.engine import Engine
from bgengine.matchfiles.files import read_match_file

__all__ = ["analysis_script", "pearson", "compare_analyses", "analyse_golden"]


def analysis_script() -> Path:
    """The gnubg-side script that writes gnubg's analysis of match files as JSON."""
    return Path(str(resources.files("bgengine").joinpath("data", "gnubg_analyse.py")))


def pearson(xs: list[float], ys: list[float]) -> float:
    """Pearson's correlation of ``xs`` and ``ys`` (same length); NaN when either is constant."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx and syy else float("nan")


def _decision_key(game: int, player: int, kind: str, position_id: str) -> tuple:
    return (game, player, "move" if kind in ("move", "play") else "cube", position_id)


def compare_analyses(golden: dict, analyses: dict[str, MatchAnalysis]) -> dict:
    """The comparison of ``analyses`` (by file name) with the ``golden`` document."""
    players, missed = [], []
    found = {"blunder": [0, 0, 0], "error": [0, 0, 0]}   # gnubg's, bgengine marks any, same
    for m in golden["matches"]:
        a = analyses[m["file"]]
        ours = {_decision_key(d.game, d.player, d.kind, d.state.position_id): d
                for d in a.decisions}
        for k, g in enumerate(m["stats"]):
            p = a.players[k]
            players.append({"file": m["file"], "player": m["players"][k],
                            "gnubg_error_rate": g["error_rate"], "error_rate": p.error_rate,
                            "gnubg_checker_rate": 1000.0 * g["checker_error"] / g["unforced_moves"]
                            if g["unforced_moves"] else 0.0,
                            "checker_rate": 1000.0 * p.checker_error / p.unforced_plays
                            if p.unforced_plays else 0.0,
                            "gnubg_cube_error": g["cube_error"], "cube_error": p.cube_error,
                            "gnubg_decisions": g["unforced_moves"] + g["close_cube"],
                            "decisions": p.decisions,
                            "gnubg_unforced": g["unforced_moves"], "unforced": p.unforced_plays,
                            "gnubg_close_cube": g["close_cube"], "close_cube": p.cube_decisions})
        for g in m["decisions"]:
            lost = -g["skill"]
            level = "blunder" if lost >= BLUNDER else "error" if lost >= ERROR else None
            if level is None:
                continue
            d = ours.get(_decision_key(g["game"], g["player"], g["decision"],
                                       g["position_id"]))
            counts = found[level]
            counts[0] += 1
            if d is not None and d.mark in ("error", "blunder"):
                counts[1] += 1
            if d is not None and d.mark == level:
                counts[2] += 1
            if d is None or d.mark not in ("error", "blunder"):
                missed.append({"file": m["file"], **g,
                               "bgengine_lost": None if d is None else d.equity_lost,
                               "bgengine_best": None if d is None else d.best,
                               "bgengine_action": None if d is None else d.action})
    ours_marked = sum(len(a.marked) for a in analyses.values())
    return {
        "plies": golden["plies"], "players": players,
        "error_rate_correlation": pearson([p["gnubg_error_rate"] for p in players],
                                          [p["error_rate"] for p in players]),
        "checker_rate_correlation": pearson([p["gnubg_checker_rate"] for p in players],
                                            [p["checker_rate"] for p in players]),
        "decisions_correlation": pearson([p["gnubg_decisions"] for p in players],
                                         [p["decisions"] for p in players]),
        "gnubg_blunders": found["blunder"][0], "blunders_flagged": found["blunder"][1],
        "blunders_flagged_as_blunders": found["blunder"][2],
        "gnubg_errors": found["error"][0], "errors_flagged": found["error"][1],
        "bgengine_marked": ours_marked, "missed": missed,
    }


def analyse_golden(golden: dict, folder: Path, plies: int, files: list[str] | None = None
                   ) -> dict[str, MatchAnalysis]:
    """bgengine's analysis of each match of ``golden`` (its files in ``folder``)."""
    engine = Engine("net", plies=plies)
    return {m["file"]: analyse_match(read_match_file(folder / m["file"]), engine, plies)
            for m in golden["matches"] if files is None or m["file"] in files}
