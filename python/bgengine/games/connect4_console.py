"""Connect Four against a reference player at the terminal (``bgengine play --game connect4``).

The human types a column 1..7, ``hint`` (the solver's best columns, from 12 stones on) or
``quit``; the board is printed after every move, ``X`` the first player.
"""

from __future__ import annotations

from typing import TextIO

from bgengine.core.connect4 import Board
from bgengine.core.connect4_solver import Solver
from bgengine.core.dice import Dice
from bgengine.games.console import ConsoleGame, run_console
from bgengine.games.connect4 import make_player

__all__ = ["play_connect4", "HINT_FROM_STONES"]

#: the solver answers hints from this many stones on (earlier ones take it too long)
HINT_FROM_STONES = 12


def play_connect4(inp: TextIO, out: TextIO, player: str = "mm4-greedy", human_first: bool = True,
                  seed: int = 0, echo: bool = False) -> int:
    """One game, the human against ``player`` (a Connect Four spec); 0 when the game ends or
    the human quits or input ends."""
    engine, dice = make_player(player), Dice(seed)

    def play(board: Board, col: int) -> Board:
        board.play(col)
        return board

    game = ConsoleGame(start=Board(), show=str, legal=Board.legal_moves,
                       to_move=lambda b: b.moves % 2, play=play,
                       drawn=lambda b: b.result() == 0,
                       engine=lambda b, _history: engine.move(b, dice), hint=_hint,
                       what="open column")
    intro = (f"Connect Four: you are {'X (first)' if human_first else 'O (second)'} against "
             f"{player}.  Type a column 1-7, 'hint' or 'quit'.")
    return run_console(inp, out, game, intro, player, human_first, echo)


def _hint(board: Board) -> str:
    if board.moves < HINT_FROM_STONES:
        return f"hints from {HINT_FROM_STONES} stones on (the solver needs minutes before)"
    scores = Solver(1_000_003).move_scores(board)
    best = max(v for v in scores if v is not None)
    outcome = "win" if best > 0 else "loss" if best < 0 else "draw"
    cols = " ".join(str(c + 1) for c, v in enumerate(scores) if v == best)
    return f"best: {cols} ({outcome}, score {best})"
