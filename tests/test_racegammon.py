"""One-sided race distributions and exact race gammons (bgengine.core.racegammon).

Oracles: the bear-off database where every checker is home; a plain-Python recursion over
every legal play (no restriction) for small races; the Bellman equation of the cached
values; and the evaluator's two evaluation paths (a position's own evaluation and move
choice's afterstate values) agreeing with the tables' ``refine``.
"""

from __future__ import annotations

import functools
import pickle

import numpy as np
import pytest

from bgengine.core import bearoff as bo
from bgengine.core.evaluator import Evaluator, load_evaluator
from bgengine.core.movegen import legal_afterstates
from bgengine.core.network import Network, flip_outputs
from bgengine.matches.players import default_network_path
from bgengine.core.racegammon import RaceGammonTables, _plays, default
from bgengine.core.search import play_outputs

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def row(points: dict[int, int]) -> np.ndarray:
    """A side's row from ``{point (1..24): checkers}``."""
    r = np.zeros(25, np.uint8)
    for p, n in points.items():
        r[p - 1] += n
    return r


def mean(d: np.ndarray) -> float:
    return float(np.dot(np.arange(len(d)), d))


@functools.lru_cache(maxsize=None)
def oracle_mean(key: bytes, first: bool) -> float:
    """Expected rolls to bear off the first checker (``first``) or all, playing every roll
    to minimise it over every legal play: plain Python, no restriction on the plays, down
    to the bear-off database's means once every checker is home."""
    r = np.frombuffer(key, np.uint8)
    if not r[6:].any():
        db = bo.default()
        return db.mean_first_rolls(r[:6]) if first else db.mean_rolls(r[:6])
    total = 0.0
    board = np.zeros((2, 25), np.uint8)
    board[1] = r
    for d1, d2 in ROLLS:
        after, _ = legal_afterstates(board, d1, d2)
        best = min(0.0 if first and a[1].sum() < 15 else oracle_mean(a[1].tobytes(), first)
                   for a in after)
        total += (1 if d1 == d2 else 2) * best
    return 1.0 + total / 36.0


@pytest.fixture(scope="module")
def tables():
    return RaceGammonTables()


def random_race_row(rng: np.random.Generator) -> np.ndarray:
    """1..15 checkers, 1..5 of them outside the home board (none on the bar)."""
    r = np.zeros(25, np.uint8)
    n = int(rng.integers(1, 16))
    out = int(rng.integers(1, min(n, 5) + 1))
    np.add.at(r, rng.integers(6, 24, out), 1)
    np.add.at(r, rng.integers(0, 6, n - out), 1)
    return r


def test_race_plays_are_the_restricted_legal_plays():
    # the recursion's own generator against the full move generator: every legal play
    # that leaves the home checkers in place (or brings every checker home), each once
    rng = np.random.default_rng(3)
    for _ in range(400):
        r = random_race_row(rng)
        board = np.zeros((2, 25), np.uint8)
        board[1] = r
        for d1, d2 in ROLLS:
            after = legal_afterstates(board, d1, d2)[0][:, 1]
            want = {a.tobytes() for a in after if not a[6:].any() or (a[:6] >= r[:6]).all()}
            got = _plays(r, d1, d2)
            assert len(got) == len({a.tobytes() for a in got}), (r, d1, d2)
            assert {a.tobytes() for a in got} == want, (r, d1, d2)


def test_home_positions_are_the_database(tables):
    db = bo.default()
    r = row({6: 5, 5: 4, 3: 3, 1: 3})
    assert np.allclose(tables.first_off_distribution(r), db.first_off_distribution(r[:6]))
    assert np.allclose(tables.bear_off_distribution(r), db.distribution(r[:6]))
    small = row({4: 2, 2: 1})
    assert np.allclose(tables.bear_off_distribution(small), db.distribution(small[:6]))


@pytest.mark.parametrize("points", [{9: 1, 3: 1, 1: 1}, {11: 1, 8: 1, 2: 2}, {13: 1, 4: 1},
                                    {8: 2, 6: 1, 5: 1}])
def test_bear_off_mean_near_unrestricted_recursion(tables, points):
    """Keeping the home checkers in place while others are outside costs at most a few
    thousandths of a roll (0.004 for {11, 8, 2, 2}) and can never gain."""
    r = row(points)
    d = tables.bear_off_distribution(r)
    assert d is not None and abs(d.sum() - 1) < 1e-6
    best = oracle_mean(r.tobytes(), False)
    assert best - 2e-5 <= mean(d) <= best + 0.01


@pytest.mark.parametrize("points", [{7: 1, 6: 4, 5: 4, 4: 3, 3: 2, 2: 1}])
def test_first_off_mean_equals_unrestricted_recursion(tables, points):
    r = row(points)
    d = tables.first_off_distribution(r)
    assert d is not None and d[0] == 0 and abs(d.sum() - 1) < 1e-6
    assert mean(d) == pytest.approx(oracle_mean(r.tobytes(), True), abs=2e-5)


@pytest.mark.parametrize("points", [{21: 1, 10: 1, 6: 2, 5: 2, 4: 3, 3: 2, 2: 2, 1: 2},
                                    {15: 1, 12: 1, 9: 1, 6: 4, 5: 3, 4: 3, 3: 2}])
def test_first_off_satisfies_its_recursion(tables, points):
    """d(row) = one roll more than the mean over the rolls of the best allowed play's d
    (the play minimising the expected rolls, home checkers kept unless no play does)."""
    r = row(points)
    d = tables.first_off_distribution(r)
    expect = np.zeros(32)
    board = np.zeros((2, 25), np.uint8)
    board[1] = r
    for d1, d2 in ROLLS:
        after = legal_afterstates(board, d1, d2)[0][:, 1]
        keeps = [a for a in after if not a[6:].any() or (a[:6] >= r[:6]).all()]
        best = None
        for a in keeps or list(after):
            c = np.eye(32)[0] if a.sum() < 15 else tables.first_off_distribution(a)
            if best is None or mean(c) < mean(best) - 1e-12:
                best = c
        expect[1:] += (1 if d1 == d2 else 2) / 36 * best[:-1]
    assert np.allclose(d, expect, atol=1e-6)


def test_two_stragglers_example(tables):
    """Stragglers on the 21- and 10-points: the first checker is off in 3.25 rolls on
    average, never in fewer than 2 (unrestricted recursion, plain Python: the same
    3.2520)."""
    r = row({21: 1, 10: 1, 6: 2, 5: 2, 4: 3, 3: 2, 2: 2, 1: 2})
    d = tables.first_off_distribution(r)
    assert mean(d) == pytest.approx(3.2520, abs=5e-4)
    assert d[:2].sum() == 0 and d[2] > 0.1


def test_budget_refuses_far_positions():
    t = RaceGammonTables(state_budget=10)
    far = row({22: 1, 17: 1, 12: 1, 9: 1, 8: 1, 6: 2, 5: 2, 4: 3, 3: 2, 2: 1})
    assert t.first_off_distribution(far) is None
    assert t.first_off_distribution(row({6: 15})) is not None     # home: no recursion


def test_bad_rows_are_refused(tables):
    with pytest.raises(ValueError, match="shape"):
        tables.first_off_distribution(np.zeros(24, np.uint8))
    with pytest.raises(ValueError, match="bar"):
        tables.bear_off_distribution(row({25: 1, 6: 2}))
    with pytest.raises(ValueError, match="all 15"):
        tables.first_off_distribution(row({6: 3}))
    with pytest.raises(ValueError, match="0..15"):
        tables.bear_off_distribution(row({6: 16}))
    with pytest.raises(ValueError):
        RaceGammonTables(max_outside=16)


def test_refine_matches_the_database_when_both_are_home(tables):
    db = bo.default()
    board = np.zeros((2, 25), np.uint8)
    board[1] = row({6: 3, 5: 2, 3: 2})          # on roll: 7 left
    board[0] = row({6: 5, 5: 4, 4: 3, 2: 3})    # 15 left
    exact = db.outputs(board)
    got = tables.refine(board, [0.5, 0.3, 0.1, 0.0, 0.0])
    assert got[0] == pytest.approx(exact[0], abs=1e-6)
    assert got[1] == pytest.approx(exact[1], abs=1e-6)
    assert got[2] == 0 and got[3] == 0 and got[4] == 0
    assert got[0] >= got[1]


def test_refine_gammon_chances():
    t = RaceGammonTables()
    board = np.zeros((2, 25), np.uint8)
    board[0] = row({21: 1, 10: 1, 6: 2, 5: 2, 4: 3, 3: 2, 2: 2, 1: 2})   # saving the gammon
    board[1] = row({2: 2, 1: 1})                                        # on roll, 3 left
    out = t.refine(board, [0.99, 0.5, 0.2, 0.0, 0.0])
    on_roll = t.bear_off_distribution(board[1])
    save = t.first_off_distribution(board[0])
    expect = sum(on_roll[n] * save[n:].sum() for n in range(1, 32))
    assert out[1] == pytest.approx(expect, abs=1e-6)
    escape = t.escape_distribution(board[0])    # its 21-point is the winner's 4-point
    assert out[2] == pytest.approx(sum(on_roll[n] * escape[n:].sum() for n in range(1, 32)),
                                   abs=1e-6)
    assert 0 < out[2] < out[1]
    assert out[3] == 0 and out[4] == 0          # the side on roll has borne some off
    # nothing in the winner's home board: no backgammon
    board[0] = row({18: 1, 10: 1, 6: 3, 5: 2, 4: 3, 3: 2, 2: 2, 1: 1})
    out = t.refine(board, [0.99, 0.5, 0.2, 0.0, 0.0])
    assert out[2] == 0 and 0 < out[1] < 1


def test_refine_win_chances():
    board = np.zeros((2, 25), np.uint8)
    board[1] = row({9: 1, 6: 2, 4: 3, 2: 2})                # on roll
    board[0] = row({8: 2, 5: 3, 3: 2, 1: 1})
    t = RaceGammonTables()
    on_roll, other = (t.bear_off_distribution(board[k]) for k in (1, 0))
    expect = sum(on_roll[n] * other[n:].sum() for n in range(1, 32))
    out = t.refine(board, [0.2, 0.1, 0.0, 0.1, 0.0])
    assert out[0] == pytest.approx(expect, abs=1e-6) and 0.3 < expect < 0.9
    assert out[1:].tolist() == [0, 0, 0, 0]                 # both have borne some off
    unchanged = RaceGammonTables(wins=False).refine(board, [0.2, 0.1, 0.0, 0.1, 0.0])
    assert unchanged[0] == pytest.approx(0.2)


def test_escape_distribution(tables):
    assert np.allclose(tables.escape_distribution(row({18: 1, 6: 14})), np.eye(32)[0])
    d = tables.escape_distribution(row({24: 1, 6: 14}))     # 6 pips: all but 1-1, 2-1, 3-1,
    assert d[1] == pytest.approx(27 / 36)                    # 4-1 and 3-2 in one roll
    assert d[2] == pytest.approx(9 / 36)


def test_refine_respects_max_outside():
    t = RaceGammonTables(max_outside=1, wins=False)
    board = np.zeros((2, 25), np.uint8)
    board[0] = row({21: 1, 10: 1, 6: 2, 5: 2, 4: 3, 3: 2, 2: 2, 1: 2})
    board[1] = row({2: 2, 1: 1})
    assert t.refine(board, [0.99, 0.5, 0.2, 0.0, 0.0])[1] == pytest.approx(0.5)
    assert t.stats["queries"] == 0


def race_evaluator(race_gammons=True) -> Evaluator:
    contact = Network((16,), 5, encoder="contact", seed=3)
    race = Network((16,), 5, encoder="race", seed=4)
    return Evaluator(contact, race, database=bo.default(), race_gammons=race_gammons)


def test_evaluator_paths_agree_with_refine(tables):
    ev = race_evaluator()
    plain = ev.with_race_gammons(False)
    board = np.zeros((2, 25), np.uint8)
    board[0] = row({21: 1, 10: 1, 6: 2, 5: 2, 4: 3, 3: 2, 2: 2, 1: 2})
    board[1] = row({3: 2, 2: 2, 1: 1})
    raw = plain.evaluate(board)
    got = ev.evaluate(board)
    assert np.allclose(got, default().refine(board, raw), atol=1e-6)
    assert not np.allclose(got, raw)
    # move choice values afterstates by its own path: the same refined values
    mover = board[::-1].copy()                  # the saving side on roll, 6-5
    idx, outs = play_outputs(ev, mover, 6, 5, by_delta=False)
    after, _ = legal_afterstates(mover, 6, 5)
    for a, o in zip(after, outs):
        expect = flip_outputs(ev.evaluate(np.ascontiguousarray(a[::-1])))
        assert np.allclose(o, expect, atol=1e-6)


def test_evaluator_file_and_pickle_keep_race_gammons(tmp_path):
    ev = race_evaluator()
    path = tmp_path / "ev.npz"
    ev.save(path)
    back = load_evaluator(path)
    assert back.race_gammons is default() and "exact race values" in repr(back)
    assert pickle.loads(pickle.dumps(ev)).race_gammons is default()
    one = ev.with_race_gammons(1)
    assert one.race_gammons is default(1) and one.race_gammons.max_outside == 1
    one.save(path)
    assert load_evaluator(path).race_gammons is default(1)
    assert ev.with_race_gammons(False).race_gammons is None
    assert race_evaluator(False).race_gammons is None
    with pytest.raises(ValueError, match="five-output"):
        Evaluator(Network((8,), 1, encoder="contact"), race_gammons=True)
    with pytest.raises(TypeError):
        Evaluator(Network((8,), 5, encoder="contact"), race_gammons="yes")


def test_training_and_rollouts_use_the_networks_alone():
    """Training plays and learns by the networks' own values, and rollouts play with them
    (the refinement would cost 10-100x there): the same results with it on or off."""
    from bgengine.core.search import rollout
    from bgengine.core.td import train_games
    on, off = race_evaluator(), race_evaluator(False)
    train_games(on, 3, 0.1, seed=5)
    train_games(off, 3, 0.1, seed=5)
    for k in ("contact", "race"):
        assert np.array_equal(on.networks[k].params[0], off.networks[k].params[0])
    board = np.zeros((2, 25), np.uint8)
    board[0] = row({21: 1, 10: 1, 6: 2, 5: 2, 4: 3, 3: 2, 2: 2, 1: 2})
    board[1] = row({3: 2, 2: 2, 1: 1})
    a = rollout(on, board, 72, seed=3)["per_trial"]
    b = rollout(off, board, 72, seed=3)["per_trial"]
    assert np.array_equal(a, b)


def test_values_do_not_depend_on_the_cache():
    """A distribution solved afresh equals the one read back from the cache, bit for bit, and
    a parent's does not depend on which of its children were cached before."""
    parent = row({15: 1, 12: 1, 9: 1, 6: 4, 5: 3, 4: 3, 3: 2})
    child = row({12: 1, 9: 1, 6: 5, 5: 3, 4: 3, 3: 2})          # 15/6 played
    warm = RaceGammonTables()
    warm.first_off_distribution(child)
    warm.bear_off_distribution(child)
    cold = RaceGammonTables()
    for get in ("first_off_distribution", "bear_off_distribution"):
        a = getattr(cold, get)(parent)
        assert np.array_equal(a, getattr(warm, get)(parent))
        assert np.array_equal(a, getattr(cold, get)(parent))   # now from the cache


def test_shards_let_threads_solve_at_once_with_the_same_games():
    """Two threads playing with two shards (each solving in its own cache) play exactly the
    games one shard plays, and both shards do work."""
    from bgengine.core.agents import Player, play_match

    shipped = load_evaluator(default_network_path())
    results = {}
    for shards in (1, 2):
        tables = RaceGammonTables(max_outside=2, shards=shards)
        player = Player("net", shipped.with_race_gammons(tables))
        results[shards] = play_match(player, Player("pubeval"), 200, seed=3, n_threads=2)
        if shards == 2:
            assert tables.shards == 2
            assert all(tables._shard_stats(i)["solved"] > 0 for i in range(2))
    for a, b in zip(results[1], results[2]):            # points and plays of every game
        assert np.array_equal(a, b)


def test_shards_are_checked():
    with pytest.raises(ValueError, match="shards"):
        RaceGammonTables(shards=0)
    assert RaceGammonTables(shards=3).shards == 3
    assert pickle.loads(pickle.dumps(RaceGammonTables(shards=3))).shards == 3


def test_repeated_queries_read_back_the_same_distributions():
    """The last queries of each mode are kept beside the cache (the side on roll repeats
    across a decision's afterstates): three rows asked in turn read back what a fresh
    table solves for each."""
    rows = [row({15: 1, 12: 1, 6: 5, 5: 3, 4: 3, 3: 2}),
            row({9: 1, 8: 1, 6: 5, 5: 3, 4: 3, 3: 2}),
            row({20: 1, 6: 6, 5: 3, 4: 3, 3: 2})]
    fresh = [RaceGammonTables().bear_off_distribution(r) for r in rows]
    tables = RaceGammonTables(shards=1)
    for i in [0, 1, 0, 2, 1, 0, 2, 2, 0]:
        assert np.array_equal(tables.bear_off_distribution(rows[i]), fresh[i])
    tables.clear()
    assert np.array_equal(tables.bear_off_distribution(rows[2]), fresh[2])
