"""The GNU Backgammon external-player protocol without sockets: line framing,
the session that answers each line, and the exchange log.

:class:`Session` takes the bytes a client sent (any chunks) and returns the
bytes to send back; :class:`LineSplitter` cuts a byte stream into lines and
notes gnubg's NUL framing; :class:`ExchangeLog` records every exchange as
JSON.  :mod:`bgengine.protocols.serve` puts them on TCP.  The protocol as gnubg 1.07
implements it is described in ``docs/gnubg-external.md``.  A session speaks both roles:

**External player for gnubg.**  In gnubg::

    set player 1 external 127.0.0.1:31000

gnubg connects once and, for every decision of that player, sends one FIBS
``board:`` line followed by a NUL byte.  We answer exactly one line: a play in
single-die steps in the mover's own numbering (``bar/22 13/9``), an empty
line when there is no legal play, ``roll`` / ``double`` before rolling, and
``take`` / ``drop`` to a double.  Who we are is worked out from the fields
(§1.5 of ``docs/gnubg-external.md``): the side on roll for move and cube questions, the other side
when a double is answered.  In this role a reply never starts with
``Error`` (gnubg would stall): if anything goes wrong we still send a valid
answer (the first legal play, ``roll`` or ``take``) and log the problem.

**Replacement for gnubg's own ``external`` server.**  A client sends one
command per line and gets gnubg's replies: ``version``, ``help``, ``set debug
on|off``, ``set interface new|old``, ``exit`` / ``quit``, plain ``board:``
decision requests with session options (``jacobyrule on|off``,
``crawfordrule on|off``, ``resignation N``, ``beavers on|off``), and
``evaluation fibsboard board:... [plies N] [cubeful|cubeless] [noise F]
[prune] [deterministic]``, answered with six numbers (win, win gammon, win
backgammon, lose gammon, lose backgammon, equity: cubeless money equity or,
in a match, match-winning chance).  Malformed input gets an ``Error: ...``
line.

How a line is classified: gnubg as a client only ever sends ``board:`` lines,
each followed by a NUL byte.  A ``board:`` line on a connection where that
NUL framing has been seen is a *player-role* question; every other line is a
*server-role* command.  A well-formed ``board:`` line gets the same decision
in both roles; the roles differ only in what happens to bad input (``Error:``
line vs. a safe answer) and in extras (``DBG:`` lines, resignations).

The brain is pluggable: :class:`Engine` (``choose_move_at``: the play at the score gnubg
sends, ``evaluate``, ``cube_decision``, ``take_decision``, ``resign_decision``).  Its cube
decisions come from the network's cubeless probabilities through a
Janowski cube-life model and the Kazaross-XG2 match equity table
(:mod:`bgengine.decisions.cube`); subclasses can override any method.

Where the server role differs from gnubg 1.07's ``external``: ``version``
names bgengine in its ``Engine:`` and ``Software:`` lines; ``help`` lists the
commands (one line); ``plies N`` above the engine's depth is refused with
an ``Error:`` line; ``cubeful`` evaluations use bgengine's cube model
(Janowski, :mod:`bgengine.decisions.cube`), not gnubg's; a board with fewer than 50 integers is
an error (gnubg silently reuses the previous command's values); the Jacoby
default is ``--jacoby`` (gnubg: its global setting); several clients are
served at once (gnubg: one).  Scores follow gnubg's reading (the first score
belongs to the side that is *not* the board's colour, §2.4).  In the
player role a beaver by gnubg stalls gnubg whatever we answer (§1.8):
run gnubg with ``set beavers 0``.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import re
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

import bgengine
from bgengine.decisions.engine import Engine, EngineError, NotSupported
from bgengine.notation.fibs import N_FIELDS, FibsBoard, move_reply, parse_fibs_board
from bgengine.notation.ids import GAME_PLAYING, MatchState, match_id, position_id
from bgengine.core.movegen import legal_afterstates
from bgengine.notation.moves import format_steps_plain
from bgengine.position import Position
from bgengine.protocols.exchange_log import ExchangeLog

__all__ = ["Session", "Reply", "RawLine", "LineSplitter", "ExchangeLog", "MAX_LINE", "BUFFER_LIMIT"]

log = logging.getLogger(__name__)

#: gnubg reads at most 255 bytes per line; longer server-role lines are refused.
MAX_LINE = 255
#: Bytes kept of a line that has no newline yet; the rest is discarded.
BUFFER_LIMIT = 8192


#: White space between words: ASCII only.  Python's own ``str.split()`` also splits
#: at ``\x1c``-``\x1f``, ``\x85``, ``\xa0``, ``\u2028``... while ``strip`` here did
#: not: a line of only those characters was "not empty" yet split into no words
#: (an IndexError).  One definition, used for both.
_WS = " \t\r\n\v\f"
_WS_RE = re.compile(f"[{re.escape(_WS)}]+")


def _words(text: str, maxsplit: int = 0) -> list[str]:
    """``text`` split at ASCII white space (no empty words)."""
    return [w for w in _WS_RE.split(text.strip(_WS), maxsplit) if w]


_ON = {"on": True, "yes": True, "true": True, "off": False, "no": False, "false": False}


# ====================================================================== framing

@dataclass
class RawLine:
    data: bytes            # the line without its newline (NULs kept)
    nul: bool              # gnubg's framing: a NUL right before or right after the line
    length: int            # its real length in bytes (more than len(data) if cut)


class LineSplitter:
    """Splits a byte stream into lines; bounded memory.

    A NUL byte right after a line's newline (gnubg writes ``line\\n\\0``) or
    at the start of a line (the previous line's NUL) marks that line as
    gnubg-framed; NULs elsewhere are just dropped.  A line longer than ``BUFFER_LIMIT``
    keeps only its first bytes; its full length is reported.
    """

    def __init__(self, limit: int = BUFFER_LIMIT) -> None:
        self.limit = limit
        self._buf = bytearray()
        self._dropped = 0          # bytes discarded from the current line
        self._last: RawLine | None = None

    @property
    def pending(self) -> int:
        """Bytes of an unfinished line (NULs not counted)."""
        return len(self._buf.replace(b"\0", b"")) + self._dropped

    def feed(self, data: bytes) -> list[RawLine]:
        out: list[RawLine] = []
        pos = 0
        n = len(data)
        while pos < n:
            # a NUL right after a finished line marks that line as gnubg's
            if self._last is not None and not self._buf and not self._dropped and data[pos] == 0:
                self._last.nul = True
            nl = data.find(b"\n", pos)
            end = n if nl < 0 else nl
            chunk = data[pos:end]
            room = self.limit - len(self._buf)
            if len(chunk) > room:
                self._dropped += len(chunk) - max(room, 0)
                chunk = chunk[:max(room, 0)]
            self._buf += chunk
            if nl < 0:
                break
            line = bytes(self._buf)
            raw = RawLine(line, line.startswith(b"\0"), len(line) + self._dropped)
            out.append(raw)
            self._last = raw
            self._buf.clear()
            self._dropped = 0
            pos = nl + 1
        return out

    def take_partial(self) -> bytes:
        """Remove and return an unfinished line (for timeouts and disconnects)."""
        data = bytes(self._buf)
        self._buf.clear()
        self._dropped = 0
        return data


# ====================================================================== protocol

@dataclass
class Reply:
    """The answer to one line: ``text`` (lines joined, no final newline;
    ``None`` = send nothing), ``close`` to end the connection."""
    text: str | None
    close: bool = False
    role: str = "server"
    kind: str = "command"
    error: str | None = None
    extra: dict = field(default_factory=dict)

    @property
    def wire(self) -> bytes:
        return b"" if self.text is None else (self.text + "\n").encode("utf-8", "replace")


_SESSION_OPTS = {"jacobyrule", "crawfordrule", "resignation", "beavers"}
_EVAL_OPTS = {"plies", "cubeful", "cubeless", "cube", "noise", "prune", "deterministic"}
_HELP = ("\tCommands: version | help | set debug on|off | set interface new|old | "
         "board:NAME:OPP:<50 ints> [jacobyrule on|off] [crawfordrule on|off] [resignation N] "
         "[beavers on|off] | evaluation fibsboard board:... [plies N] [cubeful|cubeless] "
         "[noise F] [prune] [deterministic] | exit | quit")
_COMMANDS_HINT = "commands: version, help, set, board:..., evaluation fibsboard board:..., exit"


def _show(text: str, limit: int = 40) -> str:
    """A short, printable rendering of client text for error messages."""
    shown = "".join(ch if ch.isprintable() and ord(ch) < 127 else "?" for ch in text[:limit])
    return shown + ("..." if len(text) > limit else "")


class _Syntax(Exception):
    pass


class Session:
    """The protocol state of one connection; usable without sockets.

    ``feed(bytes) -> bytes`` runs a scripted stream through the same code as
    the socket server; ``handle(RawLine) -> Reply`` answers one line.
    """

    def __init__(self, engine: Engine, *, log: ExchangeLog | None = None, peer: str = "",
                 conn_id: int = 0, time_source: Callable[[], float] = time.monotonic) -> None:
        self.engine = engine
        self.log = log or ExchangeLog()
        self.peer = peer
        self.conn_id = conn_id
        self.debug = False
        self.gnubg = False          # NUL framing seen: gnubg is our client
        self.closed = False
        self.splitter = LineSplitter()
        self.lines = 0              # complete lines received
        self._clock = time_source
        self._offered: tuple | None = None      # the state of the last resignation we offered

    # ------------------------------------------------------------ stream
    def feed(self, data: bytes) -> bytes:
        """Answer every complete line in ``data``; returns the bytes to send."""
        out = bytearray()
        for raw in self.splitter.feed(data):
            if self.closed:
                break
            self.lines += 1
            reply = self.handle(raw)
            out += reply.wire
            if reply.close:
                self.closed = True
        return bytes(out)

    # ------------------------------------------------------------ one line
    def handle(self, raw: RawLine) -> Reply:
        """The reply to one line.  Never raises."""
        start = self._clock()
        text = raw.data.replace(b"\0", b"").decode("utf-8", "replace")
        stripped = text.strip(_WS)
        if raw.nul and stripped[:6].lower() == "board:":
            self.gnubg = True       # gnubg's framing: board line + NUL
        try:
            reply = self._dispatch(stripped, raw)
        except Exception as exc:  # last resort: never let a line kill the connection
            log.exception("internal error answering %r", stripped[:80])
            if self._player_role(stripped):
                reply = Reply("", role="player", kind="error", error=f"internal error: {exc}")
            else:
                reply = Reply(f"Error: internal error ({type(exc).__name__}: {exc})",
                              kind="error", error=str(exc))
        ms = round(1000 * (self._clock() - start), 3)
        budget = self.engine.time_budget
        if budget is not None and ms > 1000 * budget and reply.kind in ("move", "cube", "take"):
            reply.extra["over_budget"] = True
            log.warning("decision took %.1f ms, over the %.3f s budget", ms, budget)
        if reply.kind != "ignored":
            self.log.write(event="line", conn=self.conn_id, peer=self.peer, role=reply.role,
                           kind=reply.kind, **{"in": text[:400], "out": reply.text}, ms=ms,
                           **({"error": reply.error} if reply.error else {}), **reply.extra)
        return reply

    def _player_role(self, stripped: str) -> bool:
        return self.gnubg and stripped[:6].lower() == "board:"

    def _dispatch(self, line: str, raw: RawLine) -> Reply:
        if not line:
            if self.gnubg:
                # gnubg's framing (docs/gnubg-external.md §3: ignore empty lines); a reply would desynchronise it
                return Reply(None, role="player", kind="ignored")
            # before gnubg's framing is seen every line is answered, a lone NUL included
            return Reply("Error: no command given", kind="error", error="empty line")
        if self._player_role(line):
            return self._board(line, player=True)
        if raw.length > MAX_LINE:
            return Reply(f"Error: line too long ({raw.length} bytes; at most {MAX_LINE} are read)",
                         kind="error", error="line too long")
        parts = _words(line, 1)
        word, rest = parts[0], (parts[1] if len(parts) > 1 else "")
        word_l = word.lower()
        try:
            if word_l.startswith("board:"):
                return self._board(line, player=False)
            if word_l in ("exit", "quit"):
                if _words(rest):
                    raise _Syntax(f"unexpected {_show(_words(rest)[0]).upper()}, expecting EOL")
                return Reply(None, close=True, kind="command")
            if word_l == "version":
                if _words(rest):
                    raise _Syntax(f"unexpected {_show(_words(rest)[0]).upper()}, expecting EOL")
                return Reply(f"Interface: 2\nRFBF: 0\nEngine: {self.engine.name}\n"
                             f"Software: bgengine {bgengine.__version__}")
            if word_l == "help":
                return Reply(_HELP)
            if word_l == "set":
                return self._set(_words(rest))
            if word_l == "evaluation":
                return self._evaluation(rest)
            raise _Syntax(f"unexpected E_CHARACTER (unknown command {_show(word)!r}; "
                          f"{_COMMANDS_HINT})")
        except _Syntax as exc:
            return Reply(f"Error: syntax error, {exc}", kind="error", error=str(exc))

    # ------------------------------------------------------------ commands
    def _set(self, args: list[str]) -> Reply:
        if not args:
            raise _Syntax("unexpected EOL, expecting an option (debug, interface)")
        name = args[0].lower()
        if name == "debug":
            if len(args) != 2 or args[1].lower() not in _ON:
                raise _Syntax("expecting 'set debug on' or 'set debug off'")
            self.debug = _ON[args[1].lower()]
            return Reply(f"Debug output {'ON' if self.debug else 'OFF'}")
        if name == "interface":
            if len(args) != 2 or args[1].lower() not in ("new", "old"):
                raise _Syntax("expecting 'set interface new' or 'set interface old'")
            return Reply(f"New interface {'ON' if args[1].lower() == 'new' else 'OFF'}")
        return Reply(f"Error: set option '{_show(args[0])}' not supported", kind="error",
                     error="unsupported set option")

    @staticmethod
    def _split_board(text: str) -> tuple[str, list[str]]:
        parts = _words(text, 1)
        return parts[0], (_words(parts[1]) if len(parts) > 1 else [])

    def _parse_board(self, token: str) -> FibsBoard:
        body = "board:" + token[6:]
        n = len(body[6:].split(":"))
        if n > N_FIELDS:
            raise EngineError(f"Invalid board. Maximum number of elements is {N_FIELDS}")
        try:
            fb = parse_fibs_board(body)
        except ValueError as exc:
            raise EngineError(f"badly formed board: {exc}") from None
        board = fb.mover_board()
        if board[0].sum() == 0 or board[1].sum() == 0:
            raise EngineError("badly formed board: a side has borne off all its checkers "
                              "(the game is over)")
        return fb

    @staticmethod
    def _options(words: list[str], allowed: set[str], after: str) -> dict:
        opts: dict = {}
        i = 0
        while i < len(words):
            w = words[i].lower()
            nxt = words[i + 1].lower() if i + 1 < len(words) else None
            if w not in allowed:
                if w in _SESSION_OPTS or w in _EVAL_OPTS:
                    raise _Syntax(f"unexpected {w.upper()}, expecting EOL "
                                  f"('{w}' is not an option {after})")
                raise _Syntax(f"unexpected E_CHARACTER ({_show(words[i])!r} is not an option "
                              f"{after})")
            if w in ("jacobyrule", "crawfordrule", "beavers"):
                if nxt not in _ON:
                    raise _Syntax(f"expecting on or off after {w}")
                opts[w] = _ON[nxt]
                i += 2
            elif w in ("resignation", "plies"):
                if nxt is None or not nxt.isdigit() or not nxt.isascii():
                    raise _Syntax(f"expecting a whole number after {w}")
                v = int(nxt)
                if w == "resignation" and v > 3:
                    raise _Syntax("resignation must be 0 (none), 1 (single), 2 (gammon) or 3 (backgammon)")
                if w == "plies" and v > 7:
                    raise _Syntax("plies must be 0..7")
                opts[w] = v
                i += 2
            elif w in ("cubeful", "cubeless"):
                opts["cubeful"] = w == "cubeful"
                i += 1
            elif w == "cube":
                if nxt not in _ON:
                    raise _Syntax("expecting on or off after cube")
                opts["cubeful"] = _ON[nxt]
                i += 2
            elif w == "noise":
                try:
                    v = float(nxt) if nxt is not None else math.nan
                except ValueError:
                    v = math.nan
                if not math.isfinite(v) or v < 0:
                    raise _Syntax("expecting a number >= 0 after noise")
                opts["noise"] = v / 10000.0 if nxt.isdigit() else v
                i += 2
            elif w in ("prune", "deterministic"):
                if nxt in _ON:
                    opts[w] = _ON[nxt]
                    i += 2
                else:
                    opts[w] = True
                    i += 1
            else:  # pragma: no cover - all allowed words handled above
                raise _Syntax(f"unexpected {w.upper()}")
        return opts

    def _state(self, fb: FibsBoard, opts: dict) -> MatchState:
        try:
            st = fb.match_state()
        except ValueError as exc:
            raise EngineError(f"badly formed board: {exc}") from None
        if st.crawford and opts.get("crawfordrule") is False:
            st = dataclasses.replace(st, crawford=False)
        return st

    def _debug_lines(self, fb: FibsBoard, opts: dict, st: MatchState, board: np.ndarray) -> list[str]:
        shown = {"beavers": int(opts.get("beavers", True)),
                 "resignation": opts.get("resignation", 0),
                 "crawfordrule": int(opts.get("crawfordrule", True)),
                 "jacobyrule": int(opts.get("jacobyrule", self.engine.jacoby))}
        lines = ["DBG: [" + ", ".join(f'"{k}" : {v}' for k, v in shown.items()) + "]"]
        fields = fb.to_line()[6:].split(":")
        lines.append("DBG: (" + ", ".join(f'"{f}"' if i < 2 else f for i, f in enumerate(fields)) + ")")
        try:
            mid = match_id(dataclasses.replace(st, game_state=GAME_PLAYING))
        except ValueError:
            mid = "?"
        lines.append(f"DBG:  Position ID: {position_id(board)}")
        lines.append(f"DBG:  Match ID   : {mid}")
        lines += ["DBG: " + s for s in Position(board).to_text().splitlines()]
        lines.append(f"DBG: X is {_show(fb.player, 32)}, O is {_show(fb.opponent, 32)}")
        kind = "Money session" if st.match_length == 0 else f"{st.match_length}-point match"
        lines.append(f"DBG: {kind}, Score: {st.score[0]}-{st.score[1]}, "
                     f"Roll: {st.dice[0]}{st.dice[1]}")
        lines.append(f"DBG: CubeOwner: {st.cube_owner}, Cube: {st.cube}, "
                     f"OnRoll: {st.player_on_roll}, Doubled: {int(st.double_offered)}, "
                     f"Resignation: {opts.get('resignation', 0)}")
        return lines

    # ------------------------------------------------------------ board: requests
    def _board(self, line: str, *, player: bool) -> Reply:
        role = "player" if player else "server"
        token, words = self._split_board(line)
        try:
            try:
                fb = self._parse_board(line if player else token)
                words = [] if player else words
            except EngineError:
                if not player:
                    raise
                fb = self._parse_board(token)   # gnubg never adds options, but be lenient
            opts = {} if player else self._options(words, _SESSION_OPTS, "of a board: request")
            st = self._state(fb, opts)
        except _Syntax as exc:
            return Reply(f"Error: syntax error, {exc}", kind="error", error=str(exc))
        except EngineError as exc:
            if player:   # never an Error line to gnubg: an empty reply, and a loud log entry
                log.error("unreadable board line from gnubg: %s", exc)
                return Reply("", role=role, kind="error", error=str(exc))
            return Reply(f"Error: {exc}", kind="error", error=str(exc))

        board = fb.mover_board()
        extra = {"position_id": position_id(board), "dice": list(fb.roll),
                 "match_id": _safe_match_id(st)}
        dbg = self._debug_lines(fb, opts, st, board) if (self.debug and not player) else []
        resign = opts.get("resignation", 0)
        jacoby = opts.get("jacobyrule")
        try:
            offer = self._resign_offer(board, st, jacoby) if player and not (
                resign or fb.doubled or fb.decision == "take") else 0
            if offer:
                kind, answer = "offer", f"resign {('single', 'gammon', 'backgammon')[offer - 1]}"
            elif resign and not fb.doubled:
                kind = "resign"
                ok = self.engine.resign_decision(board, st, resign, jacoby)
                answer = "accept" if ok else "reject"
            elif fb.decision == "take":
                kind = "take"
                answer = "take" if self.engine.take_decision(board, st) else "drop"
            elif fb.decision == "cube":
                kind = "cube"
                answer = "double" if self.engine.cube_decision(board, st, jacoby) else "roll"
            else:
                kind = "move"
                d1, d2 = fb.roll
                steps = self.engine.choose_move_at(board, d1, d2, st)
                extra["steps"] = [list(s) for s in steps]
                if player:
                    answer = move_reply(steps, board)
                else:
                    answer = format_steps_plain(steps, board) + (" " if steps else "")
        except Exception as exc:
            if not player:
                if isinstance(exc, EngineError):
                    return Reply("\n".join(dbg + [f"Error: {exc}"]), kind="error", error=str(exc))
                raise
            answer, kind = self._fallback(fb, board)
            log.exception("engine failed on a gnubg question; answered %r", answer)
            return Reply(answer, role=role, kind=kind, error=f"engine failed: {exc}", extra=extra)
        return Reply("\n".join(dbg + [answer]), role=role, kind=kind, extra=extra)

    def _resign_offer(self, board: np.ndarray, st: MatchState, jacoby: bool | None) -> int:
        """The resignation to offer gnubg (``Engine.resign_offer``), 0 for none; one that
        gnubg declined is not offered again at the same board, cube and score (gnubg asks
        again then)."""
        level = self.engine.resign_offer(board, st, jacoby)
        key = (position_id(board), st.cube, st.cube_owner, st.score, level)
        if not level or key == self._offered:
            return 0
        self._offered = key
        return level

    @staticmethod
    def _fallback(fb: FibsBoard, board: np.ndarray) -> tuple[str, str]:
        """A valid answer for gnubg when the engine fails."""
        if fb.decision == "take":
            return "take", "take"
        if fb.decision == "cube":
            return "roll", "cube"
        try:
            _, steps = legal_afterstates(board, *fb.roll)
            return move_reply([s for s in steps[0] if s[0] >= 0], board), "move"
        except Exception:  # pragma: no cover
            return "", "move"

    # ------------------------------------------------------------ evaluation
    def _evaluation(self, rest: str) -> Reply:
        words = _words(rest)
        if not words:
            raise _Syntax("unexpected EOL, expecting FIBSBOARD")
        if words[0].lower() != "fibsboard":
            tok = "E_STRING" if words[0].lower().startswith("board:") else "E_CHARACTER"
            raise _Syntax(f"unexpected {tok}, expecting FIBSBOARD "
                          "(write: evaluation fibsboard board:...)")
        if len(words) < 2 or not words[1].lower().startswith("board:"):
            raise _Syntax("unexpected EOL, expecting a board:... string after fibsboard")
        try:
            fb = self._parse_board(words[1])
        except EngineError as exc:
            return Reply(f"Error: {exc}", kind="error", error=str(exc))
        opts = self._options(words[2:], _SESSION_OPTS | _EVAL_OPTS, "of an evaluation")
        try:
            st = self._state(fb, opts)
        except EngineError as exc:
            return Reply(f"Error: {exc}", kind="error", error=str(exc))
        board = fb.mover_board()
        dbg = self._debug_lines(fb, opts, st, board) if self.debug else []
        extra = {"position_id": position_id(board), "match_id": _safe_match_id(st)}
        try:
            if not self.engine.has_probabilities():
                raise NotSupported(f"no network is loaded (player {self.engine.player.name} gives "
                                   "no probabilities); start the server with --player net:FILE")
            plies = opts.get("plies", 0)
            probs = self.engine.evaluate(board, plies=plies)
            if opts.get("cubeful"):
                eq = self.engine.evaluate_cubeful(board, st, plies=plies)
            else:
                eq = self.engine.equity(board, st, probs)
            noise = opts.get("noise", 0.0)
            if noise > 0:
                seed = None
                if opts.get("deterministic", True):
                    seed = int.from_bytes(position_id(board).encode()[:8], "little")
                eq += float(np.random.default_rng(seed).normal(0.0, noise))
        except EngineError as exc:
            return Reply("\n".join(dbg + [f"Error: {exc}"]), kind="error", error=str(exc))
        nums = " ".join(f"{x:f}" for x in [*probs, eq])
        return Reply("\n".join(dbg + [nums]), kind="eval", extra=extra)


def _safe_match_id(st: MatchState) -> str | None:
    try:
        return match_id(st)
    except ValueError:
        return None
