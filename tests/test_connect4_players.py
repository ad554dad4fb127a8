"""Connect Four's reference players and game loop (bgengine.core.connect4_players)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgengine.core.connect4 import Board
from bgengine.core.connect4_players import LINE_COUNTS, Player, line_value, play_match
from bgengine.core.connect4_solver import Solver
from bgengine.core.dice import Dice

from connect4_reference import HEIGHT, LINES, WIDTH, Grid


def test_line_counts_are_the_lines_through_each_cell():
    for r in range(HEIGHT):
        for c in range(WIDTH):
            through = sum((c, r) in cells for _, cells in LINES)
            assert LINE_COUNTS[r][c] == through
            assert line_value(1 << (c * 7 + r)) == through


def reference_value(grid: Grid, depth: int) -> int:
    """Plain minimax on the line counts, for the side to move (the players' definition)."""
    me = grid.to_move
    if depth == 0:
        total = 0
        for c in range(WIDTH):
            for r, owner in enumerate(grid.columns[c]):
                total += LINE_COUNTS[r][c] * (1 if owner == me else -1)
        return total
    return max(reference_after(grid.play(c), depth) for c in grid.legal())


def reference_after(child: Grid, depth: int) -> int:
    if child.winner() is not None:
        return 100000 + depth
    if child.over():
        return 0
    return -reference_value(child, depth - 1)


@st.composite
def positions(draw) -> str:
    seq, grid = "", Grid()
    for _ in range(draw(st.integers(0, 30))):
        legal = grid.legal()
        if not legal:
            break
        col = legal[draw(st.integers(0, len(legal) - 1))]
        if grid.play(col).over():
            break
        seq, grid = seq + str(col + 1), grid.play(col)
    return seq


@settings(max_examples=40, deadline=None)
@given(positions(), st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_minimax_plays_a_best_move_of_the_reference(seq, depth, seed):
    grid = Grid()
    for ch in seq:
        grid = grid.play(int(ch) - 1)
    values = {c: reference_after(grid.play(c), depth) for c in grid.legal()}
    best = max(values.values())
    col = Player("minimax", depth=depth).move(Board.from_moves(seq), Dice(seed))
    assert values[col] == best


def test_every_kind_takes_a_win_in_one_and_minimax_blocks():
    win = Board.from_moves("121212")            # the first player wins in column 1
    dice = Dice(3)
    for player in (Player("minimax", depth=1), Player("simulation", playouts=70),
                   Player("perfect", solver=Solver(100003))):
        assert player.move(win, dice) == 0
    block = Board.from_moves("12131")           # the second player must block column 1
    for depth in (2, 3, 4):
        assert Player("minimax", depth=depth).move(block, dice) == 0


def test_perfect_plays_a_solver_best_move():
    solver = Solver(100003)
    board = Board.from_moves("274552224131661")
    best = solver.best_moves(board)
    player = Player("perfect", solver=solver)
    dice = Dice(1)
    assert all(player.move(board, dice) in best for _ in range(5))


def test_epsilon_one_plays_at_random_and_random_uses_every_column():
    board, dice = Board(), Dice(0)
    for player in (Player("random"), Player("minimax", depth=2, epsilon=1.0)):
        assert {player.move(board, dice) for _ in range(200)} == set(range(7))
    # without random moves, depth 1 on the empty board always takes the centre (7 lines)
    assert {Player("minimax", depth=1).move(board, dice) for _ in range(20)} == {3}


def test_matches_count_every_game_and_repeat_with_the_seed():
    a, b = Player("minimax", depth=2, epsilon=0.2), Player("random")
    r = play_match(a, b, 200, Dice(7))
    assert r["a_wins"] + r["b_wins"] + r["draws"] == r["games"] == 200
    assert r["a_first_wins"] <= r["a_wins"] and r["b_first_wins"] <= r["b_wins"]
    assert r == play_match(a, b, 200, Dice(7))
    assert r["a_wins"] >= 160                   # far stronger than random


def test_a_match_from_a_position():
    # the side to move wins at once: a greedy minimax player moving first always wins
    greedy = Player("minimax", depth=1)
    r = play_match(greedy, greedy, 2, Dice(0), Board.from_moves("121212"))
    assert r["a_first_wins"] == 1 and r["b_first_wins"] == 1


@pytest.mark.parametrize("kwargs", [dict(kind="mm"), dict(kind="minimax", depth=0),
                                    dict(kind="random", depth=2), dict(kind="simulation"),
                                    dict(kind="random", epsilon=1.5)])
def test_bad_players_are_refused(kwargs):
    with pytest.raises(ValueError):
        Player(**kwargs)
