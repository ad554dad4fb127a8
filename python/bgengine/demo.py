"""A game between two players, printed move by move (``bgengine demo``).

Players are any :func:`bgengine.players.make_player` spec (``net``,
``pubeval``, ``simple3``, ``random``, ``net:PATH``, ``gnubg``).  The game is driven from
Python one move at a time so that every move can be printed; matches and
training run whole games in compiled code instead.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TextIO

from bgengine.dice import Dice
from bgengine.players import default_network_path, make_player
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
    d1, d2 = dice.opening_roll()
    # the side with the higher opening die moves first
    side = "X" if dice.next_uint32() % 2 == 0 else "O"
    position = Position.initial()
    n_moves = 0

    def say(text: str) -> None:
        if out is not None:
            print(text, file=out)

    say(f"X = {x}, O = {o}, seed {seed}")
    while True:
        moves = position.legal_moves(d1, d2)
        move = moves[players[side].choose(position.board, d1, d2, seed=seed * 100003 + n_moves)]
        n_moves += 1
        say(f"{n_moves:3d}. {side} {d1}{d2}: {move}")
        position = move.position
        result = position.result()
        if result:
            # the mover is now in row 0, so a finished game reads negative
            points = -result
            kind = {1: "single game", 2: "gammon", 3: "backgammon"}[points]
            final = position.swap()
            say("")
            say(final.to_text(mover=side, opponent="O" if side == "X" else "X"))
            say(f"{side} ({names[side]}) wins a {kind}: {points} point{'s' if points > 1 else ''} "
                f"after {n_moves} moves.")
            return GameRecord(side, points, n_moves)
        side = "O" if side == "X" else "X"
        d1, d2 = dice.roll()
