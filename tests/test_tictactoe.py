"""Tic-tac-toe's compiled rules, encodings, solver and reference players, against a
plain-Python reference (a board of 9 cells 'X', 'O' or '.')."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bgengine.core import tictactoe as core
from bgengine.games import GAMES, game_module
from bgengine.games.tictactoe import TicTacToe

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def ref_winner(cells: str) -> str | None:
    for a, b, c in LINES:
        if cells[a] != "." and cells[a] == cells[b] == cells[c]:
            return cells[a]
    return None


@lru_cache(maxsize=None)
def ref_value(cells: str) -> int:
    """Plain negamax: the value of an ongoing board for the side to move."""
    me = "X" if cells.count("X") == cells.count("O") else "O"
    best = -2
    for i in range(9):
        if cells[i] == ".":
            after = cells[:i] + me + cells[i + 1:]
            v = 1 if ref_winner(after) else 0 if "." not in after else -ref_value(after)
            best = max(best, v)
    return best


@st.composite
def games(draw) -> list[int]:
    """A sequence of moves of a game, stopped at a random point (possibly its end)."""
    cells, moves = ["."] * 9, []
    for ply in range(draw(st.integers(0, 9))):
        empty = [i for i in range(9) if cells[i] == "."]
        if not empty or ref_winner("".join(cells)):
            break
        i = draw(st.sampled_from(empty))
        cells[i] = "XO"[ply % 2]
        moves.append(i)
    return moves


def replay(moves: list[int]) -> tuple[TicTacToe, str]:
    pos, cells = TicTacToe(), ["."] * 9
    for ply, m in enumerate(moves):
        pos = pos.play(m)
        cells[m] = "XO"[ply % 2]
    return pos, "".join(cells)


@given(games())
def test_rules_agree_with_the_reference(moves):
    pos, cells = replay(moves)
    assert pos.cells() == cells
    assert TicTacToe.from_cells(cells) == pos
    over = ref_winner(cells) is not None or "." not in cells
    assert pos.result() == (1 if ref_winner(cells) else 0 if over else -1)
    assert pos.legal_moves() == ([] if over else [i for i in range(9) if cells[i] == "."])
    if not over:
        assert pos.value() == ref_value(cells)


@given(games())
def test_the_encodings(moves):
    pos, cells = replay(moves)
    to_move = "X" if len(moves) % 2 == 0 else "O"
    other = "O" if to_move == "X" else "X"
    simple = pos.encode(0)
    assert simple.dtype == np.float32 and simple.shape == (core.N_INPUTS[0],)
    assert list(simple[:9]) == [c == "X" for c in cells]
    assert list(simple[9:18]) == [c == "O" for c in cells]
    assert simple[18] == (to_move == "X")
    separated = pos.encode(1)
    assert separated.shape == (core.N_INPUTS[1],)
    assert list(separated[:9]) == [c == to_move for c in cells]
    assert list(separated[9:]) == [c == other for c in cells]


def test_the_empty_board_is_a_draw_and_known_values():
    assert TicTacToe().value() == 0
    # X in a corner, O on an adjacent edge: X wins; O must answer a corner in the centre
    assert TicTacToe.from_cells("XO.......").value() == 1
    assert TicTacToe.from_cells("X........").value() == 0
    assert TicTacToe.from_cells("X.O......").value() == 1
    assert TicTacToe.from_cells("X...O....").value() == 0


def test_states_no_game_reaches_are_refused():
    for own, mask, moves in [(1, 0, 0), (0, 1, 0), (3, 3, 2), (7, 7 | 56, 6), (0, 512, 1)]:
        with pytest.raises(ValueError):
            core.result(own, mask, moves)
    with pytest.raises(ValueError):
        TicTacToe.from_cells("XXXOOO...")       # both sides with a line
    with pytest.raises(ValueError):
        TicTacToe().play(9)
    with pytest.raises(ValueError):
        TicTacToe().play(4).play(4)
    with pytest.raises(ValueError):
        TicTacToe.from_cells("XXXOO....").play(5)   # the game is over


def test_every_reachable_position_has_its_reference_value():
    seen, todo = 0, [TicTacToe()]
    known = set()
    while todo:
        pos = todo.pop()
        if pos in known:
            continue
        known.add(pos)
        if pos.result() == -1:
            seen += 1
            assert pos.value() == ref_value(pos.cells())
            todo += [pos.play(m) for m in pos.legal_moves()]
    assert seen == 4520        # reachable positions that go on (5,478 with the finished ones)
    assert len(known) == 5478


@given(games(), st.integers(0, 2**32))
def test_the_reference_players(moves, seed):
    pos, cells = replay(moves)
    if pos.result() != -1:
        return
    me = "X" if len(moves) % 2 == 0 else "O"
    other = "O" if me == "X" else "X"
    empty = pos.legal_moves()

    def wins(who: str) -> list[int]:
        return [i for i in empty if ref_winner(cells[:i] + who + cells[i + 1:])]

    assert pos.player_move("random", seed) in empty
    assert pos.player_move("primitive", seed) in (wins(me) or empty)
    smart = pos.player_move("smart", seed)
    if wins(me):
        assert smart in wins(me)
    elif wins(other):
        assert smart in wins(other)
    else:
        def open_lines(i):
            return sum(1 for line in LINES if i in line and all(cells[j] != other for j in line))
        assert open_lines(smart) == max(open_lines(i) for i in empty)
    best = pos.player_move("solver", seed)
    after = pos.play(best)
    value = 1 if after.result() == 1 else 0 if after.result() == 0 else -after.value()
    assert value == pos.value()


def test_players_are_seeded_and_choose_among_ties():
    pos = TicTacToe()
    assert pos.player_move("solver", 5) == pos.player_move("solver", 5)
    assert len({pos.player_move("solver", s) for s in range(64)}) == 9    # every cell draws
    assert len({pos.player_move("smart", s) for s in range(64)}) == 1     # the centre
    with pytest.raises(ValueError):
        pos.player_move("perfect")


def test_the_games_registry():
    assert "tictactoe" in GAMES
    assert game_module("tictactoe").PLAYERS == ("random", "primitive", "smart", "solver")
    with pytest.raises(ValueError, match="unknown game"):
        game_module("chess")
