"""Parameter sweeps and the sources' comparison of learning methods.

A sweep trains every point of a grid of :class:`bgengine.training.trainer.TrainConfig`
settings with several seeds, each an ordinary resumable run in
``OUT/<point>/seed_<s>``, then plays each final network against pubeval
(``eval_games`` games, the same dice for every run) and tabulates ppg per
point: the mean over seeds with a 95% interval from their spread.  The sweep
file (TOML)::

    [sweep]
    seeds = [1, 2, 3]          # one run per seed and point
    eval_games = 2000          # final evaluation of every run against pubeval

    [base]                     # TrainConfig settings shared by every run
    games = 20000
    checkpoint_every = 1000
    eval_every = 10000

    [grid]                     # every combination of these is a point
    hidden = [[40], [80]]
    lam = [0.0, 0.7]

Another game's sweep has ``game`` in ``[base]``; its plug-in (:mod:`bgengine.other_games`)
says what its runs are. For the small games (:mod:`bgengine.games.study`) they are
``GameRunConfig`` settings, and each final network plays
``eval_games`` greedy games from both seats against every one of the config's
``eval_opponents``; a run's ``ppg`` is then its mean of win - loss (+1 a win, 0 a draw, -1 a
loss) over those opponents and seats, and the table gives each opponent's win/draw/loss rates
per seat too (means over seeds)::

    [sweep]
    seeds = [1, 2, 3]
    eval_games = 1000

    [base]
    game = "tictactoe"
    method = "q"
    opponent = "smart"
    games = 30000
    eval_opponents = ["random", "primitive", "smart"]

    [grid]
    alpha = [0.1, 0.3]
    epsilon = [0.1, 0.2]

Runs go to the backend (:mod:`bgengine.matches.distributed`): on this machine several
at a time (one thread each; the compiled learner releases the GIL), or as Ray
tasks.  Running the same sweep again resumes unfinished runs and reuses
finished ones.

:func:`compare_methods` is the sources' experiment, scaled down: TD(lambda),
backpropagation to the result and mutation hill-climbing train the same
network shape for the same number of games; then a round robin with random,
Simple_003 and pubeval gives the ppg matrix, and the learning curves are drawn.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
import sys
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from bgengine._checks import game_pairs, is_int
from bgengine.core.fileio import MAX_TEXT_BYTES, read_regular
from bgengine.interrupts import stop_on_interrupt
from bgengine.matches.players import load_network
from bgengine.matches.results import ci95
from bgengine.training.run_dir import RunDir
from bgengine.training.trainer import TrainConfig
from bgengine.types import Progress

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["SweepKind", "BACKGAMMON", "SweepSpec", "run_sweep", "sweep_table", "compare_methods",
           "opponent_rates"]

log = logging.getLogger(__name__)

#: Dice seed of the final evaluations (every run meets the same dice).
EVAL_SEED = 777


@dataclass(frozen=True)
class SweepKind:
    """What a sweep needs of one kind of run: backgammon's (:data:`BACKGAMMON`) or another
    game's (its plug-in's, :func:`bgengine.other_games.sweep_kind`).

    ``config_class`` is the runs' settings dataclass (built from ``[base]`` and the grid
    point, with ``seed``); ``train_and_evaluate(job, stop, report)``, a module-level function
    (a backend may send it to other machines), trains or resumes the run of ``job`` =
    ``(run directory, settings as a dict, eval_games)`` and returns its row: ``run``,
    ``complete``, ``games_trained`` and when complete ``ppg`` (the point's figure, higher is
    better) and ``games``, and optionally ``evaluations`` (win/draw/loss rates by opponent
    and seat, tabulated by :func:`opponent_rates`). ``measure`` names the figure.
    """

    name: str
    config_class: type
    train_and_evaluate: Callable[..., dict]
    measure: str


@dataclass
class SweepSpec:
    """A grid of training settings (see the module docstring)."""

    base: dict[str, Any]
    grid: dict[str, list]
    seeds: list[int]
    eval_games: int = 2000

    @property
    def game(self) -> str | None:
        """The other game of the sweep (``[base] game``), or None for backgammon."""
        return self.base.get("game")

    @property
    def kind(self) -> SweepKind:
        """The runs' kind: backgammon's, or the plug-in's of ``[base] game``."""
        return BACKGAMMON if self.game is None else _kind_of(self.game)

    @property
    def config_class(self) -> type:
        """The runs' settings: backgammon's TrainConfig, or the other game's."""
        return self.kind.config_class

    def __post_init__(self) -> None:
        if not self.seeds or len(set(self.seeds)) != len(self.seeds):
            raise ValueError(f"sweep: seeds must be a non-empty list of distinct integers, got {self.seeds}")
        if self.eval_games < 2:
            raise ValueError(f"sweep: eval_games must be at least 2, got {self.eval_games}")
        if "game" in self.grid:
            raise ValueError("sweep: the game is one for the whole sweep: give it in [base]")
        known = {f.name for f in dataclasses.fields(self.config_class)}
        for key, values in self.grid.items():
            if key not in known or key == "seed":
                raise ValueError(f"sweep: cannot vary {key!r}; known settings: {', '.join(sorted(known - {'seed'}))}")
            if not isinstance(values, list) or not values:
                raise ValueError(f"sweep: grid.{key} must be a non-empty list, got {values!r}")
        if "seed" in self.base:
            raise ValueError("sweep: give seeds under [sweep] seeds, not base.seed")
        for cfg in self.configs():          # every run's settings are checked up front
            pass

    @classmethod
    def from_toml(cls, path: str | Path) -> SweepSpec:
        try:
            doc = tomllib.loads(read_regular(path, "sweep file", MAX_TEXT_BYTES).decode("utf-8"))
        except OSError as exc:
            raise ValueError(f"{path}: cannot read the sweep file "
                             f"({exc.strerror or type(exc).__name__})") from None
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"{path}: not valid TOML ({exc})") from None
        unknown = set(doc) - {"sweep", "base", "grid"}
        if unknown:
            raise ValueError(f"{path}: unknown section(s) {', '.join(sorted(unknown))}; use [sweep], [base], [grid]")
        s = doc.get("sweep", {})
        bad = set(s) - {"seeds", "eval_games"}
        if bad:
            raise ValueError(f"{path}: unknown [sweep] key(s) {', '.join(sorted(bad))}")
        return cls(base=dict(doc.get("base", {})), grid=dict(doc.get("grid", {})),
                   seeds=list(s.get("seeds", [1])), eval_games=int(s.get("eval_games", 2000)))

    def points(self) -> list[dict[str, Any]]:
        keys = list(self.grid)
        return [dict(zip(keys, combo)) for combo in itertools.product(*(self.grid[k] for k in keys))]

    def configs(self) -> list[tuple[str, int, Any]]:
        """(point name, seed, config) for every run."""
        out = []
        for point in self.points():
            for seed in self.seeds:
                try:
                    cfg = self.config_class(**{**self.base, **point, "seed": seed})
                except (TypeError, ValueError) as exc:
                    raise ValueError(f"sweep point {point_name(point)}: {exc}") from None
                out.append((point_name(point), seed, cfg))
        return out


def point_name(point: dict[str, Any]) -> str:
    """A directory-safe name for a grid point, e.g. ``hidden=40_lam=0.7``."""
    def fmt(v):
        if isinstance(v, list):
            return "-".join(map(str, v))
        return str(v)
    return "_".join(f"{k}={fmt(v)}" for k, v in point.items()) or "base"


def _train_and_evaluate(job: tuple[str, dict, int], stop=None, report=None) -> dict:
    """One run (a backend job): train or resume, then play pubeval.  With
    ``stop`` set the run stops early and is reported ``complete: False``;
    ``report`` is the run's ``train`` progress callback (none by default)."""
    from bgengine.core.agents import Player
    from bgengine.matches.run import run_match
    from bgengine.training.trainer import train

    run, cfg_dict, eval_games = job
    if "game" in cfg_dict:
        return _kind_of(cfg_dict["game"]).train_and_evaluate(job, stop, report)
    cfg = TrainConfig(**cfg_dict)
    if stop is not None and stop.is_set():
        return {"run": str(run), "complete": False, "games_trained": None}
    log.info("%s: training %d games (%s)", run, cfg.games, cfg.method)
    net = train(cfg, run, progress=report or False, stop=stop)
    done = net.metadata["training"]["games"]
    if done < cfg.games:
        return {"run": str(run), "complete": False, "games_trained": done}
    res = run_match(Player("net", net, name=Path(run).name), Player("pubeval"), eval_games,
                    seed=EVAL_SEED, threads=1)
    log.info("%s: %+.3f ± %.3f ppg vs pubeval over %d games", run, res.ppg, res.ci95, res.games)
    return {"run": str(run), "complete": True, "games_trained": done, "ppg": res.ppg,
            "ci95": res.ci95, "win": res.win, "games": res.games}


#: Backgammon's runs: TrainConfig settings, each final network against pubeval.
BACKGAMMON = SweepKind("backgammon", TrainConfig, _train_and_evaluate, "ppg vs pubeval")


def _kind_of(game: str) -> SweepKind:
    from bgengine.other_games import sweep_kind

    return sweep_kind(game)


def opponent_rates(rows: list[dict]) -> dict[str, dict[str, dict[str, float]]]:
    """A point's win/draw/loss rates by evaluation opponent and seat, the mean over its runs
    ``rows`` (their ``evaluations``: records of ``opponent``, ``seat``, ``win``, ``draw``,
    ``loss``)."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for r in rows:
        for e in r["evaluations"]:
            cell = out.setdefault(e["opponent"], {}).setdefault(e["seat"],
                                                                {"win": 0.0, "draw": 0.0,
                                                                 "loss": 0.0})
            for k in cell:
                cell[k] += e[k] / len(rows)
    return out


def _games_reporter(jobs: list, progress: Progress | None):
    """A ``train`` progress callback for every job that adds up their games into
    ``progress(done, total)`` (called from the jobs' threads, one at a time); None
    without ``progress``."""
    if progress is None:
        return None
    total = sum(cfg["games"] for _, cfg, _ in jobs)
    done: dict[str, int] = {}
    lock = threading.Lock()

    def report(p) -> None:
        with lock:
            done[p.run] = p.games
            progress(sum(done.values()), total)
    return report


def _map(backend, jobs: list, parallel: int, progress: Progress | None = None) -> list:
    """Run the jobs; on this machine Ctrl-C stops every run after its current
    chunk (saved, resumable) and the jobs come back incomplete.  ``progress(games
    trained, games of all runs)`` after each chunk of any run (on this machine only)."""
    from bgengine.matches.distributed import LocalBackend

    if backend is None or isinstance(backend, LocalBackend):
        workers = parallel if backend is None else backend.threads
        report = _games_reporter(jobs, progress)
        with stop_on_interrupt() as stop:
            with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
                futures = [pool.submit(_train_and_evaluate, job, stop, report) for job in jobs]
                pending = set(futures)
                while pending:      # wake up now and then, so that Ctrl-C is handled promptly
                    _, pending = wait(pending, timeout=0.2)
                return [f.result() for f in futures]
    return backend.map(_train_and_evaluate, jobs)


def run_sweep(spec: SweepSpec, out: str | Path, backend=None, parallel: int = 1,
              progress: Progress | None = None) -> dict:
    """Train and evaluate every run of ``spec`` under ``out``; the table as a dict.

    ``backend``: a :class:`bgengine.matches.distributed.Backend` (``LocalBackend(n)``
    runs ``n`` at a time), or None for ``parallel`` runs at a time here.
    ``progress(games trained, games of all runs)``: see :func:`_map`.
    Writes ``out/sweep.json`` and ``out/sweep.csv``.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    runs = spec.configs()
    jobs = [(str(out / name / f"seed_{seed}"), dataclasses.asdict(cfg), spec.eval_games)
            for name, seed, cfg in runs]
    results = _map(backend, jobs, parallel, progress)
    table = []
    for point in spec.points():
        name = point_name(point)
        rows = [r for (n, _, _), r in zip(runs, results) if n == name and r["complete"]]
        if not rows:
            continue
        ppgs = np.array([r["ppg"] for r in rows])
        row = {"point": name, **{k: point[k] for k in point}, "seeds": len(rows),
               "ppg_mean": float(ppgs.mean()),
               "ppg_ci95": ci95(ppgs) if len(ppgs) > 1 else None,
               "ppg_runs": [float(p) for p in ppgs]}
        if all("evaluations" in r for r in rows):
            row["opponents"] = opponent_rates(rows)
        table.append(row)
    complete = all(r["complete"] for r in results)
    doc = {"complete": complete, "game": spec.game or "backgammon", "measure": spec.kind.measure,
           "eval_games": spec.eval_games, "eval_seed": EVAL_SEED,
           "base": spec.base, "grid": spec.grid, "seeds": spec.seeds, "points": table,
           "runs": results}
    (out / "sweep.json").write_text(json.dumps(doc, indent=2) + "\n")
    rated = [(o, seat) for o, seats in (table[0].get("opponents", {}) if table else {}).items()
             for seat in seats]
    lines = ["point,seeds,ppg_mean,ppg_ci95,ppg_per_seed" +
             "".join(f",{o}_{seat}_{k}" for o, seat in rated for k in ("win", "draw", "loss"))]
    for row in table:
        ci = "" if row["ppg_ci95"] is None else f"{row['ppg_ci95']:.4f}"
        lines.append(f"{row['point']},{row['seeds']},{row['ppg_mean']:.4f},{ci}," +
                     " ".join(f"{p:.4f}" for p in row["ppg_runs"]) +
                     "".join(f",{row['opponents'][o][seat][k]:.4f}" for o, seat in rated
                             for k in ("win", "draw", "loss")))
    (out / "sweep.csv").write_text("\n".join(lines) + "\n")
    return doc


def sweep_table(doc: dict) -> str:
    """The sweep's points as a text table, best first; where the runs were evaluated against
    several opponents, also each one's win-draw-loss percentages as first / second player."""
    rows = sorted(doc["points"], key=lambda r: -r["ppg_mean"])
    width = max([len(r["point"]) for r in rows] + [5])
    against = doc.get("measure", BACKGAMMON.measure)
    opponents = list(rows[0].get("opponents", {})) if rows else []
    out = [f"{'point':<{width}}  {against} (mean over seeds ± 95%)   per seed"
           + "".join(f" | {o} (W-D-L % 1st / 2nd)" for o in opponents)]
    for r in rows:
        ci = "" if r["ppg_ci95"] is None else f" ± {r['ppg_ci95']:.3f}"
        out.append(f"{r['point']:<{width}}  {r['ppg_mean']:+.3f}{ci:<10}                   "
                   + " ".join(f"{p:+.3f}" for p in r["ppg_runs"])
                   + "".join(f" | {wdl(r['opponents'][o])}" for o in opponents))
    return "\n".join(out) + "\n"


def wdl(seats: dict[str, dict[str, float]]) -> str:
    """``"94-5-1 / 79-18-3"``: win-draw-loss percentages as first / second player."""
    return " / ".join("-".join(f"{100 * seats[seat][k]:.0f}" for k in ("win", "draw", "loss"))
                      for seat in ("first", "second") if seat in seats)


# ---------------------------------------------------------------- the sources' comparison

#: Published ppg against pubeval of the sources' three methods (198-40-4, ~600k games).
PUBLISHED = {"td": 0.26, "backprop": -0.18, "mutation": -0.91}


def compare_methods(out: str | Path, games: int = 100_000, *, hidden: int = 40, outputs: int = 4,
                    encoder: str = "tesauro198", seed: int = 1, eval_every: int | None = None,
                    eval_games: int = 1000, rr_games: int = 10_000, alpha_td: float = 0.1,
                    alpha_backprop: float = 0.01, backend=None, parallel: int = 3,
                    progress: Progress | None = None) -> dict:
    """TD(0.7), backpropagation and mutation hill-climbing, ``games`` games each, then a
    round robin with random, simple3 and pubeval (``rr_games`` games per pairing).

    Constant step sizes: ``alpha_td`` for TD, ``alpha_backprop`` for backprop
    (which takes ~60 steps toward the same target per game: at 0.1 it stalls
    near -1.0 ppg against pubeval, at 0.01 it learns); mutation has none.

    Writes ``out/<method>/`` (runs), ``out/roundrobin.*`` (matrix, heatmap) and
    ``out/learning_curves.png``; returns a summary dict (also ``out/compare.json``).
    ``progress(games trained, games of all three runs)`` while they train.
    """
    from bgengine.core.agents import Player
    from bgengine.core.network import Network
    from bgengine.matches.tournament import Entrant, round_robin

    if not is_int(games) or games < 4 or games % 4:
        raise ValueError(f"games must be a positive multiple of 4 (mutation generations), got {games}")
    game_pairs(rr_games, "rr_games")            # before the training, not after it
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    checkpoint = max(4, min(1000, games // 10) // 4 * 4)
    while games % checkpoint:
        checkpoint -= 4
    every = eval_every or checkpoint * max(1, games // 10 // checkpoint)
    common = dict(hidden=[hidden], outputs=outputs, encoder=encoder, games=games, seed=seed,
                  checkpoint_every=checkpoint, eval_every=every, eval_games=eval_games, threads=1,
                  schedule="constant", snapshot_every=0)
    configs = {"td": TrainConfig(**common, method="td", lam=0.7, alpha=alpha_td),
               "backprop": TrainConfig(**common, method="backprop", alpha=alpha_backprop),
               "mutation": TrainConfig(**common, method="mutation")}
    jobs = [(str(out / m), dataclasses.asdict(c), eval_games) for m, c in configs.items()]
    finals = dict(zip(configs, _map(backend, jobs, parallel, progress)))
    if not all(f["complete"] for f in finals.values()):
        summary = {"complete": False, "games": games, "runs": finals}
        (out / "compare.json").write_text(json.dumps(summary, indent=2) + "\n")
        return summary
    entrants = [Entrant(m, Player("net", load_network(RunDir(out / m).network), name=m),
                        str(RunDir(out / m).network)) for m in configs]
    entrants += [Entrant(n, Player(n), n) for n in ("random", "simple3", "pubeval")]
    rr = round_robin(entrants, rr_games, seed=seed, backend=backend)
    files = rr.save(out)
    try:
        from bgengine.training.plot import plot_run

        files.append(plot_run([out / m for m in configs], out / "learning_curves.png"))
    except ValueError as exc:       # no matplotlib
        log.warning("%s", exc)
    idx = rr.names.index("pubeval")
    summary = {"complete": True, "games": games, "network": f"{Network(hidden=(hidden,), n_outputs=outputs, encoder=encoder)!r}",
               "vs_pubeval": {m: {"ppg": float(rr.ppg[rr.names.index(m), idx]),
                                  "ci95": float(rr.ci95[rr.names.index(m), idx]),
                                  "published": PUBLISHED[m],
                                  "train_eval_ppg": finals[m]["ppg"]} for m in configs},
               "matrix": rr.as_dict(), "table": rr.table(), "files": [str(f) for f in files]}
    (out / "compare.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary
