"""Round robins between players of a small game (``connect4:mm4``, ``tictactoe:net:PATH``...).

Every pair of players plays a seat-alternating match (:func:`bgengine.games.specs.game_match`);
a pairing's score is the row player's wins plus half its draws, per game.  The ranking is by
mean score over all opponents.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bgengine.games.specs import game_match, split_game_spec
from bgengine.matches.tournament.reports import write_text

__all__ = ["GameRoundRobin", "game_round_robin"]


@dataclass
class GameRoundRobin:
    """Results of a small game's round robin: ``results[(i, j)]`` is the match of player
    ``i`` (A) against player ``j`` (B), ``i < j``, as :func:`game_match` returns it."""

    game: str
    names: list[str]
    games: int
    seed: int
    results: dict[tuple[int, int], dict] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        n = len(self.names)
        return len(self.results) == n * (n - 1) // 2

    def score(self, i: int, j: int) -> float | None:
        """Player ``i``'s score against player ``j`` (wins + draws / 2, per game)."""
        if (i, j) in self.results:
            return self.results[(i, j)]["score"]
        if (j, i) in self.results:
            return 1.0 - self.results[(j, i)]["score"]
        return None

    def ranking(self) -> list[tuple[str, float]]:
        """(name, mean score over the opponents played), best first."""
        rows = []
        for i, name in enumerate(self.names):
            scores = [s for j in range(len(self.names)) if j != i
                      for s in [self.score(i, j)] if s is not None]
            rows.append((name, sum(scores) / len(scores) if scores else float("nan")))
        return sorted(rows, key=lambda r: -r[1])

    def as_dict(self) -> dict:
        return {"game": self.game, "players": self.names, "games": self.games,
                "seed": self.seed, "complete": self.complete,
                "pairings": [dict(r) for _, r in sorted(self.results.items())],
                "ranking": [{"player": n, "score": s} for n, s in self.ranking()]}

    def table(self) -> str:
        """The score matrix (row against column) and the ranking, as text."""
        width = max(len(n) for n in self.names)
        lines = [" " * width + "  " + "  ".join(f"{k + 1:>5}" for k in range(len(self.names)))]
        for i, name in enumerate(self.names):
            cells = ["  -  " if i == j else
                     "  ?  " if self.score(i, j) is None else f"{self.score(i, j):5.3f}"
                     for j in range(len(self.names))]
            lines.append(f"{name:<{width}}  " + "  ".join(cells))
        lines.append("")
        lines += [f"{rank}. {name}: mean score {score:.3f}"
                  for rank, (name, score) in enumerate(self.ranking(), 1)]
        return "\n".join(lines) + "\n"

    def save(self, out: str | Path) -> list[Path]:
        """Write ``gameroundrobin.json`` and ``gameroundrobin.txt`` to ``out``."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        files = [out / "gameroundrobin.json", out / "gameroundrobin.txt"]
        write_text(files[0], json.dumps(self.as_dict(), indent=2) + "\n")
        write_text(files[1], self.table())
        return files


def game_round_robin(players: Sequence[str], games: int, *, seed: int = 0,
                     stop: threading.Event | None = None,
                     on_pairing: Callable[[GameRoundRobin, int, int], None] | None = None,
                     ) -> GameRoundRobin:
    """Every pair of ``players`` (specs of one small game, e.g. ``connect4:mm2``) plays
    ``games`` games (pairing ``k`` with seed ``seed + k``); ``stop`` set ends it after the
    current pairing; ``on_pairing(rr, i, j)`` is called after each."""
    specs = [split_game_spec(p) for p in players]
    if any(s is None for s in specs) or len({s[0] for s in specs}) != 1:
        raise ValueError(f"a small game's round robin takes players of one game, e.g. "
                         f"connect4:mm2 connect4:random; got {', '.join(players)}")
    if len(players) < 2:
        raise ValueError("a round robin needs two players or more")
    if len(set(players)) != len(players):
        raise ValueError("each player may appear once")
    rr = GameRoundRobin(specs[0][0], list(players), games, seed)
    pairs = [(i, j) for i in range(len(players)) for j in range(i + 1, len(players))]
    for k, (i, j) in enumerate(pairs):
        if stop is not None and stop.is_set():
            break
        rr.results[(i, j)] = game_match(players[i], players[j], games, seed=seed + k)
        if on_pairing is not None:
            on_pairing(rr, i, j)
    return rr
