"""``bgengine match``: two players against each other, points per game."""

from __future__ import annotations

import argparse
import contextlib
import sys

from bgengine.cli.options import (JACOBY_RULE, add_backend_arguments, add_threads_argument,
                                  backend_from_args, complete_player, games_number, seed_number,
                                  whole_number)
from bgengine.cli.output import add_json_argument, emit
from bgengine.cli.progress import ProgressBar

__all__ = ["register"]


def _cmd_match(args: argparse.Namespace) -> int:
    from bgengine.opponents.gnubg import GnubgConfig
    from bgengine.matches.run import MatchInterrupted
    from bgengine.other_games import owner_of_players
    from bgengine.matches.players import make_player

    other = owner_of_players([args.a, args.b])
    if other is not None:                   # players of another game
        emit(args, *other.match(args))
        return 0
    if args.games >= 2 and args.games % 2:
        raise ValueError(f"--games {args.games}: games are played in pairs (each dice sequence "
                         f"twice, the seats swapped), so --games must be even, e.g. "
                         f"{args.games - 1} or {args.games + 1}")
    if args.money_plays and not (args.match_length or args.cube):
        raise ValueError("--money-plays is a choice of games with the cube: add --cube or "
                         "--match-length N")
    if args.cube_plies and not (args.match_length or args.cube):
        raise ValueError("--cube-plies is a choice of games with the cube: add --cube or "
                         "--match-length N")
    if args.jacoby and not args.cube:
        raise ValueError("--jacoby is a rule of money games with the doubling cube: add --cube "
                         "(matches to N points never use it)")
    cube = bool(args.cube or args.match_length)
    if args.luck and args.match_length:
        raise ValueError("--luck measures money games (cubeless, or cubeful with --cube): not "
                         "matches to N points")
    if args.luck and getattr(args, "backend", "local") != "local":
        raise ValueError("--luck measures the games on this machine: not with --backend "
                         f"{args.backend}")
    config = GnubgConfig(binary=args.gnubg, processes=args.gnubg_processes)
    a, b = make_player(args.a, config), make_player(args.b, config)
    try:
        result, complete = _play(args, a, b, cube), True
    except MatchInterrupted as stop:        # Ctrl-C: the games finished, reported
        result, complete = stop.result, False
    emit(args, {**result.as_dict(), "complete": complete},
         str(result) if complete else f"{result} (interrupted: the games finished of "
                                      f"{args.games})")
    if not complete:
        print(f"bgengine: interrupted: the result above is of the games finished before "
              f"Ctrl-C, not of the {args.games} asked for", file=sys.stderr)
        return 130
    return 0


def _play(args: argparse.Namespace, a, b, cube: bool):
    """The match of ``a`` and ``b`` that ``args`` ask for; its result."""
    from bgengine.core.agents import Player
    from bgengine.matches.run import run_match

    # compiled players' cubeless games are played in whole batches: no bar (and no need);
    # with --luck they are played from Python
    slow = cube or args.luck or not (isinstance(a, Player) and isinstance(b, Player))
    unit = "matches" if args.match_length else "games"
    with contextlib.ExitStack() as players:     # stop what the players run (UBGI engines, ...)
        for p in (a, b):
            if hasattr(p, "close"):
                players.callback(p.close)
        with ProgressBar(f"{args.a} vs {args.b}", unit, quiet=args.quiet or not slow) as bar:
            if cube:
                from bgengine.matches.run import run_cube_match

                luck = None
                if args.luck:
                    from bgengine.decisions.luck import LuckMeter
                    from bgengine.matches.players import load_default_network

                    luck = LuckMeter(load_default_network(), cubeful=True)
                result = run_cube_match(a, b, args.games, match_length=args.match_length or 0,
                                        seed=args.seed, jacoby=args.jacoby, progress=bar,
                                        plays_at_score=not args.money_plays,
                                        cube_plies=args.cube_plies, luck=luck)
            else:
                if args.luck:
                    from bgengine.decisions.luck import LuckMeter
                    from bgengine.matches.players import load_default_network

                    result = run_match(a, b, args.games, seed=args.seed, progress=bar,
                                       luck=LuckMeter(load_default_network()))
                else:
                    with backend_from_args(args, args.threads) as backend:
                        result = run_match(a, b, args.games, seed=args.seed, backend=backend,
                                           progress=bar)
    return result


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``match`` to the ``bgengine`` sub-commands."""
    from bgengine.other_games import players_help
    from bgengine.matches.players import SPEC_HELP

    p = sub.add_parser("match", help="play two players against each other and report ppg",
                       description="Play cubeless money games between players A and B, each dice "
                                   "sequence twice with the seats swapped, and report A's points "
                                   "per game with a 95% confidence interval, win, gammon and "
                                   "backgammon rates.  With --cube: money games with the doubling "
                                   "cube; with --match-length N: matches to N points.  "
                                   f"Players: {SPEC_HELP}.  Other games: {players_help()} "
                                   "(wins, draws and losses; seats alternate).  Ctrl-C: the "
                                   "result of the games finished, exit status 130.")
    p.add_argument("a", help="player A, e.g. net, pubeval, runs/r1/best.npz"
                   ).completer = complete_player  # type: ignore[attr-defined]
    p.add_argument("b", help="player B").completer = complete_player  # type: ignore[attr-defined]
    p.add_argument("--games", **games_number, default=10000,
                   help="games to play, an even number: game pairs (at most 10**8; default "
                        "10000)")
    p.add_argument("--seed", **seed_number, default=0, help="dice seed (default 0)")
    add_threads_argument(p)
    add_json_argument(p)
    p.add_argument("--cube", action="store_true",
                   help="money games with the doubling cube (decisions: Janowski cube model over "
                        "each player's network, the shipped one for players without; gnubg and "
                        "gnubg:N play cubefully and take gnubg's own cube actions)")
    p.add_argument("--match-length", **whole_number(0), default=0, metavar="N",
                   help="play --games matches to N points with the cube and the Crawford rule "
                        "(match equity table: Kazaross-XG2, up to 25 points)")
    p.add_argument("--money-plays", action="store_true",
                   help="with --cube or --match-length: network players choose cubeless "
                        "money plays (default: by cubeful equity, or match-winning chances at "
                        "the score, at the cube's value and owner)")
    p.add_argument("--cube-plies", type=int, choices=range(3), default=0, metavar="N",
                   help="with --cube or --match-length: the lookahead of bgengine players' "
                        "cube decisions, 0-2 (default 0; 2: clear doubles still at 0-ply)")
    p.add_argument("--jacoby", action="store_true",
                   help="with --cube: the Jacoby rule (gammons count only after a double); an "
                        "error without --cube.  " + JACOBY_RULE)
    p.add_argument("--gnubg", metavar="PATH", default=None,
                   help="the gnubg binary for players gnubg and gnubg:N (default: $BGENGINE_GNUBG, "
                        "else gnubg on PATH, else /usr/games/gnubg)")
    p.add_argument("--gnubg-processes", **whole_number(1), default=None, metavar="N",
                   help="gnubg processes run at once (default: 16 per core)")
    p.add_argument("--luck", action="store_true",
                   help="money games: also measure the luck of every roll (the shipped network "
                        "at 0-ply; with --cube in cubeful points at the roll's cube) and report "
                        "the luck-adjusted ppg, an unbiased estimate with a narrower confidence "
                        "interval (compiled players' games are then played from Python, about "
                        "70 games/s on two cores)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar (drawn on a terminal for matches played from Python: "
                        "gnubg, external, the cube)")
    add_backend_arguments(p)
    p.set_defaults(func=_cmd_match)
