"""``bgengine serve`` over real sockets: concurrency, bad clients, floods, the client.

The server runs in a thread of the test process on an ephemeral port.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from bgengine.core.agents import Player
from bgengine.opponents.external import ExternalPlayer, ExternalPlayerError, parse_address
from bgengine.notation.fibs import parse_fibs_board
from bgengine.matches.run import play_external_match, run_match
from bgengine.core.network import Network
from bgengine.notation.moves import match_move
from bgengine.position import STARTING_BOARD
from bgengine.decisions.engine import Engine
from bgengine.protocols.gnubg_socket import ExchangeLog
from bgengine.protocols.serve import MAX_LINE_BYTES, start_server

OPENING_31 = ("board:you:opp:0:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:3:1:0:0:"
              "1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
GNUBG_41 = ("board:ext:gnubg:0:0:0:0:-2:0:0:0:0:5:0:3:1:0:0:-5:4:0:0:0:-3:0:-5:0:0:0:1:1:0:-1:5:4:5:4:"
            "1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
GNUBG_DANCE = ("board:ext:gnubg:0:0:0:-1:-4:1:2:2:2:3:3:2:0:0:0:0:0:0:0:0:0:0:0:0:-1:0:-5:-4:0:-1:6:5:"
               "6:5:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")


@pytest.fixture(scope="module")
def network():
    return Network(hidden=(12,), n_outputs=5, seed=5)


@pytest.fixture()
def server(tmp_path, network):
    xlog = ExchangeLog(tmp_path / "exchanges.jsonl")
    srv = start_server(Engine(Player("net", network, name="net-test")), exchange_log=xlog,
                       line_timeout=1.0, max_clients=200)
    srv.log_path = tmp_path / "exchanges.jsonl"
    yield srv
    srv.close()
    xlog.close()


def connect(srv, timeout=10.0) -> socket.socket:
    host, port = srv.server_address[:2]
    s = socket.create_connection((host, port), timeout=timeout)
    return s


class Client:
    """A line client with a receive buffer."""

    def __init__(self, srv, timeout=10.0):
        self.sock = connect(srv, timeout)
        self.buf = b""

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def line(self) -> str:
        while b"\n" not in self.buf:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError(f"closed; buffered {self.buf!r}")
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return line.decode()

    def ask(self, text: str) -> str:
        self.send(text.encode() + b"\n")
        return self.line()

    def closed_by_server(self, wait=5.0) -> bool:
        self.sock.settimeout(wait)
        try:
            while True:
                chunk = self.sock.recv(4096)
                if not chunk:
                    return True
                self.buf += chunk
        except socket.timeout:
            return False
        except ConnectionResetError:
            return True

    def close(self):
        self.sock.close()


def wait_for(cond, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


def log_entries(srv):
    return [json.loads(line) for line in srv.log_path.read_text().splitlines()]


# ---------------------------------------------------------------- basics

def test_both_roles_on_one_port(server):
    c = Client(server)
    assert c.ask("version") == "Interface: 2"
    assert [c.line() for _ in range(3)][0] == "RFBF: 0"
    reply = c.ask(OPENING_31)
    board = parse_fibs_board(OPENING_31).mover_board()
    match_move(board, 3, 1, reply)
    g = Client(server)
    g.send(GNUBG_41.encode() + b"\n\0")
    move = g.line()
    match_move(parse_fibs_board(GNUBG_41).mover_board(), 5, 4, move)
    g.send(GNUBG_DANCE.encode() + b"\n\0")
    assert g.line() == ""
    c.close()
    g.close()


def test_several_clients_at_once(server):
    errors: list[str] = []
    counts: list[int] = []

    def gnubg_like(k):
        try:
            c = Client(server)
            n = 0
            for _ in range(40):
                c.send(GNUBG_41.encode() + b"\n\0")
                reply = c.line()
                match_move(parse_fibs_board(GNUBG_41).mover_board(), 5, 4, reply)
                c.send(GNUBG_DANCE.encode() + b"\n\0")
                assert c.line() == ""
                n += 2
            counts.append(n)
            c.close()
        except Exception as exc:  # collected and reported below
            errors.append(f"client {k}: {exc!r}")

    def command_client(k):
        try:
            c = Client(server)
            for _ in range(40):
                assert c.ask("set debug off") == "Debug output OFF"
                assert c.ask("nonsense").startswith("Error: syntax error")
                assert len(c.ask("evaluation fibsboard " + OPENING_31).split()) == 6
            c.close()
            counts.append(120)
        except Exception as exc:
            errors.append(f"command client {k}: {exc!r}")

    threads = [threading.Thread(target=gnubg_like, args=(k,)) for k in range(6)]
    threads += [threading.Thread(target=command_client, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    assert sum(counts) == 6 * 80 + 4 * 120
    assert wait_for(lambda: server.active_clients == 0)


# ---------------------------------------------------------------- bad clients

def test_malformed_lines_get_errors_and_the_connection_lives_on(server):
    c = Client(server)
    for bad in ["hello", "board:1:2:3", OPENING_31 + ":7", "evaluation board:x", "set nothing",
                "\x01\x02\x7f", "x" * 300]:
        reply = c.ask(bad)
        assert reply.startswith("Error: "), (bad, reply)
    c.send(bytes(range(256)).replace(b"\n", b"") + b"\n")
    assert c.line().startswith("Error: ")
    assert c.ask("version") == "Interface: 2"
    c.close()


def test_very_long_line_is_refused_with_one_error(server):
    c = Client(server)
    for _ in range(5):
        c.send(b"y" * 10_000)
    c.send(b"\n")
    reply = c.line()
    assert reply.startswith("Error: line too long (50000 bytes")
    assert c.ask("set debug on") == "Debug output ON"
    c.close()


def test_line_past_the_maximum_length_closes_the_connection(server):
    c = Client(server)
    try:
        for _ in range(100):
            c.send(b"y" * 10_000)
    except OSError:
        pass                                          # closed by the server while sending
    assert c.closed_by_server()
    assert c.buf.decode().startswith(f"Error: line too long (more than {MAX_LINE_BYTES} bytes")
    c.close()


def test_disconnect_mid_line_does_not_disturb_others(server):
    other = Client(server)
    assert other.ask("set debug off") == "Debug output OFF"
    c = Client(server)
    c.send(OPENING_31[:40].encode())
    time.sleep(0.1)
    c.close()
    assert other.ask("set debug off") == "Debug output OFF"
    other.close()
    assert wait_for(lambda: any(e.get("event") == "partial" for e in log_entries(server)))


def test_client_that_never_sends_a_newline_times_out(server):
    c = Client(server)
    c.send(b"version")
    t0 = time.monotonic()
    assert c.closed_by_server(wait=5.0)
    assert 0.5 < time.monotonic() - t0 < 4.0         # line_timeout=1.0 in the fixture
    assert c.buf.decode().startswith("Error: incomplete line: no newline within 1 s")
    c.close()
    c2 = Client(server)
    assert c2.ask("set debug on") == "Debug output ON"
    c2.close()


def test_idle_connections_are_kept(server):
    c = Client(server)
    time.sleep(1.5)                                   # longer than line_timeout
    c.send(GNUBG_DANCE.encode() + b"\n\0")
    assert c.line() == ""
    c.close()


def test_exit_closes_the_connection(server):
    c = Client(server)
    c.send(b"exit\n")
    assert c.closed_by_server()
    c.close()


def test_a_thousand_quick_connections(server):
    host, port = server.server_address[:2]
    for i in range(1000):
        s = socket.create_connection((host, port), timeout=10)
        if i % 3 == 0:
            s.sendall(b"vers")                        # some leave mid-line
        elif i % 3 == 1:
            s.sendall(b"set debug on\n")
        s.close()
    c = Client(server)
    assert c.ask("version") == "Interface: 2"
    c.close()
    assert wait_for(lambda: server.active_clients == 0, timeout=20)


def test_too_many_clients_are_told_to_come_back(network):
    # the held clients are never idle long enough to be evicted: the newcomer waits, then is refused
    srv = start_server(Engine(Player("net", network)), max_clients=3, line_timeout=5,
                       evict_idle=60, admit_wait=1.0)
    try:
        held = [Client(srv) for _ in range(3)]
        for c in held:
            assert c.ask("set debug off") == "Debug output OFF"
        t0 = time.monotonic()
        extra = Client(srv)
        assert extra.line().startswith("Error: server busy")
        assert 0.9 < time.monotonic() - t0 < 5.0
        assert extra.closed_by_server()
        extra.close()
        for c in held:
            c.close()
        assert wait_for(lambda: srv.active_clients == 0)
        again = Client(srv)
        assert again.ask("set debug off") == "Debug output OFF"
        again.close()
    finally:
        srv.close()


def test_exchange_log_over_sockets(server):
    c = Client(server)
    c.send(GNUBG_41.encode() + b"\n\0")
    c.line()
    c.ask("hello")
    c.close()
    assert wait_for(lambda: any(e.get("event") == "disconnect" for e in log_entries(server)))
    entries = log_entries(server)
    events = [e["event"] for e in entries]
    assert events[0] == "connect" and events[-1] == "disconnect"
    lines = [e for e in entries if e["event"] == "line"]
    assert lines[0]["role"] == "player" and lines[0]["kind"] == "move"
    assert lines[1]["role"] == "server" and lines[1]["out"].startswith("Error")


# ---------------------------------------------------------------- the client

def test_external_match_through_our_server_equals_the_compiled_match(network):
    """pubeval against the network, once in the compiled loop and once through
    the socket: the same dice and deterministic players give the same games."""
    net_player = Player("net", network, name="net-test")
    srv = start_server(Engine(net_player))
    try:
        via_socket = play_external_match("pubeval", srv.address, 24, seed=11)
    finally:
        srv.close()
    compiled = run_match(Player("pubeval"), net_player, 24, seed=11, threads=1)
    assert via_socket.games == compiled.games == 24
    for key in ("ppg", "win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon",
                "mean_moves"):
        assert getattr(via_socket, key) == getattr(compiled, key), key
    assert via_socket.a == "pubeval" and via_socket.b.startswith("external:127.0.0.1:")


def test_external_player_against_itself_is_even(network):
    net_player = Player("net", network, name="net-test")
    srv = start_server(Engine(net_player))
    try:
        r = play_external_match(net_player, srv.address, 10, seed=2)
    finally:
        srv.close()
    assert r.ppg == 0 and r.games == 10


def test_external_player_decisions(server):
    with ExternalPlayer(server.address) as ep:
        assert ep.version()["Interface"] == "2"
        k = ep.choose(STARTING_BOARD, 6, 5)
        assert 0 <= k
        probs = ep.evaluate(STARTING_BOARD)
        assert probs.shape == (6,)
        from bgengine.notation.ids import MatchState
        assert ep.decide(STARTING_BOARD, MatchState(player_on_roll=1)) in ("roll", "double")
        assert ep.decide(STARTING_BOARD, MatchState(player_on_roll=1, double_offered=True)) \
            in ("take", "drop")
        with pytest.raises(ExternalPlayerError, match="Error"):
            ep.ask("hello")
        assert ep.version()["Interface"] == "2"       # still in step after an error


class FakeServer:
    """A one-connection server that answers every line with a fixed reply (or never)."""

    def __init__(self, reply: bytes | None):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.address = "127.0.0.1:%d" % self.sock.getsockname()[1]
        self.reply = reply
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            while True:
                try:
                    data = conn.recv(4096)
                except OSError:
                    return
                if not data:
                    return
                if self.reply is not None:
                    conn.sendall(self.reply)

    def close(self):
        self.sock.close()


@pytest.mark.parametrize("reply, message", [
    (b"13/7 13/7 13/7\n", "not a legal play"),
    (b"hello world\n", "not a legal play"),
    (b"Error: bad\n", "answered 'Error: bad'"),
    (None, "no reply within"),
])
def test_external_player_reports_bad_servers(reply, message):
    fake = FakeServer(reply)
    try:
        ep = ExternalPlayer(fake.address, timeout=0.5)
        with pytest.raises(ExternalPlayerError, match=message):
            ep.choose(STARTING_BOARD, 6, 3)
        ep.close()
    finally:
        fake.close()


def test_external_player_connection_errors():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]           # nothing listens here once closed
    ep = ExternalPlayer(f"127.0.0.1:{port}", connect_timeout=0.3)
    with pytest.raises(ExternalPlayerError, match="cannot connect"):
        ep.choose(STARTING_BOARD, 3, 1)
    for bad in ("nohost", "host:", "host:99999", "host:abc", 5):
        with pytest.raises(ValueError):
            parse_address(bad)
    assert parse_address(":31000") == ("127.0.0.1", 31000)
    with pytest.raises(ValueError, match="at least 2"):
        play_external_match("pubeval", f"127.0.0.1:{port}", 1)


def test_server_closing_mid_game_is_reported(network):
    srv = start_server(Engine(Player("net", network)))
    ep = ExternalPlayer(srv.address, timeout=2)
    ep.choose(STARTING_BOARD, 3, 1)
    ep._sock.sendall(b"exit\n")                      # the server closes this connection
    time.sleep(0.2)
    with pytest.raises(ExternalPlayerError, match="closed|lost|cannot send"):
        ep.choose(STARTING_BOARD, 3, 1)
    # the next call reconnects
    assert ep.choose(STARTING_BOARD, 3, 1) >= 0
    ep.close()
    srv.close()
