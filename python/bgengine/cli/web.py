"""``bgengine web``: the HTTP API and the browser board (``pip install 'bgengine[web]'``)."""

from __future__ import annotations

import argparse
import logging
import sys

from bgengine.cli.options import (ID_RULES, JACOBY_RULE, add_player_argument, plies_number,
                                  seed_number, whole_number)
from bgengine.core.movegen import MAX_THREADS
from bgengine.core.search import MAX_TRIALS as MAX_ROLLOUT_TRIALS
from bgengine.matches.players import SPEC_HELP
from bgengine.protocols.serve import DEFAULT_HOST, check_host
from bgengine.protocols.web.limits import WebLimits

__all__ = ["register", "DEFAULT_PORT"]

DEFAULT_PORT = 8080


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``web`` to the ``bgengine`` sub-commands; returns its parser."""
    d = WebLimits()
    p = subparsers.add_parser(
        "web", help="the engine over HTTP: a JSON API and a board to play on in a browser",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Serve a page where you play the engine in a browser (open http://HOST:PORT/),\n"
            "and a JSON API on game states (Position ID, PositionID:MatchID or XGID):\n"
            "POST /move, /eval, /hint and /rollout; documentation at /docs.\n\n"
            "  curl -s localhost:8080/hint -H 'content-type: application/json' \\\n"
            "       -d '{\"state\": \"4HPwATDgc/ABMA\", \"dice\": [3, 1]}'\n\n"
            f"States: {ID_RULES}\n\n{JACOBY_RULE}\n\n"
            f"Players (--player): {SPEC_HELP}.\n\nNeeds pip install 'bgengine[web]'.  "
            "Stop the server with Ctrl-C: exit status 0."))
    add_player_argument(p, "who plays and advises (default: net, the shipped network, if "
                           "installed; else pubeval)")
    p.add_argument("--host", default=DEFAULT_HOST,
                   help=f"address to listen on (default {DEFAULT_HOST}, this machine only)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT,
                   help=f"TCP port (default {DEFAULT_PORT})")
    p.add_argument("--allow-remote", action="store_true",
                   help="allow listening on an address other machines can reach "
                        "(the server has no authentication)")
    p.add_argument("--plies", **plies_number, default=0,
                   help="lookahead of the engine's plays, evaluations and hints, 0-3 (default 0)")
    limits = p.add_argument_group(
        "limits", "what one request or client may take (bgengine.protocols.web.limits.WebLimits)")
    limits.add_argument("--max-body", **whole_number(1, 10**9), default=d.max_body,
                        metavar="BYTES", help=f"bytes of a request body; more gets a 413 "
                                              f"(default {d.max_body})")
    limits.add_argument("--max-trials", **whole_number(1, MAX_ROLLOUT_TRIALS, "1..10**7"),
                        default=d.max_trials, metavar="N",
                        help=f"trials of one rolled-out play; more gets a 422 "
                             f"(default {d.max_trials})")
    limits.add_argument("--max-work", **whole_number(1, 10**9), default=None, metavar="N",
                        help=f"trials x plays rolled out by one request; more gets a 422 "
                             f"(default {d.max_work}, or --max-trials if more)")
    limits.add_argument("--max-busy", **whole_number(1, 1000), default=d.max_busy,
                        metavar="N", help=f"requests using the engine at once; a request "
                                          f"waiting {d.queue_wait:g} s for one gets a 503 "
                                          f"(default {d.max_busy})")
    limits.add_argument("--max-connections", **whole_number(1, 100000),
                        default=d.max_connections, metavar="N",
                        help=f"connections served at once; more get a 503 "
                             f"(default {d.max_connections})")
    limits.add_argument("--max-sessions", **whole_number(1), default=d.max_sessions,
                        metavar="N", help=f"browser games kept at once (default "
                                          f"{d.max_sessions})")
    limits.add_argument("--sessions-per-client", **whole_number(1), default=None, metavar="N",
                        help=f"browser games of one client address (browsers on this machine "
                             f"share one); more get a 429 (default {d.sessions_per_client}, "
                             f"or --max-sessions if fewer)")
    limits.add_argument("--session-ttl", **whole_number(1, 10**9), default=int(d.session_ttl),
                        metavar="SECONDS",
                        help=f"idle seconds before a browser game may be dropped to make room "
                             f"(default {d.session_ttl:g}; a game never played on: "
                             f"{d.unplayed_ttl:g})")
    p.add_argument("--threads", **whole_number(1, MAX_THREADS), default=1, metavar="N",
                   help="threads of a rollout (default 1)")
    p.add_argument("--save-dir", default=None, metavar="DIR",
                   help="write each browser match to DIR as a .mat file after every game")
    p.add_argument("--seed", **seed_number, default=None,
                   help="dice seed: the n-th game session rolls with seed + n (default: random)")
    p.set_defaults(func=web_main)
    return p


def web_limits(args: argparse.Namespace) -> WebLimits:
    """The :class:`WebLimits` of ``bgengine web``'s options."""
    return WebLimits(
        max_body=args.max_body, max_trials=args.max_trials,
        max_work=max(WebLimits.max_work, args.max_trials) if args.max_work is None
        else args.max_work,
        max_busy=args.max_busy, max_connections=args.max_connections,
        max_sessions=args.max_sessions,
        sessions_per_client=min(WebLimits.sessions_per_client, args.max_sessions)
        if args.sessions_per_client is None else args.sessions_per_client,
        session_ttl=float(args.session_ttl),
        unplayed_ttl=min(WebLimits.unplayed_ttl, float(args.session_ttl)))


def web_main(args: argparse.Namespace) -> int:
    """Run ``bgengine web`` until interrupted; returns the exit status."""
    if not 1 <= args.port <= 65535:
        raise ValueError(f"--port must be 1..65535, got {args.port}")
    if args.max_sessions < 1:
        raise ValueError("--max-sessions must be at least 1")
    if args.threads < 1:
        raise ValueError("--threads must be at least 1")
    check_host(args.host, args.allow_remote)
    try:
        import uvicorn

        from bgengine.protocols.web.api import create_app
    except ImportError as exc:
        raise ImportError(f"bgengine web needs its extra: pip install 'bgengine[web]' "
                          f"({exc})") from None
    from bgengine.decisions.engine import Engine, NotSupported

    try:
        engine = Engine(args.player, plies=args.plies)
    except NotSupported as exc:
        raise ValueError(str(exc)) from None
    limits = web_limits(args)
    app = create_app(engine, limits=limits, threads=args.threads, seed=args.seed,
                     save_dir=args.save_dir)
    web_log = logging.getLogger("bgengine.protocols.web")
    level = web_log.level
    web_log.setLevel(logging.INFO)          # a line per request, while serving
    print(f"bgengine web: http://{args.host}:{args.port}/ ({engine.describe()})",
          file=sys.stderr, flush=True)
    try:
        # uvicorn's own access log is off: bgengine.protocols.web logs each request once
        uvicorn.run(app, host=args.host, port=args.port, access_log=False, log_level="warning",
                    limit_concurrency=limits.max_connections)
    finally:
        web_log.setLevel(level)
    return 0
