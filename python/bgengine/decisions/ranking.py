"""The ranking of a roll's plays for hints and analysis: every play at 0-ply, the best
searched deeper."""

from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from bgengine.core.board import game_result
from bgengine.core.movegen import legal_afterstates
from bgengine.core.network import equity_of, flip_outputs
from bgengine.core.search import Searcher
from bgengine.types import Board

__all__ = ["RankedPlay", "rank_plays"]


class RankedPlay(NamedTuple):
    """One play of a hint: its ``index`` in the legal plays, the mover's
    ``outputs`` after it (the network's form, float64), their cubeless
    ``equity`` and the ``plies`` of lookahead behind them."""

    index: int
    outputs: np.ndarray
    equity: float
    plies: int


def rank_plays(searcher: Searcher, board: Board, d1: int, d2: int, n: int = 5,
               plies: int = 0, include: Sequence[int] = (),
               within: float | None = None) -> list[RankedPlay]:
    """The best ``n`` plays of ``d1``-``d2`` for the side on roll (row 1 of ``board``), best first.

    All plays are ranked at 0-ply; the best ``n`` (at least 5) are then
    searched at ``plies`` and re-sorted.  ``include``: indices of plays that are
    searched at ``plies`` and returned (after the best ``n``) even when not among
    them, e.g. the play an analysed player made.  ``within``: of the best ``n`` only
    those within this cubeless equity of the best at 0-ply are searched at ``plies``
    (the rest keep their 0-ply values and are not returned).
    """
    wanted = set(include)
    rows = searcher.rank_moves(board, d1, d2, 0)
    top = [RankedPlay(i, np.asarray(o, dtype=np.float64), float(e), 0) for i, o, e in rows]
    wide = max(n, 5)
    if within is not None:
        wide = max(1, sum(r.equity >= top[0].equity - within for r in top[:wide]))
        n = min(n, wide)
    if plies > 0:
        afters, _ = legal_afterstates(board, d1, d2)

        def deeper(row: RankedPlay) -> RankedPlay:
            after = afters[row.index][::-1]         # the opponent on roll
            if game_result(after):
                return row._replace(plies=plies)
            out = flip_outputs(searcher.evaluate(after, plies))
            return RankedPlay(row.index, out, equity_of(out), plies)

        searched = sorted((deeper(r) for r in top[:wide]), key=lambda r: -r.equity)
        top = searched + [deeper(r) if r.index in wanted else r for r in top[wide:]]
    return top[:n] + [r for r in top[n:] if r.index in wanted]
