"""Growing a trained network wider without losing what it has learnt.

Training a wide network from random weights repeats millions of games that a narrower one has
already played.  Instead, each hidden layer can be widened in a way that keeps the function
(Chen, Goodfellow and Shlens' "Net2Net"): a new hidden unit is a copy of an old one (same
incoming weights and bias), and the outgoing weights of a unit copied ``k`` times are divided
by ``k + 1`` among the original and its copies, so the next layer's sums are unchanged.  A
little noise on the copies' incoming weights breaks their symmetry; without it the copies
would receive identical updates and stay copies forever.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bgengine.evaluator import Evaluator
from bgengine.network import Network

__all__ = ["widen", "widen_evaluator"]


def widen(net: Network, hidden: Sequence[int], *, noise: float = 0.01, seed: int = 0) -> Network:
    """A copy of ``net`` with hidden layers widened to ``hidden``.

    Parameters
    ----------
    net : Network
        The trained network; unchanged.
    hidden : sequence of int
        New hidden widths, one per hidden layer of ``net``, each at least the old width.
    noise : float
        Half-width of the uniform noise added to the copies' incoming weights and biases
        (0 keeps the function exactly, up to float rounding of the divided outgoing weights).
    seed : int
        Seed of the noise.

    Unit ``j`` of the new layer (``j >= old width``) copies old unit ``j mod old width``, so
    the copies are spread evenly over the old units.
    """
    hidden = tuple(int(h) for h in hidden)
    if len(hidden) != len(net.hidden):
        raise ValueError(f"{net!r} has {len(net.hidden)} hidden layers; got widths {hidden}")
    if any(new < old for new, old in zip(hidden, net.hidden)):
        raise ValueError(f"cannot narrow {net.hidden} to {hidden}")
    if noise < 0 or not np.isfinite(noise):
        raise ValueError(f"noise must be a finite number >= 0, got {noise}")
    rng = np.random.default_rng(seed)
    # weights as float64 (in, out) matrices and biases, layer by layer
    Ws = [net.weights(layer)[0].astype(np.float64) for layer in range(len(net.sizes) - 1)]
    bs = [net.weights(layer)[1].astype(np.float64) for layer in range(len(net.sizes) - 1)]
    for layer, (old, new) in enumerate(zip(net.hidden, hidden)):
        if new == old:
            continue
        source = np.arange(new) % old                    # which old unit each new unit copies
        copies = np.bincount(source, minlength=old)      # how many units share each old one
        W_in = Ws[layer][:, source]
        b_in = bs[layer][source]
        if noise:
            W_in[:, old:] += rng.uniform(-noise, noise, W_in[:, old:].shape)
            b_in[old:] += rng.uniform(-noise, noise, new - old)
        Ws[layer], bs[layer] = W_in, b_in
        Ws[layer + 1] = Ws[layer + 1][source, :] / copies[source][:, None]
    params = np.concatenate([part.reshape(-1) for W, b in zip(Ws, bs) for part in (W, b)])
    metadata = dict(net.metadata)
    metadata["widened_from"] = list(net.sizes)
    return Network(hidden, net.n_outputs, net.encoder, params=params.astype(np.float32),
                   metadata=metadata)


def widen_evaluator(evaluator: Evaluator, contact_hidden: Sequence[int],
                    race_hidden: Sequence[int] | None = None, *, noise: float = 0.01,
                    seed: int = 0) -> Evaluator:
    """``evaluator`` with its contact (and optionally race) network widened by `widen`;
    its bear-off database and metadata are kept."""
    contact = widen(evaluator.contact, contact_hidden, noise=noise, seed=seed)
    if evaluator.race is evaluator.contact:
        race = contact
    elif race_hidden is None:
        race = evaluator.race.copy()
    else:
        race = widen(evaluator.race, race_hidden, noise=noise, seed=seed + 1)
    return Evaluator(contact, None if race is contact else race, database=evaluator.database,
                     metadata=dict(evaluator.metadata))
