"""Output calibration: a network's outputs fitted to the results of its own games.

A network fitted round after round to its own search values (the play-ranking distillation,
``bgengine distill``) never sees how a game ends, so its five outputs can drift
from the frequencies they estimate.  Round 7's contact network did: in 20,000 games of its
own self-play it gave the side on roll 0.010 backgammon wins where 0.005 happened, and too
many gammon wins (docs/experiments.md, "Outputs calibrated to game results").  Such a drift
reweights the outputs against each other in the equity that ranks plays (``2 win - 1 + wg -
lg + wbg - lbg``), so it costs play wherever gammons and backgammons are at stake.

The correction here is Platt scaling of each output: with ``z`` the output's logit (the sum
before its sigmoid), the calibrated output is ``sigmoid(a z + b)``, ``a`` and ``b`` fitted by
maximum likelihood to whether that output's event happened in the game.  It is folded into
the output layer (``W[:, j] *= a``, ``c[j] = a c[j] + b``), so evaluation costs nothing more,
and it is monotone in each output: it never reorders two positions by one output alone, only
changes how the outputs weigh against each other.  (A full refit of the output layer to the
results fits them better on unseen games but played worse: it learns what predicts a game's
result across positions, not what ranks the plays of one decision.)

    outcomes = play_outcomes(evaluator, games=20000, seed=601)
    calibrated, report = calibrate_evaluator(evaluator, outcomes)
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bgengine.core.agents import Player
from bgengine.core.dice import Dice
from bgengine.core.evaluator import CLASSES, Evaluator
from bgengine.core.fileio import open_regular
from bgengine.matches.game import game_decisions
from bgengine.training.growth import last_hidden
from bgengine.core.network import Network

__all__ = ["GameOutcomes", "play_outcomes", "outcome_events", "platt_fit", "calibrate_network",
           "calibrate_evaluator", "OutputCalibration"]

log = logging.getLogger(__name__)

#: The five outputs' events, as functions of a game's points for the side on roll.
OUTPUT_EVENTS = ("win", "win gammon", "win backgammon", "lose gammon", "lose backgammon")


@dataclass(frozen=True)
class GameOutcomes:
    """Positions met in play and how their games ended.

    ``boards``: uint8 (N, 2, 25), side on roll in row 1 (before its roll); ``classes``:
    int8 (N,), the evaluator's class of each (``bgengine.core.evaluator.CLASSES``); ``points``:
    int8 (N,), the game's result for the side on roll there (+1..+3 won, -1..-3 lost);
    ``games``: int32 (N,), the game each came from (positions of one game share a result,
    so games, not positions, are the independent units)."""

    boards: np.ndarray
    classes: np.ndarray
    points: np.ndarray
    games: np.ndarray
    metadata: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = len(self.boards)
        if self.boards.shape != (n, 2, 25):
            raise ValueError(f"boards must be (N, 2, 25), got {self.boards.shape}")
        for name in ("classes", "points", "games"):
            if getattr(self, name).shape != (n,):
                raise ValueError(f"{name} must have shape ({n},), got {getattr(self, name).shape}")
        if n and not np.all((np.abs(self.points) >= 1) & (np.abs(self.points) <= 3)):
            raise ValueError("points must be +-1, +-2 or +-3")

    def __len__(self) -> int:
        return len(self.boards)

    def of_class(self, position_class: int) -> GameOutcomes:
        """The positions of one class."""
        return self.subset(self.classes == position_class)

    def subset(self, keep: np.ndarray) -> GameOutcomes:
        """The positions ``keep`` (a boolean mask (N,) or indices) selects."""
        return GameOutcomes(self.boards[keep], self.classes[keep], self.points[keep],
                            self.games[keep], dict(self.metadata))

    def save(self, path: str | Path) -> None:
        np.savez_compressed(path, boards=self.boards, classes=self.classes, points=self.points,
                            games=self.games, metadata=np.array(repr(self.metadata)))

    @classmethod
    def load(cls, path: str | Path) -> GameOutcomes:
        with open_regular(path, "outcomes file") as fh, np.load(fh, allow_pickle=False) as d:
            missing = {"boards", "classes", "points", "games"} - set(d.files)
            if missing:
                raise ValueError(f"{path}: not an outcomes file (missing {sorted(missing)})")
            return cls(d["boards"], d["classes"], d["points"], d["games"],
                       {"file": str(path)})

    @classmethod
    def concatenate(cls, parts: Sequence[GameOutcomes]) -> GameOutcomes:
        """One sample of several; game numbers are renumbered so that they stay distinct."""
        if not parts:
            raise ValueError("no outcomes to concatenate")
        games, offset = [], 0
        for p in parts:
            games.append(p.games.astype(np.int64) + offset)
            offset += int(p.games.max()) + 1 if len(p) else 0
        return cls(np.concatenate([p.boards for p in parts]),
                   np.concatenate([p.classes for p in parts]),
                   np.concatenate([p.points for p in parts]),
                   np.concatenate(games).astype(np.int32), {"parts": len(parts)})


def play_outcomes(model: Network | Evaluator, games: int, seed: int = 0,
                  progress: Callable[[int, int], None] | None = None) -> GameOutcomes:
    """Every position before a roll in ``games`` self-play games of ``model`` at 0-ply (game
    ``i`` rolls ``Dice(seed, stream=i)``) with its game's result for the side on roll.
    ``progress(done, games)`` is called every 500 games."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    player = Player("net", model)
    boards, turns, game_of, points = [], [], [], []
    for g in range(games):
        loop = game_decisions(Dice(seed, stream=g))
        k, start = None, len(boards)
        try:
            while True:
                d = loop.send(k)
                boards.append(d.board)
                turns.append(d.turn)
                k = 0 if len(d.afterstates) == 1 else player.choose(d.board, d.d1, d.d2)
        except StopIteration as stop:
            seat0, _ = stop.value
        game_of.extend([g] * (len(boards) - start))
        points.extend(seat0 if t == 0 else -seat0 for t in turns[start:])
        if progress is not None and (g + 1) % 500 == 0:
            progress(g + 1, games)
    b = np.array(boards, np.uint8).reshape(-1, 2, 25)
    classes = (np.asarray(model.classify(b), np.int8) if isinstance(model, Evaluator)
               else np.zeros(len(b), np.int8))
    return GameOutcomes(b, classes, np.array(points, np.int8), np.array(game_of, np.int32),
                        {"games": games, "seed": seed})


def outcome_events(points: np.ndarray) -> np.ndarray:
    """The five outputs' events (float64 (N, 5), 0 or 1) of games ending with ``points``
    for the side on roll: won, won a gammon or more, won a backgammon, lost a gammon or
    more, lost a backgammon."""
    p = np.asarray(points)
    return np.stack([p > 0, p >= 2, p >= 3, p <= -2, p <= -3], axis=1).astype(np.float64)


def platt_fit(logits: np.ndarray, events: np.ndarray, iterations: int = 50) -> tuple[float, float]:
    """``(a, b)`` maximising the likelihood of ``events`` (0/1) under
    ``sigmoid(a * logits + b)``, by Newton's method.  Raises ``ValueError`` when the events
    are all alike (nothing to fit) or the fit does not converge (separable data)."""
    z = np.asarray(logits, np.float64)
    y = np.asarray(events, np.float64)
    if len(z) != len(y) or len(z) == 0:
        raise ValueError("logits and events must be non-empty and of one length")
    if y.min() == y.max():
        raise ValueError("the events are all alike: no calibration can be fitted")
    theta = np.array([1.0, 0.0])
    X = np.stack([z, np.ones_like(z)], axis=1)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(X @ theta, -500, 500)))
        s = p * (1.0 - p)
        step = np.linalg.solve(X.T @ (X * s[:, None]) + 1e-9 * np.eye(2), X.T @ (p - y))
        theta -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    else:
        raise ValueError("the calibration did not converge (are the events separable?)")
    return float(theta[0]), float(theta[1])


@dataclass(frozen=True)
class OutputCalibration:
    """One network's fitted calibration: ``a``, ``b`` per output, and the mean output and
    event frequency, and the mean log loss per output, before and after, on the positions
    it was fitted on."""

    positions: int
    games: int
    a: tuple[float, ...]
    b: tuple[float, ...]
    mean_before: tuple[float, ...]
    mean_after: tuple[float, ...]
    frequency: tuple[float, ...]
    log_loss_before: tuple[float, ...]
    log_loss_after: tuple[float, ...]

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _log_loss(z: np.ndarray, y: np.ndarray) -> float:
    # -log sigmoid(z) for events, -log(1 - sigmoid(z)) otherwise, without overflow
    return float(np.mean(np.logaddexp(0.0, -z) * y + np.logaddexp(0.0, z) * (1.0 - y)))


def output_logits(net: Network, boards: np.ndarray) -> np.ndarray:
    """The outputs' logits (float64 (N, K): the sums before the output sigmoids) of
    ``boards`` (side on roll in row 1), computed from ``net``'s weights in float64."""
    W, b = net.weights(len(net.sizes) - 2)
    return last_hidden(net, boards) @ W.astype(np.float64) + b.astype(np.float64)


def calibrate_network(net: Network, outcomes: GameOutcomes,
                      outputs: Sequence[int] | None = None) -> tuple[Network, OutputCalibration]:
    """``net`` with its outputs Platt-scaled to ``outcomes`` (positions it values, with
    their games' results) and the fit's figures.  ``outputs``: the outputs to calibrate
    (default all; the others keep a = 1, b = 0).  Needs the five-output form."""
    if net.n_outputs != 5:
        raise ValueError(f"calibration needs a five-output network, got {net.n_outputs} outputs")
    if len(outcomes) == 0:
        raise ValueError("no positions to calibrate on")
    chosen = range(5) if outputs is None else outputs
    z = np.concatenate([output_logits(net, outcomes.boards[i:i + 100_000])
                        for i in range(0, len(outcomes), 100_000)])
    y = outcome_events(outcomes.points)
    a, b = np.ones(5), np.zeros(5)
    for j in chosen:
        try:
            a[j], b[j] = platt_fit(z[:, j], y[:, j])
        except ValueError as exc:
            raise ValueError(f"output {j} ({OUTPUT_EVENTS[j]}) over {len(y)} positions: "
                             f"{exc}") from None
    zc = z * a + b
    sig = lambda x: 1.0 / (1.0 + np.exp(-x))                                    # noqa: E731
    report = OutputCalibration(
        positions=len(outcomes), games=len(np.unique(outcomes.games)),
        a=tuple(a.tolist()), b=tuple(b.tolist()),
        mean_before=tuple(sig(z).mean(axis=0).tolist()), mean_after=tuple(sig(zc).mean(axis=0).tolist()),
        frequency=tuple(y.mean(axis=0).tolist()),
        log_loss_before=tuple(_log_loss(z[:, j], y[:, j]) for j in range(5)),
        log_loss_after=tuple(_log_loss(zc[:, j], y[:, j]) for j in range(5)))
    last = len(net.sizes) - 2
    W, c = (x.astype(np.float64) for x in net.weights(last))
    W = W * a
    c = a * c + b
    params = np.asarray(net.params, np.float64).copy()
    params[-(W.size + c.size):] = np.concatenate([W.reshape(-1), c])
    metadata = dict(net.metadata)
    metadata["output_calibration"] = {"a": report.a, "b": report.b, "positions": report.positions,
                                      "games": report.games}
    hidden = tuple(net.sizes[1:-1])
    return (Network(hidden, net.n_outputs, net.encoder, params=params.astype(np.float32),
                    metadata=metadata), report)


def calibrate_evaluator(evaluator: Evaluator, outcomes: GameOutcomes,
                        classes: Sequence[str] = ("contact", "race"),
                        outputs: Sequence[int] | None = None,
                        ) -> tuple[Evaluator, dict[str, OutputCalibration]]:
    """``evaluator`` with the networks of ``classes`` calibrated, each on the positions of
    its own class (its bear-off database, race values and metadata kept), and the fits'
    figures by class.  A single-network evaluator is calibrated on all its positions; contact
    experts each on the contact positions routed to it (their figures under ``contact``,
    ``contact1``...).  ``outputs``: as for `calibrate_network`."""
    unknown = sorted(set(classes) - {"contact", "race"})
    if unknown:
        raise ValueError(f"unknown network classes {unknown}; known: contact, race")
    if evaluator.race is evaluator.contact:
        net, report = calibrate_network(evaluator.contact, outcomes, outputs)
        return (Evaluator(net, None, database=evaluator.database,
                          race_gammons=evaluator.race_gammons, metadata=dict(evaluator.metadata)),
                {"contact": report})
    nets = evaluator.networks
    reports = {}
    for name in classes:
        own = outcomes.of_class(CLASSES.index(name))
        if name == "contact" and evaluator.experts:
            expert = evaluator.expert_of(own.boards) if len(own) else np.zeros(0, np.int8)
            for e in range(len(evaluator.experts) + 1):
                key = "contact" if e == 0 else f"contact{e}"
                mine = own.subset(expert == e)
                log.info("calibrating contact expert %d on %d positions", e, len(mine))
                nets[key], reports[key] = calibrate_network(nets[key], mine, outputs)
            continue
        log.info("calibrating the %s network on %d positions", name, len(own))
        nets[name], reports[name] = calibrate_network(nets[name], own, outputs)
    experts = [nets[f"contact{e}"] for e in range(1, len(evaluator.experts) + 1)]
    return (Evaluator(nets["contact"], nets["race"], database=evaluator.database,
                      race_gammons=evaluator.race_gammons, metadata=dict(evaluator.metadata),
                      experts=experts, stage_cuts=evaluator.stage_cuts,
                      lead_cuts=evaluator.lead_cuts),
            reports)
