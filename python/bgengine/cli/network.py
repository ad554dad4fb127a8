"""``bgengine network``: grow a trained evaluator file, wider or deeper, keeping what it
computes (:mod:`bgengine.growth`), so that a run of the bigger networks starts where the
smaller ones stopped (``init_from = "OUT.npz"`` in the run's config)."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from bgengine.cli.output import add_json_argument, emit

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


def _count(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {v}")
    return v


def _share(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a share in [0, 1], got {text!r}")
    return v


def _noise(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.0 <= v < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0, got {text!r}")
    return v


def _paths(args: argparse.Namespace) -> tuple[Path, Path]:
    source, target = Path(args.source), Path(args.target)
    if target.resolve() == source.resolve():
        raise ValueError(f"{target}: the output would overwrite its source; name another file")
    return source, target


def _report(args: argparse.Namespace, source: object, grown: object, target: Path) -> int:
    emit(args, {"source": args.source, "target": str(target), "from": repr(source),
                "to": repr(grown)}, f"{args.source}: {source!r}\n -> {target}: {grown!r}")
    return 0


def _cmd_widen(args: argparse.Namespace) -> int:
    from bgengine.evaluator import Evaluator, load_evaluator
    from bgengine.growth import widen, widen_evaluator

    source_path, target = _paths(args)
    source = load_evaluator(source_path)
    if source.single:
        if args.race is not None:
            raise ValueError(f"{source_path}: a single network has no race network to widen")
        grown = Evaluator.from_network(widen(source.contact, args.contact, noise=args.noise,
                                             seed=args.seed))
    else:
        grown = widen_evaluator(source, args.contact, args.race, noise=args.noise,
                                seed=args.seed)
    grown.save(target)
    return _report(args, source, grown, target)


def _cmd_deepen(args: argparse.Namespace) -> int:
    from bgengine.evaluator import Evaluator, load_evaluator
    from bgengine.growth import deepen, deepen_evaluator
    from bgengine.startpositions import play_positions

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


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``network widen`` and ``network deepen``."""
    from bgengine.growth import DEEPEN_SLOPE

    p = sub.add_parser("network", help="grow an evaluator file: wider or deeper networks",
                       description="Grow a trained evaluator file, wider or deeper, keeping "
                                   "what it computes, so that a training run of the bigger "
                                   "networks starts where the smaller ones stopped "
                                   "(init_from = \"OUT.npz\" in the run's config).")
    nsub = p.add_subparsers(dest="network_command", metavar="STEP")
    p.set_defaults(func=lambda a: (p.print_help(), 2)[1])

    w = nsub.add_parser("widen", help="more hidden units, each a perturbed copy of an old one",
                        description="Widen the networks of an evaluator file; the wider file "
                                    "computes nearly what the source does.")
    w.add_argument("source", help="evaluator or network file (.npz)")
    w.add_argument("target", help="the wider file to write")
    w.add_argument("--contact", type=_widths, required=True, metavar="WIDTHS",
                   help="new hidden widths of the contact (or single) network, e.g. 256")
    w.add_argument("--race", type=_widths, metavar="WIDTHS",
                   help="new hidden widths of the race network (default: unchanged)")
    w.add_argument("--noise", type=_noise, default=0.01,
                   help="relative noise on the copied units' incoming weights (default 0.01)")
    w.add_argument("--seed", type=int, default=0, help="seed of the noise")
    add_json_argument(w)
    w.set_defaults(func=_cmd_widen)

    d = nsub.add_parser("deepen", help="one more hidden layer after the last",
                        description="Deepen the contact (or single) network of an evaluator "
                                    "file by one hidden layer started so that the outputs stay "
                                    "nearly the same; the new outgoing layer is refit on the "
                                    "positions of a few self-play games.")
    d.add_argument("source", help="evaluator or network file (.npz)")
    d.add_argument("target", help="the deeper file to write")
    d.add_argument("--width", type=_width, help="width of the new layer (default: the last "
                                                "hidden layer's)")
    d.add_argument("--race", action="store_true", help="deepen the race network too")
    d.add_argument("--slope", type=_noise, default=DEEPEN_SLOPE,
                   help=f"slope of the new layer's units at the origin (default {DEEPEN_SLOPE})")
    d.add_argument("--fit-games", type=_count, default=300,
                   help="self-play games whose positions the new layer is refit on "
                        "(0: no refit; default 300)")
    d.add_argument("--fit-epsilon", type=_share, default=0.1,
                   help="share of random plays in those games (default 0.1)")
    d.add_argument("--noise", type=_noise, default=0.01, help="weight noise (default 0.01)")
    d.add_argument("--seed", type=int, default=0, help="seed of the dice and the noise")
    add_json_argument(d)
    d.set_defaults(func=_cmd_deepen)
