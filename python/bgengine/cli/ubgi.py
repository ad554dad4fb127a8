"""``bgengine ubgi``: a UBGI engine on stdin/stdout (the session is :mod:`bgengine.protocols.ubgi`)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Iterable, TextIO

from bgengine.cli.options import JACOBY_RULE, plies_number
from bgengine.protocols.ubgi import PLAYER_CHOICES, UbgiSession

__all__ = ["register", "run_session"]


def run_session(session: UbgiSession, lines: Iterable[str], out: TextIO) -> None:
    """Answer ``lines`` until ``quit`` or their end, each reply line flushed at once
    (a controller waits for it)."""
    for line in lines:
        for reply in session.handle(line.rstrip("\r\n")):
            out.write(reply + "\n")
            out.flush()
        if session.closed:
            break


def _cmd_ubgi(args: argparse.Namespace) -> int:
    from bgengine.decisions.engine import EngineError

    try:
        session = UbgiSession(args.player, plies=args.plies, jacoby=args.jacoby)
    except EngineError as exc:      # a depth or player the engine cannot have: bad input
        raise ValueError(str(exc)) from None
    # the controller may send anything: undecodable bytes become U+FFFD, not a crash
    stdin = open(sys.stdin.fileno(), encoding="utf-8", errors="replace", closefd=False)
    try:
        run_session(session, stdin, sys.stdout)
    except BrokenPipeError:         # the controller went away: nothing left to answer
        # (the Python documentation's recipe: no second error when stdout is flushed at exit)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``ubgi`` to the ``bgengine`` sub-commands; returns its parser."""
    p = sub.add_parser(
        "ubgi", help="be a UBGI engine on stdin/stdout",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Speak UBGI v0.2 (the Universal Backgammon Interface) on stdin/stdout, for\n"
            "controllers such as bgci or 'bgengine match \"ubgi:COMMAND\" net':\n"
            "  ubgi                              -> id, proto, key lines, ubgiok\n"
            "  position gnubgid 4HPwATDgc/ABMA   (also POSITION_ID:MATCH_ID)\n"
            "  dice 3 1\n"
            "  go                                -> bestmove 8/5 6/5\n"
            "  go cube | go turn                 -> bestcube ... | bestturn cube=... move=...\n"
            "  set engine.ply 2 | get KEY | keys | isready | newgame | quit\n\n"
            "UBGI's engine.ply counts the root: engine.ply = --plies + 1 (UBGI 1-ply is\n"
            "gnubg's 0-ply).\n\n"
            f"Players (--player, key engine.player): {PLAYER_CHOICES}.\n\n"
            f"{JACOBY_RULE}  (UBGI: game.jacoby, for a position without a Match ID.)\n\n"
            "The session ends at 'quit' or the end of input: exit status 0."),
    )
    p.add_argument("--player", default=None, metavar="SPEC",
                   help="who plays (default: net, the shipped network, if installed; else pubeval)")
    p.add_argument("--plies", **plies_number, default=0,
                   help="lookahead in gnubg's numbering, 0-3 (default 0; UBGI engine.ply = plies + 1)")
    p.add_argument("--jacoby", action="store_true",
                   help="money games without a Match ID: cube decisions under the Jacoby rule")
    p.set_defaults(func=_cmd_ubgi)
    return p
