"""Type stub of the compiled module bgengine.core.connect4_players (src/bgcore/connect4_players.pyx)."""

from bgengine.core.connect4 import Board
from bgengine.core.connect4_solver import Solver
from bgengine.core.dice import Dice

STUDY_EPSILON: float
KINDS: dict[str, int]
PLAYERS: tuple[str, ...]
N_INPUTS: tuple[int, ...]
GAME: object
LINE_COUNTS: tuple[tuple[int, ...], ...]


class Player:
    def __init__(self, kind: str, depth: int = ..., epsilon: float = ..., playouts: int = ...,
                 solver: Solver | None = ...) -> None: ...
    @property
    def kind(self) -> str: ...
    @property
    def depth(self) -> int: ...
    @property
    def epsilon(self) -> float: ...
    @property
    def playouts(self) -> int: ...
    def move(self, board: Board, dice: Dice) -> int: ...


def line_value(stones: int) -> int: ...
def play_match(a: Player, b: Player, games: int, dice: Dice,
               start: Board | None = ...) -> dict[str, int]: ...
