"""How fast this machine runs the engine: the figures ``bgengine bench`` prints.

Three measurements of an evaluator (by default the shipped one), each timed with
:func:`time.perf_counter` around the compiled call alone:

* static evaluations of afterstates per second (``Evaluator.evaluate`` on the afterstates of
  positions met in self-play, one thread);
* rollout trials per second of the opening position (0-ply plays, full games, no variance
  reduction; the stratified first two rolls) on one thread and on ``threads``;
* positions labelled per core-hour as ``bgengine data label`` labels them by default (648
  full 0-ply trials a position, :class:`bgengine.labelling.store.LabelSettings`), on one
  thread, over positions met in self-play.

The positions come from a few seeded self-play games, so runs on two machines measure the
same work.
"""

from __future__ import annotations

import os
import platform
import time
from dataclasses import asdict, dataclass

import numpy as np

from bgengine.core.evaluator import Evaluator
from bgengine.core.movegen import legal_afterstates_batch
from bgengine.core.network import Network, available_kernels, kernel
from bgengine.core.search import rollout

__all__ = ["SpeedReport", "cpu_model", "measure_speed"]


def cpu_model() -> str:
    """The CPU's name as the OS gives it, with its family and model numbers where known
    (``/proc/cpuinfo`` on Linux; ``platform.processor()`` elsewhere)."""
    fields: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break                   # the first processor is enough
                key, _, value = line.partition(":")
                fields[key.strip()] = value.strip()
    except OSError:
        pass
    name = fields.get("model name") or platform.processor() or platform.machine() or "unknown"
    if "cpu family" in fields and "model" in fields:
        name += f" (family {fields['cpu family']}, model {fields['model']})"
    return name


@dataclass(frozen=True)
class SpeedReport:
    """The figures of one :func:`measure_speed` run; rates in units per second, labelling in
    positions per core-hour; ``threads`` is the second rollout figure's thread count."""

    cpu: str
    kernel: str
    kernels: tuple[str, ...]
    evaluations_per_second: float
    rollout_trials_per_second: float
    rollout_trials_per_second_threads: float
    threads: int
    labelled_per_core_hour: float
    label_trials: int

    def as_dict(self) -> dict:
        return asdict(self)

    def lines(self) -> list[str]:
        """The report as ``bgengine bench`` prints it."""
        return [f"CPU: {self.cpu}",
                f"network kernel: {self.kernel} (this CPU runs {', '.join(self.kernels)})",
                f"static evaluations of afterstates: {self.evaluations_per_second:,.0f}/s "
                "(1 thread)",
                f"rollout trials of the opening: {self.rollout_trials_per_second:,.0f}/s "
                f"(1 thread), {self.rollout_trials_per_second_threads:,.0f}/s "
                f"({self.threads} threads)",
                f"positions labelled: {self.labelled_per_core_hour:,.0f} per core-hour "
                f"({self.label_trials} trials each, as data label)"]


def _positions(model: Network | Evaluator, games: int) -> np.ndarray:
    from bgengine.training.startpositions import play_positions

    boards = play_positions(model, games, seed=0)
    in_play = (boards.reshape(len(boards), -1).sum(axis=1) > 0)
    return boards[in_play]


def measure_speed(model: Network | Evaluator, *, threads: int | None = None,
                  trials: int = 2592, label_positions: int = 12,
                  games: int = 16) -> SpeedReport:
    """Measure ``model`` (see the module docstring): ``trials`` rollout trials a figure,
    ``label_positions`` positions labelled, afterstates of ``games`` self-play games'
    positions (three rolls each)."""
    from bgengine.labelling.labeller import label_boards
    from bgengine.labelling.store import LabelSettings, boards_to_keys
    from bgengine.position import STARTING_BOARD

    threads = threads or max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                             else (os.cpu_count() or 1))
    boards = _positions(model, games)
    rng = np.random.default_rng(0)
    dice = rng.integers(1, 7, size=(3 * len(boards), 2)).astype(np.uint8)
    after, _, _ = legal_afterstates_batch(np.repeat(boards, 3, axis=0), dice)
    swapped = np.ascontiguousarray(after[:, ::-1, :])
    swapped = swapped[(swapped[:, 0].sum(axis=1) > 0) & (swapped[:, 1].sum(axis=1) > 0)]
    model.evaluate(swapped[:1000])                      # warm-up
    t = time.perf_counter()
    model.evaluate(swapped)
    evals = len(swapped) / (time.perf_counter() - t)

    start = np.array(STARTING_BOARD)
    rollout(model, start, 324, seed=1)                  # warm-up
    rates = []
    for n in (1, threads):
        t = time.perf_counter()
        rollout(model, start, trials, seed=1, n_threads=n)
        rates.append(trials / (time.perf_counter() - t))

    settings = LabelSettings()
    pick = np.linspace(0, len(boards) - 1, label_positions).astype(int)
    keys = boards_to_keys(boards[pick])
    t = time.perf_counter()
    label_boards(model, keys, settings, n_threads=1)
    labelled = label_positions / (time.perf_counter() - t) * 3600
    return SpeedReport(cpu_model(), kernel(), tuple(available_kernels()), evals, rates[0],
                       rates[1], threads, labelled, settings.trials)
