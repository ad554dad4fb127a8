"""Train an evaluator's contact (or race) network toward its own N-ply search values (an experiment).

    python tools/distill_search_targets.py collect OUT.npz [--games 2000] [--seed 101] [--plies 2]
    python tools/distill_search_targets.py collect OUT.npz --plies 3 --sample 3 [...]
    python tools/distill_search_targets.py collect OUT.npz --class race --every 1 --rollout 72 [...]
    python tools/distill_search_targets.py collect OUT.npz --class race --every 1 --top 5 --plies 0 --race-gammons 3
    python tools/distill_search_targets.py mean OUT.npz DATA_2PLY.npz DATA_3PLY.npz
    python tools/distill_search_targets.py mean OUT.npz DATA_SAMPLED.npz
    python tools/distill_search_targets.py fit OUT_EVALUATOR.npz DATA.npz [DATA.npz ...] [--lr 3e-4] [--epochs 12] [--pairwise 32]
    python tools/distill_search_targets.py fit OUT.npz DATA.npz ... --pairwise 32 --listwise 1 --temperature 0.02
    python tools/distill_search_targets.py blend OUT.npz FIT.npz [FIT.npz ...] --player net:START --share 0.5
    python tools/distill_search_targets.py errors DATA.npz ... --players net:A.npz net:B.npz [--seed 0]

``collect`` plays the evaluator (``--player``, default the shipped one) against itself at
0-ply (game ``i`` rolls stream ``i`` of ``--seed``); at a decision, with probability
``1/--every``, it keeps the best ``--top`` plays' positions (opponent on roll) that are in the
contact class (``--class race``: the race class), with their static outputs and their ``--plies`` search values (the values
that ``Engine.evaluate(board, plies)`` gives: a 2-ply value is gnubg's "2-ply" of the play).
With ``--sample K`` the search values are ``Engine.evaluate_sampled``'s estimates (the deepest
ply averages K of the 36 rolls: at 3 plies and K = 3, about a quarter of the cost, equity
error about 0.004 rms), and the file also holds the exact values one ply less
(``targets_lower``).
``mean`` averages the search values of files collected from the same games (same player,
``--seed``, ``--games``, ``--every``, ``--top``, ``--class``) at different ``--plies``: e.g. the
mean of the 2-ply and 3-ply values, a better teacher than either (``tools/teachers_vs_gnubg.py``);
given one file collected with ``--sample``, the mean of its two sets of values.
``fit`` starts from the evaluator's network of that class (``--class``) and minimises the squared error of its
five outputs to the search values, plus (``--pairwise W``) W times the squared error of the
equity differences between the plays kept from one decision, plus (``--listwise W``) W times
the cross-entropy between the softmaxes of the search's and the network's equities of a
decision's plays (which play is best, whatever the differences' sizes) (Adam, minibatches of about 128
positions in whole decisions, 10% of the decisions held out), then saves an
evaluator with the new network and the old network of the other class and bear-off database.
``blend`` averages the fitted network of that class over several fits (e.g. of different
``--seed``) and moves the start's network ``--share`` of the way toward that average (weights
interpolated; the other class and the bear-off database are the start's).
``errors`` prints, per player, the held-out pair error of ``fit --seed`` by phase of play
(crashed, back game, holding, middle: :func:`position_phases`) and each phase's share of it;
``fit --phase P`` trains a specialist on that phase's decisions alone.
Self-play only: no data from another engine.  Results: docs/strength.md.
"""
from __future__ import annotations

import argparse
import logging
import math
from collections.abc import Callable

import numpy as np

from bgengine.dice import Dice
from bgengine.encoders import encode
from bgengine.engine import Engine
from bgengine.evaluator import CLASSES, Evaluator, as_evaluator
from bgengine.game import game_decisions, game_seed
from bgengine.labelling.fit import replace_networks
from bgengine.network import Network, equity_of
from bgengine.players import load_network_spec, make_player
from bgengine.search import rollout

log = logging.getLogger("distill")
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
    ``race_gammons``: the player's race values are set so (:mod:`bgengine.racegammon`, 0:
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


def _sigmoid(x: np.ndarray) -> np.ndarray:
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
    ``tools/diagnose_vs_gnubg.py`` classes them (without its opening): ``crashed``
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
    """The stage and lead cuts (pips, see :class:`bgengine.evaluator.Evaluator`) that
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


def fit(player: str, files: list[str], lr: float, epochs: int, batch: int = 128,
        seed: int = 0, pairwise: float = 0.0, absolute: float = 1.0,
        lr_end: float | None = None, klass: int = CONTACT,
        top_layers: int | None = None, anchor: float = 0.0,
        listwise: float = 0.0, temperature: float = 0.02,
        phase: str | None = None,
        extra_inputs: Callable[[np.ndarray], np.ndarray] | None = None,
        experts: tuple[list[int], list[int]] | None = None) -> Evaluator | None:
    """The player's evaluator with its network of class ``klass`` (contact or race) fitted
    to the files' search values.

    The loss is ``absolute`` times the mean squared error of the five outputs plus
    ``pairwise`` times the mean over pairs of plays of one decision of the squared error
    of their equity difference: the part of the values that chooses the play.  The step
    size goes linearly from ``lr`` to ``lr_end`` (default ``lr``: constant) over the fit.
    ``top_layers``: fit only that many layers from the output down (default: all), e.g. 1
    to recalibrate the outputs while keeping the hidden features.  ``anchor``: each step
    also moves the weights ``step size * anchor`` of the way back toward the starting
    network's (a decay toward the start, decoupled from Adam's scaling as in AdamW:
    against overfitting the data).  ``listwise``: plus that weight times the mean over
    decisions of the cross-entropy between the softmax of the search's equities of the
    decision's plays and the network's (both divided by ``temperature``, in equity): a
    loss on which play is best rather than on the differences' sizes.  ``phase`` (one of
    :data:`PHASES`): train on, and report, the decisions of that phase only (by their
    first play's position), from the same split as without it (a specialist's fit).
    ``seed`` draws the held-out decisions and the minibatch order.  ``extra_inputs``: a
    function of the boards (N, 2, 25) giving candidate inputs (N, k) appended to the
    encoding, their first-layer weights starting at zero: a test of new inputs by the
    held-out figures alone (the network file cannot hold them: returns None).
    ``experts``: contact experts' (stage cuts, lead cuts) (see
    :class:`bgengine.evaluator.Evaluator`): the contact network is copied into each
    expert, each fitted on the positions routed to it, the pair losses spanning experts
    (more weights at one network's cost per evaluation).  A start that has contact
    experts is fitted as it is routed, unless ``experts`` says otherwise."""
    evaluator = as_evaluator(load_network_spec(player))
    if klass not in (CONTACT, RACE):
        raise ValueError(f"only the contact and race networks are fitted, not class {klass}")
    net = evaluator.contact if klass == CONTACT else evaluator.race
    starts = [net]
    if klass == CONTACT and experts is None and evaluator.experts:
        experts = (list(evaluator.stage_cuts), list(evaluator.lead_cuts))
        starts += list(evaluator.experts)
    if experts is not None and klass != CONTACT:
        raise ValueError("contact experts are fitted with the contact network, not the race one")
    Ws = [net.weights(layer)[0].astype(np.float64) for layer in range(len(net.sizes) - 1)]
    bs = [net.weights(layer)[1].astype(np.float64) for layer in range(len(net.sizes) - 1)]
    boards, T, group, members = load_decisions(files)
    # float32 (exact for every input value): half the memory; minibatches widen to float64
    X = encode(boards, net.encoder).astype(np.float32)

    def forward_one(x: np.ndarray, Ws: list[np.ndarray], bs: list[np.ndarray]) -> list[np.ndarray]:
        acts = [x.astype(np.float64)]
        for W, b in zip(Ws, bs):
            acts.append(_sigmoid(acts[-1] @ W + b))
        return acts

    check = np.abs(forward_one(X[:64], Ws, bs)[-1] - net.forward(X[:64])).max()
    if check > 1e-4:
        raise RuntimeError(f"numpy forward pass differs from the network's by {check}")
    if extra_inputs is not None:
        extra = np.asarray(extra_inputs(boards), np.float32)
        X = np.hstack([X, extra])
        Ws[0] = np.vstack([Ws[0], np.zeros((extra.shape[1], Ws[0].shape[1]))])
        log.info("%d extra inputs, their weights from zero", extra.shape[1])
    # experts: each fitted on the positions routed to it (the evaluator's own routing)
    route = np.zeros(len(X), np.int64)
    n_experts = 1
    if experts is not None:
        stage_cuts, lead_cuts = experts
        n_experts = (len(stage_cuts) + 1) * (len(lead_cuts) + 1)
        if len(starts) == 1:
            starts *= n_experts
        if len(starts) != n_experts:
            raise ValueError(f"the start has {len(starts)} contact experts, --experts makes "
                             f"{n_experts}")
        router = Evaluator(net, experts=[net] * (n_experts - 1), stage_cuts=stage_cuts,
                           lead_cuts=lead_cuts)
        route = router.expert_of(boards).astype(np.int64)
        if route.min() < 0:
            raise ValueError("the data holds positions that are not contact positions")
        log.info("%d experts, positions routed: %s", n_experts,
                 " ".join(f"{x:.1%}" for x in np.bincount(route, minlength=n_experts)
                          / len(route)))
    layers = len(Ws)
    params = []         # expert e's weights at e * 2 * layers, then its biases
    for e in range(n_experts):
        if e == 0:
            params += [W.copy() for W in Ws] + [b.copy() for b in bs]
            continue
        W_e = [starts[e].weights(layer)[0].astype(np.float64) for layer in range(layers)]
        if extra_inputs is not None:
            W_e[0] = np.vstack([W_e[0], np.zeros((extra.shape[1], W_e[0].shape[1]))])
        params += W_e + [starts[e].weights(layer)[1].astype(np.float64) for layer in range(layers)]

    def forward(ix: np.ndarray) -> tuple[np.ndarray, list[tuple[np.ndarray, list[np.ndarray]]]]:
        """Outputs (len(ix), K) of positions ``ix``, and each expert's (rows, activations)."""
        out = np.empty((len(ix), Ws[-1].shape[1]))
        parts = []
        for e in range(n_experts):
            rows = np.flatnonzero(route[ix] == e) if n_experts > 1 else np.arange(len(ix))
            if len(rows) == 0:
                continue
            p = params[e * 2 * layers:(e + 1) * 2 * layers]
            acts = forward_one(X[ix[rows]], p[:layers], p[layers:])
            out[rows] = acts[-1]
            parts.append((e, rows, acts))
        return out, parts
    rng, held_groups, train_groups = split_decisions(len(members), seed)
    if phase is not None:
        if phase not in PHASES:
            raise ValueError(f"phase must be one of {PHASES}, not {phase!r}")
        in_phase = position_phases(boards[[m[0] for m in members]]) == phase
        held_groups, train_groups = held_groups[in_phase[held_groups]], train_groups[
            in_phase[train_groups]]
        if len(train_groups) == 0:
            raise ValueError(f"no decision of phase {phase!r} in the data")
    held = np.concatenate([members[g] for g in held_groups] + [np.zeros(0, np.int64)])

    def listwise_grad(out: np.ndarray, ix: np.ndarray) -> np.ndarray:
        """d(mean over decisions of the softmax cross-entropy) / d(network equity),
        per position: (p_network - p_search) / temperature / decisions."""
        _, g = np.unique(group[ix], return_inverse=True)
        probs = []
        for e in (out @ EQUITY_WEIGHTS, T[ix] @ EQUITY_WEIGHTS):
            z = e / temperature
            top = np.full(g.max() + 1, -np.inf)
            np.maximum.at(top, g, z)
            w = np.exp(z - top[g])
            probs.append(w / np.bincount(g, weights=w)[g])
        return (probs[0] - probs[1]) / temperature / (g.max() + 1)

    def report(ix: np.ndarray) -> str:
        if len(ix) == 0:
            return "no decision"
        f = held_out_figures(forward(ix)[0], T[ix], group[ix])
        return (f"squared error {f['mse']:.3g}, "
                f"pair equity squared error {f['pair_se'] / max(f['pairs'], 1):.3g}, "
                f"same best play {f['agree'] / max(f['decisions'], 1):.1%} of {f['decisions']}, "
                f"search equity lost per decision {f['lost'] / max(f['decisions'], 1):.5f}")

    held.sort()
    # as many training decisions as held out, to tell overfitting from underfitting
    seen = np.sort(np.concatenate([members[g] for g in train_groups[:len(held_groups)]]
                                  + [np.zeros(0, np.int64)]))
    log.info("%d positions in %d decisions; held out: %s at the start", len(X), len(members),
             report(held))
    start = [p.copy() for p in params] if anchor else None
    lowest = 0 if top_layers is None else max(0, layers - top_layers)   # lowest layer fitted
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    step = 0
    per_batch = max(1, batch * len(members) // len(X))       # decisions per minibatch
    total_steps = epochs * max(1, (len(train_groups) - per_batch) // per_batch + 1)
    lr_end = lr if lr_end is None else lr_end
    for epoch in range(epochs):
        rng.shuffle(train_groups)
        for s in range(0, len(train_groups) - per_batch + 1, per_batch):
            ix = np.concatenate([members[g] for g in train_groups[s:s + per_batch]])
            out, parts = forward(ix)
            grad_out = absolute * 2 * (out - T[ix]) / len(ix)
            if pairwise:
                centred, size, pairs = pair_residuals(out, T[ix], group[ix])
                grad_out += pairwise * np.outer(2 * size * centred / max(pairs, 1),
                                                EQUITY_WEIGHTS)
            if listwise:
                grad_out += listwise * np.outer(listwise_grad(out, ix), EQUITY_WEIGHTS)
            grads: list[np.ndarray | None] = [None] * len(params)   # None: kept fixed
            for e, rows, acts in parts:
                base = e * 2 * layers
                delta = grad_out[rows] * out[rows] * (1 - out[rows])
                for layer in range(layers - 1, lowest - 1, -1):
                    grads[base + layer] = acts[layer].T @ delta
                    grads[base + layers + layer] = delta.sum(axis=0)
                    if layer > lowest:
                        delta = (delta @ params[base + layer].T) * acts[layer] * (1 - acts[layer])
            step += 1
            step_lr = lr + (lr_end - lr) * (step - 1) / max(total_steps - 1, 1)
            for i, g in enumerate(grads):                 # Adam, updating params in place
                if g is None:
                    continue
                m[i] = 0.9 * m[i] + 0.1 * g
                v[i] = 0.999 * v[i] + 0.001 * g * g
                params[i] -= step_lr * (m[i] / (1 - 0.9 ** step)) / (
                    np.sqrt(v[i] / (1 - 0.999 ** step)) + 1e-8)
                if start is not None:       # decoupled from Adam's scaling, as AdamW's decay
                    params[i] -= step_lr * anchor * (params[i] - start[i])
        log.info("epoch %d: held out: %s; trained on (a sample): %s", epoch, report(held),
                 report(seen))
    if extra_inputs is not None:
        # which candidates the fit used: their first-layer rows' sizes, in column order
        norms = np.linalg.norm(params[0][-extra.shape[1]:], axis=1)
        log.info("extra inputs' weight-row norms: %s", " ".join(f"{x:.3f}" for x in norms))
        return None
    metadata = dict(net.metadata)
    metadata["distilled"] = {"files": files, "lr": lr, "lr_end": lr_end, "epochs": epochs,
                             "class": CLASSES[klass], "pairwise": pairwise, "absolute": absolute,
                             "top_layers": top_layers, "anchor": anchor, "seed": seed,
                             "listwise": listwise, "temperature": temperature, "phase": phase,
                             "experts": None if experts is None else list(experts)}
    nets = []
    for e in range(n_experts):
        p = params[e * 2 * layers:(e + 1) * 2 * layers]
        flat = np.concatenate([x.reshape(-1) for W, b in zip(p[:layers], p[layers:])
                               for x in (W, b)])
        nets.append(Network(net.hidden, net.n_outputs, net.encoder,
                            params=np.asarray(flat, np.float32), metadata=metadata))
    if klass == RACE:
        return replace_networks(evaluator, {"race": nets[0]})
    routed = evaluator
    if experts is not None and (list(evaluator.stage_cuts), list(evaluator.lead_cuts)) != \
            [list(c) for c in experts]:
        # the start's networks rerouted: the fit's experts replace them all
        routed = Evaluator(evaluator.contact, None if evaluator.race is evaluator.contact
                           else evaluator.race, database=evaluator.database,
                           race_gammons=evaluator.race_gammons,
                           metadata=dict(evaluator.metadata), experts=nets[1:],
                           stage_cuts=experts[0], lead_cuts=experts[1])
    return replace_networks(routed, {"contact" if e == 0 else f"contact{e}": n
                                     for e, n in enumerate(nets)})


def phase_errors(players: list[str], files: list[str], seed: int = 0,
                 klass: int = CONTACT) -> dict[str, dict[str, dict]]:
    """Per player and phase (:data:`PHASES`, and ``all``), :func:`held_out_figures` of its
    class ``klass`` network on the held-out decisions of ``fit --seed SEED`` on the same
    files (a decision's phase: its first play's)."""
    boards, T, group, members = load_decisions(files)
    _, held_groups, _ = split_decisions(len(members), seed)
    held = np.sort(np.concatenate([members[g] for g in held_groups]))
    phase = position_phases(boards[[m[0] for m in members]])[group[held]]
    result = {}
    for player in players:
        net = as_evaluator(load_network_spec(player)).networks[CLASSES[klass]]
        out = np.asarray(net.forward(encode(boards[held], net.encoder)), np.float64)
        result[player] = {name: held_out_figures(out[m], T[held][m], group[held][m])
                          for name, m in [(p, phase == p) for p in PHASES]
                          + [("all", np.ones(len(held), bool))]}
    return result


def blend(player: str, fits: list[str], share: float, klass: int = CONTACT) -> Evaluator:
    """The start's evaluator with its class ``klass`` network's weights (each contact
    expert's, if it has experts) moved ``share`` of the way (0: the start, 1: the fits'
    mean) toward the mean of the fits' weights."""
    start = as_evaluator(load_network_spec(player))
    names = [CLASSES[klass]]
    if klass == CONTACT:
        names += [f"contact{i}" for i in range(1, len(start.experts) + 1)]
    fitted = [Evaluator.load(f) for f in fits]
    blended = {}
    for name in names:
        own = start.networks[name]
        nets = []
        for f, ev in zip(fits, fitted):
            n = ev.networks.get(name)
            if n is None or n.sizes != own.sizes or n.encoder != own.encoder or (
                    klass == CONTACT and (ev.stage_cuts, ev.lead_cuts)
                    != (start.stage_cuts, start.lead_cuts)):
                raise ValueError(f"{f}: its {name} network is not the start's in shape or "
                                 f"routing ({own.sizes}, {own.encoder})")
            nets.append(n)
        mean = np.mean([np.asarray(n.params, np.float64) for n in nets], axis=0)
        params = (1.0 - share) * np.asarray(own.params, np.float64) + share * mean
        metadata = dict(own.metadata)
        metadata["blended"] = {"fits": fits, "share": share, "class": CLASSES[klass],
                               "fitted": [n.metadata.get("distilled") for n in nets]}
        blended[name] = Network(own.hidden, own.n_outputs, own.encoder,
                                params=np.asarray(params, np.float32), metadata=metadata)
    return replace_networks(start, blended)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("out")
    c.add_argument("--player", default="net")
    c.add_argument("--games", type=int, default=2000)
    c.add_argument("--seed", type=int, default=101)
    c.add_argument("--every", type=int, default=3, help="keep a decision with probability 1/EVERY")
    c.add_argument("--top", type=int, default=3, help="plays kept per decision")
    c.add_argument("--plies", type=int, default=2)
    c.add_argument("--sample", type=int, default=None,
                   help="sampled search: the deepest ply averages this many of the 36 rolls "
                        "(divides 36); also keeps the exact values one ply less")
    c.add_argument("--rollout", type=int, default=None, metavar="TRIALS",
                   help="value the positions by rollouts of TRIALS trials (variance reduction, "
                        "0-ply plays) instead of a search")
    c.add_argument("--class", dest="klass", choices=("contact", "race"), default="contact",
                   help="the positions kept: in this class")
    c.add_argument("--race-gammons", type=int, default=None, metavar="N",
                   help="the player's race values at N checkers outside (0: off)")
    c.add_argument("--opponent", default=None, metavar="SPEC",
                   help="a player (e.g. net@0.1) making one seat's plays, alternating seats by "
                        "game: lopsided positions, as against weaker opponents")
    a = sub.add_parser("mean", help="average the search values of files from the same games")
    a.add_argument("out")
    a.add_argument("data", nargs="+")
    f = sub.add_parser("fit")
    f.add_argument("out")
    f.add_argument("data", nargs="+")
    f.add_argument("--player", default="net")
    f.add_argument("--class", dest="klass", choices=("contact", "race"), default="contact",
                   help="the network fitted")
    f.add_argument("--lr", type=float, default=3e-4)
    f.add_argument("--lr-end", type=float, default=None,
                   help="the step size at the end (linear from --lr; default: constant)")
    f.add_argument("--epochs", type=int, default=12)
    f.add_argument("--pairwise", type=float, default=0.0,
                   help="weight of the equity differences between plays of one decision")
    f.add_argument("--top-layers", type=int, default=None,
                   help="fit only this many layers from the output down (default: all)")
    f.add_argument("--absolute", type=float, default=1.0,
                   help="weight of the outputs' squared error")
    f.add_argument("--anchor", type=float, default=0.0,
                   help="decay of the weights toward the start's, per unit step size (AdamW-style)")
    f.add_argument("--listwise", type=float, default=0.0,
                   help="weight of the softmax cross-entropy over the plays of one decision")
    f.add_argument("--temperature", type=float, default=0.02,
                   help="the listwise softmax's temperature, in equity")
    f.add_argument("--race-gammons", type=int, default=None, metavar="N",
                   help="the saved evaluator's race values at N checkers outside (0: off; "
                        "default: the player's)")
    f.add_argument("--seed", type=int, default=0,
                   help="seed of the held-out decisions and the minibatch order")
    f.add_argument("--phase", choices=PHASES, default=None,
                   help="train on (and report) the decisions of this phase only")
    f.add_argument("--extra-inputs", choices=("hand-made",), default=None,
                   help="append tools/screen_inputs.py's hand-made features as new inputs "
                        "(weights from zero) and report the held-out figures; nothing saved")
    f.add_argument("--experts", default=None, metavar="SPEC",
                   help="contact experts: the contact network copied into one network per "
                        "group of positions, by stage (pips of both sides) and lead cuts "
                        "(stage:250, lead:0, stage:230/280,lead:0)")
    e = sub.add_parser("errors", help="held-out errors by phase of several players' networks")
    e.add_argument("data", nargs="+")
    e.add_argument("--players", nargs="+", required=True)
    e.add_argument("--seed", type=int, default=0, help="the held-out split of fit --seed")
    e.add_argument("--class", dest="klass", choices=("contact", "race"), default="contact")
    b = sub.add_parser("blend", help="move the start toward the mean of several fits")
    b.add_argument("out")
    b.add_argument("fits", nargs="+")
    b.add_argument("--player", default="net")
    b.add_argument("--share", type=float, default=0.5,
                   help="how far toward the fits' mean (0: the start, 1: the mean)")
    b.add_argument("--class", dest="klass", choices=("contact", "race"), default="contact")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.command == "collect":
        np.savez(args.out, **collect(args.player, args.games, args.seed, args.every, args.top,
                                     args.plies, CLASSES.index(args.klass), args.sample,
                                     args.rollout, args.opponent, args.race_gammons))
    elif args.command == "blend":
        blend(args.player, args.fits, args.share, CLASSES.index(args.klass)).save(args.out)
    elif args.command == "errors":
        errors = phase_errors(args.players, args.data, args.seed, CLASSES.index(args.klass))
        names = list(PHASES) + ["all"]
        print("| player | " + " | ".join(names) + " | search equity lost per decision |")
        print("|---" * (len(names) + 2) + "|")
        for player, by_phase in errors.items():
            total = by_phase["all"]["pair_se"]
            cells = [f"{f['pair_se'] / max(f['pairs'], 1):.6f} ({f['pair_se'] / total:.0%})"
                     for f in (by_phase[n] for n in names)]
            a = by_phase["all"]
            print(f"| {player} | " + " | ".join(cells)
                  + f" | {a['lost'] / max(a['decisions'], 1):.5f} |")
    elif args.command == "mean":
        np.savez(args.out, **mean_targets([dict(np.load(f)) for f in args.data]))
    else:
        extra: Callable[[np.ndarray], np.ndarray] | None = None
        if args.extra_inputs == "hand-made":
            from screen_inputs import hand_made_features     # a sibling script
            extra = lambda boards: np.stack(list(hand_made_features(boards).values()), axis=1)  # noqa: E731
        fitted = fit(args.player, args.data, args.lr, args.epochs, pairwise=args.pairwise,
                     absolute=args.absolute, lr_end=args.lr_end, top_layers=args.top_layers,
                     anchor=args.anchor, seed=args.seed, klass=CLASSES.index(args.klass),
                     listwise=args.listwise, temperature=args.temperature, phase=args.phase,
                     extra_inputs=extra,
                     experts=None if args.experts is None else parse_experts(args.experts))
        if fitted is None:
            return
        if args.race_gammons is not None:
            fitted = fitted.with_race_gammons(args.race_gammons or False)
        fitted.save(args.out)


if __name__ == "__main__":
    main()
