"""How much precision integer inference needs: the evaluator's networks with quantised
weights, inputs and activations, simulated in float64, against the float networks.

    python lab/quantisation_study.py [--player net] [--pool training/positions/train-r5.npz]
        [--decisions 20000] [--seed 1] [--json]

Draws ``--decisions`` positions of the pool with a random roll each (decisions with a
finished afterstate are left out), values every legal afterstate with each network of the
evaluator that values it (contact experts, race; exact and refined race values are the
same in every scheme, so they are left as the float evaluation has them) and reports, per
scheme, the share of decisions whose best play at 0-ply is the float one's and the mean and
largest |cubeless equity difference| over the afterstates.  The schemes are those an
integer kernel could use: first-layer weights as int16 or int8 (one scale for the layer, or
one per hidden unit), the inputs as fixed-point numbers (the encoders' values are counts,
fractions and a few reals up to about 6), the hidden activations and output weights as
8- or 16-bit numbers.  The arithmetic is exact integer arithmetic scaled back, so the
figures are those of any kernel that accumulates exactly (in 32 bits).
"""
from __future__ import annotations

import argparse
import json
from dataclasses import dataclass

import numpy as np

from bgengine.core.encoders import encode
from bgengine.core.evaluator import as_evaluator
from bgengine.core.movegen import legal_afterstates_batch
from bgengine.core.network import Network, equity_of
from bgengine.labelling.store import keys_to_boards, load_pool
from bgengine.matches.players import load_network_spec


@dataclass(frozen=True)
class Scheme:
    """``w0``: the largest first-layer weight's integer (32767: int16, 127: int8; 0: float),
    per hidden unit with ``per_unit``; ``x``: the inputs' fixed-point unit (4096: 12
    fractional bits; 0: float); ``act``: the hidden activations' unit (0: float);
    ``w1``: the largest output weight's integer, per output (0: float)."""

    name: str
    w0: int = 0
    per_unit: bool = False
    x: int = 0
    act: int = 0
    w1: int = 0


SCHEMES = (
    Scheme("float64 (the reference)"),
    Scheme("W0 int16, x 2^-8", w0=32767, x=256),
    Scheme("W0 int16, x 2^-12", w0=32767, x=4096),
    Scheme("W0 int16 per unit, x 2^-12", w0=32767, per_unit=True, x=4096),
    Scheme("W0 int8, x 2^-12", w0=127, x=4096),
    Scheme("W0 int8 per unit, x 2^-12", w0=127, per_unit=True, x=4096),
    Scheme("W0 int16 per unit, x 2^-12, act 2^-15, W1 int16", w0=32767, per_unit=True,
           x=4096, act=32767, w1=32767),
    Scheme("W0 int16, x 2^-12, act 2^-12, W1 int16", w0=32767, x=4096, act=4096, w1=32767),
    Scheme("W0 int16, x 2^-8, act u8 (1/255), W1 int8", w0=32767, x=256, act=255, w1=127),
)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _round_to(a: np.ndarray, scale) -> np.ndarray:
    return np.round(a * scale) / scale


def forward(net: Network, x: np.ndarray, s: Scheme) -> np.ndarray:
    """Outputs (N, 5) of a one-hidden-layer ``net`` for inputs ``x`` under scheme ``s``."""
    W0, b0 = (np.asarray(a, np.float64) for a in net.weights(0))
    W1, b1 = (np.asarray(a, np.float64) for a in net.weights(1))
    if s.x:
        x = _round_to(x, s.x)
    if s.w0:
        W0 = _round_to(W0, s.w0 / (np.abs(W0).max(0) if s.per_unit else np.abs(W0).max()))
    a = _sigmoid(x @ W0 + b0)
    if s.act:
        a = _round_to(a, s.act)
    if s.w1:
        W1 = _round_to(W1, s.w1 / np.abs(W1).max(0))
    return _sigmoid(a @ W1 + b1)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--player", default="net")
    ap.add_argument("--pool", default="training/positions/train-r5.npz")
    ap.add_argument("--decisions", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    ev = as_evaluator(load_network_spec(args.player))
    if any(len(n.sizes) != 3 for n in ev.networks.values()):
        raise SystemExit("one hidden layer networks only")
    rng = np.random.default_rng(args.seed)
    pool = load_pool(args.pool)
    boards = keys_to_boards(pool.keys[rng.choice(len(pool), min(args.decisions, len(pool)),
                                                 replace=False)])
    dice = rng.integers(1, 7, size=(len(boards), 2))
    after, _, off = legal_afterstates_batch(boards, dice)
    finished = (after[:, 0].sum(1) == 0) | (after[:, 1].sum(1) == 0)
    keep = (np.diff(off) > 1) & (np.add.reduceat(finished.astype(int), off[:-1]) == 0)
    after, _, off = legal_afterstates_batch(boards[keep], dice[keep])
    reference = np.asarray(ev.evaluate(after), np.float64)
    kind, expert = ev.classify(after), ev.expert_of(after)
    routes = [(ev.race, kind == 1)] + [
        (net, (kind == 0) & (expert == e)) for e, net in enumerate((ev.contact, *ev.experts))]
    inputs = [(net, mask, encode(after[mask], net.encoder).astype(np.float64))
              for net, mask in routes if mask.any()]

    def equities(s: Scheme) -> np.ndarray:
        out = reference.copy()
        for net, mask, x in inputs:
            out[mask] = forward(net, x, s)
        return -equity_of(out)          # the mover's equity: the afterstate's side to roll is the other

    base = equities(SCHEMES[0])
    starts = off[:-1]
    best = np.array([np.argmax(base[a:b]) for a, b in zip(off[:-1], off[1:])])
    rows = []
    for s in SCHEMES:
        eq = equities(s)
        choice = np.array([np.argmax(eq[a:b]) for a, b in zip(off[:-1], off[1:])])
        diff = np.abs(eq - base)
        rows.append({"scheme": s.name, "decisions": int(len(starts)),
                     "same_choice": float(np.mean(choice == best)),
                     "mean_abs_equity_difference": float(diff.mean()),
                     "max_abs_equity_difference": float(diff.max())})
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'scheme':52s} {'same 0-ply choice':>18s} {'mean |diff|':>12s} {'max |diff|':>11s}")
    for r in rows:
        print(f"{r['scheme']:52s} {r['same_choice']:18.2%} {r['mean_abs_equity_difference']:12.5f} "
              f"{r['max_abs_equity_difference']:11.4f}")
    print(f"({rows[0]['decisions']} decisions with two or more plays)")


if __name__ == "__main__":
    main()
