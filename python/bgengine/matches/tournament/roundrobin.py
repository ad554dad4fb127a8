"""Round robin: every pair of players plays; the ppg matrix and a ranking."""

from __future__ import annotations

import csv
import io
import json
import math
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from bgengine.matches.distributed import Backend
from bgengine.core.fileio import atomic_write
from bgengine.matches.results import summarize
from bgengine.matches.tournament.entrants import Entrant, Warn, to_stderr
from bgengine.matches.tournament.pairings import (ROUND_ROBIN_BATCH, closes_gnubg, concat_results,
                                         derive_seed, pairs_of_games, play_pairing,
                                         resolve_backend)
from bgengine.matches.tournament.reports import (csv_number, fmt_ppg, json_number, matplotlib_canvas,
                                        shorten, try_png, write_text)

__all__ = ["RoundRobin", "round_robin"]


@dataclass
class RoundRobin:
    """A round robin's results.  ``ppg[i, j]`` is row player ``i``'s points
    per game against column player ``j`` (NaN: not played; the diagonal is
    NaN); ``ci95`` its 95% half-width; ``games`` the games played."""

    names: list[str]
    sources: list[str]
    seed: int
    games_per_pairing: int
    ppg: np.ndarray
    ci95: np.ndarray
    games: np.ndarray
    results: dict = field(default_factory=dict)   # (i, j) -> MatchResult, both orders
    seeds: dict = field(default_factory=dict)     # (i, j), i < j -> pairing seed
    complete: bool = True

    @property
    def n(self) -> int:
        return len(self.names)

    def averages(self) -> tuple[np.ndarray, np.ndarray]:
        """Each player's mean ppg over the opponents it has played, and the 95%
        half-width of that mean (the pairings are independent)."""
        avg = np.full(self.n, np.nan)
        ci = np.full(self.n, np.nan)
        for i in range(self.n):
            row = [j for j in range(self.n) if j != i and self.games[i, j] > 0]
            if row:
                avg[i] = float(np.mean([self.ppg[i, j] for j in row]))
                ci[i] = math.sqrt(sum(self.ci95[i, j] ** 2 for j in row)) / len(row)
        return avg, ci

    def ranking(self) -> list[int]:
        """Player indices, best mean ppg first (ties: list order)."""
        avg, _ = self.averages()
        key = np.where(np.isnan(avg), -np.inf, avg)
        return sorted(range(self.n), key=lambda i: (-key[i], i))

    def table(self) -> str:
        """The matrix and the ranking as terminal text."""
        avg, avg_ci = self.averages()
        short = [shorten(n, 16) for n in self.names]
        labels = [f"{k + 1}" for k in range(self.n)]
        w0 = max(len(s) for s in short) + 4
        cw = 14
        out = io.StringIO()
        status = "" if self.complete else "  [PARTIAL: interrupted]"
        out.write(f"Round robin: {self.n} players, {self.games_per_pairing} games per pairing, "
                  f"seed {self.seed}; ppg of row vs column ± 95% CI{status}\n\n")
        partial = False
        out.write(" " * w0 + "".join(f"{lab:>{cw}}" for lab in labels) + f"{'mean':>{cw + 1}}\n")
        for i in range(self.n):
            cells = []
            for j in range(self.n):
                cell = "—" if i == j else fmt_ppg(self.ppg[i, j], self.ci95[i, j])
                if 0 < self.games[i, j] < self.games_per_pairing:
                    cell += "*"
                    partial = True
                cells.append(cell)
            out.write(f"{labels[i]:>2}. {short[i]:<{w0 - 4}}" + "".join(f"{c:>{cw}}" for c in cells)
                      + f" {fmt_ppg(avg[i], avg_ci[i]):>{cw}}\n")
        if partial:
            out.write("* pairing stopped early: fewer games than the others\n")
        out.write("\nRanking by mean ppg over all opponents:\n")
        for r, i in enumerate(self.ranking(), 1):
            played = int(sum(self.games[i, j] for j in range(self.n) if j != i))
            out.write(f"{r:>3}. {self.names[i]:<{max(len(n) for n in self.names)}}  "
                      f"{fmt_ppg(avg[i], avg_ci[i])}  ({played} games)\n")
        return out.getvalue()

    def as_dict(self) -> dict:
        avg, avg_ci = self.averages()
        pairs = []
        for (i, j), res in sorted(self.results.items()):
            d = res.as_dict()
            d.update(row=self.names[i], column=self.names[j],
                     seed=self.seeds[(min(i, j), max(i, j))], ci95=json_number(res.ci95))
            pairs.append(d)
        return {
            "kind": "roundrobin", "complete": self.complete, "seed": self.seed,
            "games_per_pairing": self.games_per_pairing,
            "players": [{"name": n, "source": s} for n, s in zip(self.names, self.sources)],
            "ppg": [[json_number(x) for x in row] for row in self.ppg],
            "ci95": [[json_number(x) for x in row] for row in self.ci95],
            "games": self.games.tolist(),
            "mean_ppg": [json_number(x) for x in avg], "mean_ci95": [json_number(x) for x in avg_ci],
            "ranking": [self.names[i] for i in self.ranking()],
            "pairs": pairs,
        }

    def matrix_csv(self) -> str:
        avg, avg_ci = self.averages()
        rank = {i: r for r, i in enumerate(self.ranking(), 1)}
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["player", *self.names, "mean_ppg", "mean_ci95", "rank"])
        for i in range(self.n):
            w.writerow([self.names[i], *[csv_number(self.ppg[i, j]) for j in range(self.n)],
                        csv_number(avg[i]), csv_number(avg_ci[i]), rank[i]])
        return out.getvalue()

    def pairs_csv(self) -> str:
        out = io.StringIO()
        cols = ["row", "column", "games", "ppg", "ci95", "win", "win_gammon", "win_backgammon",
                "lose_gammon", "lose_backgammon", "mean_moves", "seed"]
        w = csv.writer(out, lineterminator="\n")
        w.writerow(cols)
        for (i, j), r in sorted(self.results.items()):
            w.writerow([self.names[i], self.names[j], r.games, csv_number(r.ppg), csv_number(r.ci95),
                        csv_number(r.win), csv_number(r.win_gammon), csv_number(r.win_backgammon),
                        csv_number(r.lose_gammon), csv_number(r.lose_backgammon), csv_number(r.mean_moves),
                        self.seeds[(min(i, j), max(i, j))]])
        return out.getvalue()

    def heatmap(self, path: str | Path) -> Path:
        """The ppg matrix as a heatmap PNG (needs matplotlib)."""
        Figure, Canvas = matplotlib_canvas()
        n = self.n
        size = max(4.0, 0.9 * n + 2.5)
        fig = Figure(figsize=(size + 1.2, size), dpi=110)
        Canvas(fig)
        ax = fig.add_subplot(1, 1, 1)
        finite = np.abs(self.ppg[np.isfinite(self.ppg)])
        vmax = max(0.1, float(finite.max()) if finite.size else 1.0)
        masked = np.ma.masked_invalid(self.ppg)
        import matplotlib

        cmap = matplotlib.colormaps["RdBu"].with_extremes(bad="0.85")   # grey diagonal
        im = ax.imshow(masked, cmap=cmap, vmin=-vmax, vmax=vmax)
        labels = [shorten(s, 22) for s in self.names]
        avg, _ = self.averages()
        ax.set_xticks(range(n), labels, rotation=45, ha="right")
        ax.set_yticks(range(n), [f"{lab} ({a:+.2f})" if np.isfinite(a) else lab
                                 for lab, a in zip(labels, avg)])
        ax.set_xlabel("column player")
        ax.set_ylabel("row player (mean ppg)")
        if n <= 16:
            fs = 9 if n <= 8 else 7
            for i in range(n):
                for j in range(n):
                    if i == j or not np.isfinite(self.ppg[i, j]):
                        continue
                    v = self.ppg[i, j]
                    ci = self.ci95[i, j]
                    txt = f"{v:+.2f}\n±{ci:.2f}" if np.isfinite(ci) else f"{v:+.2f}"
                    ax.text(j, i, txt, ha="center", va="center", fontsize=fs,
                            color="white" if abs(v) > 0.6 * vmax else "black")
        cb = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
        cb.set_label("ppg of row vs column")
        title = f"Round robin, {self.games_per_pairing} games per pairing, seed {self.seed}"
        if not self.complete:
            title += " (partial)"
        ax.set_title(title)
        fig.tight_layout()
        path = Path(path)
        atomic_write(path, lambda f: fig.savefig(f, format="png", bbox_inches="tight"))
        return path

    def save(self, out: str | Path, warn: Warn = to_stderr) -> list[Path]:
        """Write roundrobin.json, roundrobin_matrix.csv, roundrobin_pairs.csv,
        roundrobin.txt and roundrobin.png into directory ``out``."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        files = [
            write_text(out / "roundrobin.json", json.dumps(self.as_dict(), indent=2) + "\n"),
            write_text(out / "roundrobin_matrix.csv", self.matrix_csv()),
            write_text(out / "roundrobin_pairs.csv", self.pairs_csv()),
            write_text(out / "roundrobin.txt", self.table()),
        ]
        files += try_png(lambda: self.heatmap(out / "roundrobin.png"), warn)
        return files


@closes_gnubg
def round_robin(entrants: Sequence[Entrant], games: int, seed: int = 0, threads: int | None = None,
                batch_pairs: int = ROUND_ROBIN_BATCH, stop: threading.Event | None = None,
                backend: Backend | None = None,
                on_pairing: Callable[[RoundRobin, int, int], None] | None = None) -> RoundRobin:
    """Every pair of ``entrants`` plays ``games`` games (rounded up to game pairs).

    The pairing of players ``i < j`` is played once, with dice seed
    ``derive_seed(seed, "roundrobin", name_i, name_j)``, and read from both
    sides.  ``stop`` (an Event, set e.g. by Ctrl-C) ends the tournament after
    the current batch; the pairing under way keeps the games it has and the
    result is marked incomplete.  ``on_pairing(result, i, j)`` is called after
    each pairing (e.g. to save progress).
    """
    if len(entrants) < 2:
        raise ValueError(f"a round robin needs at least 2 players, got {len(entrants)}")
    n_pairs = pairs_of_games(games)
    backend = resolve_backend(threads, backend)
    if batch_pairs < 1:
        raise ValueError(f"batch_pairs must be at least 1, got {batch_pairs}")
    n = len(entrants)
    rr = RoundRobin(names=[e.name for e in entrants], sources=[e.source for e in entrants],
                    seed=int(seed), games_per_pairing=2 * n_pairs,
                    ppg=np.full((n, n), np.nan), ci95=np.full((n, n), np.nan),
                    games=np.zeros((n, n), dtype=np.int64))
    for i in range(n):
        for j in range(i + 1, n):
            if stop is not None and stop.is_set():
                rr.complete = False
                return rr
            a, b = entrants[i], entrants[j]
            s = derive_seed(seed, "roundrobin", a.name, b.name)
            rr.seeds[(i, j)] = s
            pts: list = []
            mvs: list = []
            finished = play_pairing(a, b, n_pairs, s, backend, batch_pairs, stop, pts, mvs)
            points, moves = concat_results(pts, np.int8), concat_results(mvs, np.int32)
            if points.shape[0]:
                _record(rr, i, j, points, moves)
            if on_pairing is not None:
                on_pairing(rr, i, j)
            if not finished:
                rr.complete = False
                return rr
    return rr


def _record(rr: RoundRobin, i: int, j: int, points: np.ndarray, moves: np.ndarray) -> None:
    fwd = summarize(rr.names[i], rr.names[j], points, moves)
    # the same games from j's side: every point negated, so ppg[j, i] == -ppg[i, j] exactly
    back = summarize(rr.names[j], rr.names[i], -points, moves)
    rr.results[(i, j)], rr.results[(j, i)] = fwd, back
    rr.ppg[i, j], rr.ppg[j, i] = fwd.ppg, back.ppg
    rr.ci95[i, j] = rr.ci95[j, i] = fwd.ci95
    rr.games[i, j] = rr.games[j, i] = fwd.games
