"""A demonstration game between two simple players, printed move by move.

This is the main job until a trained network ships: it exercises the rules
core end to end (dice, move generation, notation, scoring).  Players here
choose in Python, once per move, which is fine for a demonstration and not
how training or evaluation loops run.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable, TextIO

import numpy as np

from bgengine.dice import Dice
from bgengine.position import Move, Position

__all__ = ["GameRecord", "play_demo_game", "random_choice", "point_maker_choice", "DEMO_PLAYERS"]

log = logging.getLogger(__name__)

Chooser = Callable[[Position, list[Move], Dice], Move]


def random_choice(position: Position, moves: list[Move], dice: Dice) -> Move:
    """Any legal play, uniformly (the dice stream doubles as the chooser's randomness)."""
    return moves[int(dice.next_uint32() % len(moves))]


def point_maker_choice(position: Position, moves: list[Move], dice: Dice) -> Move:
    """Greedy: make the most points (2+ checkers), then leave the fewest blots,
    then hit.  Ties go to gnubg's move order."""

    def score(m: Move) -> tuple[int, int, int]:
        mine = m.board_after[1, :24]
        theirs = m.board_after[0]
        return int((mine >= 2).sum()), -int((mine == 1).sum()), int(theirs[24])

    return max(moves, key=score)


DEMO_PLAYERS: dict[str, Chooser] = {"random": random_choice, "pointmaker": point_maker_choice}


@dataclass
class GameRecord:
    """What happened in one demonstration game."""

    winner: str
    points: int          # 1 single, 2 gammon, 3 backgammon
    n_moves: int


def play_demo_game(x: str = "pointmaker", o: str = "random", seed: int = 1,
                   out: TextIO | None = None) -> GameRecord:
    """Play one cubeless game, X (player ``x``) against O (player ``o``).

    Each turn is printed to ``out`` (if given) as ``X 31: 8/5 6/5``; the final
    board and result follow.
    """
    for name in (x, o):
        if name not in DEMO_PLAYERS:
            raise ValueError(f"unknown demo player {name!r}; choose from {sorted(DEMO_PLAYERS)}")
    dice = Dice(seed)
    names = {"X": x, "O": o}
    choosers = {"X": DEMO_PLAYERS[x], "O": DEMO_PLAYERS[o]}
    d1, d2 = dice.opening_roll()
    # the side with the higher opening die moves first
    side = "X" if dice.next_uint32() % 2 == 0 else "O"
    position = Position.initial()
    n_moves = 0

    def say(text: str) -> None:
        if out is not None:
            print(text, file=out)

    say(f"X = {x}, O = {o}, seed {seed}")
    while True:
        moves = position.legal_moves(d1, d2)
        move = choosers[side](position, moves, dice)
        n_moves += 1
        say(f"{n_moves:3d}. {side} {d1}{d2}: {move}")
        position = move.position
        result = position.result()
        if result:
            # the mover is now in row 0, so a finished game reads negative
            points = -result
            kind = {1: "single game", 2: "gammon", 3: "backgammon"}[points]
            final = position.swap()
            say("")
            say(final.to_text(mover=side, opponent="O" if side == "X" else "X"))
            say(f"{side} ({names[side]}) wins a {kind}: {points} point{'s' if points > 1 else ''} "
                f"after {n_moves} moves.")
            return GameRecord(side, points, n_moves)
        side = "O" if side == "X" else "X"
        d1, d2 = dice.roll()
