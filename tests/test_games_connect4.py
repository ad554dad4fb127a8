"""bgengine.games.connect4: positions, players by name, matches, the concept positions."""

from __future__ import annotations

import io
import json

import pytest

from bgengine.cli import main

from bgengine.core.connect4 import Board
from bgengine.core.connect4_solver import Solver
from bgengine.core.dice import Dice
from bgengine.games import connect4
from bgengine.games.connect4 import (Position, classify_concept, concept_rates, line_kinds,
                                     load_concepts, make_player, match)


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver(1_000_003)


def test_specs_make_the_players():
    assert make_player("random").kind == "random"
    mm4 = make_player("mm4")
    assert (mm4.kind, mm4.depth, mm4.epsilon) == ("minimax", 4, connect4.STUDY_EPSILON)
    assert make_player("mm3-greedy").epsilon == 0.0
    assert make_player("mm2@0.5").epsilon == 0.5
    assert make_player("sim700").playouts == 700
    assert make_player("perfect").kind == "perfect"
    for bad in ("mm", "minimax", "sim", "net"):
        with pytest.raises(ValueError, match="Connect Four player"):
            make_player(bad)


def test_match_by_specs():
    r = match("mm2", "random", games=100, seed=1)
    assert r["games"] == 100 and r["a_wins"] > r["b_wins"]


def test_position_solves(solver):
    p = Position.from_moves("4455")
    assert p.solve(solver) == {"score": 18, "outcome": "win", "plies": 3, "best": [2, 5]}
    assert Position("44455554221").solve(solver)["outcome"] == "loss"
    assert p.play(2).moves == "44553" and p.result() == -1
    with pytest.raises(ValueError):
        Position("4444444")


def test_line_kinds():
    row = sum(1 << (c * 7) for c in range(4))
    assert line_kinds(row, 0, 0) == {"row"}
    column = sum(1 << r for r in range(4))
    assert line_kinds(column, 0, 2) == {"column"}
    diagonal = sum(1 << (k * 7 + k) for k in range(4))
    assert line_kinds(diagonal, 2, 2) == {"diagonal"}
    assert line_kinds(diagonal, 1, 0) == set()


def test_the_sixty_concept_positions(solver):
    concepts = load_concepts()
    assert len(concepts) == 60 and len({c.moves for c in concepts}) == 60
    for kind in ("attack", "defence"):
        for line in ("row", "column", "diagonal"):
            assert sum(c.kind == kind and c.line == line for c in concepts) == 10
    for c in concepts:
        board = Board.from_moves(c.moves)
        if c.kind == "attack":
            assert board.winning_moves() == [c.answer]
        else:
            assert board.winning_moves() == []
            for col in board.legal_moves():         # not blocking loses at once
                if col != c.answer:
                    after = board.copy()
                    after.play(col)
                    assert c.answer in after.winning_moves()
        assert classify_concept(c.moves, solver) == c
    # the defences are the attacks inverted: the same stones, the other side to move
    attacks = [c for c in concepts if c.kind == "attack"]
    defences = [c for c in concepts if c.kind == "defence"]
    for a, d in zip(attacks, defences):
        ba, bd = Board.from_moves(a.moves), Board.from_moves(d.moves)
        assert bd.mask == ba.mask and bd.own == ba.own ^ ba.mask
        assert (d.line, d.answer) == (a.line, a.answer)


def test_moves_of_reaches_the_position():
    for seq in ("", "4453", "2252576253462244111563365343671351441"):
        board = Board.from_moves(seq)
        assert Board.from_moves(connect4.moves_of(board)) == board
    # four stones of the second player stacked on the first's one: no game reaches it
    assert connect4.moves_of(Board.from_bits(0b11110, 0b11111 | 1 << 7 | 1 << 14 | 1 << 21)) \
        is None


def test_concept_rates():
    perfect = concept_rates(lambda b: Solver(100003).best_moves(b, weak=True)[0])
    assert perfect["all"] == 1.0
    dice = Dice(0)
    player = make_player("random")
    rates = concept_rates(lambda b: player.move(b, dice))
    assert set(rates) == {"all", "attack", "defence", "row", "column", "diagonal",
                          *(f"{k}_{l}" for k in ("attack", "defence")
                            for l in ("row", "column", "diagonal"))}
    assert rates["all"] < 0.5


def test_match_command_plays_connect4(capsys):
    assert main(["match", "connect4:mm2", "connect4:random", "--games", "51", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["game"] == "connect4" and r["games"] == 51
    assert r["a_wins"] + r["b_wins"] + r["draws"] == 51 and r["score"] > 0.6
    assert main(["match", "connect4:mm4", "connect4:random", "--games", "10"]) == 0
    assert "score" in capsys.readouterr().out
    assert main(["match", "connect4:mm4", "pubeval", "--games", "10"]) == 2


def test_console_game_to_the_end():
    from bgengine.games.connect4_console import play_connect4

    out = io.StringIO()
    # the human stacks column 1; the greedy MM2 player blocks at once, so the human keeps
    # playing the next open column until the game ends
    moves = "\n".join(["9", "hint"] + [str(c) for c in range(1, 8) for _ in range(6)]) + "\n"
    assert play_connect4(io.StringIO(moves), out, "mm2-greedy", seed=1) == 0
    text = out.getvalue()
    assert "'9' is no open column" in text and "hints from 12 stones" in text
    assert text.rstrip().endswith(("You win.", "mm2-greedy wins.", "A draw."))


def test_play_command_takes_the_game(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("4\nquit\n"))
    assert main(["play", "--game", "connect4", "--player", "random", "--second"]) == 0
    text = capsys.readouterr().out
    assert "against random" in text and "random plays" in text


def test_agreement_with_the_solver(solver):
    positions = connect4.random_positions(20, seed=3, min_stones=16)
    assert len(positions) == 20
    for seq in positions:
        board = Board.from_moves(seq)
        assert board.moves >= 16 and board.legal_moves()
    perfect = connect4.solver_agreement(lambda b: solver.best_moves(b)[0], positions, solver)
    assert perfect == {"exact": 1.0, "outcome": 1.0}
    dice, player = Dice(0), make_player("random")
    rnd = connect4.solver_agreement(lambda b: player.move(b, dice), positions, solver)
    assert rnd["exact"] <= rnd["outcome"] < 1.0
