"""Argument types and options shared by several commands."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from bgengine.matches import distributed
from bgengine._checks import MAX_LISTED_PLAYS
from bgengine.core.agents import MAX_GAMES
from bgengine.matches.distributed import Backend
from bgengine.core.movegen import MAX_THREADS
from bgengine.core.search import MAX_TRIALS, MAX_TRUNCATE

__all__ = ["parse_dice", "add_backend_arguments", "backend_from_args", "add_player_argument",
           "deprecations", "add_quiet_argument", "complete_player", "whole_number", "bad_values",
           "add_threads_argument", "seed_number", "plies_number", "games_number", "trials_number",
           "truncate_number", "plays_number", "evaluator_file", "JACOBY_RULE", "JACOBY_HELP", "ID_RULES",
           "STATE_HELP", "AFTER_PLAY_RULE"]

#: The one default of the cube's Jacoby rule, for every command and protocol (the
#: engine's, the terminal's and the browser's games, ``match --cube``, ``serve``, ``ubgi``,
#: the web API, and a state read from a Position ID alone).
JACOBY_RULE = ("Jacoby rule: off by default in money play (gammons count without a double); "
               "on only where the input says so (an XGID's rules field, a Match ID, a .mat "
               "file's Jacoby tag, gnubg's jacobyrule, UBGI's game.jacoby) or --jacoby is "
               "given.  Matches never use it.")
#: The rule in a command's help, after its own words.
JACOBY_HELP = "Jacoby rule: off unless the state says so (an XGID's rules field, a Match ID)"

#: How a game state is written on the command line (and in the web API).
ID_RULES = ("an XGID (with or without its 'XGID=' prefix), gnubg's PositionID:MatchID (also "
            "pasted with its 'GNUbg ID:' or 'Position ID: ... Match ID: ...' labels) or a "
            "Position ID alone (money, cube centred, no dice, no Jacoby rule).  After a play, "
            "an ID is the position with the opponent on roll, as gnubg shows it.")
#: The help of a STATE argument.
STATE_HELP = ("XGID (the 'XGID=' prefix optional), gnubg's PositionID:MatchID or a Position "
              "ID (money, cube centred; " + JACOBY_HELP + ")")
#: Whose view an ID printed after a play is in: ``moves``, ``hint --json``'s ``after``, the
#: Python API (:attr:`bgengine.position.Move.position`), the web API; what UBGI's ``position``
#: takes for the next turn.
AFTER_PLAY_RULE = "the position after the play with the opponent on roll, as gnubg shows it"


def parse_dice(text: str) -> tuple[int, int]:
    """An argparse type: a roll written ``31``, ``3-1`` or ``3,1`` -> ``(3, 1)``."""
    t = text.replace("-", "").replace(",", "").replace(" ", "")
    if len(t) != 2 or not t.isdigit() or not all("1" <= c <= "6" for c in t):
        raise argparse.ArgumentTypeError(f"dice must be two digits 1..6 like 31 or 6-6, got {text!r}")
    return int(t[0]), int(t[1])


class InRange(argparse.Action):
    """Store a whole number, and note it as a bad value (``_bad_values``) when it is out
    of ``low..high``: ``bgengine`` refuses it in one line, exit status 2, before the
    command runs (:func:`bad_values`).  Not a number at all is argparse's usage error."""

    def __init__(self, option_strings, dest, low: int = 0, high: int | None = None,
                 span: str | None = None, **kw) -> None:
        super().__init__(option_strings, dest, **kw)
        self.low, self.high, self.span = low, high, span

    def __call__(self, parser, namespace, value, option_string=None) -> None:
        setattr(namespace, self.dest, value)
        if value < self.low or (self.high is not None and value > self.high):
            want = (f"in {self.span or f'{self.low}..{self.high}'}" if self.high is not None
                    else f"at least {self.low}")
            notes = list(getattr(namespace, "_bad_values", None) or [])
            notes.append(f"{option_string or self.dest} must be {want}, got {value}")
            namespace._bad_values = notes


def whole_number(low: int = 0, high: int | None = None, span: str | None = None) -> dict:
    """``add_argument`` keywords of a whole-number option in ``low..high`` (no upper bound
    when None; ``span``: the range as the message writes it):
    ``parser.add_argument("--trials", **whole_number(1), default=...)``."""
    return {"type": int, "action": InRange, "low": low, "high": high, "span": span}


#: ``--seed``: the dice seeds are 64-bit.
seed_number = whole_number(0, (1 << 64) - 1, "0..2**64-1")
#: ``--plies``: the lookahead of the engine's search.
plies_number = whole_number(0, 3)
#: ``--games``: the games one command plays, as the API takes them
#: (:data:`bgengine.core.agents.MAX_GAMES`; a backgammon match needs 2, one game pair).
games_number = whole_number(1, MAX_GAMES, "1..10**8")
#: ``--trials``, ``hint --rollout``: the trials of one rollout
#: (:data:`bgengine.core.search.MAX_TRIALS`).
trials_number = whole_number(1, MAX_TRIALS, "1..10**7")
#: ``--truncate``: the plays of a rollout's trials (0: to the end;
#: :data:`bgengine.core.search.MAX_TRUNCATE`, where every game stops anyway).
truncate_number = whole_number(0, MAX_TRUNCATE)
#: ``--num``, ``--candidates``: plays to show or roll out (more than any roll has).
plays_number = whole_number(1, MAX_LISTED_PLAYS, "1..10**6")


def bad_values(args: argparse.Namespace) -> list[str]:
    """What is wrong with the values ``args`` was parsed from (:class:`InRange`)."""
    return list(getattr(args, "_bad_values", None) or [])


def add_threads_argument(parser: argparse.ArgumentParser, help: str = "threads (default: all "
                         "cores)", default: int | None = None) -> None:
    """``--threads N``, 1..MAX_THREADS (default ``default``; None: all cores)."""
    parser.add_argument("--threads", **whole_number(1, MAX_THREADS), default=default,
                        metavar="N", help=help)


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
    :func:`bgengine.matches.players.make_player` spec); ``old`` lists deprecated spellings that
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

    from bgengine.core.agents import PLAYER_KINDS

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


# ---------------------------------------------------------------- argparse types
# Real-valued options (whole numbers: whole_number above).  argparse turns the
# ArgumentTypeError into one usage line and exit 2.

def finite_number(text: str) -> float:
    """A finite number (no nan or inf)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return v


def non_negative_number(text: str) -> float:
    """A finite number >= 0."""
    v = finite_number(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0, got {text!r}")
    return v


def share(text: str) -> float:
    """A number in [0, 1]."""
    v = finite_number(text)
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a share in [0, 1], got {text!r}")
    return v


def evaluator_file(spec: str | None) -> Path:
    """The file of the evaluator a network spec names (``net``: the shipped one)."""
    from bgengine.matches.players import NETWORK_SPEC_HELP, default_network_path, network_file

    if spec is None or spec.strip() == "net":
        return default_network_path()
    path = network_file(spec)
    if path is None:
        raise ValueError(f"{spec!r} is not a network; expected {NETWORK_SPEC_HELP}")
    return path
