"""Where games are played: this machine's cores, or a Ray cluster.

A *backend* plays game pairs (:func:`bgengine.core.agents.play_match` semantics:
pair ``i`` rolls dice stream ``first_pair + i`` of ``seed``, and its two games
swap the seats) and runs independent jobs (training runs of a sweep).  Game
results depend only on the seed and the pair index, so every backend gives
the same numbers for the same seeds, however the pairs are split.

* :class:`LocalBackend`: threads inside the compiled core (the default).
* :class:`RayBackend`: chunks of pairs as Ray tasks (``pip install
  'bgengine[distributed]'``).  ``RayBackend()`` starts a local Ray instance;
  ``RayBackend("auto")`` joins the cluster this machine belongs to (after
  ``ray start --head`` / ``ray start --address=HEAD:6379`` on each node);
  ``RayBackend("ray://HEAD:10001")`` connects through Ray Client.  bgengine
  must be importable on every node (install it there, or pass
  ``runtime_env={"pip": ["bgengine"]}``).  A task whose worker dies is rerun
  by Ray (``max_retries``); each chunk's result is taken once, from the run
  that finished, so no game is counted twice.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Callable, Sequence

import numpy as np

from bgengine.core.agents import Player, play_match

__all__ = ["Backend", "LocalBackend", "RayBackend", "make_backend"]

log = logging.getLogger(__name__)


class Backend:
    """Interface: ``play_pairs`` and ``map``."""

    name = "backend"

    def play_pairs(self, a: Player, b: Player, n_pairs: int, seed: int,
                   first_pair: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Points (int8, (n_pairs, 2), from ``a``'s side) and plays per game (int32)."""
        raise NotImplementedError

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list:
        """``[fn(x) for x in items]``, possibly in parallel; ``fn`` must be a
        module-level function (it may be pickled)."""
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class LocalBackend(Backend):
    """This machine: ``threads`` threads in the compiled core (default: all cores)."""

    name = "local"

    def __init__(self, threads: int | None = None) -> None:
        from bgengine.matches.run import default_threads

        self.threads = default_threads() if threads is None else int(threads)
        if self.threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")

    def play_pairs(self, a, b, n_pairs, seed, first_pair=0):
        return play_match(a, b, n_pairs, seed=seed, n_threads=self.threads, first_pair=first_pair)

    def map(self, fn, items):
        return [fn(x) for x in items]

    def __repr__(self) -> str:
        return f"LocalBackend(threads={self.threads})"


def _play_chunk(a: Player, b: Player, n_pairs: int, seed: int, first_pair: int, threads: int,
                fail_once: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """One Ray task.  ``fail_once``: a path; the first worker to find it absent
    creates it and dies (tests use it to check that lost work is rerun)."""
    if fail_once is not None:
        try:
            fd = os.open(fail_once, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            pass
        else:
            os.close(fd)
            os._exit(1)
    return play_match(a, b, n_pairs, seed=seed, n_threads=threads, first_pair=first_pair)


def _call(fn, item):
    return fn(item)


class RayBackend(Backend):
    """Game pairs and jobs as Ray tasks.

    Parameters
    ----------
    address : str, optional
        ``None``: start (or reuse) a local Ray instance; ``"auto"``: the
        running cluster; ``"ray://HOST:10001"``: Ray Client.
    chunk_pairs : int
        Game pairs per task (default 250: a few seconds of work).
    threads_per_task : int
        Threads each task uses inside the compiled core (and CPUs it asks Ray for).
    max_retries : int
        Times Ray reruns a task whose worker died.
    num_cpus : int, optional
        CPUs of a *local* instance (default: all).
    runtime_env : dict, optional
        Passed to ``ray.init`` (e.g. ``{"pip": ["bgengine"]}`` for a bare cluster).
    """

    name = "ray"

    def __init__(self, address: str | None = None, *, chunk_pairs: int = 250,
                 threads_per_task: int = 1, max_retries: int = 3, num_cpus: int | None = None,
                 runtime_env: dict | None = None, _fail_once: str | None = None) -> None:
        try:
            import ray
        except ImportError:
            raise ImportError("the Ray backend needs Ray: pip install 'bgengine[distributed]'") from None
        if chunk_pairs < 1 or threads_per_task < 1 or max_retries < 0:
            raise ValueError("chunk_pairs and threads_per_task must be >= 1, max_retries >= 0")
        self.ray = ray
        self._own = False
        if not ray.is_initialized():
            kw: dict = {"address": address, "include_dashboard": False, "logging_level": logging.WARNING,
                        "log_to_driver": False}
            if address is None and num_cpus is not None:
                kw["num_cpus"] = int(num_cpus)
            if runtime_env is not None:
                kw["runtime_env"] = runtime_env
            ray.init(**kw)
            self._own = True
        self.address = address
        self.chunk_pairs, self.threads = int(chunk_pairs), int(threads_per_task)
        self.max_retries = int(max_retries)
        self._fail_once = _fail_once
        self._play = ray.remote(num_cpus=self.threads, max_retries=self.max_retries)(_play_chunk)
        self._map = ray.remote(num_cpus=1, max_retries=self.max_retries)(_call)

    def play_pairs(self, a, b, n_pairs, seed, first_pair=0):
        if n_pairs <= 0:
            return np.zeros((0, 2), dtype=np.int8), np.zeros((0, 2), dtype=np.int32)
        ray = self.ray
        a_ref, b_ref = ray.put(a), ray.put(b)
        refs = []
        for start in range(0, n_pairs, self.chunk_pairs):
            k = min(self.chunk_pairs, n_pairs - start)
            refs.append(self._play.remote(a_ref, b_ref, k, seed, first_pair + start, self.threads,
                                          self._fail_once))
        parts = ray.get(refs)
        return (np.concatenate([p for p, _ in parts]).astype(np.int8, copy=False),
                np.concatenate([m for _, m in parts]).astype(np.int32, copy=False))

    def map(self, fn, items):
        ray = self.ray
        fn_ref = ray.put(fn)
        return ray.get([self._map.remote(fn_ref, x) for x in items])

    def close(self) -> None:
        if self._own and self.ray.is_initialized():
            self.ray.shutdown()
        self._own = False

    def __repr__(self) -> str:
        return f"RayBackend(address={self.address!r}, chunk_pairs={self.chunk_pairs})"


def make_backend(name: str = "local", *, threads: int | None = None, address: str | None = None,
                 **kw) -> Backend:
    """``"local"`` or ``"ray"`` (with ``address``); ``ValueError`` for anything else."""
    if name == "local":
        return LocalBackend(threads)
    if name == "ray":
        return RayBackend(address, threads_per_task=threads or 1, **kw)
    raise ValueError(f"unknown backend {name!r}: use 'local' or 'ray'")
