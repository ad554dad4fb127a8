"""A client for UBGI engines: any program that speaks UBGI v0.2 on stdin/stdout, as a player.

:class:`UbgiPlayer` starts the engine's command, shakes hands (``ubgi`` ...
``ubgiok``, the options as ``set`` lines, ``isready`` ... ``readyok``) and then
asks for each play with ``position gnubgid``, ``dice`` and ``go chequer``.  It
behaves like a :class:`bgengine.core.agents.Player` in a Python game loop:
``choose(board, d1, d2)`` returns the index of the engine's play in
``bgengine.core.movegen.legal_afterstates(board, d1, d2)``, and ``new_game()``
sends ``newgame``.  Every reply is checked: an ``error`` line, a reply that is
not a legal play with the dice, silence past the timeout or an engine that
exits raise :class:`UbgiEngineError` (a ``ValueError``), and the engine is
stopped (its stream can no longer be trusted).

The player spec ``ubgi:COMMAND`` (:func:`bgengine.matches.players.make_player`) makes
one, so ``bgengine match 'ubgi:bgengine ubgi' net`` plays any UBGI engine
against bgengine's players, each dice sequence twice with the seats swapped
(:func:`bgengine.matches.run.play_external_match`).  The engine side is
:mod:`bgengine.protocols.ubgi`.
"""

from __future__ import annotations

import logging
import queue
import shlex
import shutil
import subprocess
import threading
from typing import IO, Mapping, Sequence

from bgengine.core.board import validate_board
from bgengine.notation.ids import position_id
from bgengine.notation.moves import match_move

__all__ = ["UbgiPlayer", "UbgiEngineError", "parse_command"]

log = logging.getLogger(__name__)

#: The payload of a roll with no legal play (UBGI v0.2 §6).
NO_PLAY = "pass"
#: Lines a handshake may take before ``ubgiok`` (ids, key lines, info).
MAX_HANDSHAKE_LINES = 1000


class UbgiEngineError(ValueError):
    """The UBGI engine could not be started or gave an unusable answer."""


def parse_command(command: str | Sequence[str]) -> list[str]:
    """The engine's argument vector: a list as given, a string split as a POSIX shell
    would (``'bgengine ubgi --plies 1'``).  ``ValueError`` if empty or unbalanced."""
    try:
        argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
    except ValueError as exc:
        raise ValueError(f"UBGI engine command {command!r}: {exc}") from None
    if not argv:
        raise ValueError("a UBGI engine needs a command, e.g. ubgi:'bgengine ubgi'")
    return argv


def _pump(stream: IO[bytes], lines: "queue.Queue[str | None]") -> None:
    """Move the engine's output into ``lines``, one decoded line at a time; ``None`` at its end."""
    with stream:        # closed here, by its only reader, once the engine has gone
        try:
            for raw in stream:
                lines.put(raw.decode("utf-8", "replace").strip())
        except (OSError, ValueError):   # the pipe broke under us
            pass
    lines.put(None)


class UbgiPlayer:
    """A player whose plays come from a UBGI engine run as a child process.

    Parameters
    ----------
    command : str or sequence of str
        The engine's command line (a string is split like a shell would).
    options : mapping, optional
        ``{key: value}`` sent as ``set key value`` after the handshake (e.g.
        ``{"engine.ply": "2"}``); an option the engine refuses is an error.
    timeout : float
        Seconds to wait for each answer to a question.
    start_timeout : float
        Seconds to wait for each line of the handshake (an engine may load a
        large network first).
    name : str, optional
        Display name (default ``ubgi:COMMAND``).

    Notes
    -----
    The engine starts on first use and runs until :meth:`close` (or the end
    of a ``with`` block).  ``identity`` holds its ``id`` lines (``name``,
    ``author``), ``proto`` its protocol version and ``keys`` its ``key``
    lines.  Not thread-safe: one engine answers one question at a time.
    """

    def __init__(self, command: str | Sequence[str], *, options: Mapping[str, str] | None = None,
                 timeout: float = 60.0, start_timeout: float = 60.0,
                 name: str | None = None) -> None:
        self.argv = parse_command(command)
        if shutil.which(self.argv[0]) is None:
            raise ValueError(f"UBGI engine {self.argv[0]!r}: no such program")
        if not (timeout > 0 and start_timeout > 0):
            raise ValueError(f"timeouts must be positive numbers of seconds, got {timeout!r} "
                             f"and {start_timeout!r}")
        self.options = {str(k): str(v) for k, v in (options or {}).items()}
        self.timeout = float(timeout)
        self.start_timeout = float(start_timeout)
        self.name = name or f"ubgi:{shlex.join(self.argv)}"
        self.identity: dict[str, str] = {}
        self.proto = ""
        self.keys: list[str] = []
        self.requests = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()

    def __repr__(self) -> str:
        return f"UbgiPlayer({self.argv!r})"

    # ------------------------------------------------------------ process
    def start(self) -> None:
        """Start the engine and shake hands (nothing if it already runs)."""
        if self._proc is not None:
            return
        try:     # its stderr stays ours: what an engine says there is for the person running it
            self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        except OSError as exc:
            raise UbgiEngineError(f"cannot start UBGI engine {self.argv[0]!r}: "
                                  f"{exc.strerror or exc}") from None
        self._lines = queue.Queue()
        assert self._proc.stdout is not None
        threading.Thread(target=_pump, args=(self._proc.stdout, self._lines), daemon=True,
                         name=f"ubgi-reader-{self._proc.pid}").start()
        self._send("ubgi")
        for _ in range(MAX_HANDSHAKE_LINES):
            line = self._expect("the handshake", self.start_timeout)
            if line == "ubgiok":
                break
            word, _, rest = line.partition(" ")
            if word == "id":
                field, _, value = rest.partition(" ")
                self.identity[field] = value
            elif word == "proto":
                self.proto = rest
            elif word == "key":
                self.keys.append(rest)
        else:
            raise self._broken(f"no ubgiok after {MAX_HANDSHAKE_LINES} lines")
        for key, value in self.options.items():
            self._send(f"set {key} {value}")
        self._send("isready")
        while self._expect("isready", self.start_timeout) != "readyok":
            pass

    def close(self) -> None:
        """Say ``quit`` and stop the engine (killed if it has not gone in 2 s); safe to repeat."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            assert proc.stdin is not None
            proc.stdin.write(b"quit\n")
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def __enter__(self) -> "UbgiPlayer":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _broken(self, why: str) -> UbgiEngineError:
        status = None if self._proc is None else self._proc.poll()
        self.close()
        ended = "" if status is None else f" (the engine exited with status {status})"
        return UbgiEngineError(f"UBGI engine {self.name}: {why}{ended}")

    def _send(self, line: str) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        log.debug("-> %s: %s", self.name, line)
        try:
            self._proc.stdin.write(line.encode("utf-8") + b"\n")
            self._proc.stdin.flush()
        except OSError as exc:
            raise self._broken(f"cannot send {line!r} ({exc})") from None

    def _expect(self, what: str, timeout: float) -> str:
        """The engine's next non-empty line that is not ``info``, waiting up to ``timeout``
        seconds for each; an ``error`` line raises."""
        while True:
            try:
                line = self._lines.get(timeout=timeout)
            except queue.Empty:
                raise self._broken(f"no answer within {timeout:g} s during {what}") from None
            if line is None:
                assert self._proc is not None
                try:        # give its exit status a moment to arrive after its output's end
                    self._proc.wait(timeout=1.0)
                except subprocess.TimeoutExpired:
                    pass
                raise self._broken(f"closed its output during {what}")
            log.debug("<- %s: %s", self.name, line)
            if line.startswith("error"):
                raise self._broken(f"answered {line!r} during {what}")
            if line and not line.startswith("info"):
                return line

    # ------------------------------------------------------------ decisions
    def new_game(self) -> None:
        """Tell the engine a new game begins (``newgame``)."""
        self.start()
        self._send("newgame")

    def choose(self, board, d1: int, d2: int, seed: int = 0) -> int:
        """Index of the engine's play in ``legal_afterstates(board, d1, d2)``.

        ``board``: row 1 = the side on roll.  ``seed`` is accepted for
        interface compatibility and unused.  Raises :class:`UbgiEngineError`
        for an error, a timeout or a reply that is not a legal play.
        """
        arr = validate_board(board)
        self.start()
        question = f"position gnubgid {position_id(arr)} / dice {int(d1)} {int(d2)}"
        self._send(f"position gnubgid {position_id(arr)}")
        self._send(f"dice {int(d1)} {int(d2)}")
        self._send("go chequer")
        self.requests += 1
        reply = self._expect(question, self.timeout)
        word, _, payload = reply.partition(" ")
        if word != "bestmove" or not payload.strip():
            raise self._broken(f"answered {reply!r} to go chequer ({question})")
        text = "" if payload.strip() == NO_PLAY else payload
        try:
            return match_move(arr, int(d1), int(d2), text)
        except ValueError as exc:
            raise self._broken(f"answered {reply!r}, which is not a legal play ({exc}); "
                               f"{question}") from None
