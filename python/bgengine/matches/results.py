"""What a match reports: :class:`MatchResult`, :class:`CubeMatchResult`, and the one
95% confidence interval every figure of bgengine uses (:func:`ci95`).

Every match plays game *pairs*: one dice sequence twice with the seats
swapped.  Pairs are independent, games within a pair are not, so a match's
interval comes from the spread of the pair means.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

__all__ = ["Z95", "ci95", "ci_text", "MatchResult", "CubeMatchResult", "summarize"]

#: Two-sided 95% quantile of the normal distribution.
Z95 = 1.96


def ci95(samples) -> float:
    """Half-width of the normal 95% confidence interval of the mean of
    independent ``samples`` (1-D, any units): ``1.96 * sd / sqrt(n)`` with the
    sample standard deviation; ``inf`` for fewer than two samples."""
    x = np.asarray(samples, dtype=np.float64).reshape(-1)
    if x.size < 2:
        return math.inf
    return Z95 * float(x.std(ddof=1)) / math.sqrt(x.size)


def ci_text(ci: float, spec: str = ".3f", scale: float = 1.0, unit: str = "") -> str:
    """``"± 0.017 (95%)"`` for a half-width ``ci`` (shown as ``ci * scale`` in format
    ``spec``, then ``unit``); for an infinite one (a single game pair) a note saying
    so instead of ``± inf``."""
    if not math.isfinite(ci):
        return "(no 95% interval: one game pair; play at least 4 games for one)"
    return f"± {ci * scale:{spec}}{unit} (95%)"


@dataclass(frozen=True)
class MatchResult:
    """Outcome of a cubeless money match of ``games`` games, from player A's side.

    ``ppg`` is A's mean points per game; ``ci95`` the half-width of its 95%
    confidence interval, from the spread of game-pair means (each pair plays
    one dice sequence twice with the seats swapped, so pairs are independent).
    Rates are fractions of all games.

    ``bad_games`` is set for matches against a program whose replies are
    checked (GNU Backgammon, see :mod:`bgengine.opponents.gnubg`): the games in which
    it gave a reply that is not a legal play (or could not answer at all).
    Such a game's pair is left out of every figure above (``games`` counts
    only the games kept); ``bad_examples`` says what went wrong in the first
    few.  ``None`` where nothing external was asked.

    ``luck_adjusted_ppg`` and its ``luck_adjusted_ci95``: where the luck of
    the dice was measured (:mod:`bgengine.decisions.luck`), A's points minus A's luck
    per game: an unbiased estimate of the same ppg with a smaller interval.
    ``None`` where it was not.
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
    bad_games: int | None = None
    bad_examples: tuple[str, ...] = ()
    luck_adjusted_ppg: float | None = None
    luck_adjusted_ci95: float | None = None

    def as_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        text = (f"{self.a} vs {self.b}: {self.ppg:+.3f} ppg {ci_text(self.ci95)} over "
                f"{self.games} games; wins {100 * self.win:.1f}%, gammons "
                f"{100 * self.win_gammon:.1f}%/{100 * self.lose_gammon:.1f}%, backgammons "
                f"{100 * self.win_backgammon:.2f}%/{100 * self.lose_backgammon:.2f}% (won/lost)")
        if self.luck_adjusted_ppg is not None:
            text += (f"; luck-adjusted {self.luck_adjusted_ppg:+.4f} ppg "
                     f"{ci_text(self.luck_adjusted_ci95, '.4f')}")
        if self.bad_games is not None:
            text += f"; {self.bad_games} games with a bad reply (their pairs not counted)"
            if self.bad_examples:
                text += ", first: " + self.bad_examples[0]
        return text


def summarize(a: str, b: str, points: np.ndarray, moves: np.ndarray, bad: np.ndarray | None = None,
              bad_examples: tuple[str, ...] = (), luck: np.ndarray | None = None) -> MatchResult:
    """A :class:`MatchResult` from ``play_match``'s arrays of shape ``(pairs, 2)``:
    ``points`` (A's points per game) and ``moves`` (plays per game).

    ``bad`` (bool, same shape, optional) marks games with a bad reply: their
    pairs are dropped from the figures and counted in ``bad_games``.  ``luck``
    (float, same shape, optional): A's luck in each game, for the luck-adjusted
    figures.
    """
    n_bad = None
    if bad is not None:
        keep = ~np.asarray(bad, dtype=bool).any(axis=1)
        n_bad = int(np.count_nonzero(bad))
        points, moves = points[keep], moves[keep]
        luck = None if luck is None else np.asarray(luck)[keep]
    pair_means = points.astype(np.float64).mean(axis=1)
    adjusted = None if luck is None else (points - np.asarray(luck, np.float64)).mean(axis=1)
    flat = points.reshape(-1)
    n = max(flat.size, 1)
    return MatchResult(
        a=a, b=b, games=int(flat.size), ppg=float(pair_means.mean()) if pair_means.size else 0.0,
        ci95=ci95(pair_means), win=float((flat > 0).sum() / n),
        win_gammon=float((flat >= 2).sum() / n), win_backgammon=float((flat >= 3).sum() / n),
        lose_gammon=float((flat <= -2).sum() / n), lose_backgammon=float((flat <= -3).sum() / n),
        mean_moves=float(moves.mean()) if moves.size else 0.0,
        bad_games=n_bad, bad_examples=tuple(bad_examples),
        luck_adjusted_ppg=None if adjusted is None or not adjusted.size else float(adjusted.mean()),
        luck_adjusted_ci95=None if adjusted is None else ci95(adjusted),
    )


@dataclass(frozen=True)
class CubeMatchResult:
    """Outcome of games or matches played with the doubling cube, from A's side.

    Money play (``match_length == 0``): ``value`` is A's mean points per game
    (cube and gammons included), over ``n`` games.  Matches: ``value`` is the
    fraction of the ``n`` matches that A won.  ``ci95``: half-width of the 95%
    confidence interval, from the spread of pair means (each pair plays the
    same dice twice with the seats swapped).  ``doubles``, ``drops``: per game;
    ``mean_cube``: the cube's mean value at the end of a game.  ``bad_games`` is
    set against gnubg (:mod:`bgengine.opponents.gnubg`): money games or matches stopped by a
    bad reply (a play that is not legal, a cube action not allowed), whose pairs
    are left out of every figure; ``bad_examples``: what went wrong in the first few.
    ``luck_adjusted_ppg`` and its ``luck_adjusted_ci95`` (money games measured with a
    cubeful luck meter, :mod:`bgengine.decisions.luck`): A's points minus A's luck,
    an unbiased estimate of ``value`` with a narrower interval.
    """

    a: str
    b: str
    match_length: int
    n: int
    value: float
    ci95: float
    games: int
    doubles: float
    drops: float
    mean_cube: float
    bad_games: int | None = None
    bad_examples: tuple[str, ...] = ()
    luck_adjusted_ppg: float | None = None
    luck_adjusted_ci95: float | None = None

    def as_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        cube = (f"{self.doubles:.2f} doubles and {self.drops:.2f} drops per game, mean final "
                f"cube {self.mean_cube:.2f}")
        if self.match_length == 0:
            text = (f"{self.a} vs {self.b} (money, with the cube): {self.value:+.3f} ppg "
                    f"{ci_text(self.ci95)} over {self.n} games; {cube}")
            if self.luck_adjusted_ppg is not None:
                text += (f"; luck-adjusted {self.luck_adjusted_ppg:+.4f} ppg "
                         f"{ci_text(self.luck_adjusted_ci95, '.4f')}")
        else:
            text = (f"{self.a} vs {self.b}: won {100 * self.value:.1f}% "
                    f"{ci_text(self.ci95, '.1f', 100, '%')} of "
                    f"{self.n} matches to {self.match_length} ({self.games} games); {cube}")
        if self.bad_games is not None:
            unit = "matches" if self.match_length else "games"
            text += f"; {self.bad_games} {unit} with a bad reply (their pairs not counted)"
            if self.bad_examples:
                text += ", first: " + self.bad_examples[0]
        return text
