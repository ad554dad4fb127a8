"""The Python face of the small games' compiled learners and matches
(:mod:`bgengine.core.smalllearners`), with players and opponents by name.

A player is a :class:`~bgengine.games.network.GameNetwork` (greedy), the name of one of the
game's reference players (``random``, ``primitive``, ``smart``, ``solver`` for tic-tac-toe;
``random``, ``mm1``..``mm4`` and ``mm1-greedy``..``mm4-greedy`` for Connect Four),
``simulation`` (random playouts spread evenly over the moves, no network), or a
:class:`GuidedSearch` (the network-guided simulations' search, not learning).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Union

from bgengine.core import smalllearners as _core
from bgengine.games import game_module
from bgengine.games.network import GameNetwork

__all__ = ["GameRecord", "GuidedSearch", "play", "match", "choose_move", "best_move", "train_td",
           "train_q", "train_simulation", "player_names"]


@dataclass(frozen=True)
class GuidedSearch:
    """The search of :func:`train_simulation` as a player: ``net``'s ``best`` best moves get
    ``trials`` random playouts each, the best mean is played (``best * trials`` playouts a
    move at most: the budget of ``simulation`` with as many simulations)."""

    net: GameNetwork
    best: int = 3
    trials: int = 30


PlayerSpec = Union[GameNetwork, GuidedSearch, str]


@dataclass(frozen=True)
class GameRecord:
    """Results of the first player (who always moves first) over ``games`` games."""

    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def rates(self) -> dict[str, float]:
        """Win, draw and loss rates."""
        n = max(self.games, 1)
        return {"win": self.wins / n, "draw": self.draws / n, "loss": self.losses / n}


def player_names(game: str) -> tuple[str, ...]:
    """The named players of ``game``: its reference players, then ``simulation``."""
    return (*game_module(game).PLAYERS, "simulation")


def _player(game: str, spec: PlayerSpec) -> object:
    if isinstance(spec, GuidedSearch):
        return (_player(game, spec.net), spec.best, spec.trials)
    if isinstance(spec, GameNetwork):
        if spec.game != game:
            raise ValueError(f"a {spec.game} network cannot play {game}")
        return spec
    names = game_module(game).PLAYERS
    if spec == "simulation":
        return _core.SIMULATION
    if spec not in names:
        raise ValueError(f"unknown {game} player {spec!r}; known: "
                         f"{', '.join(player_names(game))} or a network")
    return names.index(spec)


def play(game: str, first: PlayerSpec, second: PlayerSpec, games: int, *, seed: int = 0,
         simulations: int = 100) -> GameRecord:
    """``games`` games of ``first`` (moving first) against ``second``; game ``g`` draws its
    random choices from stream ``g`` of ``seed``."""
    r = _core.play_games(game_module(game).GAME, _player(game, first), _player(game, second),
                         games, seed=seed, simulations=simulations)
    return GameRecord(r["wins"], r["draws"], r["losses"])


def match(game: str, a: PlayerSpec, b: PlayerSpec, games: int, *,
          seed: int = 0) -> dict[str, int]:
    """``games`` games of ``a`` against ``b``, ``a`` moving first in ``(games + 1) // 2`` of
    them and ``b`` in the others (game ``g`` of each half draws from stream ``g`` of
    ``seed``): counts ``games``, ``a_wins``, ``b_wins``, ``draws``, ``a_first_wins`` and
    ``b_first_wins`` (wins moving first), as Connect Four's reference matches."""
    a_first = play(game, a, b, (games + 1) // 2, seed=seed)
    b_first = play(game, b, a, games // 2, seed=seed)
    return {"games": games, "a_wins": a_first.wins + b_first.losses,
            "b_wins": a_first.losses + b_first.wins, "draws": a_first.draws + b_first.draws,
            "a_first_wins": a_first.wins, "b_first_wins": b_first.wins}


def choose_move(game: str, player: PlayerSpec, moves: list[int], *, seed: int = 0,
                simulations: int = 100) -> int:
    """The move ``player`` makes in the position the game's ``moves`` reach from the start
    (the choice it makes in :func:`play`'s games; its random choices from stream 0 of
    ``seed``)."""
    return _core.choose_move(game_module(game).GAME, _player(game, player), list(moves),
                             seed=seed, simulations=simulations)


def best_move(net: GameNetwork, moves: Sequence[int]) -> int:
    """The greedy move of ``net`` (as it plays in :func:`play`) after ``moves`` (the game's
    move numbers from the start, e.g. 0-based columns for Connect Four)."""
    if not isinstance(net, GameNetwork):
        raise ValueError("best_move takes a network")
    return choose_move(net.game, net, [int(m) for m in moves])


def _opponent(game: str, opponent: str) -> int:
    """A learner's opponent: a named player's number, or the compiled SELF_PLAY for "self"."""
    if opponent == "self":
        return _core.SELF_PLAY
    who = _player(game, opponent)
    if not isinstance(who, int):
        raise ValueError("a learner's opponent is a named player or 'self'")
    return who


def train_td(net: GameNetwork, games: int, alpha: float, lam: float = 0.0, *,
             epsilon: float = 0.1, opening: int = 0, opponent: str = "self", seed: int = 0,
             first_game: int = 0, simulations: int = 100) -> None:
    """TD(lambda) over afterstates (see :mod:`bgengine.core.smalllearners`) by self-play
    (``"self"``) or against ``opponent`` (a player name), in place; each game opens with
    0..``opening`` random plies."""
    _core.train_td(game_module(net.game).GAME, net, games, alpha, lam, epsilon=epsilon,
                   opening=opening, opponent=_opponent(net.game, opponent), seed=seed,
                   first_game=first_game, simulations=simulations)


def train_q(net: GameNetwork, games: int, alpha: float, gamma: float = 0.9, *,
            epsilon: float = 0.1, opening: int = 0, opponent: str = "self", seed: int = 0,
            first_game: int = 0, simulations: int = 100) -> None:
    """Q-learning over afterstates, epsilon-greedy, against ``opponent`` (a player name) or
    by self-play (``"self"``), in place."""
    _core.train_q(game_module(net.game).GAME, net, games, alpha, gamma, epsilon=epsilon,
                  opening=opening, opponent=_opponent(net.game, opponent), seed=seed,
                  first_game=first_game, simulations=simulations)


def train_simulation(net: GameNetwork, games: int, alpha: float, *, best: int = 3,
                     trials: int = 30, seed: int = 0, first_game: int = 0) -> None:
    """Network-guided simulations by self-play, in place."""
    _core.train_simulation(game_module(net.game).GAME, net, games, alpha, best=best,
                           trials=trials, seed=seed, first_game=first_game)
