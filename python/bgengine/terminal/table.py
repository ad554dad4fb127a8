"""The game on the table: who sits where, and the state of the game in progress."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bgengine.matches.game import MatchScore
from bgengine.notation.ids import GAME_OVER, GAME_PLAYING, MatchState
from bgengine.position import Position

__all__ = ["ENGINE", "HUMAN", "TableGame", "GameEnd", "start_position", "table_match_state",
           "high_first"]

#: gnubg's player numbers: the engine is player 0 (O, drawn at the top),
#: the human player 1 (X, at the bottom), as in gnubg's own board window.
ENGINE, HUMAN = 0, 1


@dataclass
class TableGame:
    """Everything about the game in progress (copied whole for ``undo``)."""

    number: int
    board: Position                  # always from the human's side (row 1 = human)
    turn: int                        # ENGINE or HUMAN: whose turn it is
    dice: tuple[int, int] | None     # rolled and not yet played, else None
    cube: int = 1
    cube_owner: int = -1             # -1 centred, else ENGINE or HUMAN
    crawford: bool = False
    plays: int = 0                   # plays made so far (seeds the engine's noise)
    rejected_resignation: int = 0    # the highest level of the engine's offers you rejected
    resignation_offered: int = 0     # the level of the engine's offer being answered (web)

    def board_for(self, side: int) -> np.ndarray:
        """The board with ``side`` in row 1."""
        return (self.board if side == HUMAN else self.board.swap()).board


class GameEnd(Exception):
    """The game in progress is over: ``winner`` (a seat) won ``points``, ``how``."""

    def __init__(self, winner: int, points: int, how: str) -> None:
        super().__init__(how)
        self.winner, self.points, self.how = winner, points, how


def table_match_state(g: TableGame | None, match: MatchScore, jacoby: bool, *,
                      double_offered: bool = False, turn: int | None = None) -> MatchState:
    """The gnubg match state of game ``g`` (``None``: between games) in ``match`` (player
    0 = engine, 1 = the human); ``turn``: who is to act, default the side on roll."""
    on_roll = g.turn if g is not None else HUMAN
    dice = g.dice if g is not None and g.dice else (0, 0)
    return MatchState(
        match_length=match.length, score=(match.score[ENGINE], match.score[HUMAN]),
        cube=g.cube if g else 1, cube_owner=g.cube_owner if g else -1,
        player_on_roll=on_roll, turn=on_roll if turn is None else turn,
        crawford=bool(g and g.crawford), game_state=GAME_PLAYING if g else GAME_OVER,
        double_offered=double_offered, dice=dice,
        jacoby=jacoby if match.length == 0 else False)


def high_first(dice: tuple[int, int]) -> tuple[int, int]:
    """A roll with the higher die first, as it is shown, listed and saved (gnubg and
    Jellyfish write a .mat file's dice so; ``bgengine moves`` numbers a roll's plays so)."""
    d1, d2 = dice
    return (d1, d2) if d1 >= d2 else (d2, d1)


def start_position(position) -> Position | None:
    """``position`` (a Position, a Position ID, a board or ``None``) as the Position a
    first game starts from; ``ValueError`` for a finished one."""
    if isinstance(position, str):
        position = Position.from_id(position.strip())
    if position is not None:
        if not isinstance(position, Position):
            position = Position(position)
        if position.is_game_over():
            raise ValueError(f"the start position {position.position_id} is already finished")
    return position
