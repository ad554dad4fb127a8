"""The data store: positions and their rollout labels, compact enough to keep in git.

A *pool* is a file of positions to label (``.npz``): ``keys`` (uint8, (N, 10): gnubg's
10-byte position keys, the side on roll in row 1), ``classes`` (uint8, (N,): index into
:data:`bgengine.labelling.classes.POSITION_CLASSES`), ``sources`` (uint8, (N,): index
into :data:`bgengine.labelling.sampling.SOURCES`) and a JSON ``metadata`` string (how it
was sampled, the class counts).

A *store* is a folder of labels made with one setting by one evaluator:

``manifest.json``
    ``format`` (``bgengine-labels/1``), ``settings`` (:class:`LabelSettings`),
    ``evaluator`` (the SHA-256 of the labelling evaluator's file), and ``shards``: for
    each shard its ``file``, ``pool`` (the pool file's name and SHA-256), ``index``
    (shard ``i`` holds the pool's positions ``i * shard_size`` onward), ``count``,
    ``sha256`` and ``classes`` (counts per class); ``counts`` sums them.
``POOL-NNNNN.npz`` (compressed)
    ``keys`` (uint8, (n, 10)), ``classes`` (uint8, (n,)), ``outputs`` (float16, (n, 5):
    mean win, win gammon, win backgammon, lose gammon, lose backgammon of the side on
    roll, before it rolls), ``outputs_stderr`` (float16, (n, 5)) and ``equity_stderr``
    (float16, (n,)): standard errors of the means.

Each position's rollout seed is derived from its key and the settings' ``seed``
(:func:`position_seed`), so a label does not depend on which shard or machine made it.
A shard is written whole (atomically) before the manifest names it: a run killed at any
moment loses at most the shard it was labelling.  About 30 bytes a position: a million
labelled positions take about 25 MB.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from bgengine.core.fileio import (MAX_TEXT_BYTES, NotARegularFile, atomic_write, open_regular,
                             read_regular)
from bgengine.labelling.classes import POSITION_CLASSES, class_counts

__all__ = ["FORMAT", "LabelSettings", "Pool", "LabelStore", "Labels", "keys_to_boards",
           "boards_to_keys", "position_seed", "file_sha256", "save_pool", "load_pool",
           "save_arrays", "load_arrays", "select_pool", "LABEL_PREFERENCES"]

log = logging.getLogger(__name__)


def save_arrays(path: str | Path, metadata: dict, **arrays: np.ndarray) -> None:
    """A labelled set as one compressed ``.npz`` (written atomically): ``arrays`` and the
    JSON ``metadata`` string."""
    text = json.dumps(metadata, sort_keys=True)
    atomic_write(Path(path), lambda f: np.savez_compressed(f, metadata=np.array(text), **arrays))


def load_arrays(path: str | Path, kind: str, names: tuple[str, ...],
                optional: tuple[str, ...] = ()) -> tuple[list, dict]:
    """The arrays ``names``, then ``optional`` ones (None where the file has none), and the
    metadata of a file :func:`save_arrays` wrote; ``ValueError`` naming the file and
    ``kind`` if it is not one."""
    try:
        with open_regular(path, kind) as fh, np.load(fh, allow_pickle=False) as f:
            return ([f[n] for n in names] + [f[n] if n in f.files else None for n in optional],
                    json.loads(str(f["metadata"])))
    except NotARegularFile:
        raise                   # its own message names the file
    except (OSError, KeyError, ValueError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a {kind} ({exc})") from None

FORMAT = "bgengine-labels/1"
POOL_FORMAT = "bgengine-positions/1"


@dataclass(frozen=True)
class LabelSettings:
    """How positions are labelled: cubeless rollouts of ``trials`` games each, plays chosen
    at ``plies`` (0 or 1), stopped after ``truncate`` plays (0: played out) and valued by
    the evaluator there, with luck-based ``variance_reduction`` or not; ``seed`` enters
    every position's seed; ``shard_size`` positions a shard; ``truncate_bearoff``: each
    trial stopped where the bear-off database values it (both sides home) and valued by it
    (stores made before this setting existed read it as False)."""

    trials: int = 648
    plies: int = 0
    truncate: int = 0
    variance_reduction: bool = False
    seed: int = 0
    shard_size: int = 500
    truncate_bearoff: bool = False

    def __post_init__(self) -> None:
        for name in ("trials", "plies", "truncate", "seed", "shard_size"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValueError(f"{name} must be an integer, got {v!r}")
        if not 1 <= self.trials <= 10**7:
            raise ValueError(f"trials must be in 1..10000000, got {self.trials}")
        if self.plies not in (0, 1, 2):
            raise ValueError(f"plies must be 0, 1 or 2, got {self.plies}")
        if not 0 <= self.truncate <= 10000:
            raise ValueError(f"truncate must be in 0..10000, got {self.truncate}")
        if not 0 <= self.seed < 2**63:
            raise ValueError(f"seed must be in 0..2**63-1, got {self.seed}")
        if not 1 <= self.shard_size <= 10**6:
            raise ValueError(f"shard_size must be in 1..1000000, got {self.shard_size}")
        for name in ("variance_reduction", "truncate_bearoff"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of a file's bytes, in hex."""
    h = hashlib.sha256()
    with open_regular(path) as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def position_seed(key: bytes, seed: int) -> int:
    """The rollout seed of the position with gnubg key ``key`` under settings ``seed``:
    the first 8 bytes of SHA-256(key, seed as 8 little-endian bytes), 63 bits."""
    digest = hashlib.sha256(bytes(key) + int(seed).to_bytes(8, "little")).digest()
    return int.from_bytes(digest[:8], "little") & (2**63 - 1)


# ------------------------------------------------------------ keys

def boards_to_keys(boards: np.ndarray) -> np.ndarray:
    """gnubg's 10-byte position keys (uint8, (N, 10)) of boards (N, 2, 25): for each of
    the 50 counts (row 0 first), that many one-bits then a zero, least significant first."""
    boards = np.asarray(boards, np.int64).reshape(len(boards), 50)
    n = len(boards)
    ends = np.cumsum(boards + 1, axis=1) - 1        # bit of each slot's terminating zero
    if n and ends[:, -1].max() >= 80:
        raise ValueError("a board holds more than 30 checkers; it has no position key")
    # ones from each slot's start to its end - 1: +1 at starts, -1 at ends, summed up
    marks = np.zeros((n, 81), np.int64)
    rows = np.repeat(np.arange(n), 50)
    np.add.at(marks, (rows, (ends - boards).ravel()), 1)
    np.add.at(marks, (rows, ends.ravel()), -1)
    bits = np.cumsum(marks, axis=1)[:, :80].astype(np.uint8)
    return np.packbits(bits, axis=1, bitorder="little")


def keys_to_boards(keys: np.ndarray) -> np.ndarray:
    """The boards (uint8, (N, 2, 25)) of gnubg position keys (uint8, (N, 10))."""
    keys = np.asarray(keys, np.uint8)
    if keys.ndim != 2 or keys.shape[1] != 10:
        raise ValueError(f"keys must have shape (N, 10), got {keys.shape}")
    bits = np.unpackbits(keys, axis=1, bitorder="little").astype(np.int64)   # (N, 80)
    slot = np.cumsum(1 - bits, axis=1) - (1 - bits)       # zeros before each bit
    n = len(keys)
    counts = np.zeros((n, 51), np.int64)
    rows = np.repeat(np.arange(n), 80)
    ones = bits.ravel() == 1
    np.add.at(counts, (rows[ones], np.minimum(slot.ravel()[ones], 50)), 1)
    if counts[:, 50].any() or (counts[:, :50].reshape(n, 2, 25).sum(axis=2) > 15).any():
        raise ValueError("a key does not encode a board of at most 15 checkers a side")
    return counts[:, :50].reshape(n, 2, 25).astype(np.uint8)


# ------------------------------------------------------------ pools

@dataclass
class Pool:
    """Positions to label (see the module docstring); ``path`` is where they were read."""

    keys: np.ndarray
    classes: np.ndarray
    sources: np.ndarray
    metadata: dict
    path: Path | None = None
    sha256: str | None = None

    def __len__(self) -> int:
        return len(self.keys)


def save_pool(path: str | Path, keys: np.ndarray, classes: np.ndarray, sources: np.ndarray,
              metadata: dict) -> None:
    """Write a pool file (atomically); its metadata gains ``format`` and ``counts``."""
    keys = np.ascontiguousarray(keys, np.uint8)
    if keys.ndim != 2 or keys.shape[1] != 10:
        raise ValueError(f"keys must have shape (N, 10), got {keys.shape}")
    if not len(classes) == len(sources) == len(keys):
        raise ValueError("keys, classes and sources must have one row per position")
    meta = dict(metadata, format=POOL_FORMAT, positions=len(keys),
                counts=class_counts(classes))
    text = json.dumps(meta, sort_keys=True)
    atomic_write(Path(path), lambda f: np.savez_compressed(
        f, keys=keys, classes=np.asarray(classes, np.uint8),
        sources=np.asarray(sources, np.uint8), metadata=np.array(text)))


def load_pool(path: str | Path) -> Pool:
    """A pool file; ``ValueError`` naming the file when it is not one."""
    path = Path(path)
    try:
        with open_regular(path, "pool") as fh, np.load(fh, allow_pickle=False) as f:
            missing = {"keys", "classes", "sources", "metadata"} - set(f.files)
            if missing:
                raise ValueError(f"missing {', '.join(sorted(missing))}")
            keys, classes, sources = f["keys"], f["classes"], f["sources"]
            meta = json.loads(str(f["metadata"]))
    except NotARegularFile:
        raise                   # its own message names the file
    except (OSError, ValueError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a positions pool ({exc})") from None
    if keys.dtype != np.uint8 or keys.ndim != 2 or keys.shape[1] != 10 \
            or not len(keys) == len(classes) == len(sources):
        raise ValueError(f"{path}: not a positions pool (bad array shapes)")
    return Pool(keys, classes, sources, meta, path, file_sha256(path))


def select_pool(path: str | Path, parts: Sequence[Pool], classes: Sequence[str] = ()) -> Pool:
    """Write the positions of the pools ``parts`` whose class is one of ``classes`` (all when
    empty), in order, each once (the first time it is met), as the pool file ``path``; returns
    it as read back."""
    unknown = sorted(set(classes) - set(POSITION_CLASSES))
    if unknown:
        raise ValueError(f"unknown classes {unknown}; known: {', '.join(POSITION_CLASSES)}")
    if not parts:
        raise ValueError("no pools to select from")
    keys = np.concatenate([p.keys for p in parts])
    cls = np.concatenate([p.classes for p in parts])
    src = np.concatenate([p.sources for p in parts])
    keep = np.ones(len(keys), bool)
    if classes:
        keep &= np.isin(cls, [POSITION_CLASSES.index(c) for c in classes])
    _, first = np.unique(keys, axis=0, return_index=True)
    unique = np.zeros(len(keys), bool)
    unique[first] = True
    keep &= unique
    save_pool(path, keys[keep], cls[keep], src[keep],
              {"from": [str(p.path) for p in parts], "selected": list(classes) or "all"})
    return load_pool(path)


# ------------------------------------------------------------ stores

#: How :meth:`Labels.unique` picks among a position's labels.
LABEL_PREFERENCES = ("precise", "first")


@dataclass
class Labels:
    """Labelled positions read from a store: ``keys`` (uint8, (N, 10)), ``classes``
    (uint8, (N,)), ``outputs`` and ``outputs_stderr`` (float32, (N, 5)), ``equity_stderr``
    (float32, (N,))."""

    keys: np.ndarray
    classes: np.ndarray
    outputs: np.ndarray
    outputs_stderr: np.ndarray
    equity_stderr: np.ndarray

    def __len__(self) -> int:
        return len(self.keys)

    def boards(self) -> np.ndarray:
        """The positions (uint8, (N, 2, 25), side on roll in row 1)."""
        return keys_to_boards(self.keys)

    def unique(self, prefer: str = "precise") -> "Labels":
        """One row per position: where a position was labelled more than once (e.g. in two
        stores), the label with the smallest equity standard error (``prefer="precise"``) or
        the first of its rows (``"first"``: e.g. the store of the stronger rollout player,
        listed first)."""
        if prefer not in LABEL_PREFERENCES:
            raise ValueError(f"prefer must be one of {', '.join(LABEL_PREFERENCES)}, "
                             f"got {prefer!r}")
        tie = self.equity_stderr if prefer == "precise" else np.arange(len(self.keys))
        order = np.lexsort((tie, *self.keys.T[::-1]))
        k = self.keys[order]
        first = np.ones(len(k), bool)
        first[1:] = (k[1:] != k[:-1]).any(axis=1)
        rows = np.sort(order[first])
        return Labels(self.keys[rows], self.classes[rows], self.outputs[rows],
                      self.outputs_stderr[rows], self.equity_stderr[rows])

    @staticmethod
    def concatenate(parts: list["Labels"]) -> "Labels":
        """One set of all of ``parts``' rows, in order."""
        if not parts:
            return Labels(np.zeros((0, 10), np.uint8), np.zeros(0, np.uint8),
                          np.zeros((0, 5), np.float32), np.zeros((0, 5), np.float32),
                          np.zeros(0, np.float32))
        return Labels(*(np.concatenate([getattr(p, f) for p in parts]) for f in
                        ("keys", "classes", "outputs", "outputs_stderr", "equity_stderr")))


class LabelStore:
    """A folder of labels (see the module docstring), made with one :class:`LabelSettings`
    by one evaluator.  Opening a folder that has no manifest creates the store."""

    def __init__(self, root: str | Path, settings: LabelSettings | None = None,
                 evaluator_sha256: str | None = None) -> None:
        self.root = Path(root)
        manifest = self.root / "manifest.json"
        if manifest.exists():
            try:
                data = json.loads(read_regular(manifest, "manifest", MAX_TEXT_BYTES))
                if data.get("format") != FORMAT:
                    raise ValueError(f"format {data.get('format')!r}, expected {FORMAT!r}")
                stored = LabelSettings(**data["settings"])
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"{manifest}: not a label store manifest ({exc})") from None
            if settings is not None and settings != stored:
                raise ValueError(f"{self.root}: the store was labelled with {stored}, "
                                 f"not {settings}; use another folder")
            if evaluator_sha256 is not None and evaluator_sha256 != data["evaluator"]:
                raise ValueError(f"{self.root}: the store was labelled by evaluator "
                                 f"{data['evaluator'][:12]}, not {evaluator_sha256[:12]}; "
                                 "use another folder")
            self.settings = stored
            self.evaluator = str(data["evaluator"])
            self.shards: list[dict] = list(data["shards"])
        else:
            if settings is None or evaluator_sha256 is None:
                raise ValueError(f"{self.root}: no label store here (no manifest.json)")
            self.settings = settings
            self.evaluator = evaluator_sha256
            self.shards = []

    # -- reading
    def counts(self) -> dict[str, int]:
        """Labelled positions per class."""
        total = dict.fromkeys(POSITION_CLASSES, 0)
        for s in self.shards:
            for name, c in s["classes"].items():
                total[name] = total.get(name, 0) + int(c)
        return total

    def __len__(self) -> int:
        return sum(int(s["count"]) for s in self.shards)

    def done(self, pool: Pool) -> set[int]:
        """The shard indices of ``pool`` already labelled here; ``ValueError`` if the store
        holds shards of another pool of the same file name (their files would collide)."""
        if pool.path is not None:
            for s in self.shards:
                if s["pool"]["name"] == pool.path.name and s["pool"]["sha256"] != pool.sha256:
                    raise ValueError(f"{self.root} holds shards of another pool named "
                                     f"{pool.path.name}; give this pool another name")
        return {int(s["index"]) for s in self.shards if s["pool"]["sha256"] == pool.sha256}

    def load(self, verify: bool = True) -> Labels:
        """Every labelled position, shard by shard (checksums checked with ``verify``)."""
        parts = []
        for s in self.shards:
            path = self.root / s["file"]
            if verify and file_sha256(path) != s["sha256"]:
                raise ValueError(f"{path}: checksum differs from the manifest's")
            with open_regular(path, "label shard") as fh, np.load(fh, allow_pickle=False) as f:
                parts.append(Labels(f["keys"], f["classes"], f["outputs"].astype(np.float32),
                                    f["outputs_stderr"].astype(np.float32),
                                    f["equity_stderr"].astype(np.float32)))
        return Labels.concatenate(parts)

    # -- writing
    def add_shard(self, pool: Pool, index: int, labels: Labels) -> None:
        """Write shard ``index`` of ``pool`` (atomically), then the manifest naming it."""
        if pool.path is None or pool.sha256 is None:
            raise ValueError("a shard's pool must have been read from a file")
        self.root.mkdir(parents=True, exist_ok=True)
        name = f"{pool.path.stem}-{index:05d}.npz"
        path = self.root / name
        self._check_pool_name(pool)
        atomic_write(path, lambda f: np.savez_compressed(
            f, keys=labels.keys, classes=labels.classes,
            outputs=labels.outputs.astype(np.float16),
            outputs_stderr=labels.outputs_stderr.astype(np.float16),
            equity_stderr=labels.equity_stderr.astype(np.float16)))
        entry = {"file": name, "pool": {"name": pool.path.name, "sha256": pool.sha256},
                 "index": index, "count": len(labels), "sha256": file_sha256(path),
                 "classes": class_counts(labels.classes)}
        with self._locked():
            # other processes may be labelling other pools into this store: take their shards
            self.shards = self._manifest_shards(self.shards)
            self.shards = [s for s in self.shards
                           if not (s["pool"]["sha256"] == pool.sha256 and s["index"] == index)]
            self.shards.append(entry)
            self.shards.sort(key=lambda s: (s["pool"]["name"], s["index"]))
            self._write_manifest()

    def _manifest_shards(self, default: list) -> list:
        """The shards the manifest on disk names (other processes may have added some), or
        ``default`` when there is no manifest yet."""
        manifest = self.root / "manifest.json"
        if not manifest.exists():
            return default
        return list(json.loads(read_regular(manifest, "manifest", MAX_TEXT_BYTES))["shards"])

    def _check_pool_name(self, pool: Pool) -> None:
        """Refuse ``pool`` if the store holds shards of another pool of the same file name:
        shard files are named by it, so the two would overwrite each other's labels (e.g.
        two recipe phases' ``pool.npz`` labelled into one store)."""
        if any(s["pool"]["name"] == pool.path.name and s["pool"]["sha256"] != pool.sha256
               for s in self._manifest_shards([])):
            raise ValueError(f"{self.root}: it holds labels of another pool named "
                             f"{pool.path.name}: label each pool of that name into its own "
                             "store, or rename the pool file")

    def adopt(self, pool: Pool) -> int:
        """Take into the manifest the shard files of ``pool`` that are on disk but not named
        in it (a labeller stopped between writing a shard and the manifest, or a manifest
        restored from an older copy).  A file is taken only if it reads and its keys are
        exactly the pool's keys for that shard; others are left alone.  Returns how many."""
        if pool.path is None or pool.sha256 is None:
            raise ValueError("a shard's pool must have been read from a file")
        if not self.root.is_dir():
            return 0
        self._check_pool_name(pool)
        size = self.settings.shard_size
        adopted = 0
        with self._locked():
            self.shards = self._manifest_shards(self.shards)
            named = {s["file"] for s in self.shards}
            for path in sorted(self.root.glob(f"{pool.path.stem}-[0-9][0-9][0-9][0-9][0-9].npz")):
                if path.name in named:
                    continue
                index = int(path.stem.rsplit("-", 1)[1])
                expected = pool.keys[index * size:(index + 1) * size]
                try:
                    with open_regular(path, "label shard") as fh, \
                            np.load(fh, allow_pickle=False) as f:
                        keys, classes = f["keys"], f["classes"]
                        n = len(f["outputs"])
                except (OSError, ValueError, KeyError) as exc:
                    log.warning("%s: not adopted (%s)", path, exc)
                    continue
                if len(expected) == 0 or keys.shape != expected.shape \
                        or not np.array_equal(keys, expected) or n != len(keys):
                    log.warning("%s: not adopted (its keys are not shard %d of %s)",
                                path, index, pool.path.name)
                    continue
                self.shards.append({"file": path.name,
                                    "pool": {"name": pool.path.name, "sha256": pool.sha256},
                                    "index": index, "count": len(keys),
                                    "sha256": file_sha256(path),
                                    "classes": class_counts(classes)})
                adopted += 1
            if adopted:
                self.shards.sort(key=lambda s: (s["pool"]["name"], s["index"]))
                self._write_manifest()
        return adopted

    @contextlib.contextmanager
    def _locked(self):
        """The store's manifest lock (``.lock`` beside it, an advisory ``flock``)."""
        with open(self.root / ".lock", "a") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def _write_manifest(self) -> None:
        data = {"format": FORMAT, "settings": asdict(self.settings), "evaluator": self.evaluator,
                "positions": len(self), "counts": self.counts(), "shards": self.shards}
        text = json.dumps(data, indent=1, sort_keys=True) + "\n"
        atomic_write(self.root / "manifest.json", lambda f: f.write(text.encode()))
