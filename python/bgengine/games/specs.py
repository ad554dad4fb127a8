"""Player specs of the other games: ``GAME:PLAYER`` (e.g. ``connect4:mm4``,
``tictactoe:net:PATH``), and their matches.

A game registers one function, ``match(a, b, games, seed)`` -> counts ``games``, ``a_wins``,
``b_wins``, ``draws`` (each player first in every other game), in :data:`GAMES`.
"""

from __future__ import annotations

import math
from typing import Callable

from bgengine.games import connect4, tictactoe

__all__ = ["GAMES", "SPEC_HELP", "split_game_spec", "game_match", "describe"]

GAMES: dict[str, Callable[..., dict[str, int]]] = {"connect4": connect4.match,
                                                   "tictactoe": tictactoe.match}

SPEC_HELP = ("connect4:PLAYER (" + connect4.SPEC_HELP + "); tictactoe:PLAYER (" +
             tictactoe.SPEC_HELP + ")")


def split_game_spec(spec: str) -> tuple[str, str] | None:
    """``("connect4", "mm4")`` for ``"connect4:mm4"``; None for a spec of no other game."""
    game, sep, player = spec.partition(":")
    return (game, player) if sep and game in GAMES else None


def game_match(a: str, b: str, games: int, seed: int = 0) -> dict[str, object]:
    """A match between two specs of the same game: the game's counts, plus ``score`` (A's
    wins plus half its draws, per game) and ``ci95`` (its 95% half-width, normal
    approximation)."""
    sa, sb = split_game_spec(a), split_game_spec(b)
    if sa is None or sb is None or sa[0] != sb[0]:
        raise ValueError(f"{a!r} and {b!r}: both players must be of one game, e.g. "
                         f"connect4:mm4 connect4:random")
    if games < 1:
        raise ValueError(f"--games must be >= 1, got {games}")
    counts = GAMES[sa[0]](sa[1], sb[1], games=games, seed=seed)
    n = counts["games"]
    score = (counts["a_wins"] + counts["draws"] / 2) / n
    second_moment = (counts["a_wins"] + counts["draws"] / 4) / n
    ci95 = 1.96 * math.sqrt(max(second_moment - score**2, 0.0) / n)
    return {"game": sa[0], "a": a, "b": b, **counts, "score": score, "ci95": ci95}


def describe(result: dict[str, object]) -> str:
    """One line: A's wins, draws and losses and its score."""
    n = result["games"]
    return (f"{result['a']} vs {result['b']}: score {result['score']:.3f} ± {result['ci95']:.3f} "
            f"(95%) over {n} games; wins {result['a_wins'] / n:.1%}, draws "
            f"{result['draws'] / n:.1%}, losses {result['b_wins'] / n:.1%}")
