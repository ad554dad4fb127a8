"""A client for the GNU Backgammon external-player protocol.

:class:`ExternalPlayer` asks any server of this protocol for its plays: gnubg
itself (``external 127.0.0.1:31001`` typed in gnubg; it then uses gnubg's
global evaluation settings, so set ``set evaluation chequerplay evaluation
plies 0`` first for speed) or ``bgengine serve``.  It behaves like a
:class:`bgengine.core.agents.Player` in a Python move loop: ``choose(board, d1,
d2)`` returns the index of the chosen play in
``bgengine.core.movegen.legal_afterstates(board, d1, d2)``.

:func:`bgengine.matches.run.play_external_match` plays matches against such a
server; this module is the client alone.

The protocol (server role, ``docs/gnubg-external.md`` §2): one request line
out (``board:NAME:OPP:<50 integers>``, as gnubg writes it, built by
:func:`bgengine.notation.fibs.format_fibs_board`), one reply line back (``8/5 6/5 ``);
``DBG:`` lines before a reply are skipped; a reply starting with ``Error`` is
reported as an :class:`ExternalPlayerError`.
"""

from __future__ import annotations

import socket
import time

import numpy as np

from bgengine.notation.fibs import format_fibs_board
from bgengine.notation.ids import MatchState
from bgengine.core.movegen import legal_afterstates
from bgengine.notation.moves import format_move, match_move

__all__ = ["ExternalPlayer", "ExternalPlayerError", "parse_address"]


#: Longest reply line accepted (gnubg's replies are short).
MAX_REPLY = 64 * 1024


class ExternalPlayerError(ValueError):
    """The external player could not be reached or gave an unusable answer."""


def parse_address(address: str) -> tuple[str, int]:
    """``"HOST:PORT"`` -> ``(host, port)``; an empty host means 127.0.0.1."""
    if not isinstance(address, str) or ":" not in address:
        raise ValueError(f"external player address must be HOST:PORT, got {address!r}")
    host, _, port_text = address.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ValueError(f"external player address {address!r}: port must be 1..65535")
    return host, int(port_text)


class ExternalPlayer:
    """A player whose decisions come from an external-player server.

    Parameters
    ----------
    address : str
        ``"HOST:PORT"`` of the server.
    timeout : float
        Seconds to wait for each reply (gnubg at 2-ply can take a while).
    connect_timeout : float
        Seconds to keep retrying the connection (gnubg's server accepts one
        client at a time and re-listens after each).
    name : str, optional
        Display name (default ``external:HOST:PORT``).
    names : (str, str)
        Names written into the board lines (player 0, player 1); cosmetic.

    The connection is opened on first use and kept; ``close()`` (or a
    ``with`` block) sends ``exit`` and closes it.  Not thread-safe: one
    connection answers one question at a time.
    """

    def __init__(self, address: str, *, timeout: float = 60.0, connect_timeout: float = 10.0,
                 name: str | None = None, names: tuple[str, str] = ("opponent", "bgengine")) -> None:
        self.host, self.port = parse_address(address)
        self.address = f"{self.host}:{self.port}"
        if not timeout > 0 or not connect_timeout >= 0:
            raise ValueError("timeouts must be positive numbers of seconds")
        self.timeout = float(timeout)
        self.connect_timeout = float(connect_timeout)
        self.name = name or f"external:{self.address}"
        self.names = names
        self._sock: socket.socket | None = None
        self._buf = bytearray()
        self.requests = 0

    # ------------------------------------------------------------ connection
    def connect(self) -> None:
        if self._sock is not None:
            return
        deadline = time.monotonic() + self.connect_timeout
        last: OSError | None = None
        while True:
            try:
                sock = socket.create_connection((self.host, self.port),
                                                timeout=max(1.0, self.connect_timeout))
                break
            except OSError as exc:
                last = exc
                if time.monotonic() >= deadline:
                    raise ExternalPlayerError(
                        f"cannot connect to the external player at {self.address}: "
                        f"{last.strerror or last}") from None
                time.sleep(0.1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._sock = sock
        self._buf.clear()

    def close(self) -> None:
        """Say ``exit`` and close the connection (no error if already closed)."""
        sock, self._sock = self._sock, None
        if sock is None:
            return
        try:
            sock.settimeout(1.0)
            sock.sendall(b"exit\n")
        except OSError:
            pass
        finally:
            sock.close()

    def __enter__(self) -> "ExternalPlayer":
        self.connect()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ExternalPlayer({self.address!r})"

    def _broken(self, why: str) -> ExternalPlayerError:
        # after a timeout or a bad stream the next reply could belong to this
        # question: drop the connection rather than desynchronise
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()
        return ExternalPlayerError(f"external player {self.address}: {why}")

    def _readline(self) -> str:
        assert self._sock is not None
        deadline = time.monotonic() + self.timeout
        while True:
            nl = self._buf.find(b"\n")
            if nl >= 0:
                line = bytes(self._buf[:nl])
                del self._buf[:nl + 1]
                return line.replace(b"\0", b"").decode("utf-8", "replace").rstrip("\r")
            if len(self._buf) > MAX_REPLY:
                raise self._broken(f"reply longer than {MAX_REPLY} bytes without a newline")
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._broken(f"no reply within {self.timeout:g} s")
            self._sock.settimeout(left)
            try:
                data = self._sock.recv(4096)
            except socket.timeout:
                raise self._broken(f"no reply within {self.timeout:g} s") from None
            except OSError as exc:
                raise self._broken(f"connection lost ({exc})") from None
            if not data:
                raise self._broken("the server closed the connection")
            self._buf += data

    def ask(self, line: str) -> str:
        """Send one request with a one-line reply and return that line
        (``DBG:`` lines skipped).  For ``version`` use :meth:`version`.

        Raises :class:`ExternalPlayerError` for an ``Error`` reply, a timeout
        or a lost connection.
        """
        if "\n" in line or "\r" in line:
            raise ValueError("a request is a single line")
        self.connect()
        assert self._sock is not None
        self._buf.clear()           # anything left over is stale: never read it as this reply
        try:
            self._sock.settimeout(self.timeout)
            self._sock.sendall(line.encode("utf-8") + b"\n")
        except OSError as exc:
            raise self._broken(f"cannot send ({exc})") from None
        self.requests += 1
        while True:
            reply = self._readline()
            if not reply.startswith("DBG:"):
                break
        if reply.startswith("Error"):
            raise ExternalPlayerError(f"external player {self.address} answered {reply!r} "
                                      f"to {line[:120]!r}")
        return reply

    def version(self) -> dict[str, str]:
        """The server's ``version`` reply as a dict (``Interface``, ``RFBF``,
        ``Engine``, ``Software``)."""
        first = self.ask("version")
        lines = [first]
        while not lines[-1].startswith("Software:"):
            lines.append(self._readline())
            if len(lines) > 20:
                raise self._broken("unexpected version reply")
        return {k.strip(): v.strip() for k, _, v in (ln.partition(":") for ln in lines)}

    # ------------------------------------------------------------ decisions
    def board_line(self, board, state: MatchState) -> str:
        return format_fibs_board(board, state, names=self.names)

    def choose(self, board, d1: int, d2: int, seed: int = 0, state: MatchState | None = None) -> int:
        """Index of the server's play in ``legal_afterstates(board, d1, d2)``.

        ``board``: row 1 = the side on roll.  ``state`` (optional) gives the
        match context; by default a cubeless money game with player 1 on
        roll.  ``seed`` is accepted for interface compatibility and unused.
        """
        if state is None:
            state = MatchState(player_on_roll=1, dice=(int(d1), int(d2)))
        line = self.board_line(board, state)
        reply = self.ask(line)
        try:
            return match_move(board, int(d1), int(d2), reply)
        except ValueError as exc:
            after, steps = legal_afterstates(board, d1, d2)
            example = format_move(board, [s for s in steps[0] if s[0] >= 0]) or "(no play)"
            raise ExternalPlayerError(
                f"external player {self.address} answered {reply!r}, which is not a legal play "
                f"with {d1}-{d2} ({exc}); {len(after)} legal plays, e.g. {example!r}; "
                f"request: {line}") from None

    def evaluate(self, board, state: MatchState | None = None, options: str = "") -> np.ndarray:
        """The server's six numbers for a position (side on roll in row 1):
        win, win gammon, win backgammon, lose gammon, lose backgammon, equity."""
        state = state or MatchState(player_on_roll=1)
        reply = self.ask(f"evaluation fibsboard {self.board_line(board, state)} {options}".strip())
        try:
            values = np.array([float(x) for x in reply.split()], dtype=np.float64)
        except ValueError:
            values = np.zeros(0)
        if values.shape != (6,):
            raise ExternalPlayerError(f"external player {self.address}: expected six numbers, "
                                      f"got {reply!r}")
        return values

    def decide(self, board, state: MatchState) -> str:
        """The raw answer to a cube question (``roll``/``double``) or a double
        (``take``/``drop``/``beaver``), lower-cased."""
        reply = self.ask(self.board_line(board, state)).strip().lower()
        if not reply:
            raise ExternalPlayerError(f"external player {self.address}: empty answer to a cube question")
        return reply
