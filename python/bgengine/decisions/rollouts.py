"""Rollouts of a position or of each candidate play, with standard errors.

The compiled :func:`bgengine.core.search.rollout` plays the games (and
:func:`bgengine.core.cuberollout.rollout_cube` with the cube in play); this module picks
the candidates and turns results round to the right side.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from bgengine._checks import MAX_LISTED_PLAYS, checked_int
from bgengine.core.board import validate_board
from bgengine.core.network import OUTPUT_FLIP_ORDER, Network, equity_of, flip_outputs
from bgengine.position import Position
from bgengine.core.cuberollout import rollout_cube
from bgengine.core.search import MAX_TRIALS, Searcher, _target, rollout
from bgengine.decisions.cube import (CubeDecision, CubeEfficiency, CubeInfo, MatchEquityTable,
                                     decision_of_values, score_table)
from bgengine.types import Progress

__all__ = ["RolloutResult", "CubeRolloutResult", "rollout_position", "rollout_moves",
           "rollout_cube_decision"]


@dataclass(frozen=True)
class RolloutResult:
    """Mean outputs and cubeless equity from the side that is to play, with standard errors."""

    label: str
    equity: float
    stderr: float
    outputs: tuple[float, ...]
    outputs_stderr: tuple[float, ...]
    trials: int

    def __str__(self) -> str:
        probs = " ".join(f"{p:.3f}" for p in self.outputs)
        return f"{self.label:<28} equity {self.equity:+.4f} ± {self.stderr:.4f}   [{probs}]"


@dataclass(frozen=True)
class CubeRolloutResult:
    """A cubeful rollout of the cube decision before the roll, from the side on roll: the
    mean points per the current cube won (at a match score, the match-winning chance) with
    no double now and after a double and a take (both sides then using the cube by the
    engine's model), double/pass (1 in money play), their
    standard errors (``difference_stderr``: of double/take minus no double, which share
    their dice), the ``decision`` they call for, and ``cubeless``, the cubeless rollout of
    the same games."""

    no_double: float
    double_take: float
    double_pass: float
    no_double_stderr: float
    double_take_stderr: float
    difference_stderr: float
    trials: int
    decision: CubeDecision
    cubeless: RolloutResult

    def __str__(self) -> str:
        return (f"no double {self.no_double:+.4f} ± {self.no_double_stderr:.4f}   "
                f"double/take {self.double_take:+.4f} ± {self.double_take_stderr:.4f}   "
                f"double/pass {self.double_pass:+.4f}   (difference ± "
                f"{self.difference_stderr:.4f}): {self.decision.action}")


def rollout_cube_decision(network: Network, board, info: CubeInfo, trials: int = 1296,
                          efficiency: CubeEfficiency | None = None,
                          met: MatchEquityTable | None = None, **kw) -> CubeRolloutResult:
    """Roll out the cube decision of ``board`` (side on roll before it rolls) with the cube
    and score ``info`` by :func:`bgengine.core.cuberollout.rollout_cube` (``kw``: seed,
    truncate, plies, n_threads): in money play (its owner and the Jacoby rule) values are
    points per its cube; at a match score, match-winning chances from ``met`` (default the
    shipped table) at the score each trial's game leaves, the Crawford rule followed.  The
    trials' cube actions use ``efficiency`` (default: the network file's,
    :meth:`CubeEfficiency.of_evaluator`).  At a match score where the side on roll cannot
    double (the Crawford game, a dead cube, the opponent's cube) there is no decision to
    roll out: ``ValueError``."""
    if not info.is_money and not info.can_double():
        raise ValueError("the side on roll cannot double here (the Crawford game, a dead cube "
                         "or the opponent's cube): there is no cube decision to roll out")
    if efficiency is None:
        efficiency = CubeEfficiency.of_evaluator(network)
    table = None if info.is_money else score_table(info, met)
    r = rollout_cube(network, validate_board(board), trials, owner=info.owner,
                     jacoby=info.jacoby, efficiency=efficiency.values, table=table, **kw)
    cubeless = RolloutResult("position", r["equity"], r["stderr"], tuple(r["outputs"]),
                             tuple(r["outputs_stderr"]), r["trials"])
    return CubeRolloutResult(r["no_double"], r["double_take"], r["double_pass"],
                             r["no_double_stderr"], r["double_take_stderr"],
                             r["difference_stderr"], r["trials"],
                             decision_of_values(r["no_double"], r["double_take"],
                                                r["double_pass"], info.can_double(),
                                                info.beavers),
                             cubeless)


def rollout_position(network: Network, board, trials: int = 1296, **kw) -> RolloutResult:
    """Roll out ``board`` with the side on roll about to roll (see :func:`bgengine.core.search.rollout`)."""
    r = rollout(network, validate_board(board), trials, **kw)
    return RolloutResult("position", r["equity"], r["stderr"], tuple(r["outputs"]),
                         tuple(r["outputs_stderr"]), r["trials"])


def rollout_moves(network: Network, board, d1: int, d2: int, trials: int = 1296,
                  candidates: int = 5, indices: Sequence[int] | None = None,
                  progress: Progress | None = None, **kw) -> list[RolloutResult]:
    """Roll out the best ``candidates`` plays (by 0-ply) of the roll ``d1``-``d2``,
    or, given ``indices`` (into ``Position(board).legal_moves(d1, d2)``), those plays;
    ``progress(plays done, plays)`` after each.

    Every candidate is played out with the same dice (the same trial numbers
    and seed), so their differences are measured much more precisely than
    their values.  Results are from the mover's side, best first; each one's
    ``label`` is its play's notation.

    ``trials``: 1..:data:`bgengine.core.search.MAX_TRIALS` (10**7) per play; ``candidates``:
    1..10**6 (more than the roll's plays: all of them); integers (not bools or floats),
    checked, with ``indices``, before any play is rolled out.
    """
    trials = checked_int(trials, "trials", 1, MAX_TRIALS, "1..10**7")
    pos = Position(board)
    moves = pos.legal_moves(d1, d2)
    if indices is None:
        candidates = checked_int(candidates, "candidates", 1, MAX_LISTED_PLAYS, "1..10**6")
        ranked = Searcher(network, cache_bits=0).rank_moves(pos.board, d1, d2, 0)
        indices = [index for index, _, _ in ranked[:candidates]]
    else:
        indices = [checked_int(i, "indices", 0, len(moves) - 1) for i in indices]
    results = []
    for done, index in enumerate(indices, 1):
        results.append(_rollout_play(network, moves[index], trials, kw))
        if progress is not None:
            progress(done, len(indices))
    results.sort(key=lambda r: -r.equity)
    return results


def _rollout_play(network: Network, move, trials: int, kw: dict) -> RolloutResult:
    """The rollout of one play (the position after it, opponent on roll), from the
    mover's side."""
    after = move.position          # opponent on roll
    if after.result():             # the play ends the game: its value is exact
        out = _target(network.n_outputs, -after.result()).astype(np.float64)
        return RolloutResult(str(move), equity_of(out), 0.0, tuple(out), (0.0,) * len(out),
                             trials)
    r = rollout(network, after.board, trials, **kw)
    mine = flip_outputs(r["outputs"])
    err = np.asarray(r["outputs_stderr"])[list(OUTPUT_FLIP_ORDER[len(mine)])]   # errors only permute
    return RolloutResult(str(move), -r["equity"], r["stderr"], tuple(mine), tuple(err),
                         r["trials"])
