"""A Connect Four network's report card, as in the study and the issue's targets: greedy games
from both seats against the reference players (random, MM1..MM4 with their 20% random moves, the
pure-simulation bot), the 60 concept positions, and agreement with the exact solver.

>>> from bgengine.games.network import GameNetwork
>>> net = GameNetwork.load("runs/c4-td/network.npz")
>>> report = network_report(net, games=1000, agreement_positions=1000)
>>> report["concepts"]["defence"], report["agreement"]["outcome"]
"""

from __future__ import annotations

from typing import Any

from bgengine.core.connect4_solver import Solver
from bgengine.games import connect4
from bgengine.games.learners import GameRecord, play
from bgengine.games.network import GameNetwork

__all__ = ["STUDY_OPPONENTS", "AGREEMENT_STONES", "seat_results", "network_report",
           "agreement_positions"]

#: The study's evaluation opponents.
STUDY_OPPONENTS = ("random", "mm1", "mm2", "mm3", "mm4")
#: Solver-agreement positions: random games stopped at a uniformly drawn stone count in this
#: range (inclusive); from 12 stones the solver needs about 0.05 s a position.
AGREEMENT_STONES = (12, 20)


def seat_results(net: GameNetwork, opponent: str, games: int, seed: int,
                 simulations: int = 100) -> dict[str, dict[str, float]]:
    """``games`` greedy games of ``net`` from each seat against ``opponent`` (a player name;
    ``simulation`` spends ``simulations`` playouts a move): the net's win/draw/loss rates by
    seat (``first``, ``second``) and their ``mean`` over the two seats."""
    first = play("connect4", net, opponent, games, seed=seed, simulations=simulations)
    o = play("connect4", opponent, net, games, seed=seed + 1, simulations=simulations)
    second = GameRecord(o.losses, o.draws, o.wins)
    out = {"first": first.rates(), "second": second.rates()}
    out["mean"] = {k: (out["first"][k] + out["second"][k]) / 2 for k in out["first"]}
    return out


def agreement_positions(n: int, seed: int = 0) -> list[str]:
    """``n`` positions (move sequences) of random games, each stopped at a stone count drawn
    uniformly from :data:`AGREEMENT_STONES` (or fewer, when a game ends before)."""
    lo, hi = AGREEMENT_STONES
    return connect4.random_positions(n, seed=seed, min_stones=lo, max_stones=hi)


def network_report(net: GameNetwork, games: int = 1000, *, seed: int = 20260101,
                   opponents: tuple[str, ...] = STUDY_OPPONENTS, simulations: tuple[int, ...] = (),
                   agreement: int = 0, solver: Solver | None = None) -> dict[str, Any]:
    """The network's figures: ``opponents`` (name -> :func:`seat_results`, ``games`` a seat;
    ``simN`` for each N of ``simulations``), ``concepts`` (:func:`connect4.concept_rates` of
    the 60 positions) and, with ``agreement`` positions (:func:`agreement_positions`),
    ``agreement`` (:func:`connect4.solver_agreement`: ``outcome``, the net's move keeps the
    solver's win/draw/loss; ``exact``, it is a best-score move)."""
    results = {name: seat_results(net, name, games, seed) for name in opponents}
    for n in simulations:
        results[f"sim{n}"] = seat_results(net, "simulation", games, seed, simulations=n)
    choose = connect4.network_chooser(net)
    report: dict[str, Any] = {"opponents": results, "concepts": connect4.concept_rates(choose)}
    if agreement:
        report["agreement"] = connect4.solver_agreement(
            choose, agreement_positions(agreement, seed), solver)
        report["agreement"]["positions"] = agreement
    return report
