"""gnubg as a cube and match opponent (:mod:`bgengine.opponents.gnubg` with the cube).

Three kinds of test:

* the protocol without gnubg: the requests' fields (:func:`state_fields` and the
  ``p``/``d``/``t`` bodies), the parsing of cube replies, and the driver script
  itself run against a stand-in ``gnubg`` module (its request parsing and
  checks, the market window, gnubg's cube decisions mapped to double / roll and
  take / pass);
* the pool against a fake "gnubg" program speaking the cube protocol (a fixed
  doubling rule by pip count): money games and matches are played to the end
  with consistent scores, the same whatever the number of processes, a bad cube
  reply stops its game and is reported, a dead process has its match replayed;
* against the real gnubg 0-ply (marked ``gnubg``, skipped when it is absent): a
  few cubeful money games (Jacoby off and on) and 3-point matches, every request
  and reply logged and checked (no double asked without access or in the
  Crawford game, points a multiple of the cube, matches ending at their length),
  gnubg's cube actions in clear positions, and the command line.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import stat
import sys
import textwrap
import types
from pathlib import Path

import numpy as np
import pytest

from bgengine.cli import main
from bgengine.decisions.cube import gnubg_met
from bgengine.decisions.engine import Engine
from bgengine.opponents.gnubg import (BadReply, GnubgConfig, GnubgPlayer, GnubgSettings,
                            play_gnubg_cube_pairs)
from bgengine.opponents.gnubg.driver import cube_reply, driver_path, state_fields
from bgengine.opponents.gnubg.process import GnubgProcess
from bgengine.notation.ids import MatchState
from bgengine.matches.run import run_cube_match
from bgengine.matches.players import default_network_path, make_player
from bgengine.position import Position

GNUBG = shutil.which("gnubg") or ("/usr/games/gnubg" if os.path.exists("/usr/games/gnubg") else None)
needs_gnubg = [pytest.mark.gnubg,
               pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed")]
START = Position.initial().board


def _ours():
    return make_player("net") if default_network_path().exists() else make_player("pubeval")


def _engine(player) -> Engine:
    net = getattr(player, "network", None)
    return Engine(player=player, network=net) if net is not None else Engine("pubeval")


# ====================================================================== requests and replies

def test_state_fields_put_the_side_on_roll_as_player_1():
    money = MatchState(cube=2, cube_owner=1, player_on_roll=1, jacoby=False)
    assert state_fields(money) == "2 1 0 0 0 0 0"
    assert state_fields(MatchState(cube=2, cube_owner=1, player_on_roll=0,
                                   jacoby=False)) == "2 0 0 0 0 0 0"
    assert state_fields(MatchState(player_on_roll=0, jacoby=True)) == "1 -1 0 0 0 0 1"
    # match: SCORE0 is the other side's, SCORE1 the side on roll's
    m = MatchState(match_length=7, score=(6, 2), player_on_roll=1, crawford=True)
    assert state_fields(m) == "1 -1 7 6 2 1 0"
    assert state_fields(MatchState(match_length=7, score=(6, 2), player_on_roll=0,
                                   crawford=True)) == "1 -1 7 2 6 1 0"
    # the Jacoby rule is never sent in a match
    assert state_fields(MatchState(match_length=5, score=(1, 2), jacoby=True)).endswith(" 0 0")


def test_request_bodies():
    s = GnubgSettings(2, prune=False)
    st = MatchState(match_length=5, score=(1, 3), cube=2, cube_owner=0, player_on_roll=0)
    body = s.play_request(START, 6, 5, st)
    assert body.startswith("2 0 6 5 2 1 5 3 1 0 0 ") and len(body.split()) == 61
    assert body.split()[11:] == [str(v) for v in START.ravel()]
    d = s.double_request(START, st)
    assert d.startswith("2 0 2 1 5 3 1 0 0 ") and len(d.split()) == 59
    assert s.take_request(START, st) == d


@pytest.mark.parametrize("kind,reply,answer", [
    ("double", "@@ok double", True), ("double", "@@ok roll", False),
    ("take", "@@ok take", True), ("take", "@@ok pass", False)])
def test_cube_replies(kind, reply, answer):
    assert cube_reply(kind, reply) is answer


@pytest.mark.parametrize("kind,reply,match", [
    ("double", "@@ok take", "not a cube action allowed"),
    ("take", "@@ok double", "not a cube action allowed"),
    ("take", "@@ok beaver", "not a cube action allowed"),
    ("take", "@@ok take pass", "not a cube action allowed"),
    ("double", "@@ok", "not a cube action allowed"),
    ("double", "@@error ValueError: bad request", "gnubg answered"),
    ("take", "garbage", "unexpected reply")])
def test_bad_cube_replies(kind, reply, match):
    with pytest.raises(BadReply, match=match):
        cube_reply(kind, reply)


# ====================================================================== the driver, gnubg stood in for

class _FakeGnubgModule(types.ModuleType):
    """Enough of gnubg's Python module for the driver: fixed outputs, calls logged."""

    def __init__(self, evaluation=(0.5, 0.1, 0.0, 0.1, 0.0, 0.0), decision=2,
                 equities=(0.1, 0.1, -0.2, 1.0)) -> None:
        super().__init__("gnubg")
        self.evaluation, self.decision, self.equities = evaluation, decision, equities
        self.calls: list = []
        met = gnubg_met()
        self._met = ([list(r) for r in met.pre], list(met.post), list(met.post))

    def command(self, text):
        pass

    def cubeinfo(self, cube, owner, move, matchto, score, crawford, bgv):
        return {"cube": cube, "cubeowner": owner, "move": move, "matchto": matchto,
                "score": tuple(score), "crawford": crawford, "jacoby": 0, "beavers": 0,
                "gammonprice": ((1.0, 1.0), (1.0, 1.0)), "bgv": bgv}

    def calcgammonprice(self, info):
        return info

    def met(self, n):
        return self._met

    def evaluate(self, board, info, ec):
        self.calls.append(("evaluate", info, ec))
        return self.evaluation

    def cfevaluate(self, board, info, ec):
        self.calls.append(("cfevaluate", info, ec))
        return (*self.equities, self.decision, "text")

    def findbestmove(self, board, info, ec, dice, filters):
        self.calls.append(("findbestmove", info, ec, dice))
        return (8, 5, 6, 5)


def _run_driver(requests: list[str], monkeypatch, namespace: dict | None = None,
                **fake) -> tuple[list[str], _FakeGnubgModule]:
    """Run the driver script on ``requests`` with a stand-in gnubg module: its reply
    lines (after ``@@ready``) and the module (its calls logged)."""
    gnubg = _FakeGnubgModule(**fake)
    monkeypatch.setitem(sys.modules, "gnubg", gnubg)
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(requests + ["q"]) + "\n"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(driver_path().read_text(), "gnubg_driver.py", "exec"),
             {"__name__": "driver"} if namespace is None else namespace)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("@@ready")
    return lines[1:], gnubg


_B = " ".join(str(v) for v in START.ravel())


def test_driver_serves_every_kind(monkeypatch):
    lines, g = _run_driver([f"m 1 0 0 3 1 {_B}", f"p 2 1 1 3 1 2 1 7 2 3 0 0 {_B}",
                            f"d 3 0 0 1 -1 0 0 0 0 0 {_B}", f"t 4 0 0 1 -1 0 0 0 0 0 {_B}"],
                           monkeypatch, evaluation=(0.75, 0.0, 0.0, 0.0, 0.0, 0.5),
                           decision=0)
    assert lines == ["@@ok 1 8 5 6 5", "@@ok 2 8 5 6 5", "@@ok 3 double", "@@ok 4 take"]
    kinds = [c[0] for c in g.calls]
    assert kinds == ["findbestmove", "findbestmove", "evaluate", "cfevaluate", "cfevaluate"]
    cubeless, cubeful = g.calls[0], g.calls[1]
    assert cubeless[2]["cubeful"] == 0 and cubeless[1]["matchto"] == 0
    assert cubeful[2] == {"cubeful": 1, "plies": 1, "deterministic": 1, "prune": 1, "noise": 0.0}
    assert cubeful[1]["matchto"] == 7 and cubeful[1]["score"] == (2, 3)
    assert cubeful[1]["cube"] == 2 and cubeful[1]["cubeowner"] == 1 and cubeful[1]["move"] == 1
    assert g.calls[2][2]["cubeful"] == 0 and g.calls[3][2]["cubeful"] == 1


def test_driver_checks_requests(monkeypatch):
    bad = [f"p 1 0 0 3 1 3 -1 0 0 0 0 0 {_B}",          # cube 3
           f"p 2 0 0 3 1 1 2 0 0 0 0 0 {_B}",           # owner 2
           f"d 3 0 0 1 -1 5 5 0 0 0 {_B}",              # score 5 in a 5-point match
           f"d 4 0 0 1 -1 5 2 1 1 0 {_B}",              # Crawford game with nobody 1-away
           f"d 5 0 0 1 -1 5 2 1 0 1 {_B}",              # Jacoby in a match
           f"d 6 0 0 1 -1 0 1 0 0 0 {_B}",              # a score in money play
           f"t 7 0 0 1 -1 0 0 0 0 0 1 2 3",             # a short board
           f"x 8 0 0 {_B}"]
    lines, g = _run_driver(bad, monkeypatch)
    assert [ln.split()[:2] for ln in lines] == [["@@error", str(i)] for i in range(1, 9)]
    assert "power of two" in lines[0] and "Crawford" in lines[3] and "Jacoby" in lines[4]
    assert not g.calls


def test_driver_double_without_access_or_outside_the_window(monkeypatch):
    reqs = [f"d 1 0 0 2 0 0 0 0 0 0 {_B}",               # the opponent owns the cube
            f"d 2 0 0 1 -1 5 2 4 1 0 {_B}",              # the Crawford game
            f"d 3 0 0 2 1 5 2 3 0 0 {_B}",               # 2-away owning a 2-cube: dead
            f"d 4 0 0 1 -1 5 3 4 0 0 {_B}",              # post-Crawford leader
            f"d 5 0 0 1 -1 0 0 0 0 0 {_B}"]              # 0.45 to win: below the window
    lines, g = _run_driver(reqs, monkeypatch, evaluation=(0.45, 0.0, 0.0, 0.0, 0.0, -0.1),
                           decision=0)
    assert lines == [f"@@ok {i} roll" for i in range(1, 6)]
    assert [c[0] for c in g.calls] == ["evaluate"]        # only the last needed gnubg


@pytest.mark.parametrize("decision,plies,win,action", [
    (0, 0, 0.8, "double"), (1, 0, 0.8, "double"), (7, 0, 0.8, "double"), (8, 0, 0.8, "double"),
    (5, 0, 0.8, "double"), (2, 0, 0.8, "roll"), (3, 0, 0.8, "roll"), (4, 0, 0.8, "roll"),
    (9, 0, 0.8, "roll"), (11, 0, 0.8, "roll"), (6, 0, 0.8, "roll"),
    (16, 0, 0.8, "double"), (19, 0, 0.8, "double"), (16, 1, 0.8, "roll")])
def test_driver_double_decisions(monkeypatch, decision, plies, win, action):
    lines, g = _run_driver([f"d 1 {plies} 0 1 -1 0 0 0 0 0 {_B}"], monkeypatch,
                           evaluation=(win, 0.0, 0.0, 0.0, 0.0, 2 * win - 1), decision=decision)
    assert lines == [f"@@ok 1 {action}"]
    # the market window is looked at one ply shallower, cubeless
    assert g.calls[0][0] == "evaluate" and g.calls[0][2]["plies"] == max(plies - 1, 0)


@pytest.mark.parametrize("decision,action", [
    (0, "take"), (2, "take"), (3, "take"), (7, "take"), (13, "take"), (16, "take"),
    (5, "take"), (6, "take"), (18, "take"),              # beavers off: a beaver is a take
    (1, "pass"), (4, "pass"), (8, "pass"), (11, "pass"), (19, "pass"), (20, "pass")])
def test_driver_take_decisions(monkeypatch, decision, action):
    lines, _ = _run_driver([f"t 1 0 0 1 -1 0 0 0 0 0 {_B}"], monkeypatch, decision=decision)
    assert lines == [f"@@ok 1 {action}"]


def test_driver_dead_cube_double_point(monkeypatch):
    """The market window as gnubg computes it: money (Janowski, Jacoby) and match play."""
    ns: dict = {"__name__": "driver"}
    _run_driver([], monkeypatch, ns)
    state = ns["State"]
    p = (0.6, 0.2, 0.0, 0.1, 0.0)
    rw, rl = 1 + 0.2 / 0.6, 1 + 0.1 / 0.4
    assert state([1, -1, 0, 0, 0, 0, 0]).dead_double_point(p) == pytest.approx(rl / (rl + rw))
    assert state([1, -1, 0, 0, 0, 0, 1]).dead_double_point(p) == pytest.approx(
        (rl - 0.5) / (rw + rl - 1))
    # no gammons at 2-away 2-away (3-point match at 1-1): risk / (risk + gain) from the
    # table; winning (losing) two points wins (loses) the match, one leaves 1-away
    met = gnubg_met()
    s = state([1, -1, 3, 1, 1, 0, 0])
    dtw, ndw = 1.0, met(1, 2)
    dtl, ndl = 0.0, met(2, 1)
    assert s.equity(2) == 1.0 and s.equity(1) == pytest.approx(ndw) and s.equity(-2) == 0.0
    assert s.dead_double_point((0.6, 0, 0, 0, 0)) == pytest.approx(
        (ndl - dtl) / ((ndl - dtl) + (dtw - ndw)))
    # post-Crawford: the trailer at 2-away against 1-away
    pc = state([1, -1, 5, 4, 3, 0, 0])
    assert pc.equity(0) == pytest.approx(met(2, 1, True)) and pc.equity(-1) == 0.0


# ====================================================================== a fake gnubg with a cube

FAKE = textwrap.dedent('''\
    #!{python}
    # Stands in for gnubg with the cube: answers m/p with the first legal play of
    # tests/rules_oracle.py; d: double when the mover leads by more than 25 pips (an
    # @@error if asked without access to the cube or in the Crawford game); t: take
    # when the taker trails by less than 40 pips.  FAKE_MODE "beaver" answers the
    # FAKE_AT-th take request with a beaver; "die" exits at request FAKE_AT (once, with
    # FAKE_ONCE).  Each request's state is checked: a bad one gets an @@error.
    import os, sys
    sys.path.insert(0, {tests!r})
    import rules_oracle

    mode, at = os.environ.get("FAKE_MODE", ""), int(os.environ.get("FAKE_AT", "3"))
    once = os.environ.get("FAKE_ONCE")
    print("@@ready fake", flush=True)

    def first_time():
        if once is None:
            return True
        try:
            os.close(os.open(once, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            return True
        except FileExistsError:
            return False

    def pips(row):
        return sum((i + 1) * n for i, n in enumerate(row))

    def check(cube, owner, length, s0, s1, crawford, jacoby):
        assert cube >= 1 and cube & (cube - 1) == 0 and owner in (-1, 0, 1)
        if length:
            assert 0 <= s0 < length and 0 <= s1 < length and not jacoby
            assert not crawford or length - 1 in (s0, s1)
        else:
            assert s0 == s1 == 0 and not crawford

    n = takes = 0
    for line in sys.stdin:
        parts = line.split()
        if parts and parts[0] == "q":
            break
        n += 1
        kind, ident, nums = parts[0], parts[1], [int(x) for x in parts[2:]]
        if mode == "die" and n == at and first_time():
            os._exit(1)
        try:
            if kind in ("m", "p"):
                d1, d2 = nums[2:4]
                if kind == "p":
                    check(*nums[4:11])
                b = nums[-50:]
                steps = next(iter(rules_oracle.legal_plays((b[:25], b[25:]), d1, d2).values()))
                print("@@ok", ident, " ".join(str(v) for s in steps for v in s), flush=True)
                continue
            cube, owner, length, s0, s1, crawford, jacoby = nums[2:9]
            check(cube, owner, length, s0, s1, crawford, jacoby)
            b = nums[9:]
            lead = pips(b[:25]) - pips(b[25:])            # the mover's (player 1's) lead
            if kind == "d":
                assert owner != 0 and not crawford, "asked to double without access"
                assert not length or s1 + cube < length, "asked to double a dead cube"
                print("@@ok", ident, "double" if lead > 25 else "roll", flush=True)
            else:
                takes += 1
                if mode == "beaver" and takes == at and first_time():
                    print("@@ok", ident, "beaver", flush=True)
                else:
                    print("@@ok", ident, "take" if lead < 40 else "pass", flush=True)
        except AssertionError as exc:
            print("@@error", ident, "AssertionError:", exc, flush=True)
''')


@pytest.fixture
def fake(tmp_path, monkeypatch):
    path = tmp_path / "fake-gnubg"
    path.write_text(FAKE.format(python=sys.executable, tests=str(Path(__file__).parent)))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)

    class Fake:
        binary = str(path)

        @staticmethod
        def env(mode: str = "", at: int = 3) -> None:
            monkeypatch.setenv("FAKE_MODE", mode)
            monkeypatch.setenv("FAKE_AT", str(at))
            monkeypatch.setenv("FAKE_ONCE", str(tmp_path / f"fake-{mode}-{at}"))

    Fake.env()
    return Fake


class _PipEngine:
    """A cube engine for our side with the fake's rule (double ahead by 25 pips, take
    behind by less than 40), recording every question and its state."""

    def __init__(self) -> None:
        self.asked: list = []

    @staticmethod
    def _lead(board) -> int:
        b = np.asarray(board, dtype=int)
        return int(b[0] @ np.arange(1, 26) - b[1] @ np.arange(1, 26))

    def can_double(self, state, side) -> bool:
        return True

    def cube_decision(self, board, state) -> bool:
        self.asked.append(("double", state))
        return self._lead(board) > 25

    def take_decision(self, board, state) -> bool:
        self.asked.append(("take", state))
        return self._lead(board) < 40


def _fake_player(fake, **config) -> GnubgPlayer:
    return GnubgPlayer(GnubgSettings(0), GnubgConfig(binary=fake.binary, **config))


def _check_money(res, jacoby: bool = False) -> None:
    good = ~res.bad
    assert (res.games[good] == 1).all()
    v, cube = np.abs(res.values[good]), res.cube_sum[good]
    assert (v > 0).all() and np.isin(v / cube, (1, 2, 3)).all(), (v, cube)
    if jacoby:                          # gammons count only once the cube has been turned
        assert (v[res.doubles[good] == 0] == 1).all()
    assert (res.drops <= res.doubles).all()


def _check_matches(res, length: int) -> None:
    good = ~res.bad
    s = res.scores[good]
    won = res.values[good] == 1.0
    assert np.isin(res.values[good], (0.0, 1.0)).all()
    assert (s[won, 0] >= length).all() and (s[won, 1] < length).all()
    assert (s[~won, 1] >= length).all() and (s[~won, 0] < length).all()
    assert (res.games[good] >= 1).all()


def test_fake_cube_money_games_and_matches(fake):
    ours = _ours()
    eng = _PipEngine()
    g = _fake_player(fake, processes=3)
    money = play_gnubg_cube_pairs(ours, g, 4, engines=(eng, None), seed=3)
    assert not money.bad.any() and money.doubles.sum() > 0
    _check_money(money)
    jac = play_gnubg_cube_pairs(ours, g, 4, jacoby=True, engines=(eng, None), seed=3)
    assert not jac.bad.any()
    _check_money(jac, jacoby=True)
    assert all(st.jacoby for _, st in eng.asked[-3:])
    eng.asked.clear()
    matches = play_gnubg_cube_pairs(ours, g, 3, match_length=3, engines=(eng, None), seed=5)
    assert not matches.bad.any()
    _check_matches(matches, 3)
    assert eng.asked and not [st for k, st in eng.asked if k == "double" and st.crawford]


def test_fake_cube_results_do_not_depend_on_the_processes(fake):
    runs = [play_gnubg_cube_pairs(_ours(), _fake_player(fake, processes=n), 3, match_length=3,
                                  engines=(_PipEngine(), None), seed=8) for n in (1, 4)]
    for field in ("values", "games", "doubles", "drops", "cube_sum", "scores"):
        assert np.array_equal(getattr(runs[0], field), getattr(runs[1], field)), field


def test_fake_cube_beaver_is_a_bad_game(fake):
    fake.env("beaver", at=1)
    res = run_cube_match(_ours(), _fake_player(fake, processes=2), 8, seed=3,
                         cube_network=getattr(_ours(), "network", None))
    assert res.bad_games == 1 and res.n == 6
    assert "'ok beaver' is not a cube action allowed here (take or pass)" in res.bad_examples[0]
    assert "1 games with a bad reply" in str(res)


def test_fake_cube_dead_process_replays_its_match(fake):
    clean = play_gnubg_cube_pairs(_ours(), _fake_player(fake, processes=2), 2, match_length=3,
                                  engines=(_PipEngine(), None), seed=4)
    fake.env("die", at=5)
    res = play_gnubg_cube_pairs(_ours(), _fake_player(fake, processes=2), 2, match_length=3,
                                engines=(_PipEngine(), None), seed=4)
    assert res.replays == 1 and not res.bad.any()
    assert np.array_equal(res.values, clean.values) and np.array_equal(res.scores, clean.scores)


def test_run_cube_match_refuses_other_programs():
    class Outside:
        name = "outside"

        def choose(self, board, d1, d2, seed=0):
            return 0

    with pytest.raises(ValueError, match="bgengine players or gnubg"):
        run_cube_match(_ours(), Outside(), 2)


# ====================================================================== the real gnubg

def _logging_sends(monkeypatch) -> list[tuple[str, list[int]]]:
    """Every request any gnubg process is sent: (kind, numbers)."""
    sent: list = []
    original = GnubgProcess.send

    def send(self, body, kind="m"):
        sent.append((kind, [int(x) for x in body.split()]))
        return original(self, body, kind)

    monkeypatch.setattr(GnubgProcess, "send", send)
    return sent


@pytest.mark.usefixtures("monkeypatch")
class TestRealGnubg:
    pytestmark = needs_gnubg

    def test_money_games_with_the_cube(self, monkeypatch):
        sent = _logging_sends(monkeypatch)
        ours = _ours()
        res = play_gnubg_cube_pairs(ours, GnubgPlayer(GnubgSettings(0), GnubgConfig(processes=4)),
                                    4, engines=(_engine(ours), None), seed=1)
        assert not res.bad.any() and res.replays == 0
        _check_money(res)
        kinds = {k for k, _ in sent}
        assert kinds <= {"p", "d", "t"} and {"p", "d"} <= kinds
        for kind, nums in sent:
            state = nums[2:9] if kind in ("d", "t") else nums[4:11]
            assert state[2:] == [0, 0, 0, 0, 0]          # money, Jacoby off
            if kind == "d":
                assert state[1] != 0                      # never asked without access

    def test_money_games_with_the_jacoby_rule(self):
        ours = _ours()
        res = play_gnubg_cube_pairs(ours, GnubgPlayer(GnubgSettings(0), GnubgConfig(processes=4)),
                                    3, jacoby=True, engines=(_engine(ours), None), seed=2)
        assert not res.bad.any()
        _check_money(res, jacoby=True)

    def test_three_point_matches(self, monkeypatch):
        sent = _logging_sends(monkeypatch)
        ours = _ours()
        eng = _engine(ours)
        asked = []
        cube_decision, take_decision = eng.cube_decision, eng.take_decision
        monkeypatch.setattr(eng, "cube_decision",
                            lambda b, s, j=None: asked.append(s) or cube_decision(b, s, j))
        monkeypatch.setattr(eng, "take_decision",
                            lambda b, s: asked.append(s) or take_decision(b, s))
        res = play_gnubg_cube_pairs(ours, GnubgPlayer(GnubgSettings(0), GnubgConfig(processes=4)),
                                    2, match_length=3, engines=(eng, None), seed=7)
        assert not res.bad.any() and res.replays == 0
        _check_matches(res, 3)
        assert res.games.sum() > 4
        for kind, nums in sent:
            cube, owner, length, s0, s1, crawford, jacoby = (nums[2:9] if kind in ("d", "t")
                                                             else nums[4:11])
            assert length == 3 and s0 < 3 and s1 < 3 and not jacoby
            assert not crawford or 2 in (s0, s1)
            if kind == "d":                               # access, not Crawford, a live cube
                assert owner != 0 and not crawford and s1 + cube < 3
        assert not [s for s in asked if s.crawford and not s.double_offered]
        crawford_plays = [nums for kind, nums in sent if kind == "p" and nums[9]]
        post_crawford_doubles = [nums for kind, nums in sent
                                 if kind == "d" and 2 in nums[5:7] and not nums[7]]
        # whoever reaches 2 first plays a Crawford game; the trailer may double after it
        assert crawford_plays or post_crawford_doubles or res.games.max() <= 2

    def test_same_results_whatever_the_processes(self):
        ours = _ours()
        runs = [play_gnubg_cube_pairs(ours, GnubgPlayer(GnubgSettings(0), GnubgConfig(processes=n)),
                                      2, match_length=3, engines=(_engine(ours), None), seed=9)
                for n in (1, 3)]
        for field in ("values", "games", "doubles", "drops", "cube_sum", "scores"):
            assert np.array_equal(getattr(runs[0], field), getattr(runs[1], field)), field

    def test_cube_actions_in_clear_positions(self):
        def race(k: int) -> np.ndarray:
            """A 105-pip race, the side on roll 2k pips ahead before its roll."""
            b = np.zeros((2, 25), np.uint8)
            b[0, 5:8], b[1, 5:8] = (5, 5, 5), (5 + k, 5, 5 - k)
            return b

        def bear_off(mine, theirs) -> np.ndarray:
            b = np.zeros((2, 25), np.uint8)
            b[1, :len(mine)], b[0, :len(theirs)] = mine, theirs
            return b

        money = MatchState(player_on_roll=1, jacoby=False)
        with GnubgPlayer(GnubgSettings(0), GnubgConfig(processes=1)) as g:
            assert not g.cube_decision(START, money) and g.take_decision(START, money)
            # gnubg 0-ply: 2 pips ahead no double, take; 8 pips double, take
            assert not g.cube_decision(race(1), money) and g.take_decision(race(1), money)
            assert g.cube_decision(race(4), money) and g.take_decision(race(4), money)
            # three chequers on the six point against ten still on: double, pass
            three = bear_off((0, 0, 0, 0, 0, 3), (2, 2, 2, 2, 2))
            assert g.cube_decision(three, money) and not g.take_decision(three, money)
            # ... but not without access, nor in the Crawford game
            assert not g.cube_decision(three, MatchState(cube=2, cube_owner=0, player_on_roll=1,
                                                         jacoby=False))
            assert not g.cube_decision(three, MatchState(match_length=5, score=(4, 1),
                                                         player_on_roll=1, crawford=True))
            # against fifteen chequers still on: a sure gammon, too good to double, pass
            gammon = bear_off((2,), (3, 3, 3, 3, 3))
            assert not g.cube_decision(gammon, money) and not g.take_decision(gammon, money)
            # ... unless the Jacoby rule makes the gammon worth a single game: double, pass
            jacoby = MatchState(player_on_roll=1, jacoby=True)
            assert g.cube_decision(gammon, jacoby) and not g.take_decision(gammon, jacoby)
            k = g.choose_cubeful(START, 3, 1, MatchState(match_length=3, score=(1, 2),
                                                         player_on_roll=1, crawford=True))
            assert Position.initial().legal_moves(3, 1)[k].notation == "8/5 6/5"

    def test_command_line(self, capsys):
        assert main(["match", "net", "gnubg", "--match-length", "3", "--games", "2", "--json",
                     "--seed", "3", "--gnubg-processes", "2", "--quiet"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["bad_games"] == 0 and out["n"] == 2 and out["match_length"] == 3
        assert out["b"] == "gnubg" and out["value"] in (0.0, 0.5, 1.0)
        assert main(["match", "net", "gnubg", "--cube", "--jacoby", "--games", "2", "--json",
                     "--gnubg-processes", "2", "--quiet"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["bad_games"] == 0 and out["n"] == 2 and out["match_length"] == 0
