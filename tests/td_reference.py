"""A plain-Python re-implementation of bgengine.core.td.train_games, move by move, for
tests: TD(0), TD(lambda) and backprop-to-result, on a network or an evaluator (class
networks, exact values), with next-state or n-ply targets."""

from __future__ import annotations

import numpy as np

from bgengine.core.dice import Dice
from bgengine.core.encoders import encode
from bgengine.core.movegen import legal_afterstates
from bgengine.core.network import Network
from game_positions import start_board  # noqa: F401  (re-exported for the learning tests)

EXPLORE_STREAM = 1 << 41        # td.pyx: exploration stream of game g is EXPLORE_STREAM + g


# ---------------------------------------------------------------- reference learner

def flip(v: np.ndarray) -> np.ndarray:
    """Outputs of the side on roll seen by the other side (float32 like the C code)."""
    v = np.asarray(v, np.float32)
    one = np.float32(1)
    if v.size == 1:
        return np.array([one - v[0]], np.float32)
    if v.size == 4:                       # win, lose, win gammon, lose gammon
        return v[[1, 0, 3, 2]].copy()
    return np.array([one - v[0], v[3], v[4], v[1], v[2]], np.float32)


def target(K: int, value: int) -> np.ndarray:
    """Training target of a finished game: value > 0 won by the side on roll."""
    won, a = value > 0, abs(value)
    t = np.zeros(K, np.float32)
    if K == 1:
        t[0] = won
    elif K == 4:
        t[0 if won else 1] = 1
        t[2 if won else 3] = a >= 2
    else:
        t[0] = won
        t[1 if won else 3] = a >= 2
        t[2 if won else 4] = a >= 3
    return t


def equity(v) -> float:
    v = [float(x) for x in v]
    if len(v) == 1:
        return 2.0 * v[0] - 1.0
    if len(v) == 4:
        return v[0] - v[1] + v[2] - v[3]
    return 2.0 * v[0] - 1.0 + v[1] - v[3] + v[2] - v[4]


def win_value(after: np.ndarray) -> int:
    """Points won by the mover (row 1) who has just borne off its last checker."""
    loser = after[0]
    if loser.sum() < 15:
        return 1
    return 3 if loser[18:25].any() else 2


def rng_below(dice: Dice, n: int) -> int:
    limit = 2**32 - (2**32 % n)
    x = dice.next_uint32()
    while x >= limit:
        x = dice.next_uint32()
    return x % n


def mover_values(net, after: np.ndarray) -> list[np.ndarray]:
    """Each afterstate's outputs from the mover's side (exact when the game is over)."""
    K = net.n_outputs
    out = [None] * len(after)
    live = [i for i in range(len(after)) if after[i, 1].sum() > 0]
    if live:
        v = net.evaluate(after[live][:, ::-1])
        for j, i in enumerate(live):
            out[i] = flip(v[j])
    for i in range(len(after)):
        if out[i] is None:
            out[i] = target(K, win_value(after[i]))
    return out


def trained_network(model, b: np.ndarray):
    """The network whose weights the state ``b`` trains: the model itself (a Network),
    its class network (an Evaluator), or None where the value is exact."""
    if isinstance(model, Network):
        return model
    cls = int(model.classify(b))
    return None if cls == 2 else (model.contact if cls == 0 else model.race)


def ref_train(model, n_games: int, alpha: float, lam: float, seed: int,
              first_game: int = 0, method: str = "td", epsilon: float = 0.0,
              freeze: bool = False, target_plies: int = 0,
              starts: np.ndarray | None = None) -> dict:
    """train_games re-done in Python, one move at a time.

    The network arithmetic is the library's own (evaluate / backward), so
    TD(0) and backprop can be compared bit for bit; TD(lambda) keeps its
    traces in float64 here.  With ``freeze`` the weights stay fixed and the
    summed update is returned instead (the first-order TD(0) change / alpha).
    ``model`` is a Network or an Evaluator (each state trains its class network;
    exact values train nothing); ``target_plies`` > 0 takes the state's n-ply value
    (a cache-less Searcher summing first layers in full, as training does) as the TD(0)
    target.  ``starts``: game ``g`` starts from ``starts[g % len(starts)]`` with an
    ordinary roll instead of the opening.
    """
    from bgengine.core.search import Searcher

    net = model if isinstance(model, Network) else model.contact
    K, P = net.n_outputs, net.params.size
    perm = {1: [0], 4: [1, 0, 3, 2], 5: [0, 3, 4, 1, 2]}[K]
    sign = {1: [-1.0], 4: [1.0] * 4, 5: [-1.0, 1, 1, 1, 1]}[K]
    moves, results, errors = [], [], []
    total = np.zeros(P, np.float64)
    for g in range(first_game, first_game + n_games):
        dice, explore = Dice(seed, g), Dice(seed, EXPLORE_STREAM + g)
        if starts is None:
            b = start_board()
            d1, d2 = dice.opening_roll()
        else:
            b = np.array(starts[g % len(starts)], np.uint8)
            d1, d2 = dice.roll()
        parity, err, n_moves, hist = 0, 0.0, 0, []
        e = np.zeros((K, P), np.float64)
        while True:
            net = trained_network(model, b)
            x = encode(b, net.encoder)[None] if net is not None else None
            V = model.evaluate(b)
            if method == "td" and lam > 0:
                e *= lam
                for k in range(K):
                    unit = np.zeros((1, K), np.float32)
                    if parity:
                        unit[0, perm[k]] = sign[k]
                    else:
                        unit[0, k] = 1
                    e[k] += net.backward(x, unit)
            hist.append((x, parity, net))
            after, _ = legal_afterstates(b, d1, d2)
            vals = mover_values(model, after)
            eqs = [equity(v) for v in vals]
            c = int(np.argmax(eqs))            # first of the best, as the C loop
            if epsilon > 0 and len(after) > 1 and rng_below(explore, 1000000) < epsilon * 1e6:
                c = rng_below(explore, len(after))
            M = vals[c]
            n_moves += 1
            done = after[c, 1].sum() == 0
            if done:
                v = win_value(after[c])
                M = target(K, v)
            if target_plies and net is not None:
                M = Searcher(model, cache_bits=0, by_delta=False).evaluate(b, target_plies)
            if method == "td":
                d = (M - V).astype(np.float32)
                err += abs(float(d[0]))
                if lam > 0:
                    dA = np.array([sign[k] * d[perm[k]] if parity else d[k] for k in range(K)],
                                  np.float64)
                    step = alpha * (dA[:, None] * e).sum(axis=0)
                    net.params[:] = (net.params.astype(np.float64) + step).astype(np.float32)
                elif net is not None:
                    coef = np.array([np.float32(alpha * float(dk)) for dk in d], np.float32)
                    if freeze:
                        total += net.backward(x, d[None]).astype(np.float64)
                    else:
                        net.params[:] += net.backward(x, coef[None])
            if done:
                break
            b = after[c][::-1].copy()
            parity ^= 1
            d1, d2 = dice.roll()
        if method == "backprop":
            for x, par, net in hist:
                if net is None:
                    continue
                T = target(K, v if par == parity else -v)
                y = net.forward(x)[0]
                dout = np.array([np.float32(alpha * float(np.float32(T[k] - y[k])))
                                 for k in range(K)], np.float32)
                err += abs(float(T[0] - y[0]))
                net.params[:] += net.backward(x, dout[None])
        moves.append(n_moves)
        results.append(v if parity == 0 else -v)
        errors.append(err / n_moves)
    return {"moves": np.array(moves), "result": np.array(results), "error": np.array(errors),
            "total": total}


def check_best_moves(evaluator, boards, rolls, spans) -> int:
    """Assert that the compiled 0-ply choice (``Player.choose`` and ``Searcher.best_move``,
    which share first-layer heads between sibling plays) picks the first play of highest
    equity computed position by position in Python, for every board and roll; returns how
    many of those decisions ``spans(afterstates)`` holds for (that a test's point was met)."""
    from bgengine.core.agents import Player
    from bgengine.core.movegen import legal_afterstates
    from bgengine.core.search import Searcher

    player = Player("net", evaluator)
    s = Searcher(evaluator)
    spanning = 0
    for b in boards:
        for d1, d2 in rolls:
            after, _ = legal_afterstates(b, d1, d2)
            vals = mover_values(evaluator, after)
            want = int(np.argmax([equity(v) for v in vals]))
            assert player.choose(b, d1, d2) == want
            idx, out = s.best_move(b, d1, d2)
            assert idx == want
            np.testing.assert_array_equal(out, vals[want])
            spanning += bool(spans(after))
    return spanning


def without_experts(evaluator):
    """``evaluator`` with its contact experts dropped (expert 0 values every contact
    position): the evaluator itself when it has none, as tests written for one contact
    network need."""
    from bgengine.core.evaluator import Evaluator

    if not evaluator.experts:
        return evaluator
    return Evaluator(evaluator.contact, evaluator.race, database=evaluator.database,
                     race_gammons=evaluator.race_gammons, metadata=dict(evaluator.metadata))
