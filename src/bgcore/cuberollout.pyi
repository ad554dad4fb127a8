"""Type stub of the compiled module bgengine.core.cuberollout (src/bgcore/cuberollout.pyx)."""

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from bgengine.core.evaluator import Evaluator
from bgengine.core.network import Network

__all__ = ["rollout_cube", "money_cube_action", "money_table", "check_table",
           "position_class_of", "OWNERS", "MAX_CUBE_LEVEL"]

MAX_CUBE_LEVEL: int
OWNERS: tuple[str, ...]


def rollout_cube(network: Network | Evaluator, board: ArrayLike, trials: int = ..., *,
                 owner: str = ..., jacoby: bool = ..., seed: int = ..., truncate: int = ...,
                 plies: int = ..., n_threads: int = ..., first_trial: int = ...,
                 efficiency: ArrayLike | None = ...,
                 table: tuple[ArrayLike, ArrayLike, float] | None = ...) -> dict[str, Any]: ...
def money_table() -> tuple[np.ndarray, np.ndarray, float]: ...
def check_table(values: ArrayLike, live: ArrayLike,
                complement: float) -> tuple[np.ndarray, np.ndarray, float]: ...
def position_class_of(board: ArrayLike) -> int: ...
def money_cube_action(five: ArrayLike, x: float, owner: str = ...,
                      jacoby: bool = ...) -> tuple[float, float, float, bool, bool]: ...
