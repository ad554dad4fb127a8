"""The Python game loop: cubeless games (every play legal, the dice of the compiled
match loop, the seed of each play), games with the cube (doubles, drops, takes,
cube ownership, the Crawford game), and the match rules (opening roll, Crawford,
Jacoby)."""

from __future__ import annotations

import numpy as np
import pytest

from bgengine.core.agents import Player, play_match
from bgengine.core.board import game_result
from bgengine.core.dice import Dice
from bgengine.decisions.engine import Engine
from bgengine.matches.game import (CubeGame, CubeTurn, Decision, MatchScore, game_decisions, game_seed,
                           is_crawford_game, match_opening, play_game, points_scored)
from bgengine.core.movegen import legal_afterstates
from bgengine.core.network import Network
from bgengine.matches.players import make_player
from bgengine.position import STARTING_BOARD

NET = Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=11)


# ------------------------------------------------------------------ cubeless games

def test_game_decisions_play_a_legal_game_to_its_result():
    loop = game_decisions(Dice(5, stream=2))
    d = next(loop)
    assert isinstance(d, Decision) and d.turn == 0 and d.number == 0
    np.testing.assert_array_equal(d.board, STARTING_BOARD)
    rng = np.random.default_rng(1)
    turns = []
    while True:
        after, _ = legal_afterstates(d.board, d.d1, d.d2)
        np.testing.assert_array_equal(after, d.afterstates)
        turns.append(d.turn)
        k = int(rng.integers(len(after)))
        last = after[k]
        try:
            d = loop.send(k)
        except StopIteration as done:
            points, plays = done.value
            break
    assert plays == len(turns) and turns == [i % 2 for i in range(plays)]
    mover = turns[-1]
    assert abs(points) == game_result(last) and (points > 0) == (mover == 0)


def test_game_decisions_refuse_an_index_out_of_range():
    loop = game_decisions(Dice(1))
    d = next(loop)
    with pytest.raises(ValueError, match=f"chose play 99 of {len(d.afterstates)}"):
        loop.send(99)


def test_play_game_matches_the_compiled_match_loop():
    """The Python loop rolls the compiled loop's dice: same pairs, same points and plays."""
    a, b = Player("net", NET, name="tiny"), Player("pubeval")
    points, moves = play_match(a, b, 6, seed=13, n_threads=1)
    for i in range(6):
        v0, m0 = play_game((a, b), Dice(13, stream=i), 13, i, 0)
        v1, m1 = play_game((b, a), Dice(13, stream=i), 13, i, 1)
        assert (v0, -v1) == tuple(points[i]) and (m0, m1) == tuple(moves[i])


def test_play_game_seeds_each_play():
    seen = []

    class Spy:
        name = "spy"

        def choose(self, board, d1, d2, seed=0):
            seen.append(seed)
            return 0

    play_game((Spy(), Spy()), Dice(2), 7, 3, 1)
    assert seen == [game_seed(7, 3, 1, n) for n in range(len(seen))]


def test_play_game_names_a_player_with_a_bad_index():
    class Bad:
        name = "bad"

        def choose(self, board, d1, d2, seed=0):
            return 1000

        def __repr__(self):
            return "Bad()"

    with pytest.raises(ValueError, match="Bad\\(\\) chose play 1000"):
        play_game((Bad(), Bad()), Dice(2), 0, 0, 0)


def test_game_seed_is_63_bits_and_spreads():
    seeds = {game_seed(s, p, g, m) for s in range(3) for p in range(5) for g in range(2) for m in range(50)}
    assert len(seeds) == 3 * 5 * 2 * 50
    assert all(0 <= x < 1 << 63 for x in seeds)
    assert game_seed(1 << 70, 0, 0, 0) < 1 << 63


def test_cube_turns_come_before_every_roll_but_the_opening_one():
    dice, plain = Dice(4), Dice(4)
    loop = game_decisions(dice, first=1, opening=(5, 2), cube_turns=True)
    events = [next(loop)]
    assert events[0].turn == 1 and (events[0].d1, events[0].d2) == (5, 2)
    for _ in range(6):
        answer = 0 if isinstance(events[-1], Decision) else None
        events.append(loop.send(answer))
    kinds = [type(e) for e in events]
    assert kinds == [Decision, CubeTurn, Decision, CubeTurn, Decision, CubeTurn, Decision]
    for cube, play in zip(events[1::2], events[2::2]):
        assert cube.turn == play.turn and cube.number == play.number
        np.testing.assert_array_equal(cube.board, play.board)
        assert (play.d1, play.d2) == plain.roll()      # no dice are used but the rolls'


# ------------------------------------------------------------------ match rules

def test_match_opening_rolls_until_the_dice_differ():
    for seed in range(30):
        first, (d1, d2) = match_opening(Dice(seed))
        ref = Dice(seed)
        while True:
            r1, r2 = ref.roll()
            if r1 != r2:
                break
        assert (d1, d2) == (r1, r2) and first == (0 if r1 > r2 else 1)


@pytest.mark.parametrize("length, score, done, crawford", [
    (5, (4, 2), False, True), (5, (2, 4), False, True), (5, (4, 4), False, False),
    (5, (4, 2), True, False), (5, (3, 2), False, False), (0, (0, 0), False, False),
    (1, (0, 0), False, False),     # a 1-point match: both sides are 1-away, no Crawford game
])
def test_crawford_rule(length, score, done, crawford):
    assert is_crawford_game(length, score, done) is crawford


def test_match_score_plays_the_crawford_game_once():
    m = MatchScore(5)
    assert not m.start_game()
    m.record(0, 2)
    assert not m.start_game()
    m.record(0, 2)                      # 4-0: the next game is the Crawford game
    assert m.crawford_next() and m.start_game() and not m.crawford_next()
    m.record(1, 1)                      # 4-1: post-Crawford, no second Crawford game
    assert not m.start_game() and not m.over
    m.record(0, 1)
    assert m.over and m.score == [5, 1] and m.games == 4 and not m.crawford_next()
    money = MatchScore(0)
    for _ in range(3):
        assert not money.start_game()
        money.record(1, 4)
    assert not money.over and money.score == [0, 12]


def test_jacoby_rule_and_cube_in_points():
    assert points_scored(2, 1, jacoby=True, cube_turned=False) == 1
    assert points_scored(3, 2, jacoby=True, cube_turned=True) == 6
    assert points_scored(2, 4, jacoby=False, cube_turned=False) == 8


# ------------------------------------------------------------------ games with the cube

class Recording(Engine):
    """The real cube engine, with fixed probabilities and a record of its questions."""

    def __init__(self, p, **kw):
        super().__init__(player="pubeval", network=NET, **kw)
        self.p, self.asked = np.array(p), []

    def evaluate(self, board, plies=0):
        return self.p

    def cube_decision(self, board, state, jacoby=None):
        self.asked.append(("double", state))
        return super().cube_decision(board, state, jacoby)

    def take_decision(self, board, state):
        self.asked.append(("take", state))
        return super().take_decision(board, state)


def test_cube_game_double_and_drop():
    # both engines think the side on roll is a big favourite
    eng = Recording([0.9, 0.05, 0, 0, 0])
    players = (Player("pubeval"), Player("pubeval"))
    g = CubeGame(players, (eng, eng), match_length=0, score=[0, 0], crawford=False, jacoby=False, seed=1)
    winner, pts = g.play(Dice(3), 0, (3, 1))
    # seat 1 is on roll first with a cube decision: it doubles (0.9 is double/pass) and seat 0 drops
    assert (winner, pts) == (1, 1) and g.doubles == 1 and g.drops == 1
    assert [k for k, _ in eng.asked] == ["double", "take"]


def test_cube_game_crawford_never_asks():
    eng = Recording([0.9, 0.05, 0, 0, 0])
    players = (Player("pubeval"), Player("pubeval"))
    g = CubeGame(players, (eng, eng), match_length=5, score=[4, 2], crawford=True, jacoby=False, seed=1)
    winner, pts = g.play(Dice(3), 0, (3, 1))
    assert eng.asked == [] and g.cube == 1 and pts in (1, 2, 3)


def test_cube_game_take_and_ownership():
    # 0.72: double, take.  After the take the taker owns the cube and the doubler is never asked again
    eng = Recording([0.72, 0.0, 0, 0, 0])
    players = (Player("pubeval"), Player("pubeval"))
    g = CubeGame(players, (eng, eng), match_length=0, score=[0, 0], crawford=False, jacoby=False, seed=1)
    winner, pts = g.play(Dice(5), 0, (3, 1))
    assert g.doubles >= 1 and g.drops <= 1
    owners = [st.cube_owner for k, st in eng.asked if k == "double"]
    rollers = [st.player_on_roll for k, st in eng.asked if k == "double"]
    assert all(o in (-1, r) for o, r in zip(owners, rollers))     # only asked with access to the cube
    assert pts % g.cube == 0 or g.drops


def test_cube_game_with_players_that_never_double_is_the_cubeless_game():
    class Never(Engine):
        def can_double(self, state, side):
            return False

    eng = Never(player="pubeval", network=NET, plays_at_score=False)   # cubeless plays
    a, b = Player("net", NET, name="tiny"), make_player("pubeval")
    for seed in range(4):
        g = CubeGame((a, b), (eng, eng), match_length=0, score=[0, 0], crawford=False,
                     jacoby=False, seed=seed)
        dice = Dice(seed)
        winner, pts = g.play(dice, 0, dice.opening_roll())
        v, _ = play_game((a, b), Dice(seed), seed, 0, 0)
        assert pts == abs(v) and winner == (0 if v > 0 else 1)
