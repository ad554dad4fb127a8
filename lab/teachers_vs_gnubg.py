"""Which search values would teach the network best, judged by GNU Backgammon (a referee only).

    python lab/teachers_vs_gnubg.py --player net:PATH --two A2.npz [B2.npz ...] \
        --three A3.npz [B3.npz ...] [--referee-plies 2] [--jobs 2]

The files are ``bgengine distill collect`` outputs of the same games (same
player, ``--seed`` and ``--games``), made with ``--plies 2`` and ``--plies 3``: the same
positions (the best three plays of a third of the decisions) with our 2-ply and 3-ply values.
The player's 1-ply values are computed here.  gnubg values every position at
``--referee-plies``; for each decision with at least two plays kept, each set of our values
(0, 1, 2, 3 plies and two means) picks a play, and the table gives how often it is gnubg's
best, the gnubg equity it loses per decision, and the RMS of the equities centred on the
decision's mean against gnubg's.  gnubg's values are not used for training anything.
Results: docs/strength.md ("docs/experiments.md, "A better teacher: the mean of 2-ply and 3-ply"").
"""
from __future__ import annotations

import argparse

import numpy as np

from bgengine.decisions.engine import Engine
from bgengine.core.network import equity_of
from bgengine.matches.players import load_network_spec


def load(files: list[str]) -> dict:
    data = [dict(np.load(f)) for f in files]
    return {"boards": np.concatenate([d["boards"] for d in data]),
            "static": np.concatenate([d["static"] for d in data]),
            "targets": np.concatenate([d["targets"] for d in data]),
            "group": np.concatenate([d["group"] + 10**9 * i for i, d in enumerate(data)])}


def judge(values: dict[str, np.ndarray], referee: np.ndarray, group: np.ndarray) -> list[str]:
    """Rows of the table; equities are of the side on roll after the play (the mover's
    best play has the lowest)."""
    _, gi, cnt = np.unique(group, return_inverse=True, return_counts=True)
    multi = cnt[gi] > 1
    decisions = [np.flatnonzero(gi == k) for k in np.unique(gi[multi])]

    def centred(e: np.ndarray) -> np.ndarray:
        return e - (np.bincount(gi, weights=e) / cnt)[gi]

    rows = []
    for name, e in values.items():
        rms = float(np.sqrt(((centred(e) - centred(referee))[multi] ** 2).mean()))
        picks = [ix[np.argmin(e[ix])] for ix in decisions]
        bests = [ix[np.argmin(referee[ix])] for ix in decisions]
        same = np.mean([p == b for p, b in zip(picks, bests)])
        loss = np.mean([referee[p] - referee[b] for p, b in zip(picks, bests)])
        rows.append(f"| {name} | {same:.1%} | {loss:.5f} | {rms:.4f} |")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--player", default="net")
    ap.add_argument("--two", nargs="+", required=True)
    ap.add_argument("--three", nargs="+", required=True)
    ap.add_argument("--referee-plies", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    from calibration_vs_gnubg import gnubg_outputs   # sibling scripts (lab/ is on the path)
    from bgengine.training.distillation import check_same_positions

    two, three = load(args.two), load(args.three)
    try:
        check_same_positions([two, three])
    except ValueError as e:
        raise SystemExit(f"the --two and --three files do not hold the same positions: {e}")
    engine = Engine(network=load_network_spec(args.player), plies=1)
    e1 = equity_of(np.array([engine.evaluate(b, plies=1) for b in two["boards"]]))
    e2, e3 = equity_of(two["targets"]), equity_of(three["targets"])
    values = {"0-ply": equity_of(two["static"]), "1-ply": e1, "2-ply": e2, "3-ply": e3,
              "mean of 2-ply and 3-ply": (e2 + e3) / 2, "mean of 1-ply and 2-ply": (e1 + e2) / 2}
    referee = equity_of(gnubg_outputs(two["boards"], args.referee_plies, args.jobs))
    print(f"{len(two['boards'])} positions; referee gnubg {args.referee_plies}-ply")
    print("| our values | same best play | gnubg equity lost per decision | centred RMS |")
    print("|---|---|---|---|")
    print("\n".join(judge(values, referee, two["group"])))


if __name__ == "__main__":
    main()
