"""Type stub of the compiled module bgengine.core.td (src/bgcore/td.pyx)."""

import numpy as np

from bgengine.core.evaluator import Evaluator
from bgengine.core.network import Network
from bgengine.training.optimizer import AdamState

# n_games 0..10**8 (bgengine.core.agents.MAX_GAMES), alpha a finite number in (0, 10], lam and
# epsilon in [0, 1], target_plies 0..3, batch_positions 0..10**8, threads 1..256: Python or
# numpy integers (not bools or floats) and finite numbers, else ValueError naming them.
def train_games(net: Network | Evaluator, n_games: int, alpha: float, lam: float = ..., *,
                seed: int = ..., first_game: int = ..., method: str = ..., epsilon: float = ...,
                target_plies: int = ...,
                starts: np.ndarray | None = ..., adam: AdamState | None = ...,
                batch_positions: int = ...,
                threads: int = ...) -> dict[str, np.ndarray]: ...   # moves, result, error
