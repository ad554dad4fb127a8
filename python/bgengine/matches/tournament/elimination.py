"""The sources' "win or leave" knock-out: a player 50 points behind is out."""

from __future__ import annotations

import io
import json
import math
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from bgengine.matches.distributed import Backend
from bgengine.matches.results import ci95
from bgengine.matches.tournament.entrants import Entrant
from bgengine.matches.tournament.pairings import (closes_gnubg, derive_seed, pairs_of_games, play_pairs,
                                         resolve_backend)
from bgengine.matches.tournament.reports import json_number, write_text

__all__ = ["KNOCKOUT_BATCH", "KNOCKOUT_MARGIN", "KNOCKOUT_MAX_GAMES", "Knockout", "KnockoutMatch",
           "knockout"]

#: the knock-out's check interval in game pairs (the sources' rule is checked
#: after every batch, so this is part of the result, unlike a round robin's batches)
KNOCKOUT_BATCH = 50
KNOCKOUT_MARGIN = 50
KNOCKOUT_MAX_GAMES = 10000


@dataclass
class KnockoutMatch:
    """One pairing of the knock-out, from ``a``'s side."""

    round: int
    a: str
    b: str
    seed: int
    games: int = 0
    points: int = 0                  # a's points minus b's over all games
    wins_a: int = 0
    trajectory: list = field(default_factory=list)   # a's points after each batch
    winner: str | None = None
    reason: str = ""                 # "margin", "cap", "cap-tie (lot)"; "" if unfinished
    ci95: float = math.nan

    @property
    def loser(self) -> str | None:
        if self.winner is None:
            return None
        return self.b if self.winner == self.a else self.a

    @property
    def ppg(self) -> float:
        return self.points / self.games if self.games else 0.0

    def as_dict(self) -> dict:
        return {"round": self.round, "a": self.a, "b": self.b, "seed": self.seed,
                "games": self.games, "points_a": self.points, "ppg_a": self.ppg,
                "ci95": json_number(self.ci95), "wins_a": self.wins_a, "winner": self.winner,
                "loser": self.loser, "reason": self.reason, "trajectory": self.trajectory}

    def line(self, width: int) -> str:
        if self.winner is None:
            return (f"{self.a:<{width}}  vs    {self.b:<{width}}  unfinished: {self.points:+d} "
                    f"after {self.games} games")
        lead = abs(self.points)
        ppg = self.ppg if self.winner == self.a else -self.ppg
        why = {"margin": "", "cap": ", at the cap", "cap-tie (lot)": ", tied at the cap: by lot"}
        return (f"{self.winner:<{width}}  beat  {self.loser:<{width}}  by {lead} points in "
                f"{self.games} games ({ppg:+.3f} ppg{why.get(self.reason, '')})")


@dataclass
class Knockout:
    """A knock-out's bracket: ``rounds[r]`` holds that round's pool, matches and bye."""

    seed: int
    margin: int
    max_games: int
    batch_pairs: int
    players: list[dict]
    rounds: list[dict] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)
    winner: str | None = None
    complete: bool = True

    def as_dict(self) -> dict:
        return {"kind": "knockout", "complete": self.complete, "winner": self.winner,
                "seed": self.seed, "margin": self.margin, "max_games": self.max_games,
                "batch_pairs": self.batch_pairs, "players": self.players, "skipped": self.skipped,
                "rounds": [{"round": r["round"], "pool": r["pool"], "bye": r["bye"],
                            "matches": [m.as_dict() for m in r["matches"]]} for r in self.rounds]}

    def text(self) -> str:
        out = io.StringIO()
        names = [p["name"] for p in self.players]
        width = min(max((len(n) for n in names), default=4), 40)
        status = "" if self.complete else "  [PARTIAL: interrupted]"
        out.write(f'Knock-out ("win or leave"): {len(names)} players; a player {self.margin} '
                  f"points behind (checked every {2 * self.batch_pairs} games) is out; at "
                  f"{self.max_games} games the higher ppg goes through; seed {self.seed}{status}\n")
        for s in self.skipped:
            out.write(f"skipped {s['file']}: {s['reason']}\n")
        for r in self.rounds:
            out.write(f"\nRound {r['round']}: {len(r['pool'])} players\n")
            for m in r["matches"]:
                out.write("  " + m.line(width) + "\n")
            if r["bye"] is not None:
                out.write(f"  {r['bye']:<{width}}  bye\n")
        out.write(f"\nWinner: {self.winner}\n" if self.winner else
                  "\nNo winner yet (interrupted).\n")
        return out.getvalue()

    def save(self, out: str | Path) -> list[Path]:
        """Write knockout.json and knockout.txt into directory ``out``."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        return [write_text(out / "knockout.json", json.dumps(self.as_dict(), indent=2) + "\n"),
                write_text(out / "knockout.txt", self.text())]


@closes_gnubg
def knockout(entrants: Sequence[Entrant], max_games: int = KNOCKOUT_MAX_GAMES,
             margin: int = KNOCKOUT_MARGIN, seed: int = 0, threads: int | None = None,
             batch_pairs: int = KNOCKOUT_BATCH, stop: threading.Event | None = None,
             skipped: list | None = None, backend: Backend | None = None,
             on_match: Callable[[Knockout, KnockoutMatch], None] | None = None) -> Knockout:
    """The sources' "win or leave" knock-out over ``entrants`` (see the module docstring).

    Round ``r`` draws the pool in the order of ``derive_seed(seed,
    "knockout-draw", r, name)``, pairs neighbours and gives the last player a
    bye when the pool is odd.  A pairing plays ``batch_pairs`` game pairs at a
    time with seed ``derive_seed(seed, "knockout", r, a, b)`` until one player
    is ``margin`` points behind or ``max_games`` games are played.
    """
    if len(entrants) < 1:
        raise ValueError("a knock-out needs at least 1 player")
    cap_pairs = pairs_of_games(max_games, "max_games")
    if margin < 1:
        raise ValueError(f"margin must be at least 1 point, got {margin}")
    if batch_pairs < 1:
        raise ValueError(f"batch_pairs must be at least 1, got {batch_pairs}")
    backend = resolve_backend(threads, backend)
    by_name = {e.name: e for e in entrants}
    ko = Knockout(seed=int(seed), margin=int(margin), max_games=2 * cap_pairs,
                  batch_pairs=int(batch_pairs), players=[e.as_dict() for e in entrants],
                  skipped=list(skipped or []))
    pool = [e.name for e in entrants]
    r = 0
    while len(pool) > 1:
        r += 1
        order = sorted(pool, key=lambda name: (derive_seed(seed, "knockout-draw", r, name), name))
        bye = order[-1] if len(order) % 2 else None
        rnd = {"round": r, "pool": order, "bye": bye, "matches": []}
        ko.rounds.append(rnd)
        survivors = []
        for k in range(0, len(order) - 1, 2):
            a, b = order[k], order[k + 1]
            m = KnockoutMatch(round=r, a=a, b=b, seed=derive_seed(seed, "knockout", r, a, b))
            rnd["matches"].append(m)
            if not _knockout_match(m, by_name[a], by_name[b], cap_pairs, margin, batch_pairs,
                                   backend, stop):
                ko.complete = False
                return ko
            survivors.append(m.winner)
            if on_match is not None:
                on_match(ko, m)
        if bye is not None:
            survivors.append(bye)
        pool = survivors
    ko.winner = pool[0]
    return ko


def _knockout_match(m: KnockoutMatch, a: Entrant, b: Entrant, cap_pairs: int, margin: int,
                    batch_pairs: int, backend: Backend, stop: threading.Event | None) -> bool:
    done = 0
    all_points: list = []
    while done < cap_pairs:
        if stop is not None and stop.is_set():
            return False
        k = min(batch_pairs, cap_pairs - done)
        try:
            pts, _ = play_pairs(backend, a.player, b.player, k, m.seed, done)
        except KeyboardInterrupt:
            if stop is not None:
                stop.set()
            return False
        done += k
        all_points.append(pts)
        m.games = 2 * done
        m.points += int(pts.astype(np.int64).sum())
        m.wins_a += int((pts > 0).sum())
        m.trajectory.append(m.points)
        pairs = np.concatenate(all_points).astype(np.float64).mean(axis=1)
        m.ci95 = ci95(pairs)
        if abs(m.points) >= margin:
            m.winner = a.name if m.points > 0 else b.name
            m.reason = "margin"
            return True
    if m.points != 0:
        m.winner = a.name if m.points > 0 else b.name
        m.reason = "cap"
    else:
        m.winner = a.name if derive_seed(m.seed, "lot") % 2 == 0 else b.name
        m.reason = "cap-tie (lot)"
    return True
