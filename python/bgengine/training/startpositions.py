"""Start positions for training: positions of one class sampled from self-play games.

A class network can be trained on games that start where its class begins instead of at
the opening (``TrainConfig.starts``, :func:`bgengine.core.td.train_games`'s ``starts``): e.g.
a race network on races, which are short and cheap to play.  The positions come from
the games a network plays against itself at 0-ply, so that they are the positions its
class meets in play: from each game, the first position of the class (the side on roll
in row 1).  A file of them is an ``.npz`` holding ``boards`` (uint8, (N, 2, 25)) and a
JSON ``metadata`` string.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bgengine._checks import checked_int, checked_real
from bgengine.core.agents import Player
from bgengine.core.board import validate_boards
from bgengine.core.dice import Dice
from bgengine.core.evaluator import CLASSES, Evaluator, as_evaluator
from bgengine.core.fileio import NotARegularFile, atomic_write, open_regular
from bgengine.matches.game import game_decisions
from bgengine.core.network import Network

__all__ = ["sample_positions", "play_positions", "save_positions", "load_positions"]

log = logging.getLogger(__name__)


def sample_positions(model: Network | Evaluator, n: int, position_class: str = "race",
                     seed: int = 0,
                     progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """``n`` positions (uint8, (n, 2, 25), side on roll in row 1): from each self-play game
    of ``model`` at 0-ply (game ``i`` rolls ``Dice(seed, stream=i)``), the first position
    that ``model``'s evaluator puts in ``position_class`` (one of
    :data:`bgengine.core.evaluator.CLASSES`).  Games that never reach the class give none.
    ``progress(found, n)`` is called after each game.  ``n``: an integer in 1..10**7 (the
    positions are allocated at once, 50 bytes each)."""
    if position_class not in CLASSES:
        raise ValueError(f"position_class must be one of {', '.join(CLASSES)}, "
                         f"got {position_class!r}")
    n = checked_int(n, "n", 1, 10**7, "1..10**7")
    evaluator = as_evaluator(model)
    wanted = CLASSES.index(position_class)
    player = Player("net", model)
    out = np.empty((n, 2, 25), np.uint8)
    found = game = 0
    while found < n:
        loop = game_decisions(Dice(seed, stream=game))
        k = None
        try:
            while True:
                d = loop.send(k)
                if int(evaluator.classify(d.board)) == wanted:
                    out[found] = d.board
                    found += 1
                    break
                k = 0 if len(d.afterstates) == 1 else player.choose(d.board, d.d1, d.d2)
        except StopIteration:
            pass
        game += 1
        if progress is not None:
            progress(found, n)
        if game > 100 * n + 1000 and found < game / 100:
            raise ValueError(f"{position_class} positions are too rare in self-play "
                             f"({found} in {game} games)")
    log.info("sampled %d %s positions from %d self-play games", n, position_class, game)
    return out


def play_positions(model: Network | Evaluator, n_games: int, seed: int = 0,
                   epsilon: float = 0.0) -> np.ndarray:
    """Every position met (uint8, (N, 2, 25), side on roll in row 1) in ``n_games``
    self-play games of ``model`` at 0-ply (game ``i`` rolls ``Dice(seed, stream=i)``),
    each play random with probability ``epsilon`` (for more varied positions): the
    positions ``model`` values in play, e.g. to fit a grown network on
    (:func:`bgengine.training.growth.deepen`).  ``n_games``: an integer in 1..10**6 (about 60
    positions a game are kept, 3 GB at most); ``epsilon``: a number in [0, 1]."""
    n_games = checked_int(n_games, "n_games", 1, 10**6, "1..10**6")
    epsilon = checked_real(epsilon, "epsilon", 0.0, 1.0, "[0, 1]")
    player = Player("net", model)
    noise = np.random.default_rng(seed)
    out = []
    for game in range(n_games):
        loop = game_decisions(Dice(seed, stream=game))
        k = None
        try:
            while True:
                d = loop.send(k)
                out.append(d.board)
                if len(d.afterstates) == 1:
                    k = 0
                elif noise.random() < epsilon:
                    k = int(noise.integers(len(d.afterstates)))
                else:
                    k = player.choose(d.board, d.d1, d.d2)
        except StopIteration:
            pass
    return np.array(out, np.uint8)


def save_positions(path: str | Path, boards: np.ndarray, metadata: dict | None = None) -> None:
    """Write ``boards`` (checked: (N, 2, 25) positions) and ``metadata`` to ``path`` (atomically)."""
    arr = validate_boards(boards)
    text = json.dumps(metadata or {}, sort_keys=True)
    atomic_write(Path(path), lambda f: np.savez_compressed(f, boards=arr, metadata=np.array(text)))


def load_positions(path: str | Path) -> tuple[np.ndarray, dict]:
    """The boards and metadata of a file written by :func:`save_positions`; ``ValueError``
    naming the file when it is not one."""
    try:
        with open_regular(path, "positions file") as fh, np.load(fh, allow_pickle=False) as f:
            if "boards" not in f.files:
                raise ValueError("no 'boards' array")
            boards = validate_boards(f["boards"])
            meta = json.loads(str(f["metadata"])) if "metadata" in f.files else {}
    except NotARegularFile:
        raise                   # its own message names the file
    except (OSError, ValueError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a positions file ({exc})") from None
    return boards, meta
