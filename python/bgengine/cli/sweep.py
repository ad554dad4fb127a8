"""``bgengine sweep`` and ``bgengine compare``: grids of training runs, and the
sources' comparison of learning methods."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from bgengine.cli.options import (add_backend_arguments, add_quiet_argument, backend_from_args,
                                  games_number, whole_number)
from bgengine.cli.output import add_json_argument, emit
from bgengine.cli.progress import ProgressBar
from bgengine.matches.distributed import Backend

__all__ = ["register"]


def _backend(args: argparse.Namespace) -> Backend:
    return backend_from_args(args, getattr(args, "parallel", None))


def _cmd_sweep(args: argparse.Namespace) -> int:
    from bgengine.training.sweep import SweepSpec, run_sweep, sweep_table

    spec = SweepSpec.from_toml(args.config)
    logging.getLogger("bgengine").setLevel(logging.INFO)     # a line per run started and finished
    with _backend(args) as backend, ProgressBar("sweep", "games", quiet=args.quiet) as bar:
        doc = run_sweep(spec, args.out, backend=backend, progress=bar)
    files = [Path(args.out) / "sweep.json", Path(args.out) / "sweep.csv"]
    emit(args, {**doc, "files": files},
         sweep_table(doc) + "wrote " + ", ".join(map(str, files)))
    if not doc["complete"]:
        print("interrupted: the table holds the finished runs only; run the same command again "
              "to resume the others", file=sys.stderr)
        return 130
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    from bgengine.training.sweep import compare_methods

    logging.getLogger("bgengine").setLevel(logging.INFO)
    with _backend(args) as backend, ProgressBar("compare", "games", quiet=args.quiet) as bar:
        s = compare_methods(args.out, args.games, hidden=args.hidden, seed=args.seed,
                            rr_games=args.rr_games, eval_games=args.eval_games, backend=backend,
                            progress=bar)
    if not s["complete"]:
        print("interrupted: the runs are saved; run the same command again to resume",
              file=sys.stderr)
        return 130
    lines = [s["table"].rstrip("\n"), f"{'method':<10} ppg vs pubeval      published (600k games)"]
    lines += [f"{m:<10} {v['ppg']:+.3f} ± {v['ci95']:.3f}    {v['published']:+.2f}"
              for m, v in s["vs_pubeval"].items()]
    emit(args, s, "\n".join(lines + ["wrote " + ", ".join(s["files"])]))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``sweep`` and ``compare`` to the ``bgengine`` sub-commands."""
    p = sub.add_parser("sweep", help="train a grid of settings with several seeds, tabulate ppg",
                       description="Train every point of the grid in SWEEP.toml ([sweep] seeds, "
                                   "eval_games; [base] shared TrainConfig settings; [grid] lists of "
                                   "values to combine) once per seed, evaluate each final network "
                                   "against pubeval and print the table.  A small game's sweep ([base] "
                                   "game = \"tictactoe\" or \"connect4\", its training-run "
                                   "settings) plays each final network from both seats against "
                                   "its eval_opponents instead.  Runs are resumable: run "
                                   "the same command again to continue.")
    p.add_argument("config", help="sweep TOML file")
    p.add_argument("--out", default="sweeps/sweep", help="directory for runs and results (default sweeps/sweep)")
    p.add_argument("--parallel", **whole_number(1), default=None, metavar="N",
                   help="runs trained at once on this machine (default: all cores)")
    add_backend_arguments(p)
    add_quiet_argument(p)
    add_json_argument(p)
    p.set_defaults(func=_cmd_sweep)

    p = sub.add_parser("compare", help="the sources' experiment: TD vs backprop vs mutation, scaled down",
                       description="Train TD(0.7), backpropagation-to-result and mutation "
                                   "hill-climbing networks (198-40-4 by default) for the same number "
                                   "of games, then play a round robin with random, simple3 and "
                                   "pubeval; prints the ppg matrix, writes learning curves.  The "
                                   "sources (600k games): TD +0.26, backprop -0.18, mutation -0.91 "
                                   "against pubeval.")
    p.add_argument("--out", default="runs/compare", help="directory (default runs/compare)")
    p.add_argument("--games", **games_number, default=100_000,
                   help="training games per method, a multiple of 4 (default 100000)")
    p.add_argument("--hidden", **whole_number(1, 1024), default=40,
                   help="hidden units (1..1024, default 40)")
    p.add_argument("--rr-games", **games_number, default=10_000,
                   help="games per round-robin pairing (default 10000)")
    p.add_argument("--eval-games", **whole_number(2, 10**7, "2..10**7"), default=1000,
                   help="games of each learning-curve evaluation against pubeval (default 1000)")
    p.add_argument("--seed", **whole_number(0, 2**62, "0..2**62"), default=1,
                   help="seed of weights, dice and the round robin (default 1)")
    add_backend_arguments(p)
    add_quiet_argument(p)
    add_json_argument(p)
    p.set_defaults(func=_cmd_compare)
