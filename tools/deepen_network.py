"""Deepen a trained network or evaluator file: one more hidden layer after the last, started
so that the outputs stay nearly the same (bgengine.growth.deepen).

    python tools/deepen_network.py IN.npz OUT.npz [--width 128] [--race] [--slope 1.0]
        [--fit-games 300] [--fit-epsilon 0.1] [--noise 0.01] [--seed 0]

Only the contact (or single) network is deepened unless ``--race``.  The new outgoing layer
is refit on the positions of ``--fit-games`` self-play games of the source (0 = no refit;
``--fit-epsilon``: the share of random plays in them, dice seed ``--seed``).  The output file can
start a training run of the deeper networks: ``init_from = "OUT.npz"`` with ``hidden =
[128, 128]`` in the run's config.
"""
from __future__ import annotations

import argparse

from bgengine.evaluator import Evaluator, load_evaluator
from bgengine.growth import DEEPEN_SLOPE, deepen, deepen_evaluator
from bgengine.startpositions import play_positions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source")
    parser.add_argument("target")
    parser.add_argument("--width", type=int,
                        help="width of the new layer (default: the last hidden layer's)")
    parser.add_argument("--race", action="store_true", help="deepen the race network too")
    parser.add_argument("--slope", type=float, default=DEEPEN_SLOPE)
    parser.add_argument("--fit-games", type=int, default=300,
                        help="self-play games whose positions the new layer is refit on (0: none)")
    parser.add_argument("--fit-epsilon", type=float, default=0.1)
    parser.add_argument("--noise", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    source = load_evaluator(args.source)
    boards = (play_positions(source, args.fit_games, seed=args.seed, epsilon=args.fit_epsilon)
              if args.fit_games else None)
    if source.single:
        deep = Evaluator.from_network(deepen(source.contact, args.width, slope=args.slope,
                                             boards=boards, noise=args.noise, seed=args.seed))
    else:
        deep = deepen_evaluator(source, args.width, race=args.race, slope=args.slope,
                                boards=boards, noise=args.noise, seed=args.seed)
    deep.save(args.target)
    print(f"{args.source}: {source!r}\n -> {args.target}: {deep!r}")


if __name__ == "__main__":
    main()
