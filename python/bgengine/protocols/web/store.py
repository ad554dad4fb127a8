"""The browser sessions of ``bgengine web``: one :class:`~bgengine.protocols.web.session.BoardSession`
per browser, found by a random key (the browser keeps it in a cookie), at most
``max_sessions`` at once and ``per_owner`` of one owner (a client address).  A session
left alone for ``ttl`` seconds may be dropped to make room, and one never used after it
was put (a game started and not played) after ``unused_ttl`` seconds."""

from __future__ import annotations

import math
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Generic, TypeVar

__all__ = ["SessionStore", "StoreFull", "OwnerFull"]

T = TypeVar("T")


class StoreFull(Exception):
    """Every slot is taken by a session within its time to live; ``retry_after``: the
    seconds until one may be dropped."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class OwnerFull(StoreFull):
    """The owner has its quota of sessions, each within its time to live."""


@dataclass
class _Entry(Generic[T]):
    item: T
    owner: str | None
    used: float                 # the clock when last put or got
    played: bool = False        # got at least once since it was put


class SessionStore(Generic[T]):
    """Sessions by key, least recently used first; ``clock`` (seconds) is for tests."""

    def __init__(self, max_sessions: int = 100, ttl: float = 3600.0, *,
                 per_owner: int | None = None, unused_ttl: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if max_sessions < 1:
            raise ValueError(f"max_sessions must be at least 1, got {max_sessions}")
        if not ttl > 0:
            raise ValueError(f"ttl must be a positive number of seconds, got {ttl}")
        self.max_sessions, self.ttl, self._clock = max_sessions, ttl, clock
        self.per_owner = max_sessions if per_owner is None else per_owner
        self.unused_ttl = ttl if unused_ttl is None else min(unused_ttl, ttl)
        if self.per_owner < 1:
            raise ValueError(f"per_owner must be at least 1, got {per_owner}")
        self._items: OrderedDict[str, _Entry[T]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: str | None) -> T | None:
        """The session of ``key`` (marked as used now), or ``None``."""
        with self._lock:
            if key is None or key not in self._items:
                return None
            entry = self._items.pop(key)
            entry.used, entry.played = self._clock(), True
            self._items[key] = entry
            return entry.item

    def put(self, item: T, key: str | None = None, owner: str | None = None) -> str:
        """Keep ``item`` under ``key`` (replacing that key's session) or under a new random
        key; returns the key.  A new key when every slot (or the owner's every slot) is
        taken drops the sessions past their time to live, or raises :class:`StoreFull`
        (:class:`OwnerFull`)."""
        with self._lock:
            now = self._clock()
            if key is not None and key in self._items:
                del self._items[key]
            else:
                mine = [k for k, e in self._items.items() if e.owner == owner]
                owner_full = owner is not None and len(mine) >= self.per_owner
                if owner_full or len(self._items) >= self.max_sessions:
                    self._drop_expired(now, list(self._items))
                    mine = [k for k in mine if k in self._items]
                if len(self._items) >= self.max_sessions:
                    raise StoreFull(f"all {self.max_sessions} sessions are in use; try later",
                                    self._wait(now, list(self._items)))
                if owner is not None and len(mine) >= self.per_owner:
                    raise OwnerFull(f"this client has {len(mine)} games, its most; "
                                    f"try later", self._wait(now, mine))
                key = secrets.token_urlsafe(18)
            self._items[key] = _Entry(item, owner, now)
            return key

    def _life(self, entry: _Entry[T]) -> float:
        return self.ttl if entry.played else self.unused_ttl

    def _drop_expired(self, now: float, keys: list[str]) -> None:
        for k in keys:
            e = self._items[k]
            if now - e.used >= self._life(e):
                del self._items[k]

    def _wait(self, now: float, keys: list[str]) -> int:
        """Whole seconds until one of ``keys`` may be dropped."""
        soonest = min(self._items[k].used + self._life(self._items[k]) for k in keys)
        return max(1, math.ceil(soonest - now))
