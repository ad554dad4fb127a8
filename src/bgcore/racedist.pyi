"""Type stub of the compiled module bgengine.core.racedist (src/bgcore/racedist.pyx)."""

import numpy as np
from numpy.typing import ArrayLike

ROLLS: int
INPUTS: int


def encode_sides(rows: ArrayLike) -> np.ndarray: ...      # float32 (n, 100)


class RaceDistributionNetwork:
    def __new__(cls, w1: ArrayLike, b1: ArrayLike, w2: ArrayLike, b2: ArrayLike,
                max_outside: int = ...) -> RaceDistributionNetwork: ...   # Cython's __cinit__
    def arrays(self) -> dict[str, np.ndarray]: ...
    def distributions(self, rows: ArrayLike) -> tuple[np.ndarray, np.ndarray]: ...  # (n, 32) x2
    @property
    def hidden(self) -> int: ...
    @property
    def max_outside(self) -> int: ...
    @property
    def w1(self) -> np.ndarray: ...
    @property
    def b1(self) -> np.ndarray: ...
    @property
    def w2(self) -> np.ndarray: ...
    @property
    def b2(self) -> np.ndarray: ...
