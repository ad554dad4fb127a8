"""Head to head from given start positions: which of two players plays them better.

    python lab/match_from_positions.py A B POSITIONS.npz [--limit N] [--seed 7]

Every position of the file (``bgengine.training.startpositions``: e.g. races sampled from
self-play) is played twice with the same dice (stream ``i`` of ``--seed`` for position
``i``), A on roll in one game and B in the other; the result is A's points per game with
a 95% interval over the position pairs.  Much more sensitive than full games to a
change of one class network (e.g. the race network), since only that class's plays
differ.  A and B are player specs (``net``, ``net:PATH``, ...).
"""

from __future__ import annotations

import argparse
import json
import math
import sys

import numpy as np

from bgengine.core.dice import Dice
from bgengine.matches.game import play_game
from bgengine.matches.players import make_player
from bgengine.training.startpositions import load_positions


def play_pairs(a, b, boards: np.ndarray, seed: int) -> np.ndarray:
    """A's points in each pair of games (shape (N,)): position ``i`` with A on roll, then
    with B on roll, both with dice stream ``i`` of ``seed``."""
    points = np.zeros(len(boards))
    for i, start in enumerate(boards):
        for g, seats in enumerate(((a, b), (b, a))):
            seat0, _ = play_game(seats, Dice(seed, stream=i), seed, i, g, start=start)
            points[i] += seat0 if g == 0 else -seat0
    return points


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("positions")
    ap.add_argument("--limit", type=int, default=0, help="use the first N positions (0: all)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    boards, _ = load_positions(args.positions)
    if args.limit:
        boards = boards[:args.limit]
    pairs = play_pairs(make_player(args.a), make_player(args.b), boards, args.seed) / 2
    ppg = float(pairs.mean())
    ci = float(1.96 * pairs.std(ddof=1) / math.sqrt(len(pairs))) if len(pairs) > 1 else math.nan
    if args.json:
        print(json.dumps({"a": args.a, "b": args.b, "positions": len(pairs), "games": 2 * len(pairs),
                          "ppg": ppg, "ci95": ci}))
    else:
        print(f"{args.a} vs {args.b}: {ppg:+.4f} ppg ± {ci:.4f} (95%) over {2 * len(pairs)} games "
              f"from {len(pairs)} positions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
