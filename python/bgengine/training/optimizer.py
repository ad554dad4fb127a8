"""The state of the Adam optimizer for batch TD(0) (``bgengine.core.td.train_games(adam=...)``):
its hyper-parameters, first and second moment estimates and step count, kept between
calls and in a run's checkpoint so that a run resumes exactly."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bgengine.core.evaluator import Evaluator, as_evaluator
from bgengine.core.network import Network

__all__ = ["AdamState", "trained_params"]


def trained_params(model: Network | Evaluator) -> list[np.ndarray]:
    """The ``params`` arrays a model trains (float32, flat): the contact network's, then the
    race network's if it has its own."""
    nets = as_evaluator(model).networks
    if nets["race"] is nets["contact"]:
        return [nets["contact"].params]
    return [nets["contact"].params, nets["race"].params]


@dataclass
class AdamState:
    """Adam (Kingma and Ba, 2015) for one model: ``m`` and ``v`` hold one float32 array per
    trained network (shaped like :func:`trained_params`), ``step`` the steps taken.

    The compiled learner updates ``m`` and ``v`` in place and advances ``step``; the
    learning rate is the run's ``alpha`` of each chunk."""

    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8
    m: list[np.ndarray] = field(default_factory=list)
    v: list[np.ndarray] = field(default_factory=list)
    step: int = 0

    @classmethod
    def zeros(cls, model: Network | Evaluator, beta1: float = 0.9, beta2: float = 0.999,
              eps: float = 1e-8) -> "AdamState":
        """A fresh state (zero moments, no step taken) for ``model``."""
        shapes = [p.shape for p in trained_params(model)]
        return cls(beta1, beta2, eps, [np.zeros(s, np.float32) for s in shapes],
                   [np.zeros(s, np.float32) for s in shapes], 0)
