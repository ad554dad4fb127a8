"""Position IDs and Match IDs against GNU Backgammon 1.07.

The literal expectations below were produced by the installed gnubg
(``gnubg.positionid``, ``gnubg.matchid(cubeinfo, posinfo)`` and the IDs gnubg
displays); see the report of the change that added them.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from bgengine.notation.ids import (
    GAME_DROP, GAME_OVER, GAME_PLAYING, GAME_RESIGNED, MatchState,
    board_from_position_id, match_id, match_state_from_id, position_id,
)
from bgengine.position import STARTING_BOARD, Position

# (Position ID, row 0, row 1): gnubg.positionid((row0, row1)) == ID
KNOWN_POSITION_IDS = [
    ('wevgATDCZ/ABRA',
     [1, 0, 0, 0, 0, 4, 1, 3, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0],
     [0, 1, 0, 0, 0, 5, 0, 2, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1]),
    ('1fkIAyC2LcEDQA',
     [1, 1, 1, 3, 0, 5, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0],
     [0, 2, 2, 2, 2, 1, 0, 1, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
    ('Fn8JAFEWnyMEIg',
     [0, 2, 1, 0, 0, 7, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1],
     [0, 2, 1, 0, 0, 5, 0, 3, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0]),
    ('vxIY4Ai/BCJ5AA',
     [6, 1, 1, 0, 1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 1, 0, 0, 0],
     [6, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0]),
    ('/xYAAPD9PAAAAA',
     [8, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
     [5, 6, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
    ('pwMKMiX+R4IBEA',
     [3, 0, 1, 3, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 2, 0, 1, 1, 0, 1, 0],
     [0, 10, 0, 0, 1, 0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0]),
    ('yHPiATDIc/ABKA',
     [0, 0, 0, 1, 0, 4, 0, 3, 0, 1, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0],
     [0, 0, 0, 1, 0, 4, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0]),
    ('Sx0RkRifAAAAAA',
     [2, 1, 0, 1, 1, 3, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 2, 0, 0],
     [5, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
    ('/8AArAL+AQAAAA',
     [8, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 1, 1, 0, 0, 0, 0, 0],
     [0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
    ('+yMAAHgDRgjEAw',
     [2, 7, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
     [4, 2, 0, 0, 0, 0, 0, 0, 2, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 4]),
]

# gnubg.matchid(gnubg.cubeinfo(cube, owner, fMove, length, score, crawford, 0),
#               gnubg.posinfo(fTurn, resigned, doubled, gamestate, dice))
# fields: (length, score, cube, owner, on_roll, turn, crawford, state, doubled, resign, dice)
KNOWN_MATCH_IDS = [
    ('sBhgABAACAAE', (3, (1, 1), 1, -1, 0, 1, 1, 0, 1, 0, (0, 0))),
    ('UhKgAEAAGAAE', (5, (4, 3), 4, 1, 1, 0, 0, 2, 1, 0, (0, 0))),
    ('sASgAEAAEAAE', (5, (4, 2), 1, -1, 0, 0, 1, 4, 0, 0, (0, 0))),
    ('QQg3AzABMAAE', (25, (19, 6), 2, 0, 1, 1, 0, 0, 0, 0, (5, 6))),
    ('sCluABAAAAAE', (3, (1, 0), 1, -1, 0, 1, 1, 1, 0, 1, (4, 3))),
    ('sAEgASAAMAAE', (9, (2, 6), 1, -1, 0, 0, 1, 1, 0, 0, (0, 0))),
    ('EyrmAGAACAAE', (7, (6, 1), 8, 1, 0, 1, 0, 2, 0, 1, (4, 1))),
    ('sGugAbAAEAAE', (13, (11, 2), 1, -1, 0, 1, 1, 3, 0, 3, (0, 0))),
    ('cEHgACAAEAAE', (7, (2, 2), 1, -1, 1, 0, 0, 1, 0, 2, (0, 0))),
    ('sCjgADAAGAAE', (7, (3, 3), 1, -1, 0, 1, 1, 0, 0, 1, (0, 0))),
    ('8BTnADAACAAE', (7, (3, 1), 1, -1, 1, 0, 1, 4, 1, 0, (1, 6))),
    ('EwMTCCAAcAEE', (64, (2, 46), 8, 1, 0, 0, 0, 3, 0, 0, (4, 6))),
    ('UyFgAAAACAAE', (3, (0, 1), 8, 1, 1, 0, 0, 1, 0, 1, (0, 0))),
    ('UQwgA9AAuAAE', (25, (13, 23), 2, 1, 1, 1, 0, 4, 0, 0, (0, 0))),
    ('8GPgADAAIAAE', (7, (3, 4), 1, -1, 1, 0, 1, 3, 0, 3, (0, 0))),
    ('MAIACOACsAEE', (64, (46, 54), 1, -1, 0, 0, 0, 2, 0, 0, (0, 0))),
    ('sABgACAAEAAE', (3, (2, 2), 1, -1, 0, 0, 1, 0, 0, 0, (0, 0))),
    ('sAEyAAAAAAAE', (1, (0, 0), 1, -1, 0, 0, 1, 1, 0, 0, (4, 4))),
    ('MAClAEAAAAAE', (5, (4, 0), 1, -1, 0, 0, 0, 0, 0, 0, (1, 2))),
    ('Q+HlAGAAAAAE', (7, (6, 0), 8, 0, 1, 0, 0, 1, 0, 3, (3, 1))),
    ('sAEGCKAAiAAE', (64, (10, 17), 1, -1, 0, 0, 1, 1, 0, 0, (4, 1))),
    ('U2G3AZAAUAAE', (13, (9, 10), 8, 1, 1, 0, 0, 1, 0, 3, (6, 5))),
    ('Qwq3AVAAWAAE', (13, (5, 11), 8, 0, 1, 1, 0, 2, 0, 0, (6, 5))),
    ('UwkgA5AAMAAE', (25, (9, 6), 8, 1, 1, 1, 0, 1, 0, 0, (0, 0))),
    ('EQHqAEAAEAAE', (7, (4, 2), 2, 1, 0, 0, 0, 1, 0, 0, (2, 4))),
    ('QQkgAAAAAAAE', (1, (0, 0), 2, 0, 1, 1, 0, 1, 0, 0, (0, 0))),
    ('cCG7ASAAUAAE', (13, (2, 10), 1, -1, 1, 0, 0, 1, 0, 1, (6, 6))),
    ('MGkgA1AASAAE', (25, (5, 9), 1, -1, 0, 1, 0, 1, 0, 3, (0, 0))),
    ('EuqpAUAAIAAE', (13, (4, 4), 4, 1, 0, 1, 0, 2, 0, 3, (3, 2))),
]


# gnubg-displayed Match IDs (``show``/board output) and what they hold.
GNUBG_DISPLAYED = [
    # the spec's server capture: money, X (player 1) on roll with 31, Jacoby on
    ("cIkFAAAAAAAA", MatchState(player_on_roll=1, dice=(3, 1))),
    # ``new match 5``: gnubg 1.07 sets bit 66 (no Jacoby) in matches
    ("cAmgAAAAAAAE", MatchState(match_length=5, player_on_roll=1)),
    # money session after ``set jacoby off``, player 1 rolled 21
    ("cAkFAAAAAAAE", MatchState(player_on_roll=1, dice=(2, 1), jacoby=False)),
    # the gnubg manual's example: 9-point match, 2-4, cube 2 owned by player 0, 52 rolled
    ("QYkqASAAIAAA", MatchState(match_length=9, score=(2, 4), cube=2, cube_owner=0,
                                player_on_roll=1, dice=(5, 2), jacoby=True)),
    # accepted by ``set matchid`` and shown back unchanged: money score 21-15
    ("cAkAAFABeAAA", MatchState(score=(21, 15), player_on_roll=1)),
    # gnubg.matchid(cubeinfo(1, -1, 0, 0, (0, 0), 0, 0), posinfo(0, 2, 1, 3, (0, 0)))
    ("MFMAAAAAAAAA", MatchState(game_state=GAME_RESIGNED, double_offered=True, resignation=2)),
    # cubeinfo fMove=1 / posinfo turn=0, and the reverse
    ("cIEFAAAAAAAA", MatchState(player_on_roll=1, turn=0, dice=(3, 1))),
    ("MIkFAAAAAAAA", MatchState(player_on_roll=0, turn=1, dice=(3, 1))),
]


# ---------------------------------------------------------------- Position ID

def test_starting_position():
    assert position_id(STARTING_BOARD) == "4HPwATDgc/ABMA"
    b = board_from_position_id("4HPwATDgc/ABMA")
    assert b.dtype == np.uint8 and b.shape == (2, 25)
    np.testing.assert_array_equal(b, STARTING_BOARD)


@pytest.mark.parametrize("pid, row0, row1", KNOWN_POSITION_IDS)
def test_known_position_ids(pid, row0, row1):
    board = np.array([row0, row1], dtype=np.uint8)
    assert position_id(board) == pid
    np.testing.assert_array_equal(board_from_position_id(pid), board)


def test_row_order_is_gnubgs():
    # row 0 (the side not on roll) is encoded first, as gnubg's anBoard[0]
    b = np.zeros((2, 25), dtype=np.uint8)
    b[0, 0] = 15                 # opponent: all on its 1-point
    b[1, 24], b[1, 5] = 1, 14    # on roll: one on the bar, 14 on the 6-point
    assert position_id(b) == "/38AAADg/wcAQA"     # gnubg.positionid((row0, row1))
    assert position_id(b[::-1]) != "/38AAADg/wcAQA"


def test_empty_and_full_boards():
    # both sides borne off cannot happen (the game ends when the first side finishes):
    # neither encoded nor decoded, like every position validate_board rejects
    empty = np.zeros((2, 25), dtype=np.uint8)
    with pytest.raises(ValueError, match="both sides have borne off"):
        position_id(empty)
    with pytest.raises(ValueError, match="AAAAAAAAAAAAAA.*both sides have borne off"):
        board_from_position_id("AAAAAAAAAAAAAA")
    with pytest.raises(ValueError, match="both sides have borne off"):
        Position.from_id("AAAAAAAAAAAAAA")
    one_left = empty.copy()
    one_left[0, 0] = 1          # the side not on roll has a checker left: the game is over
    assert board_from_position_id(position_id(one_left))[0, 0] == 1
    bars = np.zeros((2, 25), dtype=np.uint8)
    bars[:, 24] = 15
    assert board_from_position_id(position_id(bars))[1, 24] == 15


@st.composite
def legal_boards(draw):
    """Random legal positions: up to 15 checkers a side, no shared point."""
    board = np.zeros((2, 25), dtype=np.uint8)
    for slot in draw(st.lists(st.integers(0, 24), max_size=15)):
        board[1, slot] += 1
    allowed = [i for i in range(25) if i == 24 or board[1, 23 - i] == 0]
    for slot in draw(st.lists(st.sampled_from(allowed), max_size=15)):
        board[0, slot] += 1
    closed = (board[0, :6] >= 2).all() and (board[1, :6] >= 2).all()
    if closed and board[0, 24] and board[1, 24]:
        board[0, 24] = 0      # gnubg rejects both sides dancing against closed boards
    if not board.any():
        board[1, 0] = 1       # both sides borne off: impossible
    return board


@settings(max_examples=400, deadline=None)
@given(legal_boards())
def test_position_id_round_trip(board):
    pid = position_id(board)
    assert len(pid) == 14 and pid[13] in "AQgw"
    back = board_from_position_id(pid)
    np.testing.assert_array_equal(back, board)
    assert position_id(back) == pid


def test_position_id_accepts_lists_and_validates():
    assert position_id(STARTING_BOARD.tolist()) == "4HPwATDgc/ABMA"
    with pytest.raises(ValueError, match="16 checkers"):
        position_id([[0] * 25, [16] + [0] * 24])
    with pytest.raises(ValueError, match="shape"):
        position_id(np.zeros((2, 24)))


@pytest.mark.parametrize("pid, message", [
    ("", "14 characters"),
    ("4HPwATDgc/ABM", "14 characters"),
    ("4HPwATDgc/AB", "14 characters"),          # gnubg decodes this; we do not
    ("4HPwATDgc/ABMAA", "14 characters"),
    ("4HPwATDgc/AB!A", "invalid character '!' at position 13"),
    ("4HPwATDgc/AB=A", "invalid character"),
    ("4HPwATDgc AB A", "invalid character ' '"),
    ("4HPwATDgc/ABMB", "unused bits"),          # gnubg ignores these bits; we do not
    ("4HPwATDgc/ABMQ", "more than 30 checkers"),  # one bit too many (gnubg: invalid)
    ("//////////////", "unused bits"),
    ("/////////////w", "more than 30 checkers"),
    ("/////AAAAAAAAA", r"not on roll\) has 30 checkers"),   # gnubg: invalid
    ("+HPwATDgc/ABMA", "checkers"),             # gnubg: invalid
    ("AAAAAAAAAAAAAw", "after the end"),        # empty board, then stray bits
])
def test_bad_position_ids(pid, message):
    with pytest.raises(ValueError, match=message):
        board_from_position_id(pid)


def test_position_id_both_sides_on_one_point():
    # side on roll on its 24-point (slot 23) and the opponent on its 1-point (slot 0)
    key = 0
    bit = 0
    for n in [1] + [0] * 24 + [0] * 23 + [1, 0]:
        key |= ((1 << n) - 1) << bit
        bit += n + 1
    import base64
    pid = base64.b64encode(key.to_bytes(10, "little")).decode()[:14]
    with pytest.raises(ValueError, match="point 24 of the side on roll holds checkers of both"):
        board_from_position_id(pid)


def test_position_id_closed_boards_with_both_on_bar():
    b = np.zeros((2, 25), dtype=np.uint8)
    b[:, :6] = 2
    b[:, 10] = 2
    b[:, 24] = 1
    with pytest.raises(ValueError, match="closed boards"):
        position_id(b)            # neither side could ever move: not a valid position
    import base64
    from bgengine.notation.ids import position_key
    pid = base64.b64encode(position_key(b)).decode()[:14]   # gnubg's positionfromid rejects it too
    with pytest.raises(ValueError, match="closed boards"):
        board_from_position_id(pid)
    with pytest.raises(ValueError, match="closed boards"):
        Position.from_id(pid)


@pytest.mark.parametrize("bad", [None, 12345, b"4HPwATDgc/ABMA"])
def test_position_id_must_be_a_string(bad):
    with pytest.raises(ValueError, match="string"):
        board_from_position_id(bad)


def test_position_id_is_fast_enough():
    import time
    b = STARTING_BOARD
    t0 = time.perf_counter()
    for _ in range(2000):
        board_from_position_id(position_id(b))
    assert time.perf_counter() - t0 < 2.0


# ---------------------------------------------------------------- Match ID

@pytest.mark.parametrize("mid, fields", KNOWN_MATCH_IDS)
def test_known_match_ids(mid, fields):
    length, score, cube, owner, on_roll, turn, crawford, state, doubled, resign, dice = fields
    ms = MatchState(match_length=length, score=score, cube=cube, cube_owner=owner,
                    player_on_roll=on_roll, turn=turn, crawford=bool(crawford),
                    game_state=state, double_offered=bool(doubled), resignation=resign,
                    dice=dice)
    assert match_id(ms) == mid
    back = match_state_from_id(mid)
    assert back == ms if dice[0] >= dice[1] else back == _with_dice(ms, dice[::-1])


def _with_dice(ms, dice):
    from dataclasses import replace
    return replace(ms, dice=tuple(dice))


@pytest.mark.parametrize("mid, state", GNUBG_DISPLAYED)
def test_gnubg_displayed_match_ids(mid, state):
    assert match_id(state) == mid
    assert match_state_from_id(mid) == state
    assert state.match_id == mid


def test_dice_are_stored_higher_first():
    # gnubg writes the higher die first, and decodes either order as given
    assert match_id(MatchState(player_on_roll=1, dice=(1, 3))) == "cIkFAAAAAAAA"
    low_first = "cIkMAAAAAAAA"                       # gnubg: 'set matchid' -> dice 1 and 3
    assert match_state_from_id(low_first).dice == (1, 3)
    assert match_id(match_state_from_id(low_first)) == "cIkFAAAAAAAA"


def test_defaults_and_properties():
    ms = MatchState()
    assert (ms.match_length, ms.score, ms.cube, ms.cube_owner) == (0, (0, 0), 1, -1)
    assert ms.turn == ms.player_on_roll == ms.dice_owner == 0
    assert ms.game_state == GAME_PLAYING and ms.game_state_name == "playing"
    assert ms.jacoby is True and ms.is_money
    assert MatchState(match_length=7).jacoby is False
    assert MatchState(player_on_roll=1).turn == 1
    with pytest.raises(Exception):
        ms.cube = 2                                   # frozen


@st.composite
def match_states(draw):
    length = draw(st.sampled_from([0, 0, 1, 3, 5, 7, 11, 25, 64]))
    top = length if length else 0x7FFF
    score = (draw(st.integers(0, top)), draw(st.integers(0, top)))
    cube = 1 << draw(st.integers(0, 15))
    rolled = draw(st.booleans())
    dice = (draw(st.integers(1, 6)), draw(st.integers(1, 6))) if rolled else (0, 0)
    return MatchState(
        match_length=length, score=score, cube=cube,
        cube_owner=draw(st.sampled_from([-1, 0, 1])),
        player_on_roll=draw(st.integers(0, 1)), turn=draw(st.integers(0, 1)),
        crawford=draw(st.booleans()) if length else False,
        game_state=draw(st.integers(0, 4)), double_offered=draw(st.booleans()),
        resignation=draw(st.integers(0, 3)), dice=dice, jacoby=draw(st.booleans()),
    )


@settings(max_examples=400, deadline=None)
@given(match_states())
def test_match_id_round_trip(ms):
    mid = match_id(ms)
    assert len(mid) == 12
    back = match_state_from_id(mid)
    assert back == _with_dice(ms, sorted(ms.dice, reverse=True))
    assert match_id(back) == mid


@pytest.mark.parametrize("mid, message", [
    ("", "12 characters"),
    ("cIkFAAAAAAA", "12 characters"),
    ("cIkFAAAAAAAAA", "12 characters"),
    ("cIkFAAAA!AAA", "invalid character '!' at position 9"),
    ("cIkFAAAAAAAI", "unused bits"),
    ("cIkFAAAAAAA/", "unused bits"),
    ("YIkFAAAAAAAA", "cube owner"),               # owner code 2
    ("MAUAAAAAAAAA", "game state 5"),             # game states are 0..4
    ("MIEHAAAAAAAA", "invalid die 7"),
    ("cAkEAAAAAAAA", "only one die"),
    ("cAkgCAAAAAAA", "longer than 64"),
    ("QYkqASAAIAAB", "past the match length"),    # gnubg: "Illegal match ID"
    ("8IkFAAAAAAAA", "Crawford"),                 # Crawford flag in money play
])
def test_bad_match_ids(mid, message):
    with pytest.raises(ValueError, match=message):
        match_state_from_id(mid)


@pytest.mark.parametrize("kwargs, message", [
    (dict(match_length=65), "match_length"),
    (dict(match_length=-1), "match_length"),
    (dict(match_length=5, score=(5, 6)), "score"),
    (dict(score=(1,)), "pair"),
    (dict(cube=3), "power of two"),
    (dict(cube=1 << 16), "power of two"),
    (dict(cube=0), "power of two"),
    (dict(cube_owner=2), "cube_owner"),
    (dict(player_on_roll=2), "player_on_roll"),
    (dict(turn=-1), "turn"),
    (dict(crawford=True), "money"),
    (dict(game_state=5), "game_state"),
    (dict(resignation=4), "resignation"),
    (dict(dice=(3, 0)), "dice"),
    (dict(dice=(7, 1)), "dice"),
    (dict(dice=(1.0, 2)), "integer"),
    (dict(double_offered=2), "double_offered"),
])
def test_bad_match_states(kwargs, message):
    with pytest.raises(ValueError, match=message):
        MatchState(**kwargs)


def test_match_id_needs_a_match_state():
    with pytest.raises(ValueError, match="MatchState"):
        match_id({"cube": 1})
    with pytest.raises(ValueError, match="string"):
        match_state_from_id(None)


def test_game_states_round_trip():
    for gs in (GAME_PLAYING, GAME_OVER, GAME_RESIGNED, GAME_DROP):
        ms = MatchState(game_state=gs)
        assert match_state_from_id(match_id(ms)).game_state == gs
