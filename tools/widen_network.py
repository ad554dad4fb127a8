"""Widen a trained network or evaluator file, keeping what it computes (bgengine.growth).

    python tools/widen_network.py IN.npz OUT.npz --contact 256 [--race 96] [--noise 0.01] [--seed 0]

The output file can start a training run of the wider networks: ``init_from = "OUT.npz"``
with ``hidden = [256]`` in the run's config.
"""
from __future__ import annotations

import argparse

from bgengine.evaluator import Evaluator, load_evaluator
from bgengine.growth import widen, widen_evaluator


def _widths(text: str) -> list[int]:
    return [int(part) for part in text.split(",")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source")
    parser.add_argument("target")
    parser.add_argument("--contact", type=_widths, required=True,
                        help="new hidden widths of the contact (or single) network, e.g. 256")
    parser.add_argument("--race", type=_widths, help="new hidden widths of the race network")
    parser.add_argument("--noise", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    source = load_evaluator(args.source)
    if source.single:
        wide = Evaluator.from_network(widen(source.contact, args.contact, noise=args.noise,
                                            seed=args.seed))
    else:
        wide = widen_evaluator(source, args.contact, args.race, noise=args.noise, seed=args.seed)
    wide.save(args.target)
    print(f"{args.source}: {source!r}\n -> {args.target}: {wide!r}")


if __name__ == "__main__":
    main()
