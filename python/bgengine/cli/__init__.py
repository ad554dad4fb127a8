"""The ``bgengine`` command line: one module per command group.

Each module ``bgengine.cli.<group>`` has ``register(subparsers)``, which adds
its sub-command(s) with a handler ``func(args) -> exit status``.  The library
modules know nothing of argparse; the command line only calls them.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Sequence

import bgengine

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    """The ``bgengine`` parser with every sub-command registered."""
    from bgengine.cli import (demo, match, play, position, rollout, serve, sweep, tournament, train,
                              ubgi)

    parser = argparse.ArgumentParser(
        prog="bgengine",
        description="bgengine: a backgammon engine that learns from the rules alone by self-play.",
    )
    parser.add_argument("--version", action="version", version=f"bgengine {bgengine.__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for group in (demo, position, match, train, rollout, serve, play, sweep, tournament, ubgi):
        group.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``bgengine ARGV``; returns the exit status (2: bad input, 130: interrupted)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from bgengine.gnubg import GnubgError

    try:
        return int(args.func(args))
    except (ValueError, ImportError, GnubgError) as exc:  # bad input; an optional program missing
        print(f"bgengine: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bgengine: interrupted", file=sys.stderr)
        return 130
