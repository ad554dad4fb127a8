"""The Python face: Position, Move, the text board."""

from __future__ import annotations

import numpy as np
import pytest

from bgengine.core.movegen import legal_afterstates
from bgengine.position import STARTING_BOARD, Move, Position


def test_initial_position():
    p = Position.initial()
    assert p.position_id == "4HPwATDgc/ABMA"
    assert p.pips() == (167, 167)
    assert p.borne_off() == (0, 0)
    assert p.result() == 0 and not p.is_game_over() and not p.is_race()
    assert Position.from_id("4HPwATDgc/ABMA") == p
    assert np.array_equal(p.board, STARTING_BOARD)


def test_board_is_read_only_and_copied():
    src = np.array(STARTING_BOARD)
    p = Position(src)
    src[1, 5] = 0                      # the caller's array is not shared
    assert p.board[1, 5] == 5
    with pytest.raises(ValueError):
        p.board[1, 5] = 4


def test_swap_exchanges_sides():
    p = Position.from_id("4HPwATDgc/ABMA").play("24/18 13/11", 6, 2)
    assert p.swap().swap() == p
    np.testing.assert_array_equal(p.swap().board, p.board[::-1])
    assert p.pips() == (167, 159)       # the opponent (now on roll) has not moved


def test_legal_moves_match_the_core():
    p = Position.initial()
    moves = p.legal_moves(3, 1)
    after, steps = legal_afterstates(p.board, 3, 1)
    assert len(moves) == len(after) == 16
    for m, a in zip(moves, after):
        assert isinstance(m, Move)
        np.testing.assert_array_equal(m.board_after, a)
        np.testing.assert_array_equal(m.position.board, a[::-1])
    assert "8/5 6/5" in [m.notation for m in moves]


def test_no_legal_play_is_a_single_pass():
    # the side on roll has a checker on the bar against a closed board
    b = np.zeros((2, 25), dtype=np.uint8)
    b[1, 24] = 1
    b[1, 10] = 14
    b[0, 0:6] = 2                      # the opponent's home board: all six points made
    b[0, 6] = 3
    p = Position(b)
    moves = p.legal_moves(6, 6)
    assert len(moves) == 1 and moves[0].is_pass and moves[0].notation == ""
    assert moves[0].position == p.swap()
    assert str(moves[0]) == "(no legal play)"


def test_parse_and_play():
    p = Position.initial()
    m = p.parse_move("8/5 6/5", 3, 1)
    assert m.notation == "8/5 6/5"
    assert p.play("6/5 8/5", 1, 3) == m.position
    with pytest.raises(ValueError):
        p.parse_move("24/21 24/23 13/10", 3, 1)


def test_hash_and_equality():
    a, b = Position.initial(), Position.from_id("4HPwATDgc/ABMA")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != a.play("24/18 13/11", 6, 2)
    assert (a == "x") is False


def test_text_board():
    text = Position.initial().to_text()
    assert "Position ID: 4HPwATDgc/ABMA" in text
    assert "pips 167" in text
    lines = text.splitlines()
    assert lines[0].startswith(" +13-14") and "BAR" in lines[0]
    # five X checkers on the 6-point fill the bottom rows of its column
    # (count on the board rows only: the footer " X on roll: ..." also holds " X ")
    rows = [line for line in lines if line.startswith(" |")]
    assert sum(line.count(" X ") for line in rows) == 15
    assert sum(line.count(" O ") for line in rows) == 15
    tall = np.zeros((2, 25), dtype=np.uint8)
    tall[1, 0] = 15
    tall[0, 0] = 15
    text = Position(tall).to_text()
    assert "15 " in text


@pytest.mark.parametrize("bad, msg", [
    (np.zeros((2, 24)), "shape"),
    ([[0] * 25, [16] + [0] * 24], "16 checkers"),
    ([[0] * 25, [-1] + [0] * 24], "negative"),
    ([[1] + [0] * 24, [0] * 23 + [1, 0]], "both sides"),
    ([[0.5] + [0] * 24, [0] * 25], "whole"),
])
def test_bad_boards_are_rejected(bad, msg):
    with pytest.raises(ValueError, match=msg):
        Position(bad)


@pytest.mark.parametrize("bad", ["", "4HPwATDgc/ABM", "4HPwATDgc/AB!A", "////////////////"])
def test_bad_position_ids_are_rejected(bad):
    with pytest.raises(ValueError):
        Position.from_id(bad)


@pytest.mark.parametrize("d1, d2", [(0, 1), (7, 1), (1, -3), ("3", 1), (True, 2), (2.0, 1)])
def test_bad_dice_are_rejected(d1, d2):
    with pytest.raises(ValueError, match="1..6|integer"):
        Position.initial().legal_moves(d1, d2)


# ---------------------------------------------------------------- a Position where a board goes

def test_a_position_is_accepted_wherever_a_board_array_is():
    from bgengine.core.network import Network
    from bgengine.core.search import Searcher, rollout

    p = Position.from_id("4HPwATDgc/ABMA").play("8/5 6/5", 3, 1)
    arr = np.asarray(p)
    assert arr.shape == (2, 25) and np.array_equal(arr, p.board)
    assert np.asarray(p, dtype=np.int64).dtype == np.int64
    a = np.asarray(p, copy=True) if np.lib.NumpyVersion(np.__version__) >= "2.0.0" else arr.copy()
    a[0, 0] = 9                                 # a copy when asked: the position is untouched
    assert p.board[0, 0] != 9
    assert np.asarray([p, p.swap()]).shape == (2, 2, 25)
    from bgengine.matches.players import load_default_network

    ev = load_default_network()                 # an Evaluator: class networks, bear-offs
    np.testing.assert_array_equal(ev.evaluate(p), ev.evaluate(p.board))
    np.testing.assert_array_equal(ev.evaluate([p, p.swap()])[1], ev.evaluate(p.swap().board))
    net = Network((8,), 5, "expert", seed=4)
    np.testing.assert_array_equal(net.evaluate(p), net.evaluate(p.board))
    np.testing.assert_array_equal(net.evaluate([p, p.swap()]),
                                  net.evaluate(np.stack([p.board, p.swap().board])))
    s = Searcher(net)
    i, out = s.best_move(p, 6, 4, plies=1)
    j, out2 = s.best_move(p.board, 6, 4, plies=1)
    assert i == j and np.array_equal(out, out2)
    np.testing.assert_array_equal(s.evaluate(p, 1), s.evaluate(p.board, 1))
    r1, r2 = rollout(net, p, trials=8, n_threads=1), rollout(net, p.board, trials=8, n_threads=1)
    assert r1.keys() == r2.keys() and all(np.array_equal(r1[k], r2[k]) for k in r1)


def test_best_move_as_a_move_is_the_searchers_choice():
    from bgengine.core.network import Network
    from bgengine.core.search import Searcher

    net = Network((8,), 5, "expert", seed=5)
    s = Searcher(net)
    rng = np.random.default_rng(1)
    p = Position.initial()
    for _ in range(30):                         # a random game's positions and rolls
        d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
        index, _ = s.best_move(p, d1, d2, plies=0)
        move = p.best_move(s, d1, d2)
        assert isinstance(move, Move) and move == p.legal_moves(d1, d2)[index]
        assert p.best_move(net, d1, d2) == move          # a network gets its own searcher
        afterstates, _ = legal_afterstates(p.board, d1, d2)
        assert np.array_equal(move.board_after, afterstates[index])
        if move.position.is_game_over():
            break
        moves = p.legal_moves(d1, d2)
        p = moves[int(rng.integers(len(moves)))].position
