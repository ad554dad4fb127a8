"""The terminal game loop of the small games (``bgengine play --game connect4|tictactoe``):
a human against a player, moves typed as numbers 1..N, ``hint`` and ``quit``.

A game hands the loop a :class:`ConsoleGame`: its position and the few functions the loop
needs; the board is printed after every move, ``X`` the first player.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, TextIO

__all__ = ["ConsoleGame", "run_console"]


@dataclass(frozen=True)
class ConsoleGame:
    """A game at the terminal.  Moves are 0-based numbers, typed and shown 1-based."""

    start: Any                              # the starting position
    show: Callable[[Any], str]              # the board, as printed
    legal: Callable[[Any], list[int]]       # the legal moves; none once the game is over
    to_move: Callable[[Any], int]           # 0: the first player to move, 1: the second
    play: Callable[[Any, int], Any]         # the position after a move
    drawn: Callable[[Any], bool]            # a finished game: a draw?
    engine: Callable[[Any, list[int]], int]  # the player's move (the moves so far given)
    hint: Callable[[Any], str]              # advice for the side to move
    what: str                               # what a move names, e.g. "open column"


def run_console(inp: TextIO, out: TextIO, game: ConsoleGame, intro: str, player: str,
                human_first: bool = True, echo: bool = False) -> int:
    """One game, the human against ``player`` (its name in the messages); 0 when the game
    ends or the human quits or input ends.  ``echo``: write the human's input back (input
    not from a terminal)."""
    human = 0 if human_first else 1
    position, history = game.start, []
    out.write(intro + "\n")
    while game.legal(position):
        out.write(game.show(position) + "\n")
        if game.to_move(position) == human:
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
                out.write(game.hint(position) + "\n")
                continue
            legal = game.legal(position)
            if not (text.isascii() and text.isdigit() and text == str(int(text))
                    and int(text) - 1 in legal):
                out.write(f"'{text}' is no {game.what}: type one of "
                          f"{' '.join(str(m + 1) for m in legal)}\n")
                continue
            move = int(text) - 1
        else:
            move = game.engine(position, history)
            out.write(f"{player} plays {move + 1}\n")
        position = game.play(position, move)
        history.append(move)
    out.write(game.show(position) + "\n")
    if game.drawn(position):
        out.write("A draw.\n")
    else:
        last_mover = 1 - game.to_move(position)
        out.write("You win.\n" if last_mover == human else f"{player} wins.\n")
    return 0
