"""A roll played step by step (bgengine.protocols.web.steps): exactly the move generator's plays."""

from __future__ import annotations

import numpy as np
import pytest

from bgengine.core.movegen import legal_afterstates
from bgengine.position import Position
from bgengine.protocols.web.steps import TurnSteps, apply_step, die_steps
from game_positions import board_from_points, random_positions, start_board


def _complete_boards(turn: TurnSteps) -> set[bytes]:
    """Every board where some order of allowed steps ends (each checked complete)."""
    reached: set[bytes] = set()

    def walk() -> None:
        if turn.complete:
            assert not turn.next_steps()
            reached.add(turn.board.tobytes())
            return
        allowed = turn.next_steps()
        assert allowed, "a dead end: steps allowed that lead to no legal play"
        for step, _ in allowed:
            turn.step(step)
            walk()
            assert turn.undo()

    walk()
    return reached


@pytest.mark.parametrize("board", random_positions(2, seed=7, every=9)[:12]
                         + [start_board()], ids=lambda b: Position(b).position_id)
def test_steps_reach_exactly_the_legal_plays(board):
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            turn = TurnSteps(board, d1, d2)
            after, _ = legal_afterstates(board, d1, d2)
            assert _complete_boards(turn) == {a.tobytes() for a in after}, (d1, d2)
            assert turn.steps == [] and np.array_equal(turn.board, board)


def test_a_hop_by_two_dice_and_its_undo():
    turn = TurnSteps(start_board(), 3, 2)
    paths = turn.hop_paths()
    assert 8 in paths[13] and 10 in paths[13] and 11 in paths[13]
    assert turn.hop(13, 8) in ([(13, 10), (10, 8)], [(13, 11), (11, 8)])
    assert turn.complete and turn.dice_left == []
    legal = Position(start_board()).legal_moves(3, 2)
    assert legal[turn.index].notation == "13/8"
    assert turn.undo() and turn.steps == [] and turn.dice_left == [3, 2]
    assert not turn.undo()


def test_the_opening_31_point_by_clicks():
    turn = TurnSteps(start_board(), 3, 1)
    turn.hop(8, 5)
    assert not turn.complete and turn.dice_left == [1]
    assert turn.hop_paths() == {6: {5: [((6, 5), 1)]}, 8: {7: [((8, 7), 1)]},
                                24: {23: [((24, 23), 1)]}, 5: {4: [((5, 4), 1)]}}
    turn.hop(6, 5)
    assert Position(start_board()).legal_moves(3, 1)[turn.index].notation == "8/5 6/5"


def test_illegal_steps_are_refused_and_change_nothing():
    turn = TurnSteps(start_board(), 6, 5)
    for source, dest in ((8, 4), (6, 2), (24, 12), (13, 13), (3, 0), (25, 20), (6, 0)):
        with pytest.raises(ValueError, match="not a legal move now"):
            turn.hop(source, dest)
    with pytest.raises(ValueError, match="not a legal step now"):
        turn.step((6, 0))
    assert turn.steps == [] and np.array_equal(turn.board, start_board())


def test_the_bar_first():
    board = board_from_points({25: 1, 6: 5, 8: 3, 13: 4, 24: 2}, {19: 5, 17: 3, 12: 5, 1: 2})
    turn = TurnSteps(board, 4, 2)
    assert {a for (a, _), _ in turn.next_steps()} == {25}
    turn.hop(25, 21)
    assert 25 not in turn.hop_paths()


def test_the_larger_die_when_only_one_can_be_played():
    # 13/7 or 13/8, but then point 2 is blocked for the other die: only the 6 is played
    board = board_from_points({13: 1, 1: 14}, {2: 2, 20: 13})
    after, steps = legal_afterstates(board, 6, 5)
    assert [tuple(map(tuple, s[s[:, 0] >= 0])) for s in steps] == [((13, 7),)]
    turn = TurnSteps(board, 6, 5)
    assert turn.next_steps() == [((13, 7), 6)]
    with pytest.raises(ValueError):
        turn.hop(13, 8)
    turn.hop(13, 7)
    assert turn.complete and turn.index == 0


def test_no_legal_play_is_complete_at_once():
    board = board_from_points({25: 2, 6: 13}, {p: 2 for p in range(19, 25)} | {12: 3})
    turn = TurnSteps(board, 6, 6)
    assert turn.complete and turn.index == 0 and turn.next_steps() == [] and turn.hop_paths() == {}


def test_bearing_off_with_a_larger_die_only_from_the_highest_point():
    board = board_from_points({5: 1, 2: 2}, {20: 15})
    assert (2, 0) not in die_steps(board, 6) and (5, 0) in die_steps(board, 6)
    after = apply_step(board, (5, 0))
    assert (2, 0) in die_steps(after, 6)


def test_apply_step_hits_a_blot():
    board = board_from_points({13: 1}, {10: 1})
    after = apply_step(board, (13, 10))
    assert after[1, 9] == 1 and after[0, 24] == 1 and after[0, 14] == 0
