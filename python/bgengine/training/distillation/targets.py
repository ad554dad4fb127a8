"""Search targets for play-ranking distillation: positions of an evaluator's own self-play
with their N-ply search (or rollout) values, grouped by decision.

:func:`collect` plays the evaluator against itself at 0-ply (game ``i`` rolls stream ``i`` of
``seed``); at a decision, with probability ``1/every``, it keeps the best ``top`` plays'
positions (opponent on roll) of one class, with their static outputs and their ``plies``
search values (the values ``Engine.evaluate(board, plies)`` gives: a 2-ply value is gnubg's
"2-ply" of the play).  With ``sample=K`` the values are ``Engine.evaluate_sampled``'s
estimates (the deepest ply averages K of the 36 rolls), and the data also holds the exact
values one ply less (``targets_lower``).  :func:`mean_targets` averages the values of data
collected from the same games at different plies (the mean of 2-ply and 3-ply is a better
teacher than either).  The data are dicts of arrays, saved with ``numpy.savez``: ``boards``
(n, 2, 25) uint8, ``outputs`` and ``targets`` (n, 5) float32 probabilities, ``decision`` (n,)
the decision each position belongs to.  Self-play only: no data from another engine.
"""

from __future__ import annotations

import logging
import math

import numpy as np

from bgengine.core.dice import Dice
from bgengine.decisions.engine import Engine
from bgengine.core.evaluator import CLASSES, Evaluator, as_evaluator
from bgengine.matches.game import game_decisions, game_seed
from bgengine.core.network import equity_of
from bgengine.matches.players import load_network_spec, make_player
from bgengine.core.search import rollout

__all__ = ["CONTACT", "RACE", "EQUITY_WEIGHTS", "PHASES", "collect", "check_same_positions",
           "mean_targets", "sigmoid", "decision_groups", "position_phases", "parse_experts",
           "split_decisions", "pair_residuals", "load_decisions", "held_out_figures"]

log = logging.getLogger(__name__)
CONTACT = CLASSES.index("contact")
RACE = CLASSES.index("race")


def collect(player: str, games: int, seed: int, every: int, top: int, plies: int,
            klass: int = CONTACT, sample: int | None = None,
            rollout_trials: int | None = None, opponent: str | None = None,
            race_gammons: int | None = None) -> dict:
    """Boards (uint8, (N, 2, 25), side on roll in row 1), static outputs and search values
    (float32, (N, 5)) of positions from the player's self-play, and each one's decision
    number (int64, (N,): the plays kept from one decision share it).  With ``sample``:
    the search values are sampled estimates (:meth:`Engine.evaluate_sampled`), and
    ``targets_lower`` (float32, (N, 5)) holds the exact values one ply less.  With
    ``rollout_trials``: the values are rollouts instead (played out at 0-ply, with variance
    reduction; the plays of one decision on the same dice, so their differences are
    measured more precisely than their values).  With ``opponent`` (a player spec, e.g.
    ``net@0.1``): that player makes the plays of one seat (seat 1 in even games, seat 0 in
    odd ones), so the games reach the lopsided positions that play against weaker
    opponents does; both seats' decisions are kept and valued alike.  With
    ``race_gammons``: the player's race values are set so (:mod:`bgengine.core.racegammon`, 0:
    off), for its plays and its values alike: at ``plies`` 0, the race values a race
    network can be fitted to."""
    model = load_network_spec(player)
    if race_gammons is not None:
        model = as_evaluator(model).with_race_gammons(race_gammons or False)
    evaluator = as_evaluator(model)
    engine = Engine(network=model, plies=plies)
    rng = np.random.default_rng(seed)
    other = None if opponent is None else make_player(opponent)
    boards, static, targets, groups, lower = [], [], [], [], []
    decision = 0
    for g in range(games):
        loop = game_decisions(Dice(seed, stream=g))
        k = None
        try:
            while True:
                d = loop.send(k)
                n = len(d.afterstates)
                if n == 1:
                    k = 0
                    continue
                opp = np.ascontiguousarray(d.afterstates[:, ::-1])    # opponent on roll
                live = opp.reshape(n, -1)[:, 25:].sum(axis=1) > 0     # not yet borne off
                equity = np.full(n, -9.0)
                equity[live] = -evaluator.equity(opp[live])
                order = np.argsort(-equity, kind="stable")
                k = int(order[0])
                if other is not None and d.turn == 1 - g % 2:
                    k = int(other.choose(d.board, d.d1, d.d2, game_seed(seed, 0, g, d.number)))
                if rng.random() >= 1.0 / every:
                    continue
                decision += 1
                for j in order[:top]:
                    if live[j] and evaluator.classify(opp[j]) == klass:
                        boards.append(opp[j])
                        static.append(evaluator.evaluate(opp[j]))
                        if rollout_trials is not None:
                            r = rollout(model, opp[j], rollout_trials, variance_reduction=True,
                                        seed=(seed << 32) + decision)
                            targets.append(r["outputs"])
                        elif sample is None:
                            targets.append(engine.evaluate(opp[j], plies=plies))
                        else:
                            lo, up = engine.evaluate_sampled(opp[j], plies, sample)
                            targets.append(up)
                            lower.append(lo)
                        groups.append(decision)
        except StopIteration:
            pass
        if g % 200 == 0:
            log.info("game %d: %d positions", g, len(boards))
    data = {"boards": np.array(boards, np.uint8).reshape(-1, 2, 25),
            "static": np.array(static, np.float32).reshape(-1, 5),
            "targets": np.array(targets, np.float32).reshape(-1, 5),
            "group": np.array(groups, np.int64)}
    if sample is not None:
        data["targets_lower"] = np.array(lower, np.float32).reshape(-1, 5)
    return data


def check_same_positions(datasets: list[dict]) -> None:
    """``ValueError`` unless the data sets hold the same positions, decisions and static
    outputs (were collected from the same games, at any ``--plies``)."""
    first = datasets[0]
    for i, d in enumerate(datasets[1:], 1):
        for key in ("boards", "group", "static"):
            if not np.array_equal(d[key], first[key]):
                raise ValueError(f"data set {i} differs from the first in {key!r}: "
                                 "not collected from the same games")


def mean_targets(datasets: list[dict]) -> dict:
    """One data set whose search values are the mean of the data sets' (which must hold the
    same positions: :func:`check_same_positions`); of one data set collected with
    ``--sample``, the mean of its search values and its ``targets_lower``."""
    if len(datasets) == 1 and "targets_lower" in datasets[0]:
        d = datasets[0]
        datasets = [d, {**d, "targets": d["targets_lower"]}]
    if len(datasets) < 2:
        raise ValueError("the mean needs at least two data sets (or one collected with --sample)")
    check_same_positions(datasets)
    first = datasets[0]
    targets = np.mean([np.asarray(d["targets"], np.float64) for d in datasets], axis=0)
    return {"boards": first["boards"], "static": first["static"],
            "targets": targets.astype(np.float32), "group": first["group"]}


def sigmoid(x: np.ndarray) -> np.ndarray:
    """The logistic function, element by element (same shape as ``x``)."""
    return 1.0 / (1.0 + np.exp(-x))


# Cubeless equity is affine in the five outputs: its gradient with respect to them.
EQUITY_WEIGHTS = equity_of(np.eye(5)) - equity_of(np.zeros(5))


def _members(labels: np.ndarray) -> list[np.ndarray]:
    """The indices of each label 0..L-1 of ``labels`` (int, (N,)), in order."""
    return np.split(np.argsort(labels, kind="stable"), np.cumsum(np.bincount(labels))[:-1])


def decision_groups(data: dict) -> np.ndarray:
    """A decision number per position (int64, (N,)): the positions kept from one decision
    are the plays of one roll from one position.  Files from ``collect`` hold them as
    ``group``; for older files, the runs of equal mover pip counts (row 0, the side that
    just played: every full play of a roll moves the same number of pips)."""
    if "group" in data:
        return np.asarray(data["group"], np.int64)
    boards = data["boards"]
    pips = (boards[:, 0, :].astype(np.int64) * np.arange(1, 26)).sum(axis=1)
    return np.concatenate([[0], np.cumsum(pips[1:] != pips[:-1])])


PHASES = ("crashed", "back game", "holding", "middle")


def _crashed(rows: np.ndarray) -> np.ndarray:
    """gnubg's crashed test (``ClassifyPosition``) of one side's rows (uint8, (N, 25),
    gnubg layout): 6 checkers or fewer, or few left beyond a stacked 1-point (and 2-point)."""
    tot, ace, deuce = (rows.sum(axis=1).astype(np.int64), rows[:, 0].astype(np.int64),
                       rows[:, 1].astype(np.int64))
    stacked = ace > 1
    return ((tot <= 6)
            | (stacked & ((tot <= 6 + ace) | ((deuce > 1) & (1 + tot - ace - deuce <= 6))))
            | (~stacked & (tot <= 6 + deuce - 1)))


def position_phases(boards: np.ndarray) -> np.ndarray:
    """The phase of contact positions (uint8, (N, 2, 25)), either side's view, as
    ``lab/diagnose_vs_gnubg.py`` classes them (without its opening): ``crashed``
    (either side, by gnubg's rule), else ``back game`` (a side holds two or more points
    in its opponent's home board and trails by 30 pips or more), else ``holding`` (a
    point on the opponent's 4- to 7-point, trailing by 10 or more), else ``middle``."""
    boards = np.asarray(boards)
    pips = (boards.astype(np.int64) * np.arange(1, 26)).sum(axis=2)
    phase = np.full(len(boards), "middle", dtype=object)
    holding = np.zeros(len(boards), bool)
    back = np.zeros(len(boards), bool)
    for s in (0, 1):
        behind = pips[:, s] - pips[:, 1 - s]
        back |= ((boards[:, s, 18:24] >= 2).sum(axis=1) >= 2) & (behind >= 30)
        holding |= (boards[:, s, 17:21] >= 2).any(axis=1) & (behind >= 10)
    phase[holding] = "holding"
    phase[back] = "back game"
    phase[_crashed(boards[:, 0]) | _crashed(boards[:, 1])] = "crashed"
    return phase.astype(str)


def parse_experts(spec: str) -> tuple[list[int], list[int]]:
    """The stage and lead cuts (pips, see :class:`bgengine.core.evaluator.Evaluator`) that
    ``fit --experts SPEC`` names: ``stage:T1/T2...``, ``lead:T1/...`` or both,
    comma-separated."""
    cuts: dict[str, list[int]] = {"stage": [], "lead": []}
    for item in spec.split(","):
        kind, _, values = item.partition(":")
        if kind not in cuts or not values or cuts[kind]:
            raise ValueError(f"--experts: expected stage:T1/T2... and/or lead:T1/..., "
                             f"got {spec!r}")
        try:
            cuts[kind] = sorted(int(v) for v in values.split("/"))
        except ValueError:
            raise ValueError(f"--experts: pip counts are integers, got {item!r}") from None
    return cuts["stage"], cuts["lead"]


def split_decisions(n_decisions: int, seed: int) -> tuple[np.random.Generator, np.ndarray,
                                                           np.ndarray]:
    """The random generator (to go on with), the held-out decisions (a tenth) and the
    training ones, drawn from ``seed``: the split of ``fit`` and ``errors``."""
    rng = np.random.default_rng(seed)
    groups = rng.permutation(n_decisions)
    n_held = n_decisions // 10
    return rng, groups[:n_held], groups[n_held:]


def pair_residuals(out: np.ndarray, targets: np.ndarray,
                   group: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """The equity residuals of outputs ``out`` against ``targets`` (both (N, 5)) minus
    their decision's mean (float64, (N,)), each position's decision size (int, (N,)), and
    the number of pairs of plays within the decisions ``group`` (N,): the summed squared
    error of the equity differences over all pairs is ``(size * centred ** 2).sum()``."""
    r = (out - targets) @ EQUITY_WEIGHTS
    _, g, n = np.unique(group, return_inverse=True, return_counts=True)
    centred = r - (np.bincount(g, weights=r) / n)[g]
    return centred, n[g], int((n * (n - 1) // 2).sum())


def load_decisions(files: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                list[np.ndarray]]:
    """The files' boards (uint8, (N, 2, 25)) and search values (float64,
    (N, 5)) concatenated, a decision number 0..D-1 per position (int, (N,): decisions
    never span files) and each decision's positions (:func:`_members`)."""
    data = [dict(np.load(f)) for f in files]
    boards = np.concatenate([d["boards"] for d in data])
    targets = np.concatenate([d["targets"] for d in data]).astype(np.float64)
    group = np.concatenate([decision_groups(d) + 10**9 * i for i, d in enumerate(data)])
    _, group = np.unique(group, return_inverse=True)
    return boards, targets, group, _members(group)


def held_out_figures(out: np.ndarray, targets: np.ndarray, group: np.ndarray) -> dict:
    """Figures of outputs ``out`` against search values ``targets`` (both (N, 5)) of
    positions in decisions ``group`` (N,): ``mse`` (squared error of the outputs, summed
    over them), ``pair_se`` (summed squared error of the equity differences over the
    pairs of a decision's plays) and ``pairs``, and over decisions of two or more plays
    ``decisions``, ``agree`` (the network's best play is the search's) and ``lost`` (the
    search's equity lost by the network's pick, summed)."""
    centred, size, pairs = pair_residuals(out, targets, group)
    _, g = np.unique(group, return_inverse=True)
    e_net, e_search = out @ EQUITY_WEIGHTS, targets @ EQUITY_WEIGHTS
    agree = decisions = 0
    lost = 0.0
    for plays in _members(g):
        if len(plays) > 1:
            decisions += 1
            pick = np.argmax(e_net[plays])
            agree += int(pick == np.argmax(e_search[plays]))
            lost += float(e_search[plays].max() - e_search[plays][pick])
    return {"mse": float(((out - targets) ** 2).sum(axis=1).mean()) if len(out) else math.nan,
            "pair_se": float((size * centred ** 2).sum()), "pairs": pairs,
            "decisions": decisions, "agree": agree, "lost": lost}
