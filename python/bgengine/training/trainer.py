"""Training runs: schedules, checkpoints with exact resume, evaluation, logs.

A run lives in one directory (its layout and file formats: :mod:`bgengine.training.run_dir`).
Nothing is written before the config, the directory, the checkpoint and the log are all
checked (see :func:`train`); a running run locks its directory (POSIX).

The compiled learner (:func:`bgengine.core.td.train_games`) plays ``checkpoint_every``
games per call; game ``g`` of the run always uses dice stream ``g`` of the
seed, so a run killed at any point and resumed from its last checkpoint ends
with the same weights, bit for bit, as one that never stopped.

Class networks (``race_encoder`` set): a contact network and a race network,
each trained by TD(0) on the positions of its class, saved together as one
evaluator file; with ``bearoff``, positions the exact bear-off database covers
give exact targets and train nothing.  With ``train_threads`` > 1, the threads
each play ``sync_games`` games on their own copy of the weights, then their updates
are summed in thread order (``sync_mode``: see :mod:`bgengine.training.threaded_td`): the run
is reproducible from its seed and thread count.  With ``starts`` (a positions file of
:mod:`bgengine.training.startpositions`), game ``g`` starts from the file's position ``g`` (cycling)
instead of the opening: e.g. races only, to train a race network on short games.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
import time
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Callable

import numpy as np

from bgengine.core.agents import Player, play_match
from bgengine.core.evaluator import Evaluator
from bgengine._checks import is_int, is_number
from bgengine.core.fileio import atomic_write
from bgengine.interrupts import stop_on_interrupt
from bgengine.matches.run import default_threads
from bgengine.matches.results import summarize
from bgengine.core.network import Network
from bgengine.training.optimizer import AdamState
from bgengine.training.run_dir import RunDir, read_checkpoint, read_log, write_checkpoint
from bgengine.training.startpositions import load_positions
from bgengine.core.td import train_games
from bgengine.training.threaded_td import train_games_threaded
from bgengine.training.config import METHODS, STEP_LIST, TrainConfig, alpha_at

__all__ = ["TrainConfig", "TrainProgress", "train", "alpha_at", "read_log", "METHODS", "STEP_LIST"]

log = logging.getLogger(__name__)

# ---------------------------------------------------------------- state

@dataclass
class _State:
    games: int = 0
    step_index: int = 0
    plateau_results: list[float] = field(default_factory=list)
    best_ppg: float = -math.inf
    elapsed: float = 0.0
    snapshots: dict[int, np.ndarray] = field(default_factory=dict)   # games -> params
    adam: AdamState | None = None       # optimizer "adam": its moments and step count


def _fresh_state(config: TrainConfig, net) -> _State:
    """The state of a run at game 0."""
    adam = None
    if config.optimizer == "adam":
        adam = AdamState.zeros(net, config.adam_beta1, config.adam_beta2, config.adam_eps)
    return _State(adam=adam)


def _adam_keys(net) -> list[tuple[str, str]]:
    """Checkpoint keys of Adam's first and second moments, one pair per trained network
    (in :func:`bgengine.training.optimizer.trained_params`'s order)."""
    return [(f"adam_m_{k}", f"adam_v_{k}") for k in _weights(net)]


def _weights(model) -> dict[str, Network]:
    """The trained networks of a model by checkpoint key: ``params`` (the network, or the
    evaluator's contact network) and ``race_params`` (its own race network, if any)."""
    if isinstance(model, Network):
        return {"params": model}
    out = {"params": model.contact}
    if model.race is not model.contact:
        out["race_params"] = model.race
    return out


def _save_checkpoint(run: Path, net, state: _State) -> None:
    meta = {"games": state.games, "step_index": state.step_index,
            "plateau_results": state.plateau_results,
            "best_ppg": None if math.isinf(state.best_ppg) else state.best_ppg,
            "elapsed": state.elapsed}
    arrays = {k: n.params for k, n in _weights(net).items()}
    if state.adam is not None:
        meta["adam_step"] = state.adam.step
        for (mk, vk), m, v in zip(_adam_keys(net), state.adam.m, state.adam.v):
            arrays[mk], arrays[vk] = m, v
    write_checkpoint(run, arrays, meta, state.snapshots)


def _load_checkpoint(run: Path, net, config: TrainConfig) -> _State:
    """The checkpoint's state, its weights copied into ``net``; ``ValueError`` naming the
    file for anything that is not a checkpoint of this run (read before any file is
    written)."""
    path = RunDir(run).checkpoint
    nets = _weights(net)
    adam_keys = _adam_keys(net) if config.optimizer == "adam" else []
    try:
        meta, weights, snaps = read_checkpoint(
            run, list(nets) + [k for pair in adam_keys for k in pair])
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}; move it away to start over") from None
    state = _checked_state(meta, snaps, config, path)
    moments = {k: weights.pop(k) for pair in adam_keys for k in pair}
    checks = [(f"weights ({k})", arr, nets[k]) for k, arr in weights.items()]
    checks += [(f"Adam moments ({k})", moments[k], nets[name]) for name, pair
               in zip(nets, adam_keys) for k in pair]
    checks += [(f"snapshot {g}", p, nets["params"]) for g, p in snaps.items()]
    for what, arr, owner in checks:
        if arr.shape != owner.params.shape:
            raise ValueError(f"{path}: {arr.size} {what}, but the config's network has "
                             f"{owner.params.size} weights")
        if arr.dtype.kind != "f" or not np.all(np.isfinite(arr)):
            raise ValueError(f"{path}: the checkpoint's {what} are not finite numbers")
    for k, arr in weights.items():
        nets[k].params[:] = arr
    if adam_keys:
        step = meta.get("adam_step")
        if not (is_int(step) and step >= 0):
            raise ValueError(f"{path}: its Adam step count {step!r} is not a count of steps; "
                             f"not a checkpoint of this run (move it away to start over)")
        state.adam = AdamState(config.adam_beta1, config.adam_beta2, config.adam_eps,
                               [moments[m].astype(np.float32) for m, _ in adam_keys],
                               [moments[v].astype(np.float32) for _, v in adam_keys], int(step))
    return state


def _checked_state(meta: dict, snaps: dict, config: TrainConfig, path: Path) -> _State:
    """A checkpoint's state, each field checked against the run's config."""
    def bad(what: str) -> ValueError:
        return ValueError(f"{path}: {what}; not a checkpoint of this run (move it away to "
                          f"start over)")

    try:
        games, step, results = meta["games"], meta["step_index"], meta["plateau_results"]
        best, elapsed = meta["best_ppg"], meta["elapsed"]
    except KeyError as exc:
        raise bad(f"its state lacks {exc}") from None
    if not is_int(games) or not 0 <= games <= config.games:
        raise bad(f"it is at game {games!r}, outside the run's 0..{config.games}")
    if not is_int(step) or not 0 <= step < max(1, len(config.alpha_steps)):
        raise bad(f"step_index {step!r} is not an index of alpha_steps")
    if not isinstance(results, list) or not all(
            is_number(r) and math.isfinite(r) and abs(r) <= 3 for r in results):
        raise bad("plateau_results must be results of games (-3..3)")
    if best is not None and not (is_number(best) and math.isfinite(best) and abs(best) <= 3):
        raise bad(f"best_ppg {best!r} is not a result of games (-3..3)")
    if not (is_number(elapsed) and math.isfinite(elapsed) and elapsed >= 0):
        raise bad(f"elapsed {elapsed!r} is not a duration")
    if any(not 0 <= g <= games for g in snaps):
        raise bad(f"snapshots {sorted(snaps)} are not of games 0..{games}")
    return _State(games=int(games), step_index=int(step),
                  plateau_results=[float(r) for r in results],
                  best_ppg=-math.inf if best is None else float(best),
                  elapsed=float(elapsed), snapshots=snaps)


# ---------------------------------------------------------------- progress

@dataclass(frozen=True)
class TrainProgress:
    """What a run reports after each chunk of games to :func:`train`'s ``progress``."""

    run: str
    games: int              # games trained so far
    total: int              # the run's games
    chunk: int              # games of the last chunk (so games - chunk before it)
    games_per_s: float      # of the last chunk
    alpha: float            # step size of the last chunk
    last_eval: str          # "ppg±ci95" of the latest evaluation; "n/a" before the first

    def line(self) -> str:
        """One line of text: games, speed, step size, evaluation, time left."""
        eta = (self.total - self.games) / self.games_per_s if self.games_per_s > 0 else 0
        return (f"games {self.games}/{self.total} ({100 * self.games / self.total:.0f}%)  "
                f"{self.games_per_s:,.0f} games/s  alpha {self.alpha:.4g}  vs pubeval "
                f"{self.last_eval}  eta {_fmt_time(eta)}")


def _reporter(progress: bool | Callable[[TrainProgress], None]
              ) -> Callable[[TrainProgress], None] | None:
    """``train``'s ``progress`` as a callback: itself, a log line per chunk (True), or none."""
    if callable(progress):
        return progress
    return (lambda p: log.info(p.line())) if progress else None


def _fmt_time(seconds: float) -> str:
    seconds = int(seconds)
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"{h}h{m:02d}m" if h else f"{m}m{s:02d}s"


# ---------------------------------------------------------------- training

def _new_network(config: TrainConfig, history: dict):
    """The run's model at game 0: a Network, or an Evaluator for class networks."""
    net = Network(config.hidden, config.outputs, config.encoder, seed=config.seed,
                  init_range=config.init_range, metadata={"training": history})
    if config.method == "mutation":
        net.params[:] = 0.0          # Pollack and Blair: the champion starts from zero weights
    if config.init_from:
        from bgengine.core.evaluator import load_evaluator

        try:
            source = load_evaluator(config.init_from)
        except ValueError as exc:
            raise ValueError(f"init_from: {exc}") from None
        if source.experts:
            raise ValueError(f"init_from {config.init_from}: its contact network is split "
                             "among experts, which self-play training does not support")
    if not config.classes:
        if config.init_from:
            _copy_weights(source.contact, net, config.init_from)
        return net
    race = None
    if config.race_encoder:
        # its own stream of initial weights, so that it differs from the contact network's
        race = Network(config.race_hidden or config.hidden, config.outputs, config.race_encoder,
                       seed=config.seed + 0x5ACE, init_range=config.init_range)
    database = None
    if config.bearoff:
        from bgengine.core.bearoff import default

        database = default()
    model = Evaluator(net, race, database=database, metadata={"training": history})
    if config.init_from:
        _copy_weights(source.contact, model.contact, config.init_from)
        if model.race is not model.contact and source.race is not source.contact:
            _copy_weights(source.race, model.race, config.init_from + " (race network)")
    return model


def _copy_weights(source: Network, target: Network, where: str) -> None:
    if source.sizes != target.sizes or source.encoder != target.encoder:
        raise ValueError(f"init_from {where}: its network is {source!r}, the config's is "
                         f"{target!r}")
    np.copyto(target.params, source.params)


def _train_chunk(config: TrainConfig, net, n: int, alpha: float, first_game: int,
                 threads: int, starts: np.ndarray | None = None,
                 adam: AdamState | None = None) -> dict:
    """``n`` games of the run's learning method, from game ``first_game`` (from the
    positions ``starts`` when given: ``config.starts``'s); ``adam``: the optimizer's state
    (``config.optimizer == "adam"``), updated in place."""
    if config.method == "mutation":
        from bgengine.training.learners import mutation_games

        return mutation_games(net, n, sigma=config.mutation_sigma, step=config.mutation_step,
                              games_per_generation=config.mutation_games, seed=config.seed,
                              first_game=first_game)
    if config.method == "rollout":
        from bgengine.training.learners import rollout_target_games

        return rollout_target_games(net, n, alpha, best=config.rollout_best,
                                    worst=config.rollout_worst, trials=config.rollout_trials,
                                    truncate=config.rollout_truncate, seed=config.seed,
                                    first_game=first_game, threads=threads)
    if adam is not None:
        return train_games(net, n, alpha, 0.0, seed=config.seed, first_game=first_game,
                           epsilon=config.epsilon, target_plies=config.target_plies,
                           starts=starts, adam=adam, batch_positions=config.batch_positions,
                           threads=config.train_threads)
    if config.train_threads > 1:
        return train_games_threaded(net, n, alpha, config.lam, threads=config.train_threads,
                                    sync_games=config.sync_games, mode=config.sync_mode,
                                    seed=config.seed, first_game=first_game,
                                    method=config.method, epsilon=config.epsilon,
                                    target_plies=config.target_plies, starts=starts)
    return train_games(net, n, alpha, config.lam, seed=config.seed, first_game=first_game,
                       method=config.method, epsilon=config.epsilon,
                       target_plies=config.target_plies, starts=starts)


def train(config: TrainConfig, run: str | os.PathLike, *, resume: bool = True,
          progress: bool | Callable[[TrainProgress], None] = True,
          stop_after: int | None = None, stop=None) -> Network:
    """Train (or resume) the run in directory ``run``; return the final network.

    ``progress``: a callback given a :class:`TrainProgress` after every chunk of games,
    True for an INFO log line per chunk instead, False for nothing.
    ``stop_after`` stops once that many games of the run are done (for tests
    and for splitting a run over sessions); Ctrl-C (in the main thread) or
    setting ``stop`` (a ``threading.Event``, from any thread) stops after the
    current chunk, with everything saved.  ``network.metadata["training"]["games"]``
    tells how far the run got.

    Nothing is written before everything is checked: the config, the directory (a run's
    files without its checkpoint, or a config that is not the run's, are refused; a
    config that differs in ``games`` alone lengthens or shortens the run, never below
    its checkpoint: with the ``constant`` and ``steps`` schedules an extended run is the
    one planned with the larger ``games``, bit for bit), the
    checkpoint (weights and every field of its state) and the log; a start that fails
    leaves no file behind.  ``resume=False`` starts over on purpose: the old checkpoint
    and log are dropped.  ``ValueError`` names the file and the problem.
    """
    run = Path(run)
    config.validate()               # a TrainConfig may have been changed since it was made
    created = not run.exists()
    try:
        run.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"{run}: cannot make the run directory "
                         f"({exc.strerror or type(exc).__name__})") from None
    rd = RunDir(run)
    lock = rd.lock()
    try:
        saved = _check_run_dir(config, run, resume)
        resuming = saved is not None
        net = _new_network(config, {"config": dataclasses.asdict(config)})
        starts = load_positions(config.starts)[0] if config.starts else None
        if resuming:
            # checked against the run's own length: ``games`` alone may have changed
            state = _load_checkpoint(run, net, dataclasses.replace(
                config, games=max(config.games, saved.games)))
            if state.games > config.games:
                raise ValueError(f"{run} is already at game {state.games}: games must be at "
                                 f"least {state.games} to resume it (asked for {config.games})")
            log_plan = rd.log_plan(state.games)
    except BaseException:
        rd.unlock(lock)
        if created:             # a failed start leaves nothing behind
            try:
                run.rmdir()
            except OSError:
                pass
        raise
    # Everything is checked: from here on the run's files are written.
    try:
        rd.remove_stale_tmp()
        _write_config(run, config)
        if resuming:
            rd.truncate_log(log_plan)
            log.info("resuming %s at game %d", run, state.games)
        else:
            state = _fresh_state(config, net)
            # a start from game 0 (or a restart on purpose): an old checkpoint must not be
            # resumed with this config should the new run stop before its first checkpoint
            for path in (rd.checkpoint, rd.log):
                path.unlink(missing_ok=True)
        return _train_loop(config, run, net, state, progress, stop_after, stop, starts)
    finally:
        rd.unlock(lock)


def _check_run_dir(config: TrainConfig, run: Path, resume: bool) -> TrainConfig | None:
    """Check the run directory against ``config`` before anything is written: the run's
    saved config for a resume (its checkpoint is read next; ``config`` may differ from it
    in ``games`` alone), None for a start from game 0.  ``ValueError`` when resuming
    would lose or mix up a run's files."""
    found = RunDir(run).progress_files()
    if not resume or not found:
        return None             # a fresh start (or --restart): config.toml alone is no run
    if "checkpoint.npz" not in found:
        beyond = _progress_beyond(run, config.checkpoint_every)
        if not beyond:
            # killed before its first checkpoint: the start from game 0 writes the same
            # files again, bit for bit
            log.info("%s: no checkpoint yet; starting from game 0", run)
            return None
        raise ValueError(f"{run} holds {', '.join(beyond)} but no checkpoint.npz: resuming would "
                         f"start the run again from game 0 over them.  Put the checkpoint back, "
                         f"move the files away, or start over on purpose (--restart)")
    cfg_path = RunDir(run).config
    if not cfg_path.exists():
        raise ValueError(f"{run} holds a run (checkpoint.npz) but no config.toml to check the "
                         f"config against: copy the run's config file to {cfg_path}")
    try:
        saved = TrainConfig.from_toml(cfg_path)
    except ValueError as exc:
        raise ValueError(f"{exc} (the config of the run in {run}: restore it, e.g. from the "
                         f"file the run was started with, to resume)") from None
    diff = [f.name for f in fields(config) if getattr(saved, f.name) != getattr(config, f.name)]
    if diff == ["games"]:
        _note_new_length(run, saved, config)
    elif diff:
        raise ValueError(f"{run} holds a run with a different config ({', '.join(diff)} differ); "
                         f"use another directory or the same config")
    return saved


def _note_new_length(run: Path, saved: TrainConfig, config: TrainConfig) -> None:
    """Log a run's new length (its config but for ``games``: a finished run extended,
    or a running one lengthened or shortened)."""
    log.info("%s: the run's length changes from %d to %d games", run, saved.games, config.games)
    if config.schedule in ("linear", "compound"):
        log.warning("%s: the %s step-size schedule depends on the run's length: from here on "
                    "it follows %d games, so the run differs from one planned with %d games "
                    "from the start", run, config.schedule, config.games, config.games)


def _progress_beyond(run: Path, games: int) -> list[str]:
    """The files of ``run`` that show progress past game ``games`` (or cannot be read)."""
    from bgengine.core.network import read_archive

    rd = RunDir(run)
    out = []
    if any(r is not None and r["games"] > games for _, r in rd.log_lines()):
        out.append(rd.log.name)
    for path in (rd.network, rd.best):
        if path.exists():
            try:
                done = read_archive(path)[1]["training"]["games"]
            except Exception:       # unreadable: assume it holds progress
                done = None
            if not (is_int(done) and done <= games):
                out.append(path.name)
    if rd.snapshot_files():
        out.append(rd.snapshots.name + "/")
    return out


def _write_config(run: Path, config: TrainConfig) -> None:
    """``RUN/config.toml``, atomically, and only if it changes."""
    path = RunDir(run).config
    text = config.to_toml().encode()
    if not (path.is_file() and path.read_bytes() == text):
        atomic_write(path, lambda f: f.write(text))


def _train_loop(config: TrainConfig, run: Path, net, state: _State,
                progress: bool | Callable[[TrainProgress], None],
                stop_after: int | None, stop, starts: np.ndarray | None = None):
    """Play the run's chunks from ``state`` on (see :func:`train`)."""
    opponent = Player(config.eval_opponent) if config.eval_opponent != "net" else None
    threads = config.threads or default_threads()
    end = min(config.games, stop_after) if stop_after is not None else config.games
    report = _reporter(progress)
    last_ppg = "n/a"
    # Ctrl-C: finish the chunk, save, stop
    rd = RunDir(run)
    with stop_on_interrupt() as interrupted, open(rd.log, "a") as logf:
        while (state.games < end and not interrupted.is_set()
               and not (stop is not None and stop.is_set())):
            n = min(config.checkpoint_every, end - state.games)
            alpha = alpha_at(config, state.games, state.step_index)
            t0 = time.perf_counter()
            stats = _train_chunk(config, net, n, alpha, state.games, threads, starts, state.adam)
            dt = time.perf_counter() - t0
            state.games += n
            state.elapsed += dt
            record = {"kind": "train", "games": state.games, "alpha": alpha,
                      "games_per_s": n / dt, "mean_moves": float(stats["moves"].mean()),
                      "mean_error": float(stats["error"].mean()),
                      "first_player_ppg": float(stats["result"].mean()), "elapsed": state.elapsed}
            if "accepted" in stats:
                record["mutants_accepted"] = float(stats["accepted"].mean())
            _write(logf, record)
            if config.schedule == "steps" and state.games % config.plateau_every == 0:
                _plateau_step(config, net, state, logf, threads)
            if state.games % config.eval_every == 0 or state.games == config.games:
                res = _evaluate(config, net, opponent, threads)
                last_ppg = f"{res.ppg:+.3f}±{res.ci95:.3f}"
                _write(logf, {**res.as_dict(), "kind": "eval", "games": state.games,
                              "eval_games": res.games, "elapsed": state.elapsed})
                if res.ppg > state.best_ppg:
                    state.best_ppg = res.ppg
                    _stamp(net, config, state, res.ppg).save(rd.best)
            _stamp(net, config, state, None).save(rd.network)
            if config.snapshot_every and state.games % config.snapshot_every == 0:
                rd.snapshots.mkdir(exist_ok=True)
                net.save(rd.snapshot(state.games))
            _save_checkpoint(run, net, state)
            if report is not None:
                report(TrainProgress(str(run), state.games, config.games, n, n / dt, alpha,
                                     last_ppg))
    if interrupted.is_set():
        log.warning("interrupted: %s saved at game %d; run again to resume", run, state.games)
    _stamp(net, config, state, None)
    return net


def _write(f, record: dict) -> None:
    f.write(json.dumps(record) + "\n")
    f.flush()


def _stamp(net, config: TrainConfig, state: _State, ppg: float | None):
    net.metadata["training"] = {"config": dataclasses.asdict(config), "games": state.games,
                                "elapsed_s": round(state.elapsed, 1)}
    if ppg is not None:
        net.metadata["training"]["ppg_vs_" + config.eval_opponent] = ppg
    return net


def _evaluate(config: TrainConfig, net, opponent: Player | None, threads: int):
    me = Player("net", net, name="net")
    opp = opponent or Player("net", net.copy())
    pairs = (config.eval_games + 1) // 2
    points, moves = play_match(me, opp, pairs, seed=config.eval_seed, n_threads=threads)
    return summarize("net", config.eval_opponent, points, moves)


def _plateau_step(config: TrainConfig, net: Network, state: _State, logf, threads: int) -> None:
    """The sources' plateau test: play the net ``plateau_gap`` games older;
    step alpha down when the last ``plateau_window`` results sum below 0."""
    state.snapshots[state.games] = net.params.copy()
    older = state.games - config.plateau_gap
    for g in [g for g in state.snapshots if g < older]:
        del state.snapshots[g]
    if older not in state.snapshots:
        return
    old = net.copy()
    old.params[:] = state.snapshots[older]
    pairs = (config.plateau_games + 1) // 2
    points, _ = play_match(Player("net", net), Player("net", old), pairs,
                           seed=config.eval_seed + state.games, n_threads=threads)
    result = float(points.mean())
    state.plateau_results.append(result)
    recent = state.plateau_results[-config.plateau_window:]
    stepped = (len(recent) == config.plateau_window and sum(recent) < 0
               and state.step_index < len(config.alpha_steps) - 1)
    if stepped:
        state.step_index += 1
        state.plateau_results.clear()
    _write(logf, {"kind": "plateau", "games": state.games, "vs_older_ppg": result,
                  "window_sum": sum(recent), "stepped_down": stepped,
                  "alpha_next": alpha_at(config, state.games, state.step_index)})
