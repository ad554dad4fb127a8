# PYTHON_ARGCOMPLETE_OK  (argcomplete's marker: this command completes itself)
"""The ``bgengine`` command line: one module per command group.

Each module ``bgengine.cli.<group>`` has ``register(subparsers)``, which adds
its sub-command(s) with a handler ``func(args) -> exit status``.  The library
modules know nothing of argparse; the command line only calls them.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import Sequence

import bgengine

__all__ = ["main", "build_parser", "EXIT_BROKEN_PIPE"]

log = logging.getLogger(__name__)


def build_parser() -> argparse.ArgumentParser:
    """The ``bgengine`` parser with every sub-command registered."""
    from bgengine.cli import (demo, hint, match, matchfile, play, position, rollout, serve, sweep,
                              tournament, train, ubgi, web)
    from bgengine.cli import analyse, data

    parser = argparse.ArgumentParser(
        prog="bgengine",
        description="bgengine: a backgammon engine that learns from the rules alone by self-play.",
    )
    parser.add_argument("--version", action="version", version=f"bgengine {bgengine.__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for group in (demo, position, hint, match, train, rollout, serve, play, sweep, tournament,
                  matchfile, ubgi, web):
        group.register(sub)
    analyse.register(sub)
    data.register(sub)
    return parser


#: Exit status when the reader of standard output went away (``bgengine moves ... | head``):
#: what the shell reports for a program ended by SIGPIPE, so ``set -o pipefail`` sees
#: ``bgengine`` as it sees ``yes | head``.
EXIT_BROKEN_PIPE = 128 + 13


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``bgengine ARGV``; returns the exit status (2: bad input or a file that cannot
    be read or written, 130: interrupted, 141: standard output closed by its reader)."""
    try:
        status = _run(argv)
        sys.stdout.flush()          # a closed pipe shows here, not at the interpreter's exit
        return status
    except BrokenPipeError:
        # nothing more can reach the reader; point stdout at /dev/null so that the
        # interpreter's own flush at exit does not fail again
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, ValueError):   # stdout is no file (main called from Python)
            pass
        return EXIT_BROKEN_PIPE


def _os_error_text(exc: OSError) -> str:
    """``exc`` in one line: ``FILE: what went wrong`` when it names a file."""
    if exc.filename is not None and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    return str(exc) or type(exc).__name__


def _complete(parser: argparse.ArgumentParser) -> None:
    """Answer the shell's completion request, if this run is one (argcomplete, optional:
    ``pip install 'bgengine[completion]'``; it exits after answering)."""
    if "_ARGCOMPLETE" not in os.environ:
        return
    try:
        import argcomplete
    except ImportError:
        return
    argcomplete.autocomplete(parser)


def _run(argv: Sequence[str] | None) -> int:
    """Parse ``argv`` and run its command's handler."""
    parser = build_parser()
    _complete(parser)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    from bgengine.cli.options import deprecations

    for note in deprecations(args):
        log.warning(note)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from bgengine.gnubg import GnubgError

    try:
        return int(args.func(args))
    except BrokenPipeError:     # the reader of standard output left: main's exit 141
        raise
    except (ValueError, ImportError, GnubgError) as exc:  # bad input; an optional program missing
        print(f"bgengine: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:      # a file that cannot be read or written: one line, no traceback
        print(f"bgengine: error: {_os_error_text(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bgengine: interrupted", file=sys.stderr)
        return 130
