"""Tic-tac-toe against a player at the terminal (``bgengine play --game tictactoe``).

The human types a cell 1..9 (row by row from the top left, as the board shows the empty
cells), ``hint`` (the exact solver's best cells and their outcome) or ``quit``; the board is
printed after every move, ``X`` the first player.
"""

from __future__ import annotations

from typing import TextIO

from bgengine.games.console import ConsoleGame, run_console
from bgengine.games.learners import choose_move
from bgengine.games.tictactoe import TicTacToe, make_player

__all__ = ["play_tictactoe", "board_text", "hint"]

OUTCOMES = {1: "win", 0: "draw", -1: "loss"}


def board_text(p: TicTacToe) -> str:
    """Three rows of ``X``, ``O`` and, for the empty cells, their numbers 1..9."""
    cells = [c if c != "." else str(i + 1) for i, c in enumerate(p.cells())]
    return "\n".join(" ".join(cells[3 * r:3 * r + 3]) for r in range(3))


def hint(p: TicTacToe) -> str:
    """The exact solver's best cells (1..9) for the side to move and their outcome."""
    values = {}
    for cell in p.legal_moves():
        after = p.play(cell)
        r = after.result()
        values[cell] = 1 if r == 1 else 0 if r == 0 else -after.value()
    best = max(values.values())
    cells = " ".join(str(c + 1) for c, v in values.items() if v == best)
    return f"best: {cells} ({OUTCOMES[best]} with best play)"


def play_tictactoe(inp: TextIO, out: TextIO, player: str = "solver", human_first: bool = True,
                   seed: int = 0, echo: bool = False) -> int:
    """One game, the human against ``player`` (a tic-tac-toe spec, ``net:PATH`` too); 0 when
    the game ends or the human quits or input ends.  The engine's move after ``k`` moves
    draws from ``seed + k``: the same seed and input, the same game."""
    engine = make_player(player)
    game = ConsoleGame(
        start=TicTacToe(), show=board_text, legal=TicTacToe.legal_moves,
        to_move=lambda p: p.moves % 2, play=TicTacToe.play, drawn=lambda p: p.result() == 0,
        engine=lambda p, history: choose_move("tictactoe", engine, history,
                                              seed=seed + len(history)),
        hint=hint, what="empty cell")
    intro = (f"Tic-tac-toe: you are {'X (first)' if human_first else 'O (second)'} against "
             f"{player}.  Type an empty cell's number 1-9, 'hint' or 'quit'.")
    return run_console(inp, out, game, intro, player, human_first, echo)
