"""The cube: match equity table, Janowski money formulas, match decisions."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgengine.core.agents import Player
from bgengine.core.board import is_race, pip_counts
from bgengine.decisions.cube import CONTACT_EFFICIENCY, CubeInfo, MatchEquityTable, _Sides, cube_decision, \
    cube_efficiencies, cube_efficiency, cubeful_value, cubeful_values, default_met
from bgengine.core.movegen import legal_afterstates
from bgengine.notation.ids import MatchState
from bgengine.matches.run import run_cube_match
from bgengine.core.network import Network
from bgengine.position import Position

GNUBG_MET = Path("/usr/share/gnubg/met/Kazaross-XG2.xml")


def probs(p: float, wg: float = 0.0, lg: float = 0.0) -> list[float]:
    """Cubeless outputs with gammon fractions ``wg`` of wins and ``lg`` of losses."""
    return [p, wg * p, 0.0, lg * (1 - p), 0.0]


# ------------------------------------------------------------------ the table

def test_met_shape_and_symmetry():
    met = default_met()
    assert met.length == 25 and "Kazaross" in met.name
    for i in range(25):
        for j in range(25):
            assert met.pre[i][j] + met.pre[j][i] == pytest.approx(1.0, abs=1e-9)
        assert met.pre[i][i] == pytest.approx(0.5)
    # a side further from victory has less chance (rows decrease down, increase across)
    for i in range(24):
        for j in range(25):
            assert met.pre[i + 1][j] < met.pre[i][j]


def test_met_known_entries():
    met = default_met()
    assert met(1, 2) == pytest.approx(0.67736)          # leader at Crawford, 1-away v 2-away
    assert met(2, 1) == pytest.approx(0.32264)
    assert met(2, 1, post_crawford=True) == pytest.approx(0.48803)
    assert met(1, 2, post_crawford=True) == pytest.approx(1 - 0.48803)
    assert met(1, 1) == met(1, 1, post_crawford=True) == 0.5
    assert met(0, 5) == 1.0 and met(5, 0) == 0.0 and met(-2, 3) == 1.0
    # post-Crawford 3-away equals Crawford-game 2-away: both need one more game at a 2-cube
    assert met(3, 1, post_crawford=True) == pytest.approx(met(2, 1))
    with pytest.raises(ValueError, match="up to 25"):
        met(26, 3)


@pytest.mark.skipif(not GNUBG_MET.exists(), reason="gnubg's MET files are not installed")
def test_met_matches_gnubg_file():
    root = ET.parse(GNUBG_MET).getroot()
    rows = [[float(me.text) for me in row.findall("me")]
            for row in root.find("pre-crawford-table").findall("row")]
    post = [float(me.text) for me in root.find("post-crawford-table").find("row").findall("me")]
    met = default_met()
    assert [list(r) for r in met.pre] == rows and list(met.post) == post


def test_met_load_rejects_bad_files(tmp_path):
    bad = tmp_path / "m.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="cannot read"):
        MatchEquityTable.load(bad)
    bad.write_text(json.dumps({"name": "x", "pre_crawford": [[0.5, 0.7], [0.7, 0.5]], "post_crawford": [0.5, 0.4]}))
    with pytest.raises(ValueError, match="pre\\[i\\]\\[j\\]"):
        MatchEquityTable.load(bad)
    with pytest.raises(ValueError, match="cannot read"):
        MatchEquityTable.load(tmp_path / "missing.json")


# ------------------------------------------------------------------ money play

@settings(max_examples=200, deadline=None)
@given(st.floats(0.05, 0.95), st.floats(0, 0.6), st.floats(0, 0.6))
def test_money_points_are_janowskis_closed_forms(p, wg, lg):
    """The recursive take and cash points converge to Janowski's fully-live formulas."""
    s = _Sides(probs(p, wg, lg), CubeInfo(), default_met())
    w, l_ = 1 + wg, 1 + lg
    assert s.take_point(0, 1) == pytest.approx((l_ - 0.5) / (w + l_ + 0.5), abs=1e-5)
    assert s.cash_point(0, 1) == pytest.approx((l_ + 1) / (w + l_ + 0.5), abs=1e-5)


@pytest.mark.parametrize("x, take_point", [(0.0, 0.25), (0.68, 0.5 / (2 + 0.5 * 0.68)), (1.0, 0.2)])
def test_money_take_point_no_gammons(x, take_point):
    """Janowski: the taker's point is (L - 1/2) / (W + L + x/2); 0.25 dead, 0.2 fully live."""
    for taker in (take_point - 0.003, take_point + 0.003):
        d = cube_decision(probs(1 - taker), CubeInfo(), x=x)
        assert d.take == (taker > take_point), (x, taker, d)


def test_money_windows_no_gammons():
    x = 0.68
    assert not cube_decision(probs(0.5), CubeInfo(), x=x).double
    assert not cube_decision(probs(0.65), CubeInfo(), x=x).double
    d = cube_decision(probs(0.72), CubeInfo(), x=x)
    assert d.double and d.take and d.action == "double, take"
    d = cube_decision(probs(0.85), CubeInfo(), x=x)
    assert d.double and not d.take and d.action == "double, pass"
    assert d.double_pass == 1.0
    # with a fully live cube doubling gains nothing before the cash point (0.8), and past
    # it playing on is worth exactly the cash
    assert not cube_decision(probs(0.79), CubeInfo(), x=1.0).double
    d = cube_decision(probs(0.81), CubeInfo(), x=1.0)
    assert d.no_double == pytest.approx(d.double_pass) and not d.take


def test_money_too_good_with_gammons():
    d = cube_decision([0.9, 0.5, 0.05, 0.0, 0.0], CubeInfo(), x=0.68)
    assert not d.double and not d.take and d.action == "too good to double, pass"
    assert d.no_double > 1.0


def test_money_ownership():
    info = CubeInfo(cube=2, owner="opponent")
    d = cube_decision(probs(0.9), info)
    assert not d.can_double and not d.double and d.action == "no access to the cube"
    # owning the cube is worth something; the opponent owning it costs
    p = probs(0.6)
    own, mid, opp = (cubeful_value(p, CubeInfo(owner=o)) for o in ("me", "centre", "opponent"))
    assert own > mid > opp


def test_money_jacoby_centred_cube_ignores_gammons_when_dead():
    p = [0.6, 0.3, 0.0, 0.0, 0.0]
    dead_jac = cubeful_value(p, CubeInfo(jacoby=True), x=0.0)
    dead = cubeful_value(p, CubeInfo(), x=0.0)
    assert dead_jac == pytest.approx(2 * 0.6 - 1) and dead == pytest.approx(2 * 0.6 - 1 + 0.3)
    # owned cubes count gammons with or without Jacoby
    assert cubeful_value(p, CubeInfo(owner="me", jacoby=True), x=0.0) == pytest.approx(dead)


def test_dead_cube_value_is_the_cubeless_equity():
    p = [0.55, 0.2, 0.02, 0.1, 0.01]
    eq = 2 * 0.55 - 1 + 0.2 - 0.1 + 0.02 - 0.01
    assert cubeful_value(p, CubeInfo(owner="me"), x=0.0) == pytest.approx(eq)


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 1), st.floats(0, 1), st.floats(0, 0.5), st.floats(0, 0.5), st.floats(0, 1),
       st.sampled_from(["centre", "me", "opponent"]))
def test_money_cubeful_is_monotone_in_p(p1, p2, wg, lg, x, owner):
    lo, hi = sorted((p1, p2))
    info = CubeInfo(owner=owner)
    assert cubeful_value(probs(lo, wg, lg), info, x=x) <= cubeful_value(probs(hi, wg, lg), info, x=x) + 1e-9


# ------------------------------------------------------------------ match play

def test_match_values_are_chances():
    met = default_met()
    for away, opp in [(7, 7), (5, 2), (2, 5), (3, 1), (1, 3), (11, 4)]:
        post = 1 in (away, opp)
        info = CubeInfo(away=away, opp_away=opp, post_crawford=post)
        for p in (0.0, 0.3, 0.5, 0.8, 1.0):
            v = cubeful_value(probs(p, 0.2, 0.2), info)
            assert 0.0 <= v <= 1.0
        # an even game (no gammons) is worth about the table's entry before the first roll
        v = cubeful_value(probs(0.5), info)
        assert abs(v - met(away, opp, post)) < 0.08, (away, opp, v)


def test_double_match_point_cube_is_dead():
    info = CubeInfo(away=1, opp_away=1)
    d = cube_decision(probs(0.7, 0.3, 0.3), info)
    assert not d.can_double and not d.double
    assert cubeful_value(probs(0.7, 0.3, 0.3), info) == pytest.approx(0.7)     # gammons do not matter


def test_crawford_game_has_no_cube():
    info = CubeInfo(away=3, opp_away=1, crawford=True)
    assert not cube_decision(probs(0.8), info).double
    # the trailer's chances are the cubeless match chances: a single win leaves it 2-away
    # post-Crawford, a gammon 1-away v 1-away; any loss ends the match
    met = default_met()
    p = probs(0.6, 0.25, 0.0)
    expect = 0.6 * (0.75 * met(2, 1, True) + 0.25 * 0.5) + 0.4 * 0.0
    assert cubeful_value(p, info) == pytest.approx(expect)


def test_post_crawford_trailer_doubles_and_the_free_drop():
    # the trailer (2-away, leader 1-away) doubles at once
    d = cube_decision(probs(0.5, 0.1, 0.1), CubeInfo(away=2, opp_away=1, post_crawford=True))
    assert d.can_double and d.double
    # the leader should take only with at least an even chance: passing leaves 1-away v 1-away
    assert d.take
    d = cube_decision(probs(0.6, 0.1, 0.1), CubeInfo(away=2, opp_away=1, post_crawford=True))
    assert d.double and not d.take
    # the leader's cube is dead
    d = cube_decision(probs(0.9), CubeInfo(away=1, opp_away=4, post_crawford=True))
    assert not d.can_double


def test_match_dead_cube_for_the_doubler():
    # 2-away with the cube on 2: a single win already wins the match
    info = CubeInfo(cube=2, owner="me", away=2, opp_away=5)
    assert not info.can_double()
    assert not cube_decision(probs(0.8), info).double


def test_match_doubling_window_at_7_away_7_away():
    info = CubeInfo(away=7, opp_away=7)
    assert not cube_decision(probs(0.55, 0.15, 0.15), info).double
    d = cube_decision(probs(0.72, 0.15, 0.15), info)
    assert d.double and d.take
    d = cube_decision(probs(0.85, 0.15, 0.15), info)
    assert d.double and not d.take


def test_from_match_state():
    st_ = MatchState(match_length=7, score=(6, 3), cube=2, cube_owner=1, player_on_roll=1)
    info = CubeInfo.from_match_state(st_)
    assert (info.away, info.opp_away, info.owner, info.cube, info.post_crawford) == (4, 1, "me", 2, True)
    info0 = CubeInfo.from_match_state(st_, side=0)
    assert (info0.away, info0.opp_away, info0.owner) == (1, 4, "opponent")
    cr = CubeInfo.from_match_state(MatchState(match_length=7, score=(6, 3), crawford=True))
    assert cr.crawford and not cr.post_crawford
    money = CubeInfo.from_match_state(MatchState())
    assert money.is_money and money.jacoby and money.owner == "centre"
    assert info.swapped() == CubeInfo(cube=2, owner="opponent", away=1, opp_away=4, post_crawford=True)


def test_cube_info_validation():
    for bad in (dict(cube=3), dict(cube=0), dict(owner="left"), dict(away=3), dict(crawford=True),
                dict(away=3, opp_away=3, crawford=True)):
        with pytest.raises(ValueError):
            CubeInfo(**bad)
    with pytest.raises(ValueError, match="efficiency"):
        cube_decision(probs(0.5), CubeInfo(), x=1.5)


def test_cube_efficiency():
    assert cube_efficiency(Position.initial().board) == 0.68
    b = Position.initial().board.copy()
    b[:] = 0
    b[0, 0] = 15       # both sides on their own ace points: a race
    b[1, 0] = 15
    assert math.isclose(cube_efficiency(b), 0.6)    # 15 pips: clipped at 0.6
    b[1, 0], b[1, 17] = 10, 5                       # 100 pips: 0.55 + 0.00125 * 100
    assert math.isclose(cube_efficiency(b), 0.55 + 0.00125 * 100)


# ------------------------------------------------------------------ games and matches with the cube


NET = Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=11)


def test_run_cube_match_money_and_reproducible():
    a, b = Player("net", NET, name="tiny"), Player("pubeval")
    r1 = run_cube_match(a, b, 20, seed=4, cube_network=NET)
    r2 = run_cube_match(a, b, 20, seed=4, cube_network=NET)
    assert r1 == r2 and r1.n == 20 and r1.games == 20 and r1.match_length == 0
    assert r1.mean_cube >= 1 and 0 <= r1.drops <= r1.doubles
    assert "ppg" in str(r1)


def test_run_cube_match_matches():
    strong, weak = Player("net", NET, name="tiny"), Player("random")
    r = run_cube_match(Player("pubeval"), weak, 20, match_length=3, seed=2, cube_network=NET)
    assert r.n == 20 and r.games >= 20 and 0.0 <= r.value <= 1.0
    assert r.value >= 0.75        # pubeval beats random in nearly every 3-point match
    assert "matches to 3" in str(r)
    with pytest.raises(ValueError, match="64 points"):
        run_cube_match(strong, weak, 2, match_length=65)    # gnubg's longest is 64
    with pytest.raises(ValueError, match="at least 2"):
        run_cube_match(strong, weak, 1)


def _some_boards(n: int, seed: int) -> list:
    """Positions of random games to the end (contact, races, bear-offs)."""
    rng = np.random.default_rng(seed)
    out, board = [], Position.initial().board.copy()
    while len(out) < n:
        d1, d2 = (int(v) for v in rng.integers(1, 7, 2))
        afters, _ = legal_afterstates(board, d1, d2)
        after = afters[rng.integers(len(afters))]
        if after[1].sum() == 0:
            board = Position.initial().board.copy()
            continue
        board = after[::-1].copy()
        out.append(board)
    return out


def test_cube_efficiencies_is_cube_efficiency_of_each():
    boards = _some_boards(400, seed=5)
    xs = cube_efficiencies(np.array(boards))
    races = 0
    for b, x in zip(boards, xs):
        # the definition, from the compiled race test and pip count
        want = float(min(0.7, max(0.6, 0.55 + 0.00125 * pip_counts(b)[0]))) if is_race(b) \
            else CONTACT_EFFICIENCY
        races += is_race(b)
        assert x == want == cube_efficiency(b)
    assert 20 < races < len(boards)
    with pytest.raises(ValueError):
        cube_efficiencies(np.zeros((1, 2, 25), dtype=np.uint8))


@pytest.mark.parametrize("info", [CubeInfo(), CubeInfo(cube=2, owner="me", jacoby=True),
                                  CubeInfo(cube=2, owner="opponent", away=5, opp_away=3),
                                  CubeInfo(away=1, opp_away=4, post_crawford=True)])
def test_cubeful_values_are_cubeful_value_of_each(info):
    rng = np.random.default_rng(2)
    met = default_met()
    ps = [probs(float(p), float(g), float(lg)) for p, g, lg in rng.uniform(0, 1, (50, 3))]
    xs = rng.uniform(0.6, 0.7, 50)
    got = cubeful_values(ps, info, xs, met)
    # each on its own, with a model that shares nothing
    want = [_Sides(p, info, met).cubeful(info.cube, info.owner, float(x)) for p, x in zip(ps, xs)]
    assert got == want
    assert got == [cubeful_value(p, info, x=float(x), met=met) for p, x in zip(ps, xs)]
    with pytest.raises(ValueError):
        cubeful_values(ps[:1], info, [1.5], met)


def test_beavers_double_the_take_of_a_wrong_double():
    """With beavers the taker beavers a double whose take is worth more than nothing to
    it (double/take below 0 for the doubler), which then costs the doubler twice that."""
    from bgengine.decisions.cube import decision_of_values

    d = decision_of_values(0.1, -0.2, 1.0, True, beavers=True)
    assert d.beaver and d.take and not d.double and d.action == "no double, beaver"
    plain = decision_of_values(0.1, -0.2, 1.0, True)
    assert not plain.beaver and plain.action == "no double, take"
    assert not decision_of_values(0.3, 0.5, 1.0, True, beavers=True).beaver
    # a double still right against a beaver: the doubler loses less than by playing on
    d = decision_of_values(-0.6, -0.2, 1.0, True, beavers=True)
    assert d.double and d.action == "double, beaver"
    with pytest.raises(ValueError, match="money"):
        CubeInfo(away=3, opp_away=3, beavers=True)
    assert not decision_of_values(0.1, -0.2, 1.0, False, beavers=True).beaver   # no access


def test_hints_beaver_where_the_state_allows_beavers():
    """The side on roll trails a race by 25 pips: a double would be beavered (XGID rule
    bit 2), and the hint says so."""
    from game_positions import board_of
    from bgengine.decisions.engine import Engine
    from bgengine.state import GameState

    board = board_of({5: 5, 4: 5, 3: 5}, {0: 5, 1: 5, 2: 5})
    state = GameState(Position(board), MatchState(player_on_roll=1, turn=1), beavers=True)
    hint = Engine().hint(state).cube
    assert hint.decision.beaver and hint.proper_action == "no double, beaver"
    assert hint.to_dict()["beaver"] is True
    plain = Engine().hint(GameState(Position(board), MatchState(player_on_roll=1, turn=1))).cube
    assert not plain.decision.beaver and plain.proper_action == "no double, take"
    assert GameState.from_string(state.to_xgid()).beavers
