"""Games other than backgammon plug into the commands through the entry-point group
``bgengine.games`` (:mod:`bgengine.other_games`); the small games are one such plug-in."""

from __future__ import annotations

import pytest

from bgengine.cli import main
from bgengine import other_games
from bgengine.games.commands import PLUGIN


def test_the_small_games_are_registered_as_a_plug_in():
    assert PLUGIN in other_games.plugins()
    assert set(other_games.game_names()) >= {"connect4", "tictactoe"}
    assert other_games.owner_of_players(["connect4:mm2", "connect4:random"]) is PLUGIN
    assert other_games.owner_of_players(["net", "pubeval"]) is None
    assert other_games.owner_of_game("tictactoe") is PLUGIN
    assert other_games.owner_of_game("backgammon") is None
    with pytest.raises(ValueError, match="one game"):
        other_games.owner_of_players(["connect4:mm2", "pubeval"])


class _Nim:
    """A plug-in of a game the commands have never heard of."""

    games = ("nim",)
    player_help = "nim:PLAYER (optimal, random)"

    def owns_player(self, spec):
        return spec.startswith("nim:")

    def owns_run_config(self, path):
        return False

    def match(self, args):
        return {"a": args.a, "b": args.b, "games": args.games}, f"{args.a} beat {args.b}"


def test_a_new_games_plug_in_takes_over_the_match_command(monkeypatch, capsys):
    monkeypatch.setattr(other_games, "plugins", lambda: (PLUGIN, _Nim()))
    assert main(["match", "nim:optimal", "nim:random", "--games", "10"]) == 0
    assert capsys.readouterr().out.strip() == "nim:optimal beat nim:random"
    assert main(["match", "nim:optimal", "connect4:random", "--games", "10"]) == 2
    assert "one game" in capsys.readouterr().err
