"""The ``bgengine`` command line."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Sequence

import bgengine

__all__ = ["main", "build_parser"]


def _cmd_demo(args: argparse.Namespace) -> int:
    from bgengine.demo import play_demo_game

    play_demo_game(args.x, args.o, seed=args.seed, out=sys.stdout)
    return 0


def _parse_dice(text: str) -> tuple[int, int]:
    t = text.replace("-", "").replace(",", "").replace(" ", "")
    if len(t) != 2 or not t.isdigit() or not all("1" <= c <= "6" for c in t):
        raise argparse.ArgumentTypeError(f"dice must be two digits 1..6 like 31 or 6-6, got {text!r}")
    return int(t[0]), int(t[1])


def _cmd_show(args: argparse.Namespace) -> int:
    from bgengine.position import Position

    pos = Position.from_id(args.position_id) if args.position_id else Position.initial()
    print(pos.to_text())
    return 0


def _cmd_moves(args: argparse.Namespace) -> int:
    from bgengine.position import Position

    pos = Position.from_id(args.position_id)
    d1, d2 = args.dice
    moves = pos.legal_moves(d1, d2)
    if moves[0].is_pass:
        print(f"no legal play with {d1}-{d2}")
        return 0
    for i, m in enumerate(moves, 1):
        print(f"{i:4d}. {m.notation:<28} -> {m.position.swap().position_id}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bgengine",
        description="bgengine: a backgammon engine that learns from the rules alone by self-play.",
    )
    parser.add_argument("--version", action="version", version=f"bgengine {bgengine.__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("demo", help="play and print one game between two simple players",
                       description="Play one cubeless game between two simple players and print "
                                   "every move in gnubg notation, the final board and the result.")
    p.add_argument("--x", default="pointmaker", choices=["pointmaker", "random"],
                   help="player for X (default: pointmaker, a greedy point-making heuristic)")
    p.add_argument("--o", default="random", choices=["pointmaker", "random"],
                   help="player for O (default: random)")
    p.add_argument("--seed", type=int, default=1, help="dice seed (default 1); same seed, same game")
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("show", help="draw a position given by its GNU Backgammon Position ID",
                       description="Draw a position as a text board, from the side on roll's view.")
    p.add_argument("position_id", nargs="?", help="14-character Position ID (default: the start)")
    p.set_defaults(func=_cmd_show)

    p = sub.add_parser("moves", help="list the legal plays of a position for a roll",
                       description="List every distinct legal play for a roll, in gnubg notation, "
                                   "with the Position ID after each (opponent's view).")
    p.add_argument("position_id", help="14-character Position ID; the side on roll moves")
    p.add_argument("dice", type=_parse_dice, help="the roll, e.g. 31 or 6-6")
    p.set_defaults(func=_cmd_moves)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except ValueError as exc:
        print(f"bgengine: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
