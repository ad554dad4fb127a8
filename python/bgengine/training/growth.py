"""Growing a trained network wider or deeper without losing what it has learnt.

Training a big network from random weights repeats millions of games that a smaller one has
already played.  Instead, a network can be grown in ways that keep its function (Chen,
Goodfellow and Shlens' "Net2Net"):

- wider (`widen`): a new hidden unit is a copy of an old one (same incoming weights and
  bias), and the outgoing weights of a unit copied ``k`` times are divided by ``k + 1``
  among the original and its copies, so the next layer's sums are unchanged.  A little
  noise on the copies' incoming weights breaks their symmetry; without it the copies would
  receive identical updates and stay copies forever.
- deeper (`deepen`): a hidden layer is inserted after the last one.  Net2DeeperNet starts
  it as the identity, which a sigmoid layer cannot be; but near 0 a sigmoid is linear,
  ``sigmoid(u) = 1/2 + u/4 - u^3/48 + ...``, so new unit ``i`` computes
  ``g_i = sigmoid(slope * (h_i - 1/2))`` from old unit ``h_i`` (in [0, 1]), and the old
  outgoing weights, scaled by ``4 / slope`` with the bias corrected, recover ``h_i - 1/2``
  from ``g_i - 1/2``.  The outputs' pre-activations change by at most
  ``slope^2 / 96`` times the sum of the absolute outgoing weights (the cubic term), plus
  float32 rounding of order ``1e-6 / slope`` per unit.  The other weights of the new layer
  start at 0 (they still receive gradients, so the layer can learn to mix the old units).
  A small slope is not free: the new layer then learns ``1 / slope^2`` times too fast for
  the step sizes of the rest (see `deepen`), so the default slope is 1 and the outgoing
  layer is refit by least squares on sample positions, which takes most of the cubic
  error out (hidden units of a trained network are mostly near 0 or 1, where any
  function of a unit is affine).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bgengine.core.encoders import encode
from bgengine.core.evaluator import Evaluator
from bgengine.core.network import Network

__all__ = ["widen", "widen_evaluator", "deepen", "deepen_evaluator", "DEEPEN_SLOPE",
           "last_hidden"]

# The new layer's slope (see deepen): small enough that the refit outgoing layer keeps the
# outputs within about 1e-3 on average, large enough that TD(0) does not blow the new
# layer's weights up (docs/strength.md: the pilots).
DEEPEN_SLOPE = 1.0


def widen(net: Network, hidden: Sequence[int], *, noise: float = 0.01, seed: int = 0,
          copies: bool = True) -> Network:
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
    copies : bool
        True: unit ``j`` of the new layer (``j >= old width``) copies old unit
        ``j mod old width`` (the copies spread evenly over the old units, the outgoing
        weights divided among them). False: the new units are fresh, with uniform random
        incoming weights of half-width ``noise``, zero biases and zero outgoing weights, so
        the function is kept exactly and a fit grows them from it.
    """
    hidden = tuple(int(h) for h in hidden)
    if len(hidden) != len(net.hidden):
        raise ValueError(f"{net!r} has {len(net.hidden)} hidden layers; got widths {hidden}")
    if any(new < old for new, old in zip(hidden, net.hidden)):
        raise ValueError(f"cannot narrow {net.hidden} to {hidden}")
    if noise < 0 or not np.isfinite(noise):
        raise ValueError(f"noise must be a finite number >= 0, got {noise}")
    rng = np.random.default_rng(seed)
    Ws, bs = _layers(net)
    for layer, (old, new) in enumerate(zip(net.hidden, hidden)):
        if new == old:
            continue
        if not copies:
            fresh = rng.uniform(-noise, noise, (Ws[layer].shape[0], new - old))
            Ws[layer] = np.hstack([Ws[layer], fresh])
            bs[layer] = np.concatenate([bs[layer], np.zeros(new - old)])
            silent = np.zeros((new - old, Ws[layer + 1].shape[1]))      # no effect on the output
            Ws[layer + 1] = np.vstack([Ws[layer + 1], silent])
            continue
        source = np.arange(new) % old                    # which old unit each new unit copies
        shares = np.bincount(source, minlength=old)      # how many units share each old one
        W_in = Ws[layer][:, source]
        b_in = bs[layer][source]
        if noise:
            W_in[:, old:] += rng.uniform(-noise, noise, W_in[:, old:].shape)
            b_in[old:] += rng.uniform(-noise, noise, new - old)
        Ws[layer], bs[layer] = W_in, b_in
        Ws[layer + 1] = Ws[layer + 1][source, :] / shares[source][:, None]
    return _network(net, hidden, Ws, bs, "widened_from")


def _layers(net: Network) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """``net``'s weights as float64 (in, out) matrices and biases, layer by layer."""
    layers = [net.weights(layer) for layer in range(len(net.sizes) - 1)]
    return ([W.astype(np.float64) for W, _ in layers], [b.astype(np.float64) for _, b in layers])


def _network(net: Network, hidden: tuple[int, ...], Ws: list[np.ndarray], bs: list[np.ndarray],
             grown_key: str) -> Network:
    """A network of ``net``'s encoder and outputs from the layers ``Ws``, ``bs``; its
    metadata is ``net``'s plus ``grown_key``: ``net``'s sizes."""
    params = np.concatenate([part.reshape(-1) for W, b in zip(Ws, bs) for part in (W, b)])
    metadata = dict(net.metadata)
    metadata[grown_key] = list(net.sizes)
    return Network(hidden, net.n_outputs, net.encoder, params=params.astype(np.float32),
                   metadata=metadata)


def deepen(net: Network, width: int | None = None, *, slope: float = DEEPEN_SLOPE,
           boards: np.ndarray | None = None, ridge: float = 1e-3, noise: float = 0.01,
           seed: int = 0) -> Network:
    """A copy of ``net`` with one more hidden layer, inserted after the last one, that
    computes nearly the same outputs.

    Parameters
    ----------
    net : Network
        The trained network; unchanged.  (A network has at most 3 hidden layers: deepening
        one that has 3 raises ``ValueError``.)
    width : int, optional
        Width of the new layer, at least the last hidden layer's (the default).
    slope : float
        Incoming weight ``a`` of new unit ``i`` from old unit ``i`` (bias ``-a/2``); the old
        outgoing weights are multiplied by ``4 / a``.  A small slope keeps the outputs
        closer (the cubic error grows as ``a^2``) but the new layer's incoming weights then
        move the outputs ``1 / a^2`` times as fast per step: TD(0) at the step sizes of the
        shallow network wrecks a network deepened with ``a = 0.08`` in a few thousand games
        (docs/strength.md), hence a slope of 1 and the refit below.
    boards : array (N, 2, 25), optional
        Positions (side on roll in row 1) on which the new outgoing layer (the old units'
        rows and the bias) is refit by least squares to give the old network's output
        pre-activations, which removes most of the cubic error (``N`` should be several
        times the width).  None: the analytic weights only.
    ridge : float
        With ``boards``: the refit's penalty on the distance from the analytic weights,
        times ``N``.
    noise : float
        Half-width of the uniform incoming weights and biases of the units beyond the old
        width (their outgoing weights are 0, so they do not change the outputs).
    seed : int
        Seed of that noise.
    """
    hidden = tuple(net.hidden)
    last = hidden[-1]
    width = last if width is None else int(width)
    if width < last:
        raise ValueError(f"the new layer needs at least {last} units (the last hidden layer's), "
                         f"got {width}")
    if not (slope > 0 and np.isfinite(slope)):
        raise ValueError(f"slope must be a finite number > 0, got {slope}")
    if noise < 0 or not np.isfinite(noise):
        raise ValueError(f"noise must be a finite number >= 0, got {noise}")
    rng = np.random.default_rng(seed)
    Ws, bs = _layers(net)
    W_out, b_out = Ws[-1], bs[-1]                      # (last, K), (K,)
    W_new = np.zeros((last, width))
    W_new[np.arange(last), np.arange(last)] = slope
    b_new = np.full(width, -slope / 2)
    W_new[:, last:] = rng.uniform(-noise, noise, (last, width - last))
    b_new[last:] = rng.uniform(-noise, noise, width - last)
    # g_i - 1/2 = (a/4)(h_i - 1/2): sum_i W_i h_i = sum_i (4/a) W_i (g_i - 1/2) + sum_i W_i / 2
    scaled = np.zeros((width, W_out.shape[1]))
    scaled[:last] = W_out * (4.0 / slope)
    b_scaled = b_out + 0.5 * W_out.sum(axis=0) - 0.5 * scaled.sum(axis=0)
    if boards is not None:
        h = last_hidden(net, boards)                  # (N, last)
        g = _sigmoid(h @ W_new[:, :last] + b_new[:last])
        scaled[:last], b_scaled = _ridge_fit(g, h @ W_out + b_out, scaled[:last], b_scaled,
                                             ridge)
    return _network(net, hidden + (width,), Ws[:-1] + [W_new, scaled], bs[:-1] + [b_new, b_scaled],
                    "deepened_from")


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def last_hidden(net: Network, boards: np.ndarray) -> np.ndarray:
    """The last hidden layer's activations (float64, (N, width)) of ``boards`` (side on
    roll in row 1), computed from ``net``'s weights in float64 (exact sigmoids, where the
    compiled kernels use a table)."""
    a = encode(np.asarray(boards, np.uint8).reshape(-1, 2, 25), net.encoder).astype(np.float64)
    Ws, bs = _layers(net)
    for W, b in zip(Ws[:-1], bs[:-1]):
        a = _sigmoid(a @ W + b)
    return a


def _ridge_fit(X: np.ndarray, Z: np.ndarray, W0: np.ndarray, b0: np.ndarray,
               ridge: float) -> tuple[np.ndarray, np.ndarray]:
    """``W, b`` minimising ``|X W + b - Z|^2 + ridge N |(W, b) - (W0, b0)|^2`` (X: (N, n),
    Z: (N, K))."""
    X1 = np.hstack([X, np.ones((len(X), 1))])
    theta0 = np.vstack([W0, b0[None, :]])
    penalty = ridge * len(X) * np.eye(X1.shape[1])
    theta = np.linalg.solve(X1.T @ X1 + penalty, X1.T @ Z + penalty @ theta0)
    return theta[:-1], theta[-1]


def deepen_evaluator(evaluator: Evaluator, width: int | None = None, *, race: bool = False,
                     slope: float = DEEPEN_SLOPE, boards: np.ndarray | None = None,
                     ridge: float = 1e-3, noise: float = 0.01, seed: int = 0) -> Evaluator:
    """``evaluator`` with a hidden layer added to its contact network by `deepen` (and to
    its race network too if ``race``, with the race network's own last width); its
    bear-off database and metadata are kept.  ``boards``: the refit's positions, each
    network refit on those of its own class."""
    def own(position_class: int) -> np.ndarray | None:
        if boards is None or evaluator.single:
            return boards
        return boards[np.asarray(evaluator.classify(boards)) == position_class]

    contact = deepen(evaluator.contact, width, slope=slope, boards=own(0), ridge=ridge,
                     noise=noise, seed=seed)
    if evaluator.race is evaluator.contact:
        other = contact
    elif race:
        other = deepen(evaluator.race, slope=slope, boards=own(1), ridge=ridge, noise=noise,
                       seed=seed + 1)
    else:
        other = evaluator.race.copy()
    return _evaluator(evaluator, contact, other)


def _evaluator(evaluator: Evaluator, contact: Network, race: Network) -> Evaluator:
    """An evaluator of the grown networks with ``evaluator``'s database, race values and
    metadata."""
    if evaluator.experts:
        raise ValueError("growing an evaluator with contact experts is not supported")
    return Evaluator(contact, None if race is contact else race, database=evaluator.database,
                     race_gammons=evaluator.race_gammons, metadata=dict(evaluator.metadata))


def widen_evaluator(evaluator: Evaluator, contact_hidden: Sequence[int],
                    race_hidden: Sequence[int] | None = None, *, noise: float = 0.01,
                    seed: int = 0, copies: bool = True) -> Evaluator:
    """``evaluator`` with its contact (and optionally race) network widened by `widen`;
    its bear-off database and metadata are kept."""
    contact = widen(evaluator.contact, contact_hidden, noise=noise, seed=seed, copies=copies)
    if evaluator.race is evaluator.contact:
        race = contact
    elif race_hidden is None:
        race = evaluator.race.copy()
    else:
        race = widen(evaluator.race, race_hidden, noise=noise, seed=seed + 1, copies=copies)
    return _evaluator(evaluator, contact, race)
