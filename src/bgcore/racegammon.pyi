"""Type stub of the compiled module bgengine.core.racegammon (src/bgcore/racegammon.pyx)."""

import numpy as np
from numpy.typing import ArrayLike

from bgengine.core.bearoff import BearoffDatabase
from bgengine.core.racedist import RaceDistributionNetwork

FIRST: int
ALL: int
ESCAPE: int
ROLLS: int


class RaceGammonTables:
    def __new__(cls, database: BearoffDatabase | None = ..., max_outside: int = ...,
                state_budget: int = ..., max_entries: int = ..., wins: bool = ...,
                shards: int | None = ...,
                network: RaceDistributionNetwork | None = ...) -> RaceGammonTables: ...
    @property
    def network(self) -> RaceDistributionNetwork | None: ...
    def bear_off_distribution(self, row: ArrayLike) -> np.ndarray | None: ...    # float64 (32,)
    def clear(self) -> None: ...
    @property
    def database(self) -> BearoffDatabase: ...
    def escape_distribution(self, row: ArrayLike) -> np.ndarray | None: ...      # float64 (32,)
    def first_off_distribution(self, row: ArrayLike) -> np.ndarray | None: ...   # float64 (32,)
    @property
    def max_outside(self) -> int: ...
    def refine(self, board: ArrayLike, outputs: ArrayLike) -> np.ndarray: ...    # float32 (5,)
    @property
    def shards(self) -> int: ...
    @property
    def stats(self) -> dict[str, int]: ...
    def solved(self, mode: str = ...) -> tuple[np.ndarray, np.ndarray]: ...   # uint8 (n, 25), float32 (n, 32)


def default(max_outside: int = ...) -> RaceGammonTables: ...
