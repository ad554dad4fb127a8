"""Positions to label: sampled from self-play, with starts diversified toward rare structures.

Self-play alone rarely reaches back games, deep holding games, primes against primes,
ace-point games or checkers closed out late, and those are where an evaluator trained on
self-play is least accurate.  So each game of a sampling run starts from one of several
*sources*: the opening (plain 0-ply self-play, or with a share of random plays), or a
random position of one of those structures, built checker by checker.  The game is then
played out by the evaluator at 0-ply, and each position met (side on roll, before it
rolls) is kept with a fixed probability, so that the later positions of a back game (late
hits, closed-out checkers, crashed boards, bear-offs against contact) come too.

Game ``i`` of a run uses ``Dice(seed, stream=i)`` and a numpy generator seeded by
``(seed, i)``: a run is reproducible, and any range of its games can be played apart.
Positions the evaluator values exactly (its bear-off database) are not kept: they need
no label.  Duplicates are dropped (first occurrence kept).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bgengine.core.agents import Player
from bgengine.core.board import game_result, validate_board
from bgengine.core.dice import Dice
from bgengine.core.evaluator import CLASSES as EVALUATOR_CLASSES, Evaluator, as_evaluator
from bgengine.matches.game import game_decisions
from bgengine.notation.ids import position_key
from bgengine.core.network import Network, equity_of
from bgengine.core.search import play_outputs

__all__ = ["SOURCES", "SamplingConfig", "SampledPositions", "sample_positions", "build_pool",
           "build_start"]

log = logging.getLogger(__name__)

#: Where a game of a sampling run starts; a source's number is its index here.
SOURCES = ("self-play", "noisy", "back game", "holding", "prime", "ace-point", "closed out")

#: The default share of games from each source (normalised).
DEFAULT_MIX = {"self-play": 0.30, "noisy": 0.15, "back game": 0.20, "holding": 0.10,
               "prime": 0.10, "ace-point": 0.08, "closed out": 0.07}

_EXACT = EVALUATOR_CLASSES.index("exact")


@dataclass(frozen=True)
class SamplingConfig:
    """A sampling run.

    ``games``: games played; ``seed``: the run's seed; ``keep``: probability of keeping
    each position met; ``epsilon``: share of random plays in the ``noisy`` games;
    ``mix``: share of games per source (names from :data:`SOURCES`, normalised);
    ``alternatives``: probability that a kept position is replaced by the position after
    one of the roll's ``top`` best plays at 0-ply, drawn at random (opponent on roll), so
    that the positions of the plays a decision weighs, not only those played, are labelled.
    """

    games: int
    seed: int = 0
    keep: float = 0.15
    epsilon: float = 0.08
    mix: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_MIX))
    alternatives: float = 0.0
    top: int = 6

    def __post_init__(self) -> None:
        if isinstance(self.games, bool) or not isinstance(self.games, int) or self.games < 1:
            raise ValueError(f"games must be an integer >= 1, got {self.games!r}")
        if not 0 < self.keep <= 1:
            raise ValueError(f"keep must be in (0, 1], got {self.keep!r}")
        if not 0 <= self.alternatives <= 1:
            raise ValueError(f"alternatives must be in [0, 1], got {self.alternatives!r}")
        if isinstance(self.top, bool) or not isinstance(self.top, int) or self.top < 1:
            raise ValueError(f"top must be an integer >= 1, got {self.top!r}")
        if not 0 <= self.epsilon <= 1:
            raise ValueError(f"epsilon must be in [0, 1], got {self.epsilon!r}")
        unknown = set(self.mix) - set(SOURCES)
        if unknown:
            raise ValueError(f"unknown sources {sorted(unknown)}; expected {', '.join(SOURCES)}")
        if any(not np.isfinite(w) or w < 0 for w in self.mix.values()) or \
                sum(self.mix.values()) <= 0:
            raise ValueError(f"mix weights must be finite, >= 0 and not all 0, got {self.mix}")

    def shares(self) -> np.ndarray:
        """The share of each source (float64, (len(SOURCES),), summing to 1)."""
        w = np.array([float(self.mix.get(s, 0.0)) for s in SOURCES])
        return w / w.sum()


@dataclass
class SampledPositions:
    """Sampled positions: ``keys`` (uint8, (N, 10): gnubg position keys, side on roll in
    row 1 of the board they decode to), ``sources`` (uint8, (N,): index into
    :data:`SOURCES`), ``games`` (int64, (N,): the game each came from)."""

    keys: np.ndarray
    sources: np.ndarray
    games: np.ndarray


# ------------------------------------------------------------ starts by structure

def _place(rng: np.random.Generator, board: np.ndarray, side: int, n: int,
           points: np.ndarray, weights: np.ndarray, cap: int = 6) -> bool:
    """Put ``n`` checkers of ``side`` on ``points`` (indices, that side's view) drawn by
    ``weights``, never on a point the other side holds, at most ``cap`` on a point.
    False if they do not fit."""
    free = np.array([board[1 - side, 23 - p] == 0 for p in points])
    pts, w = points[free], weights[free].astype(np.float64)
    for _ in range(n):
        room = board[side, pts] < cap
        if not room.any():
            return False
        p = w * room
        board[side, rng.choice(pts, p=p / p.sum())] += 1
    return True


def _anchors(rng: np.random.Generator, board: np.ndarray, side: int, points: np.ndarray,
             k: int, sizes: tuple[int, ...] = (2, 2, 2, 3)) -> int:
    """Make ``k`` points of ``points`` (``side``'s view) with 2-3 checkers; the number used."""
    used = 0
    for p in rng.choice(points, size=k, replace=False):
        c = int(rng.choice(sizes))
        board[side, p] += c
        used += c
    return used


def _home_weights() -> np.ndarray:
    """Weights of points 1-13 (indices 0..12) for checkers of a side playing normally."""
    return np.array([1, 2, 3, 4, 5, 6, 2, 5, 1, 1, 1, 1, 3], np.float64)


def build_start(source: str, rng: np.random.Generator) -> np.ndarray | None:
    """A random position (uint8, (2, 25), side on roll in row 1) with the structure of
    ``source`` (a name from :data:`SOURCES` other than ``self-play`` and ``noisy``), or
    None when the draw does not make a legal position with contact (draw again).

    The side with the structure (row 0 or row 1, at random) is called X; its opponent Y.
    """
    b = np.zeros((2, 25), np.int64)
    x = int(rng.integers(2))
    y = 1 - x
    home = np.arange(13)
    if source == "back game":
        # X holds 2-3 points in Y's home board (X's 19- to 24-points) and trails
        used = _anchors(rng, b, x, np.arange(18, 24), int(rng.choice([2, 2, 3])))
        ok = _place(rng, b, x, 15 - used, home, _home_weights() ** 0.5)
        # Y is well ahead: most checkers home, some borne off late in the game
        off = int(rng.choice([0, 0, 0, 1, 2, 3, 4]))
        ok = ok and _place(rng, b, y, 15 - off, np.arange(12),
                           np.array([5, 5, 5, 5, 5, 5, 2, 2, 1, 1, 1, 1], np.float64))
    elif source == "holding":
        # X holds one point on Y's 4- to 7-point (X's 18- to 21-points), maybe another back
        used = _anchors(rng, b, x, np.arange(17, 21), 1)
        if rng.random() < 0.3:
            used += _anchors(rng, b, x, np.arange(21, 24), 1, sizes=(1, 2))
        ok = _place(rng, b, x, 15 - used, home, _home_weights())
        ok = ok and _place(rng, b, y, 15, np.arange(16),
                           np.r_[_home_weights(), [1, 1, 1]])
    elif source == "prime":
        # each side has a prime of 4-6 points with 1-3 of the other's checkers behind it
        ok = True
        for s in (0, 1):
            length = int(rng.integers(4, 7))
            start = int(rng.integers(1, 11 - length + 1 + 3))
            pts = np.arange(start, start + length)
            if (b[1 - s, 23 - pts] > 0).any():
                return None
            b[s, pts] += 2
        for s in (0, 1):
            # the other side's prime, seen from s, lies on s's points 23 - pts: s's
            # trapped checkers sit beyond it (higher points), on points nobody holds
            their = np.nonzero(b[1 - s, :24])[0]
            beyond = 23 - their.min() + 1 if len(their) else 24
            trapped = np.arange(min(beyond, 23), 24)
            n_trapped = int(rng.integers(1, 4))
            ok = ok and _place(rng, b, s, n_trapped, trapped, np.ones(len(trapped)), cap=3)
        for s in (0, 1):
            ok = ok and _place(rng, b, s, 15 - int(b[s].sum()), home, _home_weights())
    elif source == "ace-point":
        # X holds Y's 1-point (X's 24-point), Y far ahead and bearing in or off
        b[x, 23] = int(rng.choice([2, 2, 3, 4]))
        extra = int(rng.choice([0, 0, 1, 2]))
        ok = _place(rng, b, x, extra, np.arange(18, 23), np.ones(5), cap=2)
        ok = ok and _place(rng, b, x, 15 - int(b[x].sum()), home, _home_weights())
        off = int(rng.choice([0, 1, 2, 3, 5, 7, 9]))
        ok = ok and _place(rng, b, y, 15 - off, np.arange(10),
                           np.array([4, 5, 5, 5, 5, 4, 2, 1, 1, 1], np.float64))
    elif source == "closed out":
        # X has 1-2 checkers on the bar against a board of 4-6 points, Y bearing in or off
        n_closed = int(rng.integers(4, 7))
        pts = rng.choice(6, size=n_closed, replace=False)
        b[y, pts] += 2
        b[x, 24] = int(rng.integers(1, 3))
        off = int(rng.choice([0, 0, 1, 2, 4]))
        ok = _place(rng, b, y, 15 - off - int(b[y].sum()), np.arange(11),
                    np.array([3, 3, 3, 3, 3, 3, 2, 2, 2, 1, 1], np.float64))
        ok = ok and _place(rng, b, x, 15 - int(b[x].sum()), np.arange(18),
                           np.r_[_home_weights(), [1, 1, 1, 1, 1]])
    else:
        raise ValueError(f"no start is built for source {source!r}")
    if not ok or b.max() > 15:
        return None
    board = b.astype(np.uint8)
    try:
        validate_board(board)
    except ValueError:
        return None
    from bgengine.core.board import is_race
    if game_result(board) or is_race(board):
        return None
    return board


# ------------------------------------------------------------ the run

def _game_rng(seed: int, game: int) -> np.random.Generator:
    return np.random.default_rng([seed & (2**63 - 1), game, 0x5A4D])


def _alternative(model: Network | Evaluator, d, top: int,
                 rng: np.random.Generator) -> np.ndarray:
    """The position after one of the ``top`` best 0-ply plays of decision ``d``, drawn at
    random, opponent on roll (the decision's own position if that play ends the game)."""
    _, outputs = play_outputs(model, d.board, d.d1, d.d2)
    best = np.argsort(-equity_of(np.asarray(outputs, np.float64)), kind="stable")[:top]
    after = d.afterstates[int(rng.choice(best))]
    if game_result(after):
        return d.board
    return np.ascontiguousarray(after[::-1])


def sample_positions(model: Network | Evaluator, config: SamplingConfig, *,
                     first_game: int = 0, seen: set[bytes] | None = None,
                     progress: Callable[[int, int], None] | None = None) -> SampledPositions:
    """Play games ``range(first_game, first_game + config.games)`` of the run ``config``
    with ``model`` at 0-ply and keep positions as the module docstring says.

    ``seen``: keys already held (e.g. by earlier pools), not kept again; updated with
    the new ones.  ``progress(games done, games)`` after each game.
    """
    evaluator = as_evaluator(model)
    player = Player("net", model)
    shares = config.shares()
    seen = set() if seen is None else seen
    keys: list[bytes] = []
    sources: list[int] = []
    games: list[int] = []
    for done, game in enumerate(range(first_game, first_game + config.games), 1):
        rng = _game_rng(config.seed, game)
        source = int(rng.choice(len(SOURCES), p=shares))
        name = SOURCES[source]
        start = None
        if name not in ("self-play", "noisy"):
            for _ in range(100):
                start = build_start(name, rng)
                if start is not None:
                    break
            if start is None:       # pragma: no cover - the builders succeed far more often
                raise RuntimeError(f"could not build a {name} start")
        epsilon = config.epsilon if name == "noisy" else 0.0
        loop = game_decisions(Dice(config.seed, stream=game), start=start)
        k = None
        try:
            while True:
                d = loop.send(k)
                if rng.random() < config.keep:
                    board = d.board
                    if config.alternatives and rng.random() < config.alternatives \
                            and len(d.afterstates) > 1:
                        board = _alternative(model, d, config.top, rng)
                    key = position_key(board)
                    if key not in seen and \
                            int(evaluator.classify(board)) != _EXACT:
                        seen.add(key)
                        keys.append(key)
                        sources.append(source)
                        games.append(game)
                if len(d.afterstates) == 1:
                    k = 0
                elif epsilon and rng.random() < epsilon:
                    k = int(rng.integers(len(d.afterstates)))
                else:
                    k = player.choose(d.board, d.d1, d.d2)
        except StopIteration:
            pass
        if progress is not None:
            progress(done, config.games)
    key_arr = (np.frombuffer(b"".join(keys), np.uint8).reshape(-1, 10) if keys
               else np.zeros((0, 10), np.uint8))
    log.info("sampled %d positions from %d games", len(keys), config.games)
    return SampledPositions(key_arr, np.array(sources, np.uint8), np.array(games, np.int64))


def build_pool(path: str | os.PathLike[str], model: Network | Evaluator,
               config: SamplingConfig, *, player: str, evaluator_sha256: str,
               exclude: Sequence[str | os.PathLike[str]] = (), per_class: int | None = None,
               first_game: int = 0, progress: Callable[[int, int], None] | None = None
               ) -> dict[str, int]:
    """Sample positions by :func:`sample_positions` and write them as the pool file
    ``path`` (shuffled, so that a store's shards mix games; at most ``per_class`` of each
    class, e.g. for a benchmark set); positions held by the pools or stores ``exclude`` are
    not kept.  ``player`` and ``evaluator_sha256`` name the sampling evaluator in the
    pool's metadata.  Returns the pool's counts by class."""
    from bgengine.labelling.classes import class_counts, classify_positions
    from bgengine.labelling.store import LabelStore, keys_to_boards, load_pool, save_pool

    seen: set[bytes] = set()
    for other in exclude:
        p = Path(other)
        keys = LabelStore(p).load(verify=False).keys if p.is_dir() else load_pool(p).keys
        seen.update(bytes(k) for k in keys)
    sampled = sample_positions(model, config, first_game=first_game, seen=seen,
                               progress=progress)
    classes = classify_positions(keys_to_boards(sampled.keys))
    order = np.random.default_rng(config.seed).permutation(len(classes))
    if per_class is not None:
        taken = np.zeros(int(classes.max(initial=0)) + 1, np.int64)
        keep = []
        for i in order:
            if taken[classes[i]] < per_class:
                taken[classes[i]] += 1
                keep.append(i)
        order = np.array(keep, np.int64)
    meta = {"player": player, "evaluator_sha256": evaluator_sha256,
            "games": config.games, "first_game": first_game, "seed": config.seed,
            "keep": config.keep, "epsilon": config.epsilon, "mix": config.mix,
            "alternatives": config.alternatives, "top": config.top,
            "per_class": per_class, "excluded": [str(p) for p in exclude]}
    save_pool(path, sampled.keys[order], classes[order], sampled.sources[order], meta)
    return class_counts(classes[order])
