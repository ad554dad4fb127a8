"""``bgengine show`` and ``bgengine moves``: a position and its legal plays."""

from __future__ import annotations

import argparse

from bgengine.cli.options import parse_dice

__all__ = ["register"]


def _cmd_show(args: argparse.Namespace) -> int:
    from bgengine.state import GameState

    state = GameState.from_string(args.position_id) if args.position_id else GameState()
    print(state.position.to_text())
    print(f" {state.summary()}")
    print(f" gnubg ID: {state.to_gnubgid()}")
    try:
        print(f" {state.to_xgid()}")
    except ValueError as exc:       # a resignation or a finished game: no XGID
        print(f" (no XGID: {exc})")
    return 0


def _cmd_moves(args: argparse.Namespace) -> int:
    from bgengine.state import GameState

    state = GameState.from_string(args.position_id)
    pos = state.position
    if args.dice is None and state.dice == (0, 0):
        raise ValueError("no dice: give the roll (e.g. 31) or a state with dice rolled")
    d1, d2 = args.dice or state.dice
    moves = pos.legal_moves(d1, d2)
    if moves[0].is_pass:
        print(f"no legal play with {d1}-{d2}")
        return 0
    for i, m in enumerate(moves, 1):
        print(f"{i:4d}. {m.notation:<28} -> {m.position.swap().position_id}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``show`` and ``moves`` to the ``bgengine`` sub-commands."""
    p = sub.add_parser("show", help="draw a position or game state (Position ID, gnubg ID, XGID)",
                       description="Draw a position as a text board, from the side on roll's view, "
                                   "with its context (match, score, cube, dice) and its IDs.")
    p.add_argument("position_id", nargs="?", metavar="STATE",
                   help="Position ID, gnubg's PositionID:MatchID or an XGID (default: the start)")
    p.set_defaults(func=_cmd_show)

    p = sub.add_parser("moves", help="list the legal plays of a position for a roll",
                       description="List every distinct legal play for a roll, in gnubg notation, "
                                   "with the Position ID after each (opponent's view).")
    p.add_argument("position_id", metavar="STATE",
                   help="Position ID, PositionID:MatchID or XGID; the side on roll moves")
    p.add_argument("dice", type=parse_dice, nargs="?",
                   help="the roll, e.g. 31 or 6-6 (default: the state's dice)")
    p.set_defaults(func=_cmd_moves)
