"""Supervised fitting of an evaluator's networks to rollout labels.

Each class network of the evaluator is fitted on the labelled positions the evaluator
routes to it (each contact expert on its own positions, the race network on races),
starting from its present weights: the loss is the cross-entropy of each of the five
sigmoid outputs against the rollout's mean probability, each position weighted by the
precision of its label (``1 / (stderr^2 + floor^2)``, normalised to mean 1), minimised
with Adam on mini-batches (numpy's float32 matrix products, on every core BLAS is given).
A share of the positions (chosen by a hash of the position, so the same ones whatever the
data's size or order) is held out; the fit stops when the held-out error has not improved
for ``patience`` epochs and keeps the best epoch's weights.

A fit on rollout labels alone makes the values more accurate on the positions good play
reaches and can make the chequer play worse: the plays a player must rank include bad ones,
whose positions no labelled set holds.  ``keep`` > 0 adds, for each labelled position, the
positions after ``keep_plays`` legal plays of a random roll, valued by the starting
evaluator, at weight ``keep``: in the form ``outputs``, random plays with the start's
outputs as their targets; in the form ``differences``, the start's best plays, with a
squared loss on the equity differences between the plays of one roll (each play's equity
less the roll's mean, against the start's): the levels come from the rollouts, the ranking
of the plays from the start.

``teach`` adds positions no rollout labelled (a pool's, :func:`fit_evaluator`'s
``teach_boards``, and the positions after random plays from the labelled ones), valued by the start's ``teach_plies`` search and fitted to those outputs
at weight ``teach``: a search teacher (2-ply) is about as close to the rollouts as a
648-trial label and twenty times cheaper, so it can value many more positions.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from bgengine.core.encoders import encode
from bgengine.core.evaluator import CLASSES as EVALUATOR_CLASSES, Evaluator, as_evaluator
from bgengine.labelling.store import Labels
from bgengine.labelling.teacher import search_outputs
from bgengine.core.movegen import legal_afterstates_batch
from bgengine.core.network import Network, equity_of

__all__ = ["FitConfig", "NetworkFit", "fit_evaluator", "fit_from_stores", "replace_networks",
           "held_out_mask",
           "widen_network", "play_positions_around"]

log = logging.getLogger(__name__)

#: The forms of :attr:`FitConfig.keep_form`.
KEEP_FORMS = ("outputs", "differences")
#: Cubeless equity as a linear function of the five outputs.
_EQUITY_WEIGHTS = np.array([2, 1, 1, -1, -1], np.float32)

_RACE = EVALUATOR_CLASSES.index("race")
_CONTACT = EVALUATOR_CLASSES.index("contact")


@dataclass(frozen=True)
class FitConfig:
    """A supervised fit: ``epochs`` at most, Adam step ``lr`` (decaying linearly to
    ``lr * lr_end`` over the epochs), ``batch`` positions a step, ``held_out`` share of
    positions for early stopping after ``patience`` epochs without gain, label weights
    with noise ``floor`` (equity), ``anchor``: a decay of the weights toward the start's
    (AdamW-style, per step, times the step size); ``seed`` orders the mini-batches;
    ``spill``: the weight, relative to its own positions', with which each contact expert
    is also trained on the contact positions routed to the other experts (0: its own
    alone; an expert's held-out figure counts its own positions only); ``keep``: the
    weight of the positions after ``keep_plays`` plays from each labelled position, valued
    by the starting evaluator (0: none); ``keep_form``: ``outputs`` (random plays, fitted
    to the start's outputs) or ``differences`` (the start's best plays, fitted to the
    start's equity differences between the plays of one roll; see the module docstring);
    ``keep_plies``: the lookahead (0..2) at which the start values the kept plays (the
    plays are still its best at 0-ply; at 2 plies it ranks them as its 2-ply search
    does, about 4 ms a play on one core); ``lr_drop`` < 1: after ``drop_patience`` epochs
    without held-out gain the step size is multiplied by it and the fit goes on from the
    best epoch's weights, ``max_drops`` times, before ``patience`` ends it (1: never);
    ``teach``: the weight of the unlabelled positions given to :func:`fit_evaluator`
    and, with ``teach_around`` > 0, of the positions after that many random plays of a
    random roll from each labelled position, all valued by the start's ``teach_plies``
    search (0..2) and fitted to its outputs (whatever ``keep_form`` does besides)."""

    epochs: int = 40
    lr: float = 1e-3
    lr_end: float = 0.1
    batch: int = 128
    held_out: float = 0.1
    patience: int = 4
    floor: float = 0.02
    anchor: float = 0.0
    seed: int = 0
    spill: float = 0.0
    keep: float = 0.0
    keep_plays: int = 4
    keep_form: str = "outputs"
    keep_plies: int = 0
    lr_drop: float = 1.0
    drop_patience: int = 2
    max_drops: int = 3
    teach: float = 1.0
    teach_plies: int = 2
    teach_around: int = 0

    def __post_init__(self) -> None:
        for name in ("keep_plies", "teach_plies"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 2:
                raise ValueError(f"{name} must be an integer in 0..2, got {v!r}")
        for name in ("epochs", "batch", "patience", "seed", "keep_plays", "drop_patience",
                     "max_drops", "teach_around"):
            v = getattr(self, name)
            least = 0 if name in ("seed", "teach_around") else 1
            if isinstance(v, bool) or not isinstance(v, int) or v < least:
                raise ValueError(f"{name} must be an integer >= {least}, got {v!r}")
        for name, lo, hi in (("lr", 0, 1), ("lr_end", 0, 1), ("held_out", 0, 0.9),
                             ("floor", 0, 1), ("anchor", 0, 1e3), ("spill", 0, 1),
                             ("keep", 0, 10), ("lr_drop", 0, 1), ("teach", 0, 10)):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and np.isfinite(v) and lo <= v <= hi):
                raise ValueError(f"{name} must be a number in [{lo}, {hi}], got {v!r}")
        if self.lr <= 0 or self.lr_drop <= 0:
            raise ValueError("lr and lr_drop must be > 0")
        if self.keep_form not in KEEP_FORMS:
            raise ValueError(f"keep_form must be one of {', '.join(KEEP_FORMS)}, "
                             f"got {self.keep_form!r}")


@dataclass(frozen=True)
class NetworkFit:
    """What the fit of one network did: its name, positions trained and held out, the
    held-out equity RMS error (label noise removed) before and after, epochs run and the
    best epoch (0: the start was best, the network is unchanged)."""

    name: str
    trained: int
    held: int
    before: float
    after: float
    epochs: int
    best_epoch: int

    def as_dict(self) -> dict:
        return asdict(self)


def held_out_mask(keys: np.ndarray, share: float) -> np.ndarray:
    """True for the positions held out: those whose key's BLAKE2b hash falls in the first
    ``share`` of its range (the same positions whatever else the data holds)."""
    cut = int(share * 2**32)
    return np.array([int.from_bytes(hashlib.blake2b(bytes(k), digest_size=4).digest(), "little")
                     < cut for k in keys], bool)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))


def _layers(net: Network) -> list[np.ndarray]:
    """Weights then biases of each layer, float32: W0, b0, W1, b1..."""
    out = []
    for layer in range(len(net.sizes) - 1):
        W, b = net.weights(layer)
        out += [np.array(W, np.float32), np.array(b, np.float32)]
    return out


def _forward(params: list[np.ndarray], x: np.ndarray) -> list[np.ndarray]:
    acts = [x]
    for i in range(0, len(params), 2):
        acts.append(_sigmoid(acts[-1] @ params[i] + params[i + 1]))
    return acts


def _noise_free_rmse(out: np.ndarray, target: np.ndarray, se: np.ndarray) -> float:
    err = equity_of(out.astype(np.float64)) - equity_of(target.astype(np.float64))
    return float(np.sqrt(max(0.0, float(np.mean(err ** 2) - np.mean(se.astype(np.float64) ** 2)))))


def fit_network(net: Network, x: np.ndarray, target: np.ndarray, se: np.ndarray,
                held: np.ndarray, config: FitConfig, name: str = "network",
                progress: Callable[[str], None] | None = None,
                row_weight: np.ndarray | None = None,
                pairs: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
                ) -> tuple[Network, NetworkFit]:
    """``net`` fitted to inputs ``x`` (float32, (N, n_inputs)), targets (float32, (N, 5))
    with equity standard errors ``se`` (N,); ``held`` (bool, (N,)) marks the held-out rows.
    ``row_weight`` (N,): a further weight of each row in training; rows of weight 0 are
    not trained on, and only rows of weight 1 count in the held-out figure.
    ``pairs``: ``(inputs (M, n_inputs), the start's equities (M,), roll (M,), ascending)``
    of plays whose equity differences within a roll are fitted too, at ``config.keep``
    (the ``differences`` form of :class:`FitConfig`)."""
    params = _layers(net)
    start = [p.copy() for p in params] if config.anchor else None
    if row_weight is None:
        row_weight = np.ones(len(x))
    train = np.flatnonzero(~held & (row_weight > 0))
    test = np.flatnonzero(held & (row_weight == 1))
    weight = 1.0 / (np.square(se.astype(np.float64)) + config.floor ** 2)
    weight = (weight / weight[train].mean() if len(train) else weight) * row_weight
    weight = weight.astype(np.float32)

    def score() -> float:
        if not len(test):
            return 0.0
        return _noise_free_rmse(_forward(params, x[test])[-1], target[test], se[test])

    before = best = score()
    best_params = [p.copy() for p in params]
    best_epoch = 0
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    rng = np.random.default_rng(config.seed)
    steps_per_epoch = max(1, len(train) // config.batch)
    total = config.epochs * steps_per_epoch
    if pairs is not None:
        px, peq, proll = pairs
        starts = np.flatnonzero(np.r_[True, proll[1:] != proll[:-1]])
        bounds = np.r_[starts, len(proll)]
        rolls_per_step = max(1, -(-len(starts) // steps_per_epoch))
    step = 0
    epoch = 0
    scale, drops, stale = 1.0, 0, 0         # the step's factor from drops; epochs without gain
    for epoch in range(1, config.epochs + 1):
        order = rng.permutation(train)
        roll_order = rng.permutation(len(starts)) if pairs is not None else None
        for s in range(steps_per_epoch):
            ix = order[s * config.batch:(s + 1) * config.batch]
            xb = x[ix]
            if pairs is not None:
                pick = roll_order[s * rolls_per_step:(s + 1) * rolls_per_step]
                prow = np.concatenate([np.arange(bounds[r], bounds[r + 1]) for r in pick]) \
                    if len(pick) else np.zeros(0, np.int64)
                xb = np.concatenate([xb, px[prow]]) if len(prow) else xb
            acts = _forward(params, xb)
            # cross-entropy of sigmoid outputs: d/dz = (p - t), weighted, batch mean
            delta = (acts[-1][:len(ix)] - target[ix]) * (weight[ix, None] / len(ix))
            if pairs is not None and len(prow):
                delta = np.concatenate([delta, _difference_delta(
                    acts[-1][len(ix):], peq[prow], proll[prow], config.keep, len(ix))])
            grads: list[np.ndarray] = [None] * len(params)    # type: ignore[list-item]
            for layer in range(len(params) // 2 - 1, -1, -1):
                grads[2 * layer] = acts[layer].T @ delta
                grads[2 * layer + 1] = delta.sum(axis=0)
                if layer:
                    a = acts[layer]
                    delta = (delta @ params[2 * layer].T) * a * (1 - a)
            step += 1
            lr = scale * config.lr * (1 + (config.lr_end - 1) * (step - 1) / max(total - 1, 1))
            b1, b2 = 0.9, 0.999
            for i, g in enumerate(grads):
                m[i] = b1 * m[i] + (1 - b1) * g
                v[i] = b2 * v[i] + (1 - b2) * g * g
                params[i] -= (lr * (m[i] / (1 - b1 ** step))
                              / (np.sqrt(v[i] / (1 - b2 ** step)) + 1e-8)).astype(np.float32)
                if start is not None:
                    params[i] -= (lr * config.anchor * (params[i] - start[i])).astype(np.float32)
        now = score()
        note = (f"{name}: epoch {epoch}: held-out equity rms {now:.4f} (start {before:.4f}, "
                f"best {min(best, now):.4f})")
        log.info(note)
        if progress is not None:
            progress(note)
        if now < best or not len(test):
            best, best_params, best_epoch = now, [p.copy() for p in params], epoch
            stale = 0
            continue
        stale += 1
        if config.lr_drop < 1 and drops < config.max_drops and stale >= config.drop_patience:
            scale, drops, stale = scale * config.lr_drop, drops + 1, 0
            params = [p.copy() for p in best_params]
            log.info(f"{name}: step size times {scale:g} from epoch {best_epoch}'s weights")
        elif epoch - best_epoch >= config.patience and (config.lr_drop == 1
                                                        or drops >= config.max_drops):
            break
    flat = np.concatenate([p.reshape(-1) for p in best_params]).astype(np.float32)
    metadata = dict(net.metadata)
    metadata["network_fit"] = {"config": asdict(config), "trained": int(len(train)),
                                      "held_out": int(len(test)), "best_epoch": best_epoch,
                                      "held_out_rmse": [before, best]}
    fitted = Network(net.hidden, net.n_outputs, net.encoder, params=flat, metadata=metadata)
    return fitted, NetworkFit(name, len(train), len(test), before, best, epoch, best_epoch)


def _difference_delta(p: np.ndarray, teacher: np.ndarray, roll: np.ndarray, keep: float,
                      batch: int) -> np.ndarray:
    """d(loss)/d(pre-sigmoid outputs) of ``keep`` times the squared error of the plays'
    equity differences within each roll (each play's equity less its roll's mean, against
    the start's ``teacher`` equities), per play, scaled like a batch of ``batch`` labels."""
    eq = p @ _EQUITY_WEIGHTS
    _, inverse, counts = np.unique(roll, return_inverse=True, return_counts=True)
    centred = eq - (np.bincount(inverse, eq) / counts)[inverse]
    goal = teacher - (np.bincount(inverse, teacher) / counts)[inverse]
    r = (centred - goal).astype(np.float32)     # the mean terms' gradients cancel
    return (2 * keep / batch) * r[:, None] * _EQUITY_WEIGHTS * p * (1 - p)


def widen_network(net: Network, width: int, seed: int = 0, init_range: float = 0.1) -> Network:
    """Deprecated: :func:`bgengine.training.growth.widen` with ``copies=False`` (fresh units,
    the outputs kept exactly) is the one widening; this name goes in the next version."""
    import warnings

    from bgengine.training.growth import widen

    warnings.warn("bgengine.labelling.fit.widen_network is bgengine.training.growth.widen("
                  "net, (width,), copies=False, noise=init_range)", DeprecationWarning,
                  stacklevel=2)
    return widen(net, (width,), copies=False, noise=init_range, seed=seed)


def replace_networks(evaluator: Evaluator, nets: dict[str, Network]) -> Evaluator:
    """``evaluator`` with the networks named in ``nets`` (``contact``, ``race``,
    ``contact1``... as :attr:`Evaluator.networks` names them) replaced; the bear-off
    database, race values, metadata and the contact experts' cuts kept."""
    have = evaluator.networks
    unknown = sorted(set(nets) - set(have))
    if unknown:
        raise ValueError(f"the evaluator has no {', '.join(unknown)} network")
    have.update(nets)
    experts = [have[f"contact{i}"] for i in range(1, len(evaluator.experts) + 1)]
    race = None if evaluator.race is evaluator.contact and "race" not in nets else have["race"]
    return Evaluator(have["contact"], race, database=evaluator.database,
                     race_gammons=evaluator.race_gammons, metadata=dict(evaluator.metadata),
                     experts=experts, stage_cuts=evaluator.stage_cuts,
                     lead_cuts=evaluator.lead_cuts)


def _groups(evaluator: Evaluator, boards: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The evaluator's class of each position, and for each of its networks (by name) the
    mask of the positions it values."""
    kind = evaluator.classify(boards).astype(np.int64)
    route = evaluator.expert_of(boards).astype(np.int64)
    groups: dict[str, np.ndarray] = {}
    if evaluator.race is not evaluator.contact:
        groups["race"] = kind == _RACE
    for e in range(len(evaluator.experts) + 1):
        name = "contact" if e == 0 else f"contact{e}"
        groups[name] = (kind == _CONTACT) & (route == e) if evaluator.experts else \
            (kind == _CONTACT) | ((kind == _RACE) & (evaluator.race is evaluator.contact))
    return kind, groups


def _append_taught(rows: list, boards: np.ndarray, outputs: np.ndarray, weight: float) -> None:
    """Add positions valued by a teacher to a fit's ``[boards, targets, stderrs, held,
    row weights]``: never held out, each weighing as a label of typical precision times
    ``weight``."""
    these, target, se, held, row_weight = rows
    typical = np.sqrt(np.mean(np.square(se))) if len(se) else 0.0
    rows[:] = [np.concatenate([these, boards]),
               np.concatenate([target, outputs.astype(np.float32)]),
               np.concatenate([se, np.full(len(boards), typical, np.float32)]),
               np.concatenate([held, np.zeros(len(boards), bool)]),
               np.concatenate([row_weight, np.full(len(boards), weight)])]


def play_positions_around(boards: np.ndarray, plays: int, seed: int = 0,
                          evaluator: Evaluator | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Positions (uint8, (M, 2, 25), the opponent on roll) after up to ``plays`` distinct
    legal plays of one random roll from each of ``boards`` (N, 2, 25), and the index of
    the board each came from (int64, (M,), ascending): random plays, good and bad alike,
    or with ``evaluator`` its best plays at 0-ply.  Games the play has won are left out."""
    rng = np.random.default_rng(seed)
    dice = rng.integers(1, 7, size=(len(boards), 2))
    after, _, offsets = legal_afterstates_batch(boards, dice)
    after = np.ascontiguousarray(after[:, ::-1])        # the opponent on roll
    alive = after[:, 0].sum(axis=1, dtype=np.int64) > 0  # the mover not yet all off
    score = None
    if evaluator is not None:
        score = np.full(len(after), -np.inf)
        score[alive] = -evaluator.equity(after[alive])   # the mover's equity
    take, origin = [], []
    for k in np.flatnonzero(np.diff(offsets)):
        rows = np.arange(offsets[k], offsets[k + 1])
        rows = rows[alive[rows]]
        if not len(rows):
            continue
        if score is None:
            pick = rng.choice(rows, size=min(plays, len(rows)), replace=False)
        else:
            pick = rows[np.argsort(-score[rows], kind="stable")[:plays]]
        take.append(np.sort(pick))
        origin.append(np.full(len(pick), k))
    if not take:
        return np.zeros((0, 2, 25), np.uint8), np.zeros(0, np.int64)
    return after[np.concatenate(take)], np.concatenate(origin).astype(np.int64)


class _Checkpoints:
    """A folder of the networks fitted so far (``NAME.npz``, and ``NAME.json`` with the fit's
    report and the fingerprint of what it was fitted from), so that a fit stopped part way
    goes on at the next network."""

    def __init__(self, folder: str | os.PathLike[str], fingerprint: str) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.fingerprint = fingerprint

    def get(self, name: str) -> tuple[Network, NetworkFit] | None:
        meta = self.folder / f"{name}.json"
        if not meta.is_file():
            return None
        record = json.loads(meta.read_text())
        if record.get("fingerprint") != self.fingerprint:
            raise ValueError(f"{self.folder} holds a fit of {name} from other labels, settings "
                             f"or a start: remove the folder, or give another one")
        return Network.load(self.folder / f"{name}.npz"), NetworkFit(**record["report"])

    def put(self, name: str, net: Network, report: NetworkFit) -> None:
        tmp = self.folder / f"{name}.tmp.npz"
        net.save(tmp)
        os.replace(tmp, self.folder / f"{name}.npz")     # the network, then its record
        tmp = self.folder / f"{name}.json.tmp"
        tmp.write_text(json.dumps({"fingerprint": self.fingerprint, "report": report.as_dict()}))
        os.replace(tmp, self.folder / f"{name}.json")


def _fingerprint(evaluator: Evaluator, labels: Labels, config: FitConfig,
                 only: set[str] | None, teach_boards: np.ndarray | None) -> str:
    """A digest of everything a fit depends on: the start's weights, the labels, the
    settings, the networks to fit and the taught positions."""
    h = hashlib.sha256(json.dumps([asdict(config), sorted(only or [])]).encode())
    for name, net in sorted(evaluator.networks.items()):
        h.update(name.encode())
        for a in _layers(net):
            h.update(a.tobytes())
    for a in (labels.keys, labels.outputs, labels.equity_stderr):
        h.update(np.ascontiguousarray(a).tobytes())
    if teach_boards is not None:
        h.update(np.ascontiguousarray(teach_boards).tobytes())
    return h.hexdigest()


def fit_evaluator(model: Network | Evaluator, labels: Labels, config: FitConfig,
                  only: set[str] | None = None,
                  progress: Callable[[str], None] | None = None, *,
                  n_threads: int = 1, search_cache: str | os.PathLike[str] | None = None,
                  search_progress: Callable[[int], None] | None = None,
                  teach_boards: np.ndarray | None = None,
                  checkpoint: str | os.PathLike[str] | None = None
                  ) -> tuple[Evaluator, list[NetworkFit]]:
    """``model``'s evaluator with each class network fitted on the labelled positions it
    is routed (see the module docstring); ``only``: the network names to fit (as
    :attr:`Evaluator.networks` names them), default all that have positions.
    ``n_threads``, ``search_cache`` and ``search_progress``: the threads, cache folder
    and progress of the kept plays' search when ``config.keep_plies`` > 0 (see
    :func:`bgengine.labelling.teacher.search_outputs`), each network's kept plays and taught
    positions searched as that network is fitted; ``teach_boards`` (uint8, (M, 2, 25),
    side on roll in row 1): unlabelled positions valued by the start's
    ``config.teach_plies`` search (the same cache) and fitted to those outputs at weight
    ``config.teach``; those the labels hold are left out.  ``checkpoint``: a folder that
    keeps each network once fitted, so that the same fit started again (the same start,
    labels and settings; else a ``ValueError``) takes those and fits only the rest."""
    evaluator = as_evaluator(model)
    boards = labels.boards()
    done = (_Checkpoints(checkpoint, _fingerprint(evaluator, labels, config, only, teach_boards))
            if checkpoint is not None else None)

    def searched(positions: np.ndarray, plies: int) -> np.ndarray:
        return search_outputs(evaluator, positions, plies, n_threads=n_threads,
                              cache=search_cache, progress=search_progress)

    kind, groups = _groups(evaluator, boards)
    # the networks fitted here: those asked for with positions, less those fitted before
    todo = {name for name, mask in groups.items()
            if (only is None or name in only) and mask.sum() >= 10
            and (done is None or done.get(name) is None)}

    # positions taught and plays kept, each searched by the start when its network is fitted
    # (a stopped fit then keeps the networks fitted so far and their searches' cache)
    parts = []
    if config.teach and config.teach_around:
        parts.append(play_positions_around(boards, config.teach_around, config.seed)[0])
    if teach_boards is not None and len(teach_boards) and config.teach:
        from bgengine.labelling.store import boards_to_keys

        tkeys = boards_to_keys(teach_boards)
        labelled = {bytes(k) for k in labels.keys}
        fresh = np.array([bytes(k) not in labelled for k in tkeys], bool)
        _, first = np.unique(tkeys, axis=0, return_index=True)
        fresh &= np.isin(np.arange(len(tkeys)), first)
        parts.append(teach_boards[fresh])
    taught = taught_groups = None
    if parts:
        taught = np.ascontiguousarray(np.concatenate(parts))
        _, taught_groups = _groups(evaluator, taught)
    held = held_out_mask(labels.keys, config.held_out)
    kept = kept_groups = kept_origin = None
    differences = config.keep_form == "differences"
    if config.keep and todo:
        kept, kept_origin = play_positions_around(boards, config.keep_plays, config.seed,
                                                  evaluator if differences else None)
        _, kept_groups = _groups(evaluator, kept)
    nets = evaluator.networks
    fitted: dict[str, Network] = {}
    reports = []
    contact = kind == _CONTACT
    for name, mask in groups.items():
        if (only is not None and name not in only) or mask.sum() < 10:
            continue
        net = nets[name]
        earlier = done.get(name) if done is not None else None
        if earlier is not None:
            if progress is not None:
                progress(f"{name}: fitted before ({done.folder})")
            reports.append(earlier[1])
            if earlier[1].best_epoch:
                fitted[name] = earlier[0]
            continue
        spill = config.spill if name.startswith("contact") and evaluator.experts else 0.0
        rows = np.flatnonzero(mask | (contact if spill else False))
        row_weight = np.where(mask[rows], 1.0, spill)
        these, target = boards[rows], labels.outputs[rows].astype(np.float32)
        se, held_rows = labels.equity_stderr[rows].astype(np.float32), held[rows]
        pairs = None
        if kept is not None and differences:
            k = np.flatnonzero(kept_groups[name])   # a network's kept plays serve its fit alone
            origin = kept_origin[k]
            sizes = np.bincount(origin, minlength=len(boards))
            k = k[sizes[origin] >= 2]               # rolls with two or more plays here
            plays = np.ascontiguousarray(kept[k])
            pairs = (encode(plays, net.encoder).astype(np.float32),
                     equity_of(searched(plays, config.keep_plies)).astype(np.float32),
                     kept_origin[k])
        rows_in = [these, target, se, held_rows, row_weight]
        if kept is not None and not differences:
            plays = np.ascontiguousarray(kept[kept_groups[name]])
            _append_taught(rows_in, plays, searched(plays, config.keep_plies), config.keep)
        if taught is not None:
            around = np.ascontiguousarray(taught[taught_groups[name]])
            _append_taught(rows_in, around, searched(around, config.teach_plies), config.teach)
        these, target, se, held_rows, row_weight = rows_in
        x = encode(these, net.encoder).astype(np.float32)
        new, report = fit_network(net, x, target, se, held_rows, config, name, progress,
                                  row_weight=row_weight, pairs=pairs)
        reports.append(report)
        if report.best_epoch:
            fitted[name] = new
        if done is not None:
            done.put(name, new if report.best_epoch else net, report)
    result = replace_networks(evaluator, fitted) if fitted else evaluator.copy()
    return result, reports


def fit_from_stores(model: Network | Evaluator, stores: Sequence[str | os.PathLike[str]],
                    config: FitConfig, *, start: str, only: set[str] | None = None,
                    teach_pools: Sequence[str | os.PathLike[str]] = (),
                    progress: Callable[[str], None] | None = None, n_threads: int = 1,
                    search_cache: str | os.PathLike[str] | None = None,
                    search_progress: Callable[[int, int], None] | None = None,
                    prefer: str = "precise",
                    checkpoint: str | os.PathLike[str] | None = None
                    ) -> tuple[Evaluator, list[NetworkFit], int]:
    """:func:`fit_evaluator` on the label stores ``stores`` (checksums checked; a position
    in several once, with its most precise label, or with ``prefer="first"`` the label of
    the first store listed that holds it) and the positions of the pools
    ``teach_pools``; the evaluator's metadata gains ``fitted_to_rollouts`` (``start``
    names the starting evaluator there); ``checkpoint`` as :func:`fit_evaluator`'s.  Returns
    the evaluator, the fits and the number of labelled positions."""
    from bgengine.labelling.store import LabelStore, keys_to_boards, load_pool

    labels = Labels.concatenate([LabelStore(p).load(verify=True) for p in stores]).unique(prefer)
    if not len(labels):
        raise ValueError("the stores hold no labelled positions")
    teach = (np.concatenate([keys_to_boards(load_pool(p).keys) for p in teach_pools])
             if teach_pools else None)
    fitted, reports = fit_evaluator(model, labels, config, only, progress, n_threads=n_threads,
                                    search_cache=search_cache, search_progress=search_progress,
                                    teach_boards=teach, checkpoint=checkpoint)
    fitted.metadata = {**fitted.metadata, "fitted_to_rollouts": {
        "start": start, "stores": [str(p) for p in stores],
        "teach": [str(p) for p in teach_pools], "positions": len(labels), "prefer": prefer,
        "config": asdict(config), "networks": [r.as_dict() for r in reports]}}
    return fitted, reports, len(labels)
