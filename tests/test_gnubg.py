"""GNU Backgammon as a built-in opponent (:mod:`bgengine.opponents.gnubg`).

Two kinds of test:

* against the real gnubg (marked ``gnubg``, skipped when it is not
  installed): a short match in which every reply was a legal play, gnubg's
  known opening plays, determinism (same seed, same games, whatever the number
  of processes), the command line;
* against a fake "gnubg": a small script standing in for the binary that
  speaks the driver's protocol and plays the first legal play, except when
  told to misbehave once (an illegal reply, dying, hanging) or always.  These
  run everywhere and check that a bad reply is reported and not counted, that
  a dead or hung process is replaced and its game replayed to the same result,
  and that no process is left behind, also after an exception or Ctrl-C.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from bgengine.cli import main
from bgengine.opponents.gnubg import (GnubgConfig, GnubgError, GnubgNotFound, GnubgPlayer, GnubgPool,
                            GnubgSettings, find_gnubg, play_gnubg_match, play_gnubg_pairs)
from bgengine.matches.run import run_match
from bgengine.matches.results import summarize
from bgengine.core.movegen import legal_afterstates
from bgengine.matches.players import default_network_path, make_player
from bgengine.position import Position

import rules_oracle  # noqa: E402  (tests/ is on sys.path: conftest.py)

GNUBG = shutil.which("gnubg") or ("/usr/games/gnubg" if os.path.exists("/usr/games/gnubg") else None)
needs_gnubg = [pytest.mark.gnubg,
               pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed")]
pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc (Linux)")


def _ours() -> object:
    return make_player("net") if default_network_path().exists() else make_player("pubeval")


def _children() -> set[int]:
    """Process ids whose parent is this process (zombies included)."""
    me, out = os.getpid(), set()
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            text = Path(f"/proc/{d}/stat").read_text()
        except OSError:
            continue
        if int(text[text.rindex(")") + 2:].split()[1]) == me:
            out.add(int(d))
    return out


@pytest.fixture
def no_leftovers():
    """Fails the test if it leaves a child process (running or zombie) behind."""
    before = _children()
    yield
    left = _children() - before
    assert not left, f"child processes left behind: {sorted(left)}"


# ====================================================================== a fake gnubg

FAKE = textwrap.dedent('''\
    #!{python}
    # Stands in for gnubg: checks the arguments bgengine gives it, then speaks the
    # driver's protocol, answering with the first legal play of the pure-Python
    # rules in tests/rules_oracle.py (no numpy, no bgengine: it starts fast).
    # FAKE_MODE picks a misbehaviour at request FAKE_AT of a process: illegal,
    # garbage, die, hang; with FAKE_ONCE (a path) only the first process to get
    # there misbehaves.
    import os, sys, time
    sys.path.insert(0, {tests!r})
    import rules_oracle

    args = sys.argv[1:]
    assert args[:3] == ["-t", "-q", "-r"] and "-s" in args and "-p" in args, args
    assert args[args.index("-p") + 1].endswith("gnubg_driver.py"), args
    assert os.environ["HOME"] == args[args.index("-s") + 1], "HOME must be the private prefs dir"
    mode, at = os.environ.get("FAKE_MODE", ""), int(os.environ.get("FAKE_AT", "3"))
    once = os.environ.get("FAKE_ONCE")
    if mode == "nostart":
        print("fake gnubg: cannot run Python scripts", flush=True)
        sys.exit(3)
    print("GNU Backgammon (fake)\\nThe number of threads has been set to 1.")
    print("@@ready fake", flush=True)

    def misbehave(n):
        if not mode or n != at:
            return False
        if once is None:
            return True
        try:
            os.close(os.open(once, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            return True
        except FileExistsError:
            return False

    n = 0
    for line in sys.stdin:
        parts = line.split()
        if parts and parts[0] == "q":
            break
        n += 1
        ident, nums = parts[1], [int(x) for x in parts[2:]]
        plies, prune, d1, d2 = nums[:4]
        board = (nums[4:29], nums[29:54])
        if misbehave(n):
            if mode == "illegal":
                print("@@ok", ident, "2 5", flush=True)        # backwards: never legal
                continue
            if mode == "garbage":
                print("@@ok", ident, "24 x", flush=True)
                continue
            if mode == "die":
                os._exit(1)
            if mode == "hang":
                time.sleep(3600)
        steps = next(iter(rules_oracle.legal_plays(board, d1, d2).values()))
        print("@@ok", ident, " ".join(str(v) for step in steps for v in step), flush=True)
''')


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """Path of the fake gnubg; ``fake.env(mode, at, once)`` sets its behaviour."""
    path = tmp_path / "fake-gnubg"
    path.write_text(FAKE.format(python=sys.executable, tests=str(Path(__file__).parent)))
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)

    class Fake:
        binary = str(path)

        @staticmethod
        def env(mode: str = "", at: int = 3, once: bool = True) -> None:
            monkeypatch.setenv("FAKE_MODE", mode)
            monkeypatch.setenv("FAKE_AT", str(at))
            if once:
                monkeypatch.setenv("FAKE_ONCE", str(tmp_path / "fake-misbehaved"))
            else:
                monkeypatch.delenv("FAKE_ONCE", raising=False)

    Fake.env()
    return Fake


def _fake_player(fake, **config) -> GnubgPlayer:
    return GnubgPlayer(GnubgSettings(0), GnubgConfig(binary=fake.binary, **config))


def test_fake_plays_legal_games(fake, no_leftovers):
    res = play_gnubg_pairs(_ours(), _fake_player(fake, processes=2), 4, seed=5)
    assert not res.bad.any() and res.replays == 0 and res.requests > 20
    assert set(np.abs(res.points).ravel()) <= {1, 2, 3} and (res.moves > 10).all()


def test_illegal_reply_is_reported_not_counted(fake, no_leftovers):
    clean = play_gnubg_pairs(_ours(), _fake_player(fake, processes=2), 4, seed=5)
    fake.env("illegal", at=3)
    result = play_gnubg_match(_ours(), _fake_player(fake, processes=2), 8, seed=5)
    assert result.bad_games == 1
    assert result.games == 6                       # the bad game's pair is left out
    assert "not a legal play" in result.bad_examples[0]
    assert "checkers move from higher to lower" in result.bad_examples[0]
    assert "1 games with a bad reply" in str(result)
    # the pairs kept are the clean run's, game for game
    pair = int(re.match(r"pair (\d+) game [01]: ", result.bad_examples[0]).group(1))
    kept = summarize("a", "b", np.delete(clean.points, pair, axis=0),
                     np.delete(clean.moves, pair, axis=0))
    assert (result.ppg, result.ci95, result.mean_moves) == (kept.ppg, kept.ci95, kept.mean_moves)


def test_garbage_reply_is_reported(fake, no_leftovers):
    fake.env("garbage", at=2)
    res = play_gnubg_pairs(_ours(), _fake_player(fake, processes=1), 2, seed=1)
    assert res.bad.sum() == 1 and "not a legal play" in res.reasons[0]


@pytest.mark.parametrize("mode", ["die", "hang"])
def test_dead_or_hung_process_is_replaced_and_the_game_replayed(fake, mode, no_leftovers):
    fake.env()
    clean = play_gnubg_pairs(_ours(), _fake_player(fake, processes=2), 3, seed=9)
    fake.env(mode, at=4)
    res = play_gnubg_pairs(_ours(), _fake_player(fake, processes=2, timeout=1.0), 3, seed=9)
    assert res.replays == 1 and not res.bad.any()
    assert np.array_equal(res.points, clean.points) and np.array_equal(res.moves, clean.moves)


def test_process_that_keeps_failing_gives_a_bad_game(fake, no_leftovers):
    fake.env("die", at=1, once=False)
    res = play_gnubg_pairs(_ours(), _fake_player(fake, processes=1, replays=1), 1, seed=2)
    assert res.bad.all() and res.replays == 2          # each game: one replay, then reported
    assert all("failed 2 times" in r and "exited with code 1" in r for r in res.reasons)


def test_binary_that_cannot_start(fake, no_leftovers):
    fake.env("nostart")
    with pytest.raises(GnubgError, match="could not start the driver.*cannot run Python"):
        GnubgPool(GnubgConfig(binary=fake.binary, processes=2))


class _Boom(Exception):
    pass


class _Failing:
    """A player that raises on its ``fail_at``-th play."""

    name = "failing"

    def __init__(self, fail_at: int) -> None:
        self.inner, self.calls, self.fail_at = _ours(), 0, fail_at

    def choose(self, board, d1, d2, seed=0):
        self.calls += 1
        if self.calls == self.fail_at:
            raise _Boom("our side failed")
        return self.inner.choose(board, d1, d2, seed)


def test_no_process_left_after_an_exception(fake, no_leftovers):
    with pytest.raises(_Boom):
        play_gnubg_match(_Failing(25), _fake_player(fake, processes=3), 8, seed=3)


def test_pool_used_again_after_an_exception_ignores_stale_replies(fake, no_leftovers):
    with _fake_player(fake, processes=3) as g:
        pool = g.pool()
        with pytest.raises(_Boom):                 # leaves requests unanswered...
            pool.play_pairs(_Failing(25), g, 4, seed=3)
        again = pool.play_pairs(_ours(), g, 4, seed=3)   # ... whose replies must be ignored
    clean = play_gnubg_pairs(_ours(), _fake_player(fake, processes=2), 4, seed=3)
    assert not again.bad.any()
    assert np.array_equal(again.points, clean.points) and np.array_equal(again.moves, clean.moves)


def test_no_process_left_after_ctrl_c(fake, no_leftovers):
    def progress(done: int, total: int) -> None:
        if done == 2:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        run_match(_ours(), _fake_player(fake, processes=3), 8, seed=3, progress=progress)


def test_pool_closes_twice_and_player_pool_is_reused(fake, no_leftovers):
    with _fake_player(fake, processes=2) as g:
        pool = g.pool()
        assert len(pool.pids) == 2 and g.pool() is pool
        board = Position.initial().board
        k = g.choose(board, 3, 1)
        first = next(iter(rules_oracle.legal_plays(board, 3, 1)))     # the fake's play
        assert tuple(map(tuple, legal_afterstates(board, 3, 1)[0][k].tolist())) == first
        pool.close()
        pool.close()


# ====================================================================== finding gnubg

def test_missing_binary_is_a_clear_error(tmp_path, monkeypatch):
    missing = str(tmp_path / "no-such-gnubg")
    with pytest.raises(GnubgNotFound, match=r"^gnubg not found: install GNU Backgammon "
                                            r"\(apt-get install gnubg\) or put it on PATH"):
        find_gnubg(missing)
    with pytest.raises(GnubgNotFound, match="gnubg not found"):
        make_player("gnubg", GnubgConfig(binary=missing))
    monkeypatch.setenv("BGENGINE_GNUBG", missing)
    with pytest.raises(GnubgNotFound, match="no-such-gnubg"):
        find_gnubg()
    monkeypatch.delenv("BGENGINE_GNUBG")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr("bgengine.opponents.gnubg.binary.FALLBACK_LOCATIONS", ())
    with pytest.raises(GnubgNotFound, match="gnubg not found"):
        make_player("gnubg:1")


def test_missing_binary_on_the_command_line(tmp_path, capsys):
    rc = main(["match", "net", "gnubg", "--games", "2", "--gnubg", str(tmp_path / "nope")])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1
    assert err.startswith("bgengine: error: gnubg not found: install GNU Backgammon")


def test_env_var_names_the_binary(fake, monkeypatch, no_leftovers):
    monkeypatch.setenv("BGENGINE_GNUBG", fake.binary)
    assert find_gnubg() == fake.binary
    result = run_match(_ours(), make_player("gnubg", GnubgConfig(processes=2)), 2, seed=4)
    assert result.bad_games == 0 and result.games == 2


def test_specs():
    assert GnubgSettings(0).prune is False and GnubgSettings(2).prune is True
    assert GnubgSettings(2, prune=False).request(Position.initial().board, 6, 5).startswith(
        "2 0 6 5 0 0 0 0 0 5 ")
    for bad in ("gnubg:x", "gnubg:5", "gnubg:"):
        with pytest.raises(ValueError, match="plies"):
            make_player(bad)


# ====================================================================== the real gnubg

@pytest.mark.usefixtures("no_leftovers")
class TestRealGnubg:
    pytestmark = needs_gnubg

    def test_known_plays(self):
        start = Position.initial()
        with GnubgPlayer(GnubgSettings(0)) as g0, GnubgPlayer(GnubgSettings(2)) as g2:
            assert start.legal_moves(3, 1)[g0.choose(start.board, 3, 1)].notation == "8/5 6/5"
            assert start.legal_moves(6, 1)[g0.choose(start.board, 6, 1)].notation == "13/7 8/7"
            assert start.legal_moves(6, 5)[g2.choose(start.board, 6, 5)].notation == "24/13"

    def test_short_match_every_reply_legal(self):
        res = play_gnubg_pairs(_ours(), GnubgPlayer(GnubgSettings(0),
                                                    GnubgConfig(processes=3)), 10, seed=11)
        assert not res.bad.any() and res.replays == 0
        assert res.requests > 10 * 2 * 10              # every one checked by match_move
        assert set(np.abs(res.points).ravel()) <= {1, 2, 3}

    def test_deterministic(self):
        runs = [play_gnubg_pairs(_ours(), GnubgPlayer(GnubgSettings(0), GnubgConfig(processes=n)),
                                 6, seed=21) for n in (1, 4)]
        assert np.array_equal(runs[0].points, runs[1].points)
        assert np.array_equal(runs[0].moves, runs[1].moves)
        other = play_gnubg_pairs(_ours(), GnubgPlayer(GnubgSettings(0), GnubgConfig(processes=4)),
                                 6, seed=22)
        assert not np.array_equal(other.moves, runs[0].moves)

    def test_settings_files_do_not_matter(self, tmp_path, monkeypatch):
        plain = play_gnubg_pairs(_ours(), GnubgPlayer(GnubgSettings(0), GnubgConfig(processes=3)),
                                 3, seed=31)
        hostile = "\n".join(["set jacoby on", "set threads 2", "set cube use on",
                             "set evaluation chequerplay evaluation plies 2",
                             "set evaluation chequerplay evaluation noise 0.5",
                             "set evaluation chequerplay evaluation deterministic off"]) + "\n"
        (tmp_path / ".gnubg").mkdir()
        for f in (tmp_path / ".gnubgrc", tmp_path / ".gnubg" / "gnubgautorc",
                  tmp_path / ".gnubg" / "gnubgrc"):
            f.write_text(hostile)
        monkeypatch.setenv("HOME", str(tmp_path))
        again = play_gnubg_pairs(_ours(), GnubgPlayer(GnubgSettings(0), GnubgConfig(processes=3)),
                                 3, seed=31)
        assert np.array_equal(plain.points, again.points)
        assert np.array_equal(plain.moves, again.moves)

    def test_lookahead_and_gnubg_against_itself(self):
        g0 = GnubgPlayer(GnubgSettings(0), GnubgConfig(processes=4))
        res = play_gnubg_pairs(g0, GnubgPlayer(GnubgSettings(1)), 2, seed=1)
        assert not res.bad.any() and (res.moves > 10).all()

    def test_command_line_json(self, capsys):
        assert main(["match", "net", "gnubg", "--games", "6", "--json", "--seed", "2",
                     "--gnubg-processes", "3", "--quiet"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["bad_games"] == 0 and out["games"] == 6 and out["b"] == "gnubg"


def test_tournament_with_gnubg(fake, monkeypatch, no_leftovers):
    from bgengine.matches.tournament import load_entrants, round_robin

    monkeypatch.setenv("BGENGINE_GNUBG", fake.binary)
    entrants = load_entrants(["pubeval", "gnubg", "random"], lambda msg: None)
    rr = round_robin(entrants, games=4, seed=1, batch_pairs=1)   # a batch per pair: pool kept
    assert (rr.games + np.eye(3, dtype=int) * 4 == 4).all()
    assert entrants[1].player._pool is None                     # stopped when it ended
