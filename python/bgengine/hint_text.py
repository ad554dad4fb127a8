"""The engine's advice as people read it: the lines ``bgengine hint`` and ``bgengine eval``
print and ``play``'s ``hint`` shows (one wording for both).

Money play shows cubeful equities per cube (``+0.123``), match play match-winning chances
in percent (``56.20%``); see :mod:`bgengine.hints` for what the values are.
"""

from __future__ import annotations

import numpy as np

from bgengine.hints import Evaluation, Hint
from bgengine.state import GameState

__all__ = ["value_text", "difference_text", "probabilities_text", "state_lines",
           "evaluation_lines", "hint_lines"]


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
        d = hint.cube.decision
        lines = [f"Cube action {_source(hint.plies, hint.cube.evaluation.rollout)} "
                 f"({unit}, doubler's view):"]
        lines += evaluation_lines(hint.cube.evaluation)
        for name, value in (("No double", d.no_double), ("Double, take", d.double_take),
                            ("Double, pass", d.double_pass)):
            diff = "" if name == "No double" else f"  ({difference_text(value - d.no_double, money)})"
            lines.append(f"  {name:<14}{value_text(value, money)}{diff}")
        lines.append(f"  Proper action: {d.action}")
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
