"""Positions for tests: the starting position, and positions met in random-play games."""

from __future__ import annotations

import numpy as np

from bgengine.core.movegen import legal_afterstates


def start_board() -> np.ndarray:
    b = np.zeros((2, 25), np.uint8)
    for s in range(2):
        b[s, 23], b[s, 12], b[s, 7], b[s, 5] = 2, 5, 3, 5
    return b


def board_of(on_roll: dict[int, int], other: dict[int, int]) -> np.ndarray:
    """A position from its checkers: row 1 the side on roll; keys are slot indices
    (point - 1, 24 the bar), values checker counts."""
    b = np.zeros((2, 25), np.uint8)
    for row, points in ((1, on_roll), (0, other)):
        for slot, n in points.items():
            b[row, slot] = n
    return b


def random_positions(n_games: int, seed: int, every: int = 1) -> list[np.ndarray]:
    """Positions (side on roll in row 1) met in random self-play games."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_games):
        b = start_board()
        for ply in range(2000):
            if ply % every == 0:
                out.append(b.copy())
            d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
            after, _ = legal_afterstates(b, d1, d2)
            a = after[rng.integers(len(after))]
            if a[1].sum() == 0:
                break
            b = a[::-1].copy()
    return out


def board_from_points(me: dict, opp: dict) -> np.ndarray:
    """A board from {point: checkers} of the mover and of the opponent, both in
    the mover's numbering (25 = bar)."""
    b = np.zeros((2, 25), dtype=np.uint8)
    for p, n in me.items():
        b[1, p - 1] = n
    for p, n in opp.items():
        b[0, 24 if p == 25 else 24 - p] = n
    return b
