"""The exact Connect Four solver: published scores, and a brute-force minimax near the end."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgengine.core.connect4 import Board
from bgengine.core.connect4_solver import Solver, plies_to_end

from conftest import DATA
from connect4_reference import Grid, minimax


def scored_positions() -> list[tuple[str, int]]:
    rows = []
    for line in (DATA / "connect4_scored_positions.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            seq, score = line.split()
            rows.append((seq, int(score)))
    return rows


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver(table_size=1_000_003)


@pytest.mark.parametrize("seq, score", scored_positions())
def test_published_scores(solver, seq, score):
    board = Board.from_moves(seq)
    assert solver.solve(board) == score
    assert solver.solve(board, weak=True) == (score > 0) - (score < 0)
    if board.moves < 14:        # every move's exact score takes minutes so early
        return
    scores = solver.move_scores(board)
    assert max(v for v in scores if v is not None) == score
    assert solver.best_moves(board) == [c for c, v in enumerate(scores) if v == score]


def grid_of(seq: str) -> Grid:
    grid = Grid()
    for ch in seq:
        grid = grid.play(int(ch) - 1)
    return grid


@st.composite
def late_positions(draw) -> str:
    """Random games stopped with 8 to 10 empty cells left and the game still on."""
    empty = draw(st.integers(8, 10))
    seq, grid = "", Grid()
    while grid.moves < 42 - empty:
        legal = grid.legal()
        if not legal:
            break
        col = legal[draw(st.integers(0, len(legal) - 1))]
        child = grid.play(col)
        if child.over():                 # avoid ending the game: try another column
            others = [c for c in legal if not grid.play(c).over()]
            if not others:
                break
            col = others[0]
            child = grid.play(col)
        seq, grid = seq + str(col + 1), child
    return seq


@settings(max_examples=25, deadline=None)
@given(late_positions())
def test_agrees_with_brute_force_near_the_end(seq):
    grid = grid_of(seq)
    if grid.over():
        return
    board = Board.from_moves(seq)
    solver = Solver(table_size=10007)        # a small table: collisions must stay harmless
    want = minimax(grid)
    assert solver.solve(board) == want
    assert solver.solve(board, weak=True) == (want > 0) - (want < 0)
    for col, value in enumerate(solver.move_scores(board)):
        if value is None:
            assert col not in grid.legal()
            continue
        child = grid.play(col)
        if child.winner() is not None:
            assert value == 22 - (child.moves + 1) // 2
        elif child.over():
            assert value == 0
        else:
            assert value == -minimax(child)


def test_distance_to_the_end():
    # "4455": the side to move wins with its 4th stone, its second from now: 3 plies
    assert plies_to_end(18, 4) == 3
    # "44455554221": the opponent wins with its 7th stone, its next: 2 plies
    assert plies_to_end(-15, 11) == 2
    assert plies_to_end(0, 20) is None


def test_finished_games_have_no_score(solver):
    with pytest.raises(ValueError, match="over"):
        solver.solve(Board.from_moves("1212121"))


def test_nodes_are_counted_and_the_table_clears(solver):
    solver.clear()
    assert solver.nodes == 0
    solver.solve(Board.from_moves("274552224131661"))
    searched = solver.nodes
    assert searched > 1000
    solver.reset_nodes()
    solver.solve(Board.from_moves("274552224131661"))
    assert solver.nodes < searched          # the table remembers

