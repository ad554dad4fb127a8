"""The resource limits of ``bgengine web``, as one policy (:class:`WebLimits`).

Whatever local clients send, the server's memory and CPU stay bounded:

* **request bodies**: at most :attr:`WebLimits.max_body` bytes.  A ``Content-Length`` over it
  gets a 413 before a byte of the body is read; a body without one (chunked) is counted as
  it arrives and refused with a 413 as soon as it passes the limit (:class:`BodyLimit`).
* **work per request**: a rollout rolls out at most :attr:`~WebLimits.max_trials` trials a
  play and at most :attr:`~WebLimits.max_work` trials in all (trials x plays rolled out);
  more gets a 422 that says the limit.  The lookahead of evaluations and hints is bounded by
  the server's own ``--plies``.
* **concurrent work**: at most :attr:`~WebLimits.max_busy` requests use the engine at once;
  a request that finds no free slot within :attr:`~WebLimits.queue_wait` seconds gets a 503
  with ``Retry-After`` (:class:`WorkPool`).  At most :attr:`~WebLimits.max_connections`
  connections are served at once (more get a 503 from the HTTP server).
* **browser games**: at most :attr:`~WebLimits.max_sessions` at once and
  :attr:`~WebLimits.sessions_per_client` from one client address (a 429 beyond it; every
  browser on the server's own machine shares one address).  A game idle for
  :attr:`~WebLimits.session_ttl` seconds may be dropped to make room, and a game never
  played on after it was started after :attr:`~WebLimits.unplayed_ttl` seconds; when no
  game can be dropped a new one gets a 503 with ``Retry-After`` (the seconds until one can).

Every limit is an option of ``bgengine web`` (``bgengine web --help``).
"""

from __future__ import annotations

import json
import math
import threading
from contextlib import contextmanager
from dataclasses import dataclass, fields
from typing import Iterator

from bgengine._checks import checked_int, checked_real

__all__ = ["WebLimits", "BodyLimit", "WorkPool", "Busy", "TooMuchWork", "check_work"]

#: The largest value any count limit takes (a guard against typing errors, not a policy).
_MOST = 10**9


@dataclass(frozen=True)
class WebLimits:
    """The limits of one ``bgengine web`` server (see the module's documentation)."""

    #: Bytes of a request body.
    max_body: int = 64 * 1024
    #: Trials of one rolled-out play (or position).
    max_trials: int = 5184
    #: Trials in all of one request: trials x plays rolled out.
    max_work: int = 5 * 5184
    #: Requests using the engine at once.
    max_busy: int = 4
    #: Seconds a request waits for a free engine slot before its 503.
    queue_wait: float = 2.0
    #: Seconds a 503 for a busy engine asks the client to wait (``Retry-After``).
    retry_after: int = 2
    #: Connections served at once.
    max_connections: int = 256
    #: Browser games kept at once.
    max_sessions: int = 100
    #: Browser games of one client address.
    sessions_per_client: int = 20
    #: Seconds a game may be idle before it may be dropped to make room.
    session_ttl: float = 3600.0
    #: Seconds a game never played on after it was started is kept at least.
    unplayed_ttl: float = 120.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type == "float":
                checked_real(value, f.name, 1e-3, 1e9)
            else:
                checked_int(value, f.name, 1, _MOST, kind="a whole number")
        if self.sessions_per_client > self.max_sessions:
            raise ValueError(f"sessions_per_client ({self.sessions_per_client}) must be at "
                             f"most max_sessions ({self.max_sessions})")


class TooMuchWork(ValueError):
    """A request asks for more work than the server's limits (a 422)."""


def check_work(limits: WebLimits, trials: int, plays: int, what: str = "trials") -> None:
    """Raise :class:`TooMuchWork` if ``trials`` a play over ``plays`` plays passes the limits."""
    if trials > limits.max_trials:
        raise TooMuchWork(f"too many {what}: {trials} (at most {limits.max_trials} a play "
                          f"on this server; start it with --max-trials to allow more)")
    if trials * plays > limits.max_work:
        raise TooMuchWork(f"too much work: {trials} trials x {plays} plays = {trials * plays} "
                          f"trials (at most {limits.max_work} a request on this server; "
                          f"start it with --max-work to allow more)")


class Busy(Exception):
    """Every engine slot is taken (a 503 with ``Retry-After``)."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class WorkPool:
    """At most ``limits.max_busy`` holders of :meth:`slot` at once; a caller waits at most
    ``limits.queue_wait`` seconds for one, then :class:`Busy` is raised."""

    def __init__(self, limits: WebLimits) -> None:
        self.limits = limits
        self._slots = threading.BoundedSemaphore(limits.max_busy)

    @contextmanager
    def slot(self) -> Iterator[None]:
        if not self._slots.acquire(timeout=self.limits.queue_wait):
            raise Busy(f"the engine is busy ({self.limits.max_busy} requests at work); "
                       f"try again in {self.limits.retry_after} s", self.limits.retry_after)
        try:
            yield
        finally:
            self._slots.release()


def _json_response(status: int, detail: str) -> tuple[dict, dict]:
    body = json.dumps({"detail": detail}).encode()
    start = {"type": "http.response.start", "status": status,
             "headers": [(b"content-type", b"application/json"),
                         (b"content-length", str(len(body)).encode()),
                         (b"connection", b"close")]}
    return start, {"type": "http.response.body", "body": body}


class BodyLimit:
    """ASGI middleware: request bodies of at most ``max_body`` bytes (a 413 beyond it).

    Pure ASGI, so that it sits outside the framework and sees every message: a declared
    length over the limit is refused before the application runs; an undeclared one is
    counted message by message and the application gets an error from ``receive`` once it
    passes the limit, so no more of it is read or kept."""

    def __init__(self, app, max_body: int) -> None:
        self.app = app
        self.max_body = checked_int(max_body, "max_body", 1, _MOST, kind="a whole number")
        # past the limit ``receive`` raises an HTTP error: the framework turns other errors
        # while reading a body into a 400, and passes this one on as the 413 it is
        from starlette.exceptions import HTTPException     # the web extra, as the app's
        self._error = HTTPException

    def _detail(self) -> str:
        return (f"request body too large (at most {self.max_body} bytes; start the server "
                f"with --max-body to allow more)")

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = None
        for name, value in scope.get("headers", ()):
            if name.lower() == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = math.inf
        if declared is not None and declared > self.max_body:
            for message in _json_response(413, self._detail()):
                await send(message)
            return
        received = 0
        started = over = False

        async def limited_receive():
            nonlocal received, over
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    over = True
                    raise self._error(status_code=413, detail=self._detail())
            return message

        async def watched_send(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                if over:        # the server is not to read the rest to keep the connection
                    message = {**message, "headers": [*message.get("headers", ()),
                                                      (b"connection", b"close")]}
            await send(message)

        try:
            await self.app(scope, limited_receive, watched_send)
        except self._error as exc:
            if started or exc.status_code != 413:
                raise
            for message in _json_response(413, self._detail()):
                await send(message)
