"""What choosing plays at the score is worth in matches: the same network with plays by
match-winning chances at the score (A) against itself with cubeless money plays (B), in
N-point matches with the cube, on mirrored dice (each dice sequence twice, seats swapped).

    python lab/score_plays_ab.py --matches 2000 --length 7
"""

from __future__ import annotations

import argparse

from bgengine.core.agents import Player
from bgengine.matches.players import load_default_network
from bgengine.matches.run import run_cube_match


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--length", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    net = load_default_network()
    a, b = Player("net", net, name="at-score"), Player("net", net, name="money-plays")
    r = run_cube_match(a, b, args.matches, match_length=args.length, seed=args.seed,
                       plays_at_score=(True, False))
    print(f"{args.length}-point matches, {r.n} of them ({r.games} games): plays at the score "
          f"win {r.value:.2%} ± {r.ci95:.2%} (95%) against money plays")


if __name__ == "__main__":
    main()
