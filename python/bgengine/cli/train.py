"""``bgengine train`` and ``bgengine plot``: self-play training runs and their curves."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import shutil
import sys
from pathlib import Path

from bgengine.other_games import owner_of_run_config
from bgengine.cli.output import add_json_argument, emit
from bgengine.cli.progress import ProgressBar
from bgengine.interrupts import stop_on_interrupt

__all__ = ["register"]

#: Where a recipe run keeps its recipe, so that ``bgengine train RUN`` resumes it.
RECIPE_COPY = "recipe.toml"


def _cmd_train(args: argparse.Namespace) -> int:
    from bgengine.training.recipe import load_recipe
    from bgengine.training.run_dir import RunDir, read_log
    from bgengine.training.trainer import TrainConfig, TrainProgress, train

    own = RunDir(args.run).config       # a run resumes from its own config
    own_recipe = Path(args.run) / RECIPE_COPY
    source = args.config or (own_recipe if own_recipe.is_file() else
                             own if own.is_file() else None)
    recipe = load_recipe(source) if source else None
    if recipe is not None:
        return _run_recipe(args, source, recipe)
    other = owner_of_run_config(source) if source else None
    if other is not None:                   # a run of another game
        with stop_on_interrupt(again_raises=True) as stop:
            doc, text, done, total = other.train(args, source, stop, lambda games: ProgressBar(
                f"train {args.run}", "games", total=games, quiet=args.quiet))
        emit(args, doc, text)
        return _interrupted(args.run, done, total)
    config = TrainConfig.from_toml(source) if source else TrainConfig()
    overrides = {k: v for k, v in (("games", args.games), ("seed", args.seed),
                                   ("encoder", args.encoder)) if v is not None}
    if args.hidden is not None:
        overrides["hidden"] = args.hidden
    if overrides:
        config = TrainConfig.from_dict({**dataclasses.asdict(config), **overrides})
    logging.getLogger("bgengine").setLevel(logging.INFO)
    bar = ProgressBar(f"train {args.run}", "games", total=config.games, quiet=args.quiet)

    def progress(p: TrainProgress) -> None:
        bar.start_at(p.games - p.chunk)     # a resumed run: from its checkpoint
        bar.status(f"alpha {p.alpha:.4g}, vs {config.eval_opponent} {p.last_eval}")
        bar(p.games, p.total)

    # on a terminal a bar; elsewhere (a log file) the library's line per chunk
    reporter = progress if bar.shown else not args.quiet
    try:
        with bar:
            net = train(config, args.run, resume=not args.restart, progress=reporter)
    except OSError as exc:      # a disk full, a file made read-only under a running run
        raise ValueError(f"{args.run}: cannot write the run ({exc.strerror or exc}"
                         f"{': ' + str(exc.filename) if exc.filename else ''})") from None
    except FloatingPointError as exc:   # diverged: the last checkpoint is intact
        raise ValueError(f"{args.run}: {exc}; the run is kept as of its last checkpoint") from None
    rd = RunDir(args.run)
    evals = [r for r in read_log(args.run) if r.get("kind") == "eval"]
    done = net.metadata["training"]["games"]
    emit(args, {"run": args.run, "games": done, "network": rd.network, "best": rd.best,
                "last_evaluation": evals[-1] if evals else None, "complete": done >= config.games},
         f"{args.run}: {net!r}, latest network in {rd.network}, "
         f"best against {config.eval_opponent} in {rd.best}")
    return _interrupted(args.run, done, config.games)


def _run_recipe(args: argparse.Namespace, source, recipe) -> int:
    """Self-play (the recipe's [train], if any), then the recipe's phases."""
    from bgengine.matches.run import default_threads
    from bgengine.training.recipe import run_recipe
    from bgengine.training.run_dir import RunDir
    from bgengine.training.trainer import TrainConfig, train

    run = Path(args.run)
    run.mkdir(parents=True, exist_ok=True)
    if Path(source).resolve() != (run / RECIPE_COPY).resolve():
        shutil.copyfile(source, run / RECIPE_COPY)     # 'bgengine train RUN' resumes it
    logging.getLogger("bgengine").setLevel(logging.INFO)
    start = recipe.start
    if recipe.train is not None:
        config = TrainConfig.from_dict(recipe.train)
        with stop_on_interrupt(again_raises=True):
            net = train(config, args.run, resume=not args.restart, progress=not args.quiet)
        done = net.metadata["training"]["games"]
        if done < config.games:
            return _interrupted(args.run, done, config.games)
        start = start or f"net:{RunDir(args.run).network}"
    say = (lambda line: None) if args.quiet or args.json else (lambda line: print(line, flush=True))
    final = run_recipe(run, recipe, start=start or "net", n_threads=default_threads(),
                       progress=say)
    emit(args, {"run": args.run, "evaluator": str(final),
                "phases": [p.name for p in recipe.phases]},
         f"{args.run}: {len(recipe.phases)} phases done, the evaluator in {final}")
    return 0


def _interrupted(run: str, done: int, total: int) -> int:
    """The exit status of a run that stopped at game ``done`` of ``total``: 0 when it is
    finished, else 130 (Ctrl-C stopped it; it was saved and resumes where it stopped)."""
    if done >= total:
        return 0
    print(f"bgengine: interrupted: {run} stopped at game {done} of {total}, saved; "
          f"'bgengine train {run}' resumes it", file=sys.stderr)
    return 130


def _cmd_plot(args: argparse.Namespace) -> int:
    from bgengine.training.plot import plot_run

    out = args.out or f"{args.runs[0].rstrip('/')}/learning_curve.png"
    path = plot_run(args.runs, out, opponents=args.opponent)
    emit(args, {"runs": args.runs, "plot": path}, str(path))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``train`` and ``plot`` to the ``bgengine`` sub-commands."""
    p = sub.add_parser("train", help="train a network by self-play (resumable)",
                       description="Train a network by self-play in directory RUN.  Settings come "
                                   "from a TOML file (see TrainConfig in bgengine.training.trainer; keys may sit "
                                   "under [train]); a few can be overridden here.  Checkpoints are "
                                   "written every checkpoint_every games; 'bgengine train RUN' "
                                   "resumes exactly where it stopped, from the run's own config, "
                                   "and 'bgengine train RUN --games N' extends a finished run to N "
                                   "games.  Ctrl-C stops cleanly: the chunk under way is "
                                   "finished and saved, exit status 130.  A file with "
                                   "[[phase]] tables is a recipe: self-play (its [train], if "
                                   "any), then its phases (sample, label, widen, fit, "
                                   "cube-fit, distill, calibrate; bgengine.training.recipe), each "
                                   "resumable; configs/default.toml makes the shipped "
                                   "evaluator from random weights.")
    p.add_argument("run", help="run directory (created if missing)")
    p.add_argument("--config", help="TOML file with the training settings (default: the run's "
                                    "own RUN/config.toml, else the defaults)")
    p.add_argument("--games", type=int,
                   help="total self-play games of the run; more than a finished run's extends it")
    p.add_argument("--encoder", help="tesauro198, tesauro198+extra, expert, contact or race "
                                     "(a small game's run: its representation)")
    p.add_argument("--hidden", type=int, nargs="+", help="hidden layer widths, e.g. 80 or 128 64")
    p.add_argument("--seed", type=int, help="seed for weights and dice")
    p.add_argument("--restart", action="store_true",
                   help="start over from game 0, dropping the directory's checkpoint and log")
    p.add_argument("--quiet", action="store_true",
                   help="no progress (a bar on a terminal, else a log line per checkpoint)")
    add_json_argument(p)
    p.set_defaults(func=_cmd_train)

    p = sub.add_parser("plot", help="draw learning curves of training runs to PNG",
                       description="Plot ppg against the evaluation opponent over self-play games "
                                   "for one or more run directories (a small game's run: the win "
                                   "rate against each evaluation opponent from either seat) "
                                   "(needs matplotlib).")
    p.add_argument("runs", nargs="+", help="run directories")
    p.add_argument("--opponent", action="append",
                   help="a small game's run: draw only this evaluation opponent (repeatable)")
    p.add_argument("-o", "--out", help="PNG file (default RUN/learning_curve.png)")
    add_json_argument(p)
    p.set_defaults(func=_cmd_plot)
