"""Playing one pairing of a tournament: its seed, its game pairs in batches (on a
backend or gnubg's own processes), stopping between batches."""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import threading

import numpy as np

from bgengine._checks import game_pairs
from bgengine.matches.distributed import Backend, LocalBackend
from bgengine.opponents.gnubg import GnubgPlayer
from bgengine.matches.run import default_threads
from bgengine.matches.tournament.entrants import Entrant

__all__ = ["ROUND_ROBIN_BATCH", "derive_seed", "play_pairs", "play_pairing", "closes_gnubg",
           "concat_results", "resolve_backend", "resolve_threads", "pairs_of_games"]

log = logging.getLogger(__name__)

#: game pairs per call of the compiled match loop in a round robin or an
#: older-self comparison (results do not depend on it; Ctrl-C waits for one batch)
ROUND_ROBIN_BATCH = 250


def derive_seed(master: int, *parts: object) -> int:
    """A 63-bit dice seed from the master seed and any JSON-able parts
    (tournament kind, round, player names, and so on).  Stable across platforms and
    versions: SHA-256 of the JSON text.

    Not :func:`bgengine.matches.game.game_seed`, on purpose: that one mixes integer
    counters (run seed, pair, game, play) into the seed of one play, while a
    tournament's schedule is keyed by names, hashed so that adding or removing a
    player leaves every other pairing's dice as they were.  game_seed cannot take
    names, and any change here would give every tournament other dice than the
    ones its published results were played with."""
    text = json.dumps([int(master), *parts], separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") >> 1


def play_pairs(backend: Backend, a, b, n_pairs: int, seed: int,
                first_pair: int) -> tuple[np.ndarray, np.ndarray]:
    """``backend.play_pairs``, or, when either player is GNU Backgammon, that
    player's pool of gnubg processes (kept for the next batch; the backend is
    not used).  Pairs with a game in which gnubg gave a bad reply are left out,
    with a warning."""
    gnubg = next((p for p in (a, b) if isinstance(p, GnubgPlayer)), None)
    if gnubg is None:
        return backend.play_pairs(a, b, n_pairs, seed, first_pair=first_pair)
    res = gnubg.pool().play_pairs(a, b, n_pairs, seed, first_pair)
    keep = res.good_pairs
    if not keep.all():
        log.warning("%s vs %s: %d games with a bad gnubg reply, their pairs left out: %s",
                    getattr(a, "name", a), getattr(b, "name", b), int(res.bad.sum()),
                    "; ".join(res.reasons[:3]))
    return res.points[keep], res.moves[keep]


def closes_gnubg(fn):
    """Stop the gnubg processes of ``entrants`` (``fn``'s first argument) when ``fn`` ends."""
    @functools.wraps(fn)
    def wrapper(entrants, *args, **kwargs):
        try:
            return fn(entrants, *args, **kwargs)
        finally:
            for e in entrants:
                if isinstance(e.player, GnubgPlayer):
                    e.player.close()
    return wrapper


def play_pairing(a: Entrant, b: Entrant, n_pairs: int, seed: int, backend: Backend, batch: int,
          stop: threading.Event | None, points: list, moves: list, done: int = 0) -> bool:
    """Play pairs ``range(done, n_pairs)`` in batches, appending to ``points``/
    ``moves``; False if stopped (by ``stop`` or KeyboardInterrupt) before the end."""
    while done < n_pairs:
        if stop is not None and stop.is_set():
            return False
        k = min(batch, n_pairs - done)
        try:
            p, m = play_pairs(backend, a.player, b.player, k, seed, done)
        except KeyboardInterrupt:
            if stop is not None:
                stop.set()
            return False
        points.append(p)
        moves.append(m)
        done += k
    return True


def concat_results(arrays: list, dtype) -> np.ndarray:
    """The per-game result rows of several batches in one array (shape (games, 2); empty if none)."""
    return np.concatenate(arrays) if arrays else np.zeros((0, 2), dtype=dtype)


def resolve_backend(threads: int | None, backend: Backend | None) -> Backend:
    """``backend`` if given, else the compiled core's threads on this machine."""
    return backend if backend is not None else LocalBackend(resolve_threads(threads))


def resolve_threads(threads: int | None) -> int:
    """``threads``, or every core when None; ``ValueError`` below 1."""
    t = default_threads() if threads is None else int(threads)
    if t < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    return t


def pairs_of_games(games: int, what: str = "games") -> int:
    """The game pairs of ``games`` (an integer in 2..10**8), or ``ValueError`` naming ``what``."""
    return game_pairs(games, what)
