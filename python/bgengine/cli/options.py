"""Argument types and options shared by several commands."""

from __future__ import annotations

import argparse

from bgengine import distributed
from bgengine.distributed import Backend

__all__ = ["parse_dice", "add_backend_arguments", "backend_from_args", "add_player_argument",
           "deprecations", "add_quiet_argument", "complete_player"]


def parse_dice(text: str) -> tuple[int, int]:
    """An argparse type: a roll written ``31``, ``3-1`` or ``3,1`` -> ``(3, 1)``."""
    t = text.replace("-", "").replace(",", "").replace(" ", "")
    if len(t) != 2 or not t.isdigit() or not all("1" <= c <= "6" for c in t):
        raise argparse.ArgumentTypeError(f"dice must be two digits 1..6 like 31 or 6-6, got {text!r}")
    return int(t[0]), int(t[1])


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    """``--backend`` and ``--ray-address`` for a command that plays games."""
    parser.add_argument("--backend", choices=("local", "ray"), default="local",
                        help="where the games run: this machine's cores (default) or a Ray "
                             "cluster (pip install 'bgengine[distributed]')")
    parser.add_argument("--ray-address", default=None, metavar="ADDR",
                        help="with --backend ray: 'auto' (the cluster this machine has joined "
                             "with 'ray start'), ray://HOST:10001, or none for a local Ray instance")


def add_quiet_argument(parser: argparse.ArgumentParser) -> None:
    """``--quiet``: no progress bar (one is drawn only on a terminal anyway)."""
    parser.add_argument("--quiet", action="store_true",
                        help="no progress bar on standard error (drawn on a terminal only)")


def backend_from_args(args: argparse.Namespace, threads: int | None = None) -> Backend:
    """The backend the ``--backend``/``--ray-address`` options ask for."""
    # looked up on the module at call time, so tests can stand in for it
    return distributed.make_backend(getattr(args, "backend", "local"), threads=threads,
                                    address=getattr(args, "ray_address", None))


class _DeprecatedNetworkOption(argparse.Action):
    """``--net FILE``, ``--network FILE``: old spellings of ``--player net:FILE``.  Stores
    the spec in ``player`` and notes the deprecation for :func:`deprecations`."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, self.dest, f"net:{values}")
        notes = list(getattr(namespace, "_deprecations", None) or [])
        notes.append(f"{option_string} FILE is deprecated: write --player net:FILE "
                     f"(or --player FILE.npz)")
        namespace._deprecations = notes


def add_player_argument(parser: argparse.ArgumentParser, help: str,
                        old: tuple[str, ...] = ()) -> None:
    """``--player SPEC``, the one spelling of "which player or network" (a
    :func:`bgengine.players.make_player` spec); ``old`` lists deprecated spellings that
    take a network FILE (``--net``, ``--network``) and still work, with a warning."""
    parser.add_argument("--player", default=None, metavar="SPEC",
                        help=help).completer = complete_player  # type: ignore[attr-defined]
    for option in old:
        parser.add_argument(option, dest="player", action=_DeprecatedNetworkOption,
                            metavar="FILE", help=f"deprecated: --player net:FILE")


def complete_player(prefix: str, **_: object) -> list[str]:
    """Shell completions of a player spec: the named players, then network files and
    folders (for ``PATH.npz`` and ``net:PATH``)."""
    import glob
    import os

    from bgengine.agents import PLAYER_KINDS

    names = sorted({*PLAYER_KINDS, "gnubg", "gnubg:1", "gnubg:2", "gnubg-external:"})
    lead = "net:" if prefix.startswith("net:") else ""
    path = prefix[len(lead):]
    files = [lead + p + ("/" if os.path.isdir(p) else "")
             for p in sorted(glob.glob(glob.escape(path) + "*"))
             if os.path.isdir(p) or p.endswith(".npz")]
    return [n for n in names if n.startswith(prefix)] + files


def deprecations(args: argparse.Namespace) -> list[str]:
    """The warnings of the deprecated options ``args`` was parsed from."""
    return list(getattr(args, "_deprecations", None) or [])
