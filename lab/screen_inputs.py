"""Screen candidate contact inputs before training with them (an experiment).

    python lab/screen_inputs.py DATA.npz [DATA.npz ...] --player net:FIT.npz [--seed 0]
    python lab/screen_inputs.py DATA.npz ... --player net:START.npz --hidden   # a positive control

The files are ``bgengine distill`` data (positions, decisions, search values).
For each position the residual r = (the player's contact network's equity - the search's)
is taken within its decision (minus the decision's mean: only the differences between a
decision's plays choose the play), and regressed by ridge on candidate features, also
centred within decisions, weighted by decision size as the pair error is, fitted on the
training decisions of ``fit --seed`` and scored on its held-out tenth.  Printed per
candidate set: the share of the held-out pair error it explains.  A new input can only
help the fit where the network's errors depend on it; a share near zero for a feature
that the network does not have says that, as a linear term, it would not.

Candidate sets: each hand-made feature of :func:`hand_made_features` alone and together;
the 22 contact features of both sides (linear: a control, the network has them); their
990 pairwise products; 20 random features (a control).  ``--hidden``: the network's own
hidden units (a positive control: for a network not yet fitted to the data, its output
layer refitted explains part of its error).
Self-play only: no data from another engine.  Results: docs/strength.md, (docs/experiments.md, "What did not help").
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable

import numpy as np
# a sibling script (lab/ is on the path when this one runs as a script)
from bgengine.training.distillation import load_decisions, pair_residuals, split_decisions

from bgengine.core.encoders import encode
from bgengine.core.evaluator import as_evaluator
from bgengine.matches.players import load_network_spec

log = logging.getLogger("screen_inputs")

#: Columns of the 22 contact features of the side on roll and of the other side in the
#: contact encoding (``bgengine.core.encoders.CONTACT_FEATURES``).
CONTACT_FEATURE_COLUMNS = np.r_[103:125, 228:250]


def _runs_from(made: np.ndarray) -> np.ndarray:
    """runs[:, k] = the number of consecutive made points from index k up (int16, (N, 25);
    column 24 is 0)."""
    runs = np.zeros((made.shape[0], 25), np.int16)
    for k in range(23, -1, -1):
        runs[:, k] = np.where(made[:, k], runs[:, k + 1] + 1, 0)
    return runs


def side_features(me: np.ndarray, other: np.ndarray) -> dict[str, np.ndarray]:
    """Hand-made features of one side (``me``) against the other, rows (N, 25) each in
    its own numbering (index i = point i + 1, 24 = the bar), as float64 (N,) each:

    - ``prime``: its longest run of made points (two or more checkers) / 6;
    - ``trappedL`` (L = 3..6): the other side's checkers facing a run of at least L of our
      made points directly in front of them (the bar's face our points 1..), / 5;
    - ``rear_faces``: the run that the other side's rearmost checker faces / 6;
    - ``blots_direct`` / ``blots_indirect``: our blots within 6 pips / 7-12 pips (and not
      within 6) in front of one of the other side's checkers (a bar checker: our home
      blots), / 3;
    - ``closeout_pressure``: our home points made / 6 when the other side is on the bar;
      ``closeout2``: (our home points / 6)^2 times min(its bar checkers, 3) / 3;
    - ``back_x_opphome``: our checkers on its home board or our bar times its home points
      made, / 36;
    - ``lead_ratio``: (its pips - ours) / ours, clipped to [-1, 1], and its square;
    - ``spares_1_10``: our checkers beyond two on made points 2..11 plus our blots there,
      / 10 (builders);
    - ``gaps_home``: our empty-or-blot home points when we still have checkers back / 6.

    Everything here is a count the contact inputs do not hold linearly (runs, facings,
    exposures, products)."""
    me = me.astype(np.int16)
    other = other.astype(np.int16)
    n = len(me)
    made = me >= 2
    runs = _runs_from(made)
    # the other side's checkers in our numbering: column c holds those on our index c - 1
    # (its index 23 - (c - 1)); column 0 its bar, which faces our run from index 0
    facing = np.zeros((n, 25), np.int16)
    facing[:, 1:25] = other[:, 23::-1]
    facing[:, 0] = other[:, 24]
    ahead = np.concatenate([runs[:, :24], np.zeros((n, 1), np.int16)], axis=1)
    f: dict[str, np.ndarray] = {"prime": runs.max(axis=1) / 6.0}
    for least in (3, 4, 5, 6):
        f[f"trapped{least}"] = (facing * (ahead >= least)).sum(axis=1) / 5.0
    present = facing > 0
    rearmost = np.where(present.any(axis=1), present.argmax(axis=1), 24)
    f["rear_faces"] = ahead[np.arange(n), rearmost] / 6.0
    blot = me[:, :24] == 1
    occupied = facing[:, 1:25] > 0
    on_bar = other[:, 24] > 0
    direct = np.zeros(n)
    indirect = np.zeros(n)
    for i in range(24):
        near = occupied[:, max(0, i - 6):i].any(axis=1) | (on_bar & (i <= 5))
        lo = max(0, i - 12)
        far = occupied[:, lo:max(lo, i - 6)].any(axis=1)
        direct += blot[:, i] & near
        indirect += blot[:, i] & ~near & far
    f["blots_direct"] = direct / 3
    f["blots_indirect"] = indirect / 3
    home = made[:, :6].sum(axis=1)
    f["closeout_pressure"] = home * on_bar / 6.0
    f["closeout2"] = (home / 6.0) ** 2 * np.minimum(other[:, 24], 3) / 3
    back = me[:, 18:25].sum(axis=1)
    f["back_x_opphome"] = back * (other[:, :6] >= 2).sum(axis=1) / 36.0
    pips = np.arange(1, 26)
    own, theirs = (me * pips).sum(axis=1), (other * pips).sum(axis=1)
    f["lead_ratio"] = np.clip((theirs - own) / np.maximum(own, 1), -1, 1)
    f["lead_ratio2"] = f["lead_ratio"] ** 2
    spare = np.where(me[:, :24] >= 2, me[:, :24] - 2, me[:, :24])
    f["spares_1_10"] = spare[:, 1:11].sum(axis=1) / 10.0
    f["gaps_home"] = (~made[:, :6]).sum(axis=1) * (back > 0) / 6.0
    return {k: np.asarray(v, np.float64) for k, v in f.items()}


def hand_made_features(boards: np.ndarray) -> dict[str, np.ndarray]:
    """:func:`side_features` of both sides of positions (uint8, (N, 2, 25), side on roll
    in row 1), named ``roll:...`` and ``other:...``."""
    out = {}
    for row, name in ((1, "roll"), (0, "other")):
        for k, v in side_features(boards[:, row], boards[:, 1 - row]).items():
            out[f"{name}:{k}"] = v
    return out


class ResidualScreen:
    """Within-decision residuals of outputs against search values, and ridge fits of them.

    ``outputs``, ``targets``: (N, 5) in gnubg's form; ``group``: decision numbers (N,), each
    decision's positions contiguous; ``held``: bool (N,), the held-out positions."""

    def __init__(self, outputs: np.ndarray, targets: np.ndarray, group: np.ndarray,
                 held: np.ndarray, block: int = 20000):
        starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
        if len(starts) != len(np.unique(group)):
            raise ValueError("each decision's positions must be contiguous")
        self.group = group
        self.held = held
        self.cuts = list(starts[::block]) + [len(group)]
        # the fit's own pair residuals: equity residuals minus their decision's mean
        self.r, size, _ = pair_residuals(outputs, targets, group)
        self.size = size.astype(np.float64)

    def _blocks(self):
        return zip(self.cuts[:-1], self.cuts[1:])

    def _centre(self, x: np.ndarray, lo: int, hi: int) -> np.ndarray:
        """x (hi - lo, k) minus each decision's mean."""
        _, g, count = np.unique(self.group[lo:hi], return_inverse=True, return_counts=True)
        sums = np.zeros((len(count), x.shape[1]))
        np.add.at(sums, g, x)
        return x - (sums / count[:, None])[g]

    def pair_error(self, held: bool = True) -> float:
        """The residuals' size-weighted mean square over the held-out (or training) positions."""
        m = self.held if held else ~self.held
        return float((self.size * self.r ** 2)[m].sum() / self.size[m].sum())

    def explained(self, make: Callable[[int, int], np.ndarray],
                  ridge: float = 1e-3) -> tuple[float, float]:
        """The shares of the held-out and of the training pair error explained by a ridge
        fit of the residuals on the candidates ``make(lo, hi)`` ((hi - lo, k) for positions
        lo..hi), each column scaled to unit weighted norm (so ``ridge`` is relative)."""
        A = b = None
        for lo, hi in self._blocks():
            F = self._centre(np.asarray(make(lo, hi), np.float64), lo, hi)
            w = self.size[lo:hi] * ~self.held[lo:hi]
            if A is None:
                A, b = np.zeros((F.shape[1], F.shape[1])), np.zeros(F.shape[1])
            A += (F * w[:, None]).T @ F
            b += (F * w[:, None]).T @ self.r[lo:hi]
        scale = np.sqrt(np.diag(A)) + 1e-12
        beta = np.linalg.solve(A / np.outer(scale, scale) + ridge * np.eye(len(b)), b / scale) / scale
        sums = np.zeros((2, 2))             # [held, train] x [before, after]
        for lo, hi in self._blocks():
            F = self._centre(np.asarray(make(lo, hi), np.float64), lo, hi)
            left = self.r[lo:hi] - F @ beta
            for j, m in enumerate((self.held[lo:hi], ~self.held[lo:hi])):
                sums[j, 0] += (self.size[lo:hi] * self.r[lo:hi] ** 2)[m].sum()
                sums[j, 1] += (self.size[lo:hi] * left ** 2)[m].sum()
        return tuple(float(1 - a / max(z, 1e-300)) for z, a in sums)      # type: ignore[return-value]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", nargs="+")
    ap.add_argument("--player", default="net")
    ap.add_argument("--seed", type=int, default=0, help="the held-out split of fit --seed")
    ap.add_argument("--hidden", action="store_true",
                    help="also screen the network's own hidden units (a positive control)")
    ap.add_argument("--no-products", action="store_true", help="skip the 990 products")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    net = as_evaluator(load_network_spec(args.player)).contact
    boards, targets, group, members = load_decisions(args.data)
    _, held_groups, _ = split_decisions(len(members), args.seed)
    is_held = np.zeros(len(members), bool)
    is_held[held_groups] = True
    n = len(boards)
    X = np.empty((n, 44), np.float32)
    outputs = np.empty((n, 5))
    hidden = np.empty((n, net.sizes[1]), np.float32) if args.hidden else None
    W0, b0 = (w.astype(np.float64) for w in net.weights(0))
    for lo in range(0, n, 100000):
        e = encode(boards[lo:lo + 100000], net.encoder)
        X[lo:lo + 100000] = e[:, CONTACT_FEATURE_COLUMNS]
        outputs[lo:lo + 100000] = net.forward(e)
        if hidden is not None:
            hidden[lo:lo + 100000] = 1 / (1 + np.exp(-(e @ W0 + b0)))
    screen = ResidualScreen(outputs, targets, group, is_held[group])
    print(f"{n} positions in {len(members)} decisions; the residuals' held-out mean square "
          f"(size-weighted) {screen.pair_error():.6g}")
    print("| candidates | count | held-out pair error explained | training |")
    print("|---|---|---|---|")

    def row(label: str, make: Callable[[int, int], np.ndarray], ridge: float = 1e-3) -> None:
        held, train = screen.explained(make, ridge)
        k = make(0, 1).shape[1]
        print(f"| {label} | {k} | {held:.2%} | {train:.2%} |", flush=True)

    rng = np.random.default_rng(1)
    noise = rng.normal(size=(n, 20))
    row("20 random features (control)", lambda lo, hi: noise[lo:hi])
    hand = hand_made_features(boards)
    names = list(hand)
    H = np.stack([hand[k] for k in names], axis=1)
    for j, name in enumerate(names):
        row(name, lambda lo, hi, j=j: H[lo:hi, j:j + 1])
    row("all hand-made", lambda lo, hi: H[lo:hi])
    row("the 44 contact features, linear (control)", lambda lo, hi: X[lo:hi])
    if hidden is not None:
        row(f"the network's {hidden.shape[1]} hidden units (positive control)",
            lambda lo, hi: hidden[lo:hi])
    if not args.no_products:
        iu = np.triu_indices(44)
        row("products of the 44 contact features",
            lambda lo, hi: X[lo:hi, iu[0]].astype(np.float64) * X[lo:hi, iu[1]], ridge=1e-2)


if __name__ == "__main__":
    main()
