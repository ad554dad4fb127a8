"""Type stub of the compiled module bgengine.core.cubesearch (src/bgcore/cubesearch.pyx)."""

import numpy as np
from numpy.typing import ArrayLike

from bgengine.core.evaluator import Evaluator
from bgengine.core.network import Network

__all__ = ["cube_search", "money_cube_search"]


def cube_search(network: Network | Evaluator, boards: ArrayLike, plies: int,
                values: ArrayLike, live: ArrayLike, complement: float, *, owner: str = ...,
                jacoby: bool = ..., efficiency: ArrayLike | None = ...,
                n_threads: int = ...) -> np.ndarray: ...
def money_cube_search(network: Network | Evaluator, boards: ArrayLike, plies: int = ..., *,
                      owner: str = ..., jacoby: bool = ..., efficiency: ArrayLike | None = ...,
                      n_threads: int = ...) -> np.ndarray: ...
