"""A game between two players, printed move by move (``bgengine demo``).

Players are any :func:`bgengine.matches.players.make_player` spec (``net``,
``pubeval``, ``simple3``, ``random``, ``net:PATH``, ``gnubg``).  The game is driven from
Python one move at a time (:func:`bgengine.matches.game.game_decisions`) so that every move can
be printed; matches and training run whole games in compiled code instead.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TextIO

from bgengine.core.dice import Dice
from bgengine.matches.game import game_decisions, game_seed
from bgengine.matches.players import default_network_path, make_player
from bgengine.position import Position

__all__ = ["GameRecord", "play_demo_game", "default_demo_players"]

log = logging.getLogger(__name__)


def default_demo_players() -> tuple[str, str]:
    """The shipped network against pubeval, or simple3 against random without one."""
    return ("net", "pubeval") if default_network_path().exists() else ("simple3", "random")


@dataclass
class GameRecord:
    """What happened in one demonstration game."""

    winner: str
    points: int          # 1 single, 2 gammon, 3 backgammon
    n_moves: int


def play_demo_game(x: str = "simple3", o: str = "random", seed: int = 1,
                   out: TextIO | None = None) -> GameRecord:
    """Play one cubeless game, X (player ``x``) against O (player ``o``).

    Each turn is printed to ``out`` (if given) as ``X 31: 8/5 6/5``; the final
    board and result follow.
    """
    players = {"X": make_player(x), "O": make_player(o)}
    try:
        return _play(players, x, o, seed, out)
    finally:
        for p in players.values():        # gnubg's processes, an external player's socket
            if hasattr(p, "close"):
                p.close()


def _play(players: dict, x: str, o: str, seed: int, out: TextIO | None) -> GameRecord:
    dice = Dice(seed)
    names = {"X": x, "O": o}
    loop = game_decisions(dice)
    d = next(loop)                      # the opening roll
    # the side with the higher opening die moves first
    first = "X" if dice.next_uint32() % 2 == 0 else "O"
    sides = (first, "O" if first == "X" else "X")     # turn -> side

    def say(text: str) -> None:
        if out is not None:
            print(text, file=out)

    say(f"X = {x}, O = {o}, seed {seed}")
    while True:
        side = sides[d.turn]
        k = players[side].choose(d.board, d.d1, d.d2, seed=game_seed(seed, 0, 0, d.number))
        move = Position(d.board).legal_moves(d.d1, d.d2)[k]
        say(f"{d.number + 1:3d}. {side} {d.d1}{d.d2}: {move}")
        try:
            d = loop.send(k)
        except StopIteration as done:
            first_points, n_moves = done.value
            points = abs(first_points)
            kind = {1: "single game", 2: "gammon", 3: "backgammon"}[points]
            final = move.position.swap()
            say("")
            say(final.to_text(mover=side, opponent="O" if side == "X" else "X"))
            say(f"{side} ({names[side]}) wins a {kind}: {points} point{'s' if points > 1 else ''} "
                f"after {n_moves} moves.")
            return GameRecord(side, points, n_moves)
