"""``bgengine show`` and ``bgengine moves``: a position and its legal plays."""

from __future__ import annotations

import argparse

from bgengine.cli.options import parse_dice
from bgengine.cli.output import add_json_argument, emit

__all__ = ["register"]


def _cmd_show(args: argparse.Namespace) -> int:
    from bgengine.position import Position

    pos = Position.from_id(args.position_id) if args.position_id else Position.initial()
    emit(args, {"position_id": pos.position_id, "board": pos.board, "pips": pos.pips(),
                "borne_off": pos.borne_off()}, pos.to_text())
    return 0


def _cmd_moves(args: argparse.Namespace) -> int:
    from bgengine.position import Position

    pos = Position.from_id(args.position_id)
    d1, d2 = args.dice
    moves = [m for m in pos.legal_moves(d1, d2) if not m.is_pass]
    after = [m.position.swap().position_id for m in moves]
    lines = [f"{i:4d}. {m.notation:<28} -> {a}" for i, (m, a) in enumerate(zip(moves, after), 1)]
    emit(args, {"position_id": pos.position_id, "dice": [d1, d2],
                "moves": [{"notation": m.notation, "position_id": a}
                          for m, a in zip(moves, after)]},
         "\n".join(lines) if lines else f"no legal play with {d1}-{d2}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``show`` and ``moves`` to the ``bgengine`` sub-commands."""
    p = sub.add_parser("show", help="draw a position given by its GNU Backgammon Position ID",
                       description="Draw a position as a text board, from the side on roll's view.")
    p.add_argument("position_id", nargs="?", help="14-character Position ID (default: the start)")
    add_json_argument(p)
    p.set_defaults(func=_cmd_show)

    p = sub.add_parser("moves", help="list the legal plays of a position for a roll",
                       description="List every distinct legal play for a roll, in gnubg notation, "
                                   "with the Position ID after each (opponent's view).")
    p.add_argument("position_id", help="14-character Position ID; the side on roll moves")
    p.add_argument("dice", type=parse_dice, help="the roll, e.g. 31 or 6-6")
    add_json_argument(p)
    p.set_defaults(func=_cmd_moves)
