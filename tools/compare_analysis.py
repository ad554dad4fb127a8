"""bgengine's analysis of the test matches against GNU Backgammon's (the golden data).

    python tools/compare_analysis.py [--golden tests/data/analysis/gnubg_2ply.json]
                                     [--plies 2] [--json]

For every match of the golden file (made by ``tools/gnubg_analyse.py``), ``bgengine
analyse`` at the same depth; then, over all players of all matches:

* the Pearson correlation of the two programs' per-player error rates (mEMG per
  decision), and of the counts of decisions each divides by;
* gnubg's blunders (very bad: 0.12 EMG lost or more) and errors (bad: 0.06 or more),
  and how many of them bgengine also marks (as an error or worse; as a blunder), a
  decision matched by game, player, kind (play or cube) and gnubg's Position ID.

``docs/analysis.md`` reports the figures and the differences found.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from bgengine.analysis import BLUNDER, ERROR, MatchAnalysis, analyse_match
from bgengine.engine import Engine
from bgengine.matchfiles import read_match_file

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "data" / "analysis" / "gnubg_2ply.json"


def pearson(xs: list[float], ys: list[float]) -> float:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx and syy else float("nan")


def _key(game: int, player: int, kind: str, position_id: str) -> tuple:
    return (game, player, "move" if kind in ("move", "play") else "cube", position_id)


def compare(golden: dict, analyses: dict[str, MatchAnalysis]) -> dict:
    """The comparison of ``analyses`` (by file name) with the ``golden`` document."""
    players, missed = [], []
    found = {"blunder": [0, 0, 0], "error": [0, 0, 0]}   # gnubg's, bgengine marks any, same
    for m in golden["matches"]:
        a = analyses[m["file"]]
        ours = {_key(d.game, d.player, d.kind, d.state.position_id): d for d in a.decisions}
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
            d = ours.get(_key(g["game"], g["player"], g["decision"], g["position_id"]))
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--golden", type=Path, default=GOLDEN)
    parser.add_argument("--plies", type=int, default=None, help="default: the golden file's")
    parser.add_argument("--json", action="store_true", help="print the whole comparison")
    args = parser.parse_args()
    golden = json.loads(args.golden.read_text())
    result = compare(golden, analyse_golden(golden, args.golden.parent,
                                            args.plies if args.plies is not None
                                            else golden["plies"]))
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"{'match':<28}{'player':<10}{'gnubg':>8}{'bgengine':>10}{'decisions':>14}")
    for p in result["players"]:
        print(f"{p['file']:<28}{p['player']:<10}{p['gnubg_error_rate']:8.1f}"
              f"{p['error_rate']:10.1f}{p['gnubg_decisions']:>7d}/{p['decisions']:<6d}")
    print(f"error rate correlation {result['error_rate_correlation']:.3f} (checker play "
          f"alone {result['checker_rate_correlation']:.3f}); decisions counted "
          f"correlation {result['decisions_correlation']:.3f}")
    print(f"gnubg's blunders: {result['gnubg_blunders']}, bgengine flags "
          f"{result['blunders_flagged']} as errors or blunders "
          f"({result['blunders_flagged_as_blunders']} as blunders); gnubg's errors: "
          f"{result['gnubg_errors']}, flagged {result['errors_flagged']}")
    for d in result["missed"]:
        print(f"  missed: {d['file']} game {d['game']} {d['alert']} {d['skill']:+.3f} "
              f"{d['position_id']}:{d['match_id']}; bgengine: {d['bgengine_action']} "
              f"lost {d['bgengine_lost']}, best {d['bgengine_best']}")


if __name__ == "__main__":
    main()
