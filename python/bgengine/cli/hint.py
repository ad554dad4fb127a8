"""``bgengine hint`` and ``bgengine eval``: the engine's advice on a game state."""

from __future__ import annotations

import argparse

from bgengine.cli.options import (JACOBY_HELP, STATE_HELP, add_player_argument,
                                  add_threads_argument, parse_dice, plays_number, plies_number,
                                  seed_number, whole_number)
from bgengine.core.search import MAX_TRIALS
from bgengine.cli.output import add_json_argument, emit
from bgengine.matches.players import NETWORK_SPEC_HELP

__all__ = ["register", "engine_from_args"]


def engine_from_args(args: argparse.Namespace):
    """The engine of ``--player`` (default net) at ``--plies``; a depth it does not search
    is bad input."""
    from bgengine.decisions.engine import Engine, EngineError

    try:
        return Engine(args.player or "net", plies=args.plies)
    except EngineError as exc:      # a depth the engine does not search: bad input
        raise ValueError(str(exc)) from None


def _state(args: argparse.Namespace):
    from bgengine.state import GameState

    state = GameState.from_string(args.state)
    dice = getattr(args, "dice", None)
    return state.with_dice(*dice) if dice else state


def _cmd_eval(args: argparse.Namespace) -> int:
    from bgengine.decisions.hints import evaluation_lines, state_lines

    state = _state(args)
    ev = engine_from_args(args).evaluate_state(state)
    if args.json:
        emit(args, ev.to_dict())
        return 0
    print("\n".join(state_lines(state)))
    print(f"\nEvaluation at {ev.plies}-ply, side on roll before rolling:")
    print("\n".join(evaluation_lines(ev)))
    return 0


def _cmd_hint(args: argparse.Namespace) -> int:
    from bgengine.decisions.hints import hint_lines, state_lines

    state = _state(args)
    hint = engine_from_args(args).hint(state, n=args.num, rollout=args.rollout, seed=args.seed,
                              threads=args.threads)
    if args.json:
        emit(args, hint.to_dict())
        return 0
    print("\n".join(state_lines(state)))
    print("\n" + "\n".join(hint_lines(hint)))
    return 0


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("state", metavar="STATE", help=STATE_HELP)
    p.add_argument("--plies", **plies_number, default=2,
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
                                   "equity per cube; match play: match-winning chance.  "
                                   "Each play's ID (--json: 'after') is the position after it "
                                   "with the opponent on roll, as gnubg shows it.  "
                                   + JACOBY_HELP + ".")
    _add_common(p)
    p.add_argument("--dice", type=parse_dice, help="the roll to play, e.g. 31 (default: the state's)")
    p.add_argument("--num", **plays_number, default=5, help="plays to show (default 5)")
    p.add_argument("--rollout", **whole_number(0, MAX_TRIALS, "0..10**7"), default=0,
                   metavar="TRIALS",
                   help="roll out the position before the roll, or each play shown, this many "
                        "times (0-ply plays; at most 10**7; default 0: no rollout)")
    p.add_argument("--seed", **seed_number, default=0,
                   help="seed of the rollout's dice (default 0)")
    add_threads_argument(p, "rollout threads (default: all cores)")
    p.set_defaults(func=_cmd_hint)

    p = sub.add_parser("eval", help="probabilities and equities of a game state before the roll",
                       description="Evaluate the side on roll's position before it rolls: win, "
                                   "gammon and backgammon chances, cubeless and cubeful equity "
                                   "(money) or match-winning chance (match).  " + JACOBY_HELP + ".")
    _add_common(p)
    p.set_defaults(func=_cmd_eval)
