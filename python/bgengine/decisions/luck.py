"""The luck of the dice, for luck-adjusted match results.

A roll's **luck** is the mover's cubeless equity after the best 0-ply play of the
roll made, minus the mean of that value over every roll it could have been (the
30 non-doubles on a game's opening roll, all 36 otherwise), as gnubg's analysis
measures it.  Whatever network values the plays, a roll's luck has mean exactly
zero over the dice given everything before it, so a game's points minus the
luck of all its rolls (the opponent's counted against) has the same
expectation as the points themselves: an unbiased estimate of the points per
game, with a much smaller spread when the network is good, because most of a
game's result is the dice.  That is the *luck-adjusted* result of
:class:`bgengine.matches.results.MatchResult`.

The estimate stays unbiased only if the dice are independent of the players:
true of every match bgengine plays (the dice come from ``Dice(seed, stream)``).

In money games with the cube (a :class:`LuckMeter` made with ``cubeful=True``) a roll's
value is the mover's *cubeful* equity after the play, in points: the cube model
(:mod:`bgengine.decisions.cube`, compiled) over the 0-ply outputs of the position the play leaves,
the other side on roll, at the cube and owner of that roll, times the cube.  It is still a
function of the position, the cube and the roll alone, so the luck keeps mean zero; the
cube's actions are the players' and carry no luck.
"""

from __future__ import annotations

import os
import queue
from collections.abc import Hashable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import NamedTuple

import numpy as np

from bgengine.core.board import game_result
from bgengine.core.cubesearch import cube_search
from bgengine.core.cuberollout import money_table
from bgengine.core.network import equity_of
from bgengine.core.search import Searcher
from bgengine.decisions.efficiency import CubeEfficiency

__all__ = ["LuckMeter", "LuckPool", "ROLLS", "Roll", "cube_roll", "roll_luck"]

#: (d1, d2) of the 21 distinct rolls, d1 >= d2 (int32, (21, 2)), and each one's weight in 36.
ROLLS = np.array([(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)], np.int32)
_WEIGHTS = np.where(ROLLS[:, 0] == ROLLS[:, 1], 1.0, 2.0)
_OPENING_WEIGHTS = np.where(ROLLS[:, 0] == ROLLS[:, 1], 0.0, 2.0)


def roll_luck(values, d1: int, d2: int, opening: bool = False) -> float:
    """The luck of rolling ``d1-d2``: ``values`` (21, in :data:`ROLLS`' order) are the
    mover's values after each roll's best play, in any units; the rolled one's minus
    their mean over the 36 rolls (the 30 non-doubles when ``opening``: a game's first
    roll is never a double)."""
    v = np.asarray(values, np.float64)
    weights = _OPENING_WEIGHTS if opening else _WEIGHTS
    hi, lo = max(d1, d2), min(d1, d2)
    rolled = (hi - 1) * hi // 2 + lo - 1       # index of (hi, lo) in ROLLS
    return float(v[rolled] - (weights @ v) / weights.sum())


class Roll(NamedTuple):
    """One roll of a game, for :meth:`LuckMeter.game_luck`: the position (the mover
    in row 1), the dice, whether it was the game's opening roll, and whether the
    side whose luck is summed was the one that rolled; in money games with the cube, the
    cube's value and owner (``"centre"``, ``"me"``: the mover, ``"opponent"``) when it
    rolled and the Jacoby rule."""

    board: np.ndarray
    d1: int
    d2: int
    opening: bool
    ours: bool
    cube: int = 1
    owner: str = "centre"
    jacoby: bool = False


_OTHER_OWNER = {"centre": "centre", "me": "opponent", "opponent": "me"}
#: The money score table of the cube search (points per cube).
_MONEY = money_table()


def cube_roll(decision, game, ours: bool) -> Roll:
    """The :class:`Roll` of a play ``decision`` (a :class:`bgengine.matches.game.Decision`)
    in ``game`` (the :class:`bgengine.matches.game.CubeGame` it is played in), at the
    game's cube when it was rolled; ``ours``: the side whose luck is summed rolled it."""
    owner = ("centre" if game.owner == -1 else "me" if game.owner == decision.turn
             else "opponent")
    return Roll(decision.board, decision.d1, decision.d2, decision.number == 0, ours,
                game.cube, owner, bool(game.jacoby))


class LuckMeter:
    """The luck of rolls, valued by ``network`` (a network, evaluator or file) at 0-ply;
    ``cubeful``: in cubeful money points (the rolls' cube, owner and Jacoby rule), else
    cubeless.

    Not thread-safe (one search at a time, as :class:`bgengine.core.search.Searcher`).
    """

    def __init__(self, network, cubeful: bool = False) -> None:
        self.network = network
        self.cubeful = bool(cubeful)
        self.searcher = Searcher(network)
        self.efficiency = CubeEfficiency.of_evaluator(network) if cubeful else None

    def copy(self) -> LuckMeter:
        """A meter over the same network, for another thread (the weights are shared)."""
        return LuckMeter(self.network, self.cubeful)

    def luck(self, board, d1: int, d2: int, opening: bool = False, cube: int = 1,
             owner: str = "centre", jacoby: bool = False) -> float:
        """The mover's luck in rolling ``d1-d2`` at ``board`` (the mover in row 1, as
        :class:`bgengine.matches.game.Decision`), in cubeless points, or for a cubeful
        meter in points at ``cube`` held by ``owner`` (the mover's view); ``opening``: the
        game's first roll (never a double)."""
        afters, outputs = self.searcher.best_plays(board, ROLLS, plies=0)
        if not self.cubeful:
            return roll_luck(equity_of(outputs), d1, d2, opening)
        return roll_luck(self._cubeful_values(afters, outputs, cube, owner, jacoby),
                         d1, d2, opening)

    def _cubeful_values(self, afters: np.ndarray, outputs: np.ndarray, cube: int, owner: str,
                        jacoby: bool) -> np.ndarray:
        """The mover's cubeful points after each roll's play: what the other side, then on
        roll, is worth by the cube model, negated; a game the play ends, its points."""
        values = np.zeros(len(afters))
        done = afters[:, 1].sum(axis=1) == 0          # the mover bore off its last checker
        for i in np.flatnonzero(done):
            values[i] = 1 if jacoby and owner == "centre" else game_result(afters[i])
        live = np.flatnonzero(~done)
        if len(live):
            turned = np.ascontiguousarray(afters[live, ::-1, :])
            assert self.efficiency is not None
            theirs = cube_search(self.searcher.evaluator, turned, 0, *_MONEY, jacoby=jacoby,
                                 owner=_OTHER_OWNER[owner], efficiency=self.efficiency.values)
            values[live] = -theirs[:, 0]
        return cube * values

    def game_luck(self, rolls: Iterable[Roll]) -> float:
        """One side's luck over ``rolls``: its own rolls' luck minus its opponent's."""
        total = 0.0
        for r in rolls:
            x = self.luck(r.board, r.d1, r.d2, r.opening, r.cube, r.owner, r.jacoby)
            total += x if r.ours else -x
        return total


class LuckPool:
    """Finished games' luck measured in the background, on threads of their own (the
    search releases the GIL), each with its own copy of ``meter``; one per core
    unless ``threads`` says.  Use as a context manager: :meth:`submit` each game's
    rolls under a key, then take :meth:`results` (waits for them)."""

    def __init__(self, meter: LuckMeter, threads: int | None = None) -> None:
        n = threads or os.cpu_count() or 1
        self._meters: queue.SimpleQueue[LuckMeter] = queue.SimpleQueue()
        for m in [meter] + [meter.copy() for _ in range(n - 1)]:
            self._meters.put(m)
        self._threads = ThreadPoolExecutor(n, "bgengine-luck")
        self._futures: dict[Hashable, Future[float]] = {}

    def _game_luck(self, rolls: list[Roll]) -> float:
        meter = self._meters.get()
        try:
            return meter.game_luck(rolls)
        finally:
            self._meters.put(meter)

    def submit(self, key: Hashable, rolls: list[Roll]) -> None:
        """Measure one game's luck (:meth:`LuckMeter.game_luck` of ``rolls``)."""
        self._futures[key] = self._threads.submit(self._game_luck, rolls)

    def results(self) -> dict[Hashable, float]:
        """The luck of every game submitted, by key, once measured; raises what measuring
        one raised."""
        return {key: f.result() for key, f in self._futures.items()}

    def close(self) -> None:
        """Stop the threads; games not yet measured are dropped."""
        self._threads.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> LuckPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
