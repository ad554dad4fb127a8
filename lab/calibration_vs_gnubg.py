"""How close evaluators' 0-ply outputs are to GNU Backgammon's N-ply ones (calibration).

    python lab/calibration_vs_gnubg.py DATA.npz [DATA.npz ...] --player net
        [--player net:PATH ...] [--positions 4000] [--plies 2] [--jobs 2] [--seed 0] [--json]

Samples ``--positions`` boards (side on roll in row 1, as ``bgengine distill
collect`` stores them) from the files, has gnubg value them at ``--plies``
(:func:`bgengine.opponents.gnubg.evaluate.gnubg_outputs`, ``--jobs`` processes, niced) and compares each player's 0-ply
outputs with gnubg's: the root mean squared error of each of the five probabilities and of
the cubeless equity, the mean equity difference (bias), and the money cube action (centred
cube, bgengine's :func:`bgengine.decisions.cube.cube_decision` applied to both sets of outputs):
how often the two disagree on "double" and on "take", and the mean cubeful equity the
doubling side loses by acting on the player's outputs instead of gnubg's (judged by
gnubg's).  What ranks plays well can still be miscalibrated: this measures the latter.
"""
from __future__ import annotations

import argparse
import json

import numpy as np

from bgengine.decisions.cube import CubeInfo, cube_decision
from bgengine.core.evaluator import as_evaluator
from bgengine.opponents.gnubg import evaluate
from bgengine.core.network import equity_of
from bgengine.matches.players import load_network_spec

NAMES = ("win", "win gammon", "win backgammon", "lose gammon", "lose backgammon")


def gnubg_outputs(boards: np.ndarray, plies: int, jobs: int) -> np.ndarray:
    """gnubg's ``plies`` outputs (float64, (N, 5)) of ``boards`` (uint8, (N, 2, 25))."""
    return evaluate.gnubg_outputs(boards, plies, jobs)


def money_cube(probs: np.ndarray) -> list:
    """The centred-cube money decisions of each row of ``probs`` ((N, 5))."""
    info = CubeInfo()
    return [cube_decision(p, info) for p in probs]


def compare(ours: np.ndarray, reference: np.ndarray, ref_cube: list) -> dict:
    """The figures of one player's outputs against gnubg's (see the module docstring)."""
    err = ours - reference
    eq = equity_of(ours) - equity_of(reference)
    cube = money_cube(ours)
    double = np.array([c.double for c in cube])
    ref_double = np.array([c.double for c in ref_cube])
    take = np.array([c.take for c in cube])
    ref_take = np.array([c.take for c in ref_cube])
    # the doubler's loss, judged by gnubg's values, from doubling (or not) on our say
    ref_best = np.array([max(c.no_double, min(c.double_take, c.double_pass)) if c.can_double
                         else c.no_double for c in ref_cube])
    ref_chosen = np.array([min(r.double_take, r.double_pass) if d else r.no_double
                           for d, r in zip(double, ref_cube)])
    # the taker's loss (in the doubler's cubeful equity), where gnubg's outputs say double
    taker = np.array([(r.double_pass - r.double_take if t else r.double_take - r.double_pass)
                      for t, r in zip(take, ref_cube)])
    taker_loss = np.clip(-taker, 0, None)[ref_double]
    return {
        "rmse": {n: float(np.sqrt((err[:, i] ** 2).mean())) for i, n in enumerate(NAMES)},
        "equity_rmse": float(np.sqrt((eq ** 2).mean())),
        "equity_bias": float(eq.mean()),
        "double_disagree": float((double != ref_double).mean()),
        "doubles": int(double.sum()), "gnubg_doubles": int(ref_double.sum()),
        "take_disagree_where_double": float((take != ref_take)[ref_double].mean())
        if ref_double.any() else 0.0,
        "doubler_loss": float((ref_best - ref_chosen).mean()),
        "taker_loss_where_double": float(taker_loss.mean()) if len(taker_loss) else 0.0,
    }


def markdown(results: dict, n: int, plies: int) -> str:
    lines = [f"{n} positions, against gnubg {plies}-ply",
             "| player | equity RMSE | bias | win RMSE | gammon RMSE (w/l) | double disagrees "
             "| doubles (gnubg) | doubler loss | taker loss |", "|---" * 9 + "|"]
    for name, r in results.items():
        lines.append(f"| {name} | {r['equity_rmse']:.4f} | {r['equity_bias']:+.4f} "
                     f"| {r['rmse']['win']:.4f} | {r['rmse']['win gammon']:.4f} / "
                     f"{r['rmse']['lose gammon']:.4f} | {r['double_disagree']:.2%} "
                     f"| {r['doubles']} ({r['gnubg_doubles']}) | {r['doubler_loss']:.4f} "
                     f"| {r['taker_loss_where_double']:.4f} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", nargs="+")
    ap.add_argument("--player", action="append", required=True)
    ap.add_argument("--positions", type=int, default=4000)
    ap.add_argument("--plies", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    boards = np.concatenate([np.load(f)["boards"] for f in args.data])
    rng = np.random.default_rng(args.seed)
    boards = boards[np.sort(rng.choice(len(boards), min(args.positions, len(boards)),
                                       replace=False))]
    reference = gnubg_outputs(boards, args.plies, args.jobs)
    ref_cube = money_cube(reference)
    results = {}
    for spec in args.player:
        evaluator = as_evaluator(load_network_spec(spec))
        results[spec] = compare(np.asarray(evaluator.evaluate(boards), np.float64), reference,
                                ref_cube)
    print(json.dumps(results, indent=1) if args.json else
          markdown(results, len(boards), args.plies))


if __name__ == "__main__":
    main()
