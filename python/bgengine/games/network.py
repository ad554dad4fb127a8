"""The networks of the small games: one sigmoid output, the expected score (win 1, draw 1/2,
loss 0) of the side to move, over one of a game's representations.

The weights are one flat float32 vector in the layout of :class:`bgengine.core.network.Network`
(``[W0 (in x h), b0, W1 (h x 1), b1]``, more hidden layers alike), run by the same compiled
kernels in :mod:`bgengine.core.smalllearners`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from bgengine.core.fileio import atomic_write, open_regular
from bgengine.games import game_module
from bgengine.core.smalllearners import REPRESENTATIONS

__all__ = ["GameNetwork"]

FORMAT = "bgengine-game-network"


class GameNetwork:
    """A network for game ``game`` over representation ``representation`` (a name of
    ``REPRESENTATIONS``), hidden layers ``hidden``, weights uniform in
    ``[-init_range, init_range]`` from ``seed`` unless ``params`` are given."""

    def __init__(self, game: str, representation: str = "separated", hidden=(40,), *,
                 seed: int = 0, init_range: float = 0.1, params=None,
                 metadata: dict | None = None) -> None:
        if representation not in REPRESENTATIONS:
            raise ValueError(f"unknown representation {representation!r}; known: "
                             f"{', '.join(REPRESENTATIONS)}")
        n_in = game_module(game).N_INPUTS[REPRESENTATIONS.index(representation)]
        self.game = game
        self.representation_name = representation
        self.sizes = (n_in, *(int(h) for h in hidden), 1)
        self.metadata = dict(metadata or {})    # saved with the weights (JSON)
        n = sum(a * b + b for a, b in zip(self.sizes, self.sizes[1:]))
        if params is None:
            params = np.random.default_rng(seed).uniform(-init_range, init_range, n)
        self.params = np.array(params, dtype=np.float32).reshape(-1)
        if self.params.shape[0] != n:
            raise ValueError(f"params has {self.params.shape[0]} values; sizes {self.sizes} "
                             f"need {n}")

    @property
    def representation(self) -> int:
        """The representation's number (what the compiled learners take)."""
        return REPRESENTATIONS.index(self.representation_name)

    @property
    def hidden(self) -> tuple[int, ...]:
        return self.sizes[1:-1]

    def copy(self) -> "GameNetwork":
        return GameNetwork(self.game, self.representation_name, self.hidden, params=self.params,
                           metadata=json.loads(json.dumps(self.metadata)))

    def __repr__(self) -> str:
        return (f"GameNetwork({self.game}, {'-'.join(map(str, self.sizes))}, "
                f"{self.representation_name})")

    def save(self, path: str | os.PathLike) -> None:
        """Write ``path`` (.npz: params and JSON metadata), atomically."""
        meta = {"format": FORMAT, "format_version": 1, "game": self.game,
                "representation": self.representation_name, "sizes": list(self.sizes),
                "metadata": self.metadata}
        atomic_write(Path(path), lambda f: np.savez(f, params=self.params,
                                                    metadata=np.array(json.dumps(meta))))

    @classmethod
    def load(cls, path: str | os.PathLike) -> "GameNetwork":
        """Read a file written by :meth:`save` (``ValueError`` if it is not one)."""
        arrays, meta = _read(path)
        try:
            net = cls(meta["game"], meta["representation"], meta["sizes"][1:-1],
                      params=arrays["params"], metadata=meta.get("metadata"))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path}: not a small game's network ({exc})") from None
        if list(net.sizes) != list(meta["sizes"]):
            raise ValueError(f"{path}: sizes {meta['sizes']} do not fit {meta['game']}")
        return net


def _read(path: str | os.PathLike) -> tuple[dict, dict]:
    """The archive's arrays and metadata; ``ValueError`` unless it holds a small game's network."""
    import zipfile
    try:
        with open_regular(path, "network file") as fh, np.load(fh, allow_pickle=False) as z:
            if "metadata" not in z.files or "params" not in z.files:
                raise ValueError("missing params or metadata")
            meta = json.loads(str(z["metadata"]))
            arrays = {"params": z["params"]}
    except FileNotFoundError:
        raise ValueError(f"{path}: no such network file") from None
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path}: not a small game's network ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{path}: not a small game's network")
    return arrays, meta
