"""Match files by their name: ``.mat`` (:mod:`bgengine.matfile`) or ``.sgf``
(:mod:`bgengine.sgf`), either one gzipped (``.mat.gz``, ``.sgf.gz``)."""

from __future__ import annotations

import gzip
from pathlib import Path

from bgengine.fileio import atomic_write
from bgengine.matchrecord import MatchRecord, MatchRecordError
from bgengine.matfile import read_mat, write_mat
from bgengine.sgf import read_sgf, write_sgf

__all__ = ["FORMATS", "file_format", "read_match_file", "write_match_file"]

#: The formats, by the suffix that names them.
FORMATS = ("mat", "sgf")


def file_format(path: str | Path) -> tuple[str, bool]:
    """``(format, gzipped)`` of ``path`` from its suffixes; ``ValueError`` for another."""
    suffixes = [s.lower() for s in Path(path).suffixes]
    gz = bool(suffixes) and suffixes[-1] == ".gz"
    if gz:
        suffixes.pop()
    kind = suffixes[-1][1:] if suffixes else ""
    if kind not in FORMATS:
        raise ValueError(f"{path}: a match file is .mat or .sgf (optionally .gz), "
                         f"not {''.join(Path(path).suffixes) or 'a file without a suffix'}")
    return kind, gz


def read_match_file(path: str | Path) -> MatchRecord:
    """The match in ``path``, read and checked (every play legal); raises
    :class:`bgengine.matchrecord.MatchRecordError` (a ``ValueError``) naming the
    game, move and line of what is wrong, with the file's name in front."""
    kind, gz = file_format(path)
    raw = Path(path).read_bytes()
    text = (gzip.decompress(raw) if gz else raw).decode("utf-8", errors="replace")
    try:
        return read_mat(text) if kind == "mat" else read_sgf(text)
    except MatchRecordError as exc:
        raise MatchRecordError(exc.reason, exc.game, exc.move, exc.line, path=str(path)) from None


def write_match_file(match: MatchRecord, path: str | Path) -> None:
    """Write ``match`` to ``path`` in the format its name says (crash-safe: the file
    is complete or untouched)."""
    kind, gz = file_format(path)
    text = write_mat(match) if kind == "mat" else write_sgf(match)
    data = text.encode("utf-8")
    atomic_write(path, lambda f: f.write(gzip.compress(data) if gz else data))
