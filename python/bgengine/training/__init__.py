"""Training: runs by self-play and the steps of the training recipe.

- :mod:`~bgengine.training.trainer`: a training run (``train``) with checkpoints and exact resume
- :mod:`~bgengine.training.config`: ``TrainConfig`` and its schedules, in TOML
- :mod:`~bgengine.training.run_dir`: the layout of a run directory
- :mod:`~bgengine.training.threaded_td`, :mod:`~bgengine.training.optimizer`: self-play on
  several threads; Adam's state
- :mod:`~bgengine.training.learners`, :mod:`~bgengine.training.startpositions`: mutation
  hill-climbing and rollout targets; start positions from self-play
- :mod:`~bgengine.training.distillation`, :mod:`~bgengine.training.growth`,
  :mod:`~bgengine.training.outcomes`: the recipe's later steps (play-ranking distillation,
  wider or deeper networks, outputs calibrated to game results)
- :mod:`~bgengine.training.sweep`, :mod:`~bgengine.training.plot`: parameter sweeps;
  learning curves

The package re-exports the names of :mod:`~bgengine.training.trainer`
(``from bgengine.training import TrainConfig, train``).
"""

from __future__ import annotations

from bgengine._lazy import lazy_exports

#: public name -> the module that defines it (imported on first use)
_EXPORTS = {
    "TrainConfig": "bgengine.training.trainer",
    "TrainProgress": "bgengine.training.trainer",
    "train": "bgengine.training.trainer",
    "alpha_at": "bgengine.training.trainer",
    "read_log": "bgengine.training.trainer",
    "METHODS": "bgengine.training.trainer",
    "STEP_LIST": "bgengine.training.trainer",
}

__all__ = list(_EXPORTS)

__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)
