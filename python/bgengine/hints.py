"""What the engine says of a game state: an evaluation, the cube action, the ranked plays.

:meth:`bgengine.engine.Engine.evaluate_state` and :meth:`bgengine.engine.Engine.hint` fill
these records; ``bgengine eval`` and ``bgengine hint`` print them (as text or JSON).

Values are from the side on roll's view (the player who rolled, or who is to roll or
double).  Money play: equities in points per cube (cubeful: Janowski's cube-life model);
match play: match-winning chances (0..1) from the Kazaross-XG2 table, cubeful the same way
(:mod:`bgengine.cube`).  ``outputs`` are the network's five cubeless probabilities: win, win
a gammon, win a backgammon, lose a gammon, lose a backgammon (float64, shape (5,)).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from bgengine.cube import CubeDecision
from bgengine.rollouts import RolloutResult
from bgengine.state import GameState

__all__ = ["Evaluation", "PlayHint", "CubeHint", "Hint", "MONEY", "MATCH"]

#: What the values measure, by kind of game.
MONEY = "cubeful equity (points per cube)"
MATCH = "match-winning chance (cubeful)"


def _outputs_dict(outputs: np.ndarray) -> dict[str, float]:
    win, wg, wbg, lg, lbg = (float(x) for x in outputs)
    return {"win": win, "win_gammon": wg, "win_backgammon": wbg, "lose": 1.0 - win,
            "lose_gammon": lg, "lose_backgammon": lbg}


@dataclass(frozen=True)
class Evaluation:
    """A position before the roll, side on roll's view.

    ``cubeless``: points per cube, the cube never turned and gammons counted (as the
    network says); ``cubeful``: money equity per cube or the match-winning chance with the
    cube alive (no double now); ``cubeless_mwc``: in a match, the match-winning chance with
    the cube dead (``None`` in money play).  ``rollout``: the rollout the outputs come from
    (``None``: the network at ``plies``).
    """

    state: GameState
    plies: int
    outputs: np.ndarray
    cubeless: float
    cubeful: float
    cubeless_mwc: float | None
    rollout: RolloutResult | None = None

    @property
    def measure(self) -> str:
        return MONEY if self.state.is_money else MATCH

    def to_dict(self) -> dict[str, Any]:
        return {"state": _state_dict(self.state), "plies": self.plies, "measure": self.measure,
                "probabilities": _outputs_dict(self.outputs), "cubeless_equity": self.cubeless,
                "cubeful": self.cubeful, "cubeless_mwc": self.cubeless_mwc,
                "rollout": _rollout_dict(self.rollout)}


@dataclass(frozen=True)
class CubeHint:
    """The cube action before the roll: the no double, double/take and double/pass values
    (``decision``, from the doubler's view; see :class:`bgengine.cube.CubeDecision`) and the
    evaluation they come from."""

    evaluation: Evaluation
    decision: CubeDecision

    @property
    def proper_action(self) -> str:
        """gnubg's wording: "double, take", "no double, take", "too good to double, pass"..."""
        return self.decision.action

    def to_dict(self) -> dict[str, Any]:
        d = self.decision
        return {"evaluation": self.evaluation.to_dict(), "no_double": d.no_double,
                "double_take": d.double_take, "double_pass": d.double_pass,
                "proper_action": d.action, "double": d.double, "take": d.take,
                "can_double": d.can_double}


@dataclass(frozen=True)
class PlayHint:
    """One play of the roll: its ``notation``, the position ``after`` it (opponent on roll),
    the mover's ``outputs`` after it, the ``cubeless`` equity (points per cube), the cubeful
    ``value`` (:data:`MONEY` or :data:`MATCH`), its ``difference`` to the best play's value
    (0 for the best, negative for the others) and the ``plies`` of lookahead behind it, or
    the ``rollout`` its outputs come from."""

    notation: str
    after: GameState
    outputs: np.ndarray
    cubeless: float
    value: float
    difference: float
    plies: int
    rollout: RolloutResult | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"play": self.notation, "value": self.value, "difference": self.difference,
                "cubeless_equity": self.cubeless, "plies": self.plies,
                "probabilities": _outputs_dict(self.outputs),
                "after": self.after.to_gnubgid(), "rollout": _rollout_dict(self.rollout)}


@dataclass(frozen=True)
class Hint:
    """The engine's advice for a state: the cube action before the roll (``cube``; ``plays``
    empty), or with dice the plays ranked best first (``plays``; ``cube`` is ``None``)."""

    state: GameState
    plies: int
    cube: CubeHint | None
    plays: tuple[PlayHint, ...]

    @property
    def measure(self) -> str:
        return MONEY if self.state.is_money else MATCH

    def to_dict(self) -> dict[str, Any]:
        return {"state": _state_dict(self.state), "plies": self.plies, "measure": self.measure,
                "cube": self.cube.to_dict() if self.cube else None,
                "plays": [p.to_dict() for p in self.plays]}


def _rollout_dict(r: RolloutResult | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {"trials": r.trials, "cubeless_equity": r.equity, "stderr": r.stderr,
            "outputs_stderr": list(r.outputs_stderr)}


def _state_dict(state: GameState) -> dict[str, Any]:
    try:
        xgid: str | None = state.to_xgid()
    except ValueError:
        xgid = None
    return {"gnubgid": state.to_gnubgid(), "xgid": xgid, "summary": state.summary()}
