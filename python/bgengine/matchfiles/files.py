"""Match files by their name: ``.mat`` (:mod:`bgengine.matchfiles.mat`) or ``.sgf``
(:mod:`bgengine.matchfiles.sgf`), either one gzipped (``.mat.gz``, ``.sgf.gz``)."""

from __future__ import annotations

import gzip
import io
import warnings
import zlib
from pathlib import Path

from bgengine.core.fileio import MAX_TEXT_BYTES, atomic_write, read_regular
from bgengine.matchfiles.record import MatchFileWarning, MatchRecord, MatchRecordError
from bgengine.matchfiles.mat import read_mat, write_mat
from bgengine.matchfiles.sgf import read_sgf, write_sgf

__all__ = ["FORMATS", "file_format", "decode_text", "read_match_file", "write_match_file"]

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


def decode_text(data: bytes) -> str:
    """A match file's bytes as text: UTF-8 (a byte-order mark dropped), or else the
    8-bit Windows-1252 / Latin-1 older programs write names in (``"K\\xe9vin"`` is
    ``"Kévin"``)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:                  # the five bytes Windows-1252 leaves out
        return data.decode("latin-1")


def read_match_file(path: str | Path) -> MatchRecord:
    """The match in ``path``, read and checked (every play legal); raises
    :class:`bgengine.matchfiles.record.MatchRecordError` (a ``ValueError``) naming the
    game, move and line of what is wrong, with the file's name in front.  The
    readers' :class:`bgengine.matchfiles.record.MatchFileWarning` (a match that stops short
    of its end, ...) are issued with the file's name in them."""
    kind, gz = file_format(path)
    raw = read_regular(path, "match file", MAX_TEXT_BYTES)
    if gz:
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(raw)) as f:
                raw = f.read(MAX_TEXT_BYTES + 1)    # a gzip bomb is cut short
        except (OSError, EOFError, zlib.error) as exc:
            # the bytes were read: what gzip refuses is the file's content, bad input
            raise MatchRecordError(f"not a valid gzip file ({exc or type(exc).__name__})",
                                   path=str(path)) from None
        if len(raw) > MAX_TEXT_BYTES:
            raise MatchRecordError(f"inflates to more than the {MAX_TEXT_BYTES} bytes a match "
                                   f"file may have", path=str(path))
    text = decode_text(raw)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", MatchFileWarning)
        try:
            match = read_mat(text) if kind == "mat" else read_sgf(text)
        except MatchRecordError as exc:
            raise MatchRecordError(exc.reason, exc.game, exc.move, exc.line,
                                   path=str(path)) from None
    for w in caught:
        if isinstance(w.message, MatchFileWarning):
            warnings.warn(MatchFileWarning(w.message.note, w.message.line, str(path)),
                          stacklevel=2)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno,
                                   source=w.source)
    return match


def write_match_file(match: MatchRecord, path: str | Path) -> None:
    """Write ``match`` to ``path`` in the format its name says (crash-safe: the file
    is complete or untouched)."""
    kind, gz = file_format(path)
    text = write_mat(match) if kind == "mat" else write_sgf(match)
    data = text.encode("utf-8")
    atomic_write(path, lambda f: f.write(gzip.compress(data) if gz else data))
