"""A user's program, typed as a library user writes one: checked by ``mypy --strict``
(tests/test_typing.py) against the installed package's annotations and stubs, and run."""

from __future__ import annotations

import numpy as np

import bgengine
from bgengine.decisions.engine import Engine
from bgengine.notation.ids import position_id
from bgengine.matches.run import run_match
from bgengine.matches.results import MatchResult
from bgengine.core.network import Network
from bgengine.position import Position
from bgengine.core.search import Searcher, rollout


def engine_play(engine: Engine, position: Position, d1: int, d2: int) -> str:
    """The engine's play of ``d1``-``d2`` as gnubg writes it."""
    steps = engine.choose_move(position.board, d1, d2)
    return " ".join(f"{a}/{b}" for a, b in steps)


def main() -> None:
    start: Position = bgengine.Position.initial()
    net: Network = Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=1)
    outputs: np.ndarray = net.evaluate(start.board)
    equity: float = float(net.equity(start.board))
    searcher = Searcher(net)
    two_ply: np.ndarray = searcher.evaluate(start.board, 1)
    result = rollout(net, start.board, 36, n_threads=1)
    after = start.play("24/13", 6, 5)
    key: str = position_id(after.board)
    games: MatchResult = run_match(bgengine.make_player("pubeval"),
                                   bgengine.make_player("random"), 20, seed=1)
    print(engine_play(Engine(), start, 3, 1))
    print(outputs.shape, round(equity, 3), two_ply.shape, result["equity"], key, games.ppg)


if __name__ == "__main__":
    main()
