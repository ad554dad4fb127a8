"""The engine's side of the table: who chooses its plays (a difficulty level, a player
spec, or pubeval when there is no network)."""

from __future__ import annotations

import os

import numpy as np

from bgengine.core.agents import Player
from bgengine.matches.players import default_network_path, load_default_network, load_network, make_player
from bgengine.core.search import Searcher
from bgengine.decisions.engine import Engine
from bgengine.notation.ids import MatchState

__all__ = ["LEVELS", "EngineSide", "load_play_network"]

#: Difficulty levels: (epsilon noise, plies).
LEVELS = {"easy": (0.2, 0), "medium": (0.0, 0), "hard": (0.0, 2)}


def load_play_network(network):
    """``network`` (a Network, a path or ``None``) as a Network: ``None`` gives the
    shipped one if installed, else ``None``.  ``ValueError`` for a missing or unreadable file."""
    if isinstance(network, str) or hasattr(network, "__fspath__"):
        path = network
        if not os.path.exists(path):
            raise ValueError(f"{os.fspath(path)}: no such network file")
        try:
            network = load_network(path)
        except OSError as exc:
            raise ValueError(f"{os.fspath(path)}: cannot read the network file "
                             f"({exc.strerror or type(exc).__name__})") from None
    if network is None and default_network_path().exists():
        network = load_default_network()
    return network


class EngineSide:
    """Who plays for the engine at ``level`` (see ``LEVELS``), with ``network`` (a
    Network or ``None``) or, instead, ``player`` (a spec or an object with
    ``choose(board, d1, d2, seed)``).  ``name`` describes it; ``notes`` are said
    to the player at the start."""

    def __init__(self, level: str, network=None, player=None) -> None:
        eps, plies = LEVELS[level]
        self.network = network
        self.searcher = Searcher(network) if network is not None else None
        self.plies = plies
        self.notes: list[str] = []
        self._player = None
        self._at_score: Engine | None = None    # made on the first play of a match
        if player is not None:
            if isinstance(player, str):
                player = make_player(player)
            if not callable(getattr(player, "choose", None)):
                raise ValueError(f"player must be a spec string or have choose(), got {player!r}")
            self._player = player
            self.name = getattr(player, "name", None) or str(player)
        elif network is None:
            self._player = Player("pubeval", None, 0.0, name="pubeval")
            self.name = "pubeval"
            self.notes.append("No network is installed (python/bgengine/data/default.npz) and "
                              "none was given (--net FILE): the engine plays pubeval, and hints "
                              "and cube decisions use a pip-count estimate.")
        elif eps > 0:
            self._player = Player("net", network, eps, name=f"net@{eps:g}")
            self.name = f"network, 0-ply with {eps:.0%} random plays"
        else:
            self.name = f"network, {plies}-ply"

    def choose(self, board: np.ndarray, d1: int, d2: int, seed: int,
               state: MatchState | None = None) -> int:
        """Index, in the legal plays, of the engine's play (``board``: mover in row 1;
        ``seed`` for a player with randomness). With ``state`` (the engine's match state),
        a network at full strength plays at the score: in a match, by match-winning chances
        (:meth:`bgengine.decisions.engine.Engine.choose_index_at`)."""
        if self._player is not None:
            return int(self._player.choose(board, d1, d2, seed))
        if state is not None and state.match_length:
            if self._at_score is None:
                self._at_score = Engine(Player("net", self.network), plies=self.plies)
            return int(self._at_score.choose_index_at(board, d1, d2, state))
        return int(self.searcher.best_move(board, d1, d2, self.plies)[0])
