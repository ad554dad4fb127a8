"""Game states (bgengine.state): gnubg's Position ID + Match ID and eXtreme Gammon's XGID.

The golden states in tests/data/gnubg/game_states.jsonl.gz come from GNU Backgammon 1.07
(lab/make_state_golden.py, run inside gnubg): its own Position ID and Match ID encoders on
3000 random states, and an XGID for each state an XGID can hold, which gnubg's ``set xgid``
read back into the same IDs.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import textwrap
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, strategies as st

from bgengine.notation.ids import GAME_PLAYING, MatchState
from bgengine.position import Position
from bgengine.state import GameState
from conftest import DATA
from test_ids import legal_boards, match_states

GOLDEN = DATA / "gnubg" / "game_states.jsonl.gz"
GNUBG = shutil.which("gnubg") or ("/usr/games/gnubg" if os.path.exists("/usr/games/gnubg") else None)


def _golden() -> list[dict]:
    with gzip.open(GOLDEN, "rt") as f:
        return [json.loads(line) for line in f]


GOLDEN_STATES = _golden()


def _fields(s: GameState) -> dict:
    """The state in the golden records' terms (gnubg's field names)."""
    m = s.match
    return {"board": s.board.tolist(), "cube": m.cube, "cubeowner": m.cube_owner,
            "move": m.player_on_roll, "turn": m.turn, "matchto": m.match_length,
            "score": list(m.score), "crawford": int(m.crawford), "jacoby": int(m.jacoby),
            "doubled": int(m.double_offered), "resigned": m.resignation,
            "gamestate": m.game_state}


def _expected(rec: dict) -> dict:
    return {k: rec[k] for k in ("board", "cube", "cubeowner", "move", "turn", "matchto", "score",
                                "crawford", "jacoby", "doubled", "resigned", "gamestate")}


def test_golden_data_cover_the_cases():
    recs = GOLDEN_STATES
    assert len(recs) >= 3000
    xg = [r for r in recs if "xgid" in r]
    assert len(xg) >= 2000
    assert {r["xgid_check"] for r in xg} == {"exact", "swapped", "double stepped back",
                                             "double stepped back, swapped"}
    assert any(r["matchto"] == 0 and r["jacoby"] for r in xg)
    assert any(r["matchto"] == 0 and r["beavers"] for r in xg)
    assert any(r["crawford"] for r in xg)
    post = [r for r in xg if r["matchto"] > 1 and not r["crawford"]
            and r["matchto"] - 1 in r["score"]]
    assert post
    assert any(r["resigned"] for r in recs) and any(r["gamestate"] != 1 for r in recs)
    assert any(r["dice"][0] < r["dice"][1] for r in xg)    # dice given low die first


def test_golden_gnubg_ids_parse_and_re_serialise():
    for rec in GOLDEN_STATES:
        text = f"{rec['positionid']}:{rec['matchid']}"
        s = GameState.from_string(text)
        assert _fields(s) == _expected(rec), text
        assert sorted(s.dice, reverse=True) == sorted(rec["dice"], reverse=True)
        assert s.to_gnubgid() == text


def test_golden_xgids_parse_and_re_serialise():
    for rec in GOLDEN_STATES:
        if "xgid" not in rec:
            continue
        s = GameState.from_string(rec["xgid"])
        assert _fields(s) == _expected(rec), rec["xgid"]
        assert list(s.dice) == rec["dice"]
        assert s.beavers == bool(rec["beavers"]) and s.max_cube == 1 << rec["maxcube"]
        assert s.to_xgid() == rec["xgid"]
        assert s.to_gnubgid() == f"{rec['positionid']}:{rec['matchid']}"


def test_golden_gnubg_ids_give_the_xgids():
    """From gnubg's IDs to the XGID: only the dice order (a Match ID keeps the higher die
    first), beavers and the max cube (XGID only) are not in the gnubg IDs."""
    for rec in GOLDEN_STATES:
        if "xgid" not in rec:
            continue
        s = GameState.from_string(f"{rec['positionid']}:{rec['matchid']}")
        s = replace(s, beavers=bool(rec["beavers"]), max_cube=1 << rec["maxcube"])
        fields = rec["xgid"].split(":")
        if fields[4] not in ("D", "00"):
            fields[4] = "".join(sorted(fields[4], reverse=True))
        assert s.to_xgid() == ":".join(fields)


def test_golden_states_an_xgid_cannot_hold_are_refused():
    refused = 0
    for rec in GOLDEN_STATES:
        if rec["resigned"] or rec["gamestate"] != 1 or (rec["matchto"] and rec["jacoby"]):
            s = GameState.from_string(f"{rec['positionid']}:{rec['matchid']}")
            with pytest.raises(ValueError, match="XGID"):
                s.to_xgid()
            refused += 1
    assert refused > 50


# ------------------------------------------------------------------ round trips

def _xgid_compatible(ms: MatchState, beavers: bool) -> MatchState:
    """``ms`` made holdable by an XGID: a game in progress, no resignation, a double only
    before the roll, no Jacoby rule in a match."""
    doubled = ms.double_offered and ms.cube < 1 << 15
    return replace(ms, game_state=GAME_PLAYING, resignation=0, double_offered=doubled,
                   turn=1 - ms.player_on_roll if doubled else ms.player_on_roll,
                   dice=(0, 0) if doubled else ms.dice,
                   jacoby=ms.jacoby and not ms.match_length,
                   score=tuple(min(x, ms.match_length) if ms.match_length else x
                               for x in ms.score))


@given(legal_boards(), match_states(), st.booleans(), st.integers(0, 15))
def test_gnubgid_round_trip(board, ms, beavers, max_log2):
    s = GameState(Position(board), ms)
    back = GameState.from_string(s.to_gnubgid())
    assert back == replace(s, match=replace(ms, dice=tuple(sorted(ms.dice, reverse=True))))
    assert back.to_gnubgid() == s.to_gnubgid()


@given(legal_boards(), match_states(), st.booleans(), st.integers(0, 15))
def test_xgid_round_trip(board, ms, beavers, max_log2):
    ms = _xgid_compatible(ms, beavers)
    s = GameState(Position(board), ms, beavers=beavers and not ms.match_length,
                  max_cube=1 << max_log2)
    text = s.to_xgid()
    back = GameState.from_string(text)
    assert back == s
    assert back.to_xgid() == text
    assert GameState.from_string(text[len("XGID="):]) == s      # the prefix is optional


def test_position_id_alone_is_a_money_state_with_player_1_on_roll():
    s = GameState.from_string("4HPwATDgc/ABMA")
    assert s.position == Position.initial()
    # no Jacoby rule: the one default of every command (an XGID or Match ID says its own)
    assert s.match == MatchState(player_on_roll=1, jacoby=False)
    assert s.to_xgid() == "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def test_start_position_xgid_layout():
    """XG's own start position string: two top checkers on the bottom player's 1-point."""
    s = GameState.from_string("XGID=-b----E-C---eE---c-e----B-:0:0:-1:31:0:0:0:5:10")
    assert s.position == Position.initial() and s.match.player_on_roll == 0
    assert s.dice == (3, 1) and s.match.match_length == 5 and not s.match.jacoby
    assert s.to_gnubgid().startswith("4HPwATDgc/ABMA:")


def test_position_from_id_accepts_whole_states():
    """Where a Position ID is accepted, gnubg's combined ID and an XGID are too (the
    position of the side on roll); a plain Position ID keeps its own errors."""
    xgid = "XGID=-b----E-C---eE---c-e----B-:1:1:-1:52:2:3:0:7:10"
    assert Position.from_id(xgid) == Position.initial()
    assert Position.from_id("4HPwATDgc/ABMA:UYnqADAAEAAE") == Position.initial()
    board = GOLDEN_STATES[0]["board"]
    assert Position.from_id(GOLDEN_STATES[0]["xgid"]).board.tolist() == board
    with pytest.raises(ValueError, match="must be 14 characters long, got 13"):
        Position.from_id("4HPwATDgc/ABM")


def test_summary_says_the_context():
    s = GameState.from_string("XGID=-b----E-C---eE---c-e----B-:1:1:-1:52:2:3:0:7:10")
    assert s.summary() == ("7-point match, score 3-2 (side on roll first); cube 2 owned by the "
                           "opponent; rolled 5-2")
    s = GameState.from_string("XGID=-b----E-C---eE---c-e----B-:0:0:1:D:6:3:1:7:10")
    assert s.summary() == ("7-point match, score 6-3 (side on roll first), Crawford game; "
                           "cube 1 centred; doubled to 2: the opponent takes or passes")
    s = GameState.from_string("XGID=-b----E-C---eE---c-e----B-:2:-1:1:00:0:0:3:0:10")
    assert s.summary() == ("money game (Jacoby rule, beavers); cube 4 owned by the opponent; "
                           "to roll (or double)")
    s = GameState(Position.initial(), MatchState(match_length=5, score=(4, 1), player_on_roll=1,
                                                 turn=0, resignation=2))
    assert s.summary() == ("5-point match, score 1-4 (side on roll first), post-Crawford; "
                           "cube 1 centred; a gammon resigned: the opponent accepts or rejects")


def test_with_and_without_dice():
    s = GameState.from_string("4HPwATDgc/ABMA")
    assert s.with_dice(3, 1).dice == (3, 1) and s.with_dice(3, 1).without_dice() == s


# ------------------------------------------------------------------ fuzz

_XGIDS = [r["xgid"] for r in GOLDEN_STATES if "xgid" in r][:200]
_GNUBGIDS = [f"{r['positionid']}:{r['matchid']}" for r in GOLDEN_STATES][:200]


def _parsed_or_explained(text: str) -> GameState | None:
    """The state ``text`` holds, or ``None`` after checking the error says which form failed."""
    try:
        return GameState.from_string(text)
    except ValueError as exc:
        assert "ID" in str(exc) or "game state" in str(exc)     # XGID, Position/Match ID
        return None


@given(st.sampled_from(_XGIDS), st.integers(0, 79), st.sampled_from("-AaPp0123456789:D=B+/ x"))
def test_a_changed_xgid_parses_exactly_or_says_why(xgid, at, ch):
    text = xgid[:at] + ch + xgid[at + 1:]
    s = _parsed_or_explained(text)
    if s is not None:
        assert s.to_xgid() == "XGID=" + text.strip()[5:]       # the prefix's case may differ


@given(st.sampled_from(_GNUBGIDS), st.integers(0, 26), st.sampled_from("AQgwB/+9az: "))
def test_a_changed_gnubgid_parses_exactly_or_says_why(gid, at, ch):
    text = gid[:at] + ch + gid[at + 1:]
    s = _parsed_or_explained(text)
    if s is not None and s.dice[0] >= s.dice[1]:      # a Match ID writes the higher die first
        assert s.to_gnubgid() == text.strip().replace(" ", ":")


@given(st.text(alphabet="XGID=-ABPabp0123456789:/+D ", max_size=60))
def test_any_text_is_a_state_or_an_error(text):
    try:
        s = GameState.from_string(text)
    except ValueError:
        return
    assert GameState.from_string(s.to_gnubgid()).to_gnubgid() == s.to_gnubgid()


def test_xgid_numbers_have_one_spelling():
    with pytest.raises(ValueError, match=r"field 9 \(match length\) '07': not a whole number"):
        GameState.from_string(f"XGID={START}:0:0:1:00:0:0:0:07:10")


# ------------------------------------------------------------------ errors

START = "-b----E-C---eE---c-e----B-"


@pytest.mark.parametrize("text, message", [
    ("", "not a game state"),
    ("4HPwATDgc/ABM", "not a game state"),
    ("4HPwATDgc/ABMA:cAkAAAAAAAA", "Match ID .* 12 characters"),
    ("4HPwATDgc/ABM:cAkAAAAAAAAA", "Position ID .* 14 characters"),
    ("4HPwATDgc/ABMA:cAkAAAAAAAAA:x", "3 part"),
    ("4HPwATDgc/AB!A:cAkAAAAAAAAA", "invalid character '!'"),
    (f"XGID={START}:0:0:1:00:0:0:0:0", "expected 10 fields"),
    (f"XGID={START[:-1]}:0:0:1:00:0:0:0:0:10", r"field 1 \(position\).*26 characters"),
    (f"XGID=x{START[1:]}:0:0:1:00:0:0:0:0:10", r"field 1 \(position\)"),
    (f"XGID=A{START[1:]}:0:0:1:00:0:0:0:0:10", "top player's bar"),
    (f"XGID={START[:-1]}a:0:0:1:00:0:0:0:0:10", "bottom player's bar"),
    (f"XGID={START[:3]}P{START[4:]}:0:0:1:00:0:0:0:0:10", "checkers"),
    (f"XGID={START}:16:0:1:00:0:0:0:0:10", r"field 2 \(cube\) '16': must be in 0..15"),
    (f"XGID={START}:x:0:1:00:0:0:0:0:10", r"field 2 \(cube\) 'x': not a whole number"),
    (f"XGID={START}:0:2:1:00:0:0:0:0:10", r"field 3 \(cube owner\)"),
    (f"XGID={START}:0:0:0:00:0:0:0:0:10", r"field 4 \(turn\)"),
    (f"XGID={START}:0:0:1:70:0:0:0:0:10", r"field 5 \(dice\) '70'"),
    (f"XGID={START}:0:0:1:B:0:0:0:0:10", "beaver or raccoon"),
    (f"XGID={START}:0:0:1:00:8:0:0:7:10", r"field 6 \(bottom score\) '8': past the match length 7"),
    (f"XGID={START}:0:0:1:00:0:-1:0:7:10", r"field 7 \(top score\)"),
    (f"XGID={START}:0:0:1:00:0:0:2:7:10", r"field 8 \(rules\) '2': in a match it must be 0 or 1"),
    (f"XGID={START}:0:0:1:00:0:0:4:0:10", r"field 8 \(rules\) '4': must be in 0..3"),
    (f"XGID={START}:0:0:1:00:0:0:0:65:10", r"field 9 \(match length\) '65': must be in 0..64"),
    (f"XGID={START}:0:0:1:00:0:0:0:0:16", r"field 10 \(max cube\)"),
])
def test_bad_states_say_what_is_wrong(text, message):
    with pytest.raises(ValueError, match=message):
        GameState.from_string(text)


def test_states_an_xgid_cannot_hold():
    pos = Position.initial()
    with pytest.raises(ValueError, match="resignation"):
        GameState(pos, MatchState(player_on_roll=1, turn=0, resignation=2)).to_xgid()
    with pytest.raises(ValueError, match="Jacoby rule in a match"):
        GameState(pos, MatchState(match_length=5, jacoby=True)).to_xgid()
    with pytest.raises(ValueError, match="not one in state 'over'"):
        GameState(pos, MatchState(game_state=2)).to_xgid()
    with pytest.raises(ValueError, match="without a double"):
        GameState(pos, MatchState(player_on_roll=1, turn=0)).to_xgid()
    with pytest.raises(ValueError, match="beavers are a money-play rule"):
        GameState(pos, MatchState(match_length=5), beavers=True)
    with pytest.raises(ValueError, match="max_cube"):
        GameState(pos, max_cube=3)


# ------------------------------------------------------------------ live gnubg

_LIVE_SCRIPT = textwrap.dedent("""
    import sys
    import gnubg
    for c in ("set player 0 human", "set player 1 human", "new session"):
        gnubg.command(c)
    for line in sys.stdin:
        kind, text = line.split()
        gnubg.command(("set xgid " if kind == "x" else "set gnubgid ") + text)
        print("@@", gnubg.positionid(gnubg.board()) + ":" + gnubg.matchid(), flush=True)
""")


@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed")
def test_live_gnubg_reads_our_ids(tmp_path):
    """Random states written by bgengine as XGIDs and as PositionID:MatchID, read by a live
    gnubg (``set xgid``, ``set gnubgid``): gnubg then holds the same IDs.  Player 1 on roll and
    no double pending, so that gnubg's ``set`` commands keep the state as it is."""
    rng = np.random.default_rng(7)
    states = []
    while len(states) < 40:
        board = np.zeros((2, 25), dtype=np.uint8)
        for side in (1, 0):
            for _ in range(int(rng.integers(1, 16))):
                free = [i for i in range(24) if board[1 - side, 23 - i] == 0]
                board[side, int(rng.choice(free))] += 1
        length = int(rng.choice([0, 3, 7, 11]))
        score = (int(rng.integers(0, length)), int(rng.integers(0, length))) if length else (0, 0)
        cube = 1 << int(rng.integers(0, 5))
        dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7))) if rng.random() < 0.5 else (0, 0)
        ms = MatchState(match_length=length, score=score, cube=cube,
                        cube_owner=int(rng.integers(-1, 2)) if cube > 1 else -1,
                        player_on_roll=1, dice=dice, jacoby=bool(not length and rng.random() < 0.5))
        states.append(GameState(Position(board), ms))
    script = tmp_path / "live.py"
    script.write_text(_LIVE_SCRIPT)
    lines = []
    for s in states:
        lines += [f"x {s.to_xgid()}", f"g {s.to_gnubgid()}"]
    out = subprocess.run([GNUBG, "-t", "-q", "-p", str(script)], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    got = [line.split()[1] for line in out.stdout.splitlines() if line.startswith("@@")]
    assert len(got) == len(lines), out.stderr[-2000:]
    for i, s in enumerate(states):
        want = s.to_gnubgid()
        # gnubg keeps the dice in the order given; its Match ID stores the higher first
        assert got[2 * i] == want, (s.to_xgid(), got[2 * i])
        assert got[2 * i + 1] == want, (want, got[2 * i + 1])
