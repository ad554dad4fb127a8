"""Calibrate a network's outputs to the results of its own games (bgengine.outcomes).

    python tools/calibrate_outputs.py play O_601.npz --games 5000 --seed 601 --player net
    python tools/calibrate_outputs.py fit OUT.npz O_6*.npz --player net [--classes contact race]

``play`` records every position before a roll of the player's self-play at 0-ply with its
game's result (one process; run several seeds side by side); ``fit`` Platt-scales each
output of the player's class networks to those results (each network on the positions of its
class), folds the maps into the output layers and saves the evaluator; it prints, per class
and output, the map ``(a, b)``, the mean output before and after against the event's
frequency, and the mean log loss before and after.  The player's self-play must be the one
calibrated: outcomes recorded with another network describe that network's games.
"""

from __future__ import annotations

import argparse
import json
import logging

from bgengine.evaluator import as_evaluator
from bgengine.outcomes import OUTPUT_EVENTS, GameOutcomes, calibrate_evaluator, play_outcomes
from bgengine.players import load_network_spec

log = logging.getLogger("calibrate_outputs")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("play", help="record self-play positions and their games' results")
    p.add_argument("out")
    p.add_argument("--games", type=int, default=5000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--player", default="net")
    f = sub.add_parser("fit", help="Platt-scale the outputs to recorded results")
    f.add_argument("out")
    f.add_argument("files", nargs="+")
    f.add_argument("--player", default="net")
    f.add_argument("--classes", nargs="+", default=["contact", "race"])
    f.add_argument("--json", action="store_true", help="print the report as JSON")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    evaluator = as_evaluator(load_network_spec(args.player))
    if args.command == "play":
        outcomes = play_outcomes(evaluator, args.games, args.seed,
                                 progress=lambda done, n: log.info("%d of %d games", done, n))
        outcomes.save(args.out)
        log.info("%s: %d positions of %d games", args.out, len(outcomes), args.games)
        return
    outcomes = GameOutcomes.concatenate([GameOutcomes.load(x) for x in args.files])
    calibrated, reports = calibrate_evaluator(evaluator, outcomes, classes=args.classes)
    calibrated.metadata["output_calibration"] = {"player": args.player, "files": args.files}
    calibrated.save(args.out)
    if args.json:
        print(json.dumps({k: r.as_dict() for k, r in reports.items()}, indent=1))
        return
    for name, r in reports.items():
        print(f"{name}: {r.positions} positions of {r.games} games")
        print("| output | a | b | mean before | mean after | frequency | log loss before | after |")
        print("|---|---|---|---|---|---|---|---|")
        for j, event in enumerate(OUTPUT_EVENTS):
            print(f"| {event} | {r.a[j]:.4f} | {r.b[j]:+.4f} | {r.mean_before[j]:.4f} | "
                  f"{r.mean_after[j]:.4f} | {r.frequency[j]:.4f} | {r.log_loss_before[j]:.5f} | "
                  f"{r.log_loss_after[j]:.5f} |")
    log.info("saved %s", args.out)


if __name__ == "__main__":
    main()
