"""``bgengine show`` and ``bgengine moves``: a position and its legal plays."""

from __future__ import annotations

import argparse

from bgengine.cli.options import parse_dice

__all__ = ["register"]


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


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``show`` and ``moves`` to the ``bgengine`` sub-commands."""
    p = sub.add_parser("show", help="draw a position given by its GNU Backgammon Position ID",
                       description="Draw a position as a text board, from the side on roll's view.")
    p.add_argument("position_id", nargs="?", help="14-character Position ID (default: the start)")
    p.set_defaults(func=_cmd_show)

    p = sub.add_parser("moves", help="list the legal plays of a position for a roll",
                       description="List every distinct legal play for a roll, in gnubg notation, "
                                   "with the Position ID after each (opponent's view).")
    p.add_argument("position_id", help="14-character Position ID; the side on roll moves")
    p.add_argument("dice", type=parse_dice, help="the roll, e.g. 31 or 6-6")
    p.set_defaults(func=_cmd_moves)
