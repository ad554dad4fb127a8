"""``bgengine play`` saves the match as it goes and continues it: stopped anywhere (end of
input, Ctrl-C, a killed process) and continued, a session ends exactly as the same
session played without a stop; the file reads back and checks."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from bgengine.decisions.engine import Engine
from bgengine.matchfiles.files import read_match_file
from bgengine.matchfiles.record import Double, Resign, Take, Win
from bgengine.matchfiles.session_file import SessionFileError, load_session
from test_terminal import NET, Bot, session

SEED = 2       # a session with doubles of both sides and a Crawford game (dice high die first)


class EagerEngine(Engine):
    """The real cube engine, but in the first game it doubles as soon as it may."""

    def __init__(self) -> None:
        super().__init__(player="pubeval", network=NET)

    def cube_decision(self, board, state, jacoby=None):
        return (state.cube == 1 and state.score == (0, 0)) or super().cube_decision(
            board, state, jacoby)


def policy(s) -> str:
    """A player that depends on the table only: from the second game on you double at
    the 9th and 10th plays of a game; you take every double and play the first legal play."""
    if s.prompt_kind == "preroll":
        return "double" if s.g.number >= 2 and s.g.plays in (8, 9) else "roll"
    if s.prompt_kind == "move":
        return s.legal[0].notation
    return "take"


class Recorder(Bot):
    """:class:`Bot` with :func:`policy`, keeping the prompt of every line it sends;
    ``interrupt``: raise KeyboardInterrupt (Ctrl-C) instead of sending line ``limit``."""

    def __init__(self, limit=4000, interrupt=False):
        super().__init__(policy=policy, limit=limit)
        self.kinds: list[str] = []
        self.games: list[tuple[int, int]] = []      # (game number, plays made) at each line
        self.interrupt = interrupt

    def readline(self):
        if self.interrupt and len(self.sent) >= self.limit:
            raise KeyboardInterrupt
        self.kinds.append(self.session.prompt_kind)
        g = self.session.g
        self.games.append((g.number, g.plays) if g is not None else (0, 0))
        return super().readline()


def play(path, limit=4000, resume=None, interrupt=False):
    bot = Recorder(limit, interrupt)
    s = session(bot, seed=SEED, match_length=3, engine=EagerEngine(), save=path, resume=resume)
    s.run()
    return s, bot


def without_date(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if "EventDate" not in line)


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """The session played without a stop: (session, bot, file text)."""
    path = tmp_path_factory.mktemp("whole") / "whole.mat"
    s, bot = play(path)
    assert s.match.over and s.error is None
    return s, bot, path.read_text()


def test_the_whole_match_is_in_the_file(whole):
    s, bot, text = whole
    match = read_match_file_text(text)
    assert match.players == ("bgengine", "you") and match.length == 3
    actions = [a for g in match.games for a in g.actions]
    assert Double(0) in actions and Take(1) in actions and Double(1) in actions
    last = match.games[-1].win
    e, h = s.score
    assert last is not None and max(e, h) >= 3 and len(match.games) == s.games_played >= 3
    assert any(g.crawford for g in match.games)
    assert "take" in bot.kinds


def read_match_file_text(text: str):
    from bgengine.matchfiles.mat import read_mat
    return read_mat(text)


@pytest.mark.parametrize("where", ["first move", "after a roll", "take prompt", "second game",
                                   "a game's opening", "ctrl-c"])
def test_stopped_and_continued_ends_as_the_whole_session(whole, tmp_path, where):
    _, bot, text = whole
    kinds = bot.kinds
    limit = {"first move": 1,
             "after a roll": [i for i, k in enumerate(kinds) if k == "move"][6],
             "take prompt": kinds.index("take"),
             "second game": next(i for i, (n, plays) in enumerate(bot.games)
                                 if n == 2 and plays > 2),
             "a game's opening": next(i for i, (n, plays) in enumerate(bot.games)
                                      if n > 1 and plays == 0),
             "ctrl-c": len(kinds) // 3}[where]
    path = tmp_path / "stopped.mat"
    s1, _ = play(path, limit=limit, interrupt=where == "ctrl-c")
    assert not s1.match.over and s1.error is None
    if where == "ctrl-c":
        assert "Interrupted." in s1.output.getvalue()
    saved = load_session(path)
    if where == "take prompt":
        assert saved.standing.doubler == 0            # the engine's double waits for you
    s2, _ = play(path, resume=saved)
    out = s2.output.getvalue()
    assert f"Continuing {path}" in out and s2.error is None and s2.match.over
    assert without_date(path.read_text()) == without_date(text)


def test_undo_and_resign_are_saved(tmp_path):
    path = tmp_path / "u.mat"
    said: list[str] = []

    def undo_then_resign(s):
        if s.prompt_kind == "move" and s._snapshots and "undo" not in said:
            said.append("undo")                       # take your first move back
        elif s.prompt_kind == "move" and "undo" in said and s._snapshots:
            said.append("resign backgammon")          # after the move played again
        else:
            return policy(s)
        return said[-1]

    bot = Bot(policy=undo_then_resign, limit=40)
    s = session(bot, seed=5, match_length=5, save=path,
                engine=Engine(player="pubeval", network=NET))
    s.run()
    out = s.output.getvalue()
    assert "taken back" in out and "You resign a backgammon; the engine accepts." in out
    match = read_match_file(path)
    game = match.games[0]
    assert game.actions[-2] == Resign(1, 3)
    assert "bgengine roll" not in match.metadata or len(match.games) == 2   # no stale roll
    assert game.win.player == 0 and game.win.points in (3, 6, 12)     # 3 times the cube
    you = [a for a in game.actions if getattr(a, "player", None) == 1 and hasattr(a, "dice")]
    assert len(you) == 2        # the move taken back is not in the file, its replay is


def test_a_finished_match_cannot_be_continued(whole, tmp_path):
    path = tmp_path / "done.mat"
    path.write_text(whole[2])
    with pytest.raises(SessionFileError, match="the match is over"):
        load_session(path)


def test_a_game_from_a_set_position_is_not_saved(tmp_path):
    from bgengine.position import Position
    with pytest.raises(ValueError, match="cannot be saved"):
        session(Bot(), position=Position.initial(), save=tmp_path / "p.mat")


KILLED = textwrap.dedent("""
    import os, signal, sys
    sys.path.insert(0, {tests!r})
    from test_terminal_saving import Recorder, play

    class Killer(Recorder):
        def readline(self):
            if len(self.sent) >= {limit}:
                os.kill(os.getpid(), signal.SIGKILL)     # no clean-up of any kind
            return super().readline()

    import test_terminal_saving
    test_terminal_saving.Recorder = Killer
    play({path!r})
""")


def test_a_killed_process_loses_nothing(whole, tmp_path):
    """SIGKILL in the middle of the match (no handler runs); continued, the match ends
    as the whole session; ``bgengine matchfile check`` reads the file."""
    path = tmp_path / "killed.mat"
    limit = len(whole[1].kinds) // 2 + 1
    code = KILLED.format(tests=os.path.dirname(__file__), limit=limit, path=str(path))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=600)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()[-2000:]
    assert not list(tmp_path.glob("*.tmp"))
    check = subprocess.run([sys.executable, "-m", "bgengine", "matchfile", "check", str(path)],
                           capture_output=True, text=True, timeout=300)
    assert check.returncode == 0 and "unfinished" in check.stdout, check.stderr
    s, _ = play(path, resume=load_session(path))
    assert s.match.over
    assert without_date(path.read_text()) == without_date(whole[2])
    check = subprocess.run([sys.executable, "-m", "bgengine", "matchfile", "check", str(path)],
                           capture_output=True, text=True, timeout=300)
    assert check.returncode == 0 and "final" in check.stdout, check.stderr


@pytest.mark.gnubg
def test_gnubg_imports_the_saved_files(whole, tmp_path):
    """The file of the whole match and of a match stopped mid-game (and one stopped
    at a new game's opening roll, its header alone): gnubg imports each (``import
    mat``) and exports the very same games; the whole match as gnubg sees it
    (every action, dice, position before it, results) is bgengine's replay of it."""
    live = pytest.importorskip("test_matfiles_live")
    if live.GNUBG is None:
        pytest.skip("GNU Backgammon (gnubg) is not installed")
    files = {"whole": whole[2]}
    games = whole[1].games
    # stopped at a later game's first line, nothing played in it yet: its header alone
    opening = next(i for i, (n, plays) in enumerate(games) if n > 1 and plays == 0)
    for name, limit in (("middle", len(games) // 3), ("opening", opening)):
        path = tmp_path / f"{name}.mat"
        play(path, limit=limit)
        files[name] = path.read_text()
    saved = load_session(tmp_path / "opening.mat")
    assert saved.standing is None and saved.roll is not None
    assert files["opening"].rstrip().splitlines()[-1].lstrip().startswith("bgengine :")
    commands = []
    for name, text in files.items():
        (tmp_path / f"{name}.in.mat").write_text(text)
        commands += [f"gnubg.command('import mat {name}.in.mat')",
                     f"gnubg.command('export match mat {name}.out.mat')",
                     f"dump('{name}.json')"]
    live.run_gnubg("import gnubg, json\n"
                   "def dump(path):\n"
                   "    with open(path, 'w') as f:\n"
                   "        json.dump(gnubg.match(0, 1, 0, 0), f, default=str)\n"
                   + "".join(c + "\n" for c in commands), tmp_path)
    import json

    from bgengine.matchfiles.mat import read_mat
    for name, text in files.items():
        back = read_mat((tmp_path / f"{name}.out.mat").read_text())
        assert back.games == read_mat(text).games, name
    live.as_gnubg_sees_it(read_mat(files["whole"]),
                          json.loads((tmp_path / "whole.json").read_text()))



def test_a_money_session_with_the_jacoby_rule_goes_on_for_more_games(tmp_path):
    path = tmp_path / "money.mat"
    s = session(Bot(policy=policy), seed=SEED, jacoby=True, games=1, save=path)
    assert s.run() == 0 and s.games_played == 1
    saved = load_session(path)
    assert saved.record.length == 0 and saved.record.jacoby and saved.standing is None
    s2 = session(Bot(policy=policy), games=1, save=path, resume=saved)
    assert s2.jacoby and s2.run() == 0 and s2.games_played == 2        # one more game
    match = read_match_file(path)
    assert len(match.games) == 2 and match.jacoby
    assert list(match.games[1].score) == s.score           # [engine, you]: the file's players 0, 1
