"""Type stub of the compiled module bgengine.td (src/bgcore/td.pyx)."""

import numpy as np

from bgengine.evaluator import Evaluator
from bgengine.network import Network
from bgengine.optimizer import AdamState

def train_games(net: Network | Evaluator, n_games: int, alpha: float, lam: float = ..., *,
                seed: int = ..., first_game: int = ..., method: str = ..., epsilon: float = ...,
                target_plies: int = ...,
                starts: np.ndarray | None = ..., adam: AdamState | None = ...,
                batch_positions: int = ...,
                threads: int = ...) -> dict[str, np.ndarray]: ...   # moves, result, error
