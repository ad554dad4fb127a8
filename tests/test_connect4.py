"""Connect Four's compiled rules (bgengine.core.connect4) against the plain-Python reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgengine.core.connect4 import Board, has_line, representation_inputs

from connect4_reference import HEIGHT, WIDTH, Grid


def play_both(choices: list[int]) -> tuple[Board, Grid, str]:
    """Play the same game in both: each choice picks among the legal columns, until the choices
    run out or the game ends."""
    board, grid, seq = Board(), Grid(), ""
    for k in choices:
        legal = grid.legal()
        if not legal:
            break
        col = legal[k % len(legal)]
        board.play(col)
        grid = grid.play(col)
        seq += str(col + 1)
    return board, grid, seq


games = st.lists(st.integers(0, 6), max_size=42)


@settings(max_examples=300, deadline=None)
@given(games)
def test_rules_agree_with_the_reference(choices):
    board, grid, seq = play_both(choices)
    assert board.legal_moves() == grid.legal()
    assert board.moves == grid.moves
    want = -1 if not grid.over() else (1 if grid.winner() is not None else 0)
    assert board.result() == want
    mover = grid.to_move
    for c in range(WIDTH):
        for r in range(HEIGHT):
            owner = grid.at(c, r)
            assert board.cell(c, r) == (0 if owner is None else 1 if owner == mover else 2)
    assert Board.from_moves(seq) == board
    assert Board.from_bits(board.own, board.mask) == board
    if not grid.over():
        wins = [c for c in grid.legal() if grid.play(c).winner() is not None]
        assert board.winning_moves() == wins


@settings(max_examples=100, deadline=None)
@given(games)
def test_encodings_hold_each_stone_once(choices):
    board, grid, _ = play_both(choices)
    simple, separated = board.encode("simple"), board.encode("separated")
    assert simple.shape == (representation_inputs("simple"),) == (85,)
    assert separated.shape == (representation_inputs("separated"),) == (84,)
    assert simple.dtype == separated.dtype == np.float32
    mover = grid.to_move
    for c in range(WIDTH):
        for r in range(HEIGHT):
            cell = r * WIDTH + c
            owner = grid.at(c, r)
            assert list(simple[2 * cell:2 * cell + 2]) == [owner == 0, owner == 1]
            assert separated[cell] == (owner == mover)
            assert separated[42 + cell] == (owner is not None and owner != mover)
    assert simple[84] == (mover == 0)


def test_text_forms():
    b = Board.from_moves("4453")
    assert str(b).splitlines() == [".......", ".......", ".......", ".......",
                                   "...O...", "..OXX..", "1234567"]
    assert b.moves == 4 and b.legal_moves() == list(range(7))
    assert eval(repr(b), {"Board": Board}) == b


@pytest.mark.parametrize("seq, why", [("48", "no column"), ("4444444", "full"),
                                      ("1212121" + "3", "over"), ("x", "no column")])
def test_bad_sequences_are_refused(seq, why):
    with pytest.raises(ValueError, match=why):
        Board.from_moves(seq)


def test_a_finished_game_takes_no_move():
    b = Board.from_moves("1212121")
    assert b.result() == 1 and b.legal_moves() == []
    with pytest.raises(ValueError, match="over"):
        b.play(3)


@pytest.mark.parametrize("own, mask", [(1, 0), (1 << 6, 1 << 6), (0, 2), (0, 1 | 2)])
def test_bad_bitboards_are_refused(own, mask):
    with pytest.raises(ValueError):
        Board.from_bits(own, mask)


def test_lines_in_every_direction():
    def bits(cells):
        return sum(1 << (c * 7 + r) for c, r in cells)
    assert has_line(bits([(0, 0), (1, 0), (2, 0), (3, 0)]))          # row
    assert has_line(bits([(6, 2), (6, 3), (6, 4), (6, 5)]))          # column
    assert has_line(bits([(0, 0), (1, 1), (2, 2), (3, 3)]))          # rising
    assert has_line(bits([(3, 2), (4, 1), (5, 0), (2, 3)]))          # falling
    assert not has_line(bits([(0, 3), (0, 4), (0, 5), (1, 0)]))      # no wrap to the next column
    assert not has_line(bits([(4, 0), (5, 0), (6, 0)]))
