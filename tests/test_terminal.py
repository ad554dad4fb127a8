"""``bgengine play``: terminal play driven through its input stream.

Games are driven either by a plain script (``io.StringIO``) or by :class:`Bot`,
an input stream that answers each prompt by looking at the session (the
first legal play, typed in its notation, so every move goes through the real
notation parser).  Dice are seeded or fixed, so every run is the same.
"""

from __future__ import annotations

import io
import random
import re

import numpy as np
import pytest

from bgengine.core.dice import Dice
from bgengine.notation.ids import match_state_from_id
from bgengine.core.network import Network
from bgengine.terminal import ENGINE, HUMAN, PlaySession
from bgengine.position import Position
from bgengine.decisions.engine import Engine
from game_positions import board_from_points

# A small random network: fast, deterministic, 5 outputs like the shipped one.
NET = Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=11)



# '13/5' with 5-3 could be 13/8*/5 or 13/10*/5 (tests/test_notation.py)
AMBIGUOUS = Position(board_from_points({13: 5, 6: 5, 4: 3, 24: 2}, {8: 1, 10: 1, 12: 4, 17: 3, 19: 5, 1: 1}))
# 6-2: only 20/14 can be played
ONE_DIE = Position(board_from_points({20: 1}, {12: 2, 24: 13}))
# 6-5 cannot enter from the bar
DANCE = Position.from_id("2nY3AADvEwAAXg")


class FixedDice:
    """These rolls first, then seeded dice; state save/restore for undo."""

    def __init__(self, rolls, seed=0):
        self.rolls, self.i, self.rest = list(rolls), 0, Dice(seed)

    def roll(self):
        if self.i < len(self.rolls):
            self.i += 1
            return self.rolls[self.i - 1]
        return self.rest.roll()

    def getstate(self):
        return {"i": self.i, "rest": self.rest.getstate()}

    def setstate(self, st):
        self.i = st["i"]
        self.rest.setstate(st["rest"])


class Bot:
    """An input stream answering each prompt from the session's state.

    ``script`` maps a prompt kind (``preroll``, ``move``, ``take``) to lines
    sent, in order, the next times that kind of prompt is shown; otherwise it
    rolls, plays the first legal play (by its notation) and takes.  ``policy``
    (session -> line or None) overrides everything.  Every line sent is kept
    in ``sent``; after ``limit`` lines, end of input.
    """

    def __init__(self, script=None, policy=None, limit=4000):
        self.script = {k: list(v) for k, v in (script or {}).items()}
        self.policy, self.limit = policy, limit
        self.session: PlaySession | None = None
        self.sent: list[str] = []

    def readline(self):
        s = self.session
        if len(self.sent) >= self.limit:
            return ""
        line = None
        if self.policy is not None:
            line = self.policy(s)
        elif self.script.get(s.prompt_kind):
            line = self.script[s.prompt_kind].pop(0)
        elif s.prompt_kind == "preroll":
            line = "roll"
        elif s.prompt_kind == "move":
            line = s.legal[0].notation
        elif s.prompt_kind == "take":
            line = "take"
        if line is None:
            return ""
        self.sent.append(line)
        return line + "\n"


class StubEngine(Engine):
    """The real cube engine with chosen answers (and a record of the questions)."""

    def __init__(self, double=False, take=True, accept=True, doubles=1):
        super().__init__(player="pubeval", network=NET)
        self.double, self.take, self.accept, self.doubles = double, take, accept, doubles
        self.calls = []

    def cube_decision(self, board, state, jacoby=None):
        self.calls.append(("double", state))
        if self.double and self.doubles > 0:
            self.doubles -= 1
            return True
        return False

    def take_decision(self, board, state):
        self.calls.append(("take", state))
        return self.take

    def resign_decision(self, board, state, level, jacoby=None):
        self.calls.append(("resign", level))
        return self.accept(level) if callable(self.accept) else self.accept


def session(inp, **kw):
    kw.setdefault("seed", 1)
    kw.setdefault("network", NET)
    s = PlaySession(inp, io.StringIO(), **kw)
    if isinstance(inp, Bot):
        inp.session = s
    return s


def text(s: PlaySession) -> str:
    return s.output.getvalue()


def script(*lines) -> io.StringIO:
    return io.StringIO("".join(line + "\n" for line in lines))


def match_ids(out: str) -> list[str]:
    return re.findall(r"Match ID: (\S{12})", out)


# ---------------------------------------------------------------- whole games

def test_full_money_game_first_legal_play_and_exact_replay():
    bot = Bot()
    s = session(bot, seed=5, games=1)
    assert s.run() == 0
    out = text(s)
    assert s.finished and s.games_played == 1 and sum(s.score) >= 1
    assert re.search(r"(You win|The engine wins) game 1: ", out)
    assert "You play " in out and "The engine rolls " in out
    assert "could not be handled" not in out and "Illegal move" not in out
    n_moves = out.count("You play ")
    assert n_moves >= 5
    # same seed + the same lines from a plain text stream: the same session, word for word
    s2 = session(script(*bot.sent), seed=5, games=1)
    assert s2.run() == 0
    assert text(s2) == out


def test_full_match_with_real_cube_engine():
    bot = Bot()
    s = session(bot, seed=2, match_length=3)
    assert s.run() == 0
    out = text(s)
    assert max(s.score) >= 3 and re.search(r"(You win|The engine wins) the match \d+-\d+", out)
    assert s.games_played >= 1 and "could not be handled" not in out
    for mid in match_ids(out):           # every Match ID shown decodes to this match
        st = match_state_from_id(mid)
        assert st.match_length == 3 and st.cube >= 1


# ---------------------------------------------------------------- board and ids

def test_board_drawing_pips_and_ids():
    s = session(script("show", "quit"), dice=FixedDice([(3, 1)]))
    assert s.run() == 0
    out = text(s)
    assert "you go first with 3-1" in out
    assert "+13-14-15-16-17-18-+BAR+19-20-21-22-23-24-+" in out
    assert "X you:    pips 167" in out and "O engine: pips 167" in out
    assert "Position ID: 4HPwATDgc/ABMA" in out
    st = match_state_from_id(match_ids(out)[0])
    assert st.match_length == 0 and st.player_on_roll == HUMAN and st.dice == (3, 1)
    assert "Leaving the game." in out


# ---------------------------------------------------------------- hints

def _cli_hint(tmp_path, capsys, gnubg_id: str, plies: int, *extra: str) -> str:
    """What ``bgengine hint`` prints for ``gnubg_id`` with NET: the advice, without the board."""
    from bgengine.cli import main

    net = tmp_path / "net.npz"
    NET.save(net)
    capsys.readouterr()
    assert main(["hint", gnubg_id, "--plies", str(plies), "--player", str(net), *extra]) == 0
    out = capsys.readouterr().out
    return out[out.index("\n\n") + 2:]          # the advice follows the state's drawing


def _shown_ids(out: str) -> list[str]:
    return [f"{p}:{m}" for p, m in re.findall(r"Position ID: (\S+)   Match ID: (\S+)", out)]


def test_hint_shows_what_bgengine_hint_shows_for_the_plays(tmp_path, capsys):
    s = session(script("show", "hint", "hint 3", "hint x", "8/5 6/5"),
                dice=FixedDice([(3, 1)]), hint_plies=1, match_length=5)
    s.run()
    out = text(s)
    state = _shown_ids(out.split("Best plays")[0])[-1]      # 'show', the dice rolled
    assert state.endswith(match_id_with_dice(state, (3, 1)))
    full = _cli_hint(tmp_path, capsys, state, 1)
    assert full in out and "Best plays for 3-1 at 1-ply (match-winning chance of the mover)" in full
    values = [float(v) for v in re.findall(r"1-ply\s+(\d+\.\d+)%", full)]
    assert len(values) == 5 and values == sorted(values, reverse=True)
    assert "gammon" in full and "(-" in full                      # probabilities, differences
    assert _cli_hint(tmp_path, capsys, state, 1, "--num", "3") in out
    assert "hint takes a number" in out and "You play 8/5 6/5." in out


def match_id_with_dice(gnubg_id: str, dice) -> str:
    """The Match ID part of ``gnubg_id``, checked to carry ``dice``."""
    mid = gnubg_id.split(":")[1]
    assert sorted(match_state_from_id(mid).dice) == sorted(dice)
    return mid


def test_hint_at_zero_ply_agrees_with_searcher():
    from bgengine.core.search import Searcher

    s = session(script("hint 1"), dice=FixedDice([(4, 2)]), hint_plies=0)
    s.run()
    idx = Searcher(NET).rank_moves(Position.initial().board, 4, 2, 0)[0][0]
    best = Position.initial().legal_moves(4, 2)[idx].notation
    assert re.search(rf"1\. {re.escape(best)}\s+0-ply\s+[+-]\d\.\d{{3}}", text(s))


def test_hint_before_rolling_and_when_doubled_is_bgengine_hint_s_cube_action(tmp_path, capsys):
    s = session(Bot(script={"preroll": ["hint", "quit"]}), position=Position.initial())
    s.run()
    out = text(s)
    full = _cli_hint(tmp_path, capsys, _shown_ids(out)[-1], 2)
    assert full in out and "Cube action at 2-ply (cubeful equity per cube" in full
    for words in ("No double", "Double, take", "Double, pass", "Proper action: "):
        assert words in full

    bot = Bot(script={"take": ["hint", "take"]}, limit=10)
    s = session(bot, dice=FixedDice([(1, 2)]), engine=StubEngine(double=True),  # engine opens
                match_length=3)
    s.run()
    out = text(s)
    assert "The engine doubles to 2." in out
    doubled = _shown_ids(out.split("The engine doubles to 2.")[1])[0]
    assert match_state_from_id(doubled.split(":")[1]).double_offered
    full = _cli_hint(tmp_path, capsys, doubled, 2)
    assert full in out and "Proper action: " in full and "match-winning chance" in full
    took = "take" in full.split("Proper action: ")[1].splitlines()[0].replace("no double", "")
    assert f"In your place the engine would {'take' if took else 'drop'}." in out
    assert "You take. The cube is at 2, yours." in out


def test_hint_without_a_network():
    s = PlaySession(script("hint", "quit"), io.StringIO(), seed=1, network=None,
                    dice=FixedDice([(3, 1)]), player="pubeval")
    s.network = s.side.network = s.side.searcher = None       # as when none is installed
    s.run()
    assert "No network loaded, so no equities; the engine (pubeval) would play" in text(s)


# ---------------------------------------------------------------- undo

def test_undo_takes_back_the_last_move_with_the_same_dice():
    rolls = [(3, 1), (6, 5), (2, 2)]           # opening: you 3-1; engine 6-5; you 2-2
    bot = Bot(script={"move": ["undo", "8/5 6/5", "undo", "24/23 13/10"],
                      "preroll": ["roll", "roll"]}, limit=9)
    s = session(bot, dice=FixedDice(rolls), engine=StubEngine())
    s.run()
    out = text(s)
    assert "Nothing to undo" in out
    assert out.count("Your last move is taken back: you are to play 3-1 again.") == 1
    # after the undo the engine's reply gets the same dice as before
    assert out.count("The engine rolls 6-5") == 2
    assert "You play 24/23 13/10." in out
    assert s.g.board.position_id != Position.initial().position_id


def test_undo_restores_cube_and_board():
    eng = StubEngine(double=True)
    rolls = [(3, 1), (6, 5)]
    bot = Bot(script={"move": ["8/5 6/5", "undo"], "take": ["take"]}, limit=4)
    s = session(bot, dice=FixedDice(rolls), engine=eng)
    s.run()
    out = text(s)
    assert "You take." in out and "taken back" in out
    assert s.g.cube == 1 and s.g.cube_owner == -1 and s.g.dice == (3, 1)
    assert s.g.board == Position.initial()


# ---------------------------------------------------------------- illegal, ambiguous, forced

def test_illegal_and_ambiguous_moves():
    s = session(script("roll", "13/5", "24/1", "13/9", "", "moves", "8/4 3/1 nonsense",
                       "roll", "take", "double", "13/8*/5"),
                position=AMBIGUOUS, dice=FixedDice([(5, 3)]), engine=StubEngine())
    s.run()
    out = text(s)
    assert ("Ambiguous move: '13/5' is ambiguous with 5-3: it could be '13/8*/5' or '13/10*/5'"
            in out)
    assert "Illegal move: 24/1" in out
    assert out.count("Type 'moves' to list the") >= 3
    n = len(AMBIGUOUS.legal_moves(5, 3))
    assert f"The {n} legal plays of 5-3:" in out
    assert "You have already rolled 5-3" in out
    assert "There is no double to answer" in out
    assert "You can only double before you roll." in out
    assert "You play 13/8*/5." in out


def test_a_mistyped_command_gets_the_command_it_meant():
    # at the move prompt: 'hnit' is no move, and it is nearly 'hint'
    s = session(script("hnit", "mvoes", "xyzzy", "bar", "24/21 24/23 24/22", "8/5 6/5"),
                dice=FixedDice([(3, 1)]),
                engine=StubEngine())
    s.run()
    out = text(s)
    assert "Unknown command 'hnit': did you mean 'hint'?" in out
    assert "Unknown command 'mvoes': did you mean 'moves'?" in out
    assert "cannot parse move 'hnit'" not in out
    # nothing close: the parser's own message; 'bar' spells a move, so no 'board' for it
    assert "Illegal move: cannot parse move 'xyzzy'" in out
    assert "did you mean 'board'" not in out and "Illegal move: cannot parse move 'bar'" in out
    # three steps from a point with two checkers: the third is the one at fault
    assert "Illegal move: 24/22: no checker left on 24." in out
    assert "You play 8/5 6/5." in out
    # before rolling, and when doubled
    s = session(script("dobule", "roll", "quit"), engine=StubEngine(), dice=FixedDice([(3, 1), (4, 2)]),
                position=Position.initial())
    s.run()
    assert "Unknown command 'dobule': did you mean 'double'?" in text(s)
    bot = Bot(script={"take": ["tkae", "take"]}, limit=12)
    s = session(bot, dice=FixedDice([(1, 2)]), engine=StubEngine(double=True))  # engine opens
    s.run()
    assert "Unknown command 'tkae': did you mean 'take'?" in text(s)
    assert "You take." in text(s)


def test_forced_and_impossible_plays_are_automatic():
    s = session(script("roll", "quit"), position=DANCE, dice=FixedDice([(6, 5), (1, 1)]),
                engine=StubEngine())
    s.run()
    assert "You rolled 6-5: no legal play. Your turn passes." in text(s)
    assert "The engine rolls 1-1" in text(s)

    s = session(script("roll", "quit"), position=ONE_DIE, dice=FixedDice([(6, 2)]),
                engine=StubEngine())
    s.run()
    assert "only one legal play, 20/14; played for you." in text(s)


# ---------------------------------------------------------------- resign

def test_resign_declined_then_accepted():
    eng = StubEngine(accept=lambda level: level >= 2)
    s = session(script("resign", "resign banana", "resign gammon"), games=1,
                dice=FixedDice([(3, 1)]), engine=eng)
    assert s.run() == 0
    out = text(s)
    assert "You offer to resign a single game (1 point); the engine declines: play on." in out
    assert "resign what?" in out
    assert "You resign a gammon; the engine accepts." in out
    assert s.score == [2, 0] and s.games_played == 1


def test_resign_backgammon_real_engine_accepts():
    s = session(script("resign backgammon"), games=1, dice=FixedDice([(3, 1)]))
    s.run()
    assert "the engine accepts" in text(s) and s.score == [3, 0]


# ---------------------------------------------------------------- cube, money play

def test_money_double_take_then_redouble_by_engine_and_drop():
    eng = StubEngine(take=True)
    # you are on roll before rolling (start position given): double; the engine takes
    bot = Bot(script={"preroll": ["double"]}, limit=3)
    s = session(bot, position=Position.initial(), engine=eng)
    s.run()
    out = text(s)
    assert "You double to 2." in out and "The engine takes. The cube is at 2" in out
    assert s.g.cube == 2 and s.g.cube_owner == ENGINE
    st = [c[1] for c in eng.calls if c[0] == "take"][0]
    assert st.player_on_roll == HUMAN and st.cube == 1
    # the engine owns the cube: you are not asked roll-or-double any more
    assert "Your turn: roll or double?" not in out.split("The engine takes.")[1]

    eng = StubEngine(take=False)
    s = session(script("double"), position=Position.initial(), engine=eng, games=1)
    s.run()
    assert "The engine drops." in text(s) and s.score == [0, 1]


def test_money_engine_doubles_you_take_and_redouble():
    eng = StubEngine(double=True, take=True)
    bot = Bot(script={"take": ["roll", "maybe", "take"], "preroll": ["roll", "double"]}, limit=8)
    s = session(bot, dice=FixedDice([(1, 2)]), engine=eng)      # engine opens with 2-1
    s.run()
    out = text(s)
    assert "The engine doubles to 2." in out
    assert "answer 'take' or 'drop' first" in out and "Answer the double with 'take' or 'drop'" in out
    assert "You take. The cube is at 2, yours." in out
    st = match_state_from_id(match_ids(out.split("The engine doubles to 2.")[1])[0])
    assert st.double_offered and st.player_on_roll == ENGINE and st.turn == HUMAN and st.cube == 1
    assert "You double to 4." in out and "The engine takes. The cube is at 4" in out
    assert s.g.cube == 4 and s.g.cube_owner == ENGINE


def test_engine_double_dropped_in_money_and_match():
    for length in (0, 3):
        eng = StubEngine(double=True)
        bot = Bot(script={"take": ["drop"]}, limit=3)
        s = session(bot, dice=FixedDice([(1, 2)]), engine=eng, match_length=length,
                    games=1 if not length else None)
        s.run()
        out = text(s)
        assert "You drop." in out and "The engine wins game 1: you dropped" in out
        assert s.score == [1, 0]


def test_jacoby_gammon_resign_counts_single():
    eng = StubEngine()
    s = session(script("resign gammon"), games=1, dice=FixedDice([(3, 1)]), engine=eng,
                jacoby=True)
    s.run()
    assert s.score == [1, 0] and "Jacoby rule" in text(s)


# ---------------------------------------------------------------- match play, Crawford

def test_crawford_game_has_no_doubling():
    eng = StubEngine(double=True, doubles=100)
    bot = Bot(script={"move": ["resign", "double", "show", "resign"]})
    s = session(bot, match_length=2, engine=eng, dice=FixedDice([(3, 1), (4, 2)]))
    assert s.run() == 0
    out = text(s)
    assert "The next game is the Crawford game: no doubling." in out
    game2 = out.split("=== Game 2 (Crawford game: no doubling) ===")[1]
    assert "You cannot double: there is no doubling in the Crawford game." in game2
    assert "The engine doubles" not in game2 and "roll or double" not in game2
    assert all(c[0] != "double" or not c[1].crawford for c in eng.calls)
    assert match_state_from_id(match_ids(game2)[0]).crawford
    assert "The engine wins the match 2-0." in out and s.score == [2, 0]


def test_post_crawford_trailer_engine_doubles_at_once():
    # you lead 2-0 in a match to 3 after the Crawford game: the engine, trailing,
    # doubles at its first chance (the real cube model, given ordinary gammon rates;
    # the tiny random test network thinks nearly every win is a backgammon)
    class Ordinary(Engine):
        def evaluate(self, board, plies=0):
            return np.array([0.5, 0.13, 0.006, 0.13, 0.006])

    bot = Bot(script={"take": ["take"]}, limit=3)
    s = session(bot, match_length=3, dice=FixedDice([(1, 2)]),
                engine=Ordinary(player="pubeval", network=NET))
    s.match.score[:], s.match.crawford_done = [0, 2], True
    s.run()
    out = text(s)
    assert "The engine doubles to 2." in out and "You take." in out
    # you own a dead cube (1 point to go at cube 2): no roll-or-double prompt for you
    assert "roll or double" not in out


def test_post_crawford_you_may_double():
    bot = Bot(script={"preroll": ["double"]}, limit=3)
    s = session(bot, match_length=3, position=Position.initial())
    s.match.score[:], s.match.crawford_done = [2, 0], True
    s.run()
    out = text(s)
    assert "You double to 2." in out
    assert ("The engine takes." in out) or ("The engine drops." in out and s.score == [2, 1])


# ---------------------------------------------------------------- levels and players

@pytest.mark.parametrize("level,expect", [("easy", "20% random"), ("medium", "0-ply"),
                                          ("hard", "2-ply")])
def test_levels(level, expect):
    s = session(script("8/5 6/5", "quit"), level=level, dice=FixedDice([(3, 1), (5, 4)]))
    s.run()
    out = text(s)
    assert f"({level}: " in out and expect in out
    assert "The engine rolls 5-4 and plays " in out


def test_player_spec_and_bad_settings():
    s = session(script("quit"), player="pubeval", dice=FixedDice([(3, 1)]))
    s.run()
    assert "pubeval" in text(s).splitlines()[0]
    for bad in ({"match_length": 65}, {"match_length": -1}, {"level": "expert"},
                {"games": 0}, {"hint_plies": 9}, {"player": "nobody"},
                {"network": "/no/such/net.npz"}, {"position": "not-an-id"}):
        with pytest.raises(ValueError):
            session(script(), **bad)


# ---------------------------------------------------------------- end of input, garbage

@pytest.mark.parametrize("lines", [[], ["roll"], ["8/5 6/5", "roll"], ["resign", "hint"]])
def test_end_of_input_ends_cleanly(lines):
    s = session(script(*lines), dice=FixedDice([(3, 1), (6, 5), (2, 1)]), engine=StubEngine())
    assert s.run() == 0
    out = text(s)
    assert "End of input: leaving the game." in out and "Money play stopped" in out


def test_end_of_input_at_take_prompt():
    bot = Bot(policy=lambda s: None if s.prompt_kind == "take" else (
        s.legal[0].notation if s.prompt_kind == "move" else "roll"))
    s = session(bot, dice=FixedDice([(1, 2)]), engine=StubEngine(double=True))
    assert s.run() == 0
    assert "take or drop?" in text(s) and "End of input" in text(s)


def _garbage(rng: random.Random) -> str:
    kind = rng.randrange(8)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 80))).decode("latin-1")
    if kind == 1:
        return "".join(chr(rng.randrange(1, 0x30000)) for _ in range(rng.randrange(1, 40)))
    if kind == 2:
        return rng.choice(["hint", "resign", "undo", "moves", "show", "score", "double", "take",
                           "drop", "roll", "help", "hint", "?"]) + " " + rng.choice(
            ["", "-1", "99999999999999999999999", "1e9", "nan", "\x00", "gammon", "☃", "2 3"])
    if kind == 3:
        pts = ["bar", "off", "25", "0", "24", "13", "8", "6", "5", "3", "1", "-3", "99", "*", "(2)"]
        return " ".join("/".join(rng.choice(pts) for _ in range(rng.randrange(1, 4)))
                        for _ in range(rng.randrange(1, 5)))
    if kind == 4:
        return "x" * rng.randrange(300, 3000)
    if kind == 5:
        return "".join(rng.choice("/*()0123456789 barof\t\r\x0b\x0c\x1b[") for _ in range(30))
    if kind == 6:
        return "\x00" * rng.randrange(1, 5) + "13/11\r"
    return rng.choice(["", " ", "\t", "\ufeff", "\u202e13/11", "ＨＩＮＴ", "ﬀ", "İ", "24／18"])


def test_fuzz_lines_never_crash():
    rng = random.Random(1234)

    def policy(s):
        if rng.random() < 0.6:
            return _garbage(rng)
        if s.prompt_kind == "move":
            return s.legal[rng.randrange(len(s.legal))].notation
        return {"preroll": rng.choice(["roll", "double", "hint", ""]),
                "take": rng.choice(["take", "drop"])}.get(s.prompt_kind, "")

    for length in (0, 3):
        bot = Bot(policy=policy, limit=700)
        s = session(bot, seed=7, match_length=length, games=2 if not length else None)
        assert s.run() == 0
        out = text(s)
        assert "could not be handled" not in out, out[out.find("could not be handled") - 300:][:600]
        assert s.finished and s.games_played >= 1


def test_fuzz_at_each_prompt_kind():
    rng = random.Random(99)
    lines = [_garbage(rng) for _ in range(150)]
    for kw in ({}, {"position": AMBIGUOUS}, {"engine": StubEngine(double=True)}):
        s = session(script(*lines), dice=FixedDice([(1, 2), (5, 3)]), **kw)
        assert s.run() == 0
        assert "could not be handled" not in text(s)


def test_handler_error_is_reported_not_raised(monkeypatch):
    s = session(script("hint", "quit"), dice=FixedDice([(3, 1)]))
    monkeypatch.setattr(s, "_hint", lambda kind, n: 1 / 0)
    assert s.run() == 0
    assert "could not be handled (ZeroDivisionError" in text(s) and "Leaving the game." in text(s)


def test_output_that_cannot_encode_and_closed_output():
    buf = io.BytesIO()
    out = io.TextIOWrapper(buf, encoding="ascii", errors="strict")
    s = PlaySession(script("☃ snowman", "quit"), out, seed=1, network=NET, echo=True)
    assert s.run() == 0
    out.flush()
    assert b"\\u2603" in buf.getvalue()

    class Closed(io.StringIO):
        def write(self, t):
            raise BrokenPipeError
    s = PlaySession(script("quit"), Closed(), seed=1, network=NET)
    assert s.run() == 0


def _gammon_for_you() -> Position:
    """You (on roll) have two checkers on your 6-point; the engine's fifteen sit on its
    13-point: it cannot bear one off before you finish, a sure gammon for you."""
    b = np.zeros((2, 25), np.uint8)
    b[1, 5], b[0, 12] = 2, 15
    return Position(b)


@pytest.mark.parametrize("answer,points", [("accept", 2), ("reject", None)])
def test_the_engine_offers_to_resign_a_decided_game(answer, points):
    bot = Bot(script={"resignation": ["maybe", answer]}, limit=12)
    s = session(bot, position=_gammon_for_you(), dice=FixedDice([(2, 1), (3, 1), (6, 5)] * 4),
                games=1, engine=Engine("net", plies=0))       # the shipped evaluator judges
    s.run()
    out = text(s)
    assert "The engine offers to resign a gammon (2 points): accept or reject?" in out
    assert "Answer the engine's resignation with 'accept' or 'reject'" in out
    if points:
        assert "You accept: the engine resigns a gammon." in out and s.score == [0, 2]
        assert "You win game 1: the engine resigned a gammon, 2 points." in out
    else:
        # rejected: the engine plays on and does not offer the same again this game
        assert "You reject: play on." in out
        after = out.split("You reject: play on.")[1]
        assert "offers to resign" not in after and s.score == [0, 2]
