"""The external-player protocol session (:mod:`bgengine.protocols.gnubg_socket`), on scripted byte
streams (no sockets).

Covers both roles of the protocol (``docs/gnubg-external.md``): exchanges
captured from gnubg 1.07, every kind of reply, exactly one line per
gnubg board line and never an ``Error`` line in the player role, ``Error:``
lines for bad input in the server role, and a fuzz test throwing random lines
at the handler (the engine's own decisions are tested in test_engine.py).
"""

from __future__ import annotations

import json
import random
import re

import numpy as np
import pytest

from bgengine.core.agents import Player
from bgengine.notation.fibs import format_fibs_board, parse_fibs_board
from bgengine.notation.ids import MatchState
from bgengine.notation.moves import match_move
from bgengine.decisions.engine import Engine
from bgengine.protocols.gnubg_socket import MAX_LINE, ExchangeLog, LineSplitter, Session
from engine_doubles import FixedEngine, small_net_engine

# ---------------------------------------------------------------- lines captured from gnubg 1.07

# cubeless money game, external = player 0
B41_1 = ("board:ext:gnubg:0:0:0:0:-2:0:0:0:0:5:0:3:1:0:0:-5:4:0:0:0:-3:0:-5:0:0:0:1:1:0:-1:5:4:5:4:"
         "1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
B41_2 = ("board:ext:gnubg:0:0:0:-1:-2:0:0:0:0:5:0:3:2:0:0:-4:3:0:0:0:-3:0:-5:0:1:0:1:0:0:-1:1:4:1:4:"
         "1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
# no legal play
B42 = ("board:ext:gnubg:0:0:0:-1:-4:1:2:2:2:3:3:2:0:0:0:0:0:0:0:0:0:0:0:0:-1:0:-5:-4:0:-1:6:5:6:5:"
       "1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
# external as player 1
B43_1 = ("board:gnubg:external:0:0:0:0:-1:-1:0:0:0:5:0:3:0:0:0:-4:5:-1:0:0:-3:0:-5:0:0:0:0:2:0:1:6:5:"
         "6:5:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
B43_2 = ("board:gnubg:external:0:0:0:0:0:0:0:-2:0:5:3:3:0:0:0:-3:3:-1:-1:0:-2:-1:-5:0:0:0:0:0:1:1:4:"
         "3:4:3:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
# cube in use: a move, gnubg doubles, ext's next cube question (cube 2 owned by ext)
B44_MOVE = ("board:ext:gnubg:0:0:0:-1:-1:-1:0:2:0:4:0:3:-1:0:0:-4:4:0:0:1:-2:0:-5:0:1:0:0:0:0:-1:1:4:"
            "1:4:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
B44_TAKE = ("board:gnubg:ext:0:0:0:0:-2:-1:0:2:0:4:0:3:-1:0:0:-4:4:0:0:1:-1:0:-5:0:-1:0:0:0:1:1:0:0:"
            "0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:0:1")
B44_CUBE = ("board:ext:gnubg:0:0:0:-1:-2:-1:0:2:0:4:0:3:-1:0:0:-4:4:0:0:1:1:0:-5:0:-1:0:0:0:0:-1:0:0:"
            "0:0:2:0:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
# ext doubles; then gnubg's beaver comes back as a take question
B45_CUBE = ("board:ext:gnubg:0:0:0:0:-2:0:0:0:0:5:0:3:0:0:1:-4:4:0:0:0:-4:0:-4:-1:0:0:1:1:0:-1:0:0:0:0:"
            "1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
B45_BEAVER = ("board:ext:gnubg:0:0:0:0:-2:0:0:0:0:5:0:3:0:0:1:-4:4:0:0:0:-4:0:-4:-1:0:0:1:1:0:-1:0:0:0:"
              "0:2:1:0:1:1:-1:0:25:0:0:0:0:0:0:0:1")
# server side
OPENING_31 = ("board:you:opp:0:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:3:1:0:0:"
              "1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
OPENING_00 = OPENING_31.replace(":1:3:1:0:0:1:1:1:", ":1:0:0:0:0:1:1:1:")
OPENING_66 = OPENING_31.replace(":1:3:1:0:0:1:1:1:", ":1:6:6:0:0:1:1:1:")

GNUBG_LINES = [B41_1, B41_2, B42, B43_1, B43_2, B44_MOVE, B44_TAKE, B44_CUBE, B45_CUBE, B45_BEAVER]


@pytest.fixture(scope="module")
def net_engine():
    return small_net_engine()


def gnubg_stream(*lines: str) -> bytes:
    """Bytes exactly as gnubg writes them: each line, a newline and a NUL."""
    return b"".join(line.encode() + b"\n\0" for line in lines)


def replies(out: bytes) -> list[str]:
    assert out.endswith(b"\n") or out == b""
    return out.decode().split("\n")[:-1]


def ask(session: Session, line: str | bytes) -> list[str]:
    data = line if isinstance(line, bytes) else line.encode()
    return replies(session.feed(data + b"\n"))


def assert_legal_reply(line: str, reply: str) -> int:
    """The reply is a legal play for the board line (in the mover's numbering)."""
    fb = parse_fibs_board(line)
    board = fb.mover_board()
    return match_move(board, *fb.roll, reply)


# ---------------------------------------------------------------- player role (gnubg as client)

def test_captured_move_questions_get_legal_single_die_replies(net_engine):
    s = Session(net_engine)
    for line in (B41_1, B41_2, B43_1, B43_2, B44_MOVE):
        out = replies(s.feed(gnubg_stream(line)))
        assert len(out) == 1, out
        reply = out[0]
        assert not reply.startswith("Error")
        assert_legal_reply(line, reply)
        # single-die steps: every from/to pair moves by one die
        fb = parse_fibs_board(line)
        d = set(fb.roll)
        for a, b in re.findall(r"(bar|\d+)/(off|\d+)", reply):
            a = 25 if a == "bar" else int(a)
            b = 0 if b == "off" else int(b)
            assert a - b in d or b == 0
    assert s.gnubg


def test_captured_bar_entry_uses_the_movers_numbering(net_engine):
    # the second question of the first game: ext (player 0, turn -1) has a checker on the bar, dice 41
    out = replies(Session(net_engine).feed(gnubg_stream(B41_2)))
    assert out[0].startswith("bar/")
    assert out[0].split()[0] in ("bar/24", "bar/21")


def test_no_legal_play_is_an_empty_line(net_engine):
    s = Session(net_engine)
    assert s.feed(gnubg_stream(B42)) == b"\n"


def test_cube_questions_and_takes(net_engine):
    s = Session(net_engine)
    assert replies(s.feed(gnubg_stream(B44_TAKE)))[0] in ("take", "drop")
    assert replies(s.feed(gnubg_stream(B44_CUBE)))[0] in ("roll", "double")
    assert replies(s.feed(gnubg_stream(B45_CUBE)))[0] in ("roll", "double")
    assert replies(s.feed(gnubg_stream(B45_BEAVER)))[0] in ("take", "drop")


def test_a_whole_gnubg_stream_gets_one_line_per_board(net_engine):
    s = Session(net_engine)
    out = replies(s.feed(gnubg_stream(*GNUBG_LINES)))
    assert len(out) == len(GNUBG_LINES)
    assert not any(r.startswith("Error") for r in out)


def test_gnubg_stream_split_at_every_byte(net_engine):
    """gnubg's bytes may arrive in any chunks; the replies are the same plays.

    (gnubg writes each line and its NUL in one call, so they arrive together;
    if the very first line's NUL came late, that line would be answered in
    the server role's style, ``13/8 8/4 ``, which gnubg reads identically.)
    """
    data = gnubg_stream(B41_1, B42, B44_TAKE)
    whole = replies(Session(net_engine).feed(data))
    s = Session(net_engine)
    pieces = replies(b"".join(s.feed(data[i:i + 1]) for i in range(len(data))))
    assert [r.rstrip() for r in pieces] == whole
    assert pieces[1:] == whole[1:]
    assert len(whole) == 3


def test_player_role_never_answers_error(net_engine):
    """Bad board lines with gnubg's framing still get exactly one non-Error line."""
    bad = [
        B41_1.replace(":5:4:5:4:", ":9:4:9:4:"),          # impossible dice
        B41_1 + ":7",                                      # 53 fields
        B41_1.rsplit(":", 3)[0],                           # truncated
        B41_1.replace("board:ext:gnubg:0", "board:ext:gnubg:x"),
        B41_1.replace(":-2:0:0:0:0:5:", ":-9:0:0:0:0:5:"),  # 22 checkers
        "board:",
        "board:" + ":".join(["0"] * 52),
    ]
    s = Session(net_engine)
    s.feed(gnubg_stream(B41_1))           # the connection is gnubg's
    for line in bad:
        out = replies(s.feed(gnubg_stream(line)))
        assert out == [""], (line, out)


def test_engine_failure_in_player_role_falls_back_to_a_legal_answer():
    class Broken(FixedEngine):
        def choose_move(self, board, d1, d2):
            raise RuntimeError("boom")

        def cube_decision(self, board, state, jacoby=None):
            raise RuntimeError("boom")

        def take_decision(self, board, state):
            raise RuntimeError("boom")

    s = Session(Broken())
    move = replies(s.feed(gnubg_stream(B41_1)))
    assert len(move) == 1 and not move[0].startswith("Error")
    assert_legal_reply(B41_1, move[0])
    assert replies(s.feed(gnubg_stream(B44_CUBE))) == ["roll"]
    assert replies(s.feed(gnubg_stream(B44_TAKE))) == ["take"]


def test_debug_lines_never_reach_gnubg(net_engine):
    s = Session(net_engine)
    s.feed(gnubg_stream(B41_1))
    s.feed(b"set debug on\n")
    assert len(replies(s.feed(gnubg_stream(B41_2)))) == 1


def test_player_role_reply_format():
    s = Session(FixedEngine())
    out = replies(s.feed(gnubg_stream(OPENING_31)))
    assert out == ["8/5 6/5"]            # words for bar/off, no trailing space
    fb = parse_fibs_board(OPENING_66)
    assert replies(Session(FixedEngine()).feed(gnubg_stream(OPENING_66))) == \
        ["24/18 24/18 13/7 13/7"]
    assert fb.roll == (6, 6)


def test_identity_from_fields_not_names():
    """Renaming the players changes nothing (docs/gnubg-external.md §1.4: names are cosmetic)."""
    for line in GNUBG_LINES:
        renamed = line.replace("board:ext:gnubg:", "board:zz:yy:").replace(
            "board:gnubg:ext:", "board:yy:zz:").replace("board:gnubg:external:", "board:yy:zz:")
        a = Session(FixedEngine()).feed(gnubg_stream(line))
        b = Session(FixedEngine()).feed(gnubg_stream(renamed))
        assert a == b


# ---------------------------------------------------------------- server role (gnubg's `external`)

def test_captured_server_exchanges():
    """Section 4.8, reproduced (with pubeval's plays, which match gnubg's here)."""
    s = Session(FixedEngine(probs=(0.66, 0.0, 0.0, 0.0, 0.0)))    # no double; a take
    version = ask(s, "version")
    assert version[0] == "Interface: 2" and version[1] == "RFBF: 0"
    assert version[2].startswith("Engine: ") and version[3].startswith("Software: bgengine")
    help_ = ask(s, "help")
    assert len(help_) == 1 and help_[0].startswith("\t")
    assert ask(s, "set debug on") == ["Debug output ON"]
    assert ask(s, "set prompt 'x'") == ["Error: set option 'prompt' not supported"]
    assert ask(s, "set debug off") == ["Debug output OFF"]
    assert ask(s, OPENING_31) == ["8/5 6/5 "]           # gnubg's server style: trailing space
    assert ask(s, OPENING_00) == ["roll"]
    assert ask(s, B44_TAKE) == ["take"]
    assert ask(s, OPENING_66 + " jacobyrule off") == ["24/18 24/18 13/7 13/7 "]
    ev = ask(s, "evaluation fibsboard " + OPENING_31)
    assert len(ev) == 1
    nums = ev[0].split()
    assert len(nums) == 6 and all(re.fullmatch(r"-?\d+\.\d{6}", x) for x in nums)
    assert ask(s, "evaluation " + OPENING_31) == [
        "Error: syntax error, unexpected E_STRING, expecting FIBSBOARD "
        "(write: evaluation fibsboard board:...)"]
    assert ask(s, OPENING_31 + " plies 2")[0].startswith(
        "Error: syntax error, unexpected PLIES, expecting EOL")
    assert ask(s, "hello")[0].startswith("Error: syntax error, unexpected E_CHARACTER")
    assert ask(s, "") == ["Error: no command given"]
    assert s.feed(b"exit\n") == b"" and s.closed


def test_resignation_requests():
    race_won = ("board:you:opp:0:0:0:0:3:3:3:3:3:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:-15:0:1:0:0:0:0:"
                "1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
    sure_single = Session(FixedEngine(probs=(1.0, 0.0, 0.0, 0.0, 0.0)))
    assert ask(sure_single, race_won + " resignation 1") == ["accept"]
    assert ask(sure_single, race_won + " resignation 2") == ["accept"]
    likely_gammon = Session(FixedEngine(probs=(1.0, 0.9, 0.0, 0.0, 0.0)))
    assert ask(likely_gammon, race_won + " resignation 1") == ["reject"]
    assert ask(likely_gammon, race_won + " resignation 2") == ["accept"]


def test_debug_output_precedes_the_reply():
    s = Session(FixedEngine())
    ask(s, "set debug on")
    out = ask(s, OPENING_31)
    assert out[-1] == "8/5 6/5 "
    assert all(line.startswith("DBG:") for line in out[:-1]) and len(out) > 5
    assert any("4HPwATDgc/ABMA" in line for line in out)       # gnubg's own Position ID of the position
    assert any("cIkFAAAAAAAA" in line for line in out)         # and Match ID


def test_evaluation_numbers(net_engine):
    s = Session(net_engine)
    nums = [float(x) for x in ask(s, "evaluation fibsboard " + OPENING_31)[0].split()]
    board = parse_fibs_board(OPENING_31).mover_board()
    probs = net_engine.evaluate(board)
    assert np.allclose(nums[:5], probs, atol=1e-6)
    win, wg, wbg, lg, lbg = probs
    assert nums[5] == pytest.approx(2 * win - 1 + wg - lg + wbg - lbg, abs=1e-6)
    # options accepted by gnubg
    for opts in ("plies 0", "cubeless", "cube off", "prune", "deterministic on", "noise 0",
                 "plies 0 cubeless prune off jacobyrule on crawfordrule off"):
        out = ask(s, f"evaluation fibsboard {OPENING_31} {opts}")
        assert len(out) == 1 and len(out[0].split()) == 6, (opts, out)
    # a match: the sixth number is a match-winning chance
    match = OPENING_31.replace("board:you:opp:0:0:0:", "board:you:opp:7:2:4:")
    mwc = float(ask(s, "evaluation fibsboard " + match)[0].split()[5])
    assert 0 < mwc < 1


def test_lookahead_and_unsupported_evaluations(net_engine):
    s = Session(net_engine)
    zero = [float(x) for x in ask(s, f"evaluation fibsboard {OPENING_31}")[0].split()]
    # a 0-ply server refuses deeper evaluations (its documentation: plies above its depth)
    for plies in (1, 3, 5):
        out = ask(s, f"evaluation fibsboard {OPENING_31} plies {plies}")
        assert out[0].startswith("Error: ") and "not available" in out[0], out
    deep = Session(Engine(net_engine.player, plies=1))
    one = [float(x) for x in ask(deep, f"evaluation fibsboard {OPENING_31} plies 1")[0].split()]
    assert len(one) == 6 and one != zero            # a 1-ply evaluation really searched
    assert ask(deep, f"evaluation fibsboard {OPENING_31} plies 2")[0].startswith("Error: ")
    cubeful = [float(x) for x in ask(s, f"evaluation fibsboard {OPENING_31} cubeful")[0].split()]
    assert len(cubeful) == 6 and cubeful[:5] == zero[:5]
    # the cubeful money equity of the side on roll, owning access to a centred cube
    fb = parse_fibs_board(OPENING_31.split(" ")[0])
    want = net_engine.evaluate_cubeful(fb.mover_board(), fb.match_state())
    assert cubeful[5] == pytest.approx(want, abs=1e-6)
    assert cubeful[5] != pytest.approx(zero[5], abs=1e-4)


def test_evaluation_without_a_network_is_refused():
    engine = Engine(Player("pubeval"))
    engine.network = None
    out = ask(Session(engine), "evaluation fibsboard " + OPENING_31)
    assert out[0].startswith("Error: ") and "network" in out[0]


@pytest.mark.parametrize("line, expect", [
    ("hello world", "Error: syntax error"),
    ("versionx", "Error: syntax error"),
    ("version now", "Error: syntax error"),
    ("set", "Error: syntax error"),
    ("set debug maybe", "Error: syntax error"),
    ("set interface new", "New interface ON"),
    ("set interface old", "New interface OFF"),
    ("set colour red", "Error: set option 'colour' not supported"),
    ("evaluation", "Error: syntax error"),
    ("evaluation fibsboard", "Error: syntax error"),
    ("evaluation fibsboard hello", "Error: syntax error"),
    (OPENING_31 + " resignation 9", "Error: syntax error"),
    (OPENING_31 + " jacobyrule", "Error: syntax error"),
    (OPENING_31 + " bogus", "Error: syntax error"),
    (OPENING_31 + ":0", "Error: Invalid board. Maximum number of elements is 52"),
    (OPENING_31.rsplit(":", 1)[0], "Error: badly formed board"),
    (OPENING_31.replace(":-1:0:25:", ":0:0:25:"), "Error: badly formed board"),     # direction 0
    (OPENING_31.replace(":3:1:0:0:", ":7:1:0:0:"), "Error: badly formed board"),    # die 7
    (OPENING_31.replace("board:you:opp:0:0:0:", "board:you:opp:5:5:0:"), "Error: badly formed board"),
    (OPENING_31.replace("board:you:opp:0:0:0:", "board:you:opp:100:0:0:"), "Error: badly formed board"),
    (OPENING_31.replace(":0:-2:0:0:0:0:5:", ":0:-2:0:0:0:0:9:"), "Error: badly formed board"),
    ("board:a:b:" + ":".join(["0"] * 50), "Error: badly formed board"),
    ("BOARD:" + OPENING_31[6:], "8/5 6/5 "),
    ("VERSION", "Interface: 2"),
    ("x" * (MAX_LINE + 1), f"Error: line too long ({MAX_LINE + 1} bytes"),
])
def test_server_role_errors(line, expect):
    s = Session(FixedEngine())
    out = ask(s, line)
    assert out[0].startswith(expect), out
    if expect.startswith("Error"):
        assert len(out) == 1
    assert not s.closed


def test_game_over_board_is_refused():
    # all of the side on roll's checkers borne off
    line = ("board:you:opp:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:-15:0:0:1:3:1:0:0:"
            "1:1:1:0:1:-1:0:25:15:0:0:0:0:0:0:1")
    assert ask(Session(FixedEngine()), line)[0].startswith("Error: badly formed board")


def test_generic_fibs_orientation_gives_the_same_play():
    """Spec 2.4: the opening 31 is 8/5 6/5 whichever side is on roll."""
    fb = parse_fibs_board(OPENING_31)
    # the same position with player 0 on roll (turn -1)
    flipped = format_fibs_board(fb.mover_board(), MatchState(player_on_roll=0, dice=(3, 1)),
                                names=("you", "opp"))
    assert parse_fibs_board(flipped).turn == -1
    assert ask(Session(FixedEngine()), flipped) == ["8/5 6/5 "]


def test_exit_and_quit_close_without_reply():
    for word in (b"exit", b"quit", b"EXIT", b"  quit  "):
        s = Session(FixedEngine())
        assert s.feed(word + b"\n" + b"version\n") == b""
        assert s.closed


def test_crlf_and_nul_framing_are_tolerated():
    s = Session(FixedEngine())
    assert replies(s.feed(b"version\r\n"))[0] == "Interface: 2"
    assert replies(s.feed(OPENING_31.encode() + b"\r\n\0")) == ["8/5 6/5"]   # now gnubg-framed


def test_exchange_log_records_every_line(tmp_path):
    path = tmp_path / "x.jsonl"
    xlog = ExchangeLog(path)
    s = Session(FixedEngine(), log=xlog, peer="test")
    s.feed(gnubg_stream(B41_1, B42, B44_TAKE))
    s.feed(b"hello\n")
    xlog.close()
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    assert [e["kind"] for e in entries] == ["move", "move", "take", "error"]
    assert entries[0]["role"] == "player" and entries[0]["in"] == B41_1
    assert entries[0]["position_id"] and entries[0]["dice"] == [5, 4] and entries[0]["steps"]
    assert entries[1]["out"] == "" and entries[1]["steps"] == []
    assert entries[3]["role"] == "server" and entries[3]["out"].startswith("Error")


# ---------------------------------------------------------------- framing

def test_line_splitter_marks_gnubg_framing_and_bounds_memory():
    sp = LineSplitter(limit=100)
    lines = sp.feed(b"board:a\n\0board:b\n\0")
    assert [(r.data, r.nul) for r in lines] == [(b"board:a", True), (b"\0board:b", True)]
    lines = sp.feed(b"plain\n")     # carries the previous line's NUL
    assert lines[0].data == b"\0plain" and lines[0].nul
    lines = sp.feed(b"plain\nin\0side\n")
    assert [(r.data, r.nul) for r in lines] == [(b"plain", False), (b"in\0side", False)]
    lines = sp.feed(b"x" * 10_000)
    assert lines == [] and sp.pending == 10_000 and len(sp._buf) <= 100
    lines = sp.feed(b"yy\nnext\n")
    assert lines[0].length == 10_002 and len(lines[0].data) == 100
    assert lines[1].data == b"next"
    assert sp.feed(b"part") == [] and sp.take_partial() == b"part" and sp.pending == 0


def test_huge_line_gets_one_error():
    s = Session(FixedEngine())
    out = b""
    for _ in range(50):
        out += s.feed(b"z" * 10_000)
    out += s.feed(b"\nversion\n")
    lines = replies(out)
    assert lines[0].startswith("Error: line too long (500000 bytes")
    assert lines[1] == "Interface: 2"


# ---------------------------------------------------------------- fuzz

def _random_line(rng: random.Random) -> bytes:
    kind = rng.randrange(6)
    if kind == 0:                                   # raw bytes (no newline)
        return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300))).replace(b"\n", b"")
    if kind == 1:                                   # printable junk
        return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz:0123456789- ")
                       for _ in range(rng.randrange(0, 80))).encode()
    base = rng.choice(GNUBG_LINES + [OPENING_31, OPENING_00])
    fields = base.split(":")
    if kind == 2:                                   # one field changed
        i = rng.randrange(len(fields))
        fields[i] = rng.choice(["", "-1", "99", "x", "0", "1", "-15", "9999", "2147483648", "1e3"])
    elif kind == 3:                                 # fields dropped or duplicated
        i = rng.randrange(len(fields))
        if rng.random() < 0.5:
            del fields[i]
        else:
            fields.insert(i, fields[i])
    elif kind == 4:                                 # truncated anywhere
        return base.encode()[:rng.randrange(len(base))]
    line = ":".join(fields)
    if rng.random() < 0.3:
        line = rng.choice(["evaluation fibsboard ", "evaluation ", ""]) + line + rng.choice(
            ["", " plies 0", " cubeless", " resignation 2", " jacobyrule off", " noise 0.5", " x"])
    return line.encode()


def test_fuzz_server_role_never_raises_and_answers_one_line(net_engine):
    rng = random.Random(1234)
    s = Session(net_engine)
    for _ in range(2000):
        line = _random_line(rng)
        out = s.feed(line + b"\n")
        lines = replies(out)
        text = line.decode("utf-8", "replace").strip()
        if text.lower() in ("exit", "quit"):
            s = Session(net_engine)
            continue
        assert len(lines) <= 1, (line, lines)
        if not lines:       # only lines that were nothing but gnubg's NUL framing
            assert s.gnubg or not line.replace(b"\0", b"").strip()
        assert not s.closed


def test_fuzz_player_role_always_exactly_one_line_and_never_error(net_engine):
    rng = random.Random(99)
    s = Session(net_engine)
    s.feed(gnubg_stream(B41_1))
    for _ in range(2000):
        line = rng.choice(GNUBG_LINES)
        fields = line.split(":")
        for _ in range(rng.randrange(0, 3)):
            i = rng.randrange(3, len(fields))
            fields[i] = str(rng.randrange(-3, 8))
        data = (":".join(fields)).encode() + b"\n\0"
        out = replies(s.feed(data))
        assert len(out) == 1, (data, out)
        assert not out[0].startswith("Error")
        fb = None
        try:
            fb = parse_fibs_board(":".join(fields))
        except ValueError:
            pass
        if fb is not None and out[0] and fb.decision == "move" and fb.mover_board()[1].sum():
            assert_legal_reply(":".join(fields), out[0])


def test_fuzz_random_streams_in_random_chunks(net_engine):
    """Whole random byte streams, cut anywhere: no exception, the session survives."""
    rng = random.Random(7)
    for _ in range(200):
        s = Session(net_engine)
        stream = b"".join(_random_line(rng) + rng.choice([b"\n", b"\n\0", b"\r\n"])
                          for _ in range(rng.randrange(1, 20)))
        pos = 0
        while pos < len(stream):
            step = rng.randrange(1, 64)
            s.feed(stream[pos:pos + step])
            pos += step


def test_time_budget_overruns_are_logged(tmp_path):
    import time as _time

    class Slow(FixedEngine):
        def choose_move(self, board, d1, d2):
            _time.sleep(0.02)
            return super().choose_move(board, d1, d2)

    path = tmp_path / "x.jsonl"
    xlog = ExchangeLog(path)
    s = Session(Slow(time_budget=0.005), log=xlog)
    out = replies(s.feed(gnubg_stream(B41_1)))
    xlog.close()
    assert len(out) == 1 and not out[0].startswith("Error")
    entry = json.loads(path.read_text().splitlines()[0])
    assert entry["over_budget"] is True and entry["ms"] >= 20


def test_the_engine_offers_gnubg_a_resignation_once_per_state():
    """In a decided game the engine answers gnubg's board with an offer to resign (gnubg's
    "resign gammon"); when gnubg declines it asks again, and then the engine plays."""
    board = np.zeros((2, 25), np.uint8)
    board[1, 12], board[0, 0] = 15, 1         # we cannot bear off; gnubg wins a gammon next
    line = format_fibs_board(board, MatchState(player_on_roll=0, dice=(2, 1), jacoby=False),
                             names=("ext", "gnubg"))
    s = Session(Engine("net", plies=0))
    assert replies(s.feed(gnubg_stream(line))) == ["resign gammon"]
    again = replies(s.feed(gnubg_stream(line)))
    assert len(again) == 1 and again[0] != "resign gammon" and "/" in again[0]
