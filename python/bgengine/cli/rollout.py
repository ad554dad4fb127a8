"""``bgengine rollout``: Monte-Carlo rollouts of a position or of its plays."""

from __future__ import annotations

import argparse

from bgengine.cli.options import (STATE_HELP, add_player_argument, add_quiet_argument,
                                  add_threads_argument, parse_dice, plays_number, plies_number,
                                  seed_number, trials_number, truncate_number)
from bgengine.cli.output import add_json_argument, emit
from bgengine.cli.progress import ProgressBar
from bgengine.matches.players import NETWORK_SPEC_HELP

__all__ = ["register"]


def _cmd_rollout(args: argparse.Namespace) -> int:
    from bgengine.matches.run import default_threads
    from bgengine.matches.players import load_network_spec
    from bgengine.position import Position
    from bgengine.decisions.cube import CubeInfo, gnubg_met
    from bgengine.decisions.rollouts import rollout_cube_decision, rollout_moves, rollout_position
    from bgengine.state import GameState

    if args.cube and (args.dice or args.vr or args.truncate_bearoff):
        raise ValueError("--cube rolls out the cube decision before the roll: not with "
                         + ("--dice" if args.dice else "--vr" if args.vr
                            else "--truncate-bearoff"))
    net = load_network_spec(args.player)
    pos = Position.from_id(args.position_id)
    info = None
    if args.cube:
        info = CubeInfo.from_match_state(GameState.from_string(args.position_id).match)
        if not info.is_money and not info.can_double():
            raise ValueError("--cube: the side on roll cannot double here (the Crawford game, "
                             "a dead cube or the opponent's cube)")
    # every value is checked by now (the options at parsing, the network and the state
    # above): nothing is printed before an error
    kw = dict(seed=args.seed, truncate=args.truncate, variance_reduction=args.vr,
              plies=args.plies, n_threads=args.threads or default_threads())
    if args.truncate_bearoff:
        kw["truncate_bearoff"] = True
    if not args.json:
        print(pos.to_text(), flush=True)    # the board first: the rollout takes a while
    if info is not None:
        del kw["variance_reduction"]
        r = rollout_cube_decision(net, pos.board, info, args.trials, met=gnubg_met(), **kw)
        unit = "points per cube" if info.is_money else \
            f"match-winning chances, {info.away}-away against {info.opp_away}-away"
        cube = f"cube {info.cube}, {info.owner}" + (", Jacoby" if info.jacoby else "")
        emit(args, {"position_id": pos.position_id, "cube": r},
             "\n".join(["", f"cubeful rollout, {args.trials} trials ({cube}; side on roll, "
                             f"{unit}):", f"  {r.cubeless}",
                         f"  no double    {r.no_double:+.4f} ± {r.no_double_stderr:.4f}",
                         f"  double/take  {r.double_take:+.4f} ± {r.double_take_stderr:.4f}"
                         f"   (minus no double ± {r.difference_stderr:.4f})",
                         f"  double/pass  {r.double_pass:+.4f}",
                         f"  proper cube action: {r.decision.action}"]))
        return 0
    if args.dice:
        with ProgressBar("rollout", "plays", quiet=args.quiet) as bar:
            results = rollout_moves(net, pos.board, *args.dice, trials=args.trials,
                                    candidates=args.candidates, progress=bar, **kw)
        title = (f"rollout of the best {len(results)} plays for {args.dice[0]}{args.dice[1]}, "
                 f"{args.trials} trials each (mover's view; win wg wbg lg lbg):")
    else:
        results = [rollout_position(net, pos.board, args.trials, **kw)]
        title = f"rollout, {args.trials} trials (side on roll, before rolling):"
    emit(args, {"position_id": pos.position_id,
                "dice": list(args.dice) if args.dice else None, "results": results},
         "\n".join(["", title, *(f"  {r}" for r in results)]))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``rollout`` to the ``bgengine`` sub-commands."""
    p = sub.add_parser("rollout", help="Monte-Carlo rollout of a position or of each candidate play",
                       description="Play a position out many times with the network choosing "
                                   "every play, and report the mean cubeless equity and "
                                   "probabilities with standard errors.  With --dice, roll out the "
                                   "best few plays of that roll instead (same dice for each).  The "
                                   "first two rolls are stratified over the 36x36 pairs.  With "
                                   "--cube, both sides use the cube as the engine does and the "
                                   "cube decision is rolled out: no double, double/take and "
                                   "double/pass, with standard errors (in money play points "
                                   "per cube; at a match score match-winning chances, from "
                                   "gnubg's match equity table at the score each game leaves).")
    p.add_argument("position_id", metavar="STATE",
                   help=STATE_HELP + "; the side on roll plays")
    p.add_argument("--dice", type=parse_dice, help="roll out the plays of this roll, e.g. 31")
    p.add_argument("--candidates", **plays_number, default=5,
                   help="plays to roll out with --dice (default 5)")
    p.add_argument("--trials", **trials_number, default=1296,
                   help="games per rollout (1..10**7, default 1296)")
    p.add_argument("--truncate", **truncate_number, default=0,
                   help="stop after this many plays (at most 10000) and use the network "
                        "(default 0: play out)")
    p.add_argument("--truncate-bearoff", action="store_true",
                   help="stop each game where the bear-off database values it (both sides "
                        "home) and take its value")
    p.add_argument("--cube", action="store_true",
                   help="cubeful: roll out the cube decision before the roll, the score, "
                        "the cube's owner and the Jacoby rule from the state")
    p.add_argument("--vr", action="store_true", help="luck-based variance reduction (slower per trial)")
    p.add_argument("--plies", **plies_number, default=0,
                   help="lookahead of the plays in the trials (0-3, default 0)")
    add_player_argument(p, f"the network choosing every play: {NETWORK_SPEC_HELP} "
                           "(default: net)", old=("--network",))
    p.add_argument("--seed", **seed_number, default=0, help="seed of the later rolls (default 0)")
    add_threads_argument(p)
    add_quiet_argument(p)
    add_json_argument(p)
    p.set_defaults(func=_cmd_rollout)
