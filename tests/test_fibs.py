"""FIBS board lines: parsing, the position from the side on roll, writing them as gnubg does.

Expectations come from GNU Backgammon 1.07.001:

* ``SPEC_LINES``: board lines captured from gnubg 1.07 (see ``docs/gnubg-external.md`` §4)
  (gnubg as client), with the Position ID gnubg's own ``external`` server
  prints (``set debug on``) for the same line;
* ``GENERIC_LINES``: lines in every FIBS orientation (colour, direction and
  turn of either sign), the Position ID gnubg's server printed and the move it
  answered (in the mover's numbering);
* ``LIVE_*``: lines gnubg sent to an external player that was gnubg's player 1
  in a 25-point match, with the cube in use.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from bgengine.notation.fibs import FibsBoard, format_fibs_board, mover_board, move_reply, parse_fibs_board
from bgengine.notation.ids import MatchState, position_id
from bgengine.notation.moves import legal_move_notations, legal_moves, match_move
from bgengine.position import STARTING_BOARD

# (line as sent, incl. the NUL gnubg puts before every line after the first,
#  Position ID from the side on roll, decision, the reply in the capture)
SPEC_LINES = [
    ("board:ext:gnubg:0:0:0:0:-2:0:0:0:0:5:0:3:1:0:0:-5:4:0:0:0:-3:0:-5:0:0:0:1:1:0:-1:5:4:5:4:"
     "1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1", "4HPhASjgc/ABMA", "move", "13/8 8/4"),
    ("\0board:ext:gnubg:0:0:0:-1:-2:0:0:0:0:5:0:3:2:0:0:-4:3:0:0:0:-3:0:-5:0:1:0:1:0:0:-1:1:4:1:4:"
     "1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1", "4HPDARLgc/AAWA", "move", "bar/24 13/9"),
    ("\0board:ext:gnubg:0:0:0:-1:-4:1:2:2:2:3:3:2:0:0:0:0:0:0:0:0:0:0:0:0:-1:0:-5:-4:0:-1:6:5:6:5:"
     "1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1", "2nY3AADvEwAAXg", "move", ""),
    ("board:gnubg:external:0:0:0:0:-1:-1:0:0:0:5:0:3:0:0:0:-4:5:-1:0:0:-3:0:-5:0:0:0:0:2:0:1:6:5:6:5:"
     "1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1", "4HPkASjgc/ABMA", "move", "24/18 18/13"),
    ("board:gnubg:external:0:0:0:0:0:0:0:-2:0:5:3:3:0:0:0:-3:3:-1:-1:0:-2:-1:-5:0:0:0:0:0:1:1:4:3:4:3:"
     "1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1", "4GvKAQbgu4MDQA", "move", "bar/21 21/18*"),
    ("\0board:ext:gnubg:0:0:0:-1:-1:-1:0:2:0:4:0:3:-1:0:0:-4:4:0:0:1:-2:0:-5:0:1:0:0:0:0:-1:1:4:1:4:"
     "1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1", "mOfgEQTgM3gEVA", "move", "bar/24 8/4*"),
    ("\0board:gnubg:ext:0:0:0:0:-2:-1:0:2:0:4:0:3:-1:0:0:-4:4:0:0:1:-1:0:-5:0:-1:0:0:0:1:1:0:0:0:0:"
     "1:1:1:1:1:-1:0:25:0:0:0:0:0:0:0:1", "yCd4BDSY5+ARQA", "take", "take"),
    ("\0board:ext:gnubg:0:0:0:-1:-2:-1:0:2:0:4:0:3:-1:0:0:-4:4:0:0:1:1:0:-5:0:-1:0:0:0:0:-1:0:0:0:0:"
     "2:0:1:0:1:-1:0:25:0:0:0:0:0:0:0:1", "mOfgUQDIBzwCWg", "cube", "roll"),
    ("board:you:opp:0:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:3:1:0:0:"
     "1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1", "4HPwATDgc/ABMA", "move", "8/5 6/5"),
]

GENERIC_LINES = [
    ('board:you:opp:0:0:0:0:0:0:0:-1:-1:5:0:4:0:0:1:-3:3:0:0:-1:-2:-2:-2:-2:0:-1:1:0:1:1:4:6:4:6:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1',
     'ZNvCAQXg88gBSA', '25/21 11/5*'),
    ('board:you:opp:0:0:0:-1:0:1:1:-1:2:2:3:0:1:0:0:-3:3:-1:0:0:-3:0:-5:1:1:0:-1:0:0:-1:4:5:4:5:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1',
     'ynbCAQXC58gBQg', '25/21 21/16*'),
    ('board:you:opp:0:0:0:0:2:2:0:0:0:5:0:2:0:0:0:0:1:0:-2:0:0:0:-2:-3:2:-2:-4:-2:1:1:4:6:4:6:1:1:1:0:-1:1:25:0:0:0:0:0:0:0:0:1',
     'e3PDAAAbPoMAQw', '25/21 13/7'),
    ('board:you:opp:0:0:0:0:-2:-2:-2:0:0:-4:0:-1:0:0:0:0:0:0:1:0:0:0:0:1:-2:1:8:4:-2:-1:4:3:4:3:1:1:1:0:-1:-1:0:25:0:0:0:0:0:0:0:1',
     '71+CAADbeAKAYQ', '25/21 25/22*'),
    ('board:you:opp:0:0:0:0:-7:0:0:0:0:2:0:0:1:0:0:1:0:1:0:0:0:0:1:0:0:0:9:0:0:1:5:1:5:1:1:1:1:0:1:1:25:0:0:8:0:0:0:0:0:1',
     'fwAAAP5DkIgBAA', '19/14 13/12'),
    ('board:you:opp:0:0:0:0:1:0:0:0:0:-1:-1:0:0:0:0:-1:0:-1:0:-1:0:0:0:0:0:0:-9:-1:0:-1:5:1:5:1:1:1:1:0:-1:1:25:0:0:14:0:0:0:0:0:1',
     'AQAA9B+QBAUAAA', '19/14 18/17'),
    ('board:you:opp:0:0:0:0:-4:-6:-3:0:0:0:0:0:0:0:0:0:0:0:0:0:-1:0:-1:0:0:0:0:9:0:-1:6:1:6:1:1:1:1:0:1:1:25:0:6:0:0:0:0:0:0:1',
     '/wEAALzfAYAEAA', '19/13 13/12'),
    ('board:you:opp:0:0:0:0:-5:0:0:0:0:0:0:0:0:0:0:1:0:0:0:0:1:0:0:0:0:3:6:4:0:1:4:2:4:2:1:1:1:0:-1:-1:0:25:10:0:0:0:0:0:0:1',
     'HwAAwPsdBAEAAA', '13/9 8/6'),
]

LIVE_TAKE = 'board:root:gnubg:25:0:6:0:1:1:0:-1:0:4:0:2:1:0:0:-3:3:0:0:0:-4:0:-5:-2:3:0:0:0:0:-1:0:0:0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:0:1'
LIVE_CUBE = 'board:gnubg:root:25:6:0:0:1:1:0:0:0:4:0:2:0:0:0:-3:3:-1:0:0:-2:0:-5:-2:3:-2:0:0:1:1:0:0:0:0:2:1:0:0:1:-1:0:25:0:0:0:0:0:0:0:1'
LIVE_MOVE = 'board:gnubg:root:25:6:0:0:1:1:0:0:0:4:0:2:0:0:0:-3:3:-1:0:0:-2:0:-5:-2:3:-2:0:0:1:1:3:2:3:2:2:1:0:0:1:-1:0:25:0:0:0:0:0:0:0:1'
LIVE_MOVE_REPLY = 'bar/23 6/3'


# ---------------------------------------------------------------- parsing

@pytest.mark.parametrize("line, pid, decision, reply", SPEC_LINES)
def test_spec_captures(line, pid, decision, reply):
    fb = parse_fibs_board(line + "\n")
    board = fb.mover_board()
    assert board.dtype == np.uint8 and board.shape == (2, 25)
    assert position_id(board) == pid
    np.testing.assert_array_equal(mover_board(fb), board)
    assert fb.decision == decision
    if decision == "move":
        d1, d2 = fb.roll
        notations = legal_move_notations(board, d1, d2)
        index = match_move(board, d1, d2, reply)       # the reply gnubg accepted
        if reply == "":
            assert notations == [""]
        else:
            assert notations[index]


def test_fields_of_a_spec_line():
    fb = parse_fibs_board(SPEC_LINES[0][0])
    assert (fb.player, fb.opponent) == ("ext", "gnubg")
    assert (fb.match_length, fb.player_score, fb.opponent_score) == (0, 0, 0)
    assert len(fb.board) == 26 and fb.board[0] == 0 and fb.board[1] == -2 and fb.board[6] == 5
    assert fb.turn == -1 and fb.dice == (5, 4) and fb.opponent_dice == (5, 4)
    assert (fb.cube, fb.may_double, fb.opponent_may_double, fb.was_doubled) == (1, 1, 1, 0)
    assert (fb.colour, fb.direction, fb.home, fb.bar) == (1, -1, 0, 25)
    assert (fb.on_home, fb.opponent_on_home, fb.on_bar, fb.opponent_on_bar) == (0, 0, 0, 0)
    assert (fb.can_move, fb.forced_move, fb.did_crawford, fb.redoubles) == (0, 0, 0, 1)
    assert fb.is_money and not fb.doubled
    assert fb.to_line() == SPEC_LINES[0][0] == str(fb)


def test_spec_line_4_1_board():
    # gnubg (player 1) opened 41 with 13/9 24/23; ext (player 0) is on roll
    board = parse_fibs_board(SPEC_LINES[0][0]).mover_board()
    np.testing.assert_array_equal(board[1], STARTING_BOARD[1])
    opp = STARTING_BOARD[0].copy()
    opp[12] -= 1; opp[8] += 1; opp[23] -= 1; opp[22] += 1
    np.testing.assert_array_equal(board[0], opp)


def test_double_answered_by_the_side_not_on_roll():
    fb = parse_fibs_board(SPEC_LINES[6][0])              # gnubg doubles ext
    assert fb.doubled and fb.decision == "take" and fb.roll == (0, 0)
    assert position_id(fb.mover_board()) == "yCd4BDSY5+ARQA"
    # what gnubg's server shows for this line: the position of the side answering
    assert position_id(fb.decider_board()) == "mOfgEUDIJ3gENA"
    ms = fb.match_state()
    assert (ms.player_on_roll, ms.turn, ms.double_offered, ms.cube) == (1, 0, True, 1)


def test_cube_owned_after_the_take():
    ms = parse_fibs_board(SPEC_LINES[7][0]).match_state()
    assert (ms.cube, ms.cube_owner, ms.player_on_roll, ms.dice) == (2, 0, 0, (0, 0))


@pytest.mark.parametrize("line, pid, reply", GENERIC_LINES)
def test_every_fibs_orientation(line, pid, reply):
    fb = parse_fibs_board(line)
    board = fb.mover_board()
    assert position_id(board) == pid
    d1, d2 = fb.roll
    assert legal_move_notations(board, d1, d2)[match_move(board, d1, d2, reply)]


def test_live_capture_external_is_player_1():
    # gnubg (player 0, 6 points) doubles; external (player 1, 0 points) must answer:
    # names and scores come with player 1 first, turn is -1 (player 0 on roll)
    fb = parse_fibs_board(LIVE_TAKE)
    assert (fb.player, fb.opponent, fb.player_score, fb.opponent_score) == ("root", "gnubg", 0, 6)
    assert fb.turn == -1 and fb.was_doubled == 1 and fb.decision == "take"
    ms = fb.match_state()
    assert ms == MatchState(match_length=25, score=(6, 0), player_on_roll=0, turn=1,
                            double_offered=True)
    # external owns the cube at 2: only player 1 may double
    cube = parse_fibs_board(LIVE_CUBE)
    assert cube.decision == "cube" and (cube.may_double, cube.opponent_may_double) == (1, 0)
    assert cube.match_state().cube_owner == 1 and cube.match_state().cube == 2
    move = parse_fibs_board(LIVE_MOVE)
    assert move.decision == "move" and move.turn == 1
    board = move.mover_board()
    d1, d2 = move.roll
    match_move(board, d1, d2, LIVE_MOVE_REPLY)


# ---------------------------------------------------------------- writing

def _names(fb: FibsBoard) -> tuple[str, str]:
    """(player 0, player 1) names from a gnubg-written line."""
    return (fb.opponent, fb.player) if fb.doubled else (fb.player, fb.opponent)


@pytest.mark.parametrize("line", [c[0].replace("\0", "") for c in SPEC_LINES[:-1]]
                         + [LIVE_TAKE, LIVE_CUBE, LIVE_MOVE])
def test_format_reproduces_gnubgs_lines(line):
    fb = parse_fibs_board(line)
    assert format_fibs_board(fb.mover_board(), fb.match_state(), names=_names(fb)) == line


def test_format_crawford_fields():
    b = STARTING_BOARD
    crawford = MatchState(match_length=5, score=(0, 4), crawford=True, dice=(3, 1))
    line = format_fibs_board(b, crawford, names=("external", "gnubg"))
    assert line.startswith("board:external:gnubg:5:0:4:") and line.endswith(":0:0")
    assert parse_fibs_board(line).match_state() == crawford
    post = MatchState(match_length=5, score=(1, 4), dice=(3, 1))
    line = format_fibs_board(b, post, names=("external", "gnubg"))
    assert line.endswith(":1:1")
    assert parse_fibs_board(line).match_state() == post
    early = MatchState(match_length=5, score=(0, 2))
    assert format_fibs_board(b, early).endswith(":0:1")
    assert format_fibs_board(b).startswith("board:player0:player1:0:0:0:")


def test_format_replaces_colons_in_names():
    line = format_fibs_board(STARTING_BOARD, names=("a:b", "c"))
    assert line.startswith("board:a_b:c:") and len(line.split(":")) == 53


@st.composite
def boards_and_states(draw):
    board = np.zeros((2, 25), dtype=np.uint8)
    for slot in draw(st.lists(st.integers(0, 24), max_size=15)):
        board[1, slot] += 1
    allowed = [i for i in range(25) if i == 24 or board[1, 23 - i] == 0]
    for slot in draw(st.lists(st.sampled_from(allowed), max_size=15)):
        board[0, slot] += 1
    if not board.any():
        board[1, 0] = 1             # both sides borne off is no position
    if board[:, 24].all() and (board[:, :6] >= 2).all():
        board[0, 24] = 0            # nor both on the bar against closed boards
    length = draw(st.sampled_from([0, 0, 1, 3, 5, 7, 11]))
    score = ((draw(st.integers(0, length - 1)), draw(st.integers(0, length - 1))) if length
             else (draw(st.integers(0, 50)), draw(st.integers(0, 50))))
    crawford = bool(length) and length - max(score) == 1 and draw(st.booleans())
    cube = 1 if crawford else 1 << draw(st.integers(0, 6))
    owner = -1 if cube == 1 else draw(st.sampled_from([0, 1]))
    on_roll = draw(st.integers(0, 1))
    doubled = not crawford and draw(st.booleans())
    dice = (0, 0) if doubled or draw(st.booleans()) else (draw(st.integers(1, 6)),
                                                           draw(st.integers(1, 6)))
    state = MatchState(match_length=length, score=score, cube=cube, cube_owner=owner,
                       player_on_roll=on_roll, turn=(1 - on_roll) if doubled else on_roll,
                       crawford=crawford, double_offered=doubled, dice=dice)
    return board, state


@settings(max_examples=300, deadline=None)
@given(boards_and_states())
def test_round_trip(case):
    board, state = case
    line = format_fibs_board(board, state, names=("zero", "one"))
    fb = parse_fibs_board(line)
    np.testing.assert_array_equal(fb.mover_board(), board)
    assert fb.match_state() == state
    assert fb.to_line() == line
    assert _names(fb) == ("zero", "one")
    assert fb.decision == ("take" if state.double_offered else "move" if state.dice[0] else "cube")


# ---------------------------------------------------------------- bad lines

GOOD = SPEC_LINES[0][0]


def _with_field(index: int, value: str) -> str:
    parts = GOOD.split(":")
    parts[index + 1] = value          # index counts the fields after "board:"
    return ":".join(parts)


@pytest.mark.parametrize("line, message", [
    ("", "must start with 'board:'"),
    ("hello", "must start with 'board:'"),
    ("board:a:b:1:2:3", "52 fields after 'board:'.*got 5"),
    (GOOD + ":0", "52 fields"),
    (GOOD.rsplit(":", 1)[0], "52 fields"),
    (_with_field(7, "x"), r"field 8 \(board\[2\]\) is not an integer: 'x'"),
    (_with_field(2, "1.5"), r"field 3 \(match length\) is not an integer"),
    (_with_field(31, ""), r"field 32 \(turn\) is not an integer"),
    (_with_field(7, "-9"), "impossible board: the other side has 24 checkers"),
    (_with_field(16, "9"), "impossible board: the colour side has 24 checkers"),
    (_with_field(44, "3"), "impossible checker counts: the colour side has 15 checkers in play and 3 borne off"),
    (_with_field(45, "-1"), "impossible checker counts"),
    (_with_field(31, "0"), "turn must be 1 or -1"),
    (_with_field(40, "0"), "colour must be 1 or -1"),
    (_with_field(41, "2"), "direction must be 1 or -1"),
    (_with_field(32, "7"), "dice must be two dice"),
    (_with_field(32, "0"), "dice must be two dice"),
    (_with_field(35, "9"), "opponent dice must be two dice"),
    (_with_field(36, "3"), "power of two"),
    (_with_field(2, "5").replace("board:ext:gnubg:5:0:0", "board:ext:gnubg:5:5:0"), "not below the match length"),
    (_with_field(3, "-1"), "must not be negative"),
])
def test_malformed_lines(line, message):
    with pytest.raises(ValueError, match=message):
        parse_fibs_board(line)


def test_parse_needs_a_string():
    with pytest.raises(ValueError, match="string"):
        parse_fibs_board(b"board:")


def test_fibs_money_9999():
    line = _with_field(2, "9999")
    fb = parse_fibs_board(line)
    assert fb.is_money and fb.match_state().match_length == 0


# ---------------------------------------------------------------- replies

def test_move_reply():
    assert move_reply([(25, 24), (13, 9)]) == "bar/24 13/9"
    assert move_reply([(13, 9), (25, 24)]) == "bar/24 13/9"
    assert move_reply([(6, 0), (5, 0)]) == "6/off 5/off"
    assert move_reply([]) == ""
    assert move_reply(np.array([[8, 5], [6, 5], [-1, -1], [-1, -1]])) == "8/5 6/5"
    fb = parse_fibs_board(SPEC_LINES[4][0])               # bar/21 21/18* for 43
    board = fb.mover_board()
    assert move_reply([(25, 21), (21, 18)], board) == "bar/21 21/18*"


@pytest.mark.parametrize("line, pid, decision, reply", [c for c in SPEC_LINES if c[2] == "move"])
def test_every_reply_is_understood(line, pid, decision, reply):
    board = parse_fibs_board(line).mover_board()
    d1, d2 = parse_fibs_board(line).roll
    for i, (steps, text, after) in enumerate(legal_moves(board, d1, d2)):
        assert match_move(board, d1, d2, move_reply(steps, board)) == i
