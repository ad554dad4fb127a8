"""The Python layer's shared vocabulary: what a board, a step, a network's outputs
and a player are (the base layer: it imports nothing from bgengine but the core).

Boards follow GNU Backgammon's convention: a ``uint8`` array of shape
``(2, 25)``; row 1 is the side on roll, row 0 its opponent; column ``i``
(0..23) is that side's own point ``i + 1``, column 24 its bar.
"""

from __future__ import annotations

from typing import Callable, Protocol, runtime_checkable

import numpy as np

__all__ = ["Board", "Step", "Outputs", "PlayerLike", "Progress", "OUTPUT_FORMS", "five_outputs"]

#: A position: ``uint8`` array of shape ``(2, 25)``, the side on roll in row 1.
Board = np.ndarray

#: One checker's single-die step ``(from, to)`` in the mover's numbering (25 = bar, 0 = off).
Step = tuple[int, int]

#: A network's outputs for the side they belong to, shape ``(..., K)`` with K in
#: ``OUTPUT_FORMS``: 1 = (win), 4 = (this side wins, the other side wins, this side's
#: gammon, the other's gammon), 5 = gnubg's (win, win gammon, win backgammon, lose
#: gammon, lose backgammon).
Outputs = np.ndarray

#: How a long job reports how far it is: ``progress(done, total)`` (games, pairings,
#: plays...), called after each step; the command line draws it as a bar.
Progress = Callable[[int, int], None]

#: Output counts a network can have.
OUTPUT_FORMS = (1, 4, 5)


@runtime_checkable
class PlayerLike(Protocol):
    """Anything that chooses plays in a Python game loop: a compiled
    :class:`bgengine.core.agents.Player`, a gnubg-backed or external player."""

    name: str

    def choose(self, board: Board, d1: int, d2: int, seed: int = 0) -> int:
        """Index of the chosen play in ``legal_afterstates(board, d1, d2)``;
        ``seed`` drives a player's randomness (if it has any)."""
        ...


def five_outputs(outputs) -> np.ndarray:
    """Any output form as gnubg's five, float64 shape ``(5,)``: the 1-output form
    has no gammons; the 4-output form's win is normalised over both sides' wins
    (it has no backgammons).  Raises ``ValueError`` for another count."""
    out = np.asarray(outputs, dtype=np.float64).reshape(-1)
    k = out.shape[0]
    if k == 5:
        return out.copy()
    if k == 1:
        return np.array([out[0], 0.0, 0.0, 0.0, 0.0])
    if k == 4:
        s = out[0] + out[1]
        return np.array([out[0] / s if s > 0 else 0.5, out[2], 0.0, out[3], 0.0])
    raise ValueError(f"outputs must have {', '.join(map(str, OUTPUT_FORMS))} values, got {k}")
