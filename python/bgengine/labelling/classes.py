"""Position classes: the kinds of game a labelled position belongs to.

Every position of the data store and of the accuracy benchmark is tagged with one class,
so that the store can count its coverage and the benchmark can report errors per class.
The rules are symmetric (either side may hold the back game) and are checked in order:

``race``
    No contact is left (nobody can hit anybody).
``crashed``
    Either side's board has crashed, by gnubg's rule (``ClassifyPosition``): six checkers
    or fewer left in play, or few left beyond a stacked 1-point (and 2-point).
``back game``
    A side holds two or more points in its opponent's home board and trails by 30 pips or
    more.
``holding``
    A side holds a point on its opponent's 4- to 7-point and trails by 10 pips or more.
``contact``
    Every other position with contact (the middle game).
"""

from __future__ import annotations

import numpy as np

__all__ = ["POSITION_CLASSES", "classify_positions", "class_counts"]

#: The class names; a class's number is its index here.
POSITION_CLASSES = ("contact", "holding", "back game", "crashed", "race")

CONTACT, HOLDING, BACK_GAME, CRASHED, RACE = range(len(POSITION_CLASSES))


def _crashed(rows: np.ndarray) -> np.ndarray:
    """gnubg's crashed test of one side's rows (uint8, (N, 25), gnubg layout)."""
    tot, ace, deuce = (rows.sum(axis=1).astype(np.int64), rows[:, 0].astype(np.int64),
                       rows[:, 1].astype(np.int64))
    stacked = ace > 1
    return ((tot <= 6)
            | (stacked & ((tot <= 6 + ace) | ((deuce > 1) & (1 + tot - ace - deuce <= 6))))
            | (~stacked & (tot <= 6 + deuce - 1)))


def _race(boards: np.ndarray) -> np.ndarray:
    """True where no contact is left: the side on roll's rearmost checker (highest point,
    bar = 24) is below the opponent's rearmost one seen from the same side."""
    occupied = boards > 0
    idx = np.arange(25)
    back1 = np.where(occupied[:, 1], idx, -1).max(axis=1)        # row 1's rearmost
    back0 = np.where(occupied[:, 0], idx, -1).max(axis=1)        # row 0's rearmost
    # row 0's point i is row 1's point 23 - i: contact while row 1's rearmost lies at or
    # beyond row 0's rearmost seen from row 1 (23 - back0); a checker on a bar is contact
    return (back1 < 23 - back0) & (boards[:, 0, 24] == 0) & (boards[:, 1, 24] == 0)


def classify_positions(boards: np.ndarray) -> np.ndarray:
    """The class (uint8 index into :data:`POSITION_CLASSES`) of each position
    (uint8, (N, 2, 25), gnubg layout)."""
    boards = np.asarray(boards)
    if boards.ndim != 3 or boards.shape[1:] != (2, 25):
        raise ValueError(f"boards must have shape (N, 2, 25), got {boards.shape}")
    pips = (boards.astype(np.int64) * np.arange(1, 26)).sum(axis=2)
    holding = np.zeros(len(boards), bool)
    back = np.zeros(len(boards), bool)
    for s in (0, 1):
        behind = pips[:, s] - pips[:, 1 - s]
        back |= ((boards[:, s, 18:24] >= 2).sum(axis=1) >= 2) & (behind >= 30)
        holding |= (boards[:, s, 17:21] >= 2).any(axis=1) & (behind >= 10)
    out = np.full(len(boards), CONTACT, np.uint8)
    out[holding] = HOLDING
    out[back] = BACK_GAME
    out[_crashed(boards[:, 0]) | _crashed(boards[:, 1])] = CRASHED
    out[_race(boards)] = RACE
    return out


def class_counts(classes: np.ndarray) -> dict[str, int]:
    """``{class name: count}`` of an array of class indices (every class named)."""
    counts = np.bincount(np.asarray(classes, np.int64), minlength=len(POSITION_CLASSES))
    return {name: int(c) for name, c in zip(POSITION_CLASSES, counts)}
