"""``bgengine show`` and ``bgengine moves``: a position and its legal plays."""

from __future__ import annotations

import argparse

from bgengine.cli.options import AFTER_PLAY_RULE, JACOBY_HELP, STATE_HELP, parse_dice
from bgengine.cli.output import add_json_argument, emit

__all__ = ["register"]


def _cmd_show(args: argparse.Namespace) -> int:
    from bgengine.state import GameState

    state = GameState.from_string(args.position_id) if args.position_id else GameState()
    pos = state.position
    lines = [pos.to_text(), f" {state.summary()}", f" gnubg ID: {state.to_gnubgid()}"]
    try:
        xgid: str | None = state.to_xgid()
        lines.append(f" {xgid}")
    except ValueError as exc:       # a resignation or a finished game: no XGID
        xgid = None
        lines.append(f" (no XGID: {exc})")
    emit(args, {"position_id": pos.position_id, "gnubg_id": state.to_gnubgid(), "xgid": xgid,
                "summary": state.summary(), "board": pos.board, "pips": pos.pips(),
                "borne_off": pos.borne_off()}, "\n".join(lines))
    return 0


def _cmd_moves(args: argparse.Namespace) -> int:
    from bgengine.state import GameState

    state = GameState.from_string(args.position_id)
    pos = state.position
    if args.dice is None and state.dice == (0, 0):
        raise ValueError("no dice: give the roll (e.g. 31) or a state with dice rolled")
    d1, d2 = args.dice or state.dice
    d1, d2 = max(d1, d2), min(d1, d2)       # 13 and 31: the same list, numbered alike
    moves = [m for m in pos.legal_moves(d1, d2) if not m.is_pass]
    after = [m.position.position_id for m in moves]     # the opponent on roll, as gnubg
    lines = [f"{i:4d}. {m.notation:<28} -> {a}" for i, (m, a) in enumerate(zip(moves, after), 1)]
    emit(args, {"position_id": pos.position_id, "dice": [d1, d2],
                "moves": [{"notation": m.notation, "position_id": a}
                          for m, a in zip(moves, after)]},
         "\n".join(lines) if lines else f"no legal play with {d1}-{d2}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``show`` and ``moves`` to the ``bgengine`` sub-commands."""
    p = sub.add_parser("show", help="draw a position or game state (Position ID, gnubg ID, XGID)",
                       description="Draw a position as a text board, from the side on roll's view, "
                                   "with its context (match, score, cube, dice) and its IDs.  "
                                   + JACOBY_HELP + ".")
    p.add_argument("position_id", nargs="?", metavar="STATE",
                   help=STATE_HELP + "; default: the start")
    add_json_argument(p)
    p.set_defaults(func=_cmd_show)

    p = sub.add_parser("moves", help="list the legal plays of a position for a roll",
                       description="List every distinct legal play for a roll, in gnubg notation, "
                                   "numbered (the numbers 'bgengine play' takes), with the "
                                   f"Position ID after each: {AFTER_PLAY_RULE}.")
    p.add_argument("position_id", metavar="STATE",
                   help=STATE_HELP + "; the side on roll moves")
    p.add_argument("dice", type=parse_dice, nargs="?",
                   help="the roll, e.g. 31 or 6-6 (default: the state's dice)")
    add_json_argument(p)
    p.set_defaults(func=_cmd_moves)
