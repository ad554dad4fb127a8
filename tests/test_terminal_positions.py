"""A finished game is valued exactly, or refused the same way, by every evaluator and tool."""

from __future__ import annotations

import numpy as np
import pytest

from bgengine import Engine, Network, load_default_network
from bgengine.cli import main
from bgengine.notation.ids import position_id
from bgengine.position import Position
from bgengine.core.search import Searcher
from bgengine.state import GameState


def _lost(kind: int) -> np.ndarray:
    """The side on roll has lost: the opponent is borne off; a single game, a gammon or a
    backgammon (a checker left in the winner's home board)."""
    b = np.zeros((2, 25), np.uint8)
    if kind == 1:
        b[1, 0] = 3                    # 12 borne off
    elif kind == 2:
        b[1, 5] = 15                   # none off, all home
    else:
        b[1, 5], b[1, 23] = 13, 2      # none off, two in the winner's home board
    return b


EXACT = {1: [0, 0, 0, 0, 0], 2: [0, 0, 0, 1, 0], 3: [0, 0, 0, 1, 1]}


@pytest.fixture(scope="module")
def shipped():
    return load_default_network()


@pytest.mark.parametrize("kind", [1, 2, 3])
def test_evaluators_value_a_lost_game_exactly(shipped, kind):
    b = _lost(kind)
    small = Network(hidden=(6,), n_outputs=5, encoder="tesauro198", seed=1)
    for net in (shipped, small):
        assert net.evaluate(b).tolist() == EXACT[kind]
        assert net.evaluate(np.stack([b, b])).tolist() == [EXACT[kind]] * 2
        assert net.equity(b[None])[0] == pytest.approx(-kind)
    assert Searcher(shipped).evaluate(b).tolist() == EXACT[kind]
    for plies in (0, 1, 2):
        assert Engine("net", plies=plies).evaluate(b, plies=plies).tolist() == EXACT[kind]


def test_the_mirror_case_is_refused_alike(shipped):
    b = _lost(3)[::-1].copy()          # the side on roll has no checker left
    small = Network(hidden=(6,), n_outputs=5, encoder="tesauro198", seed=1)
    for net in (shipped, small):
        with pytest.raises(ValueError, match="finished game"):
            net.evaluate(b)


def test_a_finished_game_has_no_plays_and_no_hint():
    pos = Position(_lost(3))
    assert pos.is_game_over() and pos.result() == -3
    with pytest.raises(ValueError, match="game is over"):
        pos.legal_moves(3, 1)
    with pytest.raises(ValueError, match="game is over"):
        Engine("net").hint(GameState.from_string(position_id(_lost(3))))


def test_cli_values_a_finished_game_and_refuses_hints(capsys):
    pid = position_id(_lost(3))
    assert main(["eval", pid, "--plies", "0"]) == 0
    assert "cubeless equity -3.000" in capsys.readouterr().out
    assert main(["hint", pid]) == 2
    assert "the game is over" in capsys.readouterr().err
    assert main(["moves", pid, "31"]) == 2
    assert "the game is over" in capsys.readouterr().err
