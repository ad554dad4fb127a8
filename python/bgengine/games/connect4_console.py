"""Connect Four against a reference player at the terminal (``bgengine play --game connect4``).

The human types a column 1..7, ``hint`` (the solver's best columns, from 12 stones on) or
``quit``; the board is printed after every move, ``X`` the first player.
"""

from __future__ import annotations

from typing import TextIO

from bgengine.connect4 import Board
from bgengine.connect4_solver import Solver
from bgengine.dice import Dice
from bgengine.games.connect4 import make_player

__all__ = ["play_connect4", "HINT_FROM_STONES"]

#: the solver answers hints from this many stones on (earlier ones take it too long)
HINT_FROM_STONES = 12


def play_connect4(inp: TextIO, out: TextIO, player: str = "mm4-greedy", human_first: bool = True,
                  seed: int = 0, echo: bool = False) -> int:
    """One game, the human against ``player`` (a Connect Four spec); 0 when the game ends or
    the human quits or input ends."""
    engine, dice, board = make_player(player), Dice(seed), Board()
    human = 0 if human_first else 1
    out.write(f"Connect Four: you are {'X (first)' if human_first else 'O (second)'} against "
              f"{player}.  Type a column 1-7, 'hint' or 'quit'.\n")
    while board.legal_moves():
        out.write(str(board) + "\n")
        if board.moves % 2 == human:
            out.write("your move> ")
            out.flush()
            line = inp.readline()
            if not line:
                out.write("\n")
                return 0
            text = line.strip().lower()
            if echo:
                out.write(text + "\n")
            if text in ("quit", "q", "exit"):
                return 0
            if text == "hint":
                out.write(_hint(board) + "\n")
                continue
            if not (len(text) == 1 and text in "1234567") or (int(text) - 1) not in board.legal_moves():
                out.write(f"'{text}' is no open column: type one of "
                          f"{' '.join(str(c + 1) for c in board.legal_moves())}\n")
                continue
            col = int(text) - 1
        else:
            col = engine.move(board, dice)
            out.write(f"{player} plays {col + 1}\n")
        board.play(col)
    out.write(str(board) + "\n")
    if board.result() == 0:
        out.write("A draw.\n")
    else:
        winner_moved = (board.moves - 1) % 2
        out.write("You win.\n" if winner_moved == human else f"{player} wins.\n")
    return 0


def _hint(board: Board) -> str:
    if board.moves < HINT_FROM_STONES:
        return f"hints from {HINT_FROM_STONES} stones on (the solver needs minutes before)"
    scores = Solver(1_000_003).move_scores(board)
    best = max(v for v in scores if v is not None)
    outcome = "win" if best > 0 else "loss" if best < 0 else "draw"
    cols = " ".join(str(c + 1) for c, v in enumerate(scores) if v == best)
    return f"best: {cols} ({outcome}, score {best})"
