"""``bgengine serve``: the engine behind the gnubg external-player protocol, over TCP."""

from __future__ import annotations

import argparse
import logging
import math
import signal
import sys

from bgengine.cli.options import JACOBY_RULE, add_player_argument, plies_number
from bgengine.decisions.engine import Engine, NotSupported
from bgengine.interrupts import handling, raise_keyboard_interrupt
from bgengine.matches.players import SPEC_HELP
from bgengine.protocols.gnubg_socket import ExchangeLog
from bgengine.protocols.serve import (ADMIT_WAIT, DEFAULT_HOST, DEFAULT_PORT, EVICT_AGE, EVICT_IDLE,
                            KEEPALIVE_IDLE, MAX_LINE_BYTES, BgServer, check_host)

__all__ = ["register", "serve_main"]


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``serve`` to the ``bgengine`` sub-commands; returns its parser."""
    p = subparsers.add_parser(
        "serve", help="play for GNU Backgammon over its external-player socket",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Listen on a TCP port and answer GNU Backgammon's external-player protocol.\n\n"
            "Let gnubg play against bgengine (start the server first: gnubg connects\n"
            "once, when the 'set player' command runs, and keeps that connection):\n"
            "  bgengine serve                      # listens on 127.0.0.1:31000\n"
            "  gnubg -t, then:   set player 1 external 127.0.0.1:31000\n"
            "                    set beavers 0       (a beaver would stall the game)\n"
            "                    set jacoby off\n"
            "                    new game\n\n"
            "gnubg sends a FIBS 'board:' line for each of that player's decisions and bgengine\n"
            "answers with its play, roll/double or take/drop.  The same port also answers\n"
            "clients written for gnubg's own 'external' server: version, help,\n"
            "set debug on|off, board:... requests and\n"
            "'evaluation fibsboard board:... [plies 0] [cubeless]' (six numbers: win, win\n"
            "gammon, win backgammon, lose gammon, lose backgammon, equity).\n\n"
            f"Players (--player): {SPEC_HELP}.\n\n"
            f"{JACOBY_RULE}\n\n"
            "Stop the server with Ctrl-C (or SIGTERM): exit status 0."),
    )
    add_player_argument(p, "who plays (default: net, the shipped network, if installed; else "
                           "pubeval)")
    p.add_argument("--host", default=DEFAULT_HOST,
                   help=f"address to listen on (default {DEFAULT_HOST}, this machine only)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT,
                   help=f"TCP port (default {DEFAULT_PORT}; 0 = any free port)")
    p.add_argument("--allow-remote", action="store_true",
                   help="allow listening on an address other machines can reach "
                        "(the protocol has no authentication)")
    p.add_argument("--plies", **plies_number, default=0,
                   help="lookahead of the plays, 0-3 (default 0 = the network alone; "
                        "2-ply takes about 50 ms a move with the shipped network)")
    p.add_argument("--time-budget", type=float, default=None, metavar="SECONDS",
                   help="seconds per play: with --plies, deepen one ply at a time while the next "
                        "depth is predicted to fit; overruns are logged")
    p.add_argument("--jacoby", action="store_true",
                   help="assume gnubg plays money games with the Jacoby rule (its default; the "
                        "recommended 'set jacoby off' matches the default here)")
    p.add_argument("--log", default=None, metavar="FILE",
                   help="append every exchange to FILE, one JSON object per line")
    p.add_argument("--max-clients", type=int, default=64, metavar="N",
                   help="clients served at once (default 64); when all are taken a new client "
                        "takes the slot of one idle for --evict-idle seconds, or waits up to "
                        f"{ADMIT_WAIT:g} s and is then told to try later")
    p.add_argument("--evict-idle", type=float, default=EVICT_IDLE, metavar="SECONDS",
                   help="when the server is full, a client that has sent no line for this long "
                        "may lose its slot to a new one; gnubg's connection goes last "
                        f"(default {EVICT_IDLE:g})")
    p.add_argument("--evict-age", type=float, default=EVICT_AGE, metavar="SECONDS",
                   help="when the server is full and no client is idle, the one connected "
                        "longest, if this long or more, loses its slot to a new one: busy "
                        f"clients cannot hold the server (default {EVICT_AGE:g})")
    p.add_argument("--max-per-address", type=int, default=None, metavar="N",
                   help="clients of one address served at once; a new one at the limit takes "
                        "the slot of that address's idlest or oldest client (default "
                        "--max-clients; clients on this machine share one address)")
    p.add_argument("--line-timeout", type=float, default=30.0, metavar="SECONDS",
                   help="close a client that takes longer than this to send one line, from its "
                        f"first byte to its newline (default 30); lines longer than "
                        f"{MAX_LINE_BYTES} bytes are refused the same way")
    p.add_argument("--idle-timeout", type=float, default=0.0, metavar="SECONDS",
                   help="close clients silent this long (default 0 = never; gnubg keeps one "
                        "connection for its whole session)")
    p.add_argument("--keepalive", type=float, default=KEEPALIVE_IDLE, metavar="SECONDS",
                   help="TCP keepalive: probe a silent client after this long, so that one gone "
                        f"without closing frees its slot (default {KEEPALIVE_IDLE:g}; 0 = off)")
    p.set_defaults(func=serve_main)
    return p


def serve_main(args: argparse.Namespace) -> int:
    """Run ``bgengine serve`` until interrupted; returns the exit status."""
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be 0..65535, got {args.port}")
    if args.max_clients < 1:
        raise ValueError("--max-clients must be at least 1")
    if args.max_per_address is not None and args.max_per_address < 1:
        raise ValueError("--max-per-address must be at least 1")
    for name in ("line_timeout", "idle_timeout", "evict_idle", "evict_age", "keepalive"):
        v = getattr(args, name)
        if not (v >= 0 and math.isfinite(v)):
            raise ValueError(f"--{name.replace('_', '-')} must be a number of seconds >= 0")
    try:
        engine = Engine(args.player, plies=args.plies, time_budget=args.time_budget,
                        jacoby=args.jacoby)
    except NotSupported as exc:
        raise ValueError(str(exc)) from None
    check_host(args.host, args.allow_remote)
    xlog = ExchangeLog(args.log) if args.log else ExchangeLog()
    try:
        srv = BgServer((args.host, args.port), engine, exchange_log=xlog,
                       max_clients=args.max_clients, line_timeout=args.line_timeout,
                       idle_timeout=args.idle_timeout, evict_idle=args.evict_idle,
                       keepalive=args.keepalive, evict_age=args.evict_age,
                       max_per_address=args.max_per_address)
    except OSError as exc:
        xlog.close()
        raise ValueError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    serve_log = logging.getLogger("bgengine.protocols.serve")
    level = serve_log.level
    serve_log.setLevel(logging.INFO)        # a line per client in and out, while serving
    print(f"bgengine serve: listening on {srv.address} ({engine.describe()})", file=sys.stderr)
    print(f"  in gnubg: set player 1 external {srv.address}", file=sys.stderr, flush=True)
    try:
        with handling(signal.SIGTERM, raise_keyboard_interrupt):    # stop cleanly on SIGTERM too
            srv.serve_forever(poll_interval=0.5)
    except KeyboardInterrupt:
        print("bgengine serve: stopped", file=sys.stderr)
    finally:
        srv.release()
        xlog.close()
        serve_log.setLevel(level)
    return 0
