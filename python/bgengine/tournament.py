"""Tournaments: round robin, knock-out ("win or leave") and self against older self.

Every game here is a cubeless money game played by the compiled match loop
(:func:`bgengine.agents.play_match`), or for GNU Backgammon (players ``gnubg``,
``gnubg:N``) by a pool of gnubg processes (:mod:`bgengine.gnubg`), in *game pairs*: one dice sequence played
twice with the seats swapped, so most of the luck cancels.  Games are spread
over ``threads`` threads inside the compiled core; pair ``i`` of a pairing
depends only on the pairing's seed and ``i``, so every result below is a
function of the master seed alone, whatever the number of threads or the batch
size.

Seeds
    Each pairing gets its own dice seed, derived from the master seed, the
    kind of tournament and the two players' names (SHA-256; see
    :func:`derive_seed`).  Adding or removing a player does not change the
    games of the other pairings.

Round robin (:func:`round_robin`)
    Every pair of players plays ``games`` games.  The result is the ppg matrix
    ``ppg[i, j]`` = points per game of player ``i`` (row) against player ``j``
    (column), with 95% confidence intervals from the spread of the game-pair
    means.  Each unordered pairing is played once and read from both sides,
    so ``ppg[j, i] == -ppg[i, j]`` exactly.  Players are ranked by their mean
    ppg over all opponents.

Knock-out (:func:`knockout`), the sources' "win or leave"
    The pool is shuffled (deterministically, from the seed) and paired; a
    pairing plays batches of ``batch_pairs`` game pairs and, after each batch,
    a player 50 (``margin``) or more points behind is out.  If neither is out
    after ``max_games`` games, the player ahead on points (higher ppg) goes
    through; an exact tie at the cap is decided by lot (from the seed).  With
    an odd pool the player drawn last has a bye.  Rounds repeat, the pool
    halving each time, until one player is left.  Files that cannot be loaded
    are named in a warning and left out.

Self against older self (:func:`older_self`)
    The latest network of a run directory or a checkpoint folder plays
    ``games`` games against every ``every``-th older one; the report is ppg
    against age (games of training between the two).

From the command line: ``bgengine tournament {roundrobin,knockout,older}``
(see :mod:`bgengine.cli.tournament`).  Ctrl-C stops after the current batch of
games; the partial results are printed and saved, marked as partial.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import json
import logging
import math
import re
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np

from bgengine.agents import Player
from bgengine.fileio import atomic_write
from bgengine.distributed import Backend, LocalBackend
from bgengine.gnubg import GnubgPlayer
from bgengine.match import MatchResult, default_threads, summarize
from bgengine.network import Network
from bgengine.players import load_network
from bgengine.runs import RunDir, read_checkpoint

__all__ = [
    "Entrant", "RoundRobin", "Knockout", "KnockoutMatch", "OlderSelf",
    "derive_seed", "load_entrants", "load_network_folder", "round_robin", "knockout",
    "older_self",
]

log = logging.getLogger(__name__)

#: game pairs per call of the compiled match loop in a round robin or an
#: older-self comparison (results do not depend on it; Ctrl-C waits for one batch)
ROUND_ROBIN_BATCH = 250
#: the knock-out's check interval in game pairs (the sources' rule is checked
#: after every batch, so this is part of the result, unlike the batch above)
KNOCKOUT_BATCH = 50
KNOCKOUT_MARGIN = 50
KNOCKOUT_MAX_GAMES = 10000

Warn = Callable[[str], None]


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- players

@dataclass
class Entrant:
    """A tournament player: a display name, the player (compiled, or GNU
    Backgammon run by bgengine) and where it came from."""

    name: str
    player: Player | GnubgPlayer
    source: str                     # the spec or the network file
    games_trained: int | None = None  # from a network file's training metadata

    def as_dict(self) -> dict:
        return {"name": self.name, "source": self.source, "games_trained": self.games_trained}


def derive_seed(master: int, *parts: object) -> int:
    """A 63-bit dice seed from the master seed and any JSON-able parts
    (tournament kind, round, player names...).  Stable across platforms and
    versions: SHA-256 of the JSON text."""
    text = json.dumps([int(master), *parts], separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") >> 1


def _natural_key(text: str) -> list:
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", text)]


def _games_trained(net: Network) -> int | None:
    training = net.metadata.get("training")
    if isinstance(training, dict) and isinstance(training.get("games"), int):
        return int(training["games"])
    return None


def _load_net_entrant(path: Path) -> Entrant:
    try:
        net = load_network(path)
    except ValueError:
        raise
    except OSError as exc:  # unreadable, a directory, permissions...
        raise ValueError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return Entrant(path.stem, Player("net", net, name=path.stem), str(path), _games_trained(net))


def load_network_folder(folder: str | Path, warn: Warn = _stderr,
                        skipped: list | None = None) -> list[Entrant]:
    """Every network file (``*.npz``) in ``folder``, in natural name order.

    A file that is not a loadable bgengine network (corrupt, truncated, a
    training ``checkpoint.npz``...) is named in a warning and left out; it is
    also appended to ``skipped`` as ``{"file", "reason"}``.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"{folder}: not a directory")
    out = []
    for path in sorted(folder.glob("*.npz"), key=lambda p: _natural_key(p.name)):
        try:
            out.append(_load_net_entrant(path))
        except ValueError as exc:
            _skip(path, exc, warn, skipped)
    return out


def _skip(path: Path, exc: Exception, warn: Warn, skipped: list | None) -> None:
    reason = str(exc)
    if reason.startswith(f"{path}: "):
        reason = reason[len(f"{path}: "):]
    warn(f"warning: skipping {path}: {reason}")
    if skipped is not None:
        skipped.append({"file": str(path), "reason": reason})


def load_entrants(entries: Iterable[str], warn: Warn = _stderr,
                  skipped: list | None = None) -> list[Entrant]:
    """Players from command-line entries, in order.

    Each entry is a directory (all its ``*.npz`` networks, unloadable files
    skipped with a warning, see :func:`load_network_folder`), a network file
    (``PATH.npz`` or ``net:PATH``; an unloadable one is an error, since it was
    named), or a player spec (``random``, ``pubeval``, ``simple1..3``, ``net``;
    ``@EPS`` allowed).  Names are file stems (made longer where two would
    clash) or the spec itself; the same player twice is an error.
    """
    from bgengine.players import make_player

    found: list[Entrant] = []
    for entry in entries:
        text = entry.strip()
        path = Path(text)
        if path.is_dir():
            found.extend(load_network_folder(path, warn, skipped))
        elif text.endswith(".npz") and "@" not in text:
            if not path.exists():
                raise ValueError(f"{text}: no such file")
            found.append(_load_net_entrant(path))
        else:
            player = make_player(text)
            if not isinstance(player, (Player, GnubgPlayer)):
                raise ValueError(f"{text}: tournaments need players of the compiled core or "
                                 f"gnubg (external players are played one move at a time from "
                                 f"Python; use 'bgengine match' for them)")
            net = getattr(player, "network", None)
            games = _games_trained(net) if net is not None else None
            found.append(Entrant(text, player, text, games))
    _unique_names(found)
    return found


def _unique_names(entrants: list[Entrant]) -> None:
    sources = {}
    for e in entrants:
        key = str(Path(e.source).resolve()) if e.source.endswith(".npz") else e.source
        if key in sources:
            raise ValueError(f"player {e.source!r} is given twice")
        sources[key] = e
    counts: dict[str, int] = {}
    for e in entrants:
        counts[e.name] = counts.get(e.name, 0) + 1
    for e in entrants:
        if counts[e.name] > 1:  # two files with one stem: use the path as given
            e.name = e.source
    names = [e.name for e in entrants]
    if len(set(names)) != len(names):
        raise ValueError(f"player names clash: {names}")


# ---------------------------------------------------------------- stopping

def _play_pairs(backend: Backend, a, b, n_pairs: int, seed: int,
                first_pair: int) -> tuple[np.ndarray, np.ndarray]:
    """``backend.play_pairs``, or, when either player is GNU Backgammon, that
    player's pool of gnubg processes (kept for the next batch; the backend is
    not used).  Pairs with a game in which gnubg gave a bad reply are left out,
    with a warning."""
    gnubg = next((p for p in (a, b) if isinstance(p, GnubgPlayer)), None)
    if gnubg is None:
        return backend.play_pairs(a, b, n_pairs, seed, first_pair=first_pair)
    res = gnubg.pool().play_pairs(a, b, n_pairs, seed, first_pair)
    keep = res.good_pairs
    if not keep.all():
        log.warning("%s vs %s: %d games with a bad gnubg reply, their pairs left out: %s",
                    getattr(a, "name", a), getattr(b, "name", b), int(res.bad.sum()),
                    "; ".join(res.reasons[:3]))
    return res.points[keep], res.moves[keep]


def _closes_gnubg(fn):
    """Stop the gnubg processes of ``entrants`` (``fn``'s first argument) when ``fn`` ends."""
    @functools.wraps(fn)
    def wrapper(entrants, *args, **kwargs):
        try:
            return fn(entrants, *args, **kwargs)
        finally:
            for e in entrants:
                if isinstance(e.player, GnubgPlayer):
                    e.player.close()
    return wrapper


def _play(a: Entrant, b: Entrant, n_pairs: int, seed: int, backend: Backend, batch: int,
          stop: threading.Event | None, points: list, moves: list, done: int = 0) -> bool:
    """Play pairs ``done .. n_pairs-1`` in batches, appending to ``points``/
    ``moves``; False if stopped (by ``stop`` or KeyboardInterrupt) before the end."""
    while done < n_pairs:
        if stop is not None and stop.is_set():
            return False
        k = min(batch, n_pairs - done)
        try:
            p, m = _play_pairs(backend, a.player, b.player, k, seed, done)
        except KeyboardInterrupt:
            if stop is not None:
                stop.set()
            return False
        points.append(p)
        moves.append(m)
        done += k
    return True


def _cat(arrays: list, dtype) -> np.ndarray:
    return np.concatenate(arrays) if arrays else np.zeros((0, 2), dtype=dtype)


def _backend(threads: int | None, backend: Backend | None) -> Backend:
    """``backend`` if given, else the compiled core's threads on this machine."""
    return backend if backend is not None else LocalBackend(_threads(threads))


def _threads(threads: int | None) -> int:
    t = default_threads() if threads is None else int(threads)
    if t < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    return t


def _check_games(games: int, what: str = "games") -> int:
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 2:
        raise ValueError(f"{what} must be an integer of at least 2 (one game pair), got {games!r}")
    return (int(games) + 1) // 2


def _fmt(ppg: float, ci: float) -> str:
    if math.isnan(ppg):
        return "·"
    return f"{ppg:+.3f}±{ci:.3f}" if math.isfinite(ci) else f"{ppg:+.3f}±inf"


def _num(x: float) -> float | None:
    """JSON-safe float: NaN and inf become null."""
    return float(x) if math.isfinite(x) else None


# ---------------------------------------------------------------- round robin

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
        short = [_short(n, 16) for n in self.names]
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
                cell = "—" if i == j else _fmt(self.ppg[i, j], self.ci95[i, j])
                if 0 < self.games[i, j] < self.games_per_pairing:
                    cell += "*"
                    partial = True
                cells.append(cell)
            out.write(f"{labels[i]:>2}. {short[i]:<{w0 - 4}}" + "".join(f"{c:>{cw}}" for c in cells)
                      + f" {_fmt(avg[i], avg_ci[i]):>{cw}}\n")
        if partial:
            out.write("* pairing stopped early: fewer games than the others\n")
        out.write("\nRanking by mean ppg over all opponents:\n")
        for r, i in enumerate(self.ranking(), 1):
            played = int(sum(self.games[i, j] for j in range(self.n) if j != i))
            out.write(f"{r:>3}. {self.names[i]:<{max(len(n) for n in self.names)}}  "
                      f"{_fmt(avg[i], avg_ci[i])}  ({played} games)\n")
        return out.getvalue()

    def as_dict(self) -> dict:
        avg, avg_ci = self.averages()
        pairs = []
        for (i, j), res in sorted(self.results.items()):
            d = res.as_dict()
            d.update(row=self.names[i], column=self.names[j],
                     seed=self.seeds[(min(i, j), max(i, j))], ci95=_num(res.ci95))
            pairs.append(d)
        return {
            "kind": "roundrobin", "complete": self.complete, "seed": self.seed,
            "games_per_pairing": self.games_per_pairing,
            "players": [{"name": n, "source": s} for n, s in zip(self.names, self.sources)],
            "ppg": [[_num(x) for x in row] for row in self.ppg],
            "ci95": [[_num(x) for x in row] for row in self.ci95],
            "games": self.games.tolist(),
            "mean_ppg": [_num(x) for x in avg], "mean_ci95": [_num(x) for x in avg_ci],
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
            w.writerow([self.names[i], *[_csvnum(self.ppg[i, j]) for j in range(self.n)],
                        _csvnum(avg[i]), _csvnum(avg_ci[i]), rank[i]])
        return out.getvalue()

    def pairs_csv(self) -> str:
        out = io.StringIO()
        cols = ["row", "column", "games", "ppg", "ci95", "win", "win_gammon", "win_backgammon",
                "lose_gammon", "lose_backgammon", "mean_moves", "seed"]
        w = csv.writer(out, lineterminator="\n")
        w.writerow(cols)
        for (i, j), r in sorted(self.results.items()):
            w.writerow([self.names[i], self.names[j], r.games, _csvnum(r.ppg), _csvnum(r.ci95),
                        _csvnum(r.win), _csvnum(r.win_gammon), _csvnum(r.win_backgammon),
                        _csvnum(r.lose_gammon), _csvnum(r.lose_backgammon), _csvnum(r.mean_moves),
                        self.seeds[(min(i, j), max(i, j))]])
        return out.getvalue()

    def heatmap(self, path: str | Path) -> Path:
        """The ppg matrix as a heatmap PNG (needs matplotlib)."""
        Figure, Canvas = _matplotlib()
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
        labels = [_short(s, 22) for s in self.names]
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

    def save(self, out: str | Path, warn: Warn = _stderr) -> list[Path]:
        """Write roundrobin.json, roundrobin_matrix.csv, roundrobin_pairs.csv,
        roundrobin.txt and roundrobin.png into directory ``out``."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        files = [
            _write_text(out / "roundrobin.json", json.dumps(self.as_dict(), indent=2) + "\n"),
            _write_text(out / "roundrobin_matrix.csv", self.matrix_csv()),
            _write_text(out / "roundrobin_pairs.csv", self.pairs_csv()),
            _write_text(out / "roundrobin.txt", self.table()),
        ]
        files += _try_png(lambda: self.heatmap(out / "roundrobin.png"), warn)
        return files


@_closes_gnubg
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
    n_pairs = _check_games(games)
    backend = _backend(threads, backend)
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
            finished = _play(a, b, n_pairs, s, backend, batch_pairs, stop, pts, mvs)
            points, moves = _cat(pts, np.int8), _cat(mvs, np.int32)
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


# ---------------------------------------------------------------- knock-out

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
                "ci95": _num(self.ci95), "wins_a": self.wins_a, "winner": self.winner,
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
        return [_write_text(out / "knockout.json", json.dumps(self.as_dict(), indent=2) + "\n"),
                _write_text(out / "knockout.txt", self.text())]


@_closes_gnubg
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
    cap_pairs = _check_games(max_games, "max_games")
    if margin < 1:
        raise ValueError(f"margin must be at least 1 point, got {margin}")
    if batch_pairs < 1:
        raise ValueError(f"batch_pairs must be at least 1, got {batch_pairs}")
    backend = _backend(threads, backend)
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
            pts, _ = _play_pairs(backend, a.player, b.player, k, m.seed, done)
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
        m.ci95 = (1.96 * float(pairs.std(ddof=1)) / math.sqrt(len(pairs)) if len(pairs) > 1
                  else math.inf)
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


# ---------------------------------------------------------------- self against older self

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
                      f"{_fmt(r['ppg'], r['ci95'] if r['ci95'] is not None else math.inf):>15}  "
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
                        r["age"], r["age_unit"], r["games"], _csvnum(r["ppg"]),
                        _csvnum(r["ci95"] if r["ci95"] is not None else math.nan),
                        _csvnum(r["win"]), _csvnum(r["win_gammon"]), _csvnum(r["lose_gammon"]),
                        r["seed"]])
        return out.getvalue()

    def plot(self, path: str | Path) -> Path:
        """ppg of the latest network against the age of its opponent (PNG)."""
        Figure, Canvas = _matplotlib()
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

    def save(self, out: str | Path, warn: Warn = _stderr) -> list[Path]:
        """Write older.json, older.csv, older.txt and older.png into directory ``out``."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        files = [_write_text(out / "older.json", json.dumps(self.as_dict(), indent=2) + "\n"),
                 _write_text(out / "older.csv", self.csv_text()),
                 _write_text(out / "older.txt", self.text())]
        if self.rows:
            files += _try_png(lambda: self.plot(out / "older.png"), warn)
        return files


def history(source: str | Path, warn: Warn = _stderr,
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
        latest = _load_net_entrant(rd.network)
        latest.name = "network"
        nets.extend(_run_snapshots(source, latest, warn, skipped))
        if rd.best.exists():
            try:
                nets.append(_load_net_entrant(rd.best))
            except ValueError as exc:
                _skip(rd.best, exc, warn, skipped)
        if rd.snapshots.is_dir():
            nets.extend(load_network_folder(rd.snapshots, warn, skipped))
    else:
        nets = load_network_folder(source, warn, skipped)
    everyone = nets + ([latest] if latest is not None else [])
    if all(e.games_trained is not None for e in everyone):
        nets.sort(key=lambda e: (e.games_trained, _natural_key(Path(e.source).name)))
        unit = "games"
    else:
        nets.sort(key=lambda e: _natural_key(Path(e.source).name))
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
        _skip(path, ValueError(f"unreadable snapshots ({type(exc).__name__}: {exc})"), warn,
              skipped)
        return []
    return out


def older_self(source: str | Path, games: int, every: int = 1, seed: int = 0,
               threads: int | None = None, batch_pairs: int = ROUND_ROBIN_BATCH,
               stop: threading.Event | None = None, warn: Warn = _stderr,
               max_opponents: int | None = None, backend: Backend | None = None,
               on_row: Callable[[OlderSelf], None] | None = None) -> OlderSelf:
    """The newest network of ``source`` (see :func:`history`) against every
    ``every``-th older one, counting back from the newest (the one ``every``
    before it, ``2*every`` before it, ...), ``games`` games each, with seed
    ``derive_seed(seed, "older", latest, opponent)``.  ``max_opponents``
    keeps only the nearest that many."""
    if every < 1:
        raise ValueError(f"every must be at least 1, got {every}")
    n_pairs = _check_games(games)
    backend = _backend(threads, backend)
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
        finished = _play(latest, e, n_pairs, s, backend, batch_pairs, stop, pts, mvs)
        points, moves = _cat(pts, np.int8), _cat(mvs, np.int32)
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
                             "ci95": _num(r.ci95), "win": r.win, "win_gammon": r.win_gammon,
                             "lose_gammon": r.lose_gammon, "seed": s})
            if on_row is not None:
                on_row(res)
        if not finished:
            res.complete = False
            break
    return res


# ---------------------------------------------------------------- files

def _short(name: str, width: int) -> str:
    return name if len(name) <= width else "…" + name[-(width - 1):]


def _csvnum(x: float) -> str:
    return "" if x is None or not math.isfinite(x) else f"{x:.6f}"


def _write_text(path: Path, text: str) -> Path:
    atomic_write(path, lambda f: f.write(text.encode("utf-8")))
    return path


def _matplotlib():
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ValueError("plotting needs matplotlib: pip install 'bgengine[plot]'") from None
    return Figure, FigureCanvasAgg


def _try_png(draw: Callable[[], Path], warn: Warn) -> list[Path]:
    try:
        return [draw()]
    except ValueError as exc:  # no matplotlib: the other files still count
        warn(f"warning: no PNG: {exc}")
        return []
