"""Rollout labels of a pool's positions, written shard by shard into a store.

Each position is rolled out cubeless with the compiled rollout engine
(:func:`bgengine.core.search.rollout`) from the side on roll before it rolls, with the store's
:class:`~bgengine.labelling.store.LabelSettings` and the position's own seed
(:func:`~bgengine.labelling.store.position_seed`), so its label is the same whatever
shard, thread count or machine made it.  Shards already in the store are skipped: a run
stopped at any point (Ctrl-C, kill -9, a new machine) resumes where it was, losing at
most the shard in flight.  With a Ray backend the shards are labelled on the cluster's
workers and written here as they arrive.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bgengine.core.evaluator import Evaluator
from bgengine.labelling.store import LabelSettings, LabelStore, Labels, Pool, keys_to_boards, \
    position_seed
from bgengine.core.network import Network, equity_of
from bgengine.core.search import rollout

__all__ = ["label_boards", "label_pool", "LabelRun"]

log = logging.getLogger(__name__)


def label_boards(model: Network | Evaluator, keys: np.ndarray, settings: LabelSettings,
                 n_threads: int = 1,
                 progress: Callable[[int, int], None] | None = None) -> Labels:
    """Roll out the positions with gnubg keys ``keys`` (uint8, (n, 10)) with ``settings``;
    ``progress(done, n)`` after each.  The classes are filled in by the caller (zeros)."""
    from bgengine.labelling.classes import classify_positions

    boards = keys_to_boards(keys)
    n = len(boards)
    outputs = np.zeros((n, 5), np.float32)
    errors = np.zeros((n, 5), np.float32)
    eq_err = np.zeros(n, np.float32)
    for i in range(n):
        r = rollout(model, boards[i], settings.trials, seed=position_seed(keys[i], settings.seed),
                    truncate=settings.truncate, variance_reduction=settings.variance_reduction,
                    plies=settings.plies, n_threads=n_threads,
                    truncate_bearoff=settings.truncate_bearoff)
        outputs[i] = r["outputs"]
        errors[i] = r["outputs_stderr"]
        eq_err[i] = r["stderr"]
        if progress is not None:
            progress(i + 1, n)
    return Labels(np.ascontiguousarray(keys, np.uint8), classify_positions(boards), outputs,
                  errors, eq_err)


@dataclass
class LabelRun:
    """What :func:`label_pool` did: shards labelled now, shards that were there already,
    positions labelled now, and seconds spent."""

    shards_done: int
    shards_skipped: int
    positions: int
    seconds: float

    @property
    def positions_per_hour(self) -> float:
        return self.positions / self.seconds * 3600 if self.seconds > 0 else 0.0


def _label_shard(job: tuple) -> tuple[int, Labels]:
    """A worker's job (picklable for Ray): ``(index, model file, keys, settings, threads)``."""
    from bgengine.matches.players import load_network

    index, model_path, keys, settings, threads = job
    return index, label_boards(load_network(model_path), keys, settings, threads)


def label_pool(store: LabelStore, pool: Pool, model: Network | Evaluator, *,
               n_threads: int = 1, max_shards: int | None = None, backend=None,
               model_path: str | Path | None = None, batch_shards: int = 16,
               progress: Callable[[int, int], None] | None = None) -> LabelRun:
    """Label the shards of ``pool`` that ``store`` lacks, in order, with ``model`` (the
    store's evaluator: the caller checks its hash); at most ``max_shards`` of them.

    ``progress(positions done, positions)`` counts the pool's positions, those labelled
    before included.  ``backend`` (a Ray :class:`bgengine.matches.distributed.Backend`, with
    ``model_path`` the evaluator's file for the workers to load) labels the shards on
    its workers, ``n_threads`` threads each, ``batch_shards`` shards at a time (each batch
    written before the next is sent).
    """
    settings = store.settings
    size = settings.shard_size
    n_shards = -(-len(pool) // size)
    done = store.done(pool)
    if store.adopt(pool):
        done = store.done(pool)
    todo = [i for i in range(n_shards) if i not in done]
    if max_shards is not None:
        todo = todo[:max_shards]
    labelled = sum(min(size, len(pool) - i * size) for i in done if i < n_shards)
    t0 = time.monotonic()
    positions = 0
    if progress is not None:
        progress(labelled, len(pool))

    def finish(index: int, labels: Labels) -> None:
        nonlocal labelled, positions
        store.add_shard(pool, index, labels)
        labelled += len(labels)
        positions += len(labels)
        rate = positions / max(time.monotonic() - t0, 1e-9) * 3600
        log.info("shard %d of %s: %d positions (mean equity %+.3f, mean stderr %.4f); "
                 "%.0f positions/hour", index, pool.path, len(labels),
                 float(np.mean(equity_of(labels.outputs))),
                 float(np.mean(labels.equity_stderr)), rate)
        if progress is not None:
            progress(labelled, len(pool))

    if backend is not None and todo:
        if model_path is None:
            raise ValueError("a backend's workers need the evaluator's file (model_path)")
        jobs = [(i, str(model_path), pool.keys[i * size:(i + 1) * size], settings, n_threads)
                for i in todo]
        # a few shards a worker at a time, written as each batch returns
        for lo in range(0, len(jobs), batch_shards):
            for index, labels in backend.map(_label_shard, jobs[lo:lo + batch_shards]):
                finish(index, labels)
    else:
        for index in todo:
            base = labelled

            def inner(k: int, n: int) -> None:
                if progress is not None:
                    progress(base + k, len(pool))

            finish(index, label_boards(model, pool.keys[index * size:(index + 1) * size],
                                       settings, n_threads, inner))
    return LabelRun(len(todo), len(done), positions, time.monotonic() - t0)
