"""Exact one-sided race distributions as training data, and the network fitted to them.

A race's win and gammon chances follow from each side's distribution of the rolls it needs
to bear off all its checkers and its first (:mod:`bgengine.core.racegammon`), which the
recursion there computes exactly but slowly once a side has five or more checkers outside
its home board.  :func:`solve_sides` asks the recursion for sides drawn from races and keeps
every position it solved on the way (one query solves thousands of positions, so the data
costs a fraction of a second a position); :func:`fit_race_distributions` fits a
:class:`~bgengine.core.racedist.RaceDistributionNetwork` to them (cross-entropy on both
distributions, Adam, numpy, early stop on a held-out share); :func:`with_race_distributions`
puts it in an evaluator, whose race values then come from the two sides' distributions
wherever each side is within the exact recursion's reach or the network's.

The data file (``.npz``): ``rows`` uint8 (n, 25) each side in its own numbering, ``all``
float32 (n, 32) P(all off in exactly k rolls), ``first`` float32 (n, 32) P(first off ...)
(NaN for a side with fewer than 15 checkers), ``queried`` the number of sides asked for
(where a stopped run resumes), and the settings.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from bgengine.core.evaluator import Evaluator, as_evaluator
from bgengine.core.fileio import atomic_write
from bgengine.core.racedist import INPUTS, ROLLS, RaceDistributionNetwork, encode_sides
from bgengine.core.racegammon import RaceGammonTables

__all__ = ["SolveConfig", "race_sides", "race_sides_of_pools", "solve_sides", "load_solved", "fit_race_distributions",
           "with_race_distributions"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SolveConfig:
    """Which sides to solve: ``sides`` drawn (by ``seed``) from those with ``min_outside``
    to ``max_outside`` checkers outside their home boards; of the other positions the
    recursion solves on the way, the share ``keep`` is kept."""
    min_outside: int = 2
    max_outside: int = 6
    sides: int = 1000
    keep: float = 0.03
    seed: int = 0
    #: the cache is harvested and emptied past this many positions (memory: ~170 B each)
    harvest_every: int = 3_000_000

    def __post_init__(self) -> None:
        if not 0 <= self.min_outside <= self.max_outside <= 15:
            raise ValueError("need 0 <= min_outside <= max_outside <= 15, got "
                             f"{self.min_outside} and {self.max_outside}")
        if not 0 <= self.keep <= 1:
            raise ValueError(f"keep must be a share in [0, 1], got {self.keep}")
        if self.sides < 1 or self.harvest_every < 1:
            raise ValueError("sides and harvest_every must be at least 1")


def race_sides(boards: np.ndarray) -> np.ndarray:
    """The distinct sides (uint8 (n, 25), own numbering) of race positions ``boards``
    (m, 2, 25)."""
    return np.unique(np.asarray(boards, np.uint8).reshape(-1, 25), axis=0)


def race_sides_of_pools(paths: Sequence[str | os.PathLike[str]]) -> np.ndarray:
    """The distinct sides of the race positions of pool files ``paths``."""
    from bgengine.labelling.classes import RACE, classify_positions
    from bgengine.labelling.store import keys_to_boards, load_pool

    boards = np.concatenate([keys_to_boards(load_pool(p).keys) for p in paths])
    return race_sides(boards[classify_positions(boards) == RACE])


def _empty() -> dict:
    return {"rows": [], "all": [], "first": []}


def load_solved(paths: Sequence[str | os.PathLike[str]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct sides of data files and their two distributions (the first file's
    where a side is in several)."""
    parts = [np.load(p) for p in paths]
    rows = np.concatenate([p["rows"] for p in parts])
    all_off = np.concatenate([p["all"] for p in parts])
    first = np.concatenate([p["first"] for p in parts])
    rows, idx = np.unique(rows, axis=0, return_index=True)
    return rows, all_off[idx], first[idx]


def solve_sides(path: str | os.PathLike[str], sides: np.ndarray, config: SolveConfig,
                progress: Callable[[int, int], None] | None = None) -> int:
    """Solve ``config.sides`` of ``sides`` exactly and write the data file ``path``
    (rewritten at every harvest; a run stopped and started again with the same sides and
    config goes on from the last one).  Returns the number of rows written."""
    out = sides[:, 6:25].sum(1)
    g = np.random.default_rng(config.seed)
    pick = sides[(out >= config.min_outside) & (out <= config.max_outside) & (sides[:, 24] == 0)]
    pick = pick[g.permutation(len(pick))[: config.sides]]
    kept, start = _empty(), 0
    path = Path(path)
    if path.exists():
        with np.load(path) as d:
            settings = json.loads(str(d["settings"]))
            if settings != asdict(config):
                raise ValueError(f"{path} was made with other settings: {settings}")
            kept = {k: list(d[k]) for k in kept}
            start = int(d["queried"])
        log.info("%s: %d sides solved already, %d rows", path, start, len(kept["rows"]))
    harvest_rng = np.random.default_rng([config.seed, start])
    tables = RaceGammonTables(max_outside=15, state_budget=1 << 40, max_entries=1 << 23,
                              shards=1)

    def harvest(queried: int) -> None:
        # every solved position (both modes), the share ``keep`` of them, then the file
        ra, da = tables.solved("all")
        rf, df = tables.solved("first")
        first = {r.tobytes(): d for r, d in zip(rf, df)}
        none = np.full(ROLLS, np.nan, np.float32)
        take = harvest_rng.random(len(ra)) < config.keep
        for r, d in zip(ra[take], da[take]):
            kept["rows"].append(r)
            kept["all"].append(d)
            kept["first"].append(first.get(r.tobytes(), none))
        tables.clear()
        rows = np.array(kept["rows"], np.uint8).reshape(-1, 25)
        dists = {k: np.array(kept[k], np.float32).reshape(-1, ROLLS) for k in ("all", "first")}
        atomic_write(path, lambda f: np.savez_compressed(
            f, rows=rows, **dists, queried=queried, settings=json.dumps(asdict(config))))

    t0 = time.time()
    for i in range(start, len(pick)):
        r = pick[i]
        a = tables.bear_off_distribution(r)
        f = tables.first_off_distribution(r) if r.sum() == 15 else None
        kept["rows"].append(r.astype(np.uint8))
        kept["all"].append(a.astype(np.float32))
        kept["first"].append(np.full(ROLLS, np.nan, np.float32) if f is None
                             else f.astype(np.float32))
        if tables.stats["cached"] > config.harvest_every or i + 1 == len(pick):
            harvest(i + 1)
            log.info("%d of %d sides solved, %d rows (%.0f s)", i + 1, len(pick),
                     len(kept["rows"]), time.time() - t0)
        if progress is not None:
            progress(i + 1, len(pick))
    return len(kept["rows"])


# ------------------------------------------------------------------ fitting

def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


def _mean_roll_errors(w: dict, x: np.ndarray, all_off: np.ndarray, first: np.ndarray,
                      has_first: np.ndarray) -> tuple[float, float]:
    """Mean |error of the expected rolls| of both heads."""
    h = 1 / (1 + np.exp(-(x @ w["w1"] + w["b1"])))
    z = h @ w["w2"] + w["b2"]
    rolls = np.arange(ROLLS, dtype=np.float64)
    e_all = np.abs((_softmax(z[:, :ROLLS]) - all_off) @ rolls).mean()
    e_first = np.abs(((_softmax(z[:, ROLLS:]) - first) @ rolls)[has_first]).mean() \
        if has_first.any() else 0.0
    return float(e_all), float(e_first)


def fit_race_distributions(rows: np.ndarray, all_off: np.ndarray, first: np.ndarray, *,
                           hidden: int = 256, max_outside: int = 6, epochs: int = 100,
                           batch: int = 512, lr: float = 2e-3, patience: int = 6,
                           held_out: float = 0.05, seed: int = 0,
                           start: RaceDistributionNetwork | None = None,
                           progress: Callable[[int, float, float], None] | None = None,
                           ) -> tuple[RaceDistributionNetwork, list[tuple[float, float]]]:
    """Fit a network to sides ``rows`` (n, 25) and their exact distributions ``all_off``
    and ``first`` (n, 32; ``first`` NaN for sides with fewer than 15 checkers): Adam on
    the cross-entropy of both softmax heads, a held-out share (by ``seed``) for early
    stopping on the sum of the two heads' mean absolute errors of the expected rolls.  Starts from
    ``start`` or from random weights (``hidden`` units).  Returns the best epoch's network
    and the held-out errors (all-off, first-off) of every epoch."""
    g = np.random.default_rng(seed)
    n = len(rows)
    perm = g.permutation(n)
    n_ho = max(1, int(n * held_out))
    ho, tr = perm[:n_ho], perm[n_ho:]
    x = encode_sides(rows)
    has_first = ~np.isnan(first[:, 0])
    first_t = np.where(has_first[:, None], first, 0).astype(np.float32)
    all_t = np.asarray(all_off, np.float32)
    if start is not None:
        w = {k: np.array(v, np.float32) for k, v in start.arrays().items()}
    else:
        w = {"w1": (g.standard_normal((INPUTS, hidden)) / np.sqrt(INPUTS)).astype(np.float32),
             "b1": np.zeros(hidden, np.float32),
             "w2": (g.standard_normal((hidden, 2 * ROLLS)) / np.sqrt(hidden)).astype(np.float32),
             "b2": np.zeros(2 * ROLLS, np.float32)}
    m = {k: np.zeros_like(v) for k, v in w.items()}
    v2 = {k: np.zeros_like(v) for k, v in w.items()}
    step, best, best_w, bad, history = 0, np.inf, dict(w), 0, []
    for epoch in range(epochs):
        g.shuffle(tr)
        for s in range(0, len(tr), batch):
            i = tr[s: s + batch]
            h = 1 / (1 + np.exp(-(x[i] @ w["w1"] + w["b1"])))
            z = h @ w["w2"] + w["b2"]
            dz = np.empty_like(z)
            dz[:, :ROLLS] = _softmax(z[:, :ROLLS]) - all_t[i]
            dz[:, ROLLS:] = (_softmax(z[:, ROLLS:]) - first_t[i]) * has_first[i, None]
            dz /= len(i)
            dh = (dz @ w["w2"].T) * h * (1 - h)
            grads = {"w1": x[i].T @ dh, "b1": dh.sum(0), "w2": h.T @ dz, "b2": dz.sum(0)}
            step += 1
            for k in w:
                m[k] = 0.9 * m[k] + 0.1 * grads[k]
                v2[k] = 0.999 * v2[k] + 0.001 * grads[k] ** 2
                w[k] = w[k] - lr * (m[k] / (1 - 0.9 ** step)) / (
                    np.sqrt(v2[k] / (1 - 0.999 ** step)) + 1e-8)
        e_all, e_first = _mean_roll_errors(w, x[ho], all_t[ho], first_t[ho], has_first[ho])
        history.append((e_all, e_first))
        log.info("epoch %d: held-out mean |expected rolls error| all-off %.4f, first-off %.4f",
                 epoch + 1, e_all, e_first)
        if progress is not None:
            progress(epoch + 1, e_all, e_first)
        if e_all + e_first < best - 1e-5:
            best, best_w, bad = e_all + e_first, {k: a.copy() for k, a in w.items()}, 0
        else:
            bad += 1
            if bad >= patience:
                break
    return RaceDistributionNetwork(**best_w, max_outside=max_outside), history


def with_race_distributions(model, network: RaceDistributionNetwork,
                            exact_outside: int | None = None) -> Evaluator:
    """The evaluator ``model`` (its networks shared) whose race values come from the two
    sides' distributions: exact for a side with at most ``exact_outside`` checkers outside
    (default: the evaluator's present setting, else 1), ``network``'s up to its
    ``max_outside``."""
    ev = as_evaluator(model)
    if exact_outside is None:
        exact_outside = 1 if ev.race_gammons is None else ev.race_gammons.max_outside
    return ev.with_race_gammons(RaceGammonTables(max_outside=exact_outside, network=network))
