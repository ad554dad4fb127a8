"""``bgengine demo``: one game between two players, printed move by move."""

from __future__ import annotations

import argparse
import dataclasses
import sys

from bgengine.cli.output import add_json_argument, emit

__all__ = ["register"]


def _cmd_demo(args: argparse.Namespace) -> int:
    from bgengine.matches.demo import default_demo_players, play_demo_game

    x, o = default_demo_players()
    x, o = args.x or x, args.o or o
    record = play_demo_game(x, o, seed=args.seed, out=None if args.json else sys.stdout)
    emit(args, {"x": x, "o": o, "seed": args.seed, **dataclasses.asdict(record)})
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``demo`` to the ``bgengine`` sub-commands."""
    from bgengine.matches.players import SPEC_HELP

    p = sub.add_parser("demo", help="play and print one game between two players",
                       description="Play one cubeless game and print every move in gnubg "
                                   "notation, the final board and the result.  "
                                   f"Players: {SPEC_HELP}.")
    p.add_argument("--x", default=None, help="player for X (default: net, the shipped network)")
    p.add_argument("--o", default=None, help="player for O (default: pubeval)")
    p.add_argument("--seed", type=int, default=1, help="dice seed (default 1); same seed, same game")
    add_json_argument(p)
    p.set_defaults(func=_cmd_demo)
