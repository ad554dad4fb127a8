"""One fuzz target per input surface: ``NAME(data: bytes) -> None``.

A target feeds arbitrary bytes to one parser, protocol or entry point and fails (an
``AssertionError``, or the unexpected exception itself) only on a real defect: an
exception the surface does not promise for bad input, a traceback or an internal error
in a protocol's reply, or a result that breaks the surface's own round trip (an ID
that decodes must encode to the same text, a match file that reads must write and read
back to the same match, ...).  Bad input refused the documented way (``ValueError``
with a message, an ``Error:`` / ``error CODE`` line, exit status 2) is a pass.

The targets need no fuzzer: ``fuzz/run.py`` drives them with atheris for hours, and
``tests/test_fuzz_corpus.py`` replays the kept corpus and every crash found, so that each
stays a regression test.  Costly fixtures (engines, the web app, a scratch folder) are
made once per process by cached factories; nothing is written outside that folder.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import io
import json
import logging
import math
import os
import re
import struct
import tempfile
import urllib.parse
import warnings
import zipfile
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

__all__ = ["TARGETS", "target_names", "text_of", "Fields", "ErrorLog"]


# ====================================================================== decoding

def text_of(data: bytes) -> str:
    """The bytes as text, every byte kept (undecodable ones as lone surrogates)."""
    return data.decode("utf-8", "surrogateescape")


class Fields:
    """Cuts fuzz bytes into small choices and a text rest, without atheris (so that the
    corpus replays in CI, and one input means the same thing to both)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            return 0
        b = self.data[self.pos]
        self.pos += 1
        return b

    def pick(self, options: list | tuple):
        return options[self.byte() % len(options)]

    def int_(self, lo: int, hi: int) -> int:
        return lo + self.byte() % (hi - lo + 1)

    def chunk(self, n: int) -> bytes:
        out = self.data[self.pos:self.pos + n]
        self.pos += len(out)
        return out

    def rest(self) -> bytes:
        out = self.data[self.pos:]
        self.pos = len(self.data)
        return out

    def text(self) -> str:
        return text_of(self.rest())


class ErrorLog(logging.Handler):
    """What bgengine logs at ERROR while a target runs: an internal error behind a
    polite reply is still a defect."""

    def __init__(self, ignore: tuple[str, ...] = ()) -> None:
        super().__init__(logging.ERROR)
        self.ignore = ignore
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        msg = record.getMessage()
        if not msg.startswith(self.ignore):
            self.messages.append(msg)


@contextlib.contextmanager
def _no_logged_errors(ignore: tuple[str, ...] = ()) -> Iterator[ErrorLog]:
    handler = ErrorLog(ignore)
    logger = logging.getLogger("bgengine")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
    assert not handler.messages, f"logged as an error: {handler.messages[:3]}"


@contextlib.contextmanager
def _quiet_warnings() -> Iterator[None]:
    """Warnings a reader issues on purpose (a match that stops short, ...) are not defects."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@functools.cache
def _scratch() -> Path:
    """This process's scratch folder: every file a target writes goes here."""
    return Path(tempfile.mkdtemp(prefix="bgengine-fuzz-"))


def _write(name: str, data: bytes) -> Path:
    path = _scratch() / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


START_ID = "4HPwATDgc/ABMA"
#: Positions a play is read on (the start, a bar entry, a bear-off, a blocked roll).
POSITION_IDS = ("4HPwATDgc/ABMA", "4HPwATDgc/ABMA", "sGfwATDgc/ABMA", "4PPgAyDg8+ABMA",
                "2+4OAAAAAAAAAA", "AAAAAAAAAAAAAA", "4HPhATDgc/ABMA", "jGfkACjg8xgBUA")


#: Player specs that start another program (gnubg, a UBGI engine's command) or connect to
#: a server: never passed to a surface from fuzz input.
_OTHER_PROGRAMS = re.compile(r"gnubg|ubgi|external", re.IGNORECASE)


def _harmless(text: str) -> str:
    """``text`` with every player spec that would run another program made a plain word."""
    return _OTHER_PROGRAMS.sub("net", text)


def _board(pid: str) -> np.ndarray | None:
    from bgengine.notation.ids import board_from_position_id
    try:
        return board_from_position_id(pid)
    except ValueError:
        return None


# ====================================================================== IDs

def position_id(data: bytes) -> None:
    """gnubg Position IDs: what decodes re-encodes to the same text; any board of 50
    counts that validates has an ID that decodes back to it."""
    from bgengine.core.board import validate_board
    from bgengine.notation.ids import board_from_position_id, position_id as encode

    text = text_of(data)
    try:
        board = board_from_position_id(text)
    except ValueError:
        pass
    else:
        assert encode(board) == text, (text, encode(board))
    counts = np.frombuffer(data[:50].ljust(50, b"\0"), dtype=np.uint8).astype(np.int64) % 17
    try:
        b = validate_board(counts.reshape(2, 25))
    except ValueError:
        return
    assert np.array_equal(board_from_position_id(encode(b)), b)


def match_id(data: bytes) -> None:
    """gnubg Match IDs: what decodes re-encodes to the same text (a roll written lower die
    first re-encodes higher first, as in gnubg)."""
    from bgengine.notation.ids import match_id as encode, match_state_from_id

    text = text_of(data)
    try:
        state = match_state_from_id(text)
    except ValueError:
        return
    again = encode(state)
    if state.dice[0] >= state.dice[1]:
        assert again == text, (text, again)
    assert match_state_from_id(again) == replace(state, dice=tuple(sorted(state.dice, reverse=True)))


def state_text(data: bytes) -> None:
    """A game state's text (XGID, PositionID:MatchID, a Position ID with labels or not):
    what parses writes back in its own form and parses to the same state."""
    from bgengine.notation.state_text import format_gnubgid, format_xgid, parse_gnubgid, parse_state, parse_xgid

    text = text_of(data)
    try:
        fields = parse_state(text)
    except ValueError:
        return
    assert fields.board.shape == (2, 25)
    gnubg = format_gnubgid(fields.board, fields.match)
    again = parse_gnubgid(gnubg)
    assert np.array_equal(again.board, fields.board) and again.match == replace(
        fields.match, dice=tuple(sorted(fields.match.dice, reverse=True))), (text, gnubg)
    try:
        xgid = format_xgid(fields.board, fields.match, fields.beavers, fields.max_cube)
    except ValueError:        # what an XGID cannot hold (a resignation, a finished game)
        return
    x = parse_xgid(xgid)
    assert np.array_equal(x.board, fields.board), (text, xgid)
    assert x.match == fields.match and x.beavers == fields.beavers, (text, xgid)
    assert x.max_cube == fields.max_cube, (text, xgid)
    assert format_xgid(x.board, x.match, x.beavers, x.max_cube) == xgid


# ====================================================================== notation

def notation(data: bytes) -> None:
    """Move notation: a text either names one legal play (whose own notation names it
    again) or is refused with ``ValueError``."""
    from bgengine.core.movegen import legal_afterstates
    from bgengine.notation.moves import format_move, match_move, parse_move

    f = Fields(data)
    board = _board(f.pick(POSITION_IDS))
    d1, d2 = f.int_(1, 6), f.int_(1, 6)
    text = f.text()
    try:
        steps = parse_move(text)
    except ValueError:
        steps = None
    if steps is not None:
        for a, b in steps:          # syntax only: direction and legality are match_move's
            assert 1 <= a <= 25 and 0 <= b <= 24, (text, steps)
    if board is None:
        return
    try:
        index = match_move(board, d1, d2, text)
    except ValueError:
        return
    after, all_steps = legal_afterstates(board, d1, d2)
    assert 0 <= index < len(after), (text, index)
    written = format_move(board, [s for s in all_steps[index] if s[0] >= 0])
    if written:
        assert match_move(board, d1, d2, written) == index, (text, written)


# ====================================================================== match files

def _same_match(a, b, what: str) -> None:
    assert a.length == b.length, (what, a.length, b.length)
    assert len(a.games) == len(b.games), (what, len(a.games), len(b.games))
    for i, (ga, gb) in enumerate(zip(a.games, b.games)):
        assert ga.score == gb.score and ga.crawford == gb.crawford, (what, i)
        assert ga.actions == gb.actions, (what, i, ga.actions, gb.actions)


def matfile(data: bytes) -> None:
    """``.mat`` text: read or refused with :class:`MatchRecordError`; what reads writes
    and reads back to the same games."""
    from bgengine.matchfiles.mat import read_mat, write_mat
    from bgengine.matchfiles.record import MatchRecordError

    text = text_of(data)
    with _quiet_warnings():
        try:
            match = read_mat(text)
        except MatchRecordError:
            return
        again = read_mat(write_mat(match))
    _same_match(match, again, "mat -> mat")


def sgf(data: bytes) -> None:
    """``.sgf`` text: read or refused with :class:`MatchRecordError`; what reads writes
    and reads back to the same games, as ``.sgf`` and as ``.mat``."""
    from bgengine.matchfiles.mat import read_mat, write_mat
    from bgengine.matchfiles.record import MatchRecordError
    from bgengine.matchfiles.sgf import read_sgf, write_sgf

    text = text_of(data)
    with _quiet_warnings():
        try:
            match = read_sgf(text)
        except MatchRecordError:
            return
        again = read_sgf(write_sgf(match))
        as_mat = read_mat(write_mat(match))
    _same_match(match, again, "sgf -> sgf")
    _same_match(match, as_mat, "sgf -> mat")


_MATCH_NAMES = ("fuzz.mat", "fuzz.sgf", "fuzz.mat.gz", "fuzz.sgf.gz")


def match_file(data: bytes) -> None:
    """A match file's bytes on disk (``.mat``, ``.sgf``, gzipped or not, any encoding):
    read or refused with ``ValueError``."""
    from bgengine.matchfiles.files import read_match_file

    f = Fields(data)
    kind = f.byte()
    name = _MATCH_NAMES[kind % 4]
    body = f.rest()
    if name.endswith(".gz") and kind & 4:
        body = gzip.compress(body, mtime=0)       # valid gzip around fuzzed text
    path = _write(name, body)
    with _quiet_warnings():
        try:
            read_match_file(path)
        except ValueError:
            pass


def session_file(data: bytes) -> None:
    """A saved play session (``.mat`` with bgengine's tags): loaded or refused with
    :class:`SessionFileError`."""
    from bgengine.matchfiles.session_file import SessionFileError, load_session

    path = _write("session.mat", data)
    with _quiet_warnings():
        try:
            saved = load_session(path)
        except SessionFileError:
            return
    assert saved.record is not None


# ====================================================================== FIBS and protocols

def fibs(data: bytes) -> None:
    """FIBS ``board:`` lines: parsed (and written back to the same fields) or refused
    with ``ValueError``; a parsed line gives a legal position."""
    from bgengine.core.board import validate_board
    from bgengine.notation.fibs import parse_fibs_board

    text = text_of(data)
    try:
        fb = parse_fibs_board(text)
    except ValueError:
        return
    assert parse_fibs_board(fb.to_line()) == replace(
        fb, player=fb.player.replace("\n", " "), opponent=fb.opponent.replace("\n", " ")) \
        or "\0" in fb.player + fb.opponent
    validate_board(fb.mover_board())
    try:
        st = fb.match_state()
    except ValueError:
        return
    assert st.match_length == fb.match_length


#: Seeds of protocol lines (a gnubg board line; the commands of both protocols).
OPENING_31 = ("board:you:opp:0:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:3:1:"
              "0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")


@functools.cache
def _fixed_engine():
    """A fast engine with fixed probabilities (its decisions are tested elsewhere)."""
    from engine_doubles import FixedEngine
    return FixedEngine()


_UNREADABLE = ("unreadable board line from gnubg",)


def external(data: bytes) -> None:
    """gnubg's external-player protocol (:class:`bgengine.protocols.gnubg_socket.Session`, both roles):
    every line gets an answer or an ``Error:`` line, never an internal error, and
    nothing is logged as an error but the documented unreadable board from gnubg."""
    from bgengine.opponents.external import parse_address
    from bgengine.protocols.gnubg_socket import Session

    f = Fields(data)
    mode = f.byte()
    payload = f.rest()
    if mode % 8 == 7:                      # the client's address parser, too
        try:
            host, port = parse_address(text_of(payload))
        except ValueError:
            return
        assert 0 < port < 65536 and host
        return
    session = Session(_fixed_engine())
    gnubg = bool(mode & 1)
    if gnubg:                              # gnubg's framing first: the player role
        session.feed(OPENING_31.encode() + b"\n\0")
    with _no_logged_errors(_UNREADABLE):
        lines = payload.split(b"\n")
        for k, line in enumerate(lines):
            if session.closed:
                break
            out = session.feed(line + (b"\n\0" if gnubg else b"\n"))
            assert b"internal error" not in out, (line, out)
            if not gnubg and not session.closed and not session.gnubg and line.strip(b"\0"):
                assert out.endswith(b"\n"), (line, out)


@functools.cache
def _ubgi_player():
    from bgengine.matches.players import make_player
    return make_player("pubeval")


def ubgi(data: bytes) -> None:
    """UBGI (:class:`bgengine.protocols.ubgi.UbgiSession`): each line gets its replies or one
    ``error CODE DETAIL`` line with a standard code, never an internal error."""
    from bgengine.protocols.ubgi import ERROR_CODES, UbgiSession

    session = UbgiSession(_ubgi_player())
    with _no_logged_errors():
        for line in _harmless(text_of(data)).replace("\r", "\n").split("\n")[:32]:
            out = session.handle(line)
            assert isinstance(out, list), out
            for reply in out:
                assert "internal error" not in reply, (line, reply)
                assert "\n" not in reply, (line, reply)
                if reply.startswith("error "):
                    assert reply.split()[1] in ERROR_CODES, (line, reply)


# ====================================================================== the web API

_WEB_PATHS = ("/move", "/eval", "/hint", "/rollout", "/api/game/new", "/api/game/move",
              "/api/game", "/api/game/roll", "/api/game/double", "/api/game/take",
              "/api/game/pass", "/api/game/undo", "/api/game/done", "/api/game/next",
              "/api/game/hint", "/api/game/match.mat", "/network", "/", "/favicon.ico")
_WEB_KEYS = ("state", "dice", "plies", "num", "rollout", "seed", "trials", "candidates",
             "truncate", "length", "from", "to", "jacoby")
_WEB_VALUES = (None, True, False, 0, 1, 2, 3, 6, 7, -1, 2**31, 2**70, 0.5, float("nan"),
               float("inf"), "", START_ID, "4HPwATDgc/ABMA:cAkAAAAAAAAA",
               "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:3:10", [3, 1], [6, 6], [0, 7],
               [1], {}, [], "x" * 300)


@functools.cache
def _web_client():
    from fastapi.testclient import TestClient

    from bgengine.protocols.web.api import create_app
    from bgengine.protocols.web.limits import WebLimits
    limits = WebLimits(max_trials=72, max_work=5000)
    # raise_server_exceptions=False: a bug shows as the 500 a browser would get
    return TestClient(create_app(_fixed_engine(), limits=limits, seed=0),
                      raise_server_exceptions=False)


def _web_body(f: Fields) -> bytes:
    """A JSON body: fields with picked values, or the fuzz text itself."""
    mode = f.byte() % 4
    if mode == 0:
        return f.rest()
    body: dict = {}
    for _ in range(f.byte() % 5):
        key = f.pick(_WEB_KEYS)
        body[key] = f.pick(_WEB_VALUES) if f.byte() % 4 else text_of(f.chunk(f.byte() % 24))
    if mode == 2:
        body["state"] = text_of(f.chunk(60))
    return json.dumps(body).encode()


def web(data: bytes) -> None:
    """``bgengine web``'s HTTP API in-process: any path, method and body gets a 2xx or
    a 4xx with a JSON ``detail`` (a 503 when the server is full), never a 500."""
    client = _web_client()
    f = Fields(data)
    method = f.pick(("POST", "POST", "POST", "GET"))
    path = f.pick(_WEB_PATHS)
    if f.byte() % 8 == 0:
        # any bytes, percent-encoded as a client must send them
        path += urllib.parse.quote(f.chunk(f.byte() % 16), safe="/?&=")
    body = _web_body(f)
    r = client.request(method, path, content=body, headers={"content-type": "application/json"})
    assert r.status_code < 500 or r.status_code == 503, (method, path, body, r.status_code, r.text)
    if r.status_code >= 400 and r.headers.get("content-type", "").startswith("application/json"):
        detail = r.json().get("detail")
        assert detail, (path, body, r.text)


# ====================================================================== network files

@functools.cache
def _valid_network_bytes() -> bytes:
    from bgengine.core.network import Network
    path = _scratch() / "valid-net.npz"
    Network(hidden=(4,), n_outputs=5, seed=1).save(path)
    return path.read_bytes()


def _npz(arrays: dict[str, np.ndarray]) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _mutated_network(f: Fields) -> bytes:
    """A valid network file with its metadata or parameters changed by the fuzz."""
    with np.load(io.BytesIO(_valid_network_bytes()), allow_pickle=False) as z:
        params = z["params"]
        meta = json.loads(str(z["metadata"]))
    how = f.byte() % 6
    if how == 0:                          # metadata text replaced
        return _npz({"params": params, "metadata": np.array(f.text())})
    if how == 1:                          # one metadata field replaced by fuzzed JSON
        key = f.pick(sorted(meta) + ["classes", "contact_experts", "race_gammons", "database"])
        try:
            meta[key] = json.loads(f.text())
        except ValueError:
            meta[key] = f.text()
        return _npz({"params": params, "metadata": np.array(json.dumps(meta))})
    if how == 2:                          # the parameters' bytes replaced
        raw = f.rest()
        dtype = f.pick(("<f4", "<f8", "<i4", "u1")) if raw else "<f4"
        arr = np.frombuffer(raw[: len(raw) // np.dtype(dtype).itemsize * np.dtype(dtype).itemsize],
                            dtype=dtype)
        return _npz({"params": arr, "metadata": np.array(json.dumps(meta))})
    if how == 3:                          # as an evaluator file
        meta2 = {"format": "bgengine-evaluator", "format_version": meta["format_version"],
                 "classes": {"contact": meta}}
        try:
            meta2.update(json.loads(f.text()))
        except (ValueError, TypeError):
            pass
        return _npz({"contact_params": params, "metadata": np.array(json.dumps(meta2))})
    data = bytearray(_valid_network_bytes())   # bytes of the file flipped
    for _ in range(1 + f.byte() % 8):
        if not data:
            break
        k = struct.unpack("<H", f.chunk(2).ljust(2, b"\0"))[0] % len(data)
        data[k] = f.byte()
    return bytes(data)


def network_file(data: bytes) -> None:
    """Network and evaluator files (``.npz``): loaded, or refused with ``ValueError``;
    a network that loads evaluates the start to finite probabilities."""
    from bgengine.core.evaluator import load_evaluator
    from bgengine.core.network import Network

    f = Fields(data)
    mode = f.byte()
    body = f.rest() if mode % 2 == 0 else _mutated_network(f)
    path = _write("net.npz", body)
    start = _board(START_ID)
    for load in (Network.load, load_evaluator):
        try:
            net = load(path)
        except ValueError:
            continue
        out = np.asarray(net.evaluate(start[None]))
        assert np.all(np.isfinite(out)), (load.__qualname__, out)


# ====================================================================== run directories

_VALID_CONFIG = b"[train]\ngames = 1000\nhidden = [40]\nalpha = 0.1\nseed = 3\n"


def train_config(data: bytes) -> None:
    """Training configs (TOML): read or refused with ``ValueError``; what reads writes
    back to TOML that reads to the same config."""
    from bgengine.training.config import TrainConfig

    path = _write("config.toml", data)
    try:
        config = TrainConfig.from_toml(path)
    except ValueError:
        return
    text = config.to_toml()
    again = TrainConfig.from_toml(_write("again.toml", text.encode()))
    assert again == config, (text,)


def run_dir(data: bytes) -> None:
    """A run directory's log and checkpoint: a log's unreadable lines are skipped, a bad
    checkpoint is ``ValueError("unreadable checkpoint ...")``."""
    from bgengine.training.run_dir import RunDir

    f = Fields(data)
    mode = f.byte()
    run = _scratch() / "run"
    run.mkdir(exist_ok=True)
    rd = RunDir(run)
    with _no_logged_errors():             # its warnings about unreadable lines stay quiet
        _run_dir(rd, f, mode)


def _run_dir(rd, f: Fields, mode: int) -> None:
    from bgengine.training.run_dir import read_checkpoint, read_log

    run = rd.path
    if mode % 2 == 0:
        rd.log.write_bytes(f.rest())
        records = list(read_log(run))
        assert all(isinstance(r, dict) for r in records)
        text, bad = rd.log_plan(int(mode))
        assert isinstance(text, bytes) and isinstance(bad, list)
        return
    if mode & 2:                           # a checkpoint holding fuzzed state JSON
        arrays = {"w": np.zeros(3, np.float32), "state": np.array(f.text())}
        if mode & 4:
            arrays["snapshot_0"] = np.zeros(3, np.float32)
        rd.checkpoint.write_bytes(_npz(arrays))
    else:
        rd.checkpoint.write_bytes(f.rest())
    try:
        state, weights, snaps = read_checkpoint(run, ["w"])
    except ValueError as exc:
        assert str(exc).startswith("unreadable checkpoint"), exc
        return
    assert isinstance(state, dict)


# ====================================================================== the command line

#: Commands that answer at once (the others start long work, a server or a prompt:
#: only their parsers are fuzzed, through ``--help`` and bad options).
_CLI_RUN = ("show", "moves", "hint", "eval", "matchfile")
_CLI_PARSE_ONLY = ("demo", "match", "train", "plot", "rollout", "serve", "play", "sweep",
                   "compare", "tournament", "ubgi", "web", "analyse", "data", "network")
_CLI_WORDS = ("--json", "--plies", "--player", "--network", "--dice", "--num", "--seed", "-v",
              "check", "convert", "show", "net", "pubeval", "random", "31", "66", "0", "1",
              "-1", "7", "x", START_ID, "4HPwATDgc/ABMA:cAkAAAAAAAAA",
              "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:3:10",
              "-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:3:10", "--", "-", "=")
#: Options that would start long work or another program: never passed through.
_CLI_BANNED = ("--rollout", "--threads", "--r", "--t", "--ro", "--th")


def _cli_file(f: Fields) -> str:
    from conftest import DATA
    names = ("in.mat", "in.sgf", "out.mat", "out.sgf", "out.sgf.gz", "none.mat", "x.txt",
             "net.npz")
    name = f.pick(names)
    path = _scratch() / "cli" / name
    if name == "in.mat" and f.byte() % 2:
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(f.chunk(f.byte() * 4))
    elif name == "in.mat" and not path.exists():
        path.parent.mkdir(exist_ok=True)
        path.write_bytes((DATA / "matfiles" / "gnubg_match1.mat").read_bytes())
    elif name == "in.sgf" and not path.exists():
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(gzip.decompress((DATA / "matfiles" / "gnubg_match1.sgf.gz").read_bytes()))
    return str(path)


def _safe_token(token: str) -> str:
    """A fuzzed word that could name a file to write, or start long work, made harmless."""
    token = _harmless(token)
    if "." in token or token.startswith(("/", "~")) or "\\" in token:
        try:
            float(token)
            return token
        except ValueError:
            return "x"
    if token.lower().startswith(_CLI_BANNED) or token.startswith("@"):
        return "x"
    if ":" in token and token.split(":")[0].lower() not in ("net", "xgid=-b----e-c---ee---c-e----b-"):
        if not token.startswith(("XGID", "4H", "-")) and "/" not in token:
            return token.replace(":", "_")
    return token


def _cli_argv(f: Fields) -> list[str]:
    mode = f.byte() % 8
    if mode == 0:       # a long-running command's parser only: help, or an unknown option
        return [f.pick(_CLI_PARSE_ONLY + _CLI_RUN), f.pick(("--help", "-h", "--bogus"))]
    # a quick command first, so that no fuzzed word can name a long one
    argv = (["-v"] if mode == 1 else []) + [f.pick(_CLI_RUN)]
    for _ in range(f.byte() % 7):
        kind = f.byte() % 4
        if kind == 0:
            argv.append(_cli_file(f))
        elif kind == 1:
            argv.append(text_of(f.chunk(f.byte() % 40)).replace("\0", ""))
        else:
            argv.append(f.pick(_CLI_WORDS))
    argv = [a if a.startswith(str(_scratch())) else _safe_token(a) for a in argv]
    if set(argv) & {"hint", "eval"}:
        argv += ["--plies", "0"]          # the last one wins: no deep search
    return argv


@functools.cache
def _cli_parser():
    from bgengine.cli import build_parser
    return build_parser()


def cli(data: bytes) -> None:
    """``bgengine ARGV`` in-process (``bgengine.cli.main``): exit status 0, 1 or 2, and
    no traceback on standard error.  The parser is built once (building it is 95% of a
    short command's time); parsing, validation and the command run as on the command line."""
    from unittest import mock

    from bgengine.cli import main

    argv = _cli_argv(Fields(data))
    parser = _cli_parser()
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _quiet_warnings(), \
            mock.patch("bgengine.cli.build_parser", lambda: parser):
        try:
            code = main(argv)
        except SystemExit as exc:          # argparse's own exits (usage, --help)
            code = exc.code if isinstance(exc.code, int) else 2
    # main sets up logging once; its handler keeps the first stream it was given
    text = err.getvalue()
    assert code in (0, 1, 2), (argv, code, text[-2000:])
    assert "Traceback" not in text, (argv, text[-2000:])
    assert "internal error" not in text.lower(), (argv, text[-2000:])


# ====================================================================== the Python API

def _fuzz_value(f: Fields):
    """A Python value of any kind an API caller might pass."""
    k = f.byte() % 12
    if k == 0:
        return f.int_(0, 255) - 64
    if k == 1:
        return int.from_bytes(f.chunk(9), "little", signed=True)
    if k == 2:
        return struct.unpack("<d", f.chunk(8).ljust(8, b"\0"))[0]
    if k == 3:
        return text_of(f.chunk(f.byte() % 30))
    if k == 4:
        return None
    if k == 5:
        return f.byte() % 2 == 0
    if k == 6:
        return [f.int_(0, 20) - 2 for _ in range(f.byte() % 60)]
    if k == 7:
        return np.frombuffer(f.chunk(50).ljust(50, b"\0"), dtype=np.uint8).reshape(2, 25) % f.int_(1, 16)
    if k == 8:
        return np.frombuffer(f.chunk(100).ljust(100, b"\0"), dtype=np.int16).reshape(2, 25)
    if k == 9:
        return f.pick(POSITION_IDS)
    if k == 10:
        return (f.int_(0, 8), f.int_(0, 8))
    return np.zeros((2, 25), dtype=np.float64) + f.byte() / 7


@functools.cache
def _api_engine():
    from bgengine import Engine, Player
    return Engine(Player("pubeval"))


def api(data: bytes) -> None:
    """The public Python API with fuzzed arguments (``Position``, its moves, the
    engine's evaluation and hint): a result or ``ValueError`` / ``TypeError``."""
    from bgengine import Position
    from bgengine.decisions.engine import EngineError
    from bgengine.state import GameState

    f = Fields(data)
    which = f.byte() % 8
    a, b, c = _fuzz_value(f), _fuzz_value(f), _fuzz_value(f)
    try:
        if which == 0:
            p = Position(a)
            assert Position.from_id(p.position_id).position_id == p.position_id
            p.pips, p.borne_off, p.result, p.is_race, p.to_text()
        elif which == 1:
            Position.from_id(a)
        elif which == 2:
            moves = Position(a).legal_moves(b, c)
            assert moves, "every roll has at least one (possibly empty) play"
        elif which == 3:
            p = Position.from_id(f.pick(POSITION_IDS))
            p.parse_move(a, b, c)
        elif which == 4:
            state = GameState.from_string(a if isinstance(a, str) else f.pick(POSITION_IDS))
            ev = _api_engine().evaluate_state(state, plies=0)
            assert all(math.isfinite(x) for x in np.ravel(ev.to_dict()["probabilities"]))
        elif which == 5:
            state = GameState.from_string(f.pick(POSITION_IDS))
            _api_engine().hint(state.with_dice(b if isinstance(b, int) else 3,
                                               c if isinstance(c, int) else 1), n=a)
        elif which == 6:
            _api_engine().evaluate(a, plies=b if isinstance(b, int) and 0 <= b <= 1 else 0)
        else:
            _api_engine().choose_move(a, b, c)
    except (ValueError, TypeError, EngineError):   # EngineError: a depth it does not search
        pass


# ====================================================================== registry

TARGETS: dict[str, Callable[[bytes], None]] = {
    "position_id": position_id,
    "match_id": match_id,
    "state_text": state_text,
    "notation": notation,
    "matfile": matfile,
    "sgf": sgf,
    "match_file": match_file,
    "session_file": session_file,
    "fibs": fibs,
    "external": external,
    "ubgi": ubgi,
    "web": web,
    "network_file": network_file,
    "train_config": train_config,
    "run_dir": run_dir,
    "cli": cli,
    "api": api,
}


def target_names() -> list[str]:
    return list(TARGETS)
