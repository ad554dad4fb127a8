"""``bgengine data``: sample positions, label them by rollouts, look at a store."""

from __future__ import annotations

import argparse
import json
import logging
import shutil
from pathlib import Path

from bgengine.cli.options import add_backend_arguments, add_player_argument, games_number, \
    add_quiet_argument, add_threads_argument, backend_from_args, evaluator_file, whole_number
from bgengine.cli.output import add_json_argument, emit
from bgengine.cli.data_cubes import register_cube_steps
from bgengine.cli.data_race import register_race_steps
from bgengine.cli.progress import ProgressBar
from bgengine.labelling.classes import POSITION_CLASSES
from bgengine.labelling.fit import KEEP_FORMS
from bgengine.labelling.store import LABEL_PREFERENCES
from bgengine.matches.players import NETWORK_SPEC_HELP

__all__ = ["register", "evaluator_file"]

log = logging.getLogger(__name__)


def _cmd_sample(args: argparse.Namespace) -> int:
    from bgengine.labelling.sampling import SamplingConfig, build_pool
    from bgengine.labelling.store import file_sha256
    from bgengine.matches.players import load_network_spec

    config = SamplingConfig(games=args.games, seed=args.seed, keep=args.keep,
                            alternatives=args.alternatives)
    model = load_network_spec(args.player)
    with ProgressBar("sampling", "games", total=args.games, quiet=args.quiet) as bar:
        counts = build_pool(args.pool, model, config, player=args.player or "net",
                            evaluator_sha256=file_sha256(evaluator_file(args.player)),
                            exclude=args.exclude, per_class=args.per_class,
                            first_game=args.first_game, progress=bar)
    n = sum(counts.values())
    emit(args, {"pool": args.pool, "positions": n, "counts": counts},
         f"{args.pool}: {n} positions {json.dumps(counts)}")
    return 0


def _cmd_label(args: argparse.Namespace) -> int:
    from bgengine.labelling.labeller import label_pool
    from bgengine.labelling.store import LabelSettings, LabelStore, file_sha256, load_pool
    from bgengine.matches.run import default_threads
    from bgengine.matches.players import load_network_spec

    settings = LabelSettings(trials=args.trials, plies=args.plies, truncate=args.truncate,
                             variance_reduction=args.vr, seed=args.seed,
                             shard_size=args.shard_size,
                             truncate_bearoff=args.truncate_bearoff)
    model_path = evaluator_file(args.player)
    store = LabelStore(args.store, settings, file_sha256(model_path))
    model = load_network_spec(args.player)
    threads = args.threads or default_threads()
    runs = []
    lines = []
    for pool_path in args.pool:
        pool = load_pool(pool_path)
        with ProgressBar(f"labelling {Path(pool_path).name}", "positions", total=len(pool),
                         quiet=args.quiet) as bar:
            if args.backend == "ray":
                with backend_from_args(args, threads) as backend:
                    run = label_pool(store, pool, model, n_threads=threads,
                                     max_shards=args.max_shards, backend=backend,
                                     model_path=model_path, progress=bar)
            else:
                run = label_pool(store, pool, model, n_threads=threads,
                                 max_shards=args.max_shards, progress=bar)
        runs.append({"pool": pool_path, "shards_done": run.shards_done,
                     "shards_skipped": run.shards_skipped, "positions": run.positions,
                     "seconds": run.seconds, "positions_per_hour": run.positions_per_hour,
                     "threads": threads})
        lines.append(f"{pool_path}: {run.shards_done} shards labelled, {run.shards_skipped} there "
                     f"already; {run.positions} positions in {run.seconds:.0f} s "
                     f"({run.positions_per_hour:.0f} positions/hour on {threads} threads)")
    lines.append(f"{args.store}: {len(store)} positions {json.dumps(store.counts())}")
    emit(args, {"store": args.store, "positions": len(store), "counts": store.counts(),
                "runs": runs}, "\n".join(lines))
    return 0


def _cmd_select(args: argparse.Namespace) -> int:
    from bgengine.labelling.store import load_pool, select_pool

    if Path(args.out).exists() and not args.force:
        raise ValueError(f"{args.out} exists; give --force to replace it")
    pool = select_pool(args.out, [load_pool(p) for p in args.pool], args.classes or ())
    emit(args, {"pool": args.out, "positions": len(pool), "counts": pool.metadata["counts"]},
         f"{args.out}: {len(pool)} positions {json.dumps(pool.metadata['counts'])}")
    return 0


def _cmd_info(args: argparse.Namespace) -> int:
    from bgengine.labelling.store import LabelStore, load_pool

    p = Path(args.path)
    if p.is_dir():
        store = LabelStore(p)
        labels = store.load(verify=True)
        info = {"store": str(p), "positions": len(store), "counts": store.counts(),
                "settings": store.settings.__dict__, "evaluator_sha256": store.evaluator,
                "shards": len(store.shards),
                "mean_equity_stderr": float(labels.equity_stderr.mean()) if len(labels) else None,
                "checksums": "ok"}
    else:
        pool = load_pool(p)
        info = {"pool": str(p), "positions": len(pool), **{k: pool.metadata.get(k) for k in
                                                           ("counts", "games", "seed", "player")}}
    emit(args, info, "\n".join(f"{k}: {json.dumps(v) if isinstance(v, dict) else v}"
                               for k, v in info.items()))
    return 0


def _cmd_benchmark(args: argparse.Namespace) -> int:
    from bgengine.labelling.benchmark import format_play_table, format_table, predict_outputs, \
        value_errors
    from bgengine.labelling.store import LabelStore
    from bgengine.matches.players import load_network_spec

    labels = LabelStore(args.store).load(verify=True)
    if not len(labels):
        raise ValueError(f"{args.store}: the store holds no labelled positions")
    boards = labels.boards()
    results = {}
    for spec in args.player or ["net"]:
        model = load_network_spec(spec)
        for plies in args.plies:
            results[f"{spec} {plies}-ply"] = value_errors(predict_outputs(model, boards, plies),
                                                          labels)
    for plies in args.gnubg:
        from bgengine.opponents.gnubg.evaluate import gnubg_outputs

        results[f"gnubg {plies}-ply"] = value_errors(
            gnubg_outputs(boards, plies, jobs=args.jobs), labels)
    plays = {}
    if args.decisions:
        from bgengine.labelling.decisions import DecisionSet, play_errors, searcher_chooser

        decisions = DecisionSet.load(args.decisions)
        judge = load_network_spec(args.judge)
        for spec in args.player or ["net"]:
            model = load_network_spec(spec)
            for plies in args.plies:
                plays[f"{spec} {plies}-ply"] = play_errors(searcher_chooser(model, plies),
                                                           decisions, judge)
        for plies in args.gnubg:
            from bgengine.opponents.gnubg import GnubgPlayer
            from bgengine.opponents.gnubg.driver import GnubgSettings

            with GnubgPlayer(GnubgSettings(plies=plies)) as gnubg:
                plays[f"gnubg {plies}-ply"] = play_errors(gnubg.choose, decisions, judge)
    text = format_table(results) + ("\n\n" + format_play_table(plays) if plays else "")
    emit(args, {"values": {k: [r.as_dict() for r in v] for k, v in results.items()},
                "plays": {k: [r.as_dict() for r in v] for k, v in plays.items()}}, text)
    return 0


def _cmd_decisions(args: argparse.Namespace) -> int:
    import numpy as np

    from bgengine.labelling.decisions import build_decision_set
    from bgengine.labelling.store import file_sha256, load_pool
    from bgengine.matches.run import default_threads
    from bgengine.matches.players import load_network_spec

    if args.positions_from is not None:
        return _decisions_again(args)
    if args.pool is None:
        raise ValueError("give --pool (or --positions-from)")
    pool = load_pool(args.pool)
    rows = np.arange(len(pool))
    if args.per_class is not None:
        rows = np.concatenate([np.flatnonzero(pool.classes == c)[:args.per_class]
                               for c in np.unique(pool.classes)])
        rows.sort()
    model = load_network_spec(args.player)
    with ProgressBar("decisions", "positions", total=len(rows), quiet=args.quiet) as bar:
        ds = build_decision_set(args.out, model, pool.keys[rows], pool.classes[rows],
                                progress=bar, trials=args.trials, top0=args.top0, top2=args.top2,
                                seed=args.seed, n_threads=args.threads or default_threads(),
                                evaluator_sha256=file_sha256(evaluator_file(args.player)))
    emit(args, {"decisions": args.out, "count": len(ds)}, f"{args.out}: {len(ds)} decisions")
    return 0


def _decisions_again(args: argparse.Namespace) -> int:
    """``data decisions --positions-from``: another set's decisions and candidate plays,
    rolled out again (e.g. by a stronger player)."""
    from bgengine.labelling.decisions import DecisionSet, build_decision_set
    from bgengine.labelling.store import file_sha256
    from bgengine.matches.run import default_threads
    from bgengine.matches.players import load_network_spec

    if args.pool is not None or args.per_class is not None:
        raise ValueError("--positions-from takes the set's decisions: no --pool or --per-class")
    source = DecisionSet.load(args.positions_from)
    model = load_network_spec(args.player)
    with ProgressBar("decisions", "positions", total=len(source), quiet=args.quiet) as bar:
        ds = build_decision_set(args.out, model, source.keys, source.classes, source=source,
                                progress=bar, trials=args.trials, seed=args.seed,
                                n_threads=args.threads or default_threads(),
                                evaluator_sha256=file_sha256(evaluator_file(args.player)),
                                positions_from=str(args.positions_from))
    emit(args, {"decisions": args.out, "count": len(ds)},
         f"{args.out}: {len(ds)} decisions (those of {args.positions_from})")
    return 0


def _cmd_fit(args: argparse.Namespace) -> int:
    from bgengine.labelling.fit import FitConfig, fit_from_stores
    from bgengine.labelling.teacher import default_search_cache
    from bgengine.matches.run import default_threads
    from bgengine.matches.players import load_network_spec

    config = FitConfig(epochs=args.epochs, lr=args.lr, batch=args.batch, held_out=args.held_out,
                       patience=args.patience, anchor=args.anchor, seed=args.seed,
                       spill=args.spill, keep=args.keep, keep_plays=args.keep_plays,
                       keep_form=args.keep_form, keep_plies=args.keep_plies,
                       lr_drop=args.lr_drop, drop_patience=args.drop_patience,
                       teach=args.teach_weight, teach_plies=args.teach_plies,
                       teach_around=args.teach_around)
    model = load_network_spec(args.player)
    quiet = args.quiet or args.json
    parts = Path(args.checkpoint or f"{args.out}.parts")
    searching = (config.keep and config.keep_plies) or args.teach or config.teach_around
    with ProgressBar("search", "positions", quiet=args.quiet or not searching) as bar:
        fitted, reports, n_labels = fit_from_stores(
            model, args.store, config, start=args.player or "net",
            only=set(args.only) if args.only else None, teach_pools=args.teach,
            progress=None if quiet else (lambda line: print(line, flush=True)),
            n_threads=args.threads or default_threads(),
            search_cache=args.search_cache or default_search_cache(), search_progress=bar,
            prefer=args.prefer, checkpoint=parts)
    fitted.save(args.out)
    if args.checkpoint is None:
        shutil.rmtree(parts, ignore_errors=True)
    lines = [f"{r.name:<9} trained on {r.trained:>7}, held out {r.held:>6}: held-out equity rms "
             f"{r.before:.4f} -> {r.after:.4f} (best epoch {r.best_epoch} of {r.epochs})"
             for r in reports]
    emit(args, {"out": args.out, "positions": n_labels,
                "networks": [r.as_dict() for r in reports]}, "\n".join(lines + [f"wrote {args.out}"]))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``data sample``, ``data label`` and ``data info``."""
    p = sub.add_parser("data", help="positions labelled by rollouts: sample, label, info",
                       description="Build a database of positions labelled by the engine's "
                                   "own rollouts, to train evaluators on.")
    dsub = p.add_subparsers(dest="data_command", metavar="STEP")
    p.set_defaults(func=lambda a: (p.print_help(), 2)[1])

    s = dsub.add_parser("sample", help="sample positions from self-play into a pool file",
                        description="Play self-play games (from the opening and from random "
                                    "back games, holding games, primes, ace-point games and "
                                    "closed-out checkers) and keep positions met, tagged by "
                                    "class, deduplicated.")
    s.add_argument("pool", metavar="POOL.npz", help="the pool file to write")
    s.add_argument("--games", **games_number, default=1000, help="games to play (default 1000)")
    s.add_argument("--first-game", type=int, default=0,
                   help="number of the first game (runs of one seed continue; default 0)")
    s.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    s.add_argument("--keep", type=float, default=0.15,
                   help="probability of keeping a position met (default 0.15)")
    s.add_argument("--alternatives", type=float, default=0.0, metavar="P",
                   help="probability that a kept position is replaced by the position after "
                        "one of the roll's six best plays, drawn at random (default 0)")
    s.add_argument("--per-class", **whole_number(1), default=None, metavar="N",
                   help="keep at most N positions of each class (e.g. for a benchmark set)")
    s.add_argument("--exclude", nargs="*", default=[], metavar="POOL_OR_STORE",
                   help="positions already held in these pools or stores are not kept")
    add_player_argument(s, f"the evaluator playing the games: {NETWORK_SPEC_HELP} (default net)")
    add_quiet_argument(s)
    add_json_argument(s)
    s.set_defaults(func=_cmd_sample)

    sel = dsub.add_parser("select", help="the positions of some classes of pools, as a new pool",
                          description="Write the positions of the pools whose class is one of "
                                      "--classes (all when none are given), in order and each "
                                      "once, as a new pool file: to label some classes again, "
                                      "e.g. with another player or more trials.")
    sel.add_argument("out", metavar="OUT.npz", help="the pool file to write")
    sel.add_argument("--pool", nargs="+", required=True, metavar="POOL.npz",
                     help="pool files to select from, in order")
    sel.add_argument("--classes", nargs="+", default=None, choices=POSITION_CLASSES,
                     metavar="CLASS", help=f"classes to keep: {', '.join(POSITION_CLASSES)} "
                                           "(default all)")
    sel.add_argument("--force", action="store_true", help="replace OUT.npz if it exists")
    add_json_argument(sel)
    sel.set_defaults(func=_cmd_select)

    lab = dsub.add_parser("label", help="label a pool's positions by rollouts into a store",
                          description="Roll out every position of the pools (cubeless, five "
                                      "outputs, the side on roll before it rolls) into the "
                                      "store folder, a shard at a time; shards already there "
                                      "are skipped, so an interrupted run resumes.")
    lab.add_argument("store", metavar="STORE", help="the store folder (made if new)")
    lab.add_argument("--pool", nargs="+", required=True, metavar="POOL.npz",
                     help="pool files to label, in order")
    lab.add_argument("--trials", **whole_number(1), default=648,
                     help="games per position (default 648)")
    lab.add_argument("--plies", type=int, default=0, choices=(0, 1),
                     help="lookahead of the plays in the trials (default 0)")
    lab.add_argument("--truncate", type=int, default=0,
                     help="stop after this many plays and use the evaluator (default 0: play out)")
    lab.add_argument("--truncate-bearoff", action="store_true",
                     help="stop each trial where the bear-off database values it (both sides "
                          "home) and take its value")
    lab.add_argument("--vr", action="store_true", help="luck-based variance reduction")
    lab.add_argument("--seed", type=int, default=0, help="enters every position's seed (default 0)")
    lab.add_argument("--shard-size", **whole_number(1), default=500,
                     help="positions a shard (default 500)")
    lab.add_argument("--max-shards", **whole_number(1), default=None,
                     help="stop after this many new shards")
    lab.add_argument("--threads", **whole_number(1), default=None,
                     help="threads (default: all cores)")
    add_player_argument(lab, f"the evaluator playing the rollouts: {NETWORK_SPEC_HELP} "
                             "(default net)")
    add_backend_arguments(lab)
    add_quiet_argument(lab)
    add_json_argument(lab)
    lab.set_defaults(func=_cmd_label)

    b = dsub.add_parser("benchmark", help="evaluators' errors against a store's labels, by class",
                        description="Value every position of a benchmark store with each "
                                    "evaluator (and with gnubg) and print, per position class, "
                                    "the mean |cubeless equity error| against the rollout labels "
                                    "and the RMS error with the labels' noise removed.")
    b.add_argument("store", metavar="STORE", help="the benchmark store folder")
    b.add_argument("--player", nargs="+", default=None, metavar="SPEC",
                   help=f"evaluators to measure: {NETWORK_SPEC_HELP} (default net)")
    b.add_argument("--plies", nargs="+", type=int, default=[0], choices=(0, 1, 2),
                   help="lookahead of the evaluators (default 0)")
    b.add_argument("--gnubg", nargs="*", type=int, default=[], choices=(0, 1, 2), metavar="PLIES",
                   help="also GNU Backgammon at these plies (needs gnubg installed)")
    b.add_argument("--jobs", **whole_number(1), default=2, help="gnubg processes (default 2)")
    b.add_argument("--decisions", default=None, metavar="DECISIONS.npz",
                   help="also the chequer-play error on this decision set (data decisions)")
    b.add_argument("--judge", default=None, metavar="SPEC",
                   help="the evaluator that rolls out chosen plays outside a decision's "
                        "candidates: the one that built the set (default net)")
    add_json_argument(b)
    b.set_defaults(func=_cmd_benchmark)

    d = dsub.add_parser("decisions", help="build a chequer-play benchmark: decisions whose "
                                          "candidate plays are rolled out",
                        description="For each position of the pool (or --per-class of each "
                                    "class), draw a roll from the position's key, and roll out "
                                    "its best plays at 0-ply and 2-ply on common dice.  Written "
                                    "every 50 positions; a stopped build resumes.")
    d.add_argument("out", metavar="DECISIONS.npz")
    d.add_argument("--pool", metavar="POOL.npz", help="the positions to build decisions from")
    d.add_argument("--positions-from", metavar="DECISIONS.npz", default=None,
                   help="instead of a pool: this set's decisions and candidate plays, rolled "
                        "out again (e.g. by another player; --top0 and --top2 do not apply)")
    d.add_argument("--per-class", **whole_number(1), default=None, metavar="N",
                   help="the first N positions of each class only")
    d.add_argument("--trials", **whole_number(1), default=1296,
                   help="games per play (default 1296)")
    d.add_argument("--top0", **whole_number(1), default=5, help="best plays at 0-ply (default 5)")
    d.add_argument("--top2", **whole_number(1), default=3, help="best plays at 2-ply (default 3)")
    d.add_argument("--seed", type=int, default=0, help="dice and rollout seed (default 0)")
    d.add_argument("--threads", **whole_number(1), default=None,
                   help="threads (default: all cores)")
    add_player_argument(d, f"the evaluator that ranks and rolls out: {NETWORK_SPEC_HELP}")
    add_quiet_argument(d)
    add_json_argument(d)
    d.set_defaults(func=_cmd_decisions)

    f = dsub.add_parser("fit", help="fit an evaluator's networks to labelled positions",
                        description="Fit each class network of the evaluator (each contact "
                                    "expert, the race network) on the stores' positions it is "
                                    "routed (a position in several stores once, with its most "
                                    "precise label), by cross-entropy to the rollout probabilities "
                                    "weighted by the labels' precision (Adam; a hashed tenth "
                                    "held out for early stopping), and save the evaluator.")
    f.add_argument("out", metavar="OUT.npz", help="the evaluator file to write")
    f.add_argument("--store", nargs="+", required=True, metavar="STORE", help="label stores")
    add_player_argument(f, f"the evaluator to start from: {NETWORK_SPEC_HELP} (default net)")
    f.add_argument("--epochs", **whole_number(1), default=40, help="at most this many (default 40)")
    f.add_argument("--lr", type=float, default=1e-3, help="Adam's step size (default 0.001)")
    f.add_argument("--batch", **whole_number(1), default=128, help="positions a step (default 128)")
    f.add_argument("--held-out", type=float, default=0.1, help="share held out (default 0.1)")
    f.add_argument("--patience", **whole_number(1), default=4,
                   help="stop after this many epochs without held-out gain (default 4)")
    f.add_argument("--lr-drop", type=float, default=1.0, metavar="FACTOR",
                   help="after --drop-patience epochs without held-out gain, multiply the step "
                        "size by this and go on from the best weights, up to 3 times "
                        "(default 1: never)")
    f.add_argument("--drop-patience", **whole_number(1), default=2,
                   help="epochs without gain before a step-size drop (default 2)")
    f.add_argument("--anchor", type=float, default=0.0,
                   help="decay of the weights toward the start's (default 0)")
    f.add_argument("--seed", type=int, default=0, help="mini-batch order (default 0)")
    f.add_argument("--spill", type=float, default=0.0,
                   help="weight with which each contact expert also trains on the other "
                        "experts' positions (default 0: its own alone)")
    f.add_argument("--keep", type=float, default=0.0,
                   help="weight of the positions after random plays from each labelled one, "
                        "valued by the starting evaluator: keeps its judgement of the plays "
                        "around the labels (default 0: none)")
    f.add_argument("--keep-plays", type=int, default=4, metavar="N",
                   help="plays a labelled position for --keep (default 4)")
    f.add_argument("--keep-form", choices=KEEP_FORMS, default="outputs",
                   help="outputs: random plays fitted to the start's outputs; differences: "
                        "the start's best plays, fitted to its equity differences between "
                        "the plays of a roll (default outputs)")
    f.add_argument("--keep-plies", type=int, choices=(0, 1, 2), default=0,
                   help="lookahead at which the starting evaluator values the kept plays "
                        "(default 0; 2: its 2-ply search, about 4 ms a play a core)")
    f.add_argument("--teach", nargs="+", default=[], metavar="POOL",
                   help="pools whose positions no store labels are valued by the starting "
                        "evaluator's --teach-plies search and fitted to those values too")
    f.add_argument("--teach-around", type=int, default=0, metavar="N",
                   help="also teach the positions after N random plays of a random roll from "
                        "each labelled position (default 0)")
    f.add_argument("--teach-weight", type=float, default=1.0, metavar="W",
                   help="weight of a --teach position against a label (default 1)")
    f.add_argument("--teach-plies", type=int, choices=(0, 1, 2), default=2,
                   help="lookahead of the --teach values (default 2)")
    f.add_argument("--search-cache", default=None, metavar="DIR",
                   help="folder where the kept plays' search values are kept, so a killed "
                        "or repeated fit does not search again (default "
                        "$XDG_CACHE_HOME/bgengine/search)")
    f.add_argument("--checkpoint", default=None, metavar="DIR",
                   help="folder that keeps each network once fitted: the same command run "
                        "again after a stop fits only the rest (default OUT.npz.parts, "
                        "removed once OUT.npz is written)")
    f.add_argument("--prefer", choices=LABEL_PREFERENCES, default="precise",
                   help="a position in several stores takes the most precise of its labels "
                        "(precise, the default) or the first listed store's (first: list the "
                        "store of the stronger rollout player first)")
    add_threads_argument(f)
    f.add_argument("--only", nargs="+", default=None, metavar="NAME",
                   help="fit only these networks (contact, contact1.., race)")
    add_quiet_argument(f)
    add_json_argument(f)
    f.set_defaults(func=_cmd_fit)

    register_cube_steps(dsub)
    register_race_steps(dsub)

    i = dsub.add_parser("info", help="what a pool or a store holds (checksums checked)")
    i.add_argument("path", metavar="POOL_OR_STORE")
    add_json_argument(i)
    i.set_defaults(func=_cmd_info)
