"""Matches between two players, with variance reduction and confidence intervals."""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass

import numpy as np

from bgengine.agents import Player, play_match

__all__ = ["MatchResult", "run_match", "default_threads"]


def default_threads() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


@dataclass(frozen=True)
class MatchResult:
    """Outcome of a cubeless money match of ``games`` games, from player A's side.

    ``ppg`` is A's mean points per game; ``ci95`` the half-width of its 95%
    confidence interval, from the spread of game-pair means (each pair plays
    one dice sequence twice with the seats swapped, so pairs are independent).
    Rates are fractions of all games.
    """

    a: str
    b: str
    games: int
    ppg: float
    ci95: float
    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float
    mean_moves: float

    def as_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        return (f"{self.a} vs {self.b}: {self.ppg:+.3f} ppg ± {self.ci95:.3f} (95%) over "
                f"{self.games} games; wins {100 * self.win:.1f}%, gammons "
                f"{100 * self.win_gammon:.1f}%/{100 * self.lose_gammon:.1f}%, backgammons "
                f"{100 * self.win_backgammon:.2f}%/{100 * self.lose_backgammon:.2f}% (won/lost)")


def summarize(a: str, b: str, points: np.ndarray, moves: np.ndarray) -> MatchResult:
    """A :class:`MatchResult` from ``play_match``'s (pairs, 2) arrays."""
    pts = points.astype(np.float64)
    n_pairs = pts.shape[0]
    pair_means = pts.mean(axis=1)
    ci = 1.96 * pair_means.std(ddof=1) / math.sqrt(n_pairs) if n_pairs > 1 else float("inf")
    flat = points.reshape(-1)
    n = max(flat.size, 1)
    return MatchResult(
        a=a, b=b, games=int(flat.size), ppg=float(pair_means.mean()) if n_pairs else 0.0,
        ci95=float(ci), win=float((flat > 0).sum() / n),
        win_gammon=float((flat >= 2).sum() / n), win_backgammon=float((flat >= 3).sum() / n),
        lose_gammon=float((flat <= -2).sum() / n), lose_backgammon=float((flat <= -3).sum() / n),
        mean_moves=float(moves.mean()) if moves.size else 0.0,
    )


def run_match(a, b, games: int, seed: int = 0, threads: int | None = None) -> MatchResult:
    """Play ``games`` games (rounded up to an even number: game pairs) between ``a`` and ``b``.

    Compiled players play whole games in the compiled core on ``threads``
    threads; a match involving an external player (see
    :mod:`bgengine.external`) is played from Python with the same dice pairs.
    """
    if games < 2:
        raise ValueError(f"games must be at least 2 (one pair), got {games}")
    if not (isinstance(a, Player) and isinstance(b, Player)):
        from bgengine.external import play_external_match

        return play_external_match(a, b, games, seed=seed)
    n_pairs = (games + 1) // 2
    points, moves = play_match(a, b, n_pairs, seed=seed, n_threads=threads or default_threads())
    return summarize(a.name, b.name, points, moves)
