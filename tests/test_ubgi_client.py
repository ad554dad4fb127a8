"""Playing UBGI engines (bgengine.opponents.ubgi) and the duel runner: a fake engine for every
way a reply can go wrong, bgengine's own ``bgengine ubgi`` through the ``ubgi:`` player spec
(every reply checked for legality), and one run of ``bgengine ubgi`` as a subprocess."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from bgengine.cli import main
from bgengine.matches.run import play_external_match, run_match
from bgengine.matches.players import make_player
from bgengine.opponents.ubgi import UbgiEngineError, UbgiPlayer, parse_command
from conftest import TESTS
from game_positions import start_board

BGENGINE_UBGI = [sys.executable, "-m", "bgengine", "ubgi"]


def fake(mode: str, tmp_path, **kw) -> UbgiPlayer:
    return UbgiPlayer([sys.executable, str(TESTS / "fake_ubgi_engine.py"), mode,
                       str(tmp_path / "received.txt")], **kw)


def received(tmp_path) -> list[str]:
    return (tmp_path / "received.txt").read_text().splitlines()


def test_handshake_options_and_one_play(tmp_path):
    with fake("honest", tmp_path, options={"game.jacoby": "true"}) as p:
        assert p.identity["name"].startswith("bgengine") and p.proto == "0.2"
        assert [k.split()[0] for k in p.keys] == ["engine.ply", "engine.player", "game.jacoby",
                                                  "game.variant"]
        p.new_game()
        assert p.choose(start_board(), 3, 1) == make_player("pubeval").choose(start_board(), 3, 1)
    assert received(tmp_path) == ["ubgi", "set game.jacoby true", "isready", "newgame",
                                  "position gnubgid 4HPwATDgc/ABMA", "dice 3 1", "go chequer",
                                  "quit"]


@pytest.mark.parametrize("mode, message", [
    ("illegal", r"'bestmove 24/1', which is not a legal play \(.*\); position gnubgid 4HPwATDgc/ABMA / dice 3 1"),
    ("pass", r"'bestmove pass', which is not a legal play \(no move given, but 3-1 can be played"),
    ("empty", r"answered 'bestmove' to go chequer"),
    ("cube", r"answered 'bestcube double' to go chequer"),
    ("error", r"answered 'error bad_state nope'"),
    ("exit", r"closed its output .*\(the engine exited with status 0\)"),
    ("silent", r"no answer within 0.5 s"),
])
def test_every_bad_reply_is_an_error_and_stops_the_engine(tmp_path, mode, message):
    p = fake(mode, tmp_path, timeout=0.5)
    with pytest.raises(UbgiEngineError, match=message):
        p.choose(start_board(), 3, 1)
    assert p._proc is None                    # stopped: its stream can no longer be trusted


def test_a_refused_option_is_an_error(tmp_path):
    with pytest.raises(UbgiEngineError, match="'error unsupported key'"):
        fake("refuse-set", tmp_path, options={"engine.ply": "2"}).start()


def test_an_engine_that_never_starts_is_an_error(tmp_path):
    with pytest.raises(UbgiEngineError, match="closed its output during the handshake"):
        UbgiPlayer([sys.executable, "-c", "pass"]).start()


def test_specs_and_commands():
    p = make_player("ubgi:bgengine ubgi --plies 1")
    assert isinstance(p, UbgiPlayer) and p.name == "ubgi:bgengine ubgi --plies 1"
    assert p.argv[1:] == ["ubgi", "--plies", "1"] and p._proc is None     # started on first use
    assert parse_command("'my engine' --x 'a b'") == ["my engine", "--x", "a b"]
    for bad, why in (("ubgi:", "needs a command"), ("ubgi:'open", "quotation"),
                     ("ubgi:no-such-engine-here", "no such program")):
        with pytest.raises(ValueError, match=why):
            make_player(bad)
    with pytest.raises(ValueError, match="timeout"):
        UbgiPlayer(BGENGINE_UBGI, timeout=0)


def test_duel_bgengine_ubgi_plays_exactly_as_the_compiled_player():
    """Through the protocol, every play checked for legality, the shipped network plays the
    same games as in the compiled match runner: the same dice, seats swapped each pair."""
    with UbgiPlayer(BGENGINE_UBGI) as engine:
        through_ubgi = play_external_match(engine, make_player("pubeval"), 24, seed=11)
        assert engine.requests > 24 * 20
        mirrored = play_external_match(make_player("net"), engine, 8, seed=12)
    compiled = run_match(make_player("net"), make_player("pubeval"), 24, seed=11, threads=1)
    assert {**through_ubgi.as_dict(), "a": "net"} == compiled.as_dict()
    assert mirrored.ppg == 0.0 and mirrored.games == 8     # one player on both sides


def test_newgame_is_sent_at_each_game(tmp_path):
    with fake("honest", tmp_path) as p:
        play_external_match(p, make_player("pubeval"), 4, seed=1)
    lines = received(tmp_path)
    assert lines.count("newgame") == 4
    assert lines.count("go chequer") == sum(1 for ln in lines if ln.startswith("dice "))


def test_cli_match_against_a_ubgi_engine(capsys):
    spec = "ubgi:" + " ".join(BGENGINE_UBGI) + " --player pubeval"
    assert main(["match", spec, "pubeval", "--games", "4", "--quiet", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"ppg": 0.0' in out and '"games": 4' in out     # pubeval against itself, mirrored


def test_bgengine_ubgi_as_a_subprocess():
    script = ["ubgi", "isready", "set engine.ply 2", "get engine.ply", "position gnubgid 4HPwATDgc/ABMA",
              "dice 6 5", "go", "go cube", "go turn", "dice 9 9", "position xgid x", "set x 1",
              "frobnicate", "", "quit", "isready"]
    run = subprocess.run([*BGENGINE_UBGI, "--player", "net"], input="\n".join(script) + "\n",
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("id name bgengine") and "proto 0.2" in lines
    after = lines[lines.index("ubgiok") + 1:]
    assert after[:3] == ["readyok", "value engine.ply 2", after[2]]
    assert re.fullmatch(r"info depth 2 time_ms \d+", after[2])
    assert after[3:] == ["bestmove 24/18 18/13", "bestcube nodouble",
                         "bestturn cube=nodouble move=24/18 18/13",
                         "error bad_value dice must_be 1..6", after[7],
                         "error unsupported key x", "error bad_command unknown command frobnicate"]
    assert after[7].startswith("error bad_value xgid XGID 'x': expected 10 fields")
