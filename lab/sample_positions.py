"""Sample start positions of one class from a network's self-play (bgengine.training.startpositions).

    python lab/sample_positions.py OUT.npz [--player net] [--class race] [-n 4000] [--seed 1]

From each 0-ply self-play game of the player's network (game ``i`` rolls stream ``i`` of
``--seed``), the first position of the class; ``-n`` positions in all.  The file can
start training games (``starts = "OUT.npz"`` in a run's config).
"""
from __future__ import annotations

import argparse
import logging

from bgengine.core.evaluator import CLASSES
from bgengine.matches.players import load_network_spec
from bgengine.training.startpositions import sample_positions, save_positions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--player", default="net", help="network spec: net or net:PATH")
    ap.add_argument("--class", dest="position_class", default="race", choices=CLASSES)
    ap.add_argument("-n", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    boards = sample_positions(load_network_spec(args.player), args.n, args.position_class,
                              args.seed)
    save_positions(args.out, boards, {"player": args.player, "class": args.position_class,
                                      "seed": args.seed, "source": "0-ply self-play"})


if __name__ == "__main__":
    main()
