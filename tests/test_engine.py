"""The decision maker: cube decisions by the Janowski model on fixed probabilities,
engine options, plays equal to its player's, iterative deepening within a time
budget, hint ranking, and the 1/4/5-output forms read as five probabilities."""

from __future__ import annotations

import numpy as np
import pytest

from bgengine.core.agents import Player
from bgengine.decisions.engine import Engine, EngineError, NotSupported, rank_plays
from bgengine.notation.ids import MatchState
from bgengine.core.movegen import legal_afterstates
from bgengine.core.network import Network, equity_of, flip_outputs
from bgengine.position import STARTING_BOARD, Position
from bgengine.core.search import Searcher
from bgengine.types import five_outputs
from engine_doubles import FixedEngine, small_net_engine


@pytest.fixture(scope="module")
def net_engine():
    return small_net_engine()


def money(**kw):
    return MatchState(**{"player_on_roll": 1, **kw})


@pytest.mark.parametrize("probs, double", [
    ((0.50, 0.10, 0.0, 0.10, 0.0), False),     # E = 0
    ((0.65, 0.05, 0.0, 0.02, 0.0), False),     # below the window (contact: cube efficiency 0.68)
    ((0.75, 0.05, 0.0, 0.02, 0.0), True),      # double, take
    ((0.90, 0.02, 0.0, 0.0, 0.0), True),       # double, pass
    ((0.95, 0.30, 0.0, 0.0, 0.0), False),      # too good, play for the gammon
])
def test_money_doubling_window(probs, double):
    e = FixedEngine(probs=probs)
    assert e.cube_decision(STARTING_BOARD, money()) is double


def test_jacoby_makes_gammons_irrelevant_with_a_centred_cube():
    probs = (0.95, 0.30, 0.0, 0.0, 0.0)
    assert FixedEngine(probs=probs, jacoby=True).cube_decision(STARTING_BOARD, money()) is True
    assert FixedEngine(probs=probs).cube_decision(STARTING_BOARD, money(), jacoby=True) is True
    assert FixedEngine(probs=probs).cube_decision(STARTING_BOARD, money()) is False


@pytest.mark.parametrize("doubler_win, take", [(0.70, True), (0.78, True), (0.79, False), (0.9, False)])
def test_money_take_point(doubler_win, take):
    # Janowski, no gammons, cube efficiency 0.68: the taker needs 0.5 / 2.34 = 21.4%
    e = FixedEngine(probs=(doubler_win, 0.0, 0.0, 0.0, 0.0))
    assert e.take_decision(STARTING_BOARD, money(double_offered=True)) is take


def test_no_cube_access_means_roll():
    e = FixedEngine(probs=(0.8, 0.0, 0.0, 0.0, 0.0))
    assert e.cube_decision(STARTING_BOARD, money()) is True
    assert e.cube_decision(STARTING_BOARD, money(cube=2, cube_owner=0)) is False   # opponent owns it
    assert e.cube_decision(STARTING_BOARD, money(cube=2, cube_owner=1)) is True    # we own it
    crawford = MatchState(match_length=5, score=(4, 2), player_on_roll=1, crawford=True)
    assert e.cube_decision(STARTING_BOARD, crawford) is False
    dead = MatchState(match_length=5, score=(2, 3), player_on_roll=1, cube=2, cube_owner=1)
    assert e.cube_decision(STARTING_BOARD, dead) is False                        # 2-away, cube 2


def test_match_cube_logic():
    weak = FixedEngine(probs=(0.5, 0.1, 0.0, 0.1, 0.0))
    # post-Crawford: the trailer doubles at once, whatever the position
    post = MatchState(match_length=5, score=(4, 1), player_on_roll=1)
    assert weak.cube_decision(STARTING_BOARD, post) is True
    # and the leader (1-away) never has a live cube
    assert weak.cube_decision(STARTING_BOARD, MatchState(match_length=5, score=(1, 4),
                                                        player_on_roll=1)) is False
    strong = FixedEngine(probs=(0.85, 0.1, 0.0, 0.0, 0.0))
    assert strong.cube_decision(STARTING_BOARD, MatchState(match_length=7, player_on_roll=1)) is True
    assert weak.cube_decision(STARTING_BOARD, MatchState(match_length=7, player_on_roll=1)) is False
    # taking at 0-0 in a 7-point match with 30% winning chances, dropping with 10%
    assert FixedEngine(probs=(0.7, 0, 0, 0, 0)).take_decision(
        STARTING_BOARD, MatchState(match_length=7, player_on_roll=1, double_offered=True))
    assert not FixedEngine(probs=(0.9, 0, 0, 0, 0)).take_decision(
        STARTING_BOARD, MatchState(match_length=7, player_on_roll=1, double_offered=True))


def test_engine_options():
    with pytest.raises(NotSupported, match="not available"):
        Engine("pubeval", plies=4)
    with pytest.raises(ValueError, match="needs a network player"):
        Engine("pubeval", plies=2)
    with pytest.raises(ValueError):
        Engine("pubeval", plies=-1)
    with pytest.raises(ValueError):
        Engine("pubeval", time_budget=0)
    with pytest.raises(ValueError, match="unknown player"):
        Engine("nonsense")
    assert isinstance(NotSupported("x"), EngineError)


def test_engine_choose_move_matches_the_player(net_engine):
    rng = np.random.default_rng(4)
    board = STARTING_BOARD
    for _ in range(30):
        d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
        steps = net_engine.choose_move(board, d1, d2)
        after, all_steps = legal_afterstates(board, d1, d2)
        k = net_engine.player.choose(board, d1, d2)
        assert steps == tuple((int(a), int(b)) for a, b in all_steps[k] if a >= 0)
        board = np.ascontiguousarray(after[k][::-1])
        if board[0].sum() == 0 or board[1].sum() == 0:
            break


def test_time_budget_deepens_while_it_fits(net_engine):
    board = STARTING_BOARD
    net = net_engine.network
    plies2 = Engine(Player("net", net, name="n"), plies=2)
    searcher = Searcher(net)
    # a generous budget reaches the full depth: the same play as plain 2-ply
    roomy = Engine(Player("net", net, name="n"), plies=2, time_budget=60.0)
    for d1, d2 in [(3, 1), (6, 5), (4, 4), (2, 1)]:
        k, depth = roomy._deepen(board, d1, d2)
        assert depth == 2 and k == plies2.choose_index(board, d1, d2)
    # a budget too small for more than 0-ply answers at once with the 0-ply play
    tight = Engine(Player("net", net, name="n"), plies=2, time_budget=1e-9)
    for d1, d2 in [(3, 1), (6, 5)]:
        k, depth = tight._deepen(board, d1, d2)
        assert depth == 0 and k == searcher.best_move(board, d1, d2, plies=0)[0]
        assert 0 <= tight.choose_index(board, d1, d2) < len(legal_afterstates(board, d1, d2)[0])


def test_rank_plays_orders_by_equity_and_searches_the_best_deeper(net_engine):
    searcher = Searcher(net_engine.network)
    board = Position.initial().board
    legal = Position(board).legal_moves(6, 2)
    shallow = rank_plays(searcher, board, 6, 2, n=len(legal))
    assert sorted(r.index for r in shallow) == list(range(len(legal)))
    assert [r.equity for r in shallow] == sorted((r.equity for r in shallow), reverse=True)
    for r in shallow[:3]:       # 0-ply: the mover's view of the network's value of the afterstate
        want = flip_outputs(net_engine.network.evaluate(legal[r.index].position.board))
        np.testing.assert_allclose(r.outputs, want, atol=1e-6)
        assert r.plies == 0 and r.equity == pytest.approx(equity_of(r.outputs), abs=1e-6)
    deep = rank_plays(searcher, board, 6, 2, n=3, plies=1)
    assert len(deep) == 3 and all(r.plies == 1 for r in deep)
    assert deep[0].equity >= deep[1].equity >= deep[2].equity
    assert {r.index for r in deep} <= {r.index for r in shallow[:5]}


def test_five_outputs_of_each_form():
    np.testing.assert_array_equal(five_outputs([0.3]), [0.3, 0, 0, 0, 0])
    np.testing.assert_allclose(five_outputs([0.6, 0.2, 0.1, 0.05]), [0.75, 0.1, 0, 0.05, 0])
    np.testing.assert_array_equal(five_outputs([0, 0, 0, 0]), [0.5, 0, 0, 0, 0])
    np.testing.assert_array_equal(five_outputs([0.5, 0.1, 0.01, 0.2, 0.02]), [0.5, 0.1, 0.01, 0.2, 0.02])
    with pytest.raises(ValueError):
        five_outputs([0.1, 0.2])


@pytest.mark.parametrize("k", [1, 4])
def test_engine_reads_smaller_output_forms(k):
    net = Network(hidden=(8,), n_outputs=k, seed=1)
    engine = Engine(Player("net", net, name="n"))
    raw = np.asarray(net.evaluate(STARTING_BOARD), dtype=np.float64)
    probs = engine.evaluate(STARTING_BOARD)
    assert probs.shape == (5,) and probs[2] == 0 and probs[4] == 0
    assert probs[0] == pytest.approx(five_outputs(raw)[0])
