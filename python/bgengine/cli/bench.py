"""``bgengine bench``: how fast this machine runs the engine."""

from __future__ import annotations

import argparse

from bgengine.cli.options import add_player_argument, add_threads_argument, whole_number
from bgengine.cli.output import add_json_argument, emit
from bgengine.matches.players import NETWORK_SPEC_HELP

__all__ = ["register"]


def _cmd_bench(args: argparse.Namespace) -> int:
    from bgengine.core.network import use_kernel
    from bgengine.matches.players import load_network_spec
    from bgengine.speed import measure_speed

    model = load_network_spec(args.player)
    previous = use_kernel(args.kernel) if args.kernel else None     # ValueError if not here
    try:
        report = measure_speed(model, threads=args.threads, trials=args.trials,
                               label_positions=args.label_positions)
    finally:
        if previous is not None:
            use_kernel(previous)
    emit(args, report.as_dict(), "\n".join(report.lines()))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``bench`` to the ``bgengine`` sub-commands."""
    from bgengine.core.network import KERNELS

    p = sub.add_parser("bench", help="evaluations/s, rollout trials/s and labelled positions "
                                     "per core-hour on this machine",
                       description="Measure the evaluator on this machine: static evaluations "
                                   "of afterstates per second, rollout trials of the opening per "
                                   "second on one thread and on all, and positions labelled "
                                   "per core-hour as 'data label' labels them, with the CPU "
                                   "model and the network kernel in use.  Takes about half a "
                                   "minute; pause other work for figures worth comparing.")
    add_player_argument(p, f"the evaluator measured: {NETWORK_SPEC_HELP} (default: net)")
    p.add_argument("--kernel", choices=KERNELS, default=None,
                   help="the network kernel to measure (default: the fastest this CPU runs)")
    p.add_argument("--trials", **whole_number(36, 10**6, "36..10**6"), default=2592,
                   help="rollout trials a figure (default 2592)")
    p.add_argument("--label-positions", **whole_number(1, 1000, "1..1000"), default=12,
                   help="positions labelled for the labelling figure (default 12)")
    add_threads_argument(p, "threads of the second rollout figure (default: all cores)")
    add_json_argument(p)
    p.set_defaults(func=_cmd_bench)
