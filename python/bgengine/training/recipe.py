"""A recipe: the phases after self-play that make an evaluator accurate, run in order,
resumable, from one TOML file (``configs/default.toml``: every step of the shipped one).

A recipe file lists ``[[phase]]`` tables after an optional ``[train]`` table (self-play,
:class:`bgengine.training.config.TrainConfig`) and an optional ``[recipe]`` table::

    [recipe]
    start = "net"            # the evaluator the phases start from (default: the run's
                             # self-play network when [train] is given, else the shipped one)

    [[phase]]
    kind = "sample"          # self-play positions into a pool
    games = 20000
    seed = 1

    [[phase]]
    kind = "label"           # rollouts of the last pool into a store
    name = "labels"
    store = "labels/train"   # relative to the run directory
    trials = 648

    [[phase]]
    kind = "fit"             # the networks fitted to the labels
    stores = ["labels"]      # the label phase's store
    only = ["contact"]
    teach_around = 2

Kinds: ``sample`` (:func:`bgengine.labelling.sampling.build_pool`), ``label``
(:func:`bgengine.labelling.labeller.label_pool`), ``widen`` (the race or contact networks,
:func:`bgengine.training.growth.widen`), ``fit`` (:func:`bgengine.labelling.fit.fit_from_stores`),
``cube-fit`` (:func:`bgengine.labelling.cubes.with_fitted_efficiency`), ``race-fit`` (the
race distribution network: sides of the races of ``pools`` solved exactly, by the phase's
own settings or once per table of its ``solve`` list, with ``data`` files of sides solved before, :mod:`bgengine.labelling.race_distributions`), ``distill`` (a round
of play-ranking distillation: the player's self-play valued by its own search,
:func:`bgengine.training.distillation.collect`, in chunks of ``chunk_games`` (chunk ``k``
seeded ``seed + k``), with the data of the distill phases named in ``reuse``; one fit a
seed of ``fit_seeds``, :func:`~bgengine.training.distillation.fit`, and with more than one
the start moved ``share`` of the way toward their mean,
:func:`~bgengine.training.distillation.blend`; ``sample`` > 0 samples the last ply's
values and ``mean_lower`` fits to the mean of those and the exact values a ply less;
``experts``: a spec such as ``"stage:250,lead:-25/0/25"`` splits the contact network into
experts) and ``calibrate`` (the outputs Platt-scaled to the results of ``games`` games of
self-play, :func:`bgengine.training.outcomes.calibrate_evaluator`, in chunks; ``outputs``:
the outputs calibrated, default all).  Each phase works
in ``RUN/phases/NAME/`` (``NAME`` defaults to its number and kind, e.g. ``02-label``) and ends
by writing ``done.json`` there; a recipe run again skips the phases done (with the same
settings: others are an error) and resumes the one under way (labelling by its store's
shards, a fit's search by its cache in ``RUN/search-cache``).  The phases that make an
evaluator (``widen``, ``fit``, ``cube-fit``) write ``evaluator.npz``, and each later phase
starts from the last one; the recipe's result is copied to ``RUN/evaluator.npz``.

A label phase labels the last pool, or its ``pool`` (a name or path, or a list of them:
their positions in one pool, met once), only the positions of ``classes`` when given.

Paths: a label phase's ``store`` is relative to the run directory; the inputs (``pool``,
``stores``, ``teach_pools``, ``exclude``: the name of an earlier phase, or a path; ``set``: a
path) are as given, relative to the working directory.  ``player``: ``current`` (the
evaluator so far), ``start`` (the one the recipe started from; a label phase's default, so
that one store is labelled by one evaluator) or a network spec.  A sample phase leaves out
the positions of the pools sampled before it.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from bgengine.core.fileio import atomic_write, read_regular

__all__ = ["Phase", "Recipe", "PHASE_KINDS", "load_recipe", "run_recipe", "evaluator_path"]

log = logging.getLogger(__name__)

_MAX_RECIPE_BYTES = 1 << 20

#: Each kind's settings and their defaults (``REQUIRED``: no default).
REQUIRED = object()
_SETTINGS: dict[str, dict[str, Any]] = {
    "sample": {"games": REQUIRED, "seed": 0, "keep": 0.15, "alternatives": 0.0,
               "per_class": None, "first_game": 0, "player": "current", "exclude": []},
    "label": {"store": REQUIRED, "pool": "", "classes": [], "trials": 648, "plies": 0,
              "truncate": 0, "variance_reduction": False, "truncate_bearoff": False, "seed": 0,
              "shard_size": 500, "player": "start"},
    "widen": {"race": [], "contact": [], "fresh": True, "noise": 0.01, "seed": 0},
    "fit": {"stores": REQUIRED, "only": [], "teach_pools": [], "prefer": "precise",
            "player": "current"},
    "cube-fit": {"set": REQUIRED, "plies": 0},
    "race-fit": {"pools": [], "data": [], "min_outside": 2, "max_outside": 6, "sides": 1000,
                 "keep": 0.03, "seed": 0, "solve": [], "hidden": 256, "epochs": 100,
                 "patience": 6, "exact_outside": None},
    "distill": {"games": REQUIRED, "chunk_games": 2000, "seed": 0, "every": 3, "top": 3,
                "plies": 2, "sample": 0, "mean_lower": False, "class": "contact",
                "reuse": [], "fit_seeds": [0], "share": 0.5, "lr": 3e-4, "lr_end": None,
                "epochs": 12, "pairwise": 32.0, "anchor": 0.0, "experts": "",
                "race_gammons": None, "player": "current"},
    "calibrate": {"games": REQUIRED, "chunk_games": 5000, "seed": 0,
                  "classes": ["contact", "race"], "outputs": [], "player": "current"},
}
#: The kinds of phase.
PHASE_KINDS = tuple(_SETTINGS)
#: The settings of one solve of a race-fit (its own, or each table of its ``solve`` list).
_SOLVE_KEYS = ("min_outside", "max_outside", "sides", "keep", "seed")


def _fit_fields() -> dict[str, Any]:
    from bgengine.labelling.fit import FitConfig
    return {f.name: f.default for f in fields(FitConfig)}


@dataclass(frozen=True)
class Phase:
    """One phase of a recipe: its ``kind``, ``name`` (its folder) and ``settings`` (every
    setting of its kind, defaults filled in)."""

    kind: str
    name: str
    settings: dict[str, Any]


@dataclass(frozen=True)
class Recipe:
    """The phases of a recipe file, the evaluator they start from (``start``: a network
    spec; ``None``: the run's self-play network, else the shipped one) and the self-play
    settings (``train``: the ``[train]`` table, or ``None``)."""

    phases: tuple[Phase, ...]
    start: str | None = None
    train: dict[str, Any] | None = None


def _phase(index: int, table: Any) -> Phase:
    where = f"phase {index + 1}"
    if not isinstance(table, dict):
        raise ValueError(f"{where}: a [[phase]] table is expected")
    kind = table.get("kind")
    if kind not in _SETTINGS:
        raise ValueError(f"{where}: kind must be one of {', '.join(PHASE_KINDS)}, got {kind!r}")
    name = table.get("name", f"{index + 1:02d}-{kind}")
    if not isinstance(name, str) or not name or "/" in name or name.startswith("."):
        raise ValueError(f"{where}: name must be a folder name, got {name!r}")
    allowed = dict(_SETTINGS[kind])
    if kind == "fit":
        allowed.update(_fit_fields())
    unknown = set(table) - set(allowed) - {"kind", "name"}
    if unknown:
        raise ValueError(f"{where} ({kind}): unknown settings {sorted(unknown)}; known: "
                         f"{', '.join(sorted(allowed))}")
    settings = {}
    for key, default in allowed.items():
        if key not in table and default is REQUIRED:
            raise ValueError(f"{where} ({kind}): {key} is required")
        settings[key] = table.get(key, default)
    if kind == "race-fit":
        _check_solves(settings["solve"], f"{where} (race-fit)")
    if kind == "distill" and settings["experts"] and len(settings["fit_seeds"]) != 1:
        raise ValueError(f"{where} (distill): splitting the contact network into experts "
                         f"takes one fit (fit_seeds of one seed)")
    return Phase(kind, name, settings)


def _check_solves(solves: Any, where: str) -> None:
    """A race-fit's ``solve``: a list of tables of SolveConfig's settings, one a solve."""
    if not isinstance(solves, list) or not all(isinstance(t, dict) for t in solves):
        raise ValueError(f"{where}: solve must be a list of tables, got {solves!r}")
    for t in solves:
        unknown = set(t) - set(_SOLVE_KEYS)
        if unknown:
            raise ValueError(f"{where}: unknown solve settings {sorted(unknown)}; known: "
                             f"{', '.join(_SOLVE_KEYS)}")


def load_recipe(path: str | os.PathLike[str]) -> Recipe | None:
    """The recipe of a TOML file; ``None`` when it has no ``[[phase]]`` tables (a plain
    training config) or cannot be read as TOML.  Every problem of a recipe is a
    ``ValueError`` naming ``path``."""
    import tomllib

    try:
        data = tomllib.loads(read_regular(path, "recipe", _MAX_RECIPE_BYTES).decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None         # not a recipe: the training config's reader says what is wrong
    tables = data.get("phase")
    if tables is None:
        return None
    try:
        if not isinstance(tables, list) or not tables:
            raise ValueError("phase must be a list of [[phase]] tables")
        phases = tuple(_phase(i, t) for i, t in enumerate(tables))
        names = [p.name for p in phases]
        if len(set(names)) != len(names):
            raise ValueError(f"phase names must differ, got {names}")
        head = data.get("recipe", {})
        if not isinstance(head, dict) or set(head) - {"start"}:
            raise ValueError("[recipe] takes one setting, start")
        start = head.get("start")
        if start is not None and not isinstance(start, str):
            raise ValueError(f"[recipe] start must be a network spec, got {start!r}")
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    train = data.get("train")
    extra = set(data) - {"phase", "recipe", "train"}
    if extra:
        raise ValueError(f"{path}: unknown tables or keys {sorted(extra)} (a recipe has "
                         f"[train], [recipe] and [[phase]])")
    return Recipe(phases, start, train)


# ---------------------------------------------------------------- running

def run_recipe(run: str | os.PathLike[str], recipe: Recipe, *, start: str,
               n_threads: int = 1, progress: Callable[[str], None] | None = None) -> Path:
    """Run the phases of ``recipe`` in the run directory ``run`` (see the module
    docstring), from the evaluator file or spec ``start``; returns ``RUN/evaluator.npz``."""
    run = Path(run)
    say = progress or (lambda line: log.info(line))
    start_file = evaluator_path(start)
    current = start_file
    pools: dict[str, Path] = {}           # sample phases' pools by phase name
    stores: dict[str, Path] = {}          # label phases' stores by phase name
    for phase in recipe.phases:
        folder = run / "phases" / phase.name
        done_file = folder / "done.json"
        record = {"kind": phase.kind, "settings": phase.settings, "start": str(current)}
        if done_file.is_file():
            done = json.loads(read_regular(done_file, "phase record").decode("utf-8"))
            if {k: done.get(k) for k in record} != json.loads(json.dumps(record)):
                raise ValueError(f"{done_file}: phase {phase.name} was done with other settings "
                                 f"or from another evaluator; delete {folder} to redo it")
            say(f"{phase.name}: done already")
        else:
            folder.mkdir(parents=True, exist_ok=True)
            began = time.time()
            out = _RUNNERS[phase.kind](phase, folder, run, current, start_file, pools, stores,
                                       n_threads, say)
            record.update(output=str(out), seconds=round(time.time() - began, 1))
            atomic_write(done_file, lambda f: f.write(json.dumps(record, indent=1).encode()))
            say(f"{phase.name}: done in {record['seconds']:.0f} s, {out}")
        output = Path(json.loads(read_regular(done_file, "phase record"))["output"])
        if phase.kind == "sample":
            pools[phase.name] = output
        elif phase.kind == "label":
            stores[phase.name] = output
        else:
            current = output
    final = run / "evaluator.npz"
    shutil.copyfile(current, final)
    return final


def evaluator_path(spec: str) -> Path:
    """The file of the evaluator a network spec names (``net``: the shipped one)."""
    from bgengine.matches.players import NETWORK_SPEC_HELP, default_network_path, network_file

    if spec.strip() == "net":
        return default_network_path()
    path = network_file(spec)
    if path is None:
        raise ValueError(f"{spec!r} is not a network; expected {NETWORK_SPEC_HELP}")
    return path


def _player(value: str, current: Path, start: Path) -> Path:
    return {"current": current, "start": start}.get(value) or evaluator_path(value)


def _sample(phase, folder, run, current, start, pools, stores, n_threads, say) -> Path:
    from bgengine.labelling.sampling import SamplingConfig, build_pool
    from bgengine.labelling.store import file_sha256
    from bgengine.core.evaluator import load_evaluator

    s = phase.settings
    player = _player(s["player"], current, start)
    config = SamplingConfig(games=s["games"], seed=s["seed"], keep=s["keep"],
                            alternatives=s["alternatives"])
    exclude = list(pools.values()) + [pools.get(e) or stores.get(e) or Path(e)
                                      for e in s["exclude"]]
    out = folder / "pool.npz"
    counts = build_pool(out, load_evaluator(player), config, player=str(player),
                        evaluator_sha256=file_sha256(player), exclude=exclude,
                        per_class=s["per_class"], first_game=s["first_game"])
    say(f"{phase.name}: {sum(counts.values())} positions {json.dumps(counts)}")
    return out


def _label(phase, folder, run, current, start, pools, stores, n_threads, say) -> Path:
    from bgengine.labelling.labeller import label_pool
    from bgengine.labelling.store import LabelSettings, LabelStore, file_sha256, load_pool
    from bgengine.core.evaluator import load_evaluator

    s = phase.settings
    names = [s["pool"]] if isinstance(s["pool"], str) else list(s["pool"])
    names = [n for n in names if n]
    if not names and not pools:
        raise ValueError(f"phase {phase.name}: no pool (no sample phase before it; set pool)")
    paths = [pools.get(n) or Path(n) for n in names] or [list(pools.values())[-1]]
    pool = _selected_pool(folder, [load_pool(p) for p in paths], s["classes"], phase.name) \
        if len(paths) > 1 or s["classes"] else load_pool(paths[0])
    settings = LabelSettings(trials=s["trials"], plies=s["plies"], truncate=s["truncate"],
                             variance_reduction=s["variance_reduction"], seed=s["seed"],
                             shard_size=s["shard_size"],
                             truncate_bearoff=s["truncate_bearoff"])
    player = _player(s["player"], current, start)
    path = Path(s["store"]) if Path(s["store"]).is_absolute() else run / s["store"]
    store = LabelStore(path, settings, file_sha256(player))
    done = label_pool(store, pool, load_evaluator(player),
                      n_threads=n_threads)
    say(f"{phase.name}: {done.positions} positions labelled "
        f"({done.positions_per_hour:.0f} an hour), the store {len(store)}")
    return path


def _selected_pool(folder: Path, parts: list, classes: list[str], name: str):
    """The positions of the pools ``parts`` of ``classes`` (all when empty), in order,
    those met before left out, as the pool ``folder/pool.npz`` (made once)."""
    from bgengine.labelling.store import load_pool, select_pool

    out = folder / "pool.npz"
    if out.is_file():               # made before this phase was cut short: the same pool
        return load_pool(out)
    try:
        return select_pool(out, parts, classes)
    except ValueError as exc:
        raise ValueError(f"phase {name}: {exc}") from None


def _widen(phase, folder, run, current, start, pools, stores, n_threads, say) -> Path:
    from bgengine.core.evaluator import load_evaluator
    from bgengine.labelling.fit import replace_networks
    from bgengine.training.growth import widen

    s = phase.settings
    ev = load_evaluator(current)
    nets = {}
    as_list = (lambda v: [v] if isinstance(v, int) else list(v))
    if s["race"]:
        nets["race"] = widen(ev.race, as_list(s["race"]), noise=s["noise"], seed=s["seed"] + 1,
                             copies=not s["fresh"])
    if s["contact"]:
        for name, net in ev.networks.items():
            if name.startswith("contact"):
                nets[name] = widen(net, as_list(s["contact"]), noise=s["noise"],
                                   seed=s["seed"], copies=not s["fresh"])
    if not nets:
        raise ValueError(f"phase {phase.name}: nothing to widen: set race or contact")
    out = folder / "evaluator.npz"
    replace_networks(ev, nets).save(out)
    return out


def _fit(phase, folder, run, current, start, pools, stores, n_threads, say) -> Path:
    from bgengine.labelling.fit import FitConfig, fit_from_stores
    from bgengine.core.evaluator import load_evaluator

    s = dict(phase.settings)
    player = _player(s.pop("player"), current, start)
    store_paths = [stores.get(x) or Path(x) for x in s.pop("stores")]
    teach = [pools.get(x) or Path(x) for x in s.pop("teach_pools")]
    only = s.pop("only")
    prefer = s.pop("prefer")
    fitted, reports, n = fit_from_stores(
        load_evaluator(player), store_paths, FitConfig(**s), start=str(player),
        only=set(only) or None, teach_pools=teach, progress=say, n_threads=n_threads,
        search_cache=run / "search-cache", prefer=prefer, checkpoint=folder / "parts")
    out = folder / "evaluator.npz"
    fitted.save(out)
    for r in reports:
        say(f"{phase.name}: {r.name} held-out equity rms {r.before:.4f} -> {r.after:.4f}")
    return out


def _cube_fit(phase, folder, run, current, start, pools, stores, n_threads, say) -> Path:
    from bgengine.labelling.cubes import with_fitted_efficiency
    from bgengine.core.evaluator import load_evaluator

    s = phase.settings
    model, report = with_fitted_efficiency(load_evaluator(current),
                                           Path(s["set"]), s["plies"])
    out = folder / "evaluator.npz"
    model.save(out)
    say(f"{phase.name}: cube efficiencies {json.dumps({k: r['x'] for k, r in report.items()})}")
    return out


def _race_fit(phase, folder, run, current, start, pools, stores, n_threads, say) -> Path:
    from bgengine.core.evaluator import load_evaluator
    from bgengine.labelling.race_distributions import (SolveConfig, fit_race_distributions,
                                                        load_solved, race_sides_of_pools,
                                                        solve_sides, with_race_distributions)

    s = phase.settings
    data = [Path(p) for p in s["data"]]
    if s["pools"]:
        # one solve of the phase's own settings, or one per table of its solve list (each
        # its own file, so a run cut short resumes the one it was in)
        solves = s["solve"] or [{k: s[k] for k in _SOLVE_KEYS}]
        sides = race_sides_of_pools([pools.get(p, p) for p in s["pools"]])
        for k, spec in enumerate(solves):
            solved = folder / ("sides.npz" if len(solves) == 1 else f"sides-{k + 1}.npz")
            solve_sides(solved, sides, SolveConfig(**spec))
            data.append(solved)
    if not data:
        raise ValueError(f"phase {phase.name}: give pools to solve sides from, or data files")
    rows, all_off, first = load_solved(data)
    network, history = fit_race_distributions(
        rows, all_off, first, hidden=s["hidden"], max_outside=s["max_outside"],
        epochs=s["epochs"], patience=s["patience"], seed=s["seed"])
    best = min(history, key=sum)
    say(f"{phase.name}: {len(rows)} sides; held-out mean |expected rolls error| all-off "
        f"{best[0]:.4f}, first-off {best[1]:.4f}")
    out = folder / "evaluator.npz"
    with_race_distributions(load_evaluator(current), network, s["exact_outside"]).save(out)
    return out


def _chunks(folder: Path, stem: str, games: int, chunk_games: int, seed: int,
            make: Callable[..., None], settings: dict, n_threads: int,
            say: Callable[[str], None], name: str) -> list[Path]:
    """The chunk files ``folder/STEM-NNN.npz`` of ``games`` games, ``chunk_games`` a chunk
    (chunk ``k``: its games and seed ``seed + k``), each made by ``make(path, games, seed,
    **settings)`` (a module-level function: with ``n_threads`` > 1 the chunks are made in
    that many processes) unless it is there already: a phase cut short resumes at its
    first missing chunk."""
    if chunk_games < 1:
        raise ValueError(f"phase {name}: chunk_games must be >= 1, got {chunk_games}")
    n_chunks = -(-games // chunk_games)
    paths = [folder / f"{stem}-{k:03d}.npz" for k in range(n_chunks)]
    todo = [(paths[k], min(chunk_games, games - k * chunk_games), seed + k)
            for k in range(n_chunks) if not paths[k].is_file()]
    if n_threads > 1 and len(todo) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(min(n_threads, len(todo)),
                                 mp_context=multiprocessing.get_context("spawn")) as pool:
            jobs = {pool.submit(make, *job, **settings): job for job in todo}
            for done in as_completed(jobs):
                done.result()
                say(f"{name}: chunk {paths.index(jobs[done][0]) + 1} of {n_chunks} done")
    else:
        for job in todo:
            make(*job, **settings)
            say(f"{name}: chunk {paths.index(job[0]) + 1} of {n_chunks} ({job[1]} games) done")
    return paths


def _collect_chunk(path: Path, games: int, seed: int, *, player: str, every: int, top: int,
                   plies: int, klass: int, sample: int, mean_lower: bool) -> None:
    """One chunk of a distill phase: ``collect``'s data (its mean targets with
    ``mean_lower``), written atomically."""
    import numpy as np

    from bgengine.training.distillation import collect, mean_targets

    data = collect(player, games, seed, every, top, plies, klass, sample or None)
    data = mean_targets([data]) if mean_lower else data
    atomic_write(path, lambda f: np.savez(f, **data))


def _outcomes_chunk(path: Path, games: int, seed: int, *, player: str) -> None:
    """One chunk of a calibrate phase: the outcomes of ``games`` self-play games."""
    from bgengine.core.evaluator import load_evaluator
    from bgengine.training.outcomes import play_outcomes

    outcomes = play_outcomes(load_evaluator(player), games, seed)
    atomic_write(path, lambda f: outcomes.save(f))


def _distill(phase, folder, run, current, start, pools, stores, n_threads, say) -> Path:
    from bgengine.core.evaluator import CLASSES, Evaluator
    from bgengine.training.distillation import blend, fit, parse_experts

    s = phase.settings
    if s["class"] not in ("contact", "race"):
        raise ValueError(f"phase {phase.name}: class must be contact or race, got {s['class']!r}")
    klass = CLASSES.index(s["class"])
    player = str(_player(s["player"], current, start))
    settings = {"player": player, "every": s["every"], "top": s["top"], "plies": s["plies"],
                "klass": klass, "sample": s["sample"], "mean_lower": s["mean_lower"]}
    files = _chunks(folder, "data", s["games"], s["chunk_games"], s["seed"], _collect_chunk,
                    settings, n_threads, say, phase.name)
    for earlier in reversed(s["reuse"]):
        done = run / "phases" / earlier / "done.json"
        kind = json.loads(read_regular(done, "phase record"))["kind"] if done.is_file() else None
        if kind != "distill":
            raise ValueError(f"phase {phase.name}: reuse names {earlier!r}, not a distill "
                             f"phase done before it")
        files = sorted(done.parent.glob("data-*.npz")) + files
    experts = parse_experts(s["experts"]) if s["experts"] else None
    fits = []
    for seed in s["fit_seeds"]:
        out = folder / f"fit-{seed}.npz"
        if not out.is_file():
            say(f"{phase.name}: fitting on {len(files)} files, seed {seed}")
            fitted = fit(player, [str(f) for f in files], s["lr"], s["epochs"], seed=seed,
                         pairwise=s["pairwise"], lr_end=s["lr_end"], klass=klass,
                         anchor=s["anchor"], experts=experts)
            fitted.save(out)
        fits.append(str(out))
    result = (Evaluator.load(fits[0]) if len(fits) == 1
              else blend(player, fits, s["share"], klass))
    if s["race_gammons"] is not None:
        result = result.with_race_gammons(s["race_gammons"] or False)
    out = folder / "evaluator.npz"
    result.save(out)
    return out


def _calibrate(phase, folder, run, current, start, pools, stores, n_threads, say) -> Path:
    from bgengine.core.evaluator import load_evaluator
    from bgengine.training.outcomes import GameOutcomes, calibrate_evaluator

    s = phase.settings
    player = _player(s["player"], current, start)
    evaluator = load_evaluator(player)
    files = _chunks(folder, "outcomes", s["games"], s["chunk_games"], s["seed"],
                    _outcomes_chunk, {"player": str(player)}, n_threads, say, phase.name)
    outcomes = GameOutcomes.concatenate([GameOutcomes.load(f) for f in files])
    calibrated, reports = calibrate_evaluator(evaluator, outcomes, classes=s["classes"],
                                               outputs=s["outputs"] or None)
    calibrated.metadata["output_calibration"] = {"player": str(player),
                                                 "files": [str(f) for f in files]}
    for name, r in reports.items():
        say(f"{phase.name}: {name} on {r.positions} positions, log loss "
            f"{sum(r.log_loss_before):.4f} -> {sum(r.log_loss_after):.4f}")
    out = folder / "evaluator.npz"
    calibrated.save(out)
    return out


_RUNNERS = {"sample": _sample, "label": _label, "widen": _widen, "fit": _fit,
            "cube-fit": _cube_fit, "race-fit": _race_fit, "distill": _distill,
            "calibrate": _calibrate}
