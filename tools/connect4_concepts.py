"""Write python/bgengine/data/connect4_concepts.txt: the 60 Connect Four concept positions.

30 attack positions (the side to move makes four at once: 10 by a column, 10 by a diagonal,
10 by a row) and 30 defence positions (the only move that does not lose blocks the opponent's
immediate four; 10 of each line), found in games of the reference players and each checked by
the exact solver to have exactly one correct move (``classify_concept``).  One position a game
at most, and none earlier than MIN_STONES (the solver's checks stay quick).  Usage::

    python tools/connect4_concepts.py [--seed 0]
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from bgengine.connect4 import Board
from bgengine.dice import Dice
from bgengine.games.connect4 import CONCEPTS_FILE, Concept, classify_concept, make_player
from bgengine.connect4_solver import Solver

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


def find(seed: int) -> list[Concept]:
    dice, solver = Dice(seed), Solver()
    found: dict[tuple[str, str], list[Concept]] = {
        (k, line): [] for k in ("attack", "defence") for line in ("column", "diagonal", "row")}
    games = 0
    while any(len(v) < PER_CLASS for v in found.values()):
        first, second = PAIRINGS[games % len(PAIRINGS)]
        games += 1
        for seq in reversed(game_positions(first, second, dice)):   # late positions solve fast
            concept = classify_concept(seq, solver)
            if concept is not None and len(found[concept.kind, concept.line]) < PER_CLASS:
                found[concept.kind, concept.line].append(concept)
                log.info("game %d: %s %s %s", games, concept.kind, concept.line, seq)
                break
    log.info("%d games searched", games)
    return [c for v in found.values() for c in v]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    concepts = find(args.seed)
    lines = ["# Connect Four concept positions, written by tools/connect4_concepts.py "
             f"(seed {args.seed}).",
             "# A line: the columns played (1-based), attack|defence, the line made or blocked,",
             "# and the one correct column (1-based), checked by the exact solver."]
    lines += [f"{c.moves} {c.kind} {c.line} {c.answer + 1}" for c in concepts]
    args.out.write_text("\n".join(lines) + "\n")
    log.info("wrote %d positions to %s", len(concepts), args.out)


if __name__ == "__main__":
    main()
