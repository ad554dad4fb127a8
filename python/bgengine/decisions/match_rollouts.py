"""Cubeful rollouts of a cube decision at a match score.

Each trial plays the game on from the position twice on the same dice: once with no double
now, once doubled and taken; from then on both sides use the cube by the engine's match
model (:meth:`bgengine.decisions.engine.Engine.cube_decision` and ``take_decision``, at
0-ply) and play the engine's cubeless 0-ply plays.  A trial's value is the side on roll's
match-winning chance at the score the game leaves, from the match equity table (1 for a
match won, 0 for one lost), the Crawford rule followed; double/pass is exact.  The games are
played by the Python game loop (the plays themselves compiled), a few milliseconds a trial:
money play has the compiled :func:`bgengine.core.cuberollout.rollout_cube`.
"""

from __future__ import annotations

import math

import numpy as np

from bgengine._checks import checked_int
from bgengine.core.board import validate_board
from bgengine.core.dice import Dice
from bgengine.core.search import MAX_TRIALS
from bgengine.decisions.cube import CubeInfo, MatchEquityTable, decision_of_values
from bgengine.decisions.rollouts import CubeRolloutResult, rollout_position
from bgengine.matches.game import CubeGame, answer_locally
from bgengine.notation.ids import MatchState
from bgengine.types import Progress

__all__ = ["rollout_match_cube_decision", "match_winning_chance_after"]


def match_winning_chance_after(state: MatchState, seat: int, winner: int, points: int,
                               met: MatchEquityTable) -> float:
    """Seat ``seat``'s match-winning chance once the game of ``state`` ends with ``winner``
    scoring ``points``: the table's at the new score, with the Crawford game played if
    this game was it or came after it (a side was 1-away before it)."""
    score = list(state.score)
    score[winner] += points
    away = [state.match_length - s for s in score]
    before = [state.match_length - s for s in state.score]
    post = bool(state.crawford) or min(before) == 1
    return met(away[seat], away[1 - seat], post_crawford=post)


def rollout_match_cube_decision(engine, board, state: MatchState, trials: int = 1296,
                                seed: int = 0, progress: Progress | None = None
                                ) -> CubeRolloutResult:
    """Roll out the cube decision of ``board`` (the side on roll, seat
    ``state.player_on_roll``, before it rolls) at the match score and cube of ``state``,
    with ``engine``'s network and cube model (see the module docstring).  Values are the
    side on roll's match-winning chances: no double, double/take (the trials' mean) and
    double/pass (exact), with standard errors (``difference_stderr`` of double/take minus
    no double, which share their dice).  ``cubeless``: the compiled cubeless rollout of
    the position (its own dice).  ``progress(trials done, trials)`` every 64 trials.
    ``ValueError`` in money play, or where the side on roll cannot double (a dead cube,
    the Crawford game, the cube the opponent's)."""
    trials = checked_int(trials, "trials", 1, MAX_TRIALS, "1..10**7")
    board = validate_board(board)
    seat = state.player_on_roll
    info = CubeInfo.from_match_state(state, seat)
    if info.is_money:
        raise ValueError("money play: use rollout_cube_decision (compiled)")
    if not info.can_double():
        raise ValueError("the side on roll cannot double here (the Crawford game, a dead cube "
                         "or the opponent's cube): there is no cube decision to roll out")
    # the same engine at 0-ply, cubeless plays (its class: no import of the engine here)
    roller = type(engine)(engine.player, engine.network, plies=0, met=engine.met,
                          plays_at_score=False, efficiency=engine.efficiency)
    players, engines = (roller.player, roller.player), (roller, roller)
    met = roller.met
    values = np.zeros((trials, 2))
    for t in range(trials):
        for variant in (0, 1):
            dice = Dice(seed, stream=t)
            game = CubeGame(players, engines, match_length=state.match_length,
                            score=list(state.score), crawford=state.crawford, jacoby=False,
                            seed=(seed * 1000003 + t) & (2**63 - 1))
            game.cube, game.owner = state.cube, state.cube_owner
            if variant:                      # doubled and taken: the taker owns the cube
                game.cube, game.owner = 2 * state.cube, 1 - seat
            steps = game.steps(dice, seat, dice.roll(), start=board)
            answer = None
            while True:
                try:
                    event = steps.send(answer)
                except StopIteration as done:
                    winner, points = done.value
                    break
                answer = answer_locally(players, engines, event, game)
            values[t, variant] = match_winning_chance_after(state, seat, winner, points, met)
        if progress is not None and ((t + 1) % 64 == 0 or t + 1 == trials):
            progress(t + 1, trials)
    double_pass = match_winning_chance_after(state, seat, seat, state.cube, met)
    (nd, nd_se), (dt, dt_se), (_, diff_se) = (
        _mean_stderr(v) for v in (values[:, 0], values[:, 1], values[:, 1] - values[:, 0]))
    cubeless = rollout_position(engine.network, board, trials, seed=seed)
    return CubeRolloutResult(nd, dt, double_pass, nd_se, dt_se, diff_se, trials,
                             decision_of_values(nd, dt, double_pass, True), cubeless)


def _mean_stderr(v: np.ndarray) -> tuple[float, float]:
    """Mean and its standard error, exact where the values are all equal (a sure result
    stays a tie with double/pass, not a rounding's double)."""
    mean = math.fsum(v) / len(v)
    if len(v) < 2:
        return mean, 0.0
    return mean, math.sqrt(math.fsum((v - mean) ** 2) / (len(v) - 1) / len(v))
