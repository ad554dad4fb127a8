"""The shipped evaluator's learning curve: its TD run, then the distillation rounds.

    python lab/distill_curve.py training/distill-pairwise-c128 --td-run training/classes-c128
        [--td-games 9248000] [--gnubg-games 4000] [--pubeval-games 20000] [--out PNG] [--luck]

Each round's evaluator (``ROUNDS/round1.npz``, ``round2.npz``, ... and the last round as
``ROUNDS/network.npz``) plays gnubg 0-ply and pubeval on the dice of
``lab/strength_curve.py`` (the same seeds as the TD run's curve), appending to
``ROUNDS/strength.jsonl`` (rounds already measured with as many games are skipped).  The
figure has two panels: the TD run's curve up to ``--td-games`` (its ``strength.jsonl``) and
the rounds, with each round's core-hours (``ROUNDS/rounds.json``: the collection and fit
time of each round) on the axis.  Needs gnubg and matplotlib.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from strength_curve import add_luck_argument, luck_meter, measure_against_both, measured, series

from bgengine.matches.players import make_player


def rounds(folder: Path) -> list[tuple[int, Path]]:
    """(round number, file) of the distillation rounds, in order; the last is network.npz."""
    numbered = sorted((int(p.stem[5:]), p) for p in folder.glob("round*.npz")
                      if p.stem[5:].isdigit())
    last = numbered[-1][0] if numbered else 0
    return numbered + [(last + 1, folder / "network.npz")]


def measure(folder: Path, gnubg_games: int, pubeval_games: int, luck=None) -> list[dict]:
    out = folder / "strength.jsonl"
    done = measured(out)
    gnubg = make_player("gnubg")
    try:
        for k, path in rounds(folder):
            measure_against_both(path, k, {"round": k, "file": path.name}, done, out, gnubg,
                                 gnubg_games, pubeval_games, f"round {k}:", luck=luck)
    finally:
        gnubg.close()
    return list(done.values())


def plot(td: list[dict], distilled: list[dict], hours: dict, td_games: int, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.5), dpi=120, sharey=True,
                                      gridspec_kw={"width_ratios": [3, 2]})
    for ax, records, key in ((left, [r for r in td if r["trained_games"] <= td_games],
                              "trained_games"), (right, distilled, "round")):
        for opponent in ("gnubg", "pubeval"):
            rs = sorted((r for r in records if r["opponent"] == opponent), key=lambda r: r[key])
            if not rs:
                continue
            x = [r[key] / 1e6 if key == "trained_games" else r[key] for r in rs]
            y, c, adjusted = series(rs)
            label = "vs gnubg 0-ply" if opponent == "gnubg" else "vs pubeval"
            line, = ax.plot(x, y, marker="o", markersize=3,
                            label=label + (", luck-adjusted" if adjusted else ""))
            ax.fill_between(x, [a - b for a, b in zip(y, c)], [a + b for a, b in zip(y, c)],
                            color=line.get_color(), alpha=0.2)
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.grid(alpha=0.3)
    left.set_xlabel("TD(0) self-play games (millions)")
    left.set_ylabel("ppg (cubeless money games)")
    left.set_title("TD(0) from random weights")
    left.legend()
    ks = sorted({r["round"] for r in distilled})
    right.set_xticks(ks)
    right.set_xticklabels([f"{k}\n{hours.get(str(k), 0):.1f} h" for k in ks])
    right.set_xlabel("distillation round (core-hours of the round)")
    right.set_title("play-ranking distillation")
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rounds", type=Path)
    ap.add_argument("--td-run", type=Path, required=True)
    ap.add_argument("--td-games", type=int, default=9_248_000)
    ap.add_argument("--gnubg-games", type=int, default=4000)
    ap.add_argument("--pubeval-games", type=int, default=20000)
    ap.add_argument("--out", type=Path, default=None, help="default: ROUNDS/strength.png")
    add_luck_argument(ap)
    args = ap.parse_args(argv)
    distilled = measure(args.rounds, args.gnubg_games, args.pubeval_games, luck_meter(args))
    td = list(measured(args.td_run / "strength.jsonl").values())
    hours_file = args.rounds / "rounds.json"
    hours = json.loads(hours_file.read_text()) if hours_file.exists() else {}
    out = args.out or args.rounds / "strength.png"
    plot(td, distilled, hours, args.td_games, out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
