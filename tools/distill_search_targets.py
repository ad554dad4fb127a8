"""Train an evaluator's contact network toward its own N-ply search values (an experiment).

    python tools/distill_search_targets.py collect OUT.npz [--games 2000] [--seed 101] [--plies 2]
    python tools/distill_search_targets.py fit OUT_EVALUATOR.npz DATA.npz [DATA.npz ...] [--lr 3e-4] [--epochs 12]

``collect`` plays the evaluator (``--player``, default the shipped one) against itself at
0-ply (game ``i`` rolls stream ``i`` of ``--seed``); at a decision, with probability
``1/--every``, it keeps the best ``--top`` plays' positions (opponent on roll) that are in the
contact class, with their static outputs and their ``--plies`` search values (the values
that ``Engine.evaluate(board, plies)`` gives: a 2-ply value is gnubg's "2-ply" of the play).
``fit`` starts from the evaluator's contact network and minimises the squared error of its
five outputs to the search values (Adam, minibatches of 128, 10% held out), then saves an
evaluator with the new contact network and the old race network and bear-off database.
Self-play only: no data from another engine.  Results: docs/strength.md.
"""
from __future__ import annotations

import argparse
import logging

import numpy as np

from bgengine.dice import Dice
from bgengine.encoders import encode
from bgengine.engine import Engine
from bgengine.evaluator import CLASSES, Evaluator, as_evaluator
from bgengine.game import game_decisions
from bgengine.network import Network
from bgengine.players import load_network_spec

log = logging.getLogger("distill")
CONTACT = CLASSES.index("contact")


def collect(player: str, games: int, seed: int, every: int, top: int, plies: int) -> dict:
    """Boards (uint8, (N, 2, 25), side on roll in row 1), static outputs and search values
    (float32, (N, 5)) of positions from the player's self-play."""
    model = load_network_spec(player)
    evaluator = as_evaluator(model)
    engine = Engine(network=model, plies=plies)
    rng = np.random.default_rng(seed)
    boards, static, targets = [], [], []
    for g in range(games):
        loop = game_decisions(Dice(seed, stream=g))
        k = None
        try:
            while True:
                d = loop.send(k)
                n = len(d.afterstates)
                if n == 1:
                    k = 0
                    continue
                opp = np.ascontiguousarray(d.afterstates[:, ::-1])    # opponent on roll
                live = opp.reshape(n, -1)[:, 25:].sum(axis=1) > 0     # not yet borne off
                equity = np.full(n, -9.0)
                equity[live] = -evaluator.equity(opp[live])
                order = np.argsort(-equity, kind="stable")
                k = int(order[0])
                if rng.random() >= 1.0 / every:
                    continue
                for j in order[:top]:
                    if live[j] and evaluator.classify(opp[j]) == CONTACT:
                        boards.append(opp[j])
                        static.append(evaluator.evaluate(opp[j]))
                        targets.append(engine.evaluate(opp[j], plies=plies))
        except StopIteration:
            pass
        if g % 200 == 0:
            log.info("game %d: %d positions", g, len(boards))
    return {"boards": np.array(boards, np.uint8), "static": np.array(static, np.float32),
            "targets": np.array(targets, np.float32)}


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def fit(player: str, files: list[str], lr: float, epochs: int, batch: int = 128,
        seed: int = 0) -> Evaluator:
    """The player's evaluator with its contact network fitted to the files' search values."""
    evaluator = as_evaluator(load_network_spec(player))
    net = evaluator.contact
    Ws = [net.weights(layer)[0].astype(np.float64) for layer in range(len(net.sizes) - 1)]
    bs = [net.weights(layer)[1].astype(np.float64) for layer in range(len(net.sizes) - 1)]
    data = [np.load(f) for f in files]
    X = encode(np.concatenate([d["boards"] for d in data]), net.encoder).astype(np.float64)
    T = np.concatenate([d["targets"] for d in data]).astype(np.float64)

    def forward(x: np.ndarray) -> list[np.ndarray]:
        acts = [x]
        for W, b in zip(Ws, bs):
            acts.append(_sigmoid(acts[-1] @ W + b))
        return acts

    check = np.abs(forward(X[:64])[-1] - net.forward(X[:64].astype(np.float32))).max()
    if check > 1e-4:
        raise RuntimeError(f"numpy forward pass differs from the network's by {check}")
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(X))
    held, train = order[:len(X) // 10], order[len(X) // 10:]

    def mse(ix: np.ndarray) -> float:
        return float(((forward(X[ix])[-1] - T[ix]) ** 2).sum(axis=1).mean())

    log.info("%d positions; held-out squared error %.3g at the start", len(X), mse(held))
    params = Ws + bs
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    step = 0
    for epoch in range(epochs):
        rng.shuffle(train)
        for s in range(0, len(train) - batch + 1, batch):
            ix = train[s:s + batch]
            acts = forward(X[ix])
            delta = 2 * (acts[-1] - T[ix]) * acts[-1] * (1 - acts[-1]) / batch
            grads_W, grads_b = [None] * len(Ws), [None] * len(Ws)
            for layer in range(len(Ws) - 1, -1, -1):
                grads_W[layer] = acts[layer].T @ delta
                grads_b[layer] = delta.sum(axis=0)
                if layer:
                    delta = (delta @ Ws[layer].T) * acts[layer] * (1 - acts[layer])
            step += 1
            for i, g in enumerate(grads_W + grads_b):     # Adam, updating params in place
                m[i] = 0.9 * m[i] + 0.1 * g
                v[i] = 0.999 * v[i] + 0.001 * g * g
                params[i] -= lr * (m[i] / (1 - 0.9 ** step)) / (
                    np.sqrt(v[i] / (1 - 0.999 ** step)) + 1e-8)
        log.info("epoch %d: held-out squared error %.3g", epoch, mse(held))
    flat = np.concatenate([p.reshape(-1) for W, b in zip(Ws, bs) for p in (W, b)])
    metadata = dict(net.metadata)
    metadata["distilled"] = {"files": files, "lr": lr, "epochs": epochs}
    contact = Network(net.hidden, net.n_outputs, net.encoder,
                      params=flat.astype(np.float32), metadata=metadata)
    return Evaluator(contact, evaluator.race, database=evaluator.database,
                     metadata=dict(evaluator.metadata))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("out")
    c.add_argument("--player", default="net")
    c.add_argument("--games", type=int, default=2000)
    c.add_argument("--seed", type=int, default=101)
    c.add_argument("--every", type=int, default=3, help="keep a decision with probability 1/EVERY")
    c.add_argument("--top", type=int, default=3, help="plays kept per decision")
    c.add_argument("--plies", type=int, default=2)
    f = sub.add_parser("fit")
    f.add_argument("out")
    f.add_argument("data", nargs="+")
    f.add_argument("--player", default="net")
    f.add_argument("--lr", type=float, default=3e-4)
    f.add_argument("--epochs", type=int, default=12)
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.command == "collect":
        np.savez(args.out, **collect(args.player, args.games, args.seed, args.every, args.top,
                                     args.plies))
    else:
        fit(args.player, args.data, args.lr, args.epochs).save(args.out)


if __name__ == "__main__":
    main()
