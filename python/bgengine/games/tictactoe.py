"""Tic-tac-toe positions in Python over the compiled rules (:mod:`bgengine.tictactoe`).

Cells are numbered ``3 * row + column``, 0..8, from the top left.  X moves first.
"""

from __future__ import annotations

from dataclasses import dataclass

from bgengine import tictactoe as _core
from bgengine.tictactoe import GAME, N_INPUTS, PLAYERS

__all__ = ["TicTacToe", "GAME", "PLAYERS", "N_INPUTS"]


@dataclass(frozen=True)
class TicTacToe:
    """A position: ``own`` the side to move's cells, ``mask`` every occupied cell (9-bit
    masks), ``moves`` the pieces played.  Only positions a game reaches can be made."""

    own: int = 0
    mask: int = 0
    moves: int = 0

    def __post_init__(self) -> None:
        _core.result(self.own, self.mask, self.moves)      # ValueError if no game reaches it

    @classmethod
    def from_cells(cls, cells: str) -> "TicTacToe":
        """From 9 characters, row by row: ``X``, ``O`` or ``.``/``-`` (X moved first)."""
        text = "".join(cells.split())
        if len(text) != 9 or set(text.upper()) - set("XO.-"):
            raise ValueError(f"a board is 9 cells of X, O or '.', got {cells!r}")
        x = sum(1 << i for i, c in enumerate(text.upper()) if c == "X")
        o = sum(1 << i for i, c in enumerate(text.upper()) if c == "O")
        moves = bin(x | o).count("1")
        return cls(x if moves % 2 == 0 else o, x | o, moves)

    @property
    def x_to_move(self) -> bool:
        return self.moves % 2 == 0

    def cells(self) -> str:
        """The 9 cells as ``X``, ``O`` or ``.``, row by row."""
        x = self.own if self.x_to_move else self.mask ^ self.own
        return "".join("X" if x >> i & 1 else "O" if self.mask >> i & 1 else "."
                       for i in range(9))

    def legal_moves(self) -> list[int]:
        """Empty cells, ascending; none once the game is over."""
        return _core.legal_moves(self.own, self.mask, self.moves)

    def play(self, cell: int) -> "TicTacToe":
        """The position after the side to move takes ``cell``."""
        return TicTacToe(*_core.play(self.own, self.mask, self.moves, cell))

    def result(self) -> int:
        """1: the side that just moved has won; 0: a draw; -1: the game goes on."""
        return _core.result(self.own, self.mask, self.moves)

    def value(self) -> int:
        """The exact value for the side to move (1 win, 0 draw, -1 loss), by full search."""
        return _core.solve(self.own, self.mask, self.moves)

    def encode(self, representation: int) -> "object":
        """Network inputs, float32 ``(N_INPUTS[representation],)``."""
        return _core.encode(self.own, self.mask, self.moves, representation)

    def player_move(self, player: str, seed: int = 0) -> int:
        """The cell reference player ``player`` (one of PLAYERS) takes."""
        if player not in PLAYERS:
            raise ValueError(f"unknown tic-tac-toe player {player!r}; known: {', '.join(PLAYERS)}")
        return _core.player_move(self.own, self.mask, self.moves, PLAYERS.index(player), seed)

    def __str__(self) -> str:
        c = self.cells()
        return "\n".join(" ".join(c[3 * r:3 * r + 3]) for r in range(3))
