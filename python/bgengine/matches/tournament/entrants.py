"""Tournament players: loading them from specs, network files and folders, and naming
them uniquely."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from bgengine.core.agents import Player
from bgengine.opponents.gnubg import GnubgPlayer
from bgengine.core.network import Network
from bgengine.matches.players import load_network

__all__ = ["Entrant", "Warn", "to_stderr", "load_entrants", "load_network_folder",
           "load_net_entrant", "note_skipped", "natural_key", "games_trained_of"]

#: Where warnings go: a function of one line of text.
Warn = Callable[[str], None]


def to_stderr(msg: str) -> None:
    """The default :data:`Warn`: the line on standard error."""
    print(msg, file=sys.stderr, flush=True)


@dataclass
class Entrant:
    """A tournament player: a display name, the player (compiled, or GNU
    Backgammon run by bgengine) and where it came from."""

    name: str
    player: Player | GnubgPlayer
    source: str                     # the spec or the network file
    games_trained: int | None = None  # from a network file's training metadata

    def as_dict(self) -> dict:
        return {"name": self.name, "source": self.source, "games_trained": self.games_trained}




def natural_key(text: str) -> list:
    """A sort key that orders the numbers in ``text`` by value (``ckpt2`` before ``ckpt10``)."""
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", text)]


def games_trained_of(net: Network) -> int | None:
    """The games of training recorded in ``net``'s metadata, or None."""
    training = net.metadata.get("training")
    if isinstance(training, dict) and isinstance(training.get("games"), int):
        return int(training["games"])
    return None


def load_net_entrant(path: Path) -> Entrant:
    """An entrant for the network or evaluator file ``path`` (named by its path, with its games of
    training); ``ValueError`` if the file cannot be read or is no network."""
    try:
        net = load_network(path)
    except ValueError:
        raise
    except OSError as exc:  # unreadable, a directory, permissions...
        raise ValueError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return Entrant(path.stem, Player("net", net, name=path.stem), str(path), games_trained_of(net))


def load_network_folder(folder: str | Path, warn: Warn = to_stderr,
                        skipped: list | None = None) -> list[Entrant]:
    """Every network file (``*.npz``) in ``folder``, in natural name order.

    A file that is not a loadable bgengine network (corrupt, truncated, a
    training ``checkpoint.npz``...) is named in a warning and left out; it is
    also appended to ``skipped`` as ``{"file", "reason"}``.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"{folder}: not a directory")
    out = []
    for path in sorted(folder.glob("*.npz"), key=lambda p: natural_key(p.name)):
        try:
            out.append(load_net_entrant(path))
        except ValueError as exc:
            note_skipped(path, exc, warn, skipped)
    return out


def note_skipped(path: Path, exc: Exception, warn: Warn, skipped: list | None) -> None:
    """Warn that ``path`` is left out of the tournament because of ``exc``, and record it in
    ``skipped`` (a list of ``{file, reason}``) if given."""
    reason = str(exc)
    if reason.startswith(f"{path}: "):
        reason = reason[len(f"{path}: "):]
    warn(f"warning: skipping {path}: {reason}")
    if skipped is not None:
        skipped.append({"file": str(path), "reason": reason})


def load_entrants(entries: Iterable[str], warn: Warn = to_stderr,
                  skipped: list | None = None) -> list[Entrant]:
    """Players from command-line entries, in order.

    Each entry is a directory (all its ``*.npz`` networks, unloadable files
    skipped with a warning, see :func:`load_network_folder`), a network file
    (``PATH.npz`` or ``net:PATH``; an unloadable one is an error, since it was
    named), or a player spec (``random``, ``pubeval``, ``simple1..3``, ``net``;
    ``@EPS`` allowed).  Names are file stems (made longer where two would
    clash) or the spec itself; the same player twice is an error.
    """
    from bgengine.matches.players import make_player, network_file

    found: list[Entrant] = []
    for entry in entries:
        text = entry.strip()
        path = Path(text)
        if path.is_dir():
            found.extend(load_network_folder(path, warn, skipped))
        elif network_file(text) is not None and not text.startswith("net:"):    # PATH.npz
            if not path.exists():
                raise ValueError(f"{text}: no such file")
            found.append(load_net_entrant(path))
        else:
            player = make_player(text)
            if not isinstance(player, (Player, GnubgPlayer)):
                raise ValueError(f"{text}: tournaments need players of the compiled core or "
                                 f"gnubg (external players are played one move at a time from "
                                 f"Python; use 'bgengine match' for them)")
            net = getattr(player, "network", None)
            games = games_trained_of(net) if net is not None else None
            found.append(Entrant(text, player, text, games))
    _unique_names(found)
    return found


def _unique_names(entrants: list[Entrant]) -> None:
    sources = {}
    for e in entrants:
        key = str(Path(e.source).resolve()) if e.source.endswith(".npz") else e.source
        if key in sources:
            raise ValueError(f"player {e.source!r} is given twice")
        sources[key] = e
    counts: dict[str, int] = {}
    for e in entrants:
        counts[e.name] = counts.get(e.name, 0) + 1
    for e in entrants:
        if counts[e.name] > 1:  # two files with one stem: use the path as given
            e.name = e.source
    names = [e.name for e in entrants]
    if len(set(names)) != len(names):
        raise ValueError(f"player names clash: {names}")
