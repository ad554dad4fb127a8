"""The small games' plug-in to the backgammon commands (:mod:`bgengine.other_games`),
registered as the entry point ``bgengine.games: small``: ``match`` and ``tournament
roundrobin`` between ``GAME:PLAYER`` specs, ``play --game``, and ``train`` on a small game's
run config (:mod:`bgengine.games.study`)."""

from __future__ import annotations

import dataclasses
import logging
from os import PathLike
from typing import Any, TextIO

__all__ = ["SmallGames", "PLUGIN"]

#: The first mover a console uses when none is given, by game.
_DEFAULT_PLAYER = {"connect4": "mm4-greedy", "tictactoe": "solver"}


class SmallGames:
    """Tic-tac-toe and Connect Four in the commands."""

    games = ("connect4", "tictactoe")

    @property
    def player_help(self) -> str:
        from bgengine.games.specs import SPEC_HELP

        return SPEC_HELP

    def owns_player(self, spec: str) -> bool:
        from bgengine.games.specs import split_game_spec

        return split_game_spec(spec) is not None

    def owns_run_config(self, path: str | PathLike[str]) -> bool:
        from bgengine.games.study import is_game_config

        return is_game_config(path)

    def match(self, args: Any) -> tuple[dict, str]:
        from bgengine.games.specs import describe, game_match

        result = game_match(args.a, args.b, args.games, seed=args.seed)
        return result, describe(result)

    def round_robin(self, args: Any, stop, bar) -> tuple[dict, str, bool, list]:
        """The score matrix and ranking, saved in ``args.out``."""
        from bgengine.games.tournament import game_round_robin

        total = len(args.players) * (len(args.players) - 1) // 2
        count = [0]

        def on_pairing(rr, i: int, j: int) -> None:
            count[0] += 1
            r = rr.results[(i, j)]
            bar.note(f"[{count[0]}/{total}] {r['a']} vs {r['b']}: score {r['score']:.3f} "
                     f"± {r['ci95']:.3f} ({r['games']} games)")
            bar(count[0], total)

        rr = game_round_robin(args.players, args.games, seed=args.seed, stop=stop,
                              on_pairing=on_pairing)
        return rr.as_dict(), rr.table(), rr.complete, rr.save(args.out)

    def play(self, args: Any, inp: TextIO, out: TextIO, echo: bool) -> int:
        player = args.player or _DEFAULT_PLAYER[args.game]
        if args.game == "connect4":
            from bgengine.games.connect4_console import play_connect4

            return play_connect4(inp, out, player, not args.second, seed=args.seed or 0,
                                 echo=echo)
        from bgengine.games.tictactoe_console import play_tictactoe

        return play_tictactoe(inp, out, player, not args.second, seed=args.seed or 0, echo=echo)

    def train(self, args: Any, config: str | PathLike[str], stop,
              bar_for) -> tuple[dict, str, int, int]:
        """Train (or resume) the run; its summary, text, games done and games asked for.
        ``bar_for(total)`` is the progress bar to drive."""
        from bgengine.games.study import GameRunConfig, train_game_run
        from bgengine.training.run_dir import RunDir

        settings = GameRunConfig.from_toml(config)
        overrides = {k: v for k, v in (("games", args.games), ("seed", args.seed),
                                       ("representation", args.encoder),
                                       ("hidden", args.hidden)) if v is not None}
        if overrides:
            settings = GameRunConfig(**{**dataclasses.asdict(settings), **overrides})
        logging.getLogger("bgengine").setLevel(logging.INFO)
        with bar_for(settings.games) as bar:
            net = train_game_run(settings, args.run, resume=not args.restart,
                                 progress=lambda done, total: bar(done, total), stop=stop)
        done = int(net.metadata["games"])
        network = RunDir(args.run).network
        return ({"run": args.run, "game": settings.game, "games": done, "network": str(network),
                 "complete": done >= settings.games},
                f"{args.run}: {net!r}, {done} games, network in {network}", done, settings.games)


    def sweep_kind(self, game: str):
        from bgengine.games.study import GameRunConfig, sweep_run
        from bgengine.training.sweep import SweepKind

        return SweepKind(game, GameRunConfig, sweep_run, "win - loss, all opponents")

    def games_counted(self, config: str | PathLike[str]) -> str:
        from bgengine.games.study import GameRunConfig, games_counted

        return games_counted(GameRunConfig.from_toml(config))


#: The entry point's object.
PLUGIN = SmallGames()
