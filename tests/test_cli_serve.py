"""``bgengine serve`` on the command line: its parser, the refusals of bad settings,
the remote-address guard, and a run until the server stops."""

from __future__ import annotations

import argparse
import threading
import time

import pytest

from bgengine.cli.serve import register, serve_main
from bgengine.opponents.external import ExternalPlayer
from bgengine.protocols.serve import check_host


def test_serve_parser_help_and_options():
    parser = argparse.ArgumentParser(prog="bgengine")
    sub = parser.add_subparsers(dest="command")
    p = register(sub)
    text = p.format_help()
    for word in ("set player 1 external", "--player", "--port", "--allow-remote", "--plies",
                 "--time-budget", "--log", "evaluation fibsboard"):
        assert word in text
    args = parser.parse_args(["serve", "--port", "0", "--player", "pubeval"])
    assert args.func is serve_main and args.port == 0 and args.host == "127.0.0.1"


def test_serve_main_refuses_what_it_cannot_do():
    parser = argparse.ArgumentParser(prog="bgengine")
    register(parser.add_subparsers(dest="command"))
    with pytest.raises(ValueError, match="needs a network player"):
        serve_main(parser.parse_args(["serve", "--plies", "2", "--player", "pubeval"]))
    with pytest.raises(ValueError, match="--allow-remote"):
        serve_main(parser.parse_args(["serve", "--host", "0.0.0.0", "--player", "pubeval"]))
    with pytest.raises(ValueError, match="port"):
        serve_main(parser.parse_args(["serve", "--port", "70000", "--player", "pubeval"]))
    with pytest.raises(ValueError, match="unknown player"):
        serve_main(parser.parse_args(["serve", "--player", "nobody"]))


def test_remote_binding_needs_the_flag():
    check_host("127.0.0.1", False)
    check_host("localhost", False)
    for host in ("0.0.0.0", ""):
        with pytest.raises(ValueError, match="--allow-remote"):
            check_host(host, False)
    check_host("0.0.0.0", True)


def test_serve_main_runs_until_interrupted(tmp_path, capsys):
    """serve_main in a thread; stop it with the server's own shutdown."""
    import bgengine.protocols.serve as serve_mod

    parser = argparse.ArgumentParser(prog="bgengine")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["serve", "--port", "0", "--player", "pubeval",
                              "--log", str(tmp_path / "x.jsonl")])
    started: list = []
    original = serve_mod.BgServer.serve_forever

    def serve_forever(self, poll_interval=0.5):
        started.append(self)
        original(self, poll_interval=0.05)

    serve_mod.BgServer.serve_forever = serve_forever
    try:
        result: list = []
        t = threading.Thread(target=lambda: result.append(serve_main(args)))
        t.start()
        deadline = time.monotonic() + 10
        while not started and time.monotonic() < deadline:
            time.sleep(0.01)
        srv = started[0]
        with ExternalPlayer(srv.address) as c:
            assert c.ask("set debug on") == "Debug output ON"
        srv.shutdown()
        t.join(10)
        assert result == [0]
    finally:
        serve_mod.BgServer.serve_forever = original
    assert "listening on 127.0.0.1:" in capsys.readouterr().err
    assert "Debug output ON" in (tmp_path / "x.jsonl").read_text()
