"""Type stub of the compiled module bgengine.core.agents (src/bgcore/agents.pyx)."""

import numpy as np
from numpy.typing import ArrayLike

from bgengine.core.evaluator import Evaluator
from bgengine.core.network import Network

#: Games one call plays at most: play_match's n_pairs is
#: 0..MAX_GAMES // 2; the library's matches and self-play take 2..MAX_GAMES games.
MAX_GAMES: int          # 10**8
PLAYER_KINDS: dict[str, int]


class Player:
    def __init__(self, kind: str, network: Network | Evaluator | None = ..., epsilon: float = ...,
                 name: str | None = ..., plies: int = ...) -> None: ...
    def choose(self, board: ArrayLike, d1: int, d2: int, seed: int = ...) -> int: ...
    @property
    def epsilon(self) -> float: ...
    @property
    def evaluator(self) -> Evaluator | None: ...
    @property
    def kind(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def network(self) -> Network | Evaluator | None: ...
    @property
    def plies(self) -> int: ...


# Player: epsilon a number in [0, 1], plies 0..3; choose: dice 1..6.  Integers are Python
# or numpy integers (a bool or a float is refused with a ValueError naming it).
def play_match(a: Player, b: Player, n_pairs: int, seed: int = ..., n_threads: int = ...,
               first_pair: int = ...) -> tuple[np.ndarray, np.ndarray]: ...   # points, moves
def pubeval(board: ArrayLike, race: bool | None = ...) -> float: ...
