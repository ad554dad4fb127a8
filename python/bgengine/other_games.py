"""Games other than backgammon in the backgammon commands and sweeps, as plug-ins.

A package that plays another game registers a plug-in under the entry-point group
``bgengine.games`` (bgengine's own small games: ``bgengine.games.commands:PLUGIN``). When a
command's players or run config are the plug-in's, the command hands itself over whole
(``bgengine match connect4:mm2 connect4:random``, ``bgengine tournament roundrobin ...``,
``bgengine play --game tictactoe``, ``bgengine train RUN`` with a small game's config); a
sweep whose ``[base]`` names a ``game`` trains and evaluates the plug-in's runs
(:func:`sweep_kind`), and a plot of such a run asks it what its games are. The backgammon
modules know no other game by name.
"""

from __future__ import annotations

import functools
from importlib.metadata import entry_points
from os import PathLike
from typing import Any, Protocol, TextIO

__all__ = ["ENTRY_POINT_GROUP", "GamePlugin", "plugins", "owner_of_players",
           "owner_of_run_config", "owner_of_game", "game_names", "players_help", "sweep_kind"]

#: Where plug-ins register (``[project.entry-points."bgengine.games"]``).
ENTRY_POINT_GROUP = "bgengine.games"


class GamePlugin(Protocol):
    """What a plug-in gives the commands. Each method gets the command's parsed arguments;
    the command prints what it returns. Bad input raises ``ValueError`` (one line, exit 2)."""

    #: The games it plays, by the names ``play --game`` takes.
    games: tuple[str, ...]
    #: Its player specs, for the help of ``match`` and ``tournament``.
    player_help: str

    def owns_player(self, spec: str) -> bool: ...
    def owns_run_config(self, path: str | PathLike[str]) -> bool: ...
    def match(self, args: Any) -> tuple[dict, str]:
        """``bgengine match``: the result as JSON-able data and as text."""
    def round_robin(self, args: Any, stop, bar) -> tuple[dict, str, bool, list]:
        """``bgengine tournament roundrobin`` (``stop``: the interrupt flag, ``bar``: the
        progress bar): the result as data and text, whether it finished, the files written."""
    def play(self, args: Any, inp: TextIO, out: TextIO, echo: bool) -> int:
        """``bgengine play --game NAME``: a game at the console; the exit status."""
    def train(self, args: Any, config: str | PathLike[str], stop,
              bar_for) -> tuple[dict, str, int, int]:
        """``bgengine train RUN`` on the plug-in's run config (``bar_for(total)``: the progress
        bar): the result as data and text, the games done and the games asked for."""
    def sweep_kind(self, game: str) -> Any:
        """The :class:`bgengine.training.sweep.SweepKind` of a sweep of ``game``'s runs."""
    def games_counted(self, config: str | PathLike[str]) -> str:
        """What the games of the run with config ``config`` are, for a plot's x-axis
        (``self-play games``, ``training games``)."""


@functools.cache
def plugins() -> tuple[GamePlugin, ...]:
    """The registered plug-ins (loaded once: entry points do not change while a process runs)."""
    return tuple(ep.load() for ep in sorted(entry_points(group=ENTRY_POINT_GROUP),
                                            key=lambda ep: ep.name))


def owner_of_players(specs: list[str]) -> GamePlugin | None:
    """The plug-in whose players ``specs`` all are; None if they are all backgammon players.
    ``ValueError`` if they mix games."""
    registered = plugins()
    owners = [next((p for p in registered if p.owns_player(s)), None) for s in specs]
    if not specs or all(o is None for o in owners):
        return None
    if any(o is not owners[0] for o in owners):
        other = [s for s, o in zip(specs, owners) if o is not None]
        raise ValueError(f"{', '.join(other)}: all the players must be of one game (e.g. "
                         f"connect4:mm2 connect4:random), not backgammon players among them")
    return owners[0]


def owner_of_run_config(path: str | PathLike[str]) -> GamePlugin | None:
    """The plug-in whose training-run config ``path`` is; None for backgammon's."""
    return next((p for p in plugins() if p.owns_run_config(path)), None)


def owner_of_game(name: str) -> GamePlugin | None:
    """The plug-in that plays the game ``name``; None for backgammon."""
    return next((p for p in plugins() if name in p.games), None)


def game_names() -> tuple[str, ...]:
    """Every game the plug-ins play."""
    return tuple(g for p in plugins() for g in p.games)


def players_help() -> str:
    """The plug-ins' player specs, for a command's help."""
    return "; ".join(p.player_help for p in plugins())


def sweep_kind(game: str) -> Any:
    """The :class:`~bgengine.training.sweep.SweepKind` of the plug-in that plays ``game``;
    ``ValueError`` naming the games there are."""
    owner = owner_of_game(game)
    if owner is None:
        raise ValueError(f"unknown game {game!r}; known: {', '.join(game_names())}")
    return owner.sweep_kind(game)
