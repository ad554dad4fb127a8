"""``bgengine serve``: the GNU Backgammon external-player protocol over TCP.

:class:`BgServer` gives each admitted client a thread and a
:class:`bgengine.protocols.gnubg_socket.Session` (which answers the lines; both roles of
the protocol, see that module and ``docs/gnubg-external.md``), with
:class:`bgengine.decisions.engine.Engine` deciding.

Robustness: lines longer than 255 bytes (gnubg's limit), binary garbage,
control characters, truncated lines, clients that disconnect mid-line or
take longer than ``--line-timeout`` to send one line (the whole line, however
it trickles in) or send more than ``MAX_LINE_BYTES`` without a newline, idle
clients (``--idle-timeout``), clients gone without closing (TCP keepalive,
``--keepalive``) and floods of connections (``--max-clients``; when all slots
are taken, a client idle for ``--evict-idle`` gives its slot to a newcomer,
gnubg's own connection last) are each answered with a clear ``Error:`` line
where that is possible, logged, and never disturb other clients.  No input
line gives an internal error (``tests/test_serve_hardening.py`` fuzzes this);
the limits are listed in :class:`BgServer`.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import socketserver
import threading
import time
from collections import deque
from dataclasses import dataclass

from bgengine.decisions.engine import Engine
from bgengine.protocols.gnubg_socket import ExchangeLog, Session

__all__ = ["BgServer", "start_server", "check_host", "DEFAULT_HOST", "DEFAULT_PORT",
           "MAX_LINE_BYTES", "EVICT_IDLE", "EVICT_AGE", "ADMIT_WAIT", "KEEPALIVE_IDLE"]

log = logging.getLogger("bgengine.protocols.serve")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 31000
#: Longest line read, newline excluded (bytes): past it the client is told and closed.
MAX_LINE_BYTES = 65536
#: Seconds without a complete line after which a connection may lose its slot to a
#: waiting one when the server is full.
EVICT_IDLE = 2.0
#: Seconds a connection is served at least before, the server full and no connection idle,
#: it may lose its slot to a waiting one (the oldest first): busy clients cannot hold it.
EVICT_AGE = 5.0
#: Seconds a new connection waits for a slot before it is told the server is busy.
ADMIT_WAIT = 10.0
#: Connections that may wait for a slot; more are told at once that the server is busy.
MAX_WAITING = 64
#: Threads of evicted connections that may still be closing when a slot is handed on:
#: connection threads never exceed ``max_clients`` plus this.
EXIT_THREADS = 16
#: Seconds of silence before TCP keepalive probes a connection (then every quarter
#: of that, 3 unanswered probes = a dead peer).
KEEPALIVE_IDLE = 20.0


# ====================================================================== socket server

def _host(peer: str) -> str:
    """The address of a ``host:port`` peer."""
    return peer.rsplit(":", 1)[0]


@dataclass(eq=False)
class _Conn:
    """An admitted connection as the slot bookkeeping sees it.

    Every field but ``sock``, ``peer`` and ``conn_id`` changes only under the
    server's lock.  Times are ``time.monotonic()`` seconds.
    """
    conn_id: int
    sock: socket.socket
    peer: str
    quiet_since: float             # admission or the last complete line
    admitted: float = 0.0          # when it got its slot
    spoke: bool = False            # has sent at least one complete line
    gnubg: bool = False            # gnubg's NUL framing seen: its long-lived connection
    busy: bool = False             # answering a line right now: never evicted
    closed: bool = False           # its thread has closed the socket
    evicted: str | None = None     # why the server took the slot back


@dataclass(eq=False)
class _Waiting:
    """An accepted connection waiting for a slot (no thread yet)."""
    conn_id: int
    sock: socket.socket
    peer: str
    since: float                   # time.monotonic() of the accept

    def gone(self) -> bool:
        """Whether the peer has already closed or reset the connection (a non-blocking
        peek: nothing is consumed; False where the system cannot peek without blocking)."""
        if not hasattr(socket, "MSG_DONTWAIT"):  # pragma: no cover - not Linux/BSD/macOS
            return False
        try:
            return self.sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            return True


class BgServer(socketserver.TCPServer):
    """The TCP server: one thread and one :class:`Session` per admitted client.

    Limits (all times in seconds):

    * ``max_clients`` connections are served at once.  A new connection that
      finds them all taken waits (without a thread) up to ``admit_wait`` for a
      slot; ``max_waiting`` connections wait at most, more are refused at once.
    * When the server is full, a waiting connection takes the slot of a
      connection that has sent no complete line for ``evict_idle`` and is not
      being answered: first one that has never sent a line, then one that has,
      then gnubg's (NUL-framed) connection, each time the one quiet longest.  When
      none is idle, it takes the slot of the oldest connection served ``evict_age``
      or more (gnubg's last).  So neither silent nor busy clients can lock others
      out, while gnubg's long-lived connection is kept while any other can go.
    * ``max_per_address`` connections of one client address are served at once
      (default ``max_clients``; every client on the server's own machine has the
      same address): a new one from an address at its limit takes the slot of that
      address's idlest or oldest connection, by the same rules, never another's.
    * ``keepalive``: TCP keepalive probes after that many silent seconds, every
      quarter of it, 3 unanswered = dead: a peer that vanished without closing
      frees its slot within ``1.75 * keepalive`` (an idle but live gnubg is kept).
    * ``line_timeout``: the total time to receive one line, from its first byte
      to its newline (not the gap between bytes); ``max_line_bytes``: its length.
      Past either the client gets an ``Error:`` line and is closed.
    * ``idle_timeout`` (0 = never): close a client silent that long.
    * ``send_timeout``: a reply the client does not read in that time closes it.

    Connection threads: at most ``max_clients + EXIT_THREADS`` (evicted ones on their way
    out); a waiting connection has none.
    Memory per connection: a line buffer of at most ``BUFFER_LIMIT`` bytes.
    """

    allow_reuse_address = True
    # a deep accept queue: when a flood overflows it, the kernel completes some handshakes
    # late, for clients already gone, and those peers linger until keepalive finds them
    request_queue_size = 4096

    def __init__(self, address: tuple[str, int], engine: Engine, *,
                 exchange_log: ExchangeLog | None = None, max_clients: int = 64,
                 line_timeout: float = 30.0, idle_timeout: float = 0.0,
                 send_timeout: float = 30.0, poll_interval: float = 0.5,
                 max_line_bytes: int = MAX_LINE_BYTES, evict_idle: float = EVICT_IDLE,
                 admit_wait: float = ADMIT_WAIT, max_waiting: int = MAX_WAITING,
                 keepalive: float = KEEPALIVE_IDLE, evict_age: float = EVICT_AGE,
                 max_per_address: int | None = None) -> None:
        self.engine = engine
        self.exchange_log = exchange_log or ExchangeLog()
        self.max_clients = max_clients
        self.line_timeout = line_timeout
        self.idle_timeout = idle_timeout
        self.send_timeout = send_timeout
        self.poll_interval = poll_interval
        self.max_line_bytes = max_line_bytes
        self.evict_idle = evict_idle
        self.evict_age = evict_age
        self.max_per_address = max_clients if max_per_address is None else max_per_address
        self.admit_wait = admit_wait
        self.max_waiting = max_waiting
        self.keepalive = keepalive
        self._lock = threading.Lock()
        self._active: dict[int, _Conn] = {}
        self._waiting: deque[_Waiting] = deque()
        self._threads = 0
        self._conns = 0
        self._stopping = threading.Event()
        super().__init__(address, socketserver.BaseRequestHandler)

    @property
    def address(self) -> str:
        host, port = self.server_address[:2]
        return f"{host}:{port}"

    @property
    def active_clients(self) -> int:
        """Connections holding a slot."""
        return len(self._active)

    @property
    def waiting_clients(self) -> int:
        """Accepted connections waiting for a slot."""
        with self._lock:
            return len(self._waiting)

    @property
    def handler_threads(self) -> int:
        """Connection threads alive (slots in use plus evicted ones still closing)."""
        return self._threads

    # ------------------------------------------------------------ admission
    def process_request(self, request, client_address) -> None:
        """Called by ``serve_forever`` for each accepted connection: queue it for a slot."""
        with self._lock:
            self._conns += 1
            conn_id = self._conns
        peer = ("%s:%s" % client_address[:2] if isinstance(client_address, tuple)
                else str(client_address))
        self._tune(request)
        self._admit_waiting(_Waiting(conn_id, request, peer, time.monotonic()))

    def service_actions(self) -> None:
        """Called by ``serve_forever`` every poll interval: waiting clients may get a slot."""
        self._admit_waiting()

    def _tune(self, sock: socket.socket) -> None:
        """TCP keepalive, so that a peer gone without closing is detected."""
        if not self.keepalive:
            return
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
            idle = max(1, int(round(self.keepalive)))
            for name, value in (("TCP_KEEPIDLE", idle), ("TCP_KEEPINTVL", max(1, idle // 4)),
                                ("TCP_KEEPCNT", 3)):
                if hasattr(socket, name):       # Linux; other systems keep their defaults
                    sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, name), value)
        except OSError as exc:  # pragma: no cover - platform without these options
            log.debug("cannot set TCP keepalive: %s", exc)

    def _victim(self, now: float, among: list[_Conn] | None = None) -> _Conn | None:
        """The connection of ``among`` (default: all) to evict for a waiting one (lock
        held), or None: the idlest (one never heard first, gnubg's last), else the oldest
        served ``evict_age`` (gnubg's last)."""
        free = [c for c in (self._active.values() if among is None else among)
                if not c.busy and not c.evicted]
        idle = [c for c in free if now - c.quiet_since >= self.evict_idle]
        if idle:
            return min(idle, key=lambda c: (c.gnubg, c.spoke, c.quiet_since))
        old = [c for c in free if now - c.admitted >= self.evict_age]
        return min(old, key=lambda c: (c.gnubg, c.admitted)) if old else None

    def _admit_waiting(self, arrived: _Waiting | None = None) -> None:
        """Queue ``arrived`` (a new connection), give free slots, or slots of idle
        connections, to waiting connections (first come, first served); drop those
        whose peers already left; refuse those that waited ``admit_wait`` or overflow
        ``max_waiting``.  One lock for all of it: the queue is never seen longer than
        ``max_waiting``."""
        now = time.monotonic()
        started: list[_Conn] = []
        refused: list[tuple[_Waiting, str]] = []
        gone: list[_Waiting] = []
        with self._lock:
            if arrived is not None:
                self._waiting.append(arrived)
            if self._stopping.is_set():
                return
            if len(self._waiting) > self.max_waiting:
                # after a flood, connections whose peers already left (accepted late from
                # the kernel's queue) must not crowd live newcomers out of the queue
                live: deque[_Waiting] = deque()
                for w in self._waiting:
                    (gone if w.gone() else live).append(w)
                self._waiting = live
            kept: deque[_Waiting] = deque()
            while self._waiting:
                w = self._waiting.popleft()
                if self._threads >= self.max_clients + EXIT_THREADS:
                    kept.append(w)
                    continue
                if w.gone():                        # no slot, no thread for a peer that left
                    gone.append(w)
                    continue
                mine = [c for c in self._active.values() if _host(c.peer) == _host(w.peer)]
                at_limit = len(mine) >= self.max_per_address
                victim, why = None, ""
                if at_limit or len(self._active) >= self.max_clients:
                    victim = self._victim(now, mine if at_limit else None)
                    why = (f"{len(mine)} connections from its address, the most"
                           if at_limit and self.max_per_address < self.max_clients
                           else f"the server is full ({self.max_clients} clients)")
                if why and victim is None:
                    kept.append(w)                  # first come, first served, when one frees
                    continue
                if victim is not None:
                    self._evict(victim, now, why)
                conn = _Conn(w.conn_id, w.sock, w.peer, quiet_since=now, admitted=now)
                self._active[conn.conn_id] = conn
                self._threads += 1
                started.append(conn)
            self._waiting = kept
            while self._waiting and now - self._waiting[0].since >= self.admit_wait:
                refused.append((self._waiting.popleft(), f"no slot free within {self.admit_wait:g} s"))
            while len(self._waiting) > self.max_waiting:
                refused.append((self._waiting.pop(), f"more than {self.max_waiting} waiting"))
        for w in gone:
            self.exchange_log.write(event="disconnect", conn=w.conn_id, peer=w.peer,
                                    reason="closed by client while waiting for a slot")
            self.shutdown_request(w.sock)
        for w, why in refused:
            self._refuse(w, why)
        for conn in started:
            t = threading.Thread(target=self._serve_conn, args=(conn,), daemon=True,
                                 name=f"bgengine-serve-conn-{conn.conn_id}")
            try:
                t.start()
            except RuntimeError as exc:  # pragma: no cover - the system is out of threads
                log.error("cannot start a thread for connection %d: %s", conn.conn_id, exc)
                self._finish(conn, f"no thread: {exc}")

    def _evict(self, victim: _Conn, now: float, why: str = "the server is full") -> None:
        """Take ``victim``'s slot back (lock held): it is told (unless it is gnubg,
        whom any unexpected line would desynchronise) and its socket shut down, which
        ends its thread's ``recv``.  Non-blocking; the lock keeps its thread from
        closing the socket meanwhile."""
        idle, age = now - victim.quiet_since, now - victim.admitted
        state = (f"idle {idle:.0f} s" if idle >= self.evict_idle
                 else f"connected {age:.1f} s, the longest")
        victim.evicted = f"evicted: {why}, this one {state}"
        del self._active[victim.conn_id]
        self.exchange_log.write(event="evicted", conn=victim.conn_id, peer=victim.peer,
                                idle_s=round(idle, 3), age_s=round(age, 3), spoke=victim.spoke,
                                gnubg=victim.gnubg, why=why)
        log.info("connection %d (%s) evicted: %s, it was %s", victim.conn_id, victim.peer,
                 why, state)
        if victim.closed:
            return
        if not victim.gnubg and hasattr(socket, "MSG_DONTWAIT"):
            msg = f"Error: connection closed: {why}; this one was {state}\n"
            try:
                victim.sock.send(msg.encode(), socket.MSG_DONTWAIT)
            except OSError:
                pass
        try:
            victim.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _refuse(self, w: _Waiting, why: str) -> None:
        """Tell a waiting connection the server is busy and close it (non-blocking)."""
        self.exchange_log.write(event="refused", conn=w.conn_id, peer=w.peer, reason=why)
        try:
            w.sock.setblocking(False)
            w.sock.send(f"Error: server busy ({self.max_clients} clients connected, {why}); "
                        "try again later\n".encode())
        except OSError:
            pass
        self.shutdown_request(w.sock)

    # ------------------------------------------------------------ one connection
    def _serve_conn(self, conn: _Conn) -> None:
        """The thread of one admitted connection."""
        session = Session(self.engine, log=self.exchange_log, peer=conn.peer, conn_id=conn.conn_id)
        self.exchange_log.write(event="connect", conn=conn.conn_id, peer=conn.peer)
        log.info("client %d connected from %s", conn.conn_id, conn.peer)
        reason = "closed by client"
        try:
            reason = self._loop(conn, session)
        except OSError as exc:
            reason = conn.evicted or f"socket error: {exc}"
        except Exception as exc:  # pragma: no cover - a bug: keep serving the others
            log.exception("connection %d failed", conn.conn_id)
            reason = f"internal error: {exc}"
        self._finish(conn, reason)

    def _finish(self, conn: _Conn, reason: str) -> None:
        """Free the slot and close the socket; the last thing a connection thread does."""
        with self._lock:
            if self._active.get(conn.conn_id) is conn:
                del self._active[conn.conn_id]
            conn.closed = True
            # under the lock: an eviction never shuts down a socket being closed
            self.shutdown_request(conn.sock)
        self.exchange_log.write(event="disconnect", conn=conn.conn_id, peer=conn.peer, reason=reason)
        log.info("client %d (%s) left: %s", conn.conn_id, conn.peer, reason)
        self._admit_waiting()       # a slot is free
        with self._lock:
            self._threads -= 1

    def _loop(self, conn: _Conn, session: Session) -> str:
        """Read and answer lines until the client leaves or a limit is hit; returns why."""
        sock = conn.sock
        last_rx = time.monotonic()          # last bytes received (idle timeout)
        line_start: float | None = None     # first byte of the unfinished line
        while not self._stopping.is_set():
            now = time.monotonic()
            waits = [self.poll_interval]
            if line_start is not None and self.line_timeout:
                waits.append(line_start + self.line_timeout - now)
            if self.idle_timeout and line_start is None:
                waits.append(last_rx + self.idle_timeout - now)
            sock.settimeout(max(0.01, min(waits)))
            try:
                data: bytes | None = sock.recv(4096)
            except socket.timeout:
                data = None
            if conn.evicted:
                return conn.evicted
            if self._stopping.is_set():
                return "server stopping"
            now = time.monotonic()
            if data == b"":
                part = session.splitter.take_partial()
                if part.replace(b"\0", b""):
                    session.log.write(event="partial", conn=session.conn_id, peer=session.peer,
                                      **{"in": part[:400].decode("utf-8", "replace")},
                                      note="client disconnected in the middle of a line")
                    return "disconnected mid-line"
                return "closed by client"
            if data:
                last_rx = now
                lines_before = session.lines
                with self._lock:
                    if conn.evicted:
                        return conn.evicted
                    conn.busy = True
                try:
                    out = session.feed(data)
                    if out:
                        self._send(sock, out)
                finally:
                    with self._lock:
                        conn.busy = False
                        conn.gnubg = session.gnubg
                        if session.lines > lines_before:
                            conn.spoke = True
                            conn.quiet_since = time.monotonic()
                if session.closed:
                    return "exit"
                if not session.splitter.pending:
                    line_start = None
                elif line_start is None or session.lines > lines_before:
                    line_start = now        # a new line began in this chunk
            # the limits are checked after every read, not only when the client pauses:
            # a line trickled in forever must not escape them
            pending = session.splitter.pending
            if pending > self.max_line_bytes:
                return self._close_with(session, sock, "line too long",
                                        f"Error: line too long (more than {self.max_line_bytes} "
                                        "bytes without a newline); closing")
            if line_start is not None and self.line_timeout and now - line_start >= self.line_timeout:
                return self._close_with(session, sock, "partial-line timeout",
                                        f"Error: incomplete line: no newline within "
                                        f"{self.line_timeout:g} s ({pending} bytes discarded); closing")
            if self.idle_timeout and line_start is None and now - last_rx >= self.idle_timeout:
                session.log.write(event="timeout", conn=session.conn_id, peer=session.peer, kind="idle")
                return "idle timeout"
        return "server stopping"

    def _close_with(self, session: Session, sock: socket.socket, kind: str, msg: str) -> str:
        part = session.splitter.take_partial()
        session.log.write(event="timeout" if "timeout" in kind else "refused", conn=session.conn_id,
                          peer=session.peer, kind=kind,
                          **{"in": part[:400].decode("utf-8", "replace")}, out=msg)
        self._send(sock, (msg + "\n").encode())
        return kind

    def _send(self, sock: socket.socket, data: bytes) -> None:
        sock.settimeout(self.send_timeout)
        sock.sendall(data)

    # ------------------------------------------------------------ stopping
    def _drop_all(self) -> None:
        """Close waiting connections and end every connection thread."""
        with self._lock:
            self._stopping.set()
            waiting, self._waiting = list(self._waiting), deque()
            for c in self._active.values():
                if not c.closed:
                    try:
                        c.sock.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
        for w in waiting:
            self.shutdown_request(w.sock)

    def handle_error(self, request, client_address) -> None:  # pragma: no cover
        log.exception("error serving %s", client_address)

    def release(self) -> None:
        """Once ``serve_forever`` has returned: end every connection and release the port."""
        self._drop_all()
        self.server_close()

    def close(self) -> None:
        """Stop serving (from another thread) and release the port."""
        self._stopping.set()
        self.shutdown()
        self.release()


def start_server(engine: Engine | None = None, host: str = DEFAULT_HOST, port: int = 0, *,
                 allow_remote: bool = False, **kwargs) -> BgServer:
    """Start a server in a background thread (port 0: any free port); returns it.

    ``server.address`` is ``"HOST:PORT"``; ``server.close()`` stops it.
    """
    check_host(host, allow_remote)
    srv = BgServer((host, port), engine or Engine(), **kwargs)
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.2},
                         name=f"bgengine-serve-{srv.address}", daemon=True)
    t.start()
    srv.thread = t
    return srv


def check_host(host: str, allow_remote: bool) -> None:
    """Refuse (``ValueError``) to listen on an address other machines can reach, unless
    ``allow_remote``: the protocol has no authentication."""
    if allow_remote:
        return
    if not host:
        raise ValueError("refusing to listen on all interfaces: they are reachable from other "
                         "machines and the protocol has no authentication; add --allow-remote "
                         "if you mean it")
    try:
        infos = socket.getaddrinfo(host or None, None, socket.AF_INET, socket.SOCK_STREAM)
        addrs = {info[4][0] for info in infos}
    except socket.gaierror as exc:
        raise ValueError(f"cannot resolve host {host!r}: {exc}") from None
    if not host or not addrs or not all(ipaddress.ip_address(a).is_loopback for a in addrs):
        raise ValueError(f"refusing to listen on {host or 'all interfaces'!r}: that is reachable "
                         "from other machines and the protocol has no authentication; "
                         "add --allow-remote if you mean it")
