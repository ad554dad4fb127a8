"""In matches, a network player chooses its plays by match-winning chances at the score
(:meth:`Engine.choose_index_at`), in every game loop that knows the score; in money games
with the cube, by cubeful equity."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bgengine.core.board import game_result
from bgengine.decisions.engine import Engine
from bgengine.matches.game import CubeGame, Decision, answer_locally
from bgengine.matches.run import run_cube_match
from bgengine.notation.ids import MatchState
from bgengine.training.startpositions import play_positions
from bgengine import make_player


@pytest.fixture(scope="module")
def engine():
    return Engine("net")


@pytest.fixture(scope="module")
def decisions(engine):
    boards = [b for b in play_positions(engine.network, 12, seed=5) if not game_result(b)]
    rng = np.random.default_rng(1)
    return [(b, int(rng.integers(1, 7)), int(rng.integers(1, 7))) for b in boards[:150]]


def test_money_play_is_the_cubeless_choice(engine, decisions):
    money = MatchState(match_length=0, score=(0, 0), player_on_roll=1)
    for b, d1, d2 in decisions:
        assert engine.choose_index_at(b, d1, d2, money) == engine.choose_index(b, d1, d2)


def test_money_play_with_the_cube_is_the_best_cubeful_play(engine, decisions):
    """With the cube in use, the play of the highest cubeful money equity at the cube's
    value and owner (at 0-ply: over every legal play); not always the cubeless one."""
    from bgengine.core.movegen import legal_afterstates
    from bgengine.state import GameState

    differ = 0
    for owner in (-1, 0):                  # centred; owned by the opponent (seat 0)
        state = MatchState(match_length=0, cube=1 if owner < 0 else 2, cube_owner=owner,
                           player_on_roll=1, turn=1)
        for b, d1, d2 in decisions:
            k = engine.choose_index_at(b, d1, d2, state, cube_in_use=True)
            rows = engine.searcher().rank_moves(b, d1, d2, 0)
            afters = legal_afterstates(b, d1, d2)[0]
            values = dict(zip((int(i) for i, _, _ in rows), engine.values_after(
                GameState(position=b, match=state),
                [np.ascontiguousarray(afters[int(i)][::-1]) for i, _, _ in rows],
                [np.asarray(o, np.float64) for _, o, _ in rows])))
            assert values[k] == pytest.approx(max(values.values()), abs=1e-9)
            differ += k != engine.choose_index(b, d1, d2)
    assert differ > 0


def test_at_double_match_point_the_play_with_the_most_wins_is_chosen(engine, decisions):
    """At 1-1 in a 2-point match (after Crawford) only winning counts: the play chosen
    has the highest winning chance of all, and it is not always the money play."""
    dmp = MatchState(match_length=2, score=(1, 1), player_on_roll=1)
    differ = 0
    for b, d1, d2 in decisions:
        rows = engine.searcher().rank_moves(b, d1, d2, 0)
        wins = {int(i): float(o[0]) for i, o, _ in rows}
        k = engine.choose_index_at(b, d1, d2, dmp)
        assert wins[k] == pytest.approx(max(wins.values()), abs=1e-6)
        differ += k != engine.choose_index(b, d1, d2)
    assert differ > 0


def test_the_game_loop_plays_at_the_score_unless_told_not_to(engine, decisions):
    b, d1, d2 = next((b, d1, d2) for b, d1, d2 in decisions
                     if engine.choose_index_at(b, d1, d2, MatchState(
                         match_length=2, score=(1, 1), player_on_roll=1))
                     != engine.choose_index(b, d1, d2))
    event = Decision(turn=1, board=b, d1=d1, d2=d2, afterstates=None, number=3)
    for at_score, match_length in ((True, 2), (False, 2), (True, 0)):
        e = Engine(engine.player, plays_at_score=at_score)
        game = CubeGame((engine.player, engine.player), (e, e), match_length=match_length,
                        score=[1, 1] if match_length else [0, 0], crawford=False, jacoby=False,
                        seed=0)
        state = game.state(1)
        want = (e.choose_index_at(b, d1, d2, state, cube_in_use=True) if at_score
                else int(engine.player.choose(b, d1, d2, (game.seed + event.number) & (2**63 - 1))))
        assert answer_locally(game.players, game.engines, event, game) == want


def test_matches_can_be_played_with_the_money_plays_of_before(monkeypatch):
    calls = []
    at_score = Engine.choose_index_at
    monkeypatch.setattr(Engine, "choose_index_at",
                        lambda self, *a, **k: calls.append(k) or at_score(self, *a, **k))
    net, pubeval = make_player("net"), make_player("pubeval")
    run_cube_match(net, pubeval, 2, match_length=3, seed=2, plays_at_score=False)
    assert not calls
    run_cube_match(net, pubeval, 2, match_length=3, seed=2)
    assert calls                        # the network's plays; pubeval plays its own
    calls.clear()
    run_cube_match(net, pubeval, 2, seed=2)     # money games with the cube: cubeful plays
    assert calls and all(k == {"cube_in_use": True} for k in calls)
    calls.clear()
    run_cube_match(net, pubeval, 2, seed=2, plays_at_score=False)
    assert not calls


def test_the_gnubg_socket_and_ubgi_play_at_the_score_they_receive(engine, monkeypatch):
    from bgengine.protocols.gnubg_socket import Session
    from bgengine.protocols.ubgi import UbgiSession

    seen = []
    at_score = Engine.choose_index_at
    monkeypatch.setattr(Engine, "choose_index_at",
                        lambda self, b, d1, d2, st: seen.append(st) or at_score(self, b, d1, d2, st))
    # gnubg's board line of a 2-point match at 1-1, the external player on roll with 5-4
    line = ("board:ext:gnubg:2:1:1:0:-2:0:0:0:0:5:0:3:1:0:0:-5:4:0:0:0:-3:0:-5:0:0:0:1:1:0:-1:"
            "5:4:5:4:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
    Session(engine).feed(line.encode() + b"\n\0")
    assert [(s.match_length, s.score) for s in seen] == [(2, (1, 1))]
    seen.clear()
    ubgi = UbgiSession("net")
    for command in ("ubgi", "isready", "newgame",
                    "position gnubgid 4HPwATDgc/ABMA:cInwAAAAAAAA", "dice 31", "go role chequer"):
        ubgi.handle(command)
    assert seen and seen[0].match_length > 0


def test_money_plays_needs_a_game_with_the_cube(capsys):
    from bgengine.cli import main

    assert main(["match", "net", "pubeval", "--games", "2", "--money-plays"]) == 2
    assert "add --cube or --match-length" in capsys.readouterr().err
    assert main(["match", "net", "pubeval", "--games", "2", "--cube", "--money-plays",
                 "--json"]) == 0


def test_cube_plies_needs_a_game_with_the_cube(capsys):
    from bgengine.cli import main

    assert main(["match", "net", "pubeval", "--games", "2", "--cube-plies", "2"]) == 2
    assert "add --cube or --match-length" in capsys.readouterr().err
    assert main(["match", "net", "pubeval", "--games", "2", "--cube", "--cube-plies", "2",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] >= 2
