"""A network for the positions of one class alone (e.g. holding games): fitted on that
class's labels and the positions two plays around them valued by the evaluator's 2-ply
search, and measured on the value benchmark's positions of the class against the
evaluator's own networks.

    python lab/class_network_study.py --class holding --out holding.npz [--player net]
        [--store training/labels/train-t648] [--bench training/labels/bench-t5184-t3]
        [--threads 2]

The network starts from a copy of the contact expert most of the class's positions go to
(100 epochs at most, patience 8, a hashed tenth held out).  About 10 minutes of 2-ply search
and 5 of fitting on one core for the 60,000 holding labels of ``train-t648``.
"""
from __future__ import annotations

import argparse

import numpy as np

from bgengine.core.encoders import encode
from bgengine.core.evaluator import Evaluator, as_evaluator
from bgengine.core.network import equity_of
from bgengine.labelling.benchmark import predict_outputs
from bgengine.labelling.classes import POSITION_CLASSES, classify_positions
from bgengine.labelling.fit import (FitConfig, _append_taught, fit_network, held_out_mask,
                                    play_positions_around)
from bgengine.labelling.store import LabelStore
from bgengine.labelling.teacher import search_outputs
from bgengine.matches.players import load_network_spec


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--class", dest="cls", required=True, choices=POSITION_CLASSES[:4])
    ap.add_argument("--out", required=True)
    ap.add_argument("--player", default="net")
    ap.add_argument("--store", default="training/labels/train-t648")
    ap.add_argument("--bench", nargs="+", default=["training/labels/bench-t5184-t3"])
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)

    cls = POSITION_CLASSES.index(args.cls)
    ev = as_evaluator(load_network_spec(args.player))
    labels = LabelStore(args.store).load()
    m = labels.classes == cls
    boards, keys = labels.boards()[m], labels.keys[m]
    route = ev.expert_of(boards)
    e = int(np.bincount(route[route >= 0]).argmax())
    start = ev.contact if e == 0 else ev.experts[e - 1]
    around = play_positions_around(boards, 2, 0)[0]
    around = np.ascontiguousarray(around[classify_positions(around) == cls])
    taught = search_outputs(ev, around, 2, n_threads=args.threads)
    print(f"{len(boards)} labels, {len(around)} taught positions, start: expert {e}")
    rows = [boards, labels.outputs[m], labels.equity_stderr[m], held_out_mask(keys, 0.1),
            np.ones(len(boards))]
    _append_taught(rows, around, taught, 1.0)
    b, target, se, held, weight = rows
    net, _ = fit_network(start, encode(b, start.encoder).astype(np.float32),
                         target.astype(np.float32), se.astype(np.float32), held,
                         FitConfig(epochs=100, patience=8), args.cls, print, row_weight=weight)
    net.save(args.out)
    for path in args.bench:
        bench = LabelStore(path).load()
        mb = bench.classes == cls
        bb, lab = bench.boards()[mb], bench.outputs[mb].astype(np.float64)
        for name, model in (("the evaluator", ev), ("the class network", Evaluator(net, ev.race))):
            d = equity_of(predict_outputs(model, bb, 0)) - equity_of(lab)
            print(f"{path}: {name}: mean |error| {np.abs(d).mean():.4f}, mean {d.mean():+.4f} "
                  f"({mb.sum()} positions)")


if __name__ == "__main__":
    main()
