"""``bgengine distill``: play-ranking distillation, the training recipe's step between
self-play and calibration (:mod:`bgengine.training.distillation`)."""

from __future__ import annotations

import argparse
import logging

from bgengine.cli.options import finite_number, games_number, whole_number
from bgengine.cli.output import add_json_argument, emit

__all__ = ["register"]

log = logging.getLogger(__name__)


def _cmd_collect(args: argparse.Namespace) -> int:
    import numpy as np

    from bgengine.training.distillation import collect
    from bgengine.core.evaluator import CLASSES

    data = collect(args.player, args.games, args.seed, args.every, args.top, args.plies,
                   CLASSES.index(args.klass), args.sample, args.rollout, args.opponent,
                   args.race_gammons)
    np.savez(args.out, **data)
    emit(args, {"file": args.out, "positions": len(data["boards"]), "games": args.games},
         f"{args.out}: {len(data['boards'])} positions of {args.games} games")
    return 0


def _cmd_mean(args: argparse.Namespace) -> int:
    import numpy as np

    from bgengine.training.distillation import mean_targets

    data = mean_targets([dict(np.load(f)) for f in args.data])
    np.savez(args.out, **data)
    emit(args, {"file": args.out, "sources": list(args.data)},
         f"{args.out}: the mean of {len(args.data)} files' search values")
    return 0


def _cmd_fit(args: argparse.Namespace) -> int:
    from bgengine.training.distillation import fit, parse_experts
    from bgengine.core.evaluator import CLASSES

    fitted = fit(args.player, args.data, args.lr, args.epochs, pairwise=args.pairwise,
                 absolute=args.absolute, lr_end=args.lr_end, top_layers=args.top_layers,
                 anchor=args.anchor, seed=args.seed, klass=CLASSES.index(args.klass),
                 listwise=args.listwise, temperature=args.temperature, phase=args.phase,
                 experts=None if args.experts is None else parse_experts(args.experts))
    if args.race_gammons is not None:
        fitted = fitted.with_race_gammons(args.race_gammons or False)
    fitted.save(args.out)
    emit(args, {"file": args.out}, f"saved {args.out}")
    return 0


def _cmd_blend(args: argparse.Namespace) -> int:
    from bgengine.training.distillation import blend
    from bgengine.core.evaluator import CLASSES

    blend(args.player, args.fits, args.share, CLASSES.index(args.klass)).save(args.out)
    emit(args, {"file": args.out}, f"saved {args.out}")
    return 0


def _cmd_errors(args: argparse.Namespace) -> int:
    from bgengine.training.distillation import PHASES, phase_errors
    from bgengine.core.evaluator import CLASSES

    errors = phase_errors(args.players, args.data, args.seed, CLASSES.index(args.klass))
    names = list(PHASES) + ["all"]
    lines = ["| player | " + " | ".join(names) + " | search equity lost per decision |",
             "|---" * (len(names) + 2) + "|"]
    for player, by_phase in errors.items():
        total = by_phase["all"]["pair_se"]
        cells = [f"{f['pair_se'] / max(f['pairs'], 1):.6f} ({f['pair_se'] / total:.0%})"
                 for f in (by_phase[n] for n in names)]
        a = by_phase["all"]
        lines.append(f"| {player} | " + " | ".join(cells)
                     + f" | {a['lost'] / max(a['decisions'], 1):.5f} |")
    emit(args, errors, "\n".join(lines))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``distill collect|mean|fit|errors|blend``."""
    from bgengine.training.distillation import PHASES

    p = sub.add_parser("distill", help="train a network toward its own search values",
                       description="Play-ranking distillation: collect an evaluator's own "
                                   "N-ply search values of its self-play decisions, average "
                                   "depths, fit its network to them, blend fits.")
    dsub = p.add_subparsers(dest="distill_command", metavar="STEP")
    p.set_defaults(func=lambda a: (p.print_help(), 2)[1])
    c = dsub.add_parser("collect", help="positions of self-play decisions with their search values")
    c.add_argument("out", help="file to write (.npz)")
    c.add_argument("--player", default="net", metavar="SPEC",
                   help="the network whose self-play and search are collected (default: net)")
    c.add_argument("--games", **games_number, default=2000, help="self-play games (default 2000)")
    c.add_argument("--seed", type=int, default=101, help="dice seed (game i: stream i)")
    c.add_argument("--every", **whole_number(1), default=3,
                   help="keep a decision with probability 1/EVERY")
    c.add_argument("--top", **whole_number(1), default=3, help="plays kept per decision")
    c.add_argument("--plies", **whole_number(0), default=2,
                   help="search depth of the values (default 2)")
    c.add_argument("--sample", **whole_number(1), default=None,
                   help="sampled search: the deepest ply averages this many of the 36 rolls "
                        "(divides 36); also keeps the exact values one ply less")
    c.add_argument("--rollout", **whole_number(1), default=None, metavar="TRIALS",
                   help="value the positions by rollouts of TRIALS trials (variance reduction, "
                        "0-ply plays) instead of a search")
    c.add_argument("--class", dest="klass", choices=("contact", "race"), default="contact",
                   help="the positions kept: in this class")
    c.add_argument("--race-gammons", **whole_number(0), default=None, metavar="N",
                   help="the player's race values at N checkers outside (0: off)")
    c.add_argument("--opponent", default=None, metavar="SPEC",
                   help="a player (e.g. net@0.1) making one seat's plays, alternating seats by "
                        "game: lopsided positions, as against weaker opponents")
    add_json_argument(c)
    c.set_defaults(func=_cmd_collect)
    a = dsub.add_parser("mean", help="average the search values of files from the same games")
    a.add_argument("out", help="file to write (.npz)")
    a.add_argument("data", nargs="+", help="collect files of the same games")
    add_json_argument(a)
    a.set_defaults(func=_cmd_mean)
    f = dsub.add_parser("fit", help="fit a network of an evaluator to search values")
    f.add_argument("out", help="file to write (.npz)")
    f.add_argument("data", nargs="+", help="collect (or mean) files")
    f.add_argument("--player", default="net", metavar="SPEC",
                   help="the evaluator to start from (default: net)")
    f.add_argument("--class", dest="klass", choices=("contact", "race"), default="contact",
                   help="the network fitted")
    f.add_argument("--lr", type=finite_number, default=3e-4, help="Adam step size (default 3e-4)")
    f.add_argument("--lr-end", type=finite_number, default=None,
                   help="the step size at the end (linear from --lr; default: constant)")
    f.add_argument("--epochs", **whole_number(1), default=12,
                   help="passes over the data (default 12)")
    f.add_argument("--pairwise", type=finite_number, default=0.0,
                   help="weight of the equity differences between plays of one decision")
    f.add_argument("--top-layers", **whole_number(1), default=None,
                   help="fit only this many layers from the output down (default: all)")
    f.add_argument("--absolute", type=finite_number, default=1.0,
                   help="weight of the outputs' squared error")
    f.add_argument("--anchor", type=finite_number, default=0.0,
                   help="decay of the weights toward the start's, per unit step size (AdamW-style)")
    f.add_argument("--listwise", type=finite_number, default=0.0,
                   help="weight of the softmax cross-entropy over the plays of one decision")
    f.add_argument("--temperature", type=finite_number, default=0.02,
                   help="the listwise softmax's temperature, in equity")
    f.add_argument("--race-gammons", **whole_number(0), default=None, metavar="N",
                   help="the saved evaluator's race values at N checkers outside (0: off; "
                        "default: the player's)")
    f.add_argument("--seed", type=int, default=0,
                   help="seed of the held-out decisions and the minibatch order")
    f.add_argument("--phase", choices=PHASES, default=None,
                   help="train on (and report) the decisions of this phase only")
    f.add_argument("--experts", default=None, metavar="SPEC",
                   help="contact experts: the contact network copied into one network per "
                        "group of positions, by stage (pips of both sides) and lead cuts "
                        "(stage:250, lead:0, stage:230/280,lead:0)")
    add_json_argument(f)
    f.set_defaults(func=_cmd_fit)
    e = dsub.add_parser("errors", help="held-out errors by phase of several players' networks")
    e.add_argument("data", nargs="+", help="collect files")
    e.add_argument("--players", nargs="+", required=True, metavar="SPEC",
                   help="the networks compared")
    e.add_argument("--seed", type=int, default=0, help="the held-out split of fit --seed")
    e.add_argument("--class", dest="klass", choices=("contact", "race"), default="contact")
    add_json_argument(e)
    e.set_defaults(func=_cmd_errors)
    b = dsub.add_parser("blend", help="move the start toward the mean of several fits")
    b.add_argument("out", help="file to write (.npz)")
    b.add_argument("fits", nargs="+", help="evaluator files written by fit")
    b.add_argument("--player", default="net", metavar="SPEC", help="the start (default: net)")
    b.add_argument("--share", type=finite_number, default=0.5,
                   help="how far toward the fits' mean (0: the start, 1: the mean)")
    b.add_argument("--class", dest="klass", choices=("contact", "race"), default="contact")
    add_json_argument(b)
    b.set_defaults(func=_cmd_blend)
