"""Self against older self: the latest network of a run or a checkpoint folder
against its older networks, ppg against age."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from bgengine.core.agents import Player
from bgengine.matches.distributed import Backend
from bgengine.core.fileio import atomic_write
from bgengine.matches.results import MatchResult, summarize
from bgengine.core.network import Network
from bgengine.training.run_dir import RunDir, read_checkpoint
from bgengine.matches.tournament.entrants import (Entrant, Warn, load_net_entrant, load_network_folder,
                                          natural_key, note_skipped, to_stderr)
from bgengine.matches.tournament.pairings import (ROUND_ROBIN_BATCH, concat_results, derive_seed,
                                         pairs_of_games, play_pairing, resolve_backend)
from bgengine.matches.tournament.reports import (csv_number, fmt_ppg, json_number, matplotlib_canvas,
                                        try_png, write_text)

__all__ = ["OlderSelf", "history", "older_self"]


@dataclass
class OlderSelf:
    """The latest network against older ones: ``rows`` hold one comparison each."""

    source: str
    latest: dict
    seed: int
    games_per_opponent: int
    rows: list[dict] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)
    complete: bool = True

    def as_dict(self) -> dict:
        return {"kind": "older", "complete": self.complete, "source": self.source,
                "latest": self.latest, "seed": self.seed,
                "games_per_opponent": self.games_per_opponent, "skipped": self.skipped,
                "rows": self.rows}

    def text(self) -> str:
        out = io.StringIO()
        status = "" if self.complete else "  [PARTIAL: interrupted]"
        trained = self.latest.get("games_trained")
        out.write(f"Self against older self: {self.latest['name']}"
                  + (f" ({trained} games trained)" if trained is not None else "")
                  + f" vs older networks of {self.source}, {self.games_per_opponent} games each, "
                    f"seed {self.seed}; ppg of the latest ± 95% CI{status}\n")
        for s in self.skipped:
            out.write(f"skipped {s['file']}: {s['reason']}\n")
        w = max([len(r["opponent"]) for r in self.rows] + [8])
        out.write(f"\n  {'opponent':<{w}}  {'trained':>10}  {'age':>10}  {'games':>6}  "
                  f"{'ppg (latest)':>15}  {'wins':>6}\n")
        for r in self.rows:
            t = "?" if r["games_trained"] is None else str(r["games_trained"])
            out.write(f"  {r['opponent']:<{w}}  {t:>10}  {r['age_label']:>10}  {r['games']:>6}  "
                      f"{fmt_ppg(r['ppg'], r['ci95'] if r['ci95'] is not None else math.inf):>15}  "
                      f"{100 * r['win']:5.1f}%\n")
        return out.getvalue()

    def csv_text(self) -> str:
        out = io.StringIO()
        cols = ["opponent", "games_trained", "age", "age_unit", "games", "ppg", "ci95", "win",
                "win_gammon", "lose_gammon", "seed"]
        w = csv.writer(out, lineterminator="\n")
        w.writerow(cols)
        for r in self.rows:
            w.writerow([r["opponent"], "" if r["games_trained"] is None else r["games_trained"],
                        r["age"], r["age_unit"], r["games"], csv_number(r["ppg"]),
                        csv_number(r["ci95"] if r["ci95"] is not None else math.nan),
                        csv_number(r["win"]), csv_number(r["win_gammon"]), csv_number(r["lose_gammon"]),
                        r["seed"]])
        return out.getvalue()

    def plot(self, path: str | Path) -> Path:
        """ppg of the latest network against the age of its opponent (PNG)."""
        Figure, Canvas = matplotlib_canvas()
        fig = Figure(figsize=(8, 4.5), dpi=110)
        Canvas(fig)
        ax = fig.add_subplot(1, 1, 1)
        rows = sorted(self.rows, key=lambda r: r["age"])
        x = [r["age"] for r in rows]
        y = [r["ppg"] for r in rows]
        e = [r["ci95"] if r["ci95"] is not None else 0.0 for r in rows]
        ax.errorbar(x, y, yerr=e, marker="o", markersize=4, capsize=3, linestyle="-")
        ax.axhline(0, color="grey", linewidth=0.8)
        unit = rows[0]["age_unit"] if rows else "games"
        ax.set_xlabel("age of the older network ("
                      + ("games of training" if unit == "games" else "checkpoints")
                      + " before the latest)")
        ax.set_ylabel("ppg of the latest network")
        title = f"{self.latest['name']} against older selves ({self.games_per_opponent} games each)"
        ax.set_title(title + (" (partial)" if not self.complete else ""))
        ax.grid(alpha=0.3)
        fig.tight_layout()
        path = Path(path)
        atomic_write(path, lambda f: fig.savefig(f, format="png", bbox_inches="tight"))
        return path

    def save(self, out: str | Path, warn: Warn = to_stderr) -> list[Path]:
        """Write older.json, older.csv, older.txt and older.png into directory ``out``."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        files = [write_text(out / "older.json", json.dumps(self.as_dict(), indent=2) + "\n"),
                 write_text(out / "older.csv", self.csv_text()),
                 write_text(out / "older.txt", self.text())]
        if self.rows:
            files += try_png(lambda: self.plot(out / "older.png"), warn)
        return files


def history(source: str | Path, warn: Warn = to_stderr,
            skipped: list | None = None) -> tuple[list[Entrant], str]:
    """The networks of a run directory or a checkpoint folder, oldest first,
    and the unit of their age ("games" when every one records its games of
    training, else "checkpoints": natural file-name order).

    A run directory (holding ``network.npz``) gives its latest network, the
    older snapshots kept in ``checkpoint.npz``, ``best.npz`` and any networks
    in ``RUN/checkpoints/``; another folder gives its ``*.npz`` networks.
    """
    source = Path(source)
    if not source.is_dir():
        raise ValueError(f"{source}: not a directory (give a run directory or a checkpoint folder)")
    nets: list[Entrant] = []
    latest = None
    rd = RunDir(source)
    if rd.is_run():
        latest = load_net_entrant(rd.network)
        latest.name = "network"
        nets.extend(_run_snapshots(source, latest, warn, skipped))
        if rd.best.exists():
            try:
                nets.append(load_net_entrant(rd.best))
            except ValueError as exc:
                note_skipped(rd.best, exc, warn, skipped)
        if rd.snapshots.is_dir():
            nets.extend(load_network_folder(rd.snapshots, warn, skipped))
    else:
        nets = load_network_folder(source, warn, skipped)
    everyone = nets + ([latest] if latest is not None else [])
    if all(e.games_trained is not None for e in everyone):
        nets.sort(key=lambda e: (e.games_trained, natural_key(Path(e.source).name)))
        unit = "games"
    else:
        nets.sort(key=lambda e: natural_key(Path(e.source).name))
        unit = "checkpoints"
    if latest is not None:  # a run's network.npz is its newest network
        nets.append(latest)
    # the same weights twice (best.npz = a snapshot, the last snapshot = the
    # latest): keep the newest copy only
    kept: list[Entrant] = []
    digests: set = set()
    for e in reversed(nets):
        d = _weights_digest(e.player.network)
        if d not in digests:
            digests.add(d)
            kept.append(e)
    nets = kept[::-1]
    seen: dict[str, int] = {}
    for e in nets:  # unique names within the history
        if e.name in seen:
            seen[e.name] += 1
            e.name = f"{e.name}#{seen[e.name]}"
        else:
            seen[e.name] = 0
    return nets, unit


def _weights_digest(model) -> str:
    """A digest of a network's (or an evaluator's networks') shapes and weights."""
    nets = [model] if isinstance(model, Network) else list({id(n): n for n in (
        model.contact, model.race)}.values())
    h = hashlib.sha256()
    for net in nets:
        h.update(json.dumps([net.encoder, list(net.sizes)]).encode())
        h.update(net.params.tobytes())
    if not isinstance(model, Network):
        h.update(b"bearoff" if model.database is not None else b"")
    return h.hexdigest()


def _run_snapshots(run: Path, latest: Entrant, warn: Warn, skipped: list | None) -> list[Entrant]:
    path = RunDir(run).checkpoint
    if not path.exists():
        return []
    net = latest.player.network
    out = []
    try:
        _, _, snapshots = read_checkpoint(run)
        for g, params in snapshots.items():
            old = Network(net.hidden, net.n_outputs, net.encoder, params=params)
            name = f"snapshot_{g}"
            out.append(Entrant(name, Player("net", old, name=name), f"{path}[{name}]", g))
    except Exception as exc:  # corrupt archive, JSON, shapes alike
        note_skipped(path, ValueError(f"unreadable snapshots ({type(exc).__name__}: {exc})"), warn,
              skipped)
        return []
    return out


def older_self(source: str | Path, games: int, every: int = 1, seed: int = 0,
               threads: int | None = None, batch_pairs: int = ROUND_ROBIN_BATCH,
               stop: threading.Event | None = None, warn: Warn = to_stderr,
               max_opponents: int | None = None, backend: Backend | None = None,
               on_row: Callable[[OlderSelf], None] | None = None) -> OlderSelf:
    """The newest network of ``source`` (see :func:`history`) against every
    ``every``-th older one, counting back from the newest (the one ``every``
    before it, ``2*every`` before it, ...), ``games`` games each, with seed
    ``derive_seed(seed, "older", latest, opponent)``.  ``max_opponents``
    keeps only the nearest that many."""
    if every < 1:
        raise ValueError(f"every must be at least 1, got {every}")
    n_pairs = pairs_of_games(games)
    backend = resolve_backend(threads, backend)
    skipped: list = []
    nets, unit = history(source, warn, skipped)
    if len(nets) < 2:
        raise ValueError(f"{source}: need at least 2 networks to compare, found {len(nets)}")
    latest = nets[-1]
    older = [nets[k] for k in range(len(nets) - 1 - every, -1, -every)]
    if max_opponents is not None:
        older = older[:max_opponents]
    res = OlderSelf(source=str(source), latest=latest.as_dict(), seed=int(seed),
                    games_per_opponent=2 * n_pairs, skipped=skipped)
    for e in older:
        s = derive_seed(seed, "older", latest.name, e.name)
        pts: list = []
        mvs: list = []
        finished = play_pairing(latest, e, n_pairs, s, backend, batch_pairs, stop, pts, mvs)
        points, moves = concat_results(pts, np.int8), concat_results(mvs, np.int32)
        if points.shape[0]:
            r: MatchResult = summarize(latest.name, e.name, points, moves)
            if unit == "games":
                age = latest.games_trained - e.games_trained
                label = f"{age}"
            else:
                age = nets.index(latest) - nets.index(e)
                label = f"{age} ckpt"
            res.rows.append({"opponent": e.name, "source": e.source,
                             "games_trained": e.games_trained, "age": age, "age_unit": unit,
                             "age_label": label, "games": r.games, "ppg": r.ppg,
                             "ci95": json_number(r.ci95), "win": r.win, "win_gammon": r.win_gammon,
                             "lose_gammon": r.lose_gammon, "seed": s})
            if on_row is not None:
                on_row(res)
        if not finished:
            res.complete = False
            break
    return res
