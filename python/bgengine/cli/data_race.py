"""``bgengine data race-solve`` and ``data race-fit``: exact one-sided race distributions,
and the network fitted to them that gives an evaluator's race values."""

from __future__ import annotations

import argparse

from bgengine.cli.options import add_player_argument, add_quiet_argument, whole_number
from bgengine.cli.output import add_json_argument, emit
from bgengine.cli.progress import ProgressBar
from bgengine.matches.players import NETWORK_SPEC_HELP

__all__ = ["register_race_steps"]


def _cmd_race_solve(args: argparse.Namespace) -> int:
    from bgengine.labelling.race_distributions import (SolveConfig, race_sides_of_pools,
                                                        solve_sides)

    config = SolveConfig(min_outside=args.min_outside, max_outside=args.max_outside,
                         sides=args.sides, keep=args.keep, seed=args.seed)
    with ProgressBar("solve", "sides", quiet=args.quiet or args.json) as bar:
        rows = solve_sides(args.out, race_sides_of_pools(args.pool), config, progress=bar)
    emit(args, {"out": args.out, "rows": rows}, f"wrote {args.out}: {rows} sides")
    return 0


def _cmd_race_fit(args: argparse.Namespace) -> int:
    from bgengine.labelling.race_distributions import (fit_race_distributions, load_solved,
                                                        with_race_distributions)
    from bgengine.matches.players import load_network_spec

    model = load_network_spec(args.player)
    rows, all_off, first = load_solved(args.data)
    quiet = args.quiet or args.json
    if not quiet:
        print(f"{len(rows)} sides ({int((rows.sum(1) == 15).sum())} with all 15 on the board)",
              flush=True)
    network, history = fit_race_distributions(
        rows, all_off, first, hidden=args.hidden, max_outside=args.max_outside,
        epochs=args.epochs, lr=args.lr, patience=args.patience, seed=args.seed,
        progress=None if quiet else (lambda e, a, f: print(
            f"epoch {e}: held-out mean |expected rolls error| all-off {a:.4f}, "
            f"first-off {f:.4f}", flush=True)))
    fitted = with_race_distributions(model, network, args.exact_outside)
    fitted.save(args.out)
    best = min(history, key=sum)
    emit(args, {"out": args.out, "sides": len(rows), "epochs": len(history),
                "held_out_rolls_error": {"all_off": best[0], "first_off": best[1]}},
         f"best held-out mean |expected rolls error|: all-off {best[0]:.4f}, first-off "
         f"{best[1]:.4f}\nwrote {args.out}")
    return 0


def register_race_steps(dsub: argparse._SubParsersAction) -> None:
    """Add ``data race-solve`` and ``data race-fit``."""
    s = dsub.add_parser("race-solve", help="exact one-sided race distributions for training",
                        description="Draw race sides from pools (their race positions' sides "
                                    "with --min-outside to --max-outside checkers outside the "
                                    "home board), solve each exactly (rolls to bear off all "
                                    "and the first checker) and keep them and a share of the "
                                    "positions solved on the way.  The file is rewritten as "
                                    "it grows; a stopped run resumes.")
    s.add_argument("out", metavar="SIDES.npz")
    s.add_argument("--pool", nargs="+", required=True, metavar="POOL.npz",
                   help="pools whose races give the sides")
    s.add_argument("--min-outside", type=int, default=2, help="default 2")
    s.add_argument("--max-outside", type=int, default=6,
                   help="default 6 (a new side with 6 outside takes about a second)")
    s.add_argument("--sides", **whole_number(1), default=1000, help="default 1000")
    s.add_argument("--keep", type=float, default=0.03,
                   help="share of the positions solved on the way that are kept (default 0.03)")
    s.add_argument("--seed", type=int, default=0, help="which sides are drawn (default 0)")
    add_quiet_argument(s)
    add_json_argument(s)
    s.set_defaults(func=_cmd_race_solve)

    f = dsub.add_parser("race-fit", help="fit a race distribution network; write the "
                                         "evaluator that uses it",
                        description="Fit a one-sided race distribution network to solved "
                                    "sides (data race-solve) and write the evaluator whose "
                                    "race values come from the two sides' distributions: "
                                    "exact for a side with at most --exact-outside checkers "
                                    "outside, the network's up to --max-outside, the race "
                                    "network's beyond.")
    f.add_argument("out", metavar="OUT.npz")
    f.add_argument("--data", nargs="+", required=True, metavar="SIDES.npz")
    f.add_argument("--hidden", **whole_number(1), default=256, help="hidden units (default 256)")
    f.add_argument("--max-outside", type=int, default=6,
                   help="the sides the network values (default 6)")
    f.add_argument("--exact-outside", type=int, default=None,
                   help="the sides valued exactly (default: the evaluator's setting, else 1)")
    f.add_argument("--epochs", **whole_number(1), default=100, help="default 100")
    f.add_argument("--patience", **whole_number(1), default=6, help="default 6")
    f.add_argument("--lr", type=float, default=2e-3, help="Adam step (default 0.002)")
    f.add_argument("--seed", type=int, default=0, help="default 0")
    add_player_argument(f, f"the evaluator to add it to: {NETWORK_SPEC_HELP}")
    add_quiet_argument(f)
    add_json_argument(f)
    f.set_defaults(func=_cmd_race_fit)
