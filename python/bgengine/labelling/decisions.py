"""Chequer-play decisions judged by rollouts: the play half of the accuracy benchmark.

Each decision is a position (side on roll) and a roll drawn from the position's key, with
its best candidate plays rolled out on common dice (the same trial numbers and seed for
every candidate, so their differences are measured far more precisely than their values):
the top plays by the labelling evaluator at 0-ply and at 2-ply.  A player's error on a
decision is the rollout equity of the best candidate minus that of the play it chose; a
chosen play outside the candidates is rolled out then, with the same seed and trials.

A decision set is one ``.npz``: ``keys`` (uint8, (D, 10)), ``dice`` (uint8, (D, 2)),
``classes`` (uint8, (D,)), ``candidates`` (uint8, (D, K, 10): the keys of the plays'
positions, opponent on roll; unused slots zero), ``equity`` and ``stderr`` (float32,
(D, K): rollout equity of each play for the mover, and its standard error; NaN in unused
slots), and a JSON ``metadata`` string (trials, seed, the evaluator's SHA-256).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from bgengine.core.board import game_result
from bgengine.core.evaluator import Evaluator
from bgengine.labelling.classes import POSITION_CLASSES
from bgengine.labelling.store import boards_to_keys, keys_to_boards, load_arrays, save_arrays
from bgengine.core.movegen import legal_afterstates
from bgengine.core.network import Network
from bgengine.core.search import Searcher, rollout

__all__ = ["DecisionSet", "decision_dice", "label_decisions", "PlayErrors", "play_errors",
           "searcher_chooser", "equity_lost_check", "build_decision_set", "relabel_decisions"]


def decision_dice(key: bytes, seed: int) -> tuple[int, int]:
    """The roll of the decision at the position with key ``key``: each of the 36 rolls
    equally likely, from SHA-256(key, seed)."""
    h = hashlib.sha256(b"dice" + bytes(key) + int(seed).to_bytes(8, "little")).digest()
    r = int.from_bytes(h[:8], "little") % 36
    return r // 6 + 1, r % 6 + 1


def _seed(key: bytes, seed: int) -> int:
    h = hashlib.sha256(b"rollout" + bytes(key) + int(seed).to_bytes(8, "little")).digest()
    return int.from_bytes(h[:8], "little") & (2**63 - 1)


def _play_equity(model, after: np.ndarray, trials: int, seed: int,
                 n_threads: int) -> tuple[float, float]:
    """The mover's rollout equity of a play's position ``after`` (mover in row 1, as
    ``legal_afterstates`` gives it) and its standard error."""
    result = game_result(after)
    if result:
        return float(result), 0.0
    r = rollout(model, np.ascontiguousarray(after[::-1]), trials, seed=seed,
                n_threads=n_threads)
    return -float(r["equity"]), float(r["stderr"])


#: A decision set's arrays, in its fields' order.
_ARRAYS = ("keys", "dice", "classes", "candidates", "equity", "stderr")


@dataclass
class DecisionSet:
    """Decisions with their candidates' rollouts (see the module docstring)."""

    keys: np.ndarray
    dice: np.ndarray
    classes: np.ndarray
    candidates: np.ndarray
    equity: np.ndarray
    stderr: np.ndarray
    metadata: dict

    def __len__(self) -> int:
        return len(self.keys)

    def save(self, path: str | Path) -> None:
        save_arrays(path, self.metadata, **{f: getattr(self, f) for f in _ARRAYS})

    @classmethod
    def load(cls, path: str | Path) -> "DecisionSet":
        arrays, meta = load_arrays(path, "decision set", _ARRAYS)
        return cls(*arrays, meta)


def label_decisions(model: Network | Evaluator, keys: np.ndarray, classes: np.ndarray, *,
                    trials: int = 1296, top0: int = 5, top2: int = 3, seed: int = 0,
                    n_threads: int = 1, evaluator_sha256: str = "",
                    progress: Callable[[int, int], None] | None = None) -> DecisionSet:
    """Decisions at the positions ``keys`` (each with its roll, :func:`decision_dice`),
    their candidates (the ``top0`` best plays at 0-ply and ``top2`` best at 2-ply of
    ``model``) rolled out ``trials`` times each on common dice.  Positions with a single
    legal play are left out."""
    boards = keys_to_boards(keys)
    searcher = Searcher(model)
    k_max = top0 + top2
    rows = []
    for i, board in enumerate(boards):
        d1, d2 = decision_dice(keys[i], seed)
        after, _ = legal_afterstates(board, d1, d2)
        if len(after) > 1:
            chosen: list[int] = []
            for plies, top in ((0, top0), (2, top2)):
                for index, _, _ in searcher.rank_moves(board, d1, d2, plies)[:top]:
                    if index not in chosen:
                        chosen.append(index)
            cand = np.zeros((k_max, 10), np.uint8)
            eq = np.full(k_max, np.nan, np.float32)
            se = np.full(k_max, np.nan, np.float32)
            s = _seed(keys[i], seed)
            swapped = np.ascontiguousarray(after[chosen][:, ::-1])
            cand[:len(chosen)] = boards_to_keys(swapped)
            for j, index in enumerate(chosen):
                eq[j], se[j] = _play_equity(model, after[index], trials, s, n_threads)
            rows.append((keys[i], (d1, d2), classes[i], cand, eq, se))
        if progress is not None:
            progress(i + 1, len(boards))
    meta = {"trials": trials, "top0": top0, "top2": top2, "seed": seed,
            "evaluator_sha256": evaluator_sha256}
    if not rows:
        return DecisionSet(np.zeros((0, 10), np.uint8), np.zeros((0, 2), np.uint8),
                           np.zeros(0, np.uint8), np.zeros((0, k_max, 10), np.uint8),
                           np.zeros((0, k_max), np.float32), np.zeros((0, k_max), np.float32),
                           meta)
    return DecisionSet(np.array([r[0] for r in rows], np.uint8),
                       np.array([r[1] for r in rows], np.uint8),
                       np.array([r[2] for r in rows], np.uint8),
                       np.array([r[3] for r in rows], np.uint8),
                       np.array([r[4] for r in rows], np.float32),
                       np.array([r[5] for r in rows], np.float32), meta)


def relabel_decisions(model: Network | Evaluator, source: DecisionSet, *, trials: int = 1296,
                      seed: int = 0, n_threads: int = 1, evaluator_sha256: str = "",
                      positions_from: str = "",
                      progress: Callable[[int, int], None] | None = None) -> DecisionSet:
    """The decisions of ``source`` (positions, rolls and candidate plays kept) with each
    candidate rolled out again by ``model``, ``trials`` times on common dice (the same dice
    as ``source``'s with the same ``seed``): the same benchmark judged by another player.
    ``positions_from``: the file ``source`` was read from, named in the metadata."""
    k_max = source.candidates.shape[1] if len(source) else 0
    eq = np.full((len(source), k_max), np.nan, np.float32)
    se = np.full((len(source), k_max), np.nan, np.float32)
    for i in range(len(source)):
        s = _seed(source.keys[i], seed)
        played = np.flatnonzero(~np.isnan(source.equity[i]))
        boards = keys_to_boards(source.candidates[i, played])      # the opponent on roll
        for j, board in zip(played, boards):
            eq[i, j], se[i, j] = _play_equity(model, np.ascontiguousarray(board[::-1]),
                                              trials, s, n_threads)
        if progress is not None:
            progress(i + 1, len(source))
    meta = {k: source.metadata.get(k) for k in ("top0", "top2")}
    meta.update({"trials": trials, "seed": seed, "evaluator_sha256": evaluator_sha256,
                 "positions_from": positions_from})
    return DecisionSet(source.keys, source.dice, source.classes, source.candidates, eq, se, meta)


def _rows(d: DecisionSet, lo: int, hi: int) -> DecisionSet:
    return DecisionSet(*(getattr(d, f)[lo:hi] for f in _ARRAYS), dict(d.metadata))


def _concatenate(a: DecisionSet, b: DecisionSet) -> DecisionSet:
    return DecisionSet(*(np.concatenate([getattr(a, f), getattr(b, f)]) for f in _ARRAYS),
                       dict(b.metadata))


def build_decision_set(path: str | Path, model: Network | Evaluator, keys: np.ndarray,
                       classes: np.ndarray, *, chunk: int = 50,
                       progress: Callable[[int, int], None] | None = None,
                       source: DecisionSet | None = None, **kw) -> DecisionSet:
    """:func:`label_decisions` of ``keys`` (or, given ``source``, :func:`relabel_decisions`
    of its decisions: ``keys`` and ``classes`` are then its own) written to ``path`` every
    ``chunk`` positions, resuming from what ``path`` holds when its settings (``kw``) are the
    same: a stopped build loses at most one chunk.  Returns the whole set."""
    path = Path(path)
    have = None
    start = 0
    if path.exists():
        have = DecisionSet.load(path)
        settings = {k: have.metadata.get(k) for k in kw if k not in ("n_threads",)}
        wanted = {k: v for k, v in kw.items() if k not in ("n_threads",)}
        if settings != wanted:
            raise ValueError(f"{path} was built with {settings}, not {wanted}; use another file")
        start = int(have.metadata.get("positions_done", 0))
    for lo in range(start, len(keys), chunk):
        if source is not None:
            part = relabel_decisions(model, _rows(source, lo, lo + chunk), **kw)
        else:
            part = label_decisions(model, keys[lo:lo + chunk], classes[lo:lo + chunk], **kw)
        have = part if have is None else _concatenate(have, part)
        have.metadata["positions_done"] = min(lo + chunk, len(keys))
        have.save(path)
        if progress is not None:
            progress(min(lo + chunk, len(keys)), len(keys))
    if have is None:
        have = (relabel_decisions(model, _rows(source, 0, 0), **kw) if source is not None
                else label_decisions(model, keys[:0], classes[:0], **kw))
        have.metadata["positions_done"] = 0
        have.save(path)
    return have


@dataclass(frozen=True)
class PlayErrors:
    """A player's chequer play on one class of decisions (``all``: every one):
    ``decisions``, ``equity_lost`` (mean rollout equity given up per decision),
    ``best_share`` (share of decisions where it chose the rollouts' best play) and
    ``outside`` (decisions whose chosen play was not a candidate and was rolled out then)."""

    name: str
    decisions: int
    equity_lost: float
    best_share: float
    outside: int

    def as_dict(self) -> dict:
        return asdict(self)


def play_errors(choose: Callable[[np.ndarray, int, int], int], decisions: DecisionSet,
                model: Network | Evaluator, n_threads: int = 1) -> list[PlayErrors]:
    """The errors of the player ``choose(board, d1, d2) -> index into legal_afterstates``
    on ``decisions``; ``model`` rolls out a chosen play outside the candidates (with the
    set's trials and seed: pass the labelling evaluator)."""
    boards = keys_to_boards(decisions.keys)
    trials, seed = int(decisions.metadata["trials"]), int(decisions.metadata["seed"])
    lost = np.zeros(len(decisions))
    best = np.zeros(len(decisions), bool)
    outside = np.zeros(len(decisions), bool)
    for i, board in enumerate(boards):
        d1, d2 = (int(x) for x in decisions.dice[i])
        after, _ = legal_afterstates(board, d1, d2)
        k = int(choose(board, d1, d2))
        key = boards_to_keys(np.ascontiguousarray(after[k][::-1])[None])[0]
        eq = decisions.equity[i]
        valid = ~np.isnan(eq)
        match = np.flatnonzero(valid & (decisions.candidates[i] == key).all(axis=1))
        top = float(np.nanmax(eq))
        if len(match):
            mine = float(eq[match[0]])
        else:
            outside[i] = True
            mine, _ = _play_equity(model, after[k], trials, _seed(decisions.keys[i], seed),
                                   n_threads)
        lost[i] = max(0.0, max(top, mine) - mine)
        best[i] = mine >= top
    out = []
    for c, name in list(enumerate(POSITION_CLASSES)) + [(None, "all")]:
        m = np.ones(len(decisions), bool) if c is None else decisions.classes == c
        if m.any():
            out.append(PlayErrors(name, int(m.sum()), float(lost[m].mean()), float(best[m].mean()),
                                  int(outside[m].sum())))
    return out


def searcher_chooser(model: Network | Evaluator, plies: int) -> Callable[[np.ndarray, int, int], int]:
    """``choose`` for :func:`play_errors`: ``model``'s best play at ``plies``."""
    searcher = Searcher(model)
    return lambda board, d1, d2: int(searcher.best_move(board, d1, d2, plies)[0])


def equity_lost_check(decisions: DecisionSet) -> float:
    """The mean spread (best minus worst candidate's rollout equity) of the decisions: a
    sanity figure of how much the candidates differ."""
    eq = decisions.equity
    return float(np.nanmean(np.nanmax(eq, axis=1) - np.nanmin(eq, axis=1))) if len(eq) else 0.0


