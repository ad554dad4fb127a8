"""Checks of argument types and ranges shared by the library's modules, and the library's
documented bounds on sizes and counts.

:func:`checked_int` and :func:`checked_real` say what is wrong in the same words as the
compiled core's helpers (``src/bgcore/checks.pxd``): "``name`` must be an integer" (a bool
is not one; numpy integers are), "``name`` must be a finite number", "``name`` must be in
``span``"."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["is_int", "is_number", "checked_int", "checked_real", "game_pairs",
           "MAX_LISTED_PLAYS"]

# The compiled core's bounds (:data:`bgengine.core.agents.MAX_GAMES`, 10**8 games a call;
# :data:`bgengine.core.search.MAX_TRIALS`, 10**7 trials a rollout) are defined there, below
# this layer; the Python modules import them from there.

#: Plays a hint shows, or a rollout of candidate plays rolls out: more than any roll has
#: legal plays (a roll's plays are at most 15**4 sequences of four checkers' steps).
MAX_LISTED_PLAYS = 10**6


def is_int(x: Any) -> bool:
    """A real integer (Python or numpy), not a bool."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def is_number(x: Any) -> bool:
    """A real integer or float (Python or numpy), not a bool."""
    return is_int(x) or isinstance(x, (float, np.floating))


def checked_int(value: Any, name: str, lo: int, hi: int, span: str | None = None,
                kind: str = "an integer") -> int:
    """``value`` (a Python or numpy integer, not a bool) as an int in ``lo``..``hi``;
    ``ValueError`` saying "``name`` must be ``kind``" for a non-integer and "``name``
    must be in ``span``" (default ``lo..hi``) for a value out of range."""
    if not is_int(value):
        raise ValueError(f"{name} must be {kind}, got {value!r}")
    if not lo <= value <= hi:
        raise ValueError(f"{name} must be in {span or f'{lo}..{hi}'}, got {value}")
    return int(value)


def checked_real(value: Any, name: str, lo: float, hi: float, span: str | None = None) -> float:
    """``value`` (a Python or numpy integer or float, not a bool; finite) as a float in
    ``lo``..``hi``; ``ValueError`` saying "``name`` must be a finite number" for a
    non-number, NaN or an infinity and "``name`` must be in ``span``" (default
    ``[lo, hi]``) for a value out of range."""
    if not is_number(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    try:
        v = float(value)
    except OverflowError:           # an int beyond any float
        raise ValueError(f"{name} must be in {span or f'[{lo}, {hi}]'}, got {value}") from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if not lo <= v <= hi:
        raise ValueError(f"{name} must be in {span or f'[{lo}, {hi}]'}, got {value}")
    return v


def game_pairs(games: Any, what: str = "games") -> int:
    """The game pairs of ``games`` games (each dice sequence twice, the seats swapped; an
    odd number rounded up): ``games`` an integer in 2..:data:`bgengine.core.agents.MAX_GAMES`
    (10**8), or ``ValueError`` naming ``what``."""
    from bgengine.core.agents import MAX_GAMES     # the core's (compiled; imported when needed)

    n = checked_int(games, what, 2, MAX_GAMES, "2..10**8 (at least 2: one game pair)",
                    "an integer of at least 2 (one game pair)")
    return (n + 1) // 2
