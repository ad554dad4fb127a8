"""A training run's directory: the one owner of its layout and file formats.

::

    RUN/config.toml      the TrainConfig (written at the start; a resume reads it and must
                         match it but for ``games``, the run's length)
    RUN/checkpoint.npz   weights, older snapshots and the schedule state (atomic writes)
    RUN/network.npz      the latest network (or evaluator, for class networks), loadable
                         with load_evaluator / net:RUN/network.npz
    RUN/best.npz         the one that scored best against the evaluation opponent so far
    RUN/log.jsonl        one JSON object per line: training chunks, evaluations, step-downs
    RUN/checkpoints/     games_N.npz every snapshot_every games (for ``bgengine tournament``)
    RUN/log.jsonl.unreadable  lines of the log that could not be read, kept aside at a resume

:mod:`bgengine.training.trainer` writes runs; the tournament, the learning-curve plot,
the sweeps and the tools read them, all through this module.  A running run
locks its directory (POSIX ``flock`` on the directory itself).
"""

from __future__ import annotations

import json
import logging
import os
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

from bgengine._checks import is_int
from bgengine.core.fileio import NotARegularFile, atomic_write, open_regular, read_regular
from bgengine.core.network import MAX_MEMBER_BYTES

__all__ = ["RunDir", "read_log", "write_checkpoint", "read_checkpoint"]

log = logging.getLogger(__name__)

#: The snapshots' file names in RUN/checkpoints/: games_<games trained, 9 digits>.npz.
_SNAPSHOT_NAME = re.compile(r"games_(\d+)\.npz")
#: Temporary files of atomic writes (``NAME.XXXXXXXX.tmp``) a killed run can leave.
_TMP_NAME = re.compile(r"(config\.toml|checkpoint\.npz|network\.npz|best\.npz|log\.jsonl"
                       r"|games_\d+\.npz)\.[^/]+\.tmp")


@dataclass(frozen=True)
class RunDir:
    """The paths of one run directory (nothing is read or made by creating one)."""

    path: Path

    def __init__(self, path: str | os.PathLike) -> None:
        object.__setattr__(self, "path", Path(path))

    @property
    def config(self) -> Path:
        return self.path / "config.toml"

    @property
    def checkpoint(self) -> Path:
        return self.path / "checkpoint.npz"

    @property
    def network(self) -> Path:
        return self.path / "network.npz"

    @property
    def best(self) -> Path:
        return self.path / "best.npz"

    @property
    def log(self) -> Path:
        return self.path / "log.jsonl"

    @property
    def unreadable_log(self) -> Path:
        return self.path / "log.jsonl.unreadable"

    @property
    def snapshots(self) -> Path:
        """The folder of snapshot networks (``checkpoints/``)."""
        return self.path / "checkpoints"

    def snapshot(self, games: int) -> Path:
        """The snapshot file of the network after ``games`` games of training."""
        return self.snapshots / f"games_{games:09d}.npz"

    def snapshot_files(self) -> list[tuple[int, Path]]:
        """(games trained, file) of the snapshots in ``checkpoints/``, oldest first."""
        if not self.snapshots.is_dir():
            return []
        found = ((_SNAPSHOT_NAME.fullmatch(p.name), p) for p in self.snapshots.glob("games_*.npz"))
        return sorted((int(m.group(1)), p) for m, p in found if m)

    def is_run(self) -> bool:
        """True if the directory holds a run's latest network."""
        return self.network.exists()

    def progress_files(self) -> list[str]:
        """The files of the run's progress present (config.toml alone is none)."""
        found = [p.name for p in (self.checkpoint, self.network, self.best) if p.exists()]
        if self.log.exists() and (not self.log.is_file() or self.log.stat().st_size > 0):
            found.append(self.log.name)
        if self.snapshot_files():
            found.append(self.snapshots.name + "/")
        return found

    def remove_stale_tmp(self) -> None:
        """Remove what killed runs left half-written (call with the run locked: no
        temporary file is in use then)."""
        for folder in (self.path, self.snapshots):
            for p in folder.glob("*.tmp") if folder.is_dir() else ():
                if _TMP_NAME.fullmatch(p.name) and p.is_file():
                    p.unlink()
                    log.info("removed %s (a write interrupted by a crash)", p)

    def lock(self) -> int | None:
        """Lock the directory against a second training process (POSIX; released when
        the process ends, however it ends).  Returns the descriptor for :meth:`unlock`;
        ``ValueError`` if another process holds the lock."""
        try:
            import fcntl
        except ImportError:             # Windows: no lock
            return None
        fd = os.open(self.path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise ValueError(f"{self.path} is in use by another training process") from None
        return fd

    @staticmethod
    def unlock(fd: int | None) -> None:
        if fd is not None:
            os.close(fd)                # closing releases the lock

    # ------------------------------------------------------------ the log

    def log_lines(self) -> list[tuple[bytes, dict | None]]:
        """Every line of the log with its record (None: unreadable).  A torn last line
        (no newline: a crash while it was written) is left out."""
        try:
            data = read_regular(self.log, "run's log")
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise ValueError(f"{self.log}: cannot read the run's log "
                             f"({exc.strerror or exc})") from None
        lines = data.splitlines(keepends=True)
        out = [(line, _parse_record(line)) for line in lines]
        if out and not lines[-1].endswith(b"\n") and out[-1][1] is None:
            out.pop()
        return out

    def log_plan(self, games: int) -> tuple[bytes, list[bytes]]:
        """For a resume at ``games``: the log's new text (records after the checkpoint
        are dropped: they will be written again; so is a torn last line) and its
        unreadable lines."""
        lines = self.log_lines()
        keep = [line if line.endswith(b"\n") else line + b"\n"
                for line, r in lines if r is not None and r["games"] <= games]
        unreadable = [line for line, r in lines if r is None]
        return b"".join(keep), unreadable

    def truncate_log(self, plan: tuple[bytes, list[bytes]]) -> None:
        """Apply a :meth:`log_plan`: unreadable lines are kept aside in
        ``log.jsonl.unreadable``, never lost; the log is rewritten atomically, if it
        changes."""
        text, unreadable = plan
        if unreadable:
            with open(self.unreadable_log, "ab") as f:
                f.write(b"".join(u if u.endswith(b"\n") else u + b"\n" for u in unreadable))
            log.warning("%s: %d unreadable line(s) moved to %s", self.log, len(unreadable),
                        self.unreadable_log)
        if not self.log.exists() or read_regular(self.log, "run's log") != text:
            atomic_write(self.log, lambda f: f.write(text))


def _parse_record(line: bytes) -> dict | None:
    """A log line's record, or None if it is not a JSON object with a game count."""
    try:
        record = json.loads(line.decode("utf-8"))
    except ValueError:              # bad UTF-8 or JSON (UnicodeDecodeError is one too)
        return None
    if not isinstance(record, dict) or not is_int(record.get("games")):
        return None
    return record


def read_log(run: str | os.PathLike) -> Iterator[dict]:
    """The records of ``RUN/log.jsonl``.  A line that is not a record (bad bytes, not
    JSON) is skipped with a warning naming the file and line; a torn last line quietly."""
    rd = RunDir(run)
    lines = rd.log_lines()
    bad = [i + 1 for i, (_, r) in enumerate(lines) if r is None]
    if bad:
        log.warning("%s: %d unreadable line(s) skipped (line %s%s)", rd.log, len(bad),
                    ", ".join(map(str, bad[:5])), ", ..." if len(bad) > 5 else "")
    for _, record in lines:
        if record is not None:
            yield record


# ---------------------------------------------------------------- the checkpoint

def write_checkpoint(run: str | os.PathLike, weights: dict[str, np.ndarray], state: dict,
                     snapshots: dict[int, np.ndarray]) -> None:
    """Write ``RUN/checkpoint.npz`` atomically: the arrays ``weights`` by name, the
    JSON object ``state`` (its ``snapshot_games`` is set here) and one array
    ``snapshot_<games>`` per older snapshot of the weights."""
    arrays = dict(weights)
    arrays["state"] = np.array(json.dumps({**state, "snapshot_games": sorted(snapshots)}))
    for g, p in snapshots.items():
        arrays[f"snapshot_{g}"] = p
    atomic_write(RunDir(run).checkpoint, lambda f: np.savez(f, **arrays))


def read_checkpoint(run: str | os.PathLike, keys: Iterable[str] = ()
                    ) -> tuple[dict, dict[str, np.ndarray], dict[int, np.ndarray]]:
    """``(state, weights, snapshots)`` of ``RUN/checkpoint.npz``: the state object, the
    arrays named in ``keys`` and the snapshots by games trained.  Members are sized
    before they are read.  ``ValueError("unreadable checkpoint (...)")`` for any
    archive, JSON or key problem; the values' meaning is the caller's to check."""
    path = RunDir(run).checkpoint
    try:
        with open_regular(path, "checkpoint") as f:
            with zipfile.ZipFile(f) as zf:
                big = [i.filename for i in zf.infolist() if i.file_size > MAX_MEMBER_BYTES]
                if big:
                    raise ValueError(f"member {big[0]!r} inflates beyond {MAX_MEMBER_BYTES} bytes")
            f.seek(0)
            with np.load(f, allow_pickle=False) as z:
                if z["state"].ndim != 0 or z["state"].dtype.kind != "U":
                    raise ValueError("its state is not a JSON string")
                state = json.loads(str(z["state"]))
                if not isinstance(state, dict):
                    raise ValueError("its state is not a JSON object")
                weights = {k: z[k] for k in keys}
                snap_games = state["snapshot_games"]
                if not isinstance(snap_games, list) or not all(is_int(g) for g in snap_games):
                    raise ValueError(f"snapshot_games must list game numbers, got {snap_games!r}")
                snaps = {int(g): z[f"snapshot_{g}"] for g in snap_games}
    except NotARegularFile:
        raise
    except Exception as exc:  # zip, npz, JSON, missing keys, wrong types alike
        raise ValueError(f"unreadable checkpoint ({type(exc).__name__}: {exc})") from None
    return state, weights, snaps
