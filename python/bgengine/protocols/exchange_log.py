"""The log of a socket server's exchanges: one JSON object per line, thread-safe."""

from __future__ import annotations

import json
import threading
import time

__all__ = ["ExchangeLog"]


class ExchangeLog:
    """Every exchange as one JSON object per line (thread-safe).

    Keys: ``t`` (Unix time), ``conn`` (connection number), ``peer``,
    ``event`` (``connect``, ``line``, ``disconnect``, ``timeout``, ...),
    ``role`` (``player``/``server``), ``kind`` (``move``, ``cube``, ``take``,
    ``resign``, ``eval``, ``command``, ``error``), ``in`` (the line received,
    NULs removed, cut to 400 characters), ``out`` (the reply), ``ms``, and
    for decisions ``position_id``, ``match_id``, ``dice``, ``steps`` and
    ``error`` when something went wrong.
    """

    def __init__(self, path=None, stream=None) -> None:
        self._lock = threading.Lock()
        self._own = None
        if path is not None:
            self._own = open(path, "a", encoding="utf-8")
        self._stream = self._own or stream

    def write(self, **entry) -> None:
        if self._stream is None:
            return
        entry.setdefault("t", round(time.time(), 6))
        text = json.dumps(entry, ensure_ascii=True, default=str)
        with self._lock:
            try:
                self._stream.write(text + "\n")
                self._stream.flush()
            except (OSError, ValueError):  # pragma: no cover - disk full, closed file
                pass

    def close(self) -> None:
        with self._lock:
            if self._own is not None:
                self._own.close()
                self._own = None
                self._stream = None
