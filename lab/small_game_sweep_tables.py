"""Markdown tables of a small game's sweep (``bgengine sweep`` with ``[base] game``): the
grid's marginal means per training opponent, the best and worst point of each, and every
point.

    python lab/small_game_sweep_tables.py OUT/sweep.json [--opponents random primitive smart]
        [--all]

A point's score is the mean over seeds and over both seats of win - loss (+1 a win, 0 a draw,
-1 a loss) against the named evaluation opponents.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bgengine.training.sweep import wdl


def score(point: dict, opponents: list[str]) -> float:
    """Mean win - loss over ``opponents`` and both seats."""
    cells = [point["opponents"][o][seat] for o in opponents for seat in ("first", "second")]
    return sum(c["win"] - c["loss"] for c in cells) / len(cells)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sweep", type=Path)
    ap.add_argument("--opponents", nargs="+", default=["random", "primitive", "smart"])
    ap.add_argument("--all", action="store_true", help="a table of every point too")
    args = ap.parse_args()
    doc = json.loads(args.sweep.read_text())
    grid, points, opps = doc["grid"], doc["points"], args.opponents
    trained = grid.get("opponent", [doc["base"].get("opponent", "self")])
    varied = [k for k in grid if k != "opponent"]
    against = lambda p, o: p.get("opponent", doc["base"].get("opponent")) == o  # noqa: E731

    print(f"Mean score (win - loss, both seats, vs {', '.join(opps)}) over the other settings "
          f"and {len(doc['seeds'])} seeds:\n")
    print("| setting | " + " | ".join(f"trained vs {o}" for o in trained) + " |")
    print("|---|" + "---|" * len(trained))
    for key in varied:
        for value in grid[key]:
            cells = []
            for o in trained:
                s = [score(p, opps) for p in points if p[key] == value and against(p, o)]
                cells.append(f"{sum(s) / len(s):+.3f}")
            print(f"| {key} = {value} | " + " | ".join(cells) + " |")

    print("\nBest and worst point per training opponent (W-D-L %, first / second seat):\n")
    cols = [*opps, *(o for o in points[0]["opponents"] if o not in opps)]
    print("| trained vs | point | score | " + " | ".join(f"vs {o}" for o in cols) + " |")
    print("|---|---|---|" + "---|" * len(cols))
    for o in trained:
        ranked = sorted((p for p in points if against(p, o)), key=lambda p: -score(p, opps))
        for label, p in (("best", ranked[0]), ("worst", ranked[-1])):
            name = ", ".join(f"{k} {p[k]}" for k in varied)
            print(f"| {o} | {label}: {name} | {score(p, opps):+.3f} | "
                  + " | ".join(wdl(p["opponents"][c]) for c in cols) + " |")
    if args.all:
        print("\nEvery point (W-D-L %, first / second seat; score: mean over seeds, the seeds' "
              "spread in brackets):\n")
        print("| trained vs | " + " | ".join(varied) + " | score | "
              + " | ".join(f"vs {o}" for o in cols) + " |")
        print("|---|" + "---|" * (len(varied) + 1 + len(cols)))
        for p in points:
            runs = [r for r in doc["runs"] if r.get("complete")
                    and Path(r["run"]).parent.name == p["point"]]
            per_seed = [sum(e["win"] - e["loss"] for e in r["evaluations"]
                            if e["opponent"] in opps) / (2 * len(opps)) for r in runs]
            print(f"| {p.get('opponent', doc['base'].get('opponent'))} | "
                  + " | ".join(str(p[k]) for k in varied)
                  + f" | {score(p, opps):+.3f} ({min(per_seed):+.2f}..{max(per_seed):+.2f}) | "
                  + " | ".join(wdl(p["opponents"][c]) for c in cols) + " |")


if __name__ == "__main__":
    main()
