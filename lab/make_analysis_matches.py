"""Let bgengine players of different strengths play 7-point matches and save them as .mat files.

    python lab/make_analysis_matches.py tests/data/analysis

The matches are the test set of ``bgengine analyse`` against GNU Backgammon's own
``analyse match`` (``bgengine/data/gnubg_analyse.py``, ``docs/analysis.md``): players of
different strengths make real errors of different sizes.  A player ``net@EPS`` is the
shipped network at 0-ply playing a random legal play with probability ``EPS``; its cube
decisions are the network's, each turned the wrong way round with the same probability
(:class:`NoisyCubeEngine`).  Every match is played with the shipped network's cube
(Janowski model, Kazaross-XG2 table) and seeded dice: the same command makes the same files.
"""

from __future__ import annotations

import argparse
import logging
import random
import re
from pathlib import Path

from bgengine.decisions.engine import Engine
from bgengine.matchfiles.files import write_match_file
from bgengine.matchfiles.record import MatchRecord, play_recorded_match
from bgengine.matches.players import load_default_network, make_player

log = logging.getLogger("make_analysis_matches")

#: (file name, player 0's spec, player 1's spec, match length, seed)
MATCHES = [
    ("net_vs_net-eps05", "net", "net@0.05", 7, 1),
    ("net_vs_pubeval", "net", "pubeval", 7, 2),
    ("net-eps10_vs_pubeval", "net@0.1", "pubeval", 7, 3),
    ("net_vs_net-eps20", "net", "net@0.2", 7, 4),
    ("net-eps02_vs_net-eps10", "net@0.02", "net@0.1", 7, 5),
    ("net_vs_simple2", "net", "simple2", 5, 6),
    ("net_vs_net", "net", "net", 7, 7),
    ("net-eps05_vs_net-eps30", "net@0.05", "net@0.3", 7, 8),
    ("pubeval_vs_net-eps20", "pubeval", "net@0.2", 7, 9),
    ("net_vs_net-eps10", "net", "net@0.1", 7, 10),
]


class NoisyCubeEngine(Engine):
    """The engine's cube decisions, each turned the other way with probability ``epsilon``
    (seeded): a player that misjudges some doubles and takes."""

    def __init__(self, *args, epsilon: float = 0.0, seed: int = 0, **kw) -> None:
        super().__init__(*args, **kw)
        self.epsilon = epsilon
        self.rng = random.Random(seed)

    def _noisy(self, decision: bool) -> bool:
        return (not decision) if self.rng.random() < self.epsilon else decision

    def cube_decision(self, board, state, jacoby=None) -> bool:
        if not self.can_double(state, state.player_on_roll):
            return False
        return self._noisy(super().cube_decision(board, state, jacoby))

    def take_decision(self, board, state) -> bool:
        return self._noisy(super().take_decision(board, state))


def _epsilon(spec: str) -> float:
    m = re.search(r"@([0-9.]+)$", spec)
    return float(m.group(1)) if m else 0.0


def play_match(specs: tuple[str, str], length: int, seed: int) -> MatchRecord:
    """A ``length``-point match between ``specs`` (seat 0, seat 1), recorded move by move."""
    net = load_default_network()
    players = tuple(make_player(s) for s in specs)
    engines = tuple(NoisyCubeEngine(player=p, network=net, epsilon=_epsilon(s), seed=seed * 2 + i)
                    for i, (p, s) in enumerate(zip(players, specs)))
    # distinct names: gnubg's text export tells the players apart by name
    names = (specs[0], specs[1] if specs[1] != specs[0] else specs[1] + "2")
    return play_recorded_match(players, engines, names, length, seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder for the .mat files")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    args.out.mkdir(parents=True, exist_ok=True)
    for name, a, b, length, seed in MATCHES:
        record = play_match((a, b), length, seed)
        write_match_file(record, args.out / f"{name}.mat")
        log.info("%s: %d games", name, len(record.games))


if __name__ == "__main__":
    main()
