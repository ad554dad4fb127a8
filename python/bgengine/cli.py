"""The ``bgengine`` command line."""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import sys
from typing import Sequence

import bgengine

__all__ = ["main", "build_parser"]


def _cmd_demo(args: argparse.Namespace) -> int:
    from bgengine.demo import play_demo_game

    from bgengine.demo import default_demo_players

    x, o = default_demo_players()
    play_demo_game(args.x or x, args.o or o, seed=args.seed, out=sys.stdout)
    return 0


def _parse_dice(text: str) -> tuple[int, int]:
    t = text.replace("-", "").replace(",", "").replace(" ", "")
    if len(t) != 2 or not t.isdigit() or not all("1" <= c <= "6" for c in t):
        raise argparse.ArgumentTypeError(f"dice must be two digits 1..6 like 31 or 6-6, got {text!r}")
    return int(t[0]), int(t[1])


def _cmd_show(args: argparse.Namespace) -> int:
    from bgengine.position import Position

    pos = Position.from_id(args.position_id) if args.position_id else Position.initial()
    print(pos.to_text())
    return 0


def _cmd_moves(args: argparse.Namespace) -> int:
    from bgengine.position import Position

    pos = Position.from_id(args.position_id)
    d1, d2 = args.dice
    moves = pos.legal_moves(d1, d2)
    if moves[0].is_pass:
        print(f"no legal play with {d1}-{d2}")
        return 0
    for i, m in enumerate(moves, 1):
        print(f"{i:4d}. {m.notation:<28} -> {m.position.swap().position_id}")
    return 0


class _ProgressLine:
    """``progress(done, total)`` for long matches: a line on stderr rewritten
    in place on a terminal (at most every 0.5 s), else a line every 10%."""

    def __init__(self, label: str) -> None:
        import time

        self.label, self.clock = label, time.monotonic
        self.t0 = self.last = self.clock()
        self.tty = sys.stderr.isatty()
        self.next_pct = 10

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        pct = 100 * done // max(total, 1)
        if self.tty and now - self.last < 0.5 and done < total:
            return
        if not self.tty and pct < self.next_pct:
            return
        self.last, self.next_pct = now, pct + 10
        rate = done / max(now - self.t0, 1e-9)
        eta = int((total - done) / rate) if rate > 0 else 0
        text = (f"{self.label}: {done}/{total} games ({pct}%), {rate:.1f} games/s, "
                f"eta {eta // 60}m{eta % 60:02d}s")
        end = "\n" if not self.tty or done >= total else ""
        sys.stderr.write(("\r\033[K" if self.tty else "") + text + end)
        sys.stderr.flush()


def _gnubg_config(args: argparse.Namespace):
    from bgengine.gnubg import GnubgConfig

    return GnubgConfig(binary=args.gnubg, processes=args.gnubg_processes)


def _cmd_match(args: argparse.Namespace) -> int:
    from bgengine.agents import Player
    from bgengine.match import run_match
    from bgengine.players import make_player

    config = _gnubg_config(args)
    a, b = make_player(args.a, config), make_player(args.b, config)
    if args.cube or args.match_length:
        from bgengine.match import run_cube_match

        result = run_cube_match(a, b, args.games, match_length=args.match_length or 0,
                                seed=args.seed, jacoby=args.jacoby)
    else:
        from bgengine.distributed import backend_from_args

        slow = not (isinstance(a, Player) and isinstance(b, Player))   # played from Python
        progress = _ProgressLine(f"{args.a} vs {args.b}") if slow and not args.quiet else None
        with backend_from_args(args, args.threads) as backend:
            result = run_match(a, b, args.games, seed=args.seed, backend=backend,
                               progress=progress)
    if args.json:
        print(json.dumps(result.as_dict(), indent=2))
    else:
        print(result)
    return 0


def _cmd_train(args: argparse.Namespace) -> int:
    from bgengine.train import TrainConfig, train

    config = TrainConfig.from_toml(args.config) if args.config else TrainConfig()
    overrides = {k: v for k, v in (("games", args.games), ("seed", args.seed),
                                   ("encoder", args.encoder)) if v is not None}
    if args.hidden is not None:
        overrides["hidden"] = args.hidden
    if overrides:
        config = TrainConfig.from_dict({**dataclasses.asdict(config), **overrides})
    logging.getLogger("bgengine").setLevel(logging.INFO)
    try:
        net = train(config, args.run, resume=not args.restart, progress=not args.quiet)
    except OSError as exc:      # a disk full, a file made read-only under a running run
        raise ValueError(f"{args.run}: cannot write the run ({exc.strerror or exc}"
                         f"{': ' + str(exc.filename) if exc.filename else ''})") from None
    except FloatingPointError as exc:   # diverged: the last checkpoint is intact
        raise ValueError(f"{args.run}: {exc}; the run is kept as of its last checkpoint") from None
    print(f"{args.run}: {net!r}, latest network in {args.run}/network.npz, "
          f"best against {config.eval_opponent} in {args.run}/best.npz")
    return 0


def _cmd_plot(args: argparse.Namespace) -> int:
    from bgengine.plot import plot_run

    out = args.out or f"{args.runs[0].rstrip('/')}/learning_curve.png"
    print(plot_run(args.runs, out))
    return 0


def _cmd_rollout(args: argparse.Namespace) -> int:
    from bgengine.players import load_default_network, load_network
    from bgengine.position import Position
    from bgengine.rollouts import rollout_moves, rollout_position

    net = load_network(args.network) if args.network else load_default_network()
    pos = Position.from_id(args.position_id)
    kw = dict(seed=args.seed, truncate=args.truncate, variance_reduction=args.vr,
              plies=args.plies, n_threads=args.threads or _threads())
    print(pos.to_text())
    if args.dice:
        results = rollout_moves(net, pos.board, *args.dice, trials=args.trials,
                                candidates=args.candidates, **kw)
        print(f"\nrollout of the best {len(results)} plays for {args.dice[0]}{args.dice[1]}, "
              f"{args.trials} trials each (mover's view; win wg wbg lg lbg):")
    else:
        results = [rollout_position(net, pos.board, args.trials, **kw)]
        print(f"\nrollout, {args.trials} trials (side on roll, before rolling):")
    for r in results:
        print(" ", r)
    return 0


def _threads() -> int:
    from bgengine.match import default_threads

    return default_threads()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bgengine",
        description="bgengine: a backgammon engine that learns from the rules alone by self-play.",
    )
    parser.add_argument("--version", action="version", version=f"bgengine {bgengine.__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    from bgengine.players import SPEC_HELP

    p = sub.add_parser("demo", help="play and print one game between two players",
                       description="Play one cubeless game and print every move in gnubg "
                                   "notation, the final board and the result.  "
                                   f"Players: {SPEC_HELP}.")
    p.add_argument("--x", default=None, help="player for X (default: net, the shipped network)")
    p.add_argument("--o", default=None, help="player for O (default: pubeval)")
    p.add_argument("--seed", type=int, default=1, help="dice seed (default 1); same seed, same game")
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("show", help="draw a position given by its GNU Backgammon Position ID",
                       description="Draw a position as a text board, from the side on roll's view.")
    p.add_argument("position_id", nargs="?", help="14-character Position ID (default: the start)")
    p.set_defaults(func=_cmd_show)

    p = sub.add_parser("moves", help="list the legal plays of a position for a roll",
                       description="List every distinct legal play for a roll, in gnubg notation, "
                                   "with the Position ID after each (opponent's view).")
    p.add_argument("position_id", help="14-character Position ID; the side on roll moves")
    p.add_argument("dice", type=_parse_dice, help="the roll, e.g. 31 or 6-6")
    p.set_defaults(func=_cmd_moves)

    p = sub.add_parser("match", help="play two players against each other and report ppg",
                       description="Play cubeless money games between players A and B, each dice "
                                   "sequence twice with the seats swapped, and report A's points "
                                   "per game with a 95%% confidence interval, win, gammon and "
                                   "backgammon rates.  With --cube: money games with the doubling "
                                   "cube; with --match-length N: matches to N points.  "
                                   f"Players: {SPEC_HELP}.")
    p.add_argument("a", help="player A, e.g. net, pubeval, net:runs/r1/best.npz")
    p.add_argument("b", help="player B")
    p.add_argument("--games", type=int, default=10000, help="games to play (default 10000)")
    p.add_argument("--seed", type=int, default=0, help="dice seed (default 0)")
    p.add_argument("--threads", type=int, default=None, help="threads (default: all cores)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--cube", action="store_true",
                   help="money games with the doubling cube (decisions: Janowski cube model over "
                        "each player's network, the shipped one for players without)")
    p.add_argument("--match-length", type=int, default=0, metavar="N",
                   help="play --games matches to N points with the cube and the Crawford rule "
                        "(match equity table: Kazaross-XG2, up to 25 points)")
    p.add_argument("--jacoby", action="store_true", help="money games with --cube: the Jacoby rule")
    p.add_argument("--gnubg", metavar="PATH", default=None,
                   help="the gnubg binary for players gnubg and gnubg:N (default: $BGENGINE_GNUBG, "
                        "else gnubg on PATH, else /usr/games/gnubg)")
    p.add_argument("--gnubg-processes", type=int, default=None, metavar="N",
                   help="gnubg processes run at once (default: 16 per core)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress line (shown for matches played from Python: gnubg, external)")
    from bgengine.distributed import add_backend_arguments

    add_backend_arguments(p)
    p.set_defaults(func=_cmd_match)

    p = sub.add_parser("train", help="train a network by self-play (resumable)",
                       description="Train a network by self-play in directory RUN.  Settings come "
                                   "from a TOML file (see TrainConfig in bgengine.train; keys may sit "
                                   "under [train]); a few can be overridden here.  Checkpoints are "
                                   "written every checkpoint_every games; run the same command again "
                                   "to resume exactly where it stopped.  Ctrl-C stops cleanly.")
    p.add_argument("run", help="run directory (created if missing)")
    p.add_argument("--config", help="TOML file with the training settings")
    p.add_argument("--games", type=int, help="total self-play games of the run")
    p.add_argument("--encoder", help="tesauro198, tesauro198+extra, expert, contact or race")
    p.add_argument("--hidden", type=int, nargs="+", help="hidden layer widths, e.g. 80 or 128 64")
    p.add_argument("--seed", type=int, help="seed for weights and dice")
    p.add_argument("--restart", action="store_true",
                   help="start over from game 0, dropping the directory's checkpoint and log")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.set_defaults(func=_cmd_train)

    p = sub.add_parser("plot", help="draw learning curves of training runs to PNG",
                       description="Plot ppg against the evaluation opponent over self-play games "
                                   "for one or more run directories (needs matplotlib).")
    p.add_argument("runs", nargs="+", help="run directories")
    p.add_argument("-o", "--out", help="PNG file (default RUN/learning_curve.png)")
    p.set_defaults(func=_cmd_plot)

    p = sub.add_parser("rollout", help="Monte-Carlo rollout of a position or of each candidate play",
                       description="Play a position out many times with the network choosing "
                                   "every play, and report the mean cubeless equity and "
                                   "probabilities with standard errors.  With --dice, roll out the "
                                   "best few plays of that roll instead (same dice for each).  The "
                                   "first two rolls are stratified over the 36x36 pairs.")
    p.add_argument("position_id", help="14-character Position ID (side on roll to play)")
    p.add_argument("--dice", type=_parse_dice, help="roll out the plays of this roll, e.g. 31")
    p.add_argument("--candidates", type=int, default=5, help="plays to roll out with --dice (default 5)")
    p.add_argument("--trials", type=int, default=1296, help="games per rollout (default 1296)")
    p.add_argument("--truncate", type=int, default=0,
                   help="stop after this many plays and use the network (default 0: play out)")
    p.add_argument("--vr", action="store_true", help="luck-based variance reduction (slower per trial)")
    p.add_argument("--plies", type=int, default=0, help="lookahead of the plays in the trials (default 0)")
    p.add_argument("--network", help="network file (default: the shipped network)")
    p.add_argument("--seed", type=int, default=0, help="seed of the later rolls (default 0)")
    p.add_argument("--threads", type=int, default=None, help="threads (default: all cores)")
    p.set_defaults(func=_cmd_rollout)

    from bgengine.terminal import add_play_parser
    from bgengine.serve import add_serve_parser
    from bgengine.sweep import add_sweep_parsers
    from bgengine.tournament import add_tournament_parser

    add_serve_parser(sub)
    add_play_parser(sub)
    add_sweep_parsers(sub)
    add_tournament_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from bgengine.gnubg import GnubgError

    try:
        return int(args.func(args))
    except (ValueError, ImportError, GnubgError) as exc:  # bad input; an optional program missing
        print(f"bgengine: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bgengine: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
