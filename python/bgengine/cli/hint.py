"""``bgengine hint`` and ``bgengine eval``: the engine's advice on a game state."""

from __future__ import annotations

import argparse

import numpy as np

from bgengine.cli.options import add_player_argument, parse_dice
from bgengine.cli.output import add_json_argument, emit
from bgengine.players import NETWORK_SPEC_HELP

__all__ = ["register", "engine_from_args"]


def engine_from_args(args: argparse.Namespace):
    """The engine of ``--player`` (default net) at ``--plies``; a depth it does not search
    is bad input."""
    from bgengine.engine import Engine, EngineError

    try:
        return Engine(args.player or "net", plies=args.plies)
    except EngineError as exc:      # a depth the engine does not search: bad input
        raise ValueError(str(exc)) from None


def _state(args: argparse.Namespace):
    from bgengine.state import GameState

    state = GameState.from_string(args.state)
    dice = getattr(args, "dice", None)
    return state.with_dice(*dice) if dice else state


def _value(value: float, money: bool) -> str:
    """A cubeful value as users read it: money equity, or a match-winning chance in percent."""
    return f"{value:+.3f}" if money else f"{100 * value:6.2f}%"


def _difference(diff: float, money: bool) -> str:
    return f"{diff:+.3f}" if money else f"{100 * diff:+.2f}%"


def _probabilities(outputs: np.ndarray) -> str:
    win, wg, wbg, lg, lbg = (100 * float(x) for x in outputs)
    return (f"win {win:.1f}% (gammon {wg:.1f}%, backgammon {wbg:.1f}%), "
            f"lose {100 - win:.1f}% (gammon {lg:.1f}%, backgammon {lbg:.1f}%)")


def _header(state) -> list[str]:
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


def _evaluation_lines(ev) -> list[str]:
    money = ev.state.is_money
    err = "" if ev.rollout is None else f" ± {ev.rollout.stderr:.3f}"
    lines = [f"  {_probabilities(ev.outputs)}",
             f"  cubeless equity {ev.cubeless:+.3f}{err}"]
    if money:
        lines.append(f"  cubeful equity {ev.cubeful:+.3f} (points per cube)")
    else:
        lines.append(f"  match-winning chance {_value(ev.cubeful, False).strip()} cubeful, "
                     f"{_value(ev.cubeless_mwc, False).strip()} with the cube dead")
    return lines


def _cmd_eval(args: argparse.Namespace) -> int:
    state = _state(args)
    ev = engine_from_args(args).evaluate_state(state)
    if args.json:
        emit(args, ev.to_dict())
        return 0
    print("\n".join(_header(state)))
    print(f"\nEvaluation at {ev.plies}-ply, side on roll before rolling:")
    print("\n".join(_evaluation_lines(ev)))
    return 0


def _cmd_hint(args: argparse.Namespace) -> int:
    state = _state(args)
    hint = engine_from_args(args).hint(state, n=args.num, rollout=args.rollout, seed=args.seed,
                              threads=args.threads)
    if args.json:
        emit(args, hint.to_dict())
        return 0
    money = state.is_money
    print("\n".join(_header(state)))
    if hint.cube:
        d = hint.cube.decision
        unit = "cubeful equity per cube" if money else "match-winning chance"
        print(f"\nCube action {_source(hint.plies, hint.cube.evaluation.rollout)} "
              f"({unit}, doubler's view):")
        print("\n".join(_evaluation_lines(hint.cube.evaluation)))
        for name, value in (("No double", d.no_double), ("Double, take", d.double_take),
                            ("Double, pass", d.double_pass)):
            diff = "" if name == "No double" else f"  ({_difference(value - d.no_double, money)})"
            print(f"  {name:<14}{_value(value, money)}{diff}")
        print(f"  Proper action: {d.action}")
        return 0
    d1, d2 = state.dice
    unit = "cubeful equity per cube" if money else "match-winning chance"
    print(f"\nBest plays for {d1}-{d2} {_source(hint.plies, hint.plays[0].rollout)} "
          f"({unit} of the mover):")
    for rank, p in enumerate(hint.plays, 1):
        diff = "" if rank == 1 else f"  ({_difference(p.difference, money)})"
        depth = f"{p.plies}-ply" if p.rollout is None else "rollout"
        print(f"  {rank:2d}. {p.notation:<24} {depth}  {_value(p.value, money)}{diff}")
        err = "" if p.rollout is None else f" ± {p.rollout.stderr:.3f}"
        print(f"      {_probabilities(p.outputs)}; cubeless {p.cubeless:+.3f}{err}")
    return 0


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("state", metavar="STATE",
                   help="XGID, gnubg's PositionID:MatchID or a Position ID (money, cube centred)")
    p.add_argument("--plies", type=int, default=2,
                   help="lookahead of the evaluation (0-3, default 2)")
    add_player_argument(p, f"the network evaluating: {NETWORK_SPEC_HELP} (default: net)",
                        old=("--network",))
    add_json_argument(p)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``hint`` and ``eval`` to the ``bgengine`` sub-commands."""
    p = sub.add_parser("hint", help="the best plays of a roll, or the cube action before it",
                       description="The engine's advice on a game state.  Before the roll (or "
                                   "with a double pending): the no double, double/take and "
                                   "double/pass values and the proper cube action.  With dice "
                                   "(the state's or --dice): the best plays, each with its value, "
                                   "difference to the best and probabilities.  Money play: cubeful "
                                   "equity per cube; match play: match-winning chance.")
    _add_common(p)
    p.add_argument("--dice", type=parse_dice, help="the roll to play, e.g. 31 (default: the state's)")
    p.add_argument("--num", type=int, default=5, help="plays to show (default 5)")
    p.add_argument("--rollout", type=int, default=0, metavar="TRIALS",
                   help="roll out the position before the roll, or each play shown, this many "
                        "times (0-ply plays; default 0: no rollout)")
    p.add_argument("--seed", type=int, default=0, help="seed of the rollout's dice (default 0)")
    p.add_argument("--threads", type=int, default=None,
                   help="rollout threads (default: all cores)")
    p.set_defaults(func=_cmd_hint)

    p = sub.add_parser("eval", help="probabilities and equities of a game state before the roll",
                       description="Evaluate the side on roll's position before it rolls: win, "
                                   "gammon and backgammon chances, cubeless and cubeful equity "
                                   "(money) or match-winning chance (match).")
    _add_common(p)
    p.set_defaults(func=_cmd_eval)
