"""``bgengine match``: two players against each other, points per game."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time

from bgengine.cli.options import add_backend_arguments, backend_from_args

__all__ = ["register"]


class _ProgressLine:
    """``progress(done, total)`` for long matches: a line on stderr rewritten
    in place on a terminal (at most every 0.5 s), else a line every 10%."""

    def __init__(self, label: str) -> None:
        self.label, self.clock = label, time.monotonic
        self.t0 = self.last = self.clock()
        self.tty = sys.stderr.isatty()
        self.next_pct = 10

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        pct = 100 * done // max(total, 1)
        if self.tty and now - self.last < 0.5 and done < total:
            return
        if not self.tty and pct < self.next_pct:
            return
        self.last, self.next_pct = now, pct + 10
        rate = done / max(now - self.t0, 1e-9)
        eta = int((total - done) / rate) if rate > 0 else 0
        text = (f"{self.label}: {done}/{total} games ({pct}%), {rate:.1f} games/s, "
                f"eta {eta // 60}m{eta % 60:02d}s")
        end = "\n" if not self.tty or done >= total else ""
        sys.stderr.write(("\r\033[K" if self.tty else "") + text + end)
        sys.stderr.flush()


def _cmd_match(args: argparse.Namespace) -> int:
    from bgengine.agents import Player
    from bgengine.gnubg import GnubgConfig
    from bgengine.match import run_match
    from bgengine.players import make_player

    config = GnubgConfig(binary=args.gnubg, processes=args.gnubg_processes)
    a, b = make_player(args.a, config), make_player(args.b, config)
    with contextlib.ExitStack() as players:     # stop what the players run (UBGI engines, ...)
        for p in (a, b):
            if hasattr(p, "close"):
                players.callback(p.close)
        if args.cube or args.match_length:
            from bgengine.match import run_cube_match

            result = run_cube_match(a, b, args.games, match_length=args.match_length or 0,
                                    seed=args.seed, jacoby=args.jacoby)
        else:
            slow = not (isinstance(a, Player) and isinstance(b, Player))   # played from Python
            progress = _ProgressLine(f"{args.a} vs {args.b}") if slow and not args.quiet else None
            with backend_from_args(args, args.threads) as backend:
                result = run_match(a, b, args.games, seed=args.seed, backend=backend,
                                   progress=progress)
    if args.json:
        print(json.dumps(result.as_dict(), indent=2))
    else:
        print(result)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``match`` to the ``bgengine`` sub-commands."""
    from bgengine.players import SPEC_HELP

    p = sub.add_parser("match", help="play two players against each other and report ppg",
                       description="Play cubeless money games between players A and B, each dice "
                                   "sequence twice with the seats swapped, and report A's points "
                                   "per game with a 95%% confidence interval, win, gammon and "
                                   "backgammon rates.  With --cube: money games with the doubling "
                                   "cube; with --match-length N: matches to N points.  "
                                   f"Players: {SPEC_HELP}.")
    p.add_argument("a", help="player A, e.g. net, pubeval, net:runs/r1/best.npz")
    p.add_argument("b", help="player B")
    p.add_argument("--games", type=int, default=10000, help="games to play (default 10000)")
    p.add_argument("--seed", type=int, default=0, help="dice seed (default 0)")
    p.add_argument("--threads", type=int, default=None, help="threads (default: all cores)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--cube", action="store_true",
                   help="money games with the doubling cube (decisions: Janowski cube model over "
                        "each player's network, the shipped one for players without)")
    p.add_argument("--match-length", type=int, default=0, metavar="N",
                   help="play --games matches to N points with the cube and the Crawford rule "
                        "(match equity table: Kazaross-XG2, up to 25 points)")
    p.add_argument("--jacoby", action="store_true", help="money games with --cube: the Jacoby rule")
    p.add_argument("--gnubg", metavar="PATH", default=None,
                   help="the gnubg binary for players gnubg and gnubg:N (default: $BGENGINE_GNUBG, "
                        "else gnubg on PATH, else /usr/games/gnubg)")
    p.add_argument("--gnubg-processes", type=int, default=None, metavar="N",
                   help="gnubg processes run at once (default: 16 per core)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress line (shown for matches played from Python: gnubg, external)")
    add_backend_arguments(p)
    p.set_defaults(func=_cmd_match)
