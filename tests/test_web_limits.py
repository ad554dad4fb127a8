"""The resource limits of ``bgengine web`` (bgengine.protocols.web.limits): bodies, work, concurrency,
sessions; and a live server's memory under an endless body and 500 concurrent requests."""

from __future__ import annotations

import concurrent.futures
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from bgengine.protocols.web.api import create_app  # noqa: E402
from bgengine.protocols.web.limits import WebLimits, WorkPool, Busy  # noqa: E402
from bgengine.protocols.web.store import OwnerFull, SessionStore, StoreFull  # noqa: E402
from engine_doubles import small_net_engine  # noqa: E402
from test_cli_web import start_web  # noqa: E402

START = "4HPwATDgc/ABMA"


@pytest.fixture(scope="module")
def engine():
    return small_net_engine()


def _client(engine, **limits) -> TestClient:
    return TestClient(create_app(engine, limits=WebLimits(**limits), seed=0),
                      raise_server_exceptions=False)


# ---------------------------------------------------------------- the policy
@pytest.mark.parametrize("field, value, words", [
    ("max_body", 0, "max_body must be in"),
    ("max_body", True, "max_body must be a whole number"),
    ("max_work", 1.5, "max_work must be a whole number"),
    ("queue_wait", float("nan"), "queue_wait must be a finite number"),
    ("session_ttl", 0.0, "session_ttl must be in"),
    ("sessions_per_client", 200, "sessions_per_client (200) must be at most max_sessions"),
])
def test_limits_are_checked(field, value, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        WebLimits(**{field: value})


# ---------------------------------------------------------------- bodies
def test_a_declared_body_over_the_limit_gets_a_413_unread(engine):
    c = _client(engine, max_body=100)
    ok = c.post("/eval", json={"state": START})
    assert ok.status_code == 200
    r = c.post("/eval", content=b'{"state": "' + b"x" * 200 + b'"}',
               headers={"content-type": "application/json"})
    assert r.status_code == 413 and "at most 100 bytes" in r.json()["detail"]


def test_a_chunked_body_is_refused_once_it_passes_the_limit(engine):
    # (the test client gathers a body before the app sees it: the live server's test below
    # shows that the rest of an endless body is never read)
    c = _client(engine, max_body=1000)
    r = c.post("/eval", content=(b" " * 100 for _ in range(11)),
               headers={"content-type": "application/json"})
    assert r.status_code == 413 and "--max-body" in r.json()["detail"]
    r = c.post("/eval", content=(b" " * 100 for _ in range(9)),
               headers={"content-type": "application/json"})
    assert r.status_code == 422                 # read, and found to be no request


# ---------------------------------------------------------------- work
@pytest.mark.parametrize("path, body, words", [
    ("/rollout", {"state": START, "trials": 101}, "too many trials: 101"),
    ("/rollout", {"state": START, "dice": [3, 1], "trials": 100, "candidates": 5},
     "too much work: 100 trials x 5 plays = 500 trials (at most 300"),
    ("/hint", {"state": START, "dice": [3, 1], "rollout": 100, "num": 4},
     "too much work: 100 trials x 4 plays"),
    ("/hint", {"state": START, "rollout": 101}, "too many rollout trials: 101"),
])
def test_work_over_the_budget_gets_a_422(engine, path, body, words):
    r = _client(engine, max_trials=100, max_work=300).post(path, json=body)
    assert r.status_code == 422 and words in r.json()["detail"], r.text


def test_work_within_the_budget_is_done(engine):
    r = _client(engine, max_trials=100, max_work=300).post(
        "/rollout", json={"state": START, "dice": [3, 1], "trials": 36, "candidates": 3})
    assert r.status_code == 200 and len(r.json()["results"]) == 3


# ---------------------------------------------------------------- concurrency
def test_a_busy_engine_gets_a_503_with_retry_after(engine):
    c = _client(engine, max_busy=1, queue_wait=0.05, retry_after=7)
    pool = c.app.state.pool
    with pool.slot():                   # the one slot is at work
        for path, body in (("/eval", {"state": START}), ("/move", {"state": START,
                                                                   "dice": [3, 1]})):
            r = c.post(path, json=body)
            assert r.status_code == 503 and r.headers["retry-after"] == "7", r.text
            assert "busy" in r.json()["detail"]
    assert c.post("/eval", json={"state": START}).status_code == 200


def test_the_pool_holds_at_most_its_size():
    pool = WorkPool(WebLimits(max_busy=2, queue_wait=0.01))
    inside, most = [0], [0]
    lock = threading.Lock()

    def work():
        try:
            with pool.slot():
                with lock:
                    inside[0] += 1
                    most[0] = max(most[0], inside[0])
                time.sleep(0.02)
                with lock:
                    inside[0] -= 1
            return True
        except Busy:
            return False

    with concurrent.futures.ThreadPoolExecutor(8) as ex:
        done = list(ex.map(lambda _: work(), range(40)))
    assert most[0] == 2 and any(done) and not all(done)


# ---------------------------------------------------------------- sessions
class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_a_client_has_a_quota_of_sessions():
    clock = Clock()
    store = SessionStore(10, ttl=100, per_owner=2, unused_ttl=10, clock=clock)
    a, b = store.put("a1", owner="A"), store.put("a2", owner="A")
    store.get(a), store.get(b)                      # both played on
    with pytest.raises(OwnerFull) as exc:
        store.put("a3", owner="A")
    assert exc.value.retry_after == 100
    clock.now = 50.0
    store.get(store.put("b1", owner="B"))           # another address is not held up
    clock.now = 100.0                               # a1 and a2 idle for their whole ttl
    store.put("a3", owner="A")
    assert len(store) == 2


def test_games_never_played_on_go_first():
    clock = Clock()
    store = SessionStore(3, ttl=100, unused_ttl=10, clock=clock)
    played = store.put("played")
    store.get(played)
    store.put("flood 1"), store.put("flood 2")
    with pytest.raises(StoreFull) as exc:
        store.put("newcomer")
    assert exc.value.retry_after == 10 and not isinstance(exc.value, OwnerFull)
    clock.now = 10.0
    key = store.put("newcomer")                     # the two unplayed games are dropped
    assert store.get(played) == "played" and store.get(key) == "newcomer" and len(store) == 2


def test_a_flood_of_new_games_from_one_address_gets_429(engine):
    c = _client(engine, max_sessions=10, sessions_per_client=3)
    codes = [TestClient(c.app).post("/api/game/new", json={"length": 0}).status_code
             for _ in range(5)]
    assert codes == [200, 200, 200, 429, 429]
    r = TestClient(c.app).post("/api/game/new", json={"length": 0})
    assert int(r.headers["retry-after"]) > 0 and "its most" in r.json()["detail"]


# ---------------------------------------------------------------- a live server
def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_live_server_stays_small_under_an_endless_body_and_500_requests(tmp_path):
    proc, port = start_web(tmp_path, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        # an endless chunked body: the server answers 413 and stops reading
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(b"POST /eval HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Transfer-Encoding: chunked\r\n\r\n")
            chunk = b"%x\r\n%s\r\n" % (1 << 16, b" " * (1 << 16))
            sent = 0
            try:
                while sent < 2 << 30:           # 2 GB at most
                    s.sendall(chunk)
                    sent += len(chunk)
            except OSError:
                pass                            # the server closed the connection
            reply = s.recv(4096)
        assert reply.startswith(b"HTTP/1.1 413"), reply[:100]
        assert sent < 64 << 20, sent            # refused within the first megabytes
        assert _rss_mb(proc.pid) < 300

        # 500 requests at once: each answered (200, or 503 when the engine is busy)
        def ask(i: int) -> int:
            req = urllib.request.Request(base + "/eval", b'{"state": "%s"}' % START.encode(),
                                         {"content-type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=60) as r:
                    return r.status
            except urllib.error.HTTPError as exc:
                return exc.code

        with concurrent.futures.ThreadPoolExecutor(500) as ex:
            codes = list(ex.map(ask, range(500)))
        assert set(codes) <= {200, 503} and codes.count(200) > 0, set(codes)
        assert _rss_mb(proc.pid) < 300
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
