"""How much stronger and slower 1-ply and 2-ply play is than 0-ply (a script, minutes long).

The shipped network at 0, 1 and 2 plies (expectimax over the 21 rolls with
gnubg-style move filtering, all compiled) plays pubeval, the same opponent and
the same dice for every depth (pairs of games, seats swapped), and the 0-ply
net directly.  Prints ppg with 95% intervals, games/s and moves/s::

    python bench/lookahead_strength.py [--games0 20000] [--games1 4000] [--games2 1000] [--threads 2]

Figures are recorded in the README ("Lookahead").
"""

from __future__ import annotations

import argparse
import time

from bgengine.core.agents import Player
from bgengine.matches.run import run_match
from bgengine.matches.players import load_default_network, make_player


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games0", type=int, default=20000)
    ap.add_argument("--games1", type=int, default=4000)
    ap.add_argument("--games2", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    net = load_default_network()
    pub = make_player("pubeval")
    games = {0: args.games0, 1: args.games1, 2: args.games2}
    rows = []
    for plies in (0, 1, 2):
        p = Player("net", net, name=f"net {plies}-ply", plies=plies)
        t = time.perf_counter()
        r = run_match(p, pub, games[plies], seed=args.seed, threads=args.threads)
        dt = time.perf_counter() - t
        rows.append((plies, r, dt))
        print(f"{r}  [{r.games / dt:.1f} games/s, {r.games * r.mean_moves / 2 / dt:.0f} net moves/s "
              f"on {args.threads} threads]", flush=True)
    # head to head, on the dice of the 2-ply match
    for plies in (1, 2):
        deep = Player("net", net, name=f"net {plies}-ply", plies=plies)
        r = run_match(deep, Player("net", net, name="net 0-ply"), games[2], seed=args.seed + 1,
                      threads=args.threads)
        print(r, flush=True)


if __name__ == "__main__":
    main()
