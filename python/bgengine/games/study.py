"""Training runs of the small games, as in the studies: every ``eval_every`` training games,
``eval_games`` greedy games against each evaluation opponent from both seats, recorded as
win/draw/loss rates in the run's ``log.jsonl``.

A run directory holds ``config.toml`` (a :class:`GameRunConfig`), ``checkpoint.npz`` (the
network and the games trained, written at every evaluation: a run resumes exactly from it,
since game ``g`` of the training draws from stream ``g`` of the seed), ``network.npz`` (the
latest network) and ``log.jsonl``: a ``game_eval`` record per opponent and seat, and one
``eval`` record per evaluation (the net as first player against the first evaluation
opponent, ``ppg`` = win rate - loss rate) in the layout ``bgengine plot`` draws.
"""

from __future__ import annotations

import json
import logging
import math
import os
import sys
import threading
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Callable

from bgengine.core.fileio import MAX_TEXT_BYTES, atomic_write, read_regular
from bgengine.games import GAMES
from bgengine.games.learners import (GameRecord, play, player_names, train_q, train_simulation,
                                     train_td)
from bgengine.games.network import GameNetwork
from bgengine.training.run_dir import RunDir
from bgengine.core.smalllearners import REPRESENTATIONS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["GameRunConfig", "DEFAULT_EVAL_OPPONENTS", "is_game_config", "train_game_run",
           "sweep_run", "games_counted",
           "evaluate"]

log = logging.getLogger(__name__)

METHODS = ("td", "q", "simulation")

#: Each game's evaluation opponents when a config names none: the studies' references
#: (tic-tac-toe: random, primitive, smart and the exact solver; Connect Four: random and the
#: minimax players MM1..MM4 with their 20% random moves).
DEFAULT_EVAL_OPPONENTS: dict[str, list[str]] = {
    "tictactoe": ["random", "primitive", "smart", "solver"],
    "connect4": ["random", "mm1", "mm2", "mm3", "mm4"],
}


@dataclass
class GameRunConfig:
    """The settings of a small game's training run (TOML: these keys at the top level)."""

    game: str = "tictactoe"
    method: str = "q"                   # "td" (TD(lambda), self-play), "q" (Q-learning),
                                        # "simulation" (network-guided simulations)
    representation: str = "separated"   # "simple" or "separated"
    hidden: list[int] = field(default_factory=lambda: [40])
    alpha: float = 0.1                  # step size at the start ...
    alpha_end: float = 0.0              # ... falling linearly to this at the last game
                                        # (0: constant)
    lam: float = 0.0                    # td: trace decay
    gamma: float = 0.9                  # q: discount
    epsilon: float = 0.1                # td, q: chance of a random move
    opening: int = 0                    # td, q: each game opens with 0..opening random plies
    opponent: str = "self"              # td, q: a named player, or "self"
    best: int = 3                       # simulation: candidates ...
    trials: int = 30                    # ... and playouts each
    games: int = 30_000
    eval_every: int = 300
    eval_games: int = 1000
    eval_opponents: list[str] | None = None  # default: the game's DEFAULT_EVAL_OPPONENTS
    seed: int = 1
    eval_seed: int = 20260101
    init_range: float = 0.1

    def __post_init__(self) -> None:
        problems = []
        if self.eval_opponents is None:
            self.eval_opponents = list(DEFAULT_EVAL_OPPONENTS.get(self.game, []))
        if self.game not in GAMES:
            problems.append(f"game must be one of {', '.join(GAMES)}, got {self.game!r}")
        if self.method not in METHODS:
            problems.append(f"method must be one of {', '.join(METHODS)}, got {self.method!r}")
        if self.representation not in REPRESENTATIONS:
            problems.append(f"representation must be one of {', '.join(REPRESENTATIONS)}, got "
                            f"{self.representation!r}")
        if not (isinstance(self.hidden, list) and self.hidden
                and all(isinstance(h, int) and h >= 1 for h in self.hidden)):
            problems.append(f"hidden must list positive widths, got {self.hidden!r}")
        if not isinstance(self.opening, int) or isinstance(self.opening, bool) \
                or not 0 <= self.opening <= 100:
            problems.append(f"opening must be a whole number in 0..100, got {self.opening!r}")
        for name in ("games", "eval_every", "eval_games", "best", "trials"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                problems.append(f"{name} must be a whole number >= 1, got {v!r}")
        for name in ("lam", "gamma", "epsilon"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or not 0 <= v <= 1:
                problems.append(f"{name} must be in [0, 1], got {v!r}")
        if not isinstance(self.alpha, (int, float)) or not 0 < self.alpha < 100:
            problems.append(f"alpha must be in (0, 100), got {self.alpha!r}")
        if not isinstance(self.alpha_end, (int, float)) or not 0 <= self.alpha_end < 100:
            problems.append(f"alpha_end must be in [0, 100), got {self.alpha_end!r}")
        if self.game in GAMES:
            names = player_names(self.game)
            if self.opponent != "self" and self.opponent not in names:
                problems.append(f"opponent must be 'self' or one of {', '.join(names)}")
            if not self.eval_opponents or set(self.eval_opponents) - set(names):
                problems.append(f"eval_opponents must list players of {', '.join(names)}")
        if problems:
            raise ValueError("bad small-game training config: " + "; ".join(problems))

    @classmethod
    def from_toml(cls, path: str | os.PathLike) -> "GameRunConfig":
        data = _read_toml(path)
        unknown = sorted(set(data) - {f.name for f in fields(cls)})
        if unknown:
            raise ValueError(f"{path}: unknown small-game training option(s) {', '.join(unknown)}")
        try:
            return cls(**data)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None

    def to_toml(self) -> str:
        return "".join(f"{k} = {json.dumps(v)}\n" for k, v in asdict(self).items())


def _read_toml(path: str | os.PathLike) -> dict[str, Any]:
    try:
        return tomllib.loads(read_regular(path, "training config", MAX_TEXT_BYTES).decode("utf-8"))
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the training config ({exc.strerror})") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: not valid TOML ({exc})") from None


def is_game_config(path: str | os.PathLike) -> bool:
    """True when the TOML file at ``path`` is a small game's config (it has a ``game`` key)."""
    return "game" in _read_toml(path)


def evaluate(net: GameNetwork, opponents: list[str], games: int, seed: int) -> list[dict]:
    """Greedy games of ``net`` against each opponent from both seats: a record per pair."""
    out = []
    for opponent in opponents:
        for seat in ("first", "second"):
            if seat == "first":
                r = play(net.game, net, opponent, games, seed=seed)
            else:       # the opponent's record, turned into the net's
                o = play(net.game, opponent, net, games, seed=seed)
                r = GameRecord(o.losses, o.draws, o.wins)
            out.append({"opponent": opponent, "seat": seat, **r.rates()})
    return out


def alpha_at(config: GameRunConfig, games_done: int) -> float:
    """The step size of a chunk starting after ``games_done`` games."""
    if not config.alpha_end:
        return config.alpha
    return config.alpha + (config.alpha_end - config.alpha) * games_done / config.games


def _train_chunk(config: GameRunConfig, net: GameNetwork, n: int, first_game: int) -> None:
    alpha = alpha_at(config, first_game)
    if config.method == "td":
        train_td(net, n, alpha, config.lam, epsilon=config.epsilon, opening=config.opening,
                 opponent=config.opponent, seed=config.seed, first_game=first_game)
    elif config.method == "q":
        train_q(net, n, alpha, config.gamma, epsilon=config.epsilon, opening=config.opening,
                opponent=config.opponent, seed=config.seed, first_game=first_game)
    else:
        train_simulation(net, n, alpha, best=config.best, trials=config.trials,
                         seed=config.seed, first_game=first_game)


def train_game_run(config: GameRunConfig, run: str | os.PathLike, *, resume: bool = True,
                   progress: Callable[[int, int], None] | None = None,
                   stop: threading.Event | None = None) -> GameNetwork:
    """Train (or resume) run directory ``run``; returns the network.  ``progress(games,
    total)`` is called after every evaluation; once ``stop`` is set the run stops after the
    current evaluation (saved, resumable: ``metadata["games"]`` says how far it got)."""
    rd = RunDir(run)
    rd.path.mkdir(parents=True, exist_ok=True)
    net = GameNetwork(config.game, config.representation, config.hidden, seed=config.seed,
                      init_range=config.init_range)
    done = 0
    if resume and rd.checkpoint.exists():
        saved = GameRunConfig.from_toml(rd.config)
        if {**asdict(saved), "games": 0} != {**asdict(config), "games": 0}:
            raise ValueError(f"{run}: its config.toml differs from this config (only games may "
                             f"change); train elsewhere or restart")
        net = GameNetwork.load(rd.checkpoint)
        done = int(net.metadata.get("games", 0))
    elif rd.log.exists():
        rd.log.unlink()
    atomic_write(rd.config, lambda f: f.write(config.to_toml().encode()))
    with open(rd.log, "a") as f:
        while done < config.games and not (stop is not None and stop.is_set()):
            n = min(config.eval_every - done % config.eval_every, config.games - done)
            _train_chunk(config, net, n, done)
            done += n
            net.metadata["games"] = done
            records = evaluate(net, config.eval_opponents, config.eval_games, config.eval_seed)
            for r in records:
                f.write(json.dumps({"kind": "game_eval", "games": done, **r}) + "\n")
            head = records[0]
            ppg = head["win"] - head["loss"]
            var = head["win"] + head["loss"] - ppg ** 2
            ci95 = 1.96 * math.sqrt(max(var, 0) / config.eval_games)
            f.write(json.dumps({"kind": "eval", "games": done, "a": "net", "b": head["opponent"],
                                "ppg": ppg, "ci95": ci95}) + "\n")
            f.flush()
            net.save(rd.checkpoint)
            if progress is not None:
                progress(done, config.games)
    net.save(rd.network)
    log.info("%s: %d games; %s", run, done, evaluate(net, config.eval_opponents[:1],
                                                       config.eval_games, config.eval_seed))
    return net


def sweep_run(job: tuple[str, dict, int], stop=None, report=None) -> dict:
    """One run of a sweep of a small game (the ``train_and_evaluate`` of its
    :class:`~bgengine.training.sweep.SweepKind`): train or resume the run of ``job`` =
    ``(run directory, GameRunConfig settings as a dict, eval_games)``, then play
    ``eval_games`` greedy games from both seats against each of its evaluation opponents.
    Its ``ppg`` is the mean of win - loss over those opponents and seats."""
    from types import SimpleNamespace

    import numpy as np

    from bgengine.training.sweep import EVAL_SEED

    run, cfg_dict, eval_games = job
    cfg = GameRunConfig(**cfg_dict)
    if stop is not None and stop.is_set():
        return {"run": str(run), "complete": False, "games_trained": None}
    log.info("%s: training %d %s games (%s)", run, cfg.games, cfg.game, cfg.method)
    progress = None if report is None else \
        (lambda done, _total: report(SimpleNamespace(run=str(run), games=done)))
    net = train_game_run(cfg, run, progress=progress, stop=stop)
    done = int(net.metadata["games"])
    if done < cfg.games:
        return {"run": str(run), "complete": False, "games_trained": done}
    records = evaluate(net, cfg.eval_opponents, eval_games, EVAL_SEED)
    ppg = float(np.mean([r["win"] - r["loss"] for r in records]))
    log.info("%s: %+.3f (win - loss) over %s, both seats, %d games each", run, ppg,
             ", ".join(cfg.eval_opponents), eval_games)
    return {"run": str(run), "complete": True, "games_trained": done, "ppg": ppg,
            "games": eval_games, "evaluations": records}


def games_counted(config: GameRunConfig) -> str:
    """What a run's games are, for a plot's x-axis: ``self-play games`` (the network plays
    itself, or learns by simulation), else ``training games`` (against a reference player)."""
    self_play = config.method == "simulation" or config.opponent == "self"
    return "self-play games" if self_play else "training games"
