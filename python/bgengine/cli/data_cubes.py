"""``bgengine data cube-decisions``, ``data cube-benchmark`` and ``data cube-fit``: cube
decisions judged by cubeful rollouts, and the cube model fitted to them."""

from __future__ import annotations

import argparse

from bgengine.cli.options import add_player_argument, add_quiet_argument, whole_number
from bgengine.cli.output import add_json_argument, emit
from bgengine.cli.progress import ProgressBar
from bgengine.matches.players import NETWORK_SPEC_HELP

__all__ = ["register_cube_steps", "format_cube_table"]


def _window(text: str) -> float:
    value = float(text)
    if not 0 < value <= 3:
        raise argparse.ArgumentTypeError(f"the window must be in (0, 3] points, got {text}")
    return value


def _score(text: str) -> tuple[int, int]:
    """``A-B``: a match score, the side on roll A points away from winning, the other B."""
    try:
        away, opp = (int(v) for v in text.split("-"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a score is AWAY-AWAY, e.g. 5-3, got {text!r}") from None
    if not (2 <= away <= 25 and 2 <= opp <= 25):
        raise argparse.ArgumentTypeError(f"both sides 2 to 25 points away (no Crawford game), "
                                         f"got {text!r}")
    return away, opp


def _cmd_cube_decisions(args: argparse.Namespace) -> int:
    import dataclasses

    import numpy as np

    from bgengine.cli.options import evaluator_file
    from bgengine.labelling.cubes import build_cube_set, close_cube_decisions, model_cube_values
    from bgengine.labelling.store import file_sha256, keys_to_boards, load_pool
    from bgengine.matches.players import load_network_spec
    from bgengine.matches.run import default_threads

    model = load_network_spec(args.player)
    if args.positions_from is not None:
        return _cube_decisions_again(args, model)
    if args.scores:
        raise ValueError("--scores gives --positions-from's positions match scores: add "
                         "--positions-from")
    if args.pool is None:
        raise ValueError("give --pool (or --positions-from)")
    pool = load_pool(args.pool)
    if args.candidates is not None:     # the first N of each class are considered
        pick = np.sort(np.concatenate([np.flatnonzero(pool.classes == c)[:args.candidates]
                                       for c in np.unique(pool.classes)]))
        pool = dataclasses.replace(pool, keys=pool.keys[pick], classes=pool.classes[pick],
                                   sources=pool.sources[pick])
    boards = keys_to_boards(pool.keys)
    values = [model_cube_values(model, boards, 0)]
    if args.gnubg_window:
        from bgengine.opponents.gnubg.evaluate import gnubg_cube_values

        values.append(gnubg_cube_values(boards, 0, jobs=args.jobs))
    rows = np.flatnonzero(close_cube_decisions(values, args.window))
    if args.per_class is not None:
        rows = np.sort(np.concatenate([rows[pool.classes[rows] == c][:args.per_class]
                                       for c in np.unique(pool.classes)]))
    meta = {"pool": str(args.pool), "pool_sha256": file_sha256(args.pool),
            "window": args.window, "gnubg_window": bool(args.gnubg_window),
            "candidates": args.candidates,
            "evaluator_sha256": file_sha256(evaluator_file(args.player))}
    with ProgressBar("cube decisions", "positions", total=len(rows), quiet=args.quiet) as bar:
        cs = build_cube_set(args.out, model, pool.keys[rows], pool.classes[rows], progress=bar,
                            metadata=meta, trials=args.trials, seed=args.seed,
                            n_threads=args.threads or default_threads())
    emit(args, {"cube_decisions": args.out, "count": len(cs)},
         f"{args.out}: {len(cs)} cube decisions (of {len(pool)} positions)")
    return 0


def _cube_decisions_again(args: argparse.Namespace, model) -> int:
    """``data cube-decisions --positions-from``: another set's positions, rolled out again
    (e.g. by a stronger player), no selection."""
    import numpy as np

    from bgengine.cli.options import evaluator_file
    from bgengine.labelling.cubes import CubeDecisionSet, build_cube_set
    from bgengine.labelling.store import file_sha256
    from bgengine.matches.run import default_threads

    if args.pool is not None or args.gnubg_window or args.candidates or args.per_class:
        raise ValueError("--positions-from takes the set's positions: no --pool, "
                         "--gnubg-window, --candidates or --per-class")
    source = CubeDecisionSet.load(args.positions_from)
    meta = {key: source.metadata.get(key) for key in ("pool", "pool_sha256", "window",
                                                      "gnubg_window", "candidates")}
    meta.update({"positions_from": str(args.positions_from),
                 "positions_from_sha256": file_sha256(args.positions_from),
                 "evaluator_sha256": file_sha256(evaluator_file(args.player))})
    scores = source.scores
    if args.scores:             # position i at the (i mod n)-th score
        meta["scores"] = [f"{a}-{b}" for a, b in args.scores]
        scores = np.array([args.scores[i % len(args.scores)] for i in range(len(source))],
                          np.int16).reshape(-1, 2)
    with ProgressBar("cube decisions", "positions", total=len(source), quiet=args.quiet) as bar:
        cs = build_cube_set(args.out, model, source.keys, source.classes, progress=bar,
                            metadata=meta, trials=args.trials, seed=args.seed,
                            n_threads=args.threads or default_threads(), scores=scores)
    emit(args, {"cube_decisions": args.out, "count": len(cs)},
         f"{args.out}: {len(cs)} cube decisions (the positions of {args.positions_from}"
         + (", at match scores)" if args.scores else ")"))
    return 0


def format_cube_table(results: dict[str, list], judge: str) -> str:
    """The players' cube errors by class, then by kind, as text tables."""
    from bgengine.labelling.cubes import ERROR_KINDS

    names = [r.name for r in next(iter(results.values()))]
    w = max(18, *(len(p) + 2 for p in results))
    lines = [f"Equity lost per cube decision (judge: {judge}), by class:",
             f"{'player':<{w}}" + "".join(f"{n:>11}" for n in names)]
    for player, rows in results.items():
        lines.append(f"{player:<{w}}" + "".join(f"{r.per_decision:>11.4f}" for r in rows))
    lines += ["", "Equity lost per position by kind of error (all classes):",
              f"{'player':<{w}}" + "".join(f"{k:>14}" for k in ERROR_KINDS)]
    for player, rows in results.items():
        total = rows[-1]
        lines.append(f"{player:<{w}}" + "".join(f"{total.by_kind[k]:>14.4f}" for k in ERROR_KINDS))
    return "\n".join(lines)


def _cmd_cube_benchmark(args: argparse.Namespace) -> int:
    from bgengine.labelling.cubes import (CubeDecisionSet, action_agreement, cube_errors,
                                          model_cube_values, screened_cube_values)
    from bgengine.matches.players import load_network_spec

    cs = CubeDecisionSet.load(args.set)
    if not len(cs):
        raise ValueError(f"{args.set}: the set holds no cube decisions")
    boards = cs.boards()
    values = {}
    for spec in args.player or ["net"]:
        model = load_network_spec(spec)
        shallow = model_cube_values(model, boards, 0, scores=cs.scores)
        for plies in args.plies:
            # deeper: as the engine decides, clear doubles at 0-ply (Engine.cube_decision)
            values[f"{spec} {plies}-ply"] = shallow if plies == 0 else screened_cube_values(
                shallow, model_cube_values(model, boards, plies, scores=cs.scores))
    if args.gnubg or args.judge == "gnubg":
        from bgengine.opponents.gnubg.evaluate import gnubg_cube_values

        for plies in sorted(set(args.gnubg) | ({2} if args.judge == "gnubg" else set())):
            values[f"gnubg {plies}-ply"] = gnubg_cube_values(boards, plies, jobs=args.jobs,
                                                             scores=cs.scores)
    judge_name = "cubeful rollouts" if args.judge == "rollout" else "gnubg 2-ply"
    judge = cs.values if args.judge == "rollout" else values["gnubg 2-ply"]
    results = {name: cube_errors(v, judge, cs.classes) for name, v in values.items()}
    agreement = {}
    if "gnubg 2-ply" in values:
        agreement = {name: action_agreement(v, values["gnubg 2-ply"])
                     for name, v in values.items() if name != "gnubg 2-ply"}
    agreement["cubeful rollouts"] = None if "gnubg 2-ply" not in values else \
        action_agreement(cs.values, values["gnubg 2-ply"])
    text = format_cube_table(results, judge_name)
    if "gnubg 2-ply" in values:
        text += "\n\nSame proper cube action as gnubg 2-ply: " + ", ".join(
            f"{name} {share:.1%}" for name, share in agreement.items())
    emit(args, {"judge": judge_name, "positions": len(cs),
                "errors": {k: [r.as_dict() for r in v] for k, v in results.items()},
                "agreement_with_gnubg_2ply": agreement}, text)
    return 0


def _cmd_cube_fit(args: argparse.Namespace) -> int:
    from bgengine.decisions.cube import CubeEfficiency
    from bgengine.labelling.cubes import with_fitted_efficiency
    from bgengine.matches.players import load_network_spec

    model, report = with_fitted_efficiency(load_network_spec(args.player), args.set, args.plies)
    efficiency = CubeEfficiency.of_evaluator(model)
    model.save(args.out)
    lines = [f"{'class':<10} {'decisions':>9} {'x':>5}  lost/decision: gnubg's 0.68  fitted"]
    for name, r in report.items():
        lines.append(f"{name:<10} {r['positions']:>9} {r['x']:>5.2f}  {r['gnubg']:>24.4f}  "
                     f"{r['fitted']:.4f}")
    kept = [n for n in CubeEfficiency.classes if n not in report]
    if kept:
        lines.append(f"(too few decisions, gnubg's 0.68 kept: {', '.join(kept)})")
    lines.append(f"wrote {args.out}")
    emit(args, {"out": args.out, "cube_efficiency": efficiency.as_dict(), "classes": report},
         "\n".join(lines))
    return 0


def register_cube_steps(dsub: argparse._SubParsersAction) -> None:
    """Add ``data cube-decisions``, ``data cube-benchmark`` and ``data cube-fit``."""
    c = dsub.add_parser("cube-decisions", help="build a cube benchmark: close cube decisions "
                                               "rolled out cubefully",
                        description="Keep the pool's positions whose double or take is within "
                                    "--window points by the engine's cube model (and by gnubg "
                                    "0-ply's with --gnubg-window), money play, cube centred, "
                                    "Jacoby off; roll each out cubefully (no double and "
                                    "double/take on common dice, both sides using the cube).  "
                                    "Written every 25 positions; a stopped build resumes.")
    c.add_argument("out", metavar="CUBES.npz")
    c.add_argument("--pool", metavar="POOL.npz", help="the positions to select from")
    c.add_argument("--positions-from", metavar="CUBES.npz", default=None,
                   help="instead of a pool: the positions of this cube set, rolled out again "
                        "(e.g. by another player), none selected or left out")
    c.add_argument("--window", type=_window, default=0.1,
                   help="how close a decision must be, in points per cube (default 0.1)")
    c.add_argument("--gnubg-window", action="store_true",
                   help="also keep positions close by gnubg 0-ply (needs gnubg)")
    c.add_argument("--candidates", **whole_number(1), default=None, metavar="N",
                   help="consider the first N positions of each class of the pool only")
    c.add_argument("--per-class", **whole_number(1), default=None, metavar="N",
                   help="the first N kept positions of each class only")
    c.add_argument("--scores", nargs="+", type=_score, default=None, metavar="A-B",
                   help="with --positions-from: roll the positions out at these match scores "
                        "instead (A points away for the side on roll, B for the other; the "
                        "positions take them in turn), values as gnubg's normalised equity")
    c.add_argument("--trials", **whole_number(1), default=2592,
                   help="games per position (default 2592)")
    c.add_argument("--seed", type=int, default=0, help="rollout seed (default 0)")
    c.add_argument("--jobs", **whole_number(1), default=2, help="gnubg processes (default 2)")
    c.add_argument("--threads", **whole_number(1), default=None,
                   help="threads (default: all cores)")
    add_player_argument(c, f"the evaluator that selects and rolls out: {NETWORK_SPEC_HELP}")
    add_quiet_argument(c)
    add_json_argument(c)
    c.set_defaults(func=_cmd_cube_decisions)

    b = dsub.add_parser("cube-benchmark", help="cube decisions' equity lost, by class and kind",
                        description="Judge each player's cube decisions on a cube decision "
                                    "set (data cube-decisions) by its cubeful rollouts, or by "
                                    "gnubg 2-ply's cube analysis: equity lost per decision by "
                                    "position class and by kind (missed double, wrong double, "
                                    "too good, wrong take, wrong pass), and how often the "
                                    "proper action is gnubg 2-ply's.")
    b.add_argument("set", metavar="CUBES.npz")
    b.add_argument("--player", nargs="+", default=None, metavar="SPEC",
                   help=f"evaluators whose cube model is judged: {NETWORK_SPEC_HELP} (default net)")
    b.add_argument("--plies", nargs="+", type=int, default=[0], choices=(0, 1, 2),
                   help="lookahead of their evaluations (default 0; deeper: clear doubles "
                        "decided at 0-ply, as the engine decides them)")
    b.add_argument("--gnubg", nargs="*", type=int, default=[], choices=(0, 1, 2),
                   metavar="PLIES", help="also GNU Backgammon's cube analysis at these plies")
    b.add_argument("--judge", choices=("rollout", "gnubg"), default="rollout",
                   help="the set's cubeful rollouts (default) or gnubg 2-ply")
    b.add_argument("--jobs", **whole_number(1), default=2, help="gnubg processes (default 2)")
    add_json_argument(b)
    b.set_defaults(func=_cmd_cube_benchmark)

    f = dsub.add_parser("cube-fit", help="fit an evaluator's cube efficiency per position "
                                         "class to a cube decision set",
                        description="Search, class by class (contact, holding, back game, "
                                    "crashed; races keep gnubg's pip rule), the cube "
                                    "efficiency that loses the least equity per cube decision "
                                    "on the set (data cube-decisions), judged by its cubeful "
                                    "rollouts, and write the evaluator with them in its "
                                    "metadata: the engine's cube model then uses them in "
                                    "play, hints, analysis and cubeful rollouts.  Fit on a "
                                    "training set, judge on another (data cube-benchmark).")
    f.add_argument("set", metavar="CUBES.npz")
    f.add_argument("--out", required=True, metavar="OUT.npz", help="the evaluator file to write")
    f.add_argument("--plies", type=int, default=0, choices=(0, 1, 2),
                   help="lookahead of the evaluations the model reads (default 0)")
    add_player_argument(f, f"the evaluator to fit: {NETWORK_SPEC_HELP}")
    add_json_argument(f)
    f.set_defaults(func=_cmd_cube_fit)
