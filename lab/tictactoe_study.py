"""The tic-tac-toe Q-learning study: one run per training opponent (random, primitive, smart,
solver, self-play) and, optionally, per alpha x gamma x epsilon of a grid; prints a Markdown
table of the last evaluation (greedy games from both seats against each reference player).

    python lab/tictactoe_study.py OUT_DIR [--games 30000] [--alpha 0.3 ...] [--gamma 0.9 ...]
        [--epsilon 0.2 ...] [--method q|td]

Each run is an ordinary small-game run directory (OUT_DIR/<name>), resumable, with its curve
(``bgengine plot OUT_DIR/<name>``).
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path

from bgengine.games.study import GameRunConfig, train_game_run
from bgengine.training.run_dir import read_log

OPPONENTS = ("random", "primitive", "smart", "solver", "self")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--games", type=int, default=30_000)
    ap.add_argument("--method", default="q", choices=("q", "td"))
    ap.add_argument("--alpha", type=float, nargs="+", default=[0.3])
    ap.add_argument("--gamma", type=float, nargs="+", default=[0.9])
    ap.add_argument("--epsilon", type=float, nargs="+", default=[0.2])
    ap.add_argument("--opponents", nargs="+", default=list(OPPONENTS))
    args = ap.parse_args()
    print("| trained against | alpha | gamma | epsilon | games | vs random (1st / 2nd) "
          "| vs primitive | vs smart | vs solver |")
    print("|---|---|---|---|---|---|---|---|---|")
    for opponent, alpha, gamma, eps in itertools.product(args.opponents, args.alpha, args.gamma,
                                                         args.epsilon):
        config = GameRunConfig(method=args.method, hidden=[80], alpha=alpha, alpha_end=alpha / 30,
                               gamma=gamma, epsilon=eps, opening=2, opponent=opponent,
                               games=args.games)
        run = args.out / f"{args.method}-{opponent}-a{alpha}-g{gamma}-e{eps}"
        train_game_run(config, run)
        last = [r for r in read_log(run) if r.get("kind") == "game_eval"
                and r["games"] == args.games]
        cell = {}
        for r in last:
            cell.setdefault(r["opponent"], []).append(
                f"{r['win']:.1%} / {r['draw']:.1%} / {r['loss']:.1%}")
        print(f"| {opponent} | {alpha} | {gamma} | {eps} | {args.games:,} | "
              + " | ".join("<br>".join(cell[o]) for o in ("random", "primitive", "smart", "solver"))
              + " |", flush=True)


if __name__ == "__main__":
    main()
