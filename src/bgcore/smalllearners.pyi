"""Type stub of the compiled module bgengine.core.smalllearners (src/bgcore/smalllearners.pyx)."""

from typing import Any

REPRESENTATIONS: tuple[str, ...]
SIMULATION: int
SELF_PLAY: int

def play_games(game: object, first: Any, second: Any, games: int, *, seed: int = ...,
               first_game: int = ..., simulations: int = ...) -> dict[str, int]: ...
def choose_move(game: object, player: Any, moves: Any = ..., *, seed: int = ...,
                simulations: int = ...) -> int: ...
def train_td(game: object, network: Any, n_games: int, alpha: float, lam: float = ..., *,
             epsilon: float = ..., opening: int = ..., opponent: int = ..., seed: int = ...,
             first_game: int = ..., simulations: int = ...) -> None: ...
def train_q(game: object, network: Any, n_games: int, alpha: float, gamma: float = ..., *,
            epsilon: float = ..., opening: int = ..., opponent: int = ..., seed: int = ...,
            first_game: int = ..., simulations: int = ...) -> None: ...
def train_simulation(game: object, network: Any, n_games: int, alpha: float, *, best: int = ...,
                     trials: int = ..., seed: int = ..., first_game: int = ...) -> None: ...
