"""Values of many positions by an evaluator's search, cached on disk.

A fit that keeps a teacher's ranking of plays (:class:`bgengine.labelling.fit.FitConfig`
``keep_plies``) values hundreds of thousands of positions at 2-ply: about 4 ms each on
one core, hours in all.  :func:`search_outputs` runs that search on every core given
(one :class:`bgengine.core.search.Searcher` a thread; the search releases the GIL) in chunks
of :data:`CHUNK` positions, and, given a cache folder, writes each chunk as it is done:
a killed or repeated run redoes at most the chunks in flight.  A chunk's file is named
by a hash of the evaluator's weights, the lookahead and the chunk's position keys, so a
different evaluator, lookahead or set of positions never reads another's values.
"""

from __future__ import annotations

import hashlib
import io
import logging
import threading
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from bgengine.core.evaluator import Evaluator
from bgengine.core.fileio import atomic_write, read_regular
from bgengine.labelling.store import boards_to_keys

__all__ = ["CHUNK", "default_search_cache", "evaluator_digest", "search_outputs"]

log = logging.getLogger(__name__)

#: Positions a cached chunk holds.
CHUNK = 2048


def default_search_cache() -> Path:
    """``$XDG_CACHE_HOME/bgengine/search`` (``~/.cache/bgengine/search`` without it)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return Path(base) / "bgengine" / "search"


def evaluator_digest(evaluator: Evaluator) -> str:
    """SHA-256 (hex) of the evaluator's network weights and shapes, in name order: equal
    for evaluators that value every position alike through their networks."""
    h = hashlib.sha256()
    for name, net in sorted(evaluator.networks.items()):
        h.update(f"{name}:{net.encoder}:{net.sizes}".encode())
        h.update(np.ascontiguousarray(net.params, np.float32).tobytes())
    return h.hexdigest()


def _chunk_name(digest: str, plies: int, keys: np.ndarray) -> str:
    h = hashlib.sha256(f"{digest}:{plies}:".encode())
    h.update(np.ascontiguousarray(keys).tobytes())
    return f"search-{plies}ply-{h.hexdigest()[:24]}.npy"


def _load_chunk(path: Path, rows: int, k: int) -> np.ndarray | None:
    try:
        data = read_regular(path, "search cache chunk")
    except FileNotFoundError:
        return None
    try:
        out = np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError):
        log.warning("%s: unreadable, computed again", path)
        return None
    if out.shape != (rows, k) or out.dtype != np.float32 or not np.isfinite(out).all():
        log.warning("%s: wrong shape or values, computed again", path)
        return None
    return out


def search_outputs(evaluator: Evaluator, boards: np.ndarray, plies: int, *,
                   n_threads: int = 1, cache: str | os.PathLike[str] | None = None,
                   progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """Outputs (float32, (N, K)) of ``boards`` (uint8, (N, 2, 25), the side on roll before
    it rolls; none finished) at ``plies`` of lookahead, as
    :meth:`bgengine.core.search.Searcher.evaluate` gives them; 0 plies is the evaluator's own
    batch evaluation.  ``cache``: a folder for the chunks (made if missing);
    ``progress(done, total)`` is called as chunks finish (positions)."""
    from bgengine.core.search import Searcher

    boards = np.ascontiguousarray(boards, np.uint8)
    if not len(boards):
        return np.zeros((0, evaluator.n_outputs), np.float32)
    if plies == 0:
        return np.asarray(evaluator.evaluate(boards), np.float32).reshape(len(boards), -1)
    if not isinstance(n_threads, int) or isinstance(n_threads, bool) or n_threads < 1:
        raise ValueError(f"n_threads must be a positive integer, got {n_threads!r}")
    k = evaluator.n_outputs
    out = np.zeros((len(boards), k), np.float32)
    folder = Path(cache) if cache is not None else None
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    digest = evaluator_digest(evaluator) if folder is not None else ""
    keys = boards_to_keys(boards) if folder is not None else None
    todo = []
    done = 0
    for start in range(0, len(boards), CHUNK):
        stop = min(start + CHUNK, len(boards))
        path = folder / _chunk_name(digest, plies, keys[start:stop]) if folder else None
        have = _load_chunk(path, stop - start, k) if path is not None else None
        if have is not None:
            out[start:stop] = have
            done += stop - start
        else:
            todo.append((start, stop, path))
    if progress:
        progress(done, len(boards))
    if not todo:
        return out
    log.info("searching %d positions at %d-ply on %d threads (%d of %d chunks cached)",
             sum(b - a for a, b, _ in todo), plies, n_threads,
             -(-len(boards) // CHUNK) - len(todo), -(-len(boards) // CHUNK))
    n_lanes = min(n_threads, len(todo))
    told = threading.Lock()

    def lane_run(lane: int) -> None:
        # one searcher a thread, every n_lanes-th chunk: a searcher is never shared
        nonlocal done
        searcher = Searcher(evaluator)
        for start, stop, path in todo[lane::n_lanes]:
            block = np.empty((stop - start, k), np.float32)
            for j in range(start, stop):
                block[j - start] = searcher.evaluate(boards[j], plies)
            out[start:stop] = block
            if path is not None:
                atomic_write(path, lambda f: np.save(f, block))
            with told:
                before, done = done, done + stop - start
                if progress:
                    progress(done, len(boards))
                if done * 10 // len(boards) > before * 10 // len(boards):
                    log.info("searched %d of %d positions", done, len(boards))

    with ThreadPoolExecutor(max_workers=n_lanes) as pool:
        for f in [pool.submit(lane_run, lane) for lane in range(n_lanes)]:
            f.result()
    return out
