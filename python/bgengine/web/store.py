"""The browser sessions of ``bgengine web``: one :class:`~bgengine.web.session.BoardSession`
per browser, found by a random key (the browser keeps it in a cookie), at most
``max_sessions`` at once; a session left alone for ``ttl`` seconds may be dropped."""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from typing import Callable, Generic, TypeVar

__all__ = ["SessionStore", "StoreFull"]

T = TypeVar("T")


class StoreFull(Exception):
    """Every slot is taken by a session used within its time to live."""


class SessionStore(Generic[T]):
    """Sessions by key, least recently used first; ``clock`` (seconds) is for tests."""

    def __init__(self, max_sessions: int = 100, ttl: float = 3600.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if max_sessions < 1:
            raise ValueError(f"max_sessions must be at least 1, got {max_sessions}")
        if not ttl > 0:
            raise ValueError(f"ttl must be a positive number of seconds, got {ttl}")
        self.max_sessions, self.ttl, self._clock = max_sessions, ttl, clock
        self._items: OrderedDict[str, tuple[T, float]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: str | None) -> T | None:
        """The session of ``key`` (marked as used now), or ``None``."""
        with self._lock:
            if key is None or key not in self._items:
                return None
            item = self._items.pop(key)[0]
            self._items[key] = (item, self._clock())
            return item

    def put(self, item: T, key: str | None = None) -> str:
        """Keep ``item`` under ``key`` (replacing that key's session) or under a new random
        key; returns the key.  A new key when every slot is taken drops the sessions idle
        longer than the time to live, or raises :class:`StoreFull`."""
        with self._lock:
            now = self._clock()
            if key is None or key not in self._items:
                if len(self._items) >= self.max_sessions:
                    for old, (_, used) in list(self._items.items()):
                        if now - used >= self.ttl:
                            del self._items[old]
                if len(self._items) >= self.max_sessions:
                    raise StoreFull(f"all {self.max_sessions} sessions are in use; try later")
                key = secrets.token_urlsafe(18)
            else:
                del self._items[key]
            self._items[key] = (item, now)
            return key
