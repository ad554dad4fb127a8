"""Training runs: schedules, checkpoints with exact resume, evaluation, logs.

A run lives in one directory::

    RUN/config.toml      the TrainConfig (written at the start; a resume must match it)
    RUN/checkpoint.npz   weights, older snapshots and the schedule state (atomic writes)
    RUN/network.npz      the latest network (or evaluator, for class networks), loadable
                         with load_evaluator / net:RUN/network.npz
    RUN/best.npz         the one that scored best against pubeval so far
    RUN/log.jsonl        one JSON object per line: training chunks, evaluations, step-downs
    RUN/checkpoints/     games_N.npz every snapshot_every games (for ``bgengine tournament``)
    RUN/log.jsonl.unreadable  lines of the log that could not be read, kept aside at a resume

Nothing is written before the config, the directory, the checkpoint and the log are all
checked (see :func:`train`); a running run locks its directory (POSIX).

The compiled learner (:func:`bgengine.td.train_games`) plays ``checkpoint_every``
games per call; game ``g`` of the run always uses dice stream ``g`` of the
seed, so a run killed at any point and resumed from its last checkpoint ends
with the same weights, bit for bit, as one that never stopped.

Class networks (``race_encoder`` set): a contact network and a race network,
each trained by TD(0) on the positions of its class, saved together as one
evaluator file; with ``bearoff``, positions the exact bear-off database covers
give exact targets and train nothing.  With ``train_threads`` > 1, the threads
each play ``sync_games`` games on their own copy of the weights, then their updates
are summed in thread order (``sync_mode``: see :mod:`bgengine.threaded_td`): the run
is reproducible from its seed and thread count.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
import re
import signal
import sys
import time
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from bgengine.agents import Player, play_match
from bgengine.evaluator import Evaluator
from bgengine.fileio import atomic_write
from bgengine.match import default_threads, summarize
from bgengine.network import Network
from bgengine.td import train_games
from bgengine.threaded_td import SYNC_MODES, train_games_threaded

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["TrainConfig", "train", "alpha_at", "read_log"]

log = logging.getLogger(__name__)

METHODS = ("td", "backprop", "mutation", "rollout")
STEP_LIST = (0.25, 0.1, 0.05, 0.025, 0.01, 0.005, 0.0025, 0.001)


@dataclass
class TrainConfig:
    """Everything that defines a training run (loadable from TOML).

    The defaults are the sources' where they give one: checkpoints every 1000
    games, evaluation against pubeval every 10000 games with 1000 games, the
    step list and its plateau test (every 1000 games, 200 games against the
    net 25000 games older; step down when the last 25 results sum below 0).
    """

    encoder: str = "tesauro198"
    hidden: list[int] = field(default_factory=lambda: [80])
    outputs: int = 5
    method: str = "td"                  # "td", "backprop", "mutation" or "rollout"
    lam: float = 0.7                    # TD(lambda) trace decay; 0 = TD(0)
    alpha: float = 0.1                  # start (constant, linear) step size
    alpha_end: float = 0.0              # linear: the step size reached at the last game
    schedule: str = "constant"          # "constant", "linear", "compound" or "steps"
    alpha_steps: list[float] = field(default_factory=lambda: list(STEP_LIST))
    games: int = 100_000
    epsilon: float = 0.0                # exploration: chance of a random play per move
    seed: int = 1
    init_range: float = 0.1             # initial weights uniform in [-r, r]
    init_from: str = ""                 # start from this network/evaluator file's weights
                                        # (same shapes; e.g. a later phase of a run)
    checkpoint_every: int = 1000
    eval_every: int = 10_000
    eval_games: int = 1000
    eval_opponent: str = "pubeval"
    eval_seed: int = 20260101
    plateau_every: int = 1000
    plateau_games: int = 200
    plateau_gap: int = 25_000
    plateau_window: int = 25
    threads: int = 0                    # evaluation threads; 0 = all cores
    race_encoder: str = ""              # "" = one network values every position; else the
                                        # race network's encoder (class networks, TD(0))
    race_hidden: list[int] = field(default_factory=list)   # its hidden layers ([] = hidden)
    bearoff: bool = False               # exact bear-off database: exact targets where it covers
    target_plies: int = 0               # TD(0) target: 0 = the next state's value; 1..3 = the
                                        # state's own n-ply value (no roll noise; ~21x the cost)
    train_threads: int = 1              # self-play threads (method "td"); 1 = one core
    sync_games: int = 16                # games each thread plays between merges of updates
    sync_mode: str = "round"            # after a merge: "round" = wait for every thread's;
                                        # "rolling" = go on at once (no idling; threaded_td)
    snapshot_every: int = 50_000        # keep RUN/checkpoints/games_N.npz at checkpoints that
                                        # fall on a multiple (0 = none); for tournaments
    mutation_sigma: float = 0.05        # method "mutation": Gaussian noise of the mutant
    mutation_step: float = 0.05         # ... fraction of the way the champion moves to a winner
    mutation_games: int = 4             # ... games per generation (even: pairs, seats swapped)
    rollout_best: int = 3               # method "rollout": the network's best candidates ...
    rollout_worst: int = 1              # ... and worst ones, each rolled out
    rollout_trials: int = 36            # ... this many times
    rollout_truncate: int = 10          # ... for this many plays (0 = to the end)

    def __post_init__(self) -> None:
        for name in ("hidden", "race_hidden"):
            v = getattr(self, name)
            if not isinstance(v, (list, tuple)) or not all(_is_int(x) for x in v):
                raise ValueError(f"bad training config: {name} must be a list of whole numbers "
                                 f"(layer widths), got {v!r}")
        v = self.alpha_steps
        if not isinstance(v, (list, tuple)) or not all(_is_number(x) for x in v):
            raise ValueError(f"bad training config: alpha_steps must be a list of numbers, got {v!r}")
        self.hidden = [int(h) for h in self.hidden]
        self.race_hidden = [int(h) for h in self.race_hidden]
        self.alpha_steps = [float(a) for a in self.alpha_steps]
        self.validate()

    def validate(self) -> None:
        """``ValueError`` listing every setting that is wrong (types first, then values)."""
        from bgengine.encoders import ENCODERS

        problems = []
        # wrong types (a TOML file can hold any) are reported before any comparison
        wanted = {"int": (int, "an integer"), "float": ((int, float), "a number"),
                  "str": (str, "a string"), "bool": (bool, "true or false")}
        wrong = [f"{f.name} must be {wanted[f.type][1]}, got {getattr(self, f.name)!r}"
                 for f in fields(self) if f.type in wanted
                 and ((isinstance(getattr(self, f.name), bool) and f.type != "bool")
                      or not isinstance(getattr(self, f.name), wanted[f.type][0]))]
        if wrong:
            raise ValueError("bad training config: " + "; ".join(wrong))
        # NaN passes no comparison and never equals itself (a run could never resume): first
        wrong = [f"{f.name} must be a finite number, got {getattr(self, f.name)!r}"
                 for f in fields(self) if f.type == "float" and not math.isfinite(getattr(self, f.name))]
        if not all(math.isfinite(a) for a in self.alpha_steps):
            wrong.append(f"alpha_steps must be finite numbers, got {self.alpha_steps}")
        # a typo's huge value fails at once rather than overflowing or diverging later
        wrong += [f"{name} must be at most {limit:,}, got {_show(getattr(self, name))}"
                  for name, limit in _LIMITS.items() if getattr(self, name) > limit
                  and not (isinstance(limit, float) and math.isinf(getattr(self, name)))]
        if any(a > _LIMITS["alpha"] for a in self.alpha_steps):
            wrong.append(f"alpha_steps must be at most {_LIMITS['alpha']}, got {self.alpha_steps}")
        if wrong:
            raise ValueError("bad training config: " + "; ".join(wrong))
        if self.encoder not in ENCODERS:
            problems.append(f"encoder must be one of {', '.join(ENCODERS)}, got {self.encoder!r}")
        if not self.hidden or any(h < 1 for h in self.hidden):
            problems.append(f"hidden must list positive widths, got {self.hidden}")
        if any(h < 1 for h in self.race_hidden):
            problems.append(f"race_hidden must list positive widths, got {self.race_hidden}")
        if self.race_encoder and self.race_encoder not in ENCODERS:
            problems.append(f"race_encoder must be one of {', '.join(ENCODERS)} (or empty for one "
                            f"network), got {self.race_encoder!r}")
        if self.classes and self.method not in ("td", "backprop"):
            problems.append(f"class networks and the bear-off database train with method td or "
                            f"backprop, not {self.method!r}")
        if self.race_encoder and self.method == "td" and self.lam > 0:
            problems.append("class networks train with TD(0): set lam = 0")
        if self.race_encoder and self.outputs != 5:
            problems.append("class networks use gnubg's five outputs: set outputs = 5")
        if not 0 <= self.target_plies <= 3:
            problems.append(f"target_plies must be in 0..3, got {self.target_plies}")
        if self.target_plies and (self.method != "td" or self.lam > 0):
            problems.append("n-ply targets (target_plies > 0) are for TD(0): method td, lam = 0")
        if self.train_threads < 1 or self.sync_games < 1:
            problems.append(f"train_threads and sync_games must be >= 1, got "
                            f"{self.train_threads} and {self.sync_games}")
        if self.sync_mode not in SYNC_MODES:
            problems.append(f"sync_mode must be one of {', '.join(SYNC_MODES)}, got "
                            f"{self.sync_mode!r}")
        if self.train_threads > 1 and self.method != "td":
            problems.append(f"train_threads > 1 needs method td, got {self.method!r}")
        if (self.train_threads > 1 or self.classes) and self.schedule == "steps":
            problems.append("the steps schedule needs one network trained on one thread")
        if self.outputs not in (1, 4, 5):
            problems.append(f"outputs must be 1, 4 or 5, got {self.outputs}")
        if self.method not in METHODS:
            problems.append(f"method must be one of {', '.join(METHODS)}, got {self.method!r}")
        if self.method == "mutation":
            m = self.mutation_games
            if m < 2 or m % 2 or self.checkpoint_every % m or self.games % m:
                problems.append(f"mutation_games ({m}) must be even and divide checkpoint_every "
                                f"({self.checkpoint_every}) and games ({self.games})")
            if not self.mutation_sigma > 0 or not 0 < self.mutation_step <= 1:
                problems.append("need mutation_sigma > 0 and 0 < mutation_step <= 1")
        if self.rollout_best < 1 or self.rollout_worst < 0 or self.rollout_trials < 1 \
                or self.rollout_truncate < 0:
            problems.append("need rollout_best >= 1, rollout_worst >= 0, rollout_trials >= 1, "
                            "rollout_truncate >= 0")
        if not 0 <= self.lam <= 1:
            problems.append(f"lam must be in [0, 1], got {self.lam}")
        if self.schedule not in ("constant", "linear", "compound", "steps"):
            problems.append(f"schedule must be constant, linear, compound or steps, got "
                            f"{self.schedule!r}")
        if not self.alpha > 0:
            problems.append(f"alpha must be > 0, got {self.alpha}")
        if not self.alpha_end >= 0:
            problems.append(f"alpha_end must be >= 0, got {self.alpha_end}")
        if self.schedule == "steps" and (not self.alpha_steps or min(self.alpha_steps) <= 0):
            problems.append("alpha_steps must be a non-empty list of positive step sizes")
        for name in ("games", "checkpoint_every", "eval_every", "eval_games", "plateau_every",
                     "plateau_games", "plateau_gap", "plateau_window"):
            if getattr(self, name) < 1:
                problems.append(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.snapshot_every < 0:
            problems.append(f"snapshot_every must be >= 0 (0 = no snapshots), got {self.snapshot_every}")
        if not 0 <= self.epsilon <= 1:
            problems.append(f"epsilon must be in [0, 1], got {self.epsilon}")
        if self.seed < 0 or self.eval_seed < 0 or self.threads < 0:
            problems.append(f"seed, eval_seed and threads must be >= 0, got {self.seed}, "
                            f"{self.eval_seed} and {self.threads}")
        if self.init_range < 0:
            problems.append(f"init_range must be >= 0, got {self.init_range}")
        if self.eval_opponent not in ("random", "pubeval", "simple1", "simple2", "simple3", "net"):
            problems.append(f"eval_opponent must be random, pubeval, simple1, simple2, simple3 or "
                            f"net, got {self.eval_opponent!r}")
        multiples = ("eval_every", "plateau_every", "plateau_gap") if self.schedule == "steps" \
            else ("eval_every",)
        for name in multiples if self.checkpoint_every >= 1 else ():
            if getattr(self, name) % self.checkpoint_every:
                problems.append(f"{name} ({getattr(self, name)}) must be a multiple of "
                                f"checkpoint_every ({self.checkpoint_every})")
        if problems:
            raise ValueError("bad training config: " + "; ".join(problems))

    @property
    def classes(self) -> bool:
        """True when the run trains an evaluator (class networks or exact bear-off values)
        rather than one plain network."""
        return bool(self.race_encoder) or self.bearoff

    # ------------------------------------------------------------ TOML
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TrainConfig":
        """From the settings, under a ``train`` key or at the top level (not both); any
        other key or table is an error."""
        if not isinstance(data, dict):
            raise ValueError(f"training settings must be a table, got {type(data).__name__}")
        if "train" in data:
            extra = sorted(set(data) - {"train"})
            if extra:
                raise ValueError(f"unknown table(s) or key(s) beside [train]: {', '.join(extra)}")
            data = data["train"]
            if not isinstance(data, dict):
                raise ValueError("train must be a table ([train]) of training settings")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            tables = [k for k in unknown if isinstance(data[k], dict)]
            raise ValueError(f"unknown training option(s) {', '.join(unknown)}"
                             + (f" (tables: {', '.join(tables)})" if tables else "")
                             + f"; known: {', '.join(sorted(known))}")
        return cls(**data)

    @classmethod
    def from_toml(cls, path: str | os.PathLike) -> "TrainConfig":
        """Read a TOML file; every problem is a ``ValueError`` naming ``path``."""
        try:
            if os.path.getsize(path) > _MAX_CONFIG_BYTES:
                raise ValueError(f"{path}: larger than {_MAX_CONFIG_BYTES} bytes: not a training "
                                 f"config")
            with open(path, "rb") as f:
                data = tomllib.load(f)
        except OSError as exc:
            raise ValueError(f"{path}: cannot read the training config "
                             f"({exc.strerror or type(exc).__name__})") from None
        except UnicodeDecodeError:
            raise ValueError(f"{path}: not valid TOML (not UTF-8 text)") from None
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"{path}: not valid TOML ({exc})") from None
        if not data or data == {"train": {}}:
            # a run of 100,000 games with every default is never what an empty file means
            raise ValueError(f"{path}: no training settings (an empty file); set at least games")
        try:
            return cls.from_dict(data)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None

    def to_toml(self) -> str:
        lines = ["[train]"]
        for f in fields(self):
            lines.append(f"{f.name} = {_toml_value(getattr(self, f.name))}")
        return "\n".join(lines) + "\n"


#: Upper bounds of settings: far beyond any real run, low enough that nothing overflows
#: (game and stream numbers, array sizes) or diverges at once.
_LIMITS = {"games": 10**12, "checkpoint_every": 10**12, "eval_every": 10**12,
           "plateau_every": 10**12, "plateau_gap": 10**12, "snapshot_every": 10**12,
           "eval_games": 10**7, "plateau_games": 10**7, "plateau_window": 10**6,
           "seed": 2**62, "eval_seed": 2**62, "threads": 256, "train_threads": 256,
           "sync_games": 10**6, "mutation_games": 10**6, "rollout_best": 100,
           "rollout_worst": 100, "rollout_trials": 10**6, "rollout_truncate": 10**4,
           "alpha": 10.0, "alpha_end": 10.0, "init_range": 10.0, "mutation_sigma": 10.0}
_MAX_CONFIG_BYTES = 1 << 20


def _show(v: int | float) -> str:
    """A number for a message: never a page of digits."""
    if isinstance(v, float) or abs(v) < 10**18:
        return f"{v:,}"
    return f"a {len(str(abs(v)))}-digit number"


def _is_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _is_number(x: Any) -> bool:
    return _is_int(x) or isinstance(x, (float, np.floating))


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


# ---------------------------------------------------------------- schedules

def alpha_at(config: TrainConfig, games_done: int, step_index: int = 0) -> float:
    """Step size for the chunk starting after ``games_done`` games.

    constant: ``alpha``; linear: ``alpha * (N - n) / N`` (N = total games), or from
    ``alpha`` to ``alpha_end`` in a straight line when ``alpha_end`` is set;
    compound: the brief's recurrence taken literally, ``alpha_{k+1} = alpha_k * (N - k) / N``
    applied once per game, i.e. ``alpha * prod_{k<n} (N - k) / N`` (it falls much faster);
    steps: ``alpha_steps[step_index]`` (the index moves on at plateaus).
    """
    if config.schedule == "constant":
        return config.alpha
    if config.schedule == "linear":
        if config.alpha_end:
            f = min(games_done, config.games) / config.games
            return config.alpha + (config.alpha_end - config.alpha) * f
        return config.alpha * max(config.games - games_done, 0) / config.games
    if config.schedule == "compound":
        N, n = config.games, min(games_done, config.games)
        # log prod_{k<n} (N-k)/N = lgamma(N+1) - lgamma(N-n+1) - n log N
        return config.alpha * math.exp(math.lgamma(N + 1) - math.lgamma(N - n + 1) - n * math.log(N))
    return config.alpha_steps[min(step_index, len(config.alpha_steps) - 1)]


# ---------------------------------------------------------------- state

@dataclass
class _State:
    games: int = 0
    step_index: int = 0
    plateau_results: list[float] = field(default_factory=list)
    best_ppg: float = -math.inf
    elapsed: float = 0.0
    snapshots: dict[int, np.ndarray] = field(default_factory=dict)   # games -> params


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
            "elapsed": state.elapsed, "snapshot_games": sorted(state.snapshots)}
    arrays = {k: n.params for k, n in _weights(net).items()}
    arrays["state"] = np.array(json.dumps(meta))
    for g, p in state.snapshots.items():
        arrays[f"snapshot_{g}"] = p
    atomic_write(run / "checkpoint.npz", lambda f: np.savez(f, **arrays))


def _load_checkpoint(run: Path, net, config: TrainConfig) -> _State:
    """The checkpoint's state, its weights copied into ``net``; ``ValueError`` naming the
    file for anything that is not a checkpoint of this run (read before any file is
    written)."""
    import zipfile

    from bgengine.network import MAX_MEMBER_BYTES

    path = run / "checkpoint.npz"
    nets = _weights(net)
    try:
        with open(path, "rb") as f:
            with zipfile.ZipFile(f) as zf:     # sizes first: a small file may inflate to GBs
                big = [i.filename for i in zf.infolist() if i.file_size > MAX_MEMBER_BYTES]
                if big:
                    raise ValueError(f"member {big[0]!r} inflates beyond {MAX_MEMBER_BYTES} bytes")
            f.seek(0)
            with np.load(f, allow_pickle=False) as z:
                if z["state"].ndim != 0 or z["state"].dtype.kind != "U":
                    raise ValueError("its state is not a JSON string")
                meta = json.loads(str(z["state"]))
                if not isinstance(meta, dict):
                    raise ValueError("its state is not a JSON object")
                weights = {k: z[k] for k in nets}
                snap_games = meta["snapshot_games"]
                if not isinstance(snap_games, list) or not all(_is_int(g) for g in snap_games):
                    raise ValueError(f"snapshot_games must list game numbers, got {snap_games!r}")
                snaps = {int(g): z[f"snapshot_{g}"] for g in snap_games}
    except Exception as exc:  # zip, npz, JSON, missing keys, wrong types alike
        raise ValueError(f"{path}: unreadable checkpoint ({type(exc).__name__}: {exc}); "
                         f"move it away to start over") from None
    state = _checked_state(meta, snaps, config, path)
    checks = [(f"weights ({k})", arr, nets[k]) for k, arr in weights.items()]
    checks += [(f"snapshot {g}", p, nets["params"]) for g, p in snaps.items()]
    for what, arr, owner in checks:
        if arr.shape != owner.params.shape:
            raise ValueError(f"{path}: {arr.size} {what}, but the config's network has "
                             f"{owner.params.size} weights")
        if arr.dtype.kind != "f" or not np.all(np.isfinite(arr)):
            raise ValueError(f"{path}: the checkpoint's {what} are not finite numbers")
    for k, arr in weights.items():
        nets[k].params[:] = arr
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
    if not _is_int(games) or not 0 <= games <= config.games:
        raise bad(f"it is at game {games!r}, outside the run's 0..{config.games}")
    if not _is_int(step) or not 0 <= step < max(1, len(config.alpha_steps)):
        raise bad(f"step_index {step!r} is not an index of alpha_steps")
    if not isinstance(results, list) or not all(
            _is_number(r) and math.isfinite(r) and abs(r) <= 3 for r in results):
        raise bad("plateau_results must be results of games (-3..3)")
    if best is not None and not (_is_number(best) and math.isfinite(best) and abs(best) <= 3):
        raise bad(f"best_ppg {best!r} is not a result of games (-3..3)")
    if not (_is_number(elapsed) and math.isfinite(elapsed) and elapsed >= 0):
        raise bad(f"elapsed {elapsed!r} is not a duration")
    if any(not 0 <= g <= games for g in snaps):
        raise bad(f"snapshots {sorted(snaps)} are not of games 0..{games}")
    return _State(games=int(games), step_index=int(step),
                  plateau_results=[float(r) for r in results],
                  best_ppg=-math.inf if best is None else float(best),
                  elapsed=float(elapsed), snapshots=snaps)


def _parse_record(line: bytes) -> dict | None:
    """A log line's record, or None if it is not a JSON object with a game count."""
    try:
        record = json.loads(line.decode("utf-8"))
    except ValueError:              # bad UTF-8 or JSON (UnicodeDecodeError is one too)
        return None
    if not isinstance(record, dict) or not _is_int(record.get("games")):
        return None
    return record


def _log_lines(path: Path) -> tuple[list[tuple[bytes, dict | None]], bytes]:
    """Every line of a log with its record (None: unreadable), and the file's bytes.  A
    torn last line (no newline: a crash while it was written) is left out."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [], b""
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the run's log ({exc.strerror or exc})") from None
    lines = data.splitlines(keepends=True)
    out = [(line, _parse_record(line)) for line in lines]
    if out and not lines[-1].endswith(b"\n") and out[-1][1] is None:
        out.pop()
    return out, data


def read_log(run: str | os.PathLike) -> Iterator[dict]:
    """The records of ``RUN/log.jsonl``.  A line that is not a record (bad bytes, not
    JSON) is skipped with a warning naming the file and line; a torn last line quietly."""
    path = Path(run) / "log.jsonl"
    lines, _ = _log_lines(path)
    bad = [i + 1 for i, (_, r) in enumerate(lines) if r is None]
    if bad:
        log.warning("%s: %d unreadable line(s) skipped (line %s%s)", path, len(bad),
                    ", ".join(map(str, bad[:5])), ", ..." if len(bad) > 5 else "")
    for _, record in lines:
        if record is not None:
            yield record


def _log_plan(run: Path, games: int) -> tuple[bytes, list[bytes]]:
    """For a resume at ``games``: the log's new text (records after the checkpoint are
    dropped: they will be written again; so is a torn last line) and its unreadable lines."""
    lines, raw = _log_lines(run / "log.jsonl")
    keep = [line if line.endswith(b"\n") else line + b"\n"
            for line, r in lines if r is not None and r["games"] <= games]
    unreadable = [line for line, r in lines if r is None]
    return b"".join(keep), unreadable


def _truncate_log(run: Path, plan: tuple[bytes, list[bytes]]) -> None:
    """Apply a :func:`_log_plan`: unreadable lines are kept aside in
    ``log.jsonl.unreadable``, never lost; the log is rewritten atomically, if it changes."""
    text, unreadable = plan
    path = run / "log.jsonl"
    if unreadable:
        aside = run / "log.jsonl.unreadable"
        with open(aside, "ab") as f:
            f.write(b"".join(u if u.endswith(b"\n") else u + b"\n" for u in unreadable))
        log.warning("%s: %d unreadable line(s) moved to %s", path, len(unreadable), aside)
    if not path.exists() or path.read_bytes() != text:
        atomic_write(path, lambda f: f.write(text))


# ---------------------------------------------------------------- progress

class _Progress:
    """One status line on a terminal (rewritten in place), log lines otherwise."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total = total
        self.enabled = enabled
        self.tty = enabled and sys.stderr.isatty()
        self.last_len = 0

    def update(self, games: int, rate: float, alpha: float, ppg: str) -> None:
        if not self.enabled:
            return
        eta = (self.total - games) / rate if rate > 0 else 0
        text = (f"games {games}/{self.total} ({100 * games / self.total:.0f}%)  {rate:,.0f} games/s  "
                f"alpha {alpha:.4g}  vs pubeval {ppg}  eta {_fmt_time(eta)}")
        if self.tty:
            sys.stderr.write("\r" + text.ljust(self.last_len))
            sys.stderr.flush()
            self.last_len = len(text)
        else:
            log.info(text)

    def close(self) -> None:
        if self.tty and self.last_len:
            sys.stderr.write("\n")


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
        from bgengine.evaluator import load_evaluator

        try:
            source = load_evaluator(config.init_from)
        except ValueError as exc:
            raise ValueError(f"init_from: {exc}") from None
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
        from bgengine.bearoff import default

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
                 threads: int) -> dict:
    """``n`` games of the run's learning method, from game ``first_game``."""
    if config.method == "mutation":
        from bgengine.learners import mutation_games

        return mutation_games(net, n, sigma=config.mutation_sigma, step=config.mutation_step,
                              games_per_generation=config.mutation_games, seed=config.seed,
                              first_game=first_game)
    if config.method == "rollout":
        from bgengine.learners import rollout_target_games

        return rollout_target_games(net, n, alpha, best=config.rollout_best,
                                    worst=config.rollout_worst, trials=config.rollout_trials,
                                    truncate=config.rollout_truncate, seed=config.seed,
                                    first_game=first_game, threads=threads)
    if config.train_threads > 1:
        return train_games_threaded(net, n, alpha, config.lam, threads=config.train_threads,
                                    sync_games=config.sync_games, mode=config.sync_mode,
                                    seed=config.seed, first_game=first_game,
                                    method=config.method, epsilon=config.epsilon,
                                    target_plies=config.target_plies)
    return train_games(net, n, alpha, config.lam, seed=config.seed, first_game=first_game,
                       method=config.method, epsilon=config.epsilon,
                       target_plies=config.target_plies)


def train(config: TrainConfig, run: str | os.PathLike, *, resume: bool = True,
          progress: bool = True, stop_after: int | None = None, stop=None) -> Network:
    """Train (or resume) the run in directory ``run``; return the final network.

    ``stop_after`` stops once that many games of the run are done (for tests
    and for splitting a run over sessions); Ctrl-C (in the main thread) or
    setting ``stop`` (a ``threading.Event``, from any thread) stops after the
    current chunk, with everything saved.  ``network.metadata["training"]["games"]``
    tells how far the run got.

    Nothing is written before everything is checked: the config, the directory (a run's
    files without its checkpoint, or a config that is not the run's, are refused), the
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
    lock = _lock_run(run)
    try:
        resuming = _check_run_dir(config, run, resume)
        net = _new_network(config, {"config": dataclasses.asdict(config)})
        if resuming:
            state = _load_checkpoint(run, net, config)
            log_plan = _log_plan(run, state.games)
    except BaseException:
        _unlock_run(lock)
        if created:             # a failed start leaves nothing behind
            try:
                run.rmdir()
            except OSError:
                pass
        raise
    # Everything is checked: from here on the run's files are written.
    try:
        _remove_stale_tmp(run)
        _write_config(run, config)
        if resuming:
            _truncate_log(run, log_plan)
            log.info("resuming %s at game %d", run, state.games)
        else:
            state = _State()
            # a start from game 0 (or a restart on purpose): an old checkpoint must not be
            # resumed with this config should the new run stop before its first checkpoint
            for name in ("checkpoint.npz", "log.jsonl"):
                (run / name).unlink(missing_ok=True)
        return _train_loop(config, run, net, state, progress, stop_after, stop)
    finally:
        _unlock_run(lock)


def _check_run_dir(config: TrainConfig, run: Path, resume: bool) -> bool:
    """Check the run directory against ``config`` before anything is written: True for a
    resume (its checkpoint is read next), False for a start from game 0.  ``ValueError``
    when resuming would lose or mix up a run's files."""
    found = _progress_files(run)
    if not resume or not found:
        return False            # a fresh start (or --restart): config.toml alone is no run
    if "checkpoint.npz" not in found:
        beyond = _progress_beyond(run, config.checkpoint_every)
        if not beyond:
            # killed before its first checkpoint: the start from game 0 writes the same
            # files again, bit for bit
            log.info("%s: no checkpoint yet; starting from game 0", run)
            return False
        raise ValueError(f"{run} holds {', '.join(beyond)} but no checkpoint.npz: resuming would "
                         f"start the run again from game 0 over them.  Put the checkpoint back, "
                         f"move the files away, or start over on purpose (--restart)")
    cfg_path = run / "config.toml"
    if not cfg_path.exists():
        raise ValueError(f"{run} holds a run (checkpoint.npz) but no config.toml to check the "
                         f"config against: copy the run's config file to {cfg_path}")
    try:
        saved = TrainConfig.from_toml(cfg_path)
    except ValueError as exc:
        raise ValueError(f"{exc} (the config of the run in {run}: restore it, e.g. from the "
                         f"file the run was started with, to resume)") from None
    if saved != config:
        diff = [f.name for f in fields(config) if getattr(saved, f.name) != getattr(config, f.name)]
        raise ValueError(f"{run} holds a run with a different config ({', '.join(diff)} differ); "
                         f"use another directory or the same config")
    return True


def _progress_files(run: Path) -> list[str]:
    """The files of a run's progress in ``run`` (config.toml alone is none)."""
    found = [n for n in ("checkpoint.npz", "network.npz", "best.npz") if (run / n).exists()]
    logp = run / "log.jsonl"
    if logp.exists() and (not logp.is_file() or logp.stat().st_size > 0):
        found.append("log.jsonl")
    snaps = run / "checkpoints"
    if snaps.is_dir() and any(snaps.glob("games_*.npz")):
        found.append("checkpoints/")
    return found


def _progress_beyond(run: Path, games: int) -> list[str]:
    """The files of ``run`` that show progress past game ``games`` (or cannot be read)."""
    from bgengine.network import read_archive

    out = []
    lines, _ = _log_lines(run / "log.jsonl")
    if any(r is not None and r["games"] > games for _, r in lines):
        out.append("log.jsonl")
    for name in ("network.npz", "best.npz"):
        if (run / name).exists():
            try:
                done = read_archive(run / name)[1]["training"]["games"]
            except Exception:       # unreadable: assume it holds progress
                done = None
            if not (_is_int(done) and done <= games):
                out.append(name)
    if (run / "checkpoints").is_dir() and any((run / "checkpoints").glob("games_*.npz")):
        out.append("checkpoints/")
    return out


def _write_config(run: Path, config: TrainConfig) -> None:
    """``RUN/config.toml``, atomically, and only if it changes."""
    path = run / "config.toml"
    text = config.to_toml().encode()
    if not (path.is_file() and path.read_bytes() == text):
        atomic_write(path, lambda f: f.write(text))


#: Temporary files of atomic writes (``NAME.XXXXXXXX.tmp``) a killed run can leave.
_TMP_NAME = re.compile(r"(config\.toml|checkpoint\.npz|network\.npz|best\.npz|log\.jsonl"
                       r"|games_\d+\.npz)\.[^/]+\.tmp")


def _remove_stale_tmp(run: Path) -> None:
    """Remove what killed runs left half-written (the run is locked: none is in use)."""
    for folder in (run, run / "checkpoints"):
        for p in folder.glob("*.tmp") if folder.is_dir() else ():
            if _TMP_NAME.fullmatch(p.name) and p.is_file():
                p.unlink()
                log.info("removed %s (a write interrupted by a crash)", p)


def _lock_run(run: Path) -> int | None:
    """Lock ``run`` against a second training process (POSIX; released when the process
    ends, however it ends).  Returns the descriptor to unlock."""
    try:
        import fcntl
    except ImportError:             # Windows: no lock
        return None
    fd = os.open(run, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise ValueError(f"{run} is in use by another training process") from None
    return fd


def _unlock_run(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)                # closing releases the lock


def _train_loop(config: TrainConfig, run: Path, net, state: _State, progress: bool,
                stop_after: int | None, stop):
    """Play the run's chunks from ``state`` on (see :func:`train`)."""
    opponent = Player(config.eval_opponent) if config.eval_opponent != "net" else None
    threads = config.threads or default_threads()
    end = min(config.games, stop_after) if stop_after is not None else config.games
    bar = _Progress(config.games, progress)
    last_ppg = "n/a"
    interrupted = []

    def on_sigint(signum, frame):  # finish the chunk, save, stop
        interrupted.append(signum)

    old_handler = None
    try:
        old_handler = signal.signal(signal.SIGINT, on_sigint)
    except ValueError:  # not the main thread
        pass
    logf = open(run / "log.jsonl", "a")
    try:
        while state.games < end and not interrupted and not (stop is not None and stop.is_set()):
            n = min(config.checkpoint_every, end - state.games)
            alpha = alpha_at(config, state.games, state.step_index)
            t0 = time.perf_counter()
            stats = _train_chunk(config, net, n, alpha, state.games, threads)
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
                    _stamp(net, config, state, res.ppg).save(run / "best.npz")
            _stamp(net, config, state, None).save(run / "network.npz")
            if config.snapshot_every and state.games % config.snapshot_every == 0:
                (run / "checkpoints").mkdir(exist_ok=True)
                net.save(run / "checkpoints" / f"games_{state.games:09d}.npz")
            _save_checkpoint(run, net, state)
            bar.update(state.games, n / dt, alpha, last_ppg)
    finally:
        logf.close()
        bar.close()
        if old_handler is not None:
            signal.signal(signal.SIGINT, old_handler)
    if interrupted:
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
