"""One browser's match against the engine (bgengine.protocols.web.session): the rules, undo, the cube,
the end of a match and its .mat file."""

from __future__ import annotations

import random

import numpy as np
import pytest

from bgengine.decisions.engine import Engine
from bgengine.matchfiles.record import Double, Drop, Play, Resign, Take, Win, checked
from bgengine.matchfiles.mat import read_mat
from bgengine.protocols.web.session import (GAME_OVER, MATCH_OVER, MOVE, RESIGN, ROLL, TAKE,
                                           BoardSession, SessionError)
from engine_doubles import small_net_engine


class CubeScript(Engine):
    """The small network's plays, with cube answers and doubles set by the test."""

    def __init__(self, doubles: bool = False, takes: bool = True) -> None:
        base = small_net_engine()
        super().__init__(base.player)
        self.doubles, self.takes = doubles, takes

    def cube_decision(self, board, state, jacoby=None) -> bool:
        return self.doubles and self.can_double(state, state.player_on_roll)

    def take_decision(self, board, state) -> bool:
        return self.takes


def _play_turn(s: BoardSession, rng: random.Random) -> None:
    """Make a play of the roll by random clicks, with an undo now and then."""
    while not s.view()["move"]["complete"]:
        targets = s.view()["move"]["targets"]
        source = rng.choice(sorted(targets))
        s.move(int(source), rng.choice(targets[source]))
        if rng.random() < 0.2:
            s.undo()
    s.commit()


def _play_out(s: BoardSession, rng: random.Random, double: float = 0.0) -> int:
    """Play until the match (or, in money play, the game) is over; actions taken."""
    n = 0
    while s.phase not in (MATCH_OVER,) and not (s.match.length == 0 and s.phase == GAME_OVER):
        n += 1
        if s.phase == ROLL:
            s.double() if s.can_double() and rng.random() < double else s.roll()
        elif s.phase == MOVE:
            _play_turn(s, rng)
        elif s.phase == TAKE:
            s.take()
        elif s.phase == RESIGN:
            s.reject()
        elif s.phase == GAME_OVER:
            s.next_game()
    return n


@pytest.fixture(scope="module")
def engine():
    return small_net_engine()


def test_a_whole_match_and_its_mat_file(engine):
    s = BoardSession(engine, match_length=3, seed=11)
    _play_out(s, random.Random(3), double=0.15)
    assert s.phase == MATCH_OVER and s.finished and max(s.match.score) >= 3
    view = s.view()
    assert view["result"]["winner"] in ("you", "engine") and view["move"] is None
    match = read_mat(s.mat_text())
    assert match.length == 3 and match.players == (engine.player.name, "You")
    assert match.games == checked(s.record).games
    last = match.games[-1].win
    assert last is not None and match.games[-1].score[last.player] + last.points >= 3
    with pytest.raises(SessionError, match="new match"):
        s.next_game()
    with pytest.raises(SessionError):
        s.roll()


def test_a_money_game_is_recorded_play_by_play(engine, tmp_path):
    s = BoardSession(engine, match_length=0, seed=4)
    assert s.save_mat(tmp_path) is None                 # nothing to save mid-game
    _play_out(s, random.Random(5))
    assert s.phase == GAME_OVER
    plays = [a for a in s.record.games[0].actions if isinstance(a, Play)]
    assert {a.player for a in plays} == {0, 1}
    assert isinstance(s.record.games[0].actions[-1], Win)
    path = s.save_mat(tmp_path)
    assert read_mat(path.read_text()).games == checked(s.record).games
    s.next_game()
    assert s.phase in (ROLL, MOVE) and s.view()["match"]["game"] == 2


def _to_move(s: BoardSession) -> None:
    if s.phase == ROLL:
        s.roll()
    assert s.phase == MOVE


def test_undo_within_the_turn(engine):
    s = BoardSession(engine, seed=2)
    _to_move(s)
    while s.turn.complete:               # a roll without a choice: pass it, take the next
        s.commit()
        _to_move(s)
    before = s.view()
    with pytest.raises(SessionError, match="nothing to undo"):
        s.undo()
    source = next(iter(before["move"]["targets"]))
    s.move(int(source), before["move"]["targets"][source][0])
    moved = s.view()
    assert moved["points"] != before["points"] or moved["bar"] != before["bar"] \
        or moved["off"] != before["off"]
    assert moved["move"]["can_undo"]
    s.undo()
    again = s.view()
    assert again["points"] == before["points"] and again["dice_left"] == before["dice_left"]
    assert again["move"] == before["move"]


def test_only_legal_moves_and_a_finished_play(engine):
    s = BoardSession(engine, seed=2)
    _to_move(s)
    while s.turn.complete:
        s.commit()
        _to_move(s)
    with pytest.raises(SessionError, match="not finished"):
        s.commit()
    with pytest.raises(SessionError, match="not a legal move"):
        s.move(1, 25)
    with pytest.raises(SessionError, match="two point numbers"):
        s.move("13", 8)
    with pytest.raises(SessionError, match="your play"):
        s.roll()
    with pytest.raises(SessionError):
        s.take()


def test_you_double_and_the_engine_takes_then_passes():
    s = BoardSession(CubeScript(takes=True), seed=9)
    while s.phase != ROLL:
        _play_turn(s, random.Random(0))
    assert s.can_double()
    s.double()
    view = s.view()
    assert view["cube"] == {"value": 2, "owner": "engine"} and s.phase == MOVE
    assert not s.can_double()
    game = s.record.games[0].actions
    assert isinstance(game[-2], Double) and game[-2].player == 1
    assert isinstance(game[-1], Take) and game[-1].player == 0

    s = BoardSession(CubeScript(takes=False), seed=9)
    while s.phase != ROLL:
        _play_turn(s, random.Random(0))
    s.double()
    assert s.phase == GAME_OVER
    assert s.view()["result"] == {"winner": "you", "points": 1,
                                  "how": "the engine passed your double"}
    assert s.view()["cube"] == {"value": 1, "owner": "centre"}     # the cube as it was
    assert s.match.score == [0, 1]
    assert isinstance(s.record.games[0].actions[-2], Drop)


def test_the_engine_doubles_you_take_or_pass():
    s = BoardSession(CubeScript(doubles=True), match_length=0, seed=9)
    while s.phase != TAKE:
        assert s.phase in (ROLL, MOVE)
        s.roll() if s.phase == ROLL else _play_turn(s, random.Random(1))
    hint = s.hint()
    assert hint["for"] == "take" and hint["cube"]["proper_action"]
    s.take()
    assert s.view()["cube"] == {"value": 2, "owner": "you"}
    assert s.phase in (ROLL, GAME_OVER)
    if s.phase == ROLL:
        assert s.can_double()            # you own the cube now

    s = BoardSession(CubeScript(doubles=True), match_length=0, seed=9)
    while s.phase != TAKE:
        s.roll() if s.phase == ROLL else _play_turn(s, random.Random(1))
    s.pass_()
    assert s.view()["result"]["winner"] == "engine" and s.match.score == [1, 0]


def test_the_crawford_game_has_no_doubling():
    s = BoardSession(CubeScript(doubles=True), match_length=2, seed=5)
    rng = random.Random(2)
    while s.phase != TAKE:
        s.roll() if s.phase == ROLL else _play_turn(s, rng)
    s.pass_()                                       # engine 1, you 0: 1-away, Crawford next
    s.next_game()
    assert s.view()["match"]["crawford"]
    while s.phase in (ROLL, MOVE):                  # the engine would double: it may not
        if s.phase == ROLL:
            assert not s.can_double()
            with pytest.raises(SessionError, match="Crawford"):
                s.double()
            s.roll()
        else:
            _play_turn(s, rng)
    assert s.phase in (GAME_OVER, MATCH_OVER)
    assert read_mat(s.mat_text()).games[1].crawford


def test_hints_in_each_phase(engine):
    s = BoardSession(Engine(engine.player), seed=2)
    if s.phase == MOVE:
        s.commit() if s.turn.complete else _play_turn(s, random.Random(0))
    assert s.phase == ROLL
    cube = s.hint()
    assert cube["for"] == "cube" and cube["plays"] == []
    s.roll()
    if not s.turn.complete:
        plays = s.hint(n=3)
        assert plays["for"] == "play" and 1 <= len(plays["plays"]) <= 3
        values = [p["value"] for p in plays["plays"]]
        assert values == sorted(values, reverse=True)


def test_a_match_length_is_checked(engine):
    for bad in (-1, 65, 2.5, "3"):
        with pytest.raises(ValueError, match="match length"):
            BoardSession(engine, match_length=bad)


def test_the_view_draws_the_position(engine):
    s = BoardSession(engine, seed=1)
    v = s.view()
    counts = np.array(v["points"])
    assert counts[counts > 0].sum() + v["bar"]["you"] + v["off"]["you"] == 15
    assert -counts[counts < 0].sum() + v["bar"]["engine"] + v["off"]["engine"] == 15
    assert v["pips"]["you"] == sum(max(n, 0) * (i + 1) for i, n in enumerate(v["points"])) \
        + 25 * v["bar"]["you"]
    assert v["gnubgid"] and ":" in v["gnubgid"]


@pytest.mark.parametrize("jacoby, points", [(True, 1), (False, 2)])
def test_a_gammon_under_the_jacoby_rule(engine, jacoby, points):
    from bgengine.position import Position
    from bgengine.terminal.table import HUMAN, TableGame
    from game_positions import board_from_points

    s = BoardSession(engine, match_length=0, jacoby=jacoby, seed=1)
    # you bear off your last checker; the engine has none off: a gammon, the cube never turned
    board = Position(board_from_points({1: 1}, {20: 15}))
    s.game = TableGame(number=1, board=board, turn=HUMAN, dice=(6, 5))
    s._begin_move()
    s.move(1, 0)
    s.commit()
    assert s.phase == GAME_OVER and s.match.score == [0, points]
    view = s.view()                                  # the final position stays on the board
    assert view["off"]["you"] == 15 and view["off"]["engine"] == 0 and view["dice"] is None
    assert s.view()["result"]["how"].startswith("a gammon")
    assert ("Jacoby" in s.view()["result"]["how"]) == jacoby


@pytest.mark.parametrize("accept", [True, False])
def test_the_engine_offers_to_resign_a_decided_game(accept):
    """You (player 1) are to bear off your last two checkers, the engine's fifteen sit on
    its 13-point: before its roll the engine offers a gammon."""
    from bgengine.position import Position
    from bgengine.terminal.table import ENGINE, TableGame

    s = BoardSession(Engine("net", plies=0), seed=3)
    b = np.zeros((2, 25), np.uint8)
    b[1, 5], b[0, 12] = 2, 15                  # from your side: your 6-point, its 13-point
    s.game = TableGame(number=1, board=Position(b), turn=ENGINE, dice=None)
    s.turn = None
    s._engine_turn()
    view = s.view()
    assert s.phase == RESIGN and view["resignation"] == {"level": 2, "points": 2}
    assert ":" in view["gnubgid"]
    with pytest.raises(SessionError, match="your answer to the engine's resignation"):
        s.roll()
    if accept:
        s.accept()
        assert s.result == {"winner": "you", "points": 2, "how": "the engine resigned a gammon"}
        assert s.record.games[-1].actions[-2:] == [Resign(0, 2), Win(1, 2)]
    else:
        s.reject()
        assert "You reject: play on." in s.log and s.phase in (ROLL, MOVE)
        assert s.game.rejected_resignation == 2
