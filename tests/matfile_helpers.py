"""Shared by the match-file tests: the committed gnubg-made files and a match bgengine plays."""

from __future__ import annotations

import gzip
from pathlib import Path

from bgengine.dice import Dice
from bgengine.engine import Engine
from bgengine.game import CubeGame, MatchScore, game_seed, match_opening
from bgengine.matchrecord import GameRecorder, MatchRecord
from bgengine.players import load_default_network, make_player

DATA = Path(__file__).parent / "data" / "matfiles"
#: The gnubg-made matches and sessions (``make_matfiles.py``), by name.
GNUBG_FILES = sorted(p.stem for p in DATA.glob("gnubg_*.mat"))


def mat_text(name: str) -> str:
    return (DATA / f"{name}.mat").read_text()


def sgf_text(name: str) -> str:
    with gzip.open(DATA / f"{name}.sgf.gz", "rt", encoding="utf-8") as f:
        return f.read()


def bgengine_match(length: int, seed: int, names=("net", "pubeval")) -> MatchRecord:
    """A match (``length`` 0: one money game) played by bgengine's own game loop with
    the cube (:class:`bgengine.game.CubeGame`, the shipped network's cube decisions),
    recorded move by move."""
    net = load_default_network()
    players = tuple(make_player(n) for n in names)
    engines = tuple(Engine(player=p, network=net) for p in players)
    dice = Dice(seed)
    score = MatchScore(length)
    record = MatchRecord(players=tuple(names), length=length)
    while True:
        crawford = score.start_game()
        recorder = GameRecorder(tuple(score.score), crawford)
        game = CubeGame(players, engines, match_length=length, score=list(score.score),
                        crawford=crawford, jacoby=False, seed=game_seed(seed, 0, 0, score.games),
                        recorder=recorder)
        first, opening = match_opening(dice)
        winner, points = game.play(dice, first, opening)
        record.games.append(recorder.finish(winner, points))
        score.record(winner, points)
        if length == 0 or score.over:
            return record
