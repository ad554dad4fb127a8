"""``bgengine network``: steps on a trained evaluator file.

``widen`` and ``deepen`` grow it, keeping what it computes (:mod:`bgengine.training.growth`), so that a
run of the bigger networks starts where the smaller ones stopped (``init_from = "OUT.npz"`` in
the run's config); ``outcomes`` and ``calibrate`` Platt-scale its outputs to the results of its
own games (:mod:`bgengine.training.outcomes`)."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from bgengine.cli.options import add_player_argument, add_quiet_argument, \
    games_number, non_negative_number, share, whole_number
from bgengine.cli.output import add_json_argument, emit
from bgengine.cli.progress import ProgressBar

__all__ = ["register"]

log = logging.getLogger(__name__)


def _widths(text: str) -> list[int]:
    """``"256"`` or ``"128,64"``: hidden widths, each a whole number >= 1."""
    try:
        widths = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected widths such as 256 or 128,64, got {text!r}") from None
    if not widths or any(w < 1 for w in widths):
        raise argparse.ArgumentTypeError(f"expected widths >= 1, got {text!r}")
    return widths


def _width(text: str) -> int:
    widths = _widths(text)
    if len(widths) != 1:
        raise argparse.ArgumentTypeError(f"expected one width, got {text!r}")
    return widths[0]


def _paths(args: argparse.Namespace) -> tuple[Path, Path]:
    from bgengine.cli.options import evaluator_file

    source, target = evaluator_file(args.source), Path(args.target)
    if target.resolve() == source.resolve():
        raise ValueError(f"{target}: the output would overwrite its source; name another file")
    return source, target


def _report(args: argparse.Namespace, source: object, grown: object, target: Path) -> int:
    emit(args, {"source": args.source, "target": str(target), "from": repr(source),
                "to": repr(grown)}, f"{args.source}: {source!r}\n -> {target}: {grown!r}")
    return 0


def _cmd_widen(args: argparse.Namespace) -> int:
    from bgengine.core.evaluator import Evaluator, load_evaluator
    from bgengine.training.growth import widen, widen_evaluator
    from bgengine.labelling.fit import replace_networks

    if args.contact is None and args.race is None:
        raise ValueError("nothing to widen: give --contact WIDTHS, --race WIDTHS or both")
    source_path, target = _paths(args)
    source = load_evaluator(source_path)
    if source.single:
        if args.race is not None:
            raise ValueError(f"{source_path}: a single network has no race network to widen")
        grown = Evaluator.from_network(widen(source.contact, args.contact, noise=args.noise,
                                             seed=args.seed, copies=not args.fresh))
    elif args.contact is None:          # the race network alone (contact experts kept)
        grown = replace_networks(source, {"race": widen(source.race, args.race, noise=args.noise,
                                                        seed=args.seed + 1,
                                                        copies=not args.fresh)})
    else:
        grown = widen_evaluator(source, args.contact, args.race, noise=args.noise,
                                seed=args.seed, copies=not args.fresh)
    grown.save(target)
    return _report(args, source, grown, target)


def _cmd_deepen(args: argparse.Namespace) -> int:
    from bgengine.core.evaluator import Evaluator, load_evaluator
    from bgengine.training.growth import deepen, deepen_evaluator
    from bgengine.training.startpositions import play_positions

    source_path, target = _paths(args)
    source = load_evaluator(source_path)
    boards = (play_positions(source, args.fit_games, seed=args.seed, epsilon=args.fit_epsilon)
              if args.fit_games else None)
    if source.single:
        grown = Evaluator.from_network(deepen(source.contact, args.width, slope=args.slope,
                                              boards=boards, noise=args.noise, seed=args.seed))
    else:
        grown = deepen_evaluator(source, args.width, race=args.race, slope=args.slope,
                                 boards=boards, noise=args.noise, seed=args.seed)
    grown.save(target)
    return _report(args, source, grown, target)


def _cmd_outcomes(args: argparse.Namespace) -> int:
    from bgengine.core.evaluator import as_evaluator
    from bgengine.training.outcomes import play_outcomes
    from bgengine.matches.players import load_network_spec

    evaluator = as_evaluator(load_network_spec(args.player))
    with ProgressBar("self-play", "games", total=args.games, quiet=args.quiet) as bar:
        outcomes = play_outcomes(evaluator, args.games, args.seed, progress=bar)
    outcomes.save(args.out)
    emit(args, {"out": args.out, "positions": len(outcomes), "games": args.games,
                "seed": args.seed}, f"{args.out}: {len(outcomes)} positions of {args.games} games")
    return 0


def calibration_table(name: str, report: object) -> str:
    """One class's calibration figures as a Markdown table (one row per output)."""
    from bgengine.training.outcomes import OUTPUT_EVENTS

    r = report
    lines = [f"{name}: {r.positions} positions of {r.games} games",
             "| output | a | b | mean before | mean after | frequency | log loss before | after |",
             "|---|---|---|---|---|---|---|---|"]
    for j, event in enumerate(OUTPUT_EVENTS):
        lines.append(f"| {event} | {r.a[j]:.4f} | {r.b[j]:+.4f} | {r.mean_before[j]:.4f} | "
                     f"{r.mean_after[j]:.4f} | {r.frequency[j]:.4f} | "
                     f"{r.log_loss_before[j]:.5f} | {r.log_loss_after[j]:.5f} |")
    return "\n".join(lines)


def _cmd_calibrate(args: argparse.Namespace) -> int:
    from bgengine.core.evaluator import as_evaluator
    from bgengine.training.outcomes import GameOutcomes, calibrate_evaluator
    from bgengine.matches.players import load_network_spec

    evaluator = as_evaluator(load_network_spec(args.player))
    outcomes = GameOutcomes.concatenate([GameOutcomes.load(f) for f in args.files])
    calibrated, reports = calibrate_evaluator(evaluator, outcomes, classes=args.classes,
                                              outputs=args.outputs)
    calibrated.metadata["output_calibration"] = {"player": args.player or "net",
                                                 "files": list(args.files)}
    calibrated.save(args.out)
    emit(args, {"out": args.out, "classes": {k: r.as_dict() for k, r in reports.items()}},
         "\n\n".join(calibration_table(k, r) for k, r in reports.items()) + f"\nsaved {args.out}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``network widen|deepen|outcomes|calibrate``."""
    from bgengine.training.growth import DEEPEN_SLOPE

    p = sub.add_parser("network", help="steps on an evaluator file: widen, deepen, calibrate",
                       description="Steps on a trained evaluator file: grow it wider or "
                                   "deeper, keeping what it computes, so that a training run of "
                                   "the bigger networks starts where the smaller ones stopped "
                                   "(init_from = \"OUT.npz\" in the run's config); calibrate "
                                   "its outputs to the results of its own games.")
    nsub = p.add_subparsers(dest="network_command", metavar="STEP")
    p.set_defaults(func=lambda a: (p.print_help(), 2)[1])

    w = nsub.add_parser("widen", help="more hidden units, each a perturbed copy of an old one",
                        description="Widen the networks of an evaluator file; the wider file "
                                    "computes nearly what the source does.")
    w.add_argument("source", help="evaluator or network file (.npz), or net (the shipped one)")
    w.add_argument("target", help="the wider file to write")
    w.add_argument("--contact", type=_widths, metavar="WIDTHS",
                   help="new hidden widths of the contact (or single) network, e.g. 256 "
                        "(not for a file with contact experts)")
    w.add_argument("--race", type=_widths, metavar="WIDTHS",
                   help="new hidden widths of the race network (default: unchanged)")
    w.add_argument("--noise", type=non_negative_number, default=0.01,
                   help="relative noise on the copied units' incoming weights (default 0.01)")
    w.add_argument("--seed", type=int, default=0, help="seed of the noise")
    w.add_argument("--fresh", action="store_true",
                   help="new units fresh instead of copies: random incoming weights of "
                        "half-width --noise and zero outgoing ones (the outputs kept exactly; "
                        "for a fit to grow them)")
    add_json_argument(w)
    w.set_defaults(func=_cmd_widen)

    d = nsub.add_parser("deepen", help="one more hidden layer after the last",
                        description="Deepen the contact (or single) network of an evaluator "
                                    "file by one hidden layer started so that the outputs stay "
                                    "nearly the same; the new outgoing layer is refit on the "
                                    "positions of a few self-play games.")
    d.add_argument("source", help="evaluator or network file (.npz), or net (the shipped one)")
    d.add_argument("target", help="the deeper file to write")
    d.add_argument("--width", type=_width, help="width of the new layer (default: the last "
                                                "hidden layer's)")
    d.add_argument("--race", action="store_true", help="deepen the race network too")
    d.add_argument("--slope", type=non_negative_number, default=DEEPEN_SLOPE,
                   help=f"slope of the new layer's units at the origin (default {DEEPEN_SLOPE})")
    d.add_argument("--fit-games", **whole_number(0), default=300,
                   help="self-play games whose positions the new layer is refit on "
                        "(0: no refit; default 300)")
    d.add_argument("--fit-epsilon", type=share, default=0.1,
                   help="share of random plays in those games (default 0.1)")
    d.add_argument("--noise", type=non_negative_number, default=0.01,
                   help="weight noise (default 0.01)")
    d.add_argument("--seed", type=int, default=0, help="seed of the dice and the noise")
    add_json_argument(d)
    d.set_defaults(func=_cmd_deepen)

    o = nsub.add_parser("outcomes", help="record self-play positions with their games' results",
                        description="Record every position before a roll of a player's own "
                                    "self-play at 0-ply with its game's result, for calibrate. "
                                    "The player recorded must be the one calibrated. Run "
                                    "several seeds side by side to use both cores.")
    o.add_argument("out", help="outcomes file to write (.npz)")
    o.add_argument("--games", **games_number, default=5000, help="games (default 5000)")
    o.add_argument("--seed", type=int, default=0, help="dice seed (game i: stream i)")
    add_player_argument(o, "the network whose games are recorded (default: the shipped one)")
    add_quiet_argument(o)
    add_json_argument(o)
    o.set_defaults(func=_cmd_outcomes)

    c = nsub.add_parser("calibrate", help="Platt-scale the outputs to recorded results",
                        description="Platt-scale each output of a player's class networks to "
                                    "recorded results (each network on the positions of its "
                                    "class), fold the maps into the output layers and save the "
                                    "evaluator; prints per class and output the map (a, b), "
                                    "the mean output before and after against the event's "
                                    "frequency, and the log loss before and after.")
    c.add_argument("out", help="calibrated evaluator file to write")
    c.add_argument("files", nargs="+", help="outcomes files written by 'network outcomes'")
    add_player_argument(c, "the network to calibrate (default: the shipped one)")
    c.add_argument("--classes", nargs="+", default=["contact", "race"],
                   choices=["contact", "race"], help="which networks (default: both)")
    c.add_argument("--outputs", nargs="+", type=int, choices=range(5), metavar="J",
                   help="which outputs, 0-4: win, win gammon, win backgammon, lose gammon, "
                        "lose backgammon (default: all five; the backgammon outputs need tens "
                        "of thousands of games)")
    add_json_argument(c)
    c.set_defaults(func=_cmd_calibrate)
