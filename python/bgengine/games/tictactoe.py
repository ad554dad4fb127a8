"""Tic-tac-toe from Python over the compiled rules (:mod:`bgengine.core.tictactoe`): positions, the
players by spec (``tictactoe:SPEC`` on the command line) and matches between them.

Cells are numbered ``3 * row + column``, 0..8, from the top left.  X moves first.

>>> from bgengine.games import tictactoe
>>> tictactoe.match("smart", "random", games=1000, seed=0)["a_wins"]
"""

from __future__ import annotations

from dataclasses import dataclass

from bgengine.core import tictactoe as _core
from bgengine.games.learners import PlayerSpec
from bgengine.games.learners import match as seat_alternating_match
from bgengine.games.network import GameNetwork
from bgengine.core.tictactoe import GAME, N_INPUTS, PLAYERS

__all__ = ["TicTacToe", "GAME", "PLAYERS", "N_INPUTS", "SPEC_HELP", "make_player", "match"]

SPEC_HELP = ("random | primitive (takes a win, else random) | smart (wins, blocks, else the cell "
             "with the most open lines) | solver (exact: a random one of the best moves) | "
             "simulation (100 random playouts a move, spread evenly) | net:PATH (a tic-tac-toe "
             "network, greedy)")


def make_player(spec: str | GameNetwork) -> PlayerSpec:
    """A player by spec (see SPEC_HELP): a reference player's name, or the network of
    ``net:PATH`` (``ValueError`` for anything else, or a network of another game)."""
    if isinstance(spec, GameNetwork):
        return spec
    name = spec.strip()
    if name.lower().startswith("net:"):
        net = GameNetwork.load(name[4:])
        if net.game != "tictactoe":
            raise ValueError(f"{name[4:]}: a {net.game} network, not a tic-tac-toe one")
        return net
    if name.lower() not in (*PLAYERS, "simulation"):
        raise ValueError(f"unknown tic-tac-toe player {spec!r}; expected {SPEC_HELP}")
    return name.lower()


def match(a: str | GameNetwork, b: str | GameNetwork, games: int,
          seed: int = 0) -> dict[str, int]:
    """``games`` games of ``a`` against ``b`` (specs or networks), ``a`` moving first in
    ``(games + 1) // 2`` of them and ``b`` in the others; game ``g`` of each half draws from
    stream ``g`` of ``seed``.  Counts ``games``, ``a_wins``, ``b_wins``, ``draws``,
    ``a_first_wins`` and ``b_first_wins`` (wins moving first), as Connect Four's matches."""
    return seat_alternating_match("tictactoe", make_player(a), make_player(b), games, seed=seed)


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
