"""The UBGI engine session (bgengine.protocols.ubgi), driven by a scripted controller in-process:
every command of UBGI v0.2 and every error case, each reply checked for form and legality."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from bgengine.decisions.engine import Engine
from bgengine.notation.ids import MatchState, match_id, position_id
from bgengine.core.movegen import legal_afterstates
from bgengine.notation.moves import match_move
from bgengine.core.search import Searcher
from bgengine.protocols.ubgi import ERROR_CODES, KEYS, UbgiSession, format_payload, parse_gnubgid
from game_positions import board_from_points, random_positions

START = "4HPwATDgc/ABMA"
UBGI_GUIDE = Path(__file__).resolve().parent.parent / "docs" / "guide" / "serve-and-ubgi.md"
#: spec §4: key <name> int [<min>..<max>] <default> | bool <default> | enum <a|b> <default> |
#: string * <default>, then an optional standalone "!" and a description
KEY_LINE = re.compile(r"key (?P<name>(game|engine)\.[\w.]+) "
                      r"(int( -?\d+\.\.-?\d+)?|bool|enum [\w-]+(\|[\w-]+)*|string \*) "
                      r"(?P<default>\S+)( !)?( .*)?$")


class Controller:
    """A scripted controller: sends lines, checks that every error line has the spec's form."""

    def __init__(self, **kw) -> None:
        self.session = UbgiSession(**kw)

    def __call__(self, *lines: str) -> list[str]:
        out: list[str] = []
        for line in lines:
            out += self.session.handle(line)
        for reply in out:
            assert "\n" not in reply
            if reply.startswith("error"):
                assert reply.split()[1] in ERROR_CODES, reply
        return out

    def error(self, *lines: str) -> str:
        """The one error code the last line draws (the lines before must draw none)."""
        assert self(*lines[:-1]) == [] or lines[:-1] == ()
        out = self(lines[-1])
        assert len(out) == 1 and out[0].startswith("error "), out
        return out[0].split()[1]


@pytest.fixture(scope="module")
def played() -> list[tuple[np.ndarray, int, int]]:
    """(board, d1, d2) met in random games: hits, bar entries, bear-offs, forfeited rolls."""
    rng = np.random.default_rng(16)
    return [(b, int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            for b in random_positions(6, seed=16, every=3) if (b.sum(axis=1) > 0).all()]


# ====================================================================== handshake and options

def test_handshake_announces_identity_protocol_and_keys():
    out = Controller()("ubgi")
    assert out[0].startswith("id name bgengine ") and out[1].startswith("id author ")
    assert out[2] == "proto 0.2" and out[-1] == "ubgiok"
    keys = out[3:-1]
    assert [KEY_LINE.match(k).group("name") for k in keys] == [k.name for k in KEYS]
    assert Controller()("isready") == ["readyok"]


def test_keys_lists_every_option_with_its_current_value():
    c = Controller(player="net")
    defaults = {m.group("name"): m.group("default") for m in map(KEY_LINE.match, c("keys"))}
    assert defaults == {"engine.ply": "1", "engine.player": "net", "game.jacoby": "false",
                        "game.variant": "backgammon"}
    for key, value in defaults.items():
        assert c(f"get {key}") == [f"value {key} {value}"]
    c("set engine.ply 3", "set game.jacoby true")
    now = {m.group("name"): m.group("default") for m in map(KEY_LINE.match, c("keys"))}
    assert now["engine.ply"] == "3" and now["game.jacoby"] == "true"


def test_set_changes_what_get_reports_and_what_the_engine_does():
    c = Controller(player="net")
    assert c("set engine.ply 2", "get engine.ply") == ["value engine.ply 2"]
    assert c.session.engine.plies == 1                      # UBGI 2-ply is gnubg 1-ply
    assert c("set engine.ply 1", "set engine.player pubeval", "get engine.player") == \
        ["value engine.player pubeval"]
    assert c.session.engine.player.kind == "pubeval"
    assert c("set game.jacoby true", "get game.jacoby") == ["value game.jacoby true"]
    assert c("set game.variant backgammon") == []
    assert c("setoption name engine.player value net", "get engine.player") == \
        ["value engine.player net"]                         # UBGI v0.1 spelling


@pytest.mark.parametrize("line, code", [
    ("set", "bad_command"), ("set engine.ply", "bad_command"),
    ("set engine.nodes 100", "unsupported"), ("set Threads 2", "unsupported"),
    ("set engine.ply 0", "bad_value"), ("set engine.ply 5", "bad_value"),
    ("set engine.ply two", "bad_value"), ("set engine.ply \u00b2", "bad_value"),
    ("set engine.ply 1.5", "bad_value"), ("set game.jacoby yes", "bad_value"),
    ("set game.variant nackgammon", "unsupported"), ("set game.variant chess", "bad_value"),
    ("set engine.player nobody", "bad_value"), ("set engine.player gnubg-external:1.2.3.4:5", "bad_value"),
    ("set engine.player net:/no/such/file.npz", "bad_value"),
    ("setoption name engine.ply", "bad_command"), ("setoption engine.ply value 2", "bad_command"),
    ("setoption name engine.ply value 9", "bad_value"),
    ("get", "bad_command"), ("get engine.ply game.jacoby", "bad_command"),
    ("get engine.depth", "unsupported"),
])
def test_option_errors(line, code):
    c = Controller(player="net")
    assert c.error(line) == code
    assert c("get engine.ply", "get engine.player") == ["value engine.ply 1", "value engine.player net"]


def test_lookahead_needs_a_network_player_whichever_is_set_first():
    c = Controller(player="pubeval")
    assert c.error("set engine.ply 2") == "bad_value"
    c("set engine.player net", "set engine.ply 2")
    assert c.error("set engine.player pubeval") == "bad_value"
    assert c("get engine.player", "get engine.ply") == ["value engine.player net", "value engine.ply 2"]


# ====================================================================== position, dice, go

def test_go_answers_the_engines_own_play_in_legal_payloads(played):
    c = Controller(player="net")
    engine = Engine("net")
    seen = set()
    for board, d1, d2 in played:
        out = c(f"position gnubgid {position_id(board)}", f"dice {d1} {d2}", "go")
        assert len(out) == 2 and re.fullmatch(r"info depth 1 time_ms \d+", out[0]), out
        payload = out[1].removeprefix("bestmove ")
        assert re.fullmatch(r"pass|((bar|\d+)/(off|\d+))( (bar|\d+)/(off|\d+)){0,3}", payload)
        index = match_move(board, d1, d2, "" if payload == "pass" else payload)   # legal
        assert index == engine.choose_index(board, d1, d2)
        seen.update(w for w in ("bar", "off", "pass") if w in payload)
    assert seen == {"bar", "off", "pass"}, "the sample should meet every kind of payload"


def test_engine_ply_counts_the_root(played):
    """engine.ply 1 is the network alone (gnubg 0-ply), 2 is gnubg 1-ply: found on a
    position where the two depths choose differently."""
    searcher = Searcher(Engine("net").network)
    for board, d1, d2 in played:
        if len(legal_afterstates(board, d1, d2)[0]) < 2:
            continue
        zero, one = (int(searcher.best_move(board, d1, d2, plies=p)[0]) for p in (0, 1))
        if zero != one:
            break
    else:
        pytest.fail("no position where 0-ply and 1-ply differ")
    c = Controller(player="net")
    ask = [f"position gnubgid {position_id(board)}", f"dice {d1} {d2}", "go chequer"]
    for ply, expected in (("1", zero), ("2", one)):
        payload = c(f"set engine.ply {ply}", *ask)[-1].removeprefix("bestmove ")
        assert match_move(board, d1, d2, payload) == expected


def test_position_and_dice_errors_leave_nothing_stale():
    c = Controller(player="pubeval")
    assert c.error("position") == "bad_command"
    assert c.error("position gnubgid") == "bad_command"
    assert c.error(f"position gnubgid {START} extra") == "bad_command"
    assert c.error("position xgid XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:1x") == "bad_value"
    assert c.error("position fen rnbqkbnr") == "unsupported"
    assert c.error(f"position gnubgid {START}", "dice 3 1", "position gnubgid 4HPwATDgc/ABM") == "bad_value"
    assert c("go") == ["error bad_state missing position"]         # the old position is gone
    for bad in ("position gnubgid /////////////w", f"position gnubgid {START}:AAAAAAAAAAAAAA",
                f"position gnubgid {START}:cAkAAAAAAA!A"):
        assert c.error(bad) == "bad_value"
    assert c.error("dice 3") == "bad_command"
    assert c.error("dice 3 1 2") == "bad_command"
    for bad in ("dice 7 1", "dice 0 2", "dice a b", "dice -1 3", "dice \u0663 1"):
        assert c.error(f"position gnubgid {START}", "dice 3 1", bad) == "bad_value"
        assert c("go") == ["error bad_state missing dice"]


@pytest.mark.parametrize("line", ["go chequer now", "go bogus", "go role", "go role bishop",
                                  "go cube turn"])
def test_malformed_go(line):
    c = Controller(player="pubeval")
    assert c.error(f"position gnubgid {START}", "dice 3 1", line) == "bad_command"


def test_go_needs_what_it_decides_on():
    c = Controller(player="pubeval")
    for kind in ("", " chequer", " cube", " turn"):
        assert c(f"go{kind}") == ["error bad_state missing position"]
    c(f"position gnubgid {START}")
    for kind in ("", " chequer", " turn"):
        assert c(f"go{kind}") == ["error bad_state missing dice"]
    assert c("go cube") == ["bestcube nodouble"]            # before the roll: no dice needed
    over = board_from_points({}, {6: 3})                    # the side on roll has borne off
    assert c(f"position gnubgid {position_id(over)}", "dice 3 1", "go") == \
        ["error bad_state game over: a side has borne off all its checkers"]
    c(f"position gnubgid {START}", "dice 3 1", "newgame")
    assert c("go") == ["error bad_state missing position"]
    c(f"position gnubgid {START}")
    assert c("go") == ["error bad_state missing dice"]      # newgame forgot the dice too


def test_v01_go_role_is_go():
    c = Controller(player="net")
    c(f"position gnubgid {START}", "dice 3 1")
    assert c("go role chequer")[-1] == c("go")[-1] == "bestmove 8/5 6/5"
    assert c("go role cube") == c("go cube")


# ====================================================================== the cube

@pytest.fixture(scope="module")
def doubling_position(played) -> np.ndarray:
    """A money position where the engine doubles (centred cube)."""
    engine = Engine("net")
    for board, _, _ in played:
        if engine.cube_decision(board, MatchState(player_on_roll=1, jacoby=False)):
            return board
    pytest.fail("no doubling position in the sample")


def test_go_cube_and_go_turn_follow_the_engine(doubling_position, played):
    c = Controller(player="net")
    pid = position_id(doubling_position)
    assert c(f"position gnubgid {pid}", "go cube") == ["bestcube double"]
    assert c(f"position gnubgid {START}", "go cube") == ["bestcube nodouble"]
    engine = Engine("net")
    for board, d1, d2 in played[:40]:
        cube = "double" if engine.cube_decision(board, MatchState(player_on_roll=1)) else "nodouble"
        move = format_payload(engine.choose_move(board, d1, d2))
        out = c(f"position gnubgid {position_id(board)}", f"dice {d1} {d2}", "go turn")
        assert out == [f"bestturn cube={cube} move={move}"]


def test_go_resign_is_the_engines_offer():
    c = Controller(player="net")
    assert c(f"position gnubgid {START}", "go resign") == ["bestresign none"]
    hopeless = np.zeros((2, 25), np.uint8)
    hopeless[1, 12], hopeless[0, 0] = 15, 1      # on roll, it cannot save the gammon
    assert c(f"position gnubgid {position_id(hopeless)}", "go resign") == ["bestresign gammon"]
    assert c("go resign") == c("go role resign")


def test_a_match_id_gives_the_cube_its_context(doubling_position):
    c = Controller(player="net")
    pid = position_id(doubling_position)
    centred = MatchState(player_on_roll=1, jacoby=False)
    theirs = MatchState(cube=2, cube_owner=0, player_on_roll=1)
    crawford = MatchState(match_length=5, score=(4, 2), crawford=True, player_on_roll=1)
    assert c(f"position gnubgid {pid}:{match_id(centred)}", "go cube") == ["bestcube double"]
    assert c(f"position gnubgid {pid}:{match_id(theirs)}", "go cube") == ["bestcube nodouble"]
    assert c(f"position gnubgid {pid}:{match_id(crawford)}", "go cube") == ["bestcube nodouble"]
    rolled = MatchState(player_on_roll=1, dice=(3, 1))      # its dice become the dice
    assert c("newgame", f"position gnubgid {START}:{match_id(rolled)}", "go")[-1] == "bestmove 8/5 6/5"
    board, state = parse_gnubgid(f"{START}:{match_id(rolled)}")
    assert position_id(board) == START and state == rolled


def test_jacoby_key_reaches_the_cube_decision(monkeypatch):
    c = Controller(player="net")
    seen = []
    monkeypatch.setattr(c.session.engine, "cube_decision",
                        lambda board, state, jacoby=None: seen.append(jacoby) or False)
    c(f"position gnubgid {START}", "go cube", "set game.jacoby true", "go cube")
    assert seen == [False, True]


# ====================================================================== the rest

@pytest.mark.parametrize("line", ["foo", "UBGI", "Isready", "isready now", "ubgi 0.2", "newgame x",
                                  "keys all", "quit now", "stop", "bestmove 8/5 6/5", "uci"])
def test_unknown_or_malformed_commands(line):
    c = Controller()
    assert c.error(line) == "bad_command"
    assert c("isready") == ["readyok"]                      # the session carries on


def test_blank_lines_are_ignored_and_quit_ends_the_session():
    c = Controller(player="pubeval")
    assert c("", "   ", "\t") == []
    assert c("quit") == [] and c.session.closed
    assert c("isready", "ubgi") == []


def test_an_internal_failure_is_an_error_line_not_the_end(monkeypatch):
    c = Controller(player="pubeval")

    def broken(*a):
        raise RuntimeError("boom")

    monkeypatch.setattr(c.session.engine, "choose_move", broken)
    out = c(f"position gnubgid {START}", "dice 3 1", "go")
    assert out == ["error bad_state internal error (RuntimeError: boom)"]
    assert c("isready") == ["readyok"]


@pytest.mark.skipif(not UBGI_GUIDE.exists(), reason="needs the source tree's docs")
def test_the_documented_session_is_what_the_engine_says():
    text = UBGI_GUIDE.read_text().split("## UBGI", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    c, expected, got = Controller(player="net"), [], []
    for line in text.splitlines():
        if line.startswith("> "):
            got += c(line[2:])
        else:
            expected.append(line)
    time_ms = re.compile(r"time_ms \d+")
    assert [time_ms.sub("time_ms T", ln) for ln in got] == \
        [time_ms.sub("time_ms T", ln).replace("0.1.0", got[0].split()[-1]) for ln in expected]


def test_position_xgid_means_the_same_as_its_gnubg_id():
    from bgengine.state import GameState

    for xgid in ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10",
                 "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:2:4:0:7:10",
                 "XGID=---bB-CBB-aAcC---c-ea-B---:1:1:-1:00:0:0:0:0:10"):
        gnubgid = GameState.from_xgid(xgid).to_gnubgid()
        for ask in (["go chequer"], ["go cube"], ["dice 6 5", "go turn"]):
            by_xgid = Controller(player="net")(f"position xgid {xgid}", *ask)
            by_gnubgid = Controller(player="net")(f"position gnubgid {gnubgid}", *ask)
            untimed = re.compile(r"time_ms \d+")    # the search's wall time differs run to run
            assert ([untimed.sub("time_ms T", line) for line in by_xgid]
                    == [untimed.sub("time_ms T", line) for line in by_gnubgid]), (xgid, ask)
