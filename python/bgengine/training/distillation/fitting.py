"""Fitting a network of an evaluator to search targets (:mod:`bgengine.training.distillation.targets`).

:func:`fit` starts from the evaluator's network of one class and minimises the squared error
of its five outputs to the search values, plus (``pairwise=W``) W times the squared error of
the equity differences between the plays kept from one decision, plus (``listwise=W``) W times
the cross-entropy between the softmaxes of the search's and the network's equities of a
decision's plays (Adam, minibatches of about 128 positions in whole decisions, 10% of the
decisions held out), and returns an evaluator with the new network and the start's other
networks and bear-off database.  :func:`blend` moves the start's network part of the way
toward the mean of several fits; :func:`phase_errors` gives the held-out pair error by phase
of play (crashed, back game, holding, middle).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import numpy as np

from bgengine.training.distillation.targets import (CONTACT, EQUITY_WEIGHTS, PHASES, RACE,
                                           held_out_figures, load_decisions, pair_residuals,
                                           position_phases, sigmoid, split_decisions)
from bgengine.core.encoders import encode
from bgengine.core.evaluator import CLASSES, Evaluator, as_evaluator
from bgengine.labelling.fit import replace_networks
from bgengine.core.network import Network
from bgengine.matches.players import load_network_spec

__all__ = ["fit", "phase_errors", "blend"]

log = logging.getLogger(__name__)


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
    :class:`bgengine.core.evaluator.Evaluator`): the contact network is copied into each
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
            acts.append(sigmoid(acts[-1] @ W + b))
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
