"""Engines for tests: one with fixed probabilities, one with a small untrained network."""

from __future__ import annotations

import numpy as np

from bgengine.core.agents import Player
from bgengine.decisions.engine import Engine, NotSupported
from bgengine.core.network import Network


class FixedEngine(Engine):
    """Plays like pubeval; every position has the same cubeless probabilities."""

    def __init__(self, probs=(0.5, 0.1, 0.0, 0.1, 0.0), **kw):
        super().__init__(Player("pubeval"), **kw)
        self.probs = np.array(probs, dtype=np.float64)

    def evaluate(self, board, plies=0):
        if plies > self.max_plies:
            raise NotSupported(f"{plies}-ply evaluation is not available yet")
        return self.probs.copy()

    def has_probabilities(self):
        return True


def small_net_engine() -> Engine:
    """A small fixed (untrained) network: deterministic, fast, no files."""
    net = Network(hidden=(12,), n_outputs=5, seed=3)
    return Engine(Player("net", net, name="net-test"))
