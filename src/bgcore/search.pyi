"""Type stub of the compiled module bgengine.core.search (src/bgcore/search.pyx)."""

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from bgengine.core.evaluator import Evaluator
from bgengine.core.network import Network

#: Trials of one rollout at most (``trials``: 1..MAX_TRIALS).
MAX_TRIALS: int         # 10**7
#: The longest ``truncate`` of a rollout (``truncate``: 0..MAX_TRUNCATE).
MAX_TRUNCATE: int       # 10000, the plays after which every game is cut off


# Integer arguments are Python or numpy integers (a bool or a float is refused with a
# ValueError naming it): candidates 1..32, cache_bits 0..26, dice 1..6, plies 0..3
# (evaluate_sampled: 2..3), samples a divisor of 36; margin a finite number >= 0.
class Searcher:
    def __init__(self, network: Network | Evaluator, candidates: int = ..., margin: float = ...,
                 cache_bits: int = ..., *, by_delta: bool = ...) -> None: ...
    def best_move(self, board: ArrayLike, d1: int, d2: int,
                  plies: int = ...) -> tuple[int, np.ndarray]: ...   # index, outputs
    def best_plays(self, board: ArrayLike, dice: ArrayLike,
                   plies: int = ...) -> tuple[np.ndarray, np.ndarray]: ...   # afterstates, outputs
    @property
    def cache_stats(self) -> tuple[int, ...]: ...
    def evaluate(self, board: ArrayLike, plies: int = ...) -> np.ndarray: ...
    def evaluate_sampled(self, board: ArrayLike, plies: int, samples: int = ...,
                         offset: int | None = ...) -> tuple[np.ndarray, np.ndarray]: ...
    @property
    def evaluator(self) -> Evaluator: ...
    @property
    def network(self) -> Network | Evaluator: ...
    def rank_moves(self, board: ArrayLike, d1: int, d2: int, plies: int = ...) -> list[Any]: ...


def play_outputs(network: Network | Evaluator, board: ArrayLike, d1: int, d2: int, *,
                 by_delta: bool = ...) -> tuple[int, np.ndarray]: ...   # index, outputs
def rollout(network: Network | Evaluator, board: ArrayLike, trials: int = ..., *, seed: int = ...,
            truncate: int = ..., variance_reduction: bool = ..., plies: int = ...,
            n_threads: int | None = ..., first_trial: int = ...,
            by_delta: bool = ..., truncate_bearoff: bool = ...) -> dict[str, Any]: ...
# rollout: trials 1..MAX_TRIALS, truncate 0..MAX_TRUNCATE, plies 0..3, n_threads 1..256,
# first_trial 0..2**31-2 (and first_trial + trials - 1 too)
