"""The accuracy benchmark: an evaluator's values against rollout labels, class by class.

A benchmark set is a label store that no evaluator is trained on, labelled with more
trials than the training data.  For each position class this reports the mean absolute
error of the cubeless equity, the root-mean-square error with the labels' own noise taken
out (``sqrt(max(0, mean(err^2) - mean(stderr^2)))``: an unbiased estimate of the squared
error against the rollouts' exact means), and each output's mean absolute error.  The
same figures for GNU Backgammon (when installed) make it a yardstick on the same
positions.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from bgengine.core.evaluator import Evaluator
from bgengine.labelling.classes import POSITION_CLASSES
from bgengine.labelling.store import Labels
from bgengine.core.network import Network, equity_of

__all__ = ["ClassErrors", "value_errors", "predict_outputs", "format_table", "format_play_table"]

OUTPUT_NAMES = ("win", "wg", "wbg", "lg", "lbg")


@dataclass(frozen=True)
class ClassErrors:
    """Errors of one evaluator on one class (``all``: every position): ``positions``,
    ``equity_mae`` (mean absolute equity error, points per game), ``equity_rmse`` (root mean
    squared error, label noise removed), ``outputs_mae`` (mean absolute error of each of the five
    probabilities) and ``label_stderr`` (the labels' mean equity standard error)."""

    name: str
    positions: int
    equity_mae: float
    equity_rmse: float
    outputs_mae: tuple[float, ...]
    label_stderr: float

    def as_dict(self) -> dict:
        return asdict(self)


def predict_outputs(model: Network | Evaluator, boards: np.ndarray, plies: int = 0) -> np.ndarray:
    """The model's cubeless outputs (float64, (N, 5)) of ``boards`` (side on roll, before it
    rolls) at ``plies`` of lookahead (the search of :class:`bgengine.core.search.Searcher`)."""
    if plies == 0:
        return np.asarray(model.evaluate(boards), np.float64).reshape(len(boards), -1)
    from bgengine.core.search import Searcher

    searcher = Searcher(model)
    return np.array([searcher.evaluate(b, plies) for b in boards], np.float64)


def _errors(name: str, predicted: np.ndarray, labels: Labels) -> ClassErrors:
    err = equity_of(predicted) - equity_of(labels.outputs.astype(np.float64))
    se2 = np.square(labels.equity_stderr.astype(np.float64))
    rmse = float(np.sqrt(max(0.0, float(np.mean(err ** 2) - np.mean(se2))))) if len(err) else 0.0
    return ClassErrors(name, len(err), float(np.mean(np.abs(err))) if len(err) else 0.0, rmse,
                       tuple(float(x) for x in np.mean(np.abs(predicted - labels.outputs), axis=0))
                       if len(err) else (0.0,) * 5,
                       float(np.mean(labels.equity_stderr)) if len(err) else 0.0)


def value_errors(predicted: np.ndarray, labels: Labels) -> list[ClassErrors]:
    """The errors of ``predicted`` (N, 5) against ``labels``: one row per class present,
    then ``all``."""
    predicted = np.asarray(predicted, np.float64)
    if predicted.shape != (len(labels), 5):
        raise ValueError(f"predicted must have shape ({len(labels)}, 5), got {predicted.shape}")
    rows = []
    for k, name in enumerate(POSITION_CLASSES):
        mask = labels.classes == k
        if mask.any():
            part = Labels(labels.keys[mask], labels.classes[mask], labels.outputs[mask],
                          labels.outputs_stderr[mask], labels.equity_stderr[mask])
            rows.append(_errors(name, predicted[mask], part))
    rows.append(_errors("all", predicted, labels))
    return rows


def format_table(results: dict[str, list[ClassErrors]]) -> str:
    """A text table: a row per class, for each evaluator its mean absolute equity error and
    noise-free RMS error."""
    names = list(results)
    classes = [r.name for r in next(iter(results.values()))]
    head = f"{'class':<10} {'positions':>9}" + "".join(f"  {n[:22]:>22}" for n in names)
    lines = [head, f"{'':<10} {'':>9}" + "".join(f"  {'mean|err|   rms':>22}" for _ in names)]
    for i, c in enumerate(classes):
        row = results[names[0]][i]
        lines.append(f"{c:<10} {row.positions:>9}" + "".join(
            f"  {results[n][i].equity_mae:>11.4f} {results[n][i].equity_rmse:>8.4f}"
            for n in names))
    se = results[names[0]][-1].label_stderr
    lines.append(f"(labels' mean equity standard error {se:.4f})")
    return "\n".join(lines)


def format_play_table(results: dict) -> str:
    """A text table of :class:`bgengine.labelling.decisions.PlayErrors`: a row per class,
    for each player its mean equity lost per decision and share of best plays."""
    names = list(results)
    classes = [r.name for r in next(iter(results.values()))]
    lines = [f"{'class':<10} {'decisions':>9}" + "".join(f"  {n[:22]:>22}" for n in names),
             f"{'':<10} {'':>9}" + "".join(f"  {'lost/decision  best':>22}" for _ in names)]
    for i, c in enumerate(classes):
        row = results[names[0]][i]
        lines.append(f"{c:<10} {row.decisions:>9}" + "".join(
            f"  {results[n][i].equity_lost:>13.4f} {results[n][i].best_share:>6.1%}"
            for n in names))
    return "\n".join(lines)
