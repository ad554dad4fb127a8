"""``bgengine web`` on the command line: its checks, and a real server in a child process."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from bgengine.cli import main


@pytest.mark.parametrize("argv, words", [
    (["web", "--host", "0.0.0.0"], "--allow-remote"),
    (["web", "--host", ""], "all interfaces"),
    (["web", "--port", "0"], "--port must be 1..65535"),
    (["web", "--max-sessions", "0"], "--max-sessions"),
    (["web", "--threads", "0"], "--threads"),
])
def test_bad_options_are_refused(argv, words, capsys):
    assert main(argv) == 2
    assert words in capsys.readouterr().err


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _post(url: str, body: dict) -> tuple[int, dict]:
    req = urllib.request.Request(url, json.dumps(body).encode(),
                                 {"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as exc:
        return exc.code, json.load(exc)


def start_web(cwd, stderr=subprocess.PIPE) -> tuple[subprocess.Popen, int]:
    """``bgengine web --player pubeval`` on a free port, once it answers; ``(process, port)``."""
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "bgengine", "web", "--port", str(port),
                             "--player", "pubeval"], stderr=stderr, text=True,
                            cwd=cwd, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/openapi.json", timeout=5).close()
            return proc, port
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise AssertionError("the server did not start: "
                                     f"{proc.communicate()[1]}") from None
            time.sleep(0.2)


def test_the_server_answers_and_logs_each_request(tmp_path):
    proc, port = start_web(tmp_path)
    try:
        base = f"http://127.0.0.1:{port}"
        status, doc = _post(base + "/move", {"state": "4HPwATDgc/ABMA", "dice": [6, 5]})
        assert status == 200 and doc["player"] == "pubeval" and doc["play"]
        status, doc = _post(base + "/move", {"state": "4HPwATDgc/ABMA", "dice": [0, 5]})
        assert status == 422
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
    lines = [line for line in err.splitlines() if "bgengine.protocols.web" in line]
    assert "GET /openapi.json 200" in lines[0]
    assert [line.split()[-4:-2] for line in lines[1:]] == [["/move", "200"], ["/move", "422"]]
    assert err.splitlines()[0].startswith(f"bgengine web: http://127.0.0.1:{port}/")
