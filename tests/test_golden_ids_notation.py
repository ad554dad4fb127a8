"""Position IDs, Match IDs and move notation agree with GNU Backgammon's golden data.

The data (tests/data/gnubg/, made by make_golden.py inside gnubg 1.07) hold
gnubg's Position ID of each position and of every afterstate, gnubg's
notation of every legal play, and 1095 Match IDs with the fields gnubg
decoded.  The afterstate sets themselves are checked in test_golden_movegen.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from bgengine.notation.ids import MatchState, board_from_position_id, match_id, match_state_from_id, position_id
from bgengine.notation.moves import legal_moves, match_move
from golden import load_match_ids, load_movegen_golden

POSITIONS = load_movegen_golden()


def test_position_ids_of_positions():
    for pos in POSITIONS:
        assert position_id(pos.board) == pos.pid
        np.testing.assert_array_equal(board_from_position_id(pos.pid), pos.board)


def test_position_ids_of_afterstates():
    """Every 4th position, all 21 rolls: our ID of each afterstate is gnubg's."""
    checked = 0
    for pos in POSITIONS[::4]:
        for roll in pos.rolls.values():
            for pid, after in zip(roll.pids, roll.afterstates):
                assert position_id(after) == pid
                checked += 1
    assert checked > 150_000


def test_notation_of_every_legal_play():
    """Every 3rd position, all 21 rolls: for each afterstate, our notation of
    our canonical sequence is exactly the text gnubg's hint prints."""
    checked = 0
    for pos in POSITIONS[::3]:
        for key, roll in pos.rolls.items():
            d1, d2 = int(key[0]), int(key[1])
            ours = {after.tobytes(): text for _, text, after in legal_moves(pos.board, d1, d2)}
            if not roll.pids:  # no legal play
                assert list(ours.values()) == [""], (pos.pid, key)
                continue
            theirs = {a.tobytes(): t for a, t in zip(roll.afterstates, roll.notations)}
            assert ours == theirs, (pos.pid, key)
            checked += len(theirs)
    assert checked > 250_000


def test_gnubg_notation_parses_back_to_its_play():
    """gnubg's own text for a play, fed to our parser, picks that very play."""
    for pos in POSITIONS[::25]:
        for key, roll in pos.rolls.items():
            d1, d2 = int(key[0]), int(key[1])
            order = [after.tobytes() for _, _, after in legal_moves(pos.board, d1, d2)]
            for text, after in zip(roll.notations, roll.afterstates):
                assert order[match_move(pos.board, d1, d2, text)] == after.tobytes(), (pos.pid, key, text)


MATCH_RECORDS = load_match_ids()


@pytest.mark.parametrize("rec", MATCH_RECORDS, ids=[r["matchid"] for r in MATCH_RECORDS])
def test_match_id(rec):
    state = match_state_from_id(rec["matchid"])
    assert state.match_length == rec["matchto"]
    assert tuple(state.score) == tuple(rec["score"])
    assert state.cube == rec["cube"]
    assert state.cube_owner == rec["cubeowner"]
    assert state.player_on_roll == rec["move"]
    assert state.turn == rec["turn"]
    assert bool(state.crawford) == bool(rec["crawford"])
    assert state.game_state == rec["gamestate"]
    assert bool(state.double_offered) == bool(rec["doubled"])
    assert state.resignation == rec["resigned"]
    assert tuple(state.dice) == tuple(rec["dice"])
    assert bool(state.jacoby) == bool(rec["jacoby"])
    # and back: the same fields encode to gnubg's ID
    again = MatchState(match_length=rec["matchto"], score=tuple(rec["score"]), cube=rec["cube"],
                       cube_owner=rec["cubeowner"], player_on_roll=rec["move"], turn=rec["turn"],
                       crawford=bool(rec["crawford"]), game_state=rec["gamestate"],
                       double_offered=bool(rec["doubled"]), resignation=rec["resigned"],
                       dice=tuple(rec["dice"]), jacoby=bool(rec["jacoby"]))
    assert match_id(again) == rec["matchid"]
