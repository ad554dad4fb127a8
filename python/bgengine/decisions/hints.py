"""What the engine says of a game state: an evaluation, the cube action, the ranked plays.

:meth:`bgengine.decisions.engine.Engine.evaluate_state` and :meth:`bgengine.decisions.engine.Engine.hint` fill
these records; ``bgengine eval`` and ``bgengine hint`` print them (as text or JSON).

Values are from the side on roll's view (the player who rolled, or who is to roll or
double).  Money play: equities in points per cube (cubeful: Janowski's cube-life model);
match play: match-winning chances (0..1) from the Kazaross-XG2 table, cubeful the same way
(:mod:`bgengine.decisions.cube`).  ``outputs`` are the network's five cubeless probabilities: win, win
a gammon, win a backgammon, lose a gammon, lose a backgammon (float64, shape (5,)).

The wording (:func:`hint_lines`, :func:`evaluation_lines`) is the one both ``bgengine hint`` /
``bgengine eval`` and ``play``'s ``hint`` print: money play shows cubeful equities per cube
(``+0.123``), match play match-winning chances in percent (``56.20%``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from bgengine.decisions.cube import CubeDecision
from bgengine.decisions.rollouts import CubeRolloutResult, RolloutResult
from bgengine.state import GameState

__all__ = ["Evaluation", "PlayHint", "CubeHint", "Hint", "MONEY", "MATCH",
           "value_text", "difference_text", "probabilities_text", "state_lines", "evaluation_lines", "hint_lines"]

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
    (``decision``, from the doubler's view; see :class:`bgengine.decisions.cube.CubeDecision`),
    the evaluation they come from and the opponent's ``take_point`` (the least winning
    chance, 0..1, at which it would take a double now: :func:`bgengine.decisions.cube.take_point`;
    None where it has no meaning).  ``cube_rollout``: the cubeful rollout the three values
    come from (money play with a rollout; ``None``: the cube model over ``evaluation``)."""

    evaluation: Evaluation
    decision: CubeDecision
    take_point: float | None = None
    cube_rollout: CubeRolloutResult | None = None

    @property
    def proper_action(self) -> str:
        """gnubg's wording: "double, take", "no double, take", "too good to double, pass"..."""
        return self.decision.action

    def to_dict(self) -> dict[str, Any]:
        d = self.decision
        return {"evaluation": self.evaluation.to_dict(), "no_double": d.no_double,
                "double_take": d.double_take, "double_pass": d.double_pass,
                "proper_action": d.action, "double": d.double, "take": d.take,
                "beaver": d.beaver, "can_double": d.can_double, "take_point": self.take_point,
                "cube_rollout": _cube_rollout_dict(self.cube_rollout)}


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


def _cube_rollout_dict(r: CubeRolloutResult | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {"trials": r.trials, "no_double_stderr": r.no_double_stderr,
            "double_take_stderr": r.double_take_stderr,
            "difference_stderr": r.difference_stderr}


def _state_dict(state: GameState) -> dict[str, Any]:
    try:
        xgid: str | None = state.to_xgid()
    except ValueError:
        xgid = None
    return {"gnubgid": state.to_gnubgid(), "xgid": xgid, "summary": state.summary()}


# ---------------------------------------------------------------- the wording


def value_text(value: float, money: bool) -> str:
    """A cubeful value as users read it: money equity, or a match-winning chance in percent."""
    return f"{value:+.3f}" if money else f"{100 * value:6.2f}%"


def difference_text(diff: float, money: bool) -> str:
    """A difference of two :func:`value_text` values."""
    return f"{diff:+.3f}" if money else f"{100 * diff:+.2f}%"


def probabilities_text(outputs: np.ndarray) -> str:
    """The five cubeless probabilities (win, win gammon, win backgammon, lose gammon,
    lose backgammon) in words and percent."""
    win, wg, wbg, lg, lbg = (100 * float(x) for x in outputs)
    return (f"win {win:.1f}% (gammon {wg:.1f}%, backgammon {wbg:.1f}%), "
            f"lose {100 - win:.1f}% (gammon {lg:.1f}%, backgammon {lbg:.1f}%)")


def state_lines(state: GameState) -> list[str]:
    """The state drawn: the board, a summary, gnubg's ID and the XGID (when it has one)."""
    lines = [state.position.to_text(), f" {state.summary()}", f" gnubg ID: {state.to_gnubgid()}"]
    try:
        lines.append(f" {state.to_xgid()}")
    except ValueError:
        pass
    return lines


def _source(plies: int, rollout) -> str:
    """Where the values come from: the network's lookahead or a rollout."""
    if rollout is None:
        return f"at {plies}-ply"
    return f"from a rollout of {rollout.trials} trials"


def evaluation_lines(ev: Evaluation) -> list[str]:
    """An evaluation before the roll: probabilities, cubeless equity, cubeful value."""
    money = ev.state.is_money
    err = "" if ev.rollout is None else f" ± {ev.rollout.stderr:.3f}"
    lines = [f"  {probabilities_text(ev.outputs)}",
             f"  cubeless equity {ev.cubeless:+.3f}{err}"]
    if money:
        lines.append(f"  cubeful equity {ev.cubeful:+.3f} (points per cube)")
    else:
        lines.append(f"  match-winning chance {value_text(ev.cubeful, False).strip()} cubeful, "
                     f"{value_text(ev.cubeless_mwc, False).strip()} with the cube dead")
    return lines


def hint_lines(hint: Hint) -> list[str]:
    """The advice of ``hint``: before the roll, the cube action (the no double,
    double/take and double/pass values and the proper action); with dice, the plays
    ranked with their values, differences to the best and probabilities."""
    money = hint.state.is_money
    unit = "cubeful equity per cube" if money else "match-winning chance"
    if hint.cube:
        d, cr = hint.cube.decision, hint.cube.cube_rollout
        source = (f"from a cubeful rollout of {cr.trials} trials" if cr is not None
                  else _source(hint.plies, hint.cube.evaluation.rollout))
        lines = [f"Cube action {source} ({unit}, doubler's view):"]
        lines += evaluation_lines(hint.cube.evaluation)
        errors = ({"No double": cr.no_double_stderr, "Double, take": cr.double_take_stderr}
                  if cr is not None else {})
        for name, value in (("No double", d.no_double), ("Double, take", d.double_take),
                            ("Double, pass", d.double_pass)):
            diff = "" if name == "No double" else f"  ({difference_text(value - d.no_double, money)})"
            err = f" ± {errors[name]:.3f}" if name in errors else ""
            lines.append(f"  {name:<14}{value_text(value, money)}{err}{diff}")
        lines.append(f"  Proper action: {d.action}")
        if hint.cube.take_point is not None:
            taker = 1.0 - hint.cube.evaluation.outputs[0]
            lines.append(f"  Take point: {hint.cube.take_point:.1%} (the taker's winning chance "
                         f"here: {taker:.1%})")
        return lines
    d1, d2 = hint.state.dice
    lines = [f"Best plays for {d1}-{d2} {_source(hint.plies, hint.plays[0].rollout)} "
             f"({unit} of the mover):"]
    for rank, p in enumerate(hint.plays, 1):
        diff = "" if rank == 1 else f"  ({difference_text(p.difference, money)})"
        depth = f"{p.plies}-ply" if p.rollout is None else "rollout"
        lines.append(f"  {rank:2d}. {p.notation:<24} {depth}  {value_text(p.value, money)}{diff}")
        err = "" if p.rollout is None else f" ± {p.rollout.stderr:.3f}"
        lines.append(f"      {probabilities_text(p.outputs)}; cubeless {p.cubeless:+.3f}{err}")
    return lines
