"""Cube efficiency per position class, fitted on ``training/cubes/train-cubes-r1.npz`` and
judged on the held-out ``training/cubes/bench-cubes-r1.npz`` (docs/guide/cube.md): a grid over
the efficiency ``x`` of each class (races keep gnubg's pip rule), the shipped evaluator's 0-ply
probabilities, the Janowski model of ``bgengine.decisions.cube``."""

from __future__ import annotations

import argparse

import numpy as np

import bgengine
from bgengine.decisions.cube import CubeInfo, cube_decision, cube_efficiencies
from bgengine.labelling.benchmark import predict_outputs
from bgengine.labelling.classes import POSITION_CLASSES, RACE
from bgengine.labelling.cubes import CubeDecisionSet, cube_errors

GRID = (0.5, 0.6, 0.68, 0.75, 0.8, 0.85, 0.9, 1.0)


def _values(probs: np.ndarray, xs: np.ndarray) -> np.ndarray:
    info = CubeInfo()
    out = [cube_decision(p, info, float(x)) for p, x in zip(probs, xs)]
    return np.array([[d.no_double, d.double_take, d.double_pass] for d in out])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--train", default="training/cubes/train-cubes-r1.npz")
    ap.add_argument("--bench", default="training/cubes/bench-cubes-r1.npz")
    args = ap.parse_args()
    ev = bgengine.load_default_network()
    sets = {}
    for name in ("train", "bench"):
        cs = CubeDecisionSet.load(getattr(args, name))
        boards = cs.boards()
        sets[name] = (cs, predict_outputs(ev, boards, 0), cube_efficiencies(boards))
    cs, probs, rules = sets["train"]
    best = {}
    for c, name in enumerate(POSITION_CLASSES):
        m = cs.classes == c
        errs = [cube_errors(_values(probs[m], np.full(m.sum(), x)), cs.values[m],
                            cs.classes[m])[-1].per_decision for x in GRID]
        best[c] = GRID[int(np.argmin(errs))]
        print(f"{name:<10} train: " + " ".join(f"{x}:{e:.4f}" for x, e in zip(GRID, errs))
              + f"  best {best[c]}")
    cs, probs, rules = sets["bench"]
    xs = rules.copy()
    for c, x in best.items():
        if c != RACE:
            xs[cs.classes == c] = x
    before = cube_errors(_values(probs, rules), cs.values, cs.classes)
    after = cube_errors(_values(probs, xs), cs.values, cs.classes)
    for b, a in zip(before, after):
        print(f"bench {b.name:<10} gnubg's rules {b.per_decision:.4f}  fitted {a.per_decision:.4f}")


if __name__ == "__main__":
    main()
