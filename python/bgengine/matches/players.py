"""Players by name: turn a spec like ``pubeval`` or ``net:runs/a/best.npz`` into a player.

Specs
-----
``random``, ``pubeval``, ``simple1``, ``simple2``, ``simple3``
    The benchmark players (see :mod:`bgengine.core.agents`).
``net``
    The default network shipped with bgengine.
``net:PATH``, ``PATH.npz``
    A network or evaluator file written by bgengine (a bare file name must end
    in ``.npz``).
``gnubg``, ``gnubg:N``
    GNU Backgammon itself at 0-ply (its static evaluation) or with N plies of
    lookahead (N = 1..4), played by a pool of gnubg processes that bgengine
    starts and stops (see :mod:`bgengine.opponents.gnubg`; gnubg must be installed).
``gnubg-external:HOST:PORT`` (or ``external:HOST:PORT``)
    Any server of GNU Backgammon's external-player protocol: gnubg's own
    ``external`` command, or ``bgengine serve``.  Played from Python, one
    request per move (see :mod:`bgengine.opponents.external`).
``ubgi:COMMAND``
    Any UBGI engine (Universal Backgammon Interface, e.g. ``ubgi:bgengine ubgi``
    or ``ubgi:wildbg-ubgi``): the command is run and asked for each play on its
    stdin/stdout (see :mod:`bgengine.opponents.ubgi`).

Any spec may end in ``@EPS`` (e.g. ``net@0.1``): a random legal play with
probability EPS per move.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from bgengine.core.agents import PLAYER_KINDS, Player
from bgengine.core.evaluator import Evaluator, load_evaluator
from bgengine.opponents.external import ExternalPlayer
from bgengine.opponents.gnubg import GnubgPlayer, parse_gnubg_spec
from bgengine.core.network import Network
from bgengine.opponents.ubgi import UbgiPlayer

__all__ = ["Player", "make_player", "default_network_path", "load_default_network", "load_network",
           "network_file", "is_network_spec", "load_network_spec", "SPEC_HELP", "NETWORK_SPEC_HELP"]

SPEC_HELP = ("random | pubeval | simple1 | simple2 | simple3 | net (the shipped network) | "
             "net:PATH or PATH.npz (a network file) | gnubg, gnubg:N (GNU Backgammon at 0-ply or N-ply, "
             "run by bgengine) | gnubg-external:HOST:PORT (a server of gnubg's "
             "external-player protocol) | ubgi:COMMAND (a UBGI engine, e.g. 'ubgi:bgengine ubgi'); "
             "add @EPS for a random play with probability EPS")

#: The specs that name a network (for commands that need one, not any player).
NETWORK_SPEC_HELP = "net (the shipped network), net:PATH or PATH.npz (a network file)"

DEFAULT_NETWORK = "default.npz"


def default_network_path() -> Path:
    """Path of the network shipped with bgengine."""
    return Path(str(resources.files("bgengine").joinpath("data", DEFAULT_NETWORK)))


def load_network(path: str | Path) -> Network | Evaluator:
    """What a network or evaluator file holds: its :class:`Network` when it is a single
    network (every position valued by it), else its :class:`Evaluator` (class networks,
    exact values).  Either plays, searches, rolls out and trains alike.  ``ValueError``
    naming the file (``FILE: ...``) for a file that is missing, cannot be read (a folder,
    no permission) or is not a network file."""
    evaluator = load_evaluator(path)     # its reader says what is wrong with the file
    return evaluator.contact if evaluator.single else evaluator


def load_default_network() -> Network | Evaluator:
    """The shipped default evaluator (``net``), loaded from the package's data; ``ValueError`` if
    the install lacks it."""
    path = default_network_path()
    if not path.exists():
        raise ValueError(f"no default network is installed (expected {path})")
    return load_network(path)


def network_file(spec: str) -> Path | None:
    """The file a network spec names: ``net:PATH`` or a bare ``PATH.npz`` (without
    ``@EPS``) -> ``PATH``; None for any other spec (``net`` included)."""
    text = spec.strip()
    if text.startswith("net:"):
        return Path(text[4:])
    if text.endswith(".npz") and "@" not in text:
        return Path(text)
    return None


def is_network_spec(spec: str) -> bool:
    """True if ``spec`` names a network alone: ``net``, ``net:PATH`` or ``PATH.npz``."""
    return spec.strip() == "net" or network_file(spec) is not None


def load_network_spec(spec: str | None) -> Network | Evaluator:
    """The network (or evaluator) a network spec names (None: the shipped one);
    ``ValueError`` for a missing file or a spec that is not a network."""
    if spec is None or spec.strip() == "net":
        return load_default_network()
    path = network_file(spec)
    if path is None:
        raise ValueError(f"{spec!r} is not a network; expected {NETWORK_SPEC_HELP}")
    return load_network(path)


def make_player(spec: str, gnubg_config=None):
    """The player named by ``spec`` (see the module docstring).

    ``gnubg_config`` (a :class:`bgengine.opponents.gnubg.GnubgConfig`) says how to run
    gnubg for the ``gnubg`` specs (binary, processes, timeouts).  Raises
    ``ValueError`` for an unknown name, a missing or corrupt network file, or
    a bad ``@EPS``, and :class:`bgengine.opponents.gnubg.GnubgNotFound` for ``gnubg``
    when GNU Backgammon is not installed.
    """
    text = spec.strip()
    for prefix in ("gnubg-external:", "external:"):
        if text.startswith(prefix):
            return ExternalPlayer(text[len(prefix):], name=spec)
    if text.startswith("ubgi:"):
        return UbgiPlayer(text[len("ubgi:"):], name=spec)
    if text == "gnubg" or text.startswith("gnubg:"):
        return GnubgPlayer(parse_gnubg_spec(text), gnubg_config, name=text)
    epsilon = 0.0
    if "@" in text:
        text, _, eps = text.rpartition("@")
        try:
            epsilon = float(eps)
        except ValueError:
            raise ValueError(f"player {spec!r}: {eps!r} after '@' is not a number") from None
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"player {spec!r}: epsilon must be in [0, 1]")
    if text == "net":
        return Player("net", load_default_network(), epsilon, name=spec)
    path = network_file(text)
    if path is not None:
        return Player("net", load_network(path), epsilon, name=spec)
    if text in PLAYER_KINDS and text != "net":
        return Player(text, None, epsilon, name=spec)
    raise ValueError(f"unknown player {spec!r}; expected {SPEC_HELP}")
