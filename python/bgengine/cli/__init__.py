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
import re
import sys
from typing import Sequence

import bgengine
from bgengine.cli.status import (EXIT_BROKEN_PIPE, EXIT_CODES, EXIT_FAILURE, EXIT_INTERRUPTED,
                                 EXIT_OK, EXIT_USAGE, one_line, os_error_text)

__all__ = ["main", "build_parser", "EXIT_OK", "EXIT_FAILURE", "EXIT_USAGE", "EXIT_INTERRUPTED",
           "EXIT_BROKEN_PIPE", "EXIT_CODES"]

log = logging.getLogger(__name__)

def _version() -> str:
    """``bgengine 0.1.0 (network kernel avx2; this CPU has avx2, avx512, c)``: the kernel
    the network evaluations use, chosen at run time from the CPU's flags."""
    from bgengine.core.network import available_kernels, kernel

    return (f"bgengine {bgengine.__version__} (network kernel {kernel()}; this CPU has "
            f"{', '.join(available_kernels())})")


def _epilog() -> str:
    import textwrap

    from bgengine.cli.options import ID_RULES, JACOBY_RULE

    rows = "\n".join(textwrap.fill(text, 79, initial_indent=f"  {code:<5}",
                                   subsequent_indent=" " * 7) for code, text in EXIT_CODES)
    return (f"exit status (every command):\n{rows}\n\n"
            + textwrap.fill(f"game states (STATE, --position): {ID_RULES}", 79) + "\n\n"
            + textwrap.fill(f"cube rules: {JACOBY_RULE}", 79))


class _Parser(argparse.ArgumentParser):
    """argparse with a usage error in one line, like every other error: ``bgengine: error:
    MESSAGE (see 'bgengine COMMAND --help')``, exit status 2.  The sub-commands' parsers
    are of this class too (argparse makes them of their parent's)."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(EXIT_USAGE, f"bgengine: error: {message} (see '{self.prog} --help')\n")

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        namespace, extras = super().parse_known_args(args, namespace)
        # the deepest command parsed, for the pointer of an error found by the top parser
        # (an unknown option is found there, after the sub-command has parsed)
        if len(self.prog) > len(getattr(namespace, "_command_prog", "")):
            namespace._command_prog = self.prog
        return namespace, extras

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        namespace, extras = self.parse_known_args(args, namespace)
        if extras:
            prog = getattr(namespace, "_command_prog", self.prog)
            self.exit(EXIT_USAGE, f"bgengine: error: unrecognized arguments: {' '.join(extras)} "
                                  f"(see '{prog} --help')\n")
        return namespace


def build_parser() -> argparse.ArgumentParser:
    """The ``bgengine`` parser with every sub-command registered."""
    from bgengine.cli import (demo, hint, match, matchfile, play, position, rollout, serve, sweep,
                              tournament, train, ubgi, web)
    from bgengine.cli import analyse, bench, data, distill, network

    parser = _Parser(
        prog="bgengine",
        description="bgengine: a backgammon engine that learns from the rules alone by self-play.",
        epilog=_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=_version())
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for group in (demo, position, hint, match, train, rollout, serve, play, sweep, tournament,
                  matchfile, ubgi, web):
        group.register(sub)
    analyse.register(sub)
    data.register(sub)
    distill.register(sub)
    network.register(sub)
    bench.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``bgengine ARGV``; returns the exit status (:data:`EXIT_CODES`: 0 success, 1
    failure, 2 usage or bad input, 130 interrupted, 141 standard output closed by its
    reader).  A usage error raises argparse's ``SystemExit(2)``, as ``--help`` does
    ``SystemExit(0)``."""
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


#: An XGID without its ``XGID=`` prefix: its position field may begin with ``-``, which
#: argparse would take for an option.
_BARE_XGID = re.compile(r"\s*[-A-Pa-p]{26}:")


def prefixed_xgids(argv: Sequence[str]) -> list[str]:
    """``argv`` with every bare XGID given its ``XGID=`` prefix, so that one pasted
    without it (``-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10``) is read as the state
    it is wherever a state is taken, not as an unknown option."""
    return [f"XGID={a.strip()}" if _BARE_XGID.match(a) else a for a in argv]


def _run(argv: Sequence[str] | None) -> int:
    """Parse ``argv`` and run its command's handler."""
    parser = build_parser()
    _complete(parser)
    args = parser.parse_args(prefixed_xgids(sys.argv[1:] if argv is None else argv))
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    from bgengine.cli.options import bad_values, deprecations

    for note in deprecations(args):
        log.warning(note)
    bad = bad_values(args)
    if bad:         # a value out of range: refused before the command prints anything
        print(f"bgengine: error: {bad[0]}", file=sys.stderr)
        return EXIT_USAGE
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from bgengine.opponents.gnubg import GnubgError

    try:
        return int(args.func(args))
    except BrokenPipeError:     # the reader of standard output left: main's exit 141
        raise
    except (ValueError, ImportError, GnubgError) as exc:  # bad input; an optional program missing
        print(f"bgengine: error: {one_line(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:      # a file that cannot be read or written: one line, no traceback
        print(f"bgengine: error: {one_line(os_error_text(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("bgengine: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED

