"""Cube decisions judged by cubeful rollouts: the cube half of the accuracy benchmark.

A cube decision set holds positions (side on roll, before it rolls, money play, cube 1
centred, Jacoby off) where a double or a take is close, each rolled out cubefully
(:func:`bgengine.core.cuberollout.rollout_cube`: no double and double/take on common dice,
both sides then using the cube).  A player's decisions there are judged by those values,
or by another judge's (gnubg 2-ply's cube analysis, say):

* the doubler's: it doubles or not; the judge's best is ``max(no double, min(double/take,
  double/pass))`` (the opponent answering as the judge would), and the equity lost is that
  minus the judged value of the player's choice.  Kinds: a *missed double*, a *wrong
  double* (not good enough) and a double when *too good* (the judge plays on for the
  gammons, ``no double > double/pass``);
* the taker's: it takes or passes a double; the judge's best answer gives the doubler
  ``min(double/take, double/pass)``, and a *wrong take* or *wrong pass* costs the taker
  ``|double/take - double/pass|``.

Every position counts one decision of each side.  The set is one ``.npz``: ``keys``
(uint8, (D, 10)), ``classes`` (uint8, (D,)), ``values`` (float32, (D, 3): no double,
double/take, double/pass, points per cube for the side on roll), ``stderr`` (float32, (D,
3): no double's, double/take's and their difference's standard errors), optionally
``scores`` (int16, (D, 2): how far the side on roll and the other side are from winning a
match, 0 and 0 for money play) and a JSON ``metadata`` string (trials, seed, the window,
the evaluator's SHA-256).  At a match score the values are match-winning chances
normalised as gnubg normalises them (:func:`normalised`): +1 for winning the cube's
points, -1 for losing them, so that errors are in the units of money play.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from bgengine.core.cuberollout import rollout_cube
from bgengine.core.evaluator import Evaluator
from bgengine.core.network import Network
from bgengine.decisions.cube import (CubeEfficiency, CubeInfo, MatchEquityTable, cube_decision,
                                     gnubg_met, score_table)
from bgengine.labelling.classes import POSITION_CLASSES
from bgengine.labelling.store import keys_to_boards, load_arrays, save_arrays

__all__ = ["CubeDecisionSet", "close_cube_decisions", "label_cube_decisions", "normalised",
           "score_info",
           "build_cube_set", "model_cube_values", "screened_cube_values", "CubeErrors", "cube_errors",
           "action_agreement", "fit_cube_efficiency", "with_fitted_efficiency", "EFFICIENCY_GRID",
           "ERROR_KINDS"]

#: The kinds of cube error, doubler's then taker's.
ERROR_KINDS = ("missed double", "wrong double", "too good", "wrong take", "wrong pass")


def score_info(score) -> CubeInfo:
    """The cube (1, centred, Jacoby off) at ``score``, (away, opp_away) of the side on roll;
    (0, 0): money play."""
    away, opp = int(score[0]), int(score[1])
    return CubeInfo() if away == 0 else CubeInfo(away=away, opp_away=opp)


def normalised(values: np.ndarray, info: CubeInfo,
               met: MatchEquityTable | None = None) -> np.ndarray:
    """Cube values at a match score (match-winning chances, (..., 3)) as gnubg's normalised
    equity: ``(2 v - (W + L)) / (W - L)``, W and L the chances after winning and losing the
    cube's points; money values as they are."""
    if info.is_money:
        return np.asarray(values, np.float64)
    table, _, _ = score_table(info, met or gnubg_met())
    win, lose = table[0, 0, 4], table[0, 0, 2]
    return (2.0 * np.asarray(values, np.float64) - (win + lose)) / (win - lose)


def model_cube_values(model: Network | Evaluator, boards: np.ndarray, plies: int = 0,
                      efficiency: CubeEfficiency | None = None,
                      probs: np.ndarray | None = None,
                      scores: np.ndarray | None = None) -> np.ndarray:
    """The engine's cube decisions: float64 (N, 3), no double, double/take, double/pass for
    the side on roll of each board, money play, cube 1 centred, Jacoby off; the cube model
    (Janowski, :mod:`bgengine.decisions.cube`) over ``model``'s 0-ply outputs (or
    ``probs``, (N, 5)), at ``plies`` > 0 its cubeful search
    (:func:`~bgengine.core.cubesearch.money_cube_search`); ``efficiency`` by class,
    default the model file's (:meth:`CubeEfficiency.of_evaluator`).  ``scores`` (N, 2):
    each position's match score (see the module docstring), its values :func:`normalised`
    (gnubg's table, :func:`bgengine.decisions.cube.gnubg_met`)."""
    from bgengine.core.cubesearch import cube_search, money_cube_search
    from bgengine.labelling.benchmark import predict_outputs
    from bgengine.matches.run import default_threads

    efficiency = efficiency or CubeEfficiency.of_evaluator(model)
    if scores is not None and np.any(scores):
        out = np.empty((len(boards), 3))
        for score in np.unique(scores, axis=0):
            rows = np.flatnonzero((scores == score).all(axis=1))
            info = score_info(score)
            if probs is None:
                v = cube_search(model, boards[rows], plies, *score_table(info, gnubg_met()),
                                efficiency=efficiency.values, n_threads=default_threads())
            else:
                xs = efficiency.of_boards(boards[rows])
                v = np.array([_decision_values(cube_decision(probs[r], info, float(x),
                                                             gnubg_met()))
                              for r, x in zip(rows, xs)])
            out[rows] = normalised(v, info)
        return out
    if probs is None and plies:
        return money_cube_search(model, boards, plies, efficiency=efficiency.values,
                                 n_threads=default_threads())
    if probs is None:
        probs = predict_outputs(model, boards, plies)
    xs = efficiency.of_boards(boards)
    info = CubeInfo()
    out = np.empty((len(boards), 3))
    for i in range(len(boards)):
        out[i] = _decision_values(cube_decision(probs[i], info, float(xs[i])))
    return out


def _decision_values(d) -> tuple[float, float, float]:
    return d.no_double, d.double_take, d.double_pass


def screened_cube_values(shallow: np.ndarray, deep: np.ndarray,
                         screen: float | None = None) -> np.ndarray:
    """The cube values an engine with deeper cube decisions acts on (each (N, 3): no
    double, double/take, double/pass): ``deep``'s, except that where ``shallow``'s (0-ply)
    double margin, ``min(double/take, double/pass) - no double``, is wider than ``screen``
    (default :data:`bgengine.decisions.engine.CUBE_SCREEN`) the no-double value is moved so
    that the double is decided as ``shallow`` decides it (the take stays ``deep``'s):
    what :meth:`Engine.cube_decision <bgengine.decisions.engine.Engine.cube_decision>`
    does."""
    from bgengine.decisions.engine import CUBE_SCREEN

    screen = CUBE_SCREEN if screen is None else screen
    out = np.array(deep, np.float64)
    margin = np.minimum(shallow[:, 1], shallow[:, 2]) - shallow[:, 0]
    deep_margin = np.minimum(out[:, 1], out[:, 2]) - out[:, 0]
    flip = (np.abs(margin) > screen) & ((margin > 0) != (deep_margin > 0))
    out[flip, 0] = np.minimum(out[flip, 1], out[flip, 2]) - margin[flip]
    return out


def close_cube_decisions(values: Sequence[np.ndarray], window: float) -> np.ndarray:
    """True where, by any of the ``values`` (each (N, 3) no double, double/take,
    double/pass), the double (``no double`` against ``min(double/take, double/pass)``) or
    the take (``double/take`` against ``double/pass``) is within ``window`` points."""
    close = np.zeros(len(values[0]), bool)
    for v in values:
        nd, dt, dp = v[:, 0], v[:, 1], v[:, 2]
        close |= (np.abs(np.minimum(dt, dp) - nd) <= window) | (np.abs(dt - dp) <= window)
    return close


def _seed(key: bytes, seed: int) -> int:
    h = hashlib.sha256(b"cube rollout" + bytes(key) + int(seed).to_bytes(8, "little")).digest()
    return int.from_bytes(h[:8], "little") & (2**63 - 1)


@dataclass
class CubeDecisionSet:
    """Cube decisions with their cubeful rollouts (see the module docstring)."""

    keys: np.ndarray
    classes: np.ndarray
    values: np.ndarray
    stderr: np.ndarray
    metadata: dict
    scores: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.scores is None:
            self.scores = np.zeros((len(self.keys), 2), np.int16)

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def is_money(self) -> bool:
        """Every decision is in money play."""
        return not np.any(self.scores)

    def save(self, path: str | Path) -> None:
        extra = {} if self.is_money else {"scores": np.asarray(self.scores, np.int16)}
        save_arrays(path, self.metadata, keys=self.keys, classes=self.classes,
                    values=self.values, stderr=self.stderr, **extra)

    @classmethod
    def load(cls, path: str | Path) -> "CubeDecisionSet":
        arrays, meta = load_arrays(path, "cube decision set",
                                   ("keys", "classes", "values", "stderr"), ("scores",))
        return cls(*arrays[:4], meta, arrays[4])

    def boards(self) -> np.ndarray:
        return keys_to_boards(self.keys)


def label_cube_decisions(model: Network | Evaluator, keys: np.ndarray, classes: np.ndarray, *,
                         trials: int = 1296, seed: int = 0, n_threads: int = 1,
                         metadata: dict | None = None,
                         scores: np.ndarray | None = None) -> CubeDecisionSet:
    """Cubeful rollouts (``trials`` each, seeded from the position's key and ``seed``) of
    the positions ``keys``: money play, cube centred, Jacoby off; or at each position's
    match score ``scores`` (N, 2), :func:`normalised` (gnubg's table), the errors scaled
    alike."""
    boards = keys_to_boards(keys)
    scores = np.zeros((len(keys), 2), np.int16) if scores is None else np.asarray(scores,
                                                                                    np.int16)
    values = np.zeros((len(keys), 3), np.float32)
    stderr = np.zeros((len(keys), 3), np.float32)
    for i, board in enumerate(boards):
        info = score_info(scores[i])
        table = None if info.is_money else score_table(info, gnubg_met())
        r = rollout_cube(model, board, trials, seed=_seed(keys[i], seed), n_threads=n_threads,
                         table=table)
        raw = np.array([r["no_double"], r["double_take"], r["double_pass"]])
        values[i] = normalised(raw, info)
        scale = 1.0 if info.is_money else 2.0 / (table[0][0, 0, 4] - table[0][0, 0, 2])
        stderr[i] = (scale * np.array([r["no_double_stderr"], r["double_take_stderr"],
                                       r["difference_stderr"]]))
    meta = dict(metadata or {}, trials=trials, seed=seed)
    return CubeDecisionSet(np.asarray(keys, np.uint8), np.asarray(classes, np.uint8), values,
                           stderr, meta, scores)


def build_cube_set(path: str | Path, model: Network | Evaluator, keys: np.ndarray,
                   classes: np.ndarray, *, chunk: int = 25,
                   progress: Callable[[int, int], None] | None = None,
                   metadata: dict | None = None, scores: np.ndarray | None = None,
                   **kw) -> CubeDecisionSet:
    """:func:`label_cube_decisions` of ``keys`` (at ``scores``, default money play) written
    to ``path`` every ``chunk`` positions, resuming from what ``path`` holds when it was
    built from the same positions, scores and settings: a stopped build loses at most one
    chunk."""
    path = Path(path)
    wanted = dict(metadata or {}, trials=kw.get("trials", 1296), seed=kw.get("seed", 0))
    scores = np.zeros((len(keys), 2), np.int16) if scores is None else np.asarray(scores,
                                                                                    np.int16)
    have = None
    if path.exists():
        have = CubeDecisionSet.load(path)
        settings = {k: have.metadata.get(k) for k in wanted}
        if settings != wanted or not np.array_equal(have.keys, keys[:len(have)]) \
                or not np.array_equal(have.scores, scores[:len(have)]):
            raise ValueError(f"{path} was built from other positions, scores or settings "
                             f"({settings}); use another file")
    start = 0 if have is None else len(have)
    for lo in range(start, len(keys), chunk):
        part = label_cube_decisions(model, keys[lo:lo + chunk], classes[lo:lo + chunk],
                                    metadata=metadata, scores=scores[lo:lo + chunk], **kw)
        have = part if have is None else CubeDecisionSet(
            *(np.concatenate([getattr(have, f), getattr(part, f)])
              for f in ("keys", "classes", "values", "stderr")), part.metadata,
            np.concatenate([have.scores, part.scores]))
        have.save(path)
        if progress is not None:
            progress(min(lo + chunk, len(keys)), len(keys))
    if have is None:
        have = label_cube_decisions(model, keys[:0], classes[:0], metadata=metadata,
                                    scores=scores[:0], **kw)
        have.save(path)
    return have


@dataclass(frozen=True)
class CubeErrors:
    """A player's cube decisions on one class of positions (``all``: every one):
    ``positions``, ``per_decision`` (mean equity lost per cube decision, the doubler's and
    the taker's counted apart, so half the sum per position), ``doubler`` and ``taker``
    (mean equity lost per position by each), ``by_kind`` (equity lost per position by each
    of :data:`ERROR_KINDS`) and ``errors`` (how many decisions lost anything)."""

    name: str
    positions: int
    per_decision: float
    doubler: float
    taker: float
    by_kind: dict
    errors: int

    def as_dict(self) -> dict:
        return asdict(self)


def _losses(player: np.ndarray, judge: np.ndarray) -> dict[str, np.ndarray]:
    """Equity lost per position by each kind of error of ``player``'s decisions (from its
    values (N, 3)) judged by ``judge``'s values (N, 3)."""
    p_nd, p_dt, p_dp = player.T
    nd, dt, dp = judge.T
    doubles = np.minimum(p_dt, p_dp) > p_nd
    takes = p_dt <= p_dp
    best = np.maximum(nd, np.minimum(dt, dp))
    should = np.minimum(dt, dp) > nd
    chosen = np.where(doubles, np.minimum(dt, dp), nd)
    lost_d = best - chosen
    too_good = nd > dp
    lost_t = np.where(takes != (dt <= dp), np.abs(dt - dp), 0.0)
    return {"missed double": np.where(should & ~doubles, lost_d, 0.0),
            "wrong double": np.where(doubles & ~should & ~too_good, lost_d, 0.0),
            "too good": np.where(doubles & ~should & too_good, lost_d, 0.0),
            "wrong take": np.where(takes & (dt > dp), lost_t, 0.0),
            "wrong pass": np.where(~takes & (dt <= dp), lost_t, 0.0)}


def cube_errors(player: np.ndarray, judge: np.ndarray, classes: np.ndarray) -> list[CubeErrors]:
    """The errors of the decisions ``player``'s values (N, 3: no double, double/take,
    double/pass) call for, judged by ``judge``'s values, per position class and in all."""
    kinds = _losses(np.asarray(player, np.float64), np.asarray(judge, np.float64))
    doubler = kinds["missed double"] + kinds["wrong double"] + kinds["too good"]
    taker = kinds["wrong take"] + kinds["wrong pass"]
    out = []
    for c, name in list(enumerate(POSITION_CLASSES)) + [(None, "all")]:
        m = np.ones(len(classes), bool) if c is None else classes == c
        if m.any():
            out.append(CubeErrors(
                name, int(m.sum()), float((doubler[m] + taker[m]).mean() / 2),
                float(doubler[m].mean()), float(taker[m].mean()),
                {k: float(v[m].mean()) for k, v in kinds.items()},
                int((doubler[m] > 0).sum() + (taker[m] > 0).sum())))
    return out


def _action(values: np.ndarray) -> np.ndarray:
    """The proper action's number of each row of values: 0 no double/take, 1 no
    double/pass (too good), 2 double/take, 3 double/pass."""
    nd, dt, dp = np.asarray(values, np.float64).T
    double = np.minimum(dt, dp) > nd
    take = dt <= dp
    return np.where(double, np.where(take, 2, 3), np.where(take, 0, 1))


def action_agreement(a: np.ndarray, b: np.ndarray) -> float:
    """The share of positions where the values ``a`` and ``b`` (each (N, 3)) call for the
    same proper cube action (no double/take, too good/pass, double/take, double/pass)."""
    return float((_action(a) == _action(b)).mean()) if len(a) else 1.0


#: The cube efficiencies :func:`fit_cube_efficiency` tries for each class.
EFFICIENCY_GRID = tuple(round(0.4 + 0.05 * i, 2) for i in range(13))     # 0.40 .. 1.00


def fit_cube_efficiency(model: Network | Evaluator, cubes: CubeDecisionSet, plies: int = 0,
                        grid: Sequence[float] = EFFICIENCY_GRID,
                        min_decisions: int = 20) -> tuple[CubeEfficiency, dict[str, dict]]:
    """The cube efficiency of each contact class (races keep gnubg's rule) that loses the
    least equity per cube decision on ``cubes``, judged by its cubeful rollouts, with
    ``model``'s ``plies``-ply outputs: a search of ``grid`` class by class (a class's
    efficiency changes only its own positions' decisions).  A class with fewer than
    ``min_decisions`` positions in the set keeps gnubg's 0.68.  Returns the efficiencies
    and, per class, ``{"positions", "gnubg" (loss at 0.68), "fitted" (at the chosen x),
    "x"}``."""
    from bgengine.decisions.efficiency import CONTACT_EFFICIENCY
    from bgengine.labelling.benchmark import predict_outputs

    if not len(cubes):
        raise ValueError("the cube decision set holds no decisions")
    if not grid or any(not 0.0 <= x <= 1.0 for x in grid):
        raise ValueError(f"the grid must hold efficiencies in 0..1, got {list(grid)!r}")
    boards = cubes.boards()
    probs = predict_outputs(model, boards, plies)
    chosen: dict[str, float] = {}
    report: dict[str, dict] = {}
    for c, name in enumerate(CubeEfficiency.classes):
        m = cubes.classes == c
        if m.sum() < min_decisions:
            chosen[name] = CONTACT_EFFICIENCY
            continue
        def loss(x: float) -> float:
            v = model_cube_values(model, boards[m], efficiency=CubeEfficiency(x, x, x, x),
                                  probs=probs[m], scores=cubes.scores[m])
            return cube_errors(v, cubes.values[m], cubes.classes[m])[-1].per_decision
        losses = [loss(float(x)) for x in grid]
        best = int(np.argmin(losses))
        chosen[name] = float(grid[best])
        report[name] = {"positions": int(m.sum()), "gnubg": loss(CONTACT_EFFICIENCY),
                        "fitted": losses[best], "x": chosen[name]}
    return CubeEfficiency.from_dict(chosen), report


def with_fitted_efficiency(model: Network | Evaluator, cubes_path: str | os.PathLike[str],
                           plies: int = 0) -> tuple[Network | Evaluator, dict[str, dict]]:
    """``model`` with the cube efficiencies :func:`fit_cube_efficiency` finds on the cube
    decision set ``cubes_path`` in its metadata (``cube_efficiency``, and the fit's report
    under ``cube_efficiency_fit``); its networks unchanged.  Returns it and the report."""
    efficiency, report = fit_cube_efficiency(model, CubeDecisionSet.load(cubes_path), plies)
    model.metadata = {**model.metadata, CubeEfficiency.METADATA_KEY: efficiency.as_dict(),
                      "cube_efficiency_fit": {"set": str(cubes_path), "plies": plies,
                                              "classes": report}}
    return model, report
