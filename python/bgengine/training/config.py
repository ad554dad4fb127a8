"""The settings of a training run (:class:`TrainConfig`, read from and written to TOML)
and the step-size schedules they define (:func:`alpha_at`)."""

from __future__ import annotations

import json
import math
import os
import sys
from dataclasses import dataclass, field, fields
from typing import Any

from bgengine._checks import is_int, is_number
from bgengine.core.agents import MAX_GAMES
from bgengine.core.fileio import read_regular

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["TrainConfig", "alpha_at", "METHODS", "OPTIMIZERS", "STEP_LIST"]

METHODS = ("td", "backprop", "mutation", "rollout")
OPTIMIZERS = ("sgd", "adam")
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
    starts: str = ""                    # start every game from this positions file's positions
                                        # (bgengine.training.startpositions; e.g. races, to train a race
                                        # network on short games); "" = from the opening
    train_threads: int = 1              # self-play threads (method "td"); 1 = one core
    sync_games: int = 16                # games each thread plays between merges of updates
    sync_mode: str = "round"            # after a merge: "round" = wait for every thread's;
                                        # "rolling" = go on at once (no idling; threaded_td)
    optimizer: str = "sgd"              # "sgd": online updates, alpha per move; "adam": batch
                                        # TD(0), one Adam step of rate alpha per batch
    batch_positions: int = 512          # adam: positions per step (all threads together)
    adam_beta1: float = 0.9             # adam: decay of the first moment estimate
    adam_beta2: float = 0.999           # ... of the second
    adam_eps: float = 1e-8              # ... added to sqrt(v) in the step's denominator
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
            if not isinstance(v, (list, tuple)) or not all(is_int(x) for x in v):
                raise ValueError(f"bad training config: {name} must be a list of whole numbers "
                                 f"(layer widths), got {v!r}")
        v = self.alpha_steps
        if not isinstance(v, (list, tuple)) or not all(is_number(x) for x in v):
            raise ValueError(f"bad training config: alpha_steps must be a list of numbers, got {v!r}")
        self.hidden = [int(h) for h in self.hidden]
        self.race_hidden = [int(h) for h in self.race_hidden]
        self.alpha_steps = [float(a) for a in self.alpha_steps]
        self.validate()

    def validate(self) -> None:
        """``ValueError`` listing every setting that is wrong (types first, then values)."""
        from bgengine.core.encoders import ENCODERS
        from bgengine.training.threaded_td import SYNC_MODES

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
        if self.starts and self.method not in ("td", "backprop"):
            problems.append(f"starts (start positions) are for methods td and backprop, not "
                            f"{self.method!r}")
        if self.train_threads < 1 or self.sync_games < 1:
            problems.append(f"train_threads and sync_games must be >= 1, got "
                            f"{self.train_threads} and {self.sync_games}")
        if self.sync_mode not in SYNC_MODES:
            problems.append(f"sync_mode must be one of {', '.join(SYNC_MODES)}, got "
                            f"{self.sync_mode!r}")
        if self.optimizer not in OPTIMIZERS:
            problems.append(f"optimizer must be one of {', '.join(OPTIMIZERS)}, got "
                            f"{self.optimizer!r}")
        if self.optimizer == "adam":
            if self.method != "td" or self.lam > 0:
                problems.append("optimizer adam is batch TD(0): method td, lam = 0")
            if not 1 <= self.train_threads <= self.batch_positions:
                problems.append(f"batch_positions must be >= train_threads (>= 1), got "
                                f"{self.batch_positions}")
            if not (0 <= self.adam_beta1 < 1 and 0 <= self.adam_beta2 < 1 and self.adam_eps > 0):
                problems.append(f"need 0 <= adam_beta1, adam_beta2 < 1 and adam_eps > 0, got "
                                f"{self.adam_beta1}, {self.adam_beta2} and {self.adam_eps}")
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
            data = tomllib.loads(read_regular(path, "training config",
                                              _MAX_CONFIG_BYTES).decode("utf-8"))
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
# checkpoint_every: the games of one call of the learner (bgengine.core.agents.MAX_GAMES)
_LIMITS = {"games": 10**12, "checkpoint_every": MAX_GAMES, "eval_every": 10**12,
           "plateau_every": 10**12, "plateau_gap": 10**12, "snapshot_every": 10**12,
           "eval_games": 10**7, "plateau_games": 10**7, "plateau_window": 10**6,
           "seed": 2**62, "eval_seed": 2**62, "threads": 256, "train_threads": 256,
           "sync_games": 10**6, "batch_positions": 10**8, "mutation_games": 10**6, "rollout_best": 100,
           "rollout_worst": 100, "rollout_trials": 10**6, "rollout_truncate": 10**4,
           "alpha": 10.0, "alpha_end": 10.0, "init_range": 10.0, "mutation_sigma": 10.0}
_MAX_CONFIG_BYTES = 1 << 20


def _show(v: int | float) -> str:
    """A number for a message: never a page of digits."""
    if isinstance(v, float) or abs(v) < 10**18:
        return f"{v:,}"
    return f"a {len(str(abs(v)))}-digit number"


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
