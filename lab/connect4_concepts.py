"""Write python/bgengine/data/connect4_concepts.txt: the 60 Connect Four concept positions.

30 attack positions (the side to move makes four at once: 10 by a column, 10 by a diagonal,
10 by a row) and the same 30 inverted: the same stones with the other side to move, whose only
move that does not lose blocks that four.  The attack positions are found in games of the
reference players, with the first player to move (so that the inverted position is one of a
game too: the stones' counts fit either side to move), and both members of each pair are
checked by the exact solver to have exactly one correct move (``classify_concept``).  One pair
a game at most, and none earlier than MIN_STONES (the solver's checks stay quick).  Usage::

    python lab/connect4_concepts.py [--seed 0]
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from bgengine.core.connect4 import Board
from bgengine.core.dice import Dice
from bgengine.games.connect4 import (CONCEPTS_FILE, Concept, classify_concept, make_player,
                                     moves_of)
from bgengine.core.connect4_solver import Solver

OUT = Path(__file__).resolve().parents[1] / "python" / "bgengine" / "data" / CONCEPTS_FILE
PER_CLASS = 10
MIN_STONES = 12
#: the pairings whose games are searched, in turn: varied play, from random to careful
PAIRINGS = (("random", "random"), ("mm1", "random"), ("mm2", "mm1"), ("mm2", "mm2@0.5"))

log = logging.getLogger("connect4_concepts")


def game_positions(first: str, second: str, dice: Dice) -> list[str]:
    """The move sequences of one game's positions (from MIN_STONES stones on, game going on)."""
    players = (make_player(first), make_player(second))
    board, seq, out = Board(), "", []
    while board.legal_moves():
        if board.moves >= MIN_STONES:
            out.append(seq)
        col = players[board.moves % 2].move(board, dice)
        board.play(col)
        seq += str(col + 1)
    return out


def inverted(moves: str) -> str | None:
    """The moves of the position with the same stones and the other side to move."""
    board = Board.from_moves(moves)
    return moves_of(Board.from_bits(board.own ^ board.mask, board.mask))


def find(seed: int) -> list[Concept]:
    dice, solver = Dice(seed), Solver()
    found: dict[str, list[tuple[Concept, Concept]]] = {
        line: [] for line in ("column", "diagonal", "row")}
    games = 0
    while any(len(v) < PER_CLASS for v in found.values()):
        first, second = PAIRINGS[games % len(PAIRINGS)]
        games += 1
        for seq in reversed(game_positions(first, second, dice)):   # late positions solve fast
            if len(seq) % 2:                    # the second player to move: no inversion
                continue
            attack = classify_concept(seq, solver)
            if attack is None or attack.kind != "attack" or len(found[attack.line]) >= PER_CLASS:
                continue
            other = inverted(seq)
            defence = classify_concept(other, solver) if other is not None else None
            if defence == Concept(other, "defence", attack.line, attack.answer):
                found[attack.line].append((attack, defence))
                log.info("game %d: %s %s / %s", games, attack.line, seq, other)
                break
    log.info("%d games searched", games)
    pairs = [p for v in found.values() for p in v]
    return [a for a, _ in pairs] + [d for _, d in pairs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    concepts = find(args.seed)
    lines = ["# Connect Four concept positions, written by lab/connect4_concepts.py "
             f"(seed {args.seed}).",
             "# A line: the columns played (1-based), attack|defence, the line made or blocked,",
             "# and the one correct column (1-based), checked by the exact solver."]
    lines += [f"{c.moves} {c.kind} {c.line} {c.answer + 1}" for c in concepts]
    args.out.write_text("\n".join(lines) + "\n")
    log.info("wrote %d positions to %s", len(concepts), args.out)


if __name__ == "__main__":
    main()
