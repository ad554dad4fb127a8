"""The small games beside backgammon (tic-tac-toe, Connect Four): their
compiled rules, reference players and exact solvers, and the one compiled set of learners that
trains networks on any of them (``bgengine.core.smalllearners``).

One module per game (:mod:`bgengine.games.tictactoe`, :mod:`bgengine.games.connect4`);
:mod:`~bgengine.games.network` holds
their networks, :mod:`~bgengine.games.learners` the Python face of the learners and matches,
:mod:`~bgengine.games.study` the studies' training runs.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["GAMES", "game_module"]

#: The small games the learners can train on, by name: each is the module ``bgengine.games.<name>``, which defines the
#: compiled ``GAME`` table, ``PLAYERS`` (reference players by number) and ``N_INPUTS``.
GAMES = ("tictactoe", "connect4")


def game_module(name: str) -> ModuleType:
    """The module of game ``name`` (``ValueError`` listing the games)."""
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; known: {', '.join(GAMES)}")
    return importlib.import_module(f"bgengine.games.{name}")
