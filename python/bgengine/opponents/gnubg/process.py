"""One gnubg process running the driver script, and how the processes are run
(:class:`GnubgConfig`)."""

from __future__ import annotations

import logging
import os
import select
import subprocess
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from bgengine._checks import is_int
from bgengine.opponents.gnubg.binary import private_invocation
from bgengine.opponents.gnubg.driver import driver_path

__all__ = ["PROCESSES_PER_CORE", "GnubgConfig", "GnubgProcess", "readable", "said"]

log = logging.getLogger(__name__)

#: Processes per core by default: each waits about 10 ms per request, mostly asleep
#: (2-core bench machine, 0-ply: 24 processes 81 games/s, 32 112, 48 98 on free cores;
#: 16 ~55, 24 ~70, 48 ~68 with one core busy training).
PROCESSES_PER_CORE = 16


@dataclass(frozen=True)
class GnubgConfig:
    """How the gnubg processes are run (not what they play: see :class:`GnubgSettings`).

    ``binary``: path or name of gnubg (see :func:`find_gnubg`); ``processes``:
    how many run at once (default ``PROCESSES_PER_CORE`` per core);
    ``timeout``: seconds to wait for one reply before the process is taken as
    hung; ``start_timeout``: seconds for a process to start; ``replays``: how
    often a game whose process died or hung is replayed before it is reported
    as bad.
    """

    binary: str | None = None
    processes: int | None = None
    timeout: float = 120.0
    start_timeout: float = 30.0
    replays: int = 2

    def __post_init__(self) -> None:
        if self.processes is not None:
            if not is_int(self.processes) or self.processes < 1:
                raise ValueError(f"gnubg processes must be a positive integer, got "
                                 f"{self.processes!r}")
            object.__setattr__(self, "processes", int(self.processes))   # a numpy integer too
        if not self.timeout > 0 or not self.start_timeout > 0:
            raise ValueError("gnubg timeouts must be positive numbers of seconds")
        if self.replays < 0:
            raise ValueError(f"gnubg replays must be >= 0, got {self.replays}")

    def n_processes(self) -> int:
        if self.processes is not None:
            return self.processes
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        return PROCESSES_PER_CORE * max(1, cores or 1)


class GnubgProcess:
    """One gnubg process running the driver; replies are read without blocking."""

    def __init__(self, binary: str, workdir: Path, index: int) -> None:
        prefs = workdir / f"prefs{index}"
        prefs.mkdir(exist_ok=True)
        options, env = private_invocation(prefs)    # no ~/.gnubg of the user's
        self.index = index
        self.proc = subprocess.Popen(
            [binary, *options, "-p", str(driver_path())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            cwd=prefs, env=env, bufsize=0,
            start_new_session=True)             # Ctrl-C reaches us, and we stop it
        assert self.proc.stdout is not None and self.proc.stdin is not None
        self.fd = self.proc.stdout.fileno()
        os.set_blocking(self.fd, False)
        self._buf = bytearray()
        self.tail: deque[str] = deque(maxlen=8)  # gnubg's last other output, for errors
        self.ready = False
        self.sent_at = 0.0                        # monotonic time of the open request
        self.game = None                          # the pool's game in progress on it
        self.requests = 0

    def send(self, body: str, kind: str = "m") -> None:
        """Write one request of ``kind`` (``m``, ``p``, ``d``, ``t``: see
        :mod:`bgengine.opponents.gnubg.driver`), numbered (a process that has died shows as
        closed output or as a timeout, so a broken pipe is not raised here)."""
        assert self.proc.stdin is not None
        self.requests += 1
        try:
            self.proc.stdin.write(f"{kind} {self.requests} {body}\n".encode())
        except (OSError, ValueError):
            pass
        self.sent_at = time.monotonic()

    def request_quit(self) -> None:
        """Say ``q`` and close its input (it then exits by itself)."""
        if self.proc.stdin is None:
            return
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(b"q\n")
            except (OSError, ValueError):
                pass
        try:
            self.proc.stdin.close()
        except OSError:
            pass

    def replies(self) -> list[str] | None:
        """The ``@@`` lines now readable, those answering the latest request
        without their ID (``@@ok 8 5 6 5``), replies to earlier requests left
        out; ``None`` once gnubg has closed its output."""
        try:
            data = os.read(self.fd, 65536)
        except BlockingIOError:
            return []
        except OSError:
            data = b""
        if not data:
            return None
        self._buf += data
        out = []
        while (nl := self._buf.find(b"\n")) >= 0:
            line = self._buf[:nl].decode("utf-8", "replace").rstrip("\r")
            del self._buf[:nl + 1]
            at = line.find("@@")              # gnubg's own output may precede it on the line
            if at >= 0:
                tag, ident, rest = (line[at:] + "  ").split(" ", 2)
                if tag == "@@ready":
                    out.append(line[at:])
                elif ident == str(self.requests):
                    out.append(f"{tag} {rest}".rstrip())
                else:
                    log.debug("gnubg process %d: dropped a stale reply %r", self.proc.pid, line)
            elif line.strip():
                self.tail.append(line.strip())
        return out

    def describe_exit(self) -> str:
        """Why its output closed (called then: it is exiting, so wait a moment for its code)."""
        try:
            code = self.proc.wait(1.0)
        except subprocess.TimeoutExpired:
            code = None
        said = "; its last output: " + " | ".join(self.tail) if self.tail else ""
        return (f"gnubg process {self.proc.pid} exited with code {code}" if code is not None
                else f"gnubg process {self.proc.pid} closed its output") + said

    def stop(self, grace: float = 2.0) -> None:
        """Ask it to quit, then kill it if it has not within ``grace``
        seconds; always reaped (no zombie)."""
        self.request_quit()
        try:
            self.proc.wait(grace)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        finally:
            if self.proc.stdout is not None:
                self.proc.stdout.close()

def readable(p: GnubgProcess) -> bool:
    """Output is waiting to be read (without blocking)."""
    return bool(select.select([p.fd], [], [], 0)[0])


def said(p: GnubgProcess) -> str:
    """``p``'s last other output, for an error message ('' when there was none)."""
    return "; its output: " + " | ".join(p.tail) if p.tail else ""
