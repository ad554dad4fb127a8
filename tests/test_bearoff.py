"""The bear-off databases (bgengine.core.bearoff): indexing, the specialised move generator,
exactness against pure-Python brute force, invariants, and agreement with GNU Backgammon.

gnubg reference (tests/data/gnubg/bearoff_golden.json.gz, made by make_bearoff_golden.py
inside gnubg 1.07.001): gnubg stores its one-sided distributions and two-sided equities as
16-bit fixed point (steps of 1/65535) and computes each position from its successors'
stored, rounded values, so its numbers carry accumulated rounding of a few 1e-5, and where
two moves' expected rolls differ by less than that rounding its one-sided database can
pick the other one (see test_gnubg_distributions).  Our tables are float64 from the rules;
where gnubg and we differ, the pure-Python oracles below side with us.
"""

from __future__ import annotations

import functools
import gzip
import itertools
import json
import math
import pickle
import time
from fractions import Fraction

import numpy as np
import pytest

import rules_oracle as ro
from conftest import DATA

from bgengine.core import bearoff as bo
from bgengine.core.movegen import legal_afterstates

GOLDEN = DATA / "gnubg" / "bearoff_golden.json.gz"
ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]
WEIGHT = {r: Fraction(1 if r[0] == r[1] else 2, 36) for r in ROLLS}


@pytest.fixture(scope="module")
def db():
    return bo.default()


def all_positions(max_checkers=15):
    """Every (6,) home-board position with at most max_checkers, as tuples."""
    out = []
    for n in range(max_checkers + 1):
        for cut in itertools.combinations_with_replacement(range(6), n):
            out.append(tuple(np.bincount(np.array(cut, dtype=int), minlength=6).tolist()))
    return out


def np_index(pos: np.ndarray) -> np.ndarray:
    """Our index computed independently with math.comb: rank of the 6-subset
    {S_i + 5 - i} of 0..20 in the combinatorial number system (S_i = suffix sums)."""
    S = np.cumsum(pos[:, ::-1], axis=1)[:, ::-1]
    table = np.array([[math.comb(s + 5 - i, 6 - i) for s in range(16)] for i in range(6)])
    return table[np.arange(6), S].sum(axis=1)


def board(mover, opp) -> np.ndarray:
    b = np.zeros((2, 25), np.uint8)
    b[1, :6] = mover
    b[0, :6] = opp
    return b


# ---------------------------------------------------------------- indexing


def test_index_is_a_bijection_ordered_by_checkers():
    pos = all_positions()
    assert len(pos) == bo.ONE_SIDED == math.comb(21, 6)
    idx = [bo.index(p) for p in pos]
    assert sorted(idx) == list(range(bo.ONE_SIDED))
    assert np.array_equal(np_index(np.array(pos)), idx)
    for p, i in zip(pos, idx):
        n = sum(p)
        assert (i < bo.TWO_SIDED) == (n <= 6)
        assert (i >= bo.FIRST_15) == (n == 15)
    for i in range(0, bo.ONE_SIDED, 97):
        assert bo.index(bo.position(i)) == i
    assert bo.index([0] * 6) == 0


def test_index_accepts_a_board_row_and_rejects_bad_input():
    row = np.zeros(25, np.uint8)
    row[[0, 3, 5]] = [2, 1, 4]
    assert bo.index(row) == bo.index([2, 0, 0, 1, 0, 4])
    row[6] = 1
    with pytest.raises(ValueError):
        bo.index(row)
    with pytest.raises(ValueError):
        bo.index([8, 8, 0, 0, 0, 0])
    with pytest.raises(ValueError):
        bo.index([1, -1, 0, 0, 0, 0])
    with pytest.raises(ValueError):
        bo.position(bo.ONE_SIDED)


def test_every_move_lowers_the_index(db):
    rng = np.random.default_rng(3)
    for i in rng.integers(1, bo.ONE_SIDED, 300):
        p = bo.position(int(i))
        for d1, d2 in ROLLS:
            assert all(bo.index(a) < i for a in bo.afterstates(p, d1, d2))


# ---------------------------------------------------------------- moves


def random_home(rng, n):
    w = rng.random(6) ** 2
    return np.bincount(rng.choice(6, size=n, p=w / w.sum()), minlength=6)


def test_afterstates_match_the_move_generator():
    """The specialised generator gives exactly generate_moves' afterstates when every
    checker of the mover is home and the opponent's are all in its own home (no contact)."""
    rng = np.random.default_rng(11)
    cases = [random_home(rng, int(rng.integers(1, 16))) for _ in range(250)]
    cases += [np.array(p) for p in ([0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 15],
                                     [15, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 1], [0, 2, 0, 0, 0, 0])]
    for p in cases:
        b = np.zeros((2, 25), np.uint8)
        b[1, :6] = p
        b[0, :6] = random_home(rng, 15)
        for d1, d2 in ROLLS:
            boards, _ = legal_afterstates(b, d1, d2)
            want = sorted({tuple(x[1, :6]) for x in boards})
            assert all(not x[1, 6:].any() for x in boards)
            got = sorted(tuple(x) for x in bo.afterstates(p, d1, d2))
            assert got == want, (p.tolist(), d1, d2)
            assert sorted(tuple(x) for x in bo.afterstates(p, d2, d1)) == want


def test_afterstates_match_the_rules_oracle():
    """Independently of the compiled generator: the pure-Python rules."""
    rng = np.random.default_rng(12)
    for _ in range(25):
        p = random_home(rng, int(rng.integers(1, 10)))
        b = np.zeros((2, 25), int)
        b[1, :6] = p
        b[0, :6] = [2, 2, 2, 3, 3, 3]
        for d1, d2 in ROLLS:
            want = sorted({s[1][:6] for s in ro.legal_plays(b, d1, d2)})
            assert sorted(tuple(x) for x in bo.afterstates(p, d1, d2)) == want


# ---------------------------------------------------------------- pure-Python oracles


@functools.lru_cache(maxsize=None)
def oracle_moves(p, d1, d2):
    """Home positions reachable from p (mover's home points), by the pure-Python rules
    (the opponent, with no checkers left, cannot block anything)."""
    b = ((0,) * 25, tuple(p) + (0,) * 19)
    return tuple(sorted({s[1][:6] for s in ro.legal_plays(b, d1, d2)}))


@functools.lru_cache(maxsize=None)
def oracle_rolls(p):
    """(mean, distribution) of the rolls to bear off p, exact fractions, each roll
    played to minimise the mean."""
    if sum(p) == 0:
        return Fraction(0), (Fraction(1),)
    dist = [Fraction(0)] * 40
    for r in ROLLS:
        _, d = min((oracle_rolls(m) for m in oracle_moves(p, *r)), key=lambda md: md[0])
        for n, q in enumerate(d):
            dist[n + 1] += WEIGHT[r] * q
    while dist[-1] == 0:
        dist.pop()
    return sum(n * q for n, q in enumerate(dist)), tuple(dist)


def test_expected_rolls_match_brute_force_for_small_positions(db):
    """All 84 positions of up to 3 checkers, and a few larger, against exact fractions."""
    cases = all_positions(3) + [(0, 0, 0, 0, 0, 4), (1, 1, 1, 1, 0, 1), (0, 0, 2, 0, 0, 2)]
    for p in cases:
        mean, dist = oracle_rolls(p)
        assert db.mean_rolls(p) == pytest.approx(float(mean), abs=1e-12), p
        want = np.zeros(bo.MAX_ROLLS)
        want[: len(dist)] = [float(q) for q in dist]
        np.testing.assert_allclose(db.distribution(p), want, atol=1e-12, err_msg=str(p))
    # hand-checkable: one checker on the 1-point takes one roll; one on the 6-point is
    # off at once with a 6 (11 rolls), 2-2 to 5-5 (4), or 5-1, 5-2, 5-3, 5-4, 4-2, 4-3 (12)
    assert db.distribution([1, 0, 0, 0, 0, 0])[1] == 1.0
    assert db.distribution([0, 0, 0, 0, 0, 1])[1] == pytest.approx(27 / 36, abs=1e-15)


@functools.lru_cache(maxsize=None)
def fast_moves(p, d1, d2):
    """bo.afterstates as tuples (15-checker doubles are too slow in the pure-Python rules;
    the generator itself is checked against them and generate_moves above)."""
    return tuple(tuple(int(x) for x in m) for m in bo.afterstates(p, d1, d2))


@functools.lru_cache(maxsize=None)
def oracle_first(p):
    """Mean rolls to bear off the first checker of a 15-checker position (exact)."""
    if sum(p) < 15:
        return Fraction(0)
    return 1 + sum(WEIGHT[r] * min(oracle_first(m) for m in fast_moves(p, *r)) for r in ROLLS)


def test_first_checker_off_matches_brute_force(db):
    for p in [(0, 0, 0, 15, 0, 0), (0, 0, 0, 0, 15, 0)]:
        assert db.mean_first_rolls(p) == pytest.approx(float(oracle_first(p)), abs=1e-12), p
    # all on the 1-point: the first roll always bears one off
    d = db.first_off_distribution([15, 0, 0, 0, 0, 0])
    assert d[1] == 1.0 and d.sum() == 1.0
    # fewer than 15 checkers: one is already off
    assert db.first_off_distribution([0, 0, 0, 0, 0, 14])[0] == 1.0


@functools.lru_cache(maxsize=None)
def oracle_win(a, b):
    """P(the side on roll at a beats b), exact, both maximising it."""
    if sum(a) == 0:
        return Fraction(1)
    return sum(WEIGHT[r] * max(1 - oracle_win(b, m) for m in oracle_moves(a, *r)) for r in ROLLS)


def test_two_sided_matches_brute_force(db):
    """Every pair of positions of 1 or 2 checkers (27 x 27), and a few of 3 and 4."""
    small = [p for p in all_positions(2) if sum(p)]
    pairs = [(a, b) for a in small for b in small]
    pairs += [((0, 0, 0, 0, 0, 3), (0, 0, 1, 1, 1, 0)), ((1, 0, 0, 1, 0, 2), (0, 0, 0, 2, 1, 0)),
              ((0, 3, 0, 0, 0, 0), (2, 0, 0, 0, 0, 1))]
    for a, b in pairs:
        want = float(oracle_win(a, b))
        assert db.two_sided[bo.index(a), bo.index(b)] == pytest.approx(want, abs=1e-12), (a, b)
        assert db.outputs(board(a, b))[0] == pytest.approx(want, abs=1e-7)


# ---------------------------------------------------------------- invariants


def test_distributions_are_distributions(db):
    for d, m in ((db.dist, db.mean), (db.first, db.mean_first)):
        assert (d >= 0).all()
        np.testing.assert_allclose(d.sum(axis=1), 1.0, atol=1e-12)
        np.testing.assert_allclose(d @ np.arange(bo.MAX_ROLLS), m, atol=1e-12)
    assert db.dist[0, 0] == 1.0 and (db.dist[1:, 0] == 0).all()   # only "all off" takes 0
    assert (db.first[:, 0] == 0).all()
    # 15 checkers on the 6-point: about 12.27 rolls (gnubg's bearoffdump: 12.266, and
    # 1.616 to the first checker off)
    assert db.mean_rolls([0, 0, 0, 0, 0, 15]) == pytest.approx(12.266, abs=5e-4)
    assert db.mean_first_rolls([0, 0, 0, 0, 0, 15]) == pytest.approx(1.616, abs=5e-4)


def test_rolls_bounds_and_monotone_when_a_checker_comes_off(db):
    """A checker borne off never raises the expected rolls (moving one a point lower can:
    2-3-5 takes 1.2% fewer rolls than 2-2-5, the brute force agrees).  n checkers take at
    least ceil(n / 4) rolls and at most one roll per pip; the first checker is off no
    later than the last (first-off CDF above the all-off one)."""
    pos = np.array(all_positions())
    idx = np_index(pos)
    mean = db.mean[idx]
    for i in range(6):
        has = pos[:, i] > 0
        less = pos[has].copy()
        less[:, i] -= 1
        assert (db.mean[np_index(less)] <= mean[has] + 1e-12).all()
    n = np.arange(bo.MAX_ROLLS)
    pips = pos @ np.arange(1, 7)
    lo = -(-pos.sum(axis=1) // 4)
    d = db.dist[idx]
    assert not d[(n[None, :] < lo[:, None]) | (n[None, :] > pips[:, None])].any()
    assert d[n[None, :] == lo[:, None]].min() > 0       # the least is always possible
    full = idx >= bo.FIRST_15
    f = db.first[idx[full] - bo.FIRST_15]
    assert (np.cumsum(f, axis=1) >= np.cumsum(d[full], axis=1) - 1e-12).all()
    assert oracle_rolls((0, 1, 1, 0, 1, 0))[0] < oracle_rolls((0, 2, 0, 0, 1, 0))[0]


def test_two_sided_invariants(db):
    P = db.two_sided
    assert ((P >= 0) & (P <= 1)).all()
    assert (P[0, 1:] == 1).all() and (P[1:, 0] == 0).all()
    # having the roll never hurts: P(a, b) >= 1 - P(b, a)
    assert (P[1:, 1:] + P[1:, 1:].T >= 1 - 1e-12).all()
    # one checker fewer (borne off) never lowers one's chances
    pos = np.array(all_positions(6))
    idx = np_index(pos)
    for i in range(6):
        has = pos[:, i] > 0
        less = pos[has].copy()
        less[:, i] -= 1
        j, k = idx[has], np_index(less)
        assert (P[k][:, 1:] >= P[j][:, 1:] - 1e-12).all()     # on roll with one fewer
        assert (P[1:][:, k] <= P[1:][:, j] + 1e-12).all()     # against one fewer


def test_one_sided_outputs_identities(db):
    """From the one-sided distributions D_a, D_b: P(a beats b, a on roll) + P(b beats a,
    b on roll) = 1 + sum_n D_a(n) D_b(n); gammons only against 15 checkers, below the
    wins; no backgammons."""
    rng = np.random.default_rng(5)
    for _ in range(400):
        a = random_home(rng, int(rng.choice([15, rng.integers(1, 16)])))
        b = random_home(rng, int(rng.choice([15, rng.integers(7, 16)])))
        v, w = db.outputs(board(a, b)), db.outputs(board(b, a))
        tie = float(db.distribution(a) @ db.distribution(b))
        assert v[0] + w[0] == pytest.approx(1 + tie, abs=1e-6)
        assert 0 <= v[0] <= 1 and v[2] == 0 and v[4] == 0
        assert v[1] <= v[0] + 1e-7 and v[3] <= 1 - v[0] + 1e-7
        assert (v[1] > 0) <= (b.sum() == 15) and (v[3] > 0) <= (a.sum() == 15)
        # the opponent's gammon chance when a is on roll: b finishes in its roll n before
        # a's first checker, which needs at least n + 1 of a's rolls
        F = db.first_off_distribution(a)
        Db = db.distribution(b)
        lose_g = sum(Db[n] * F[n + 1:].sum() for n in range(1, bo.MAX_ROLLS))
        assert v[3] == pytest.approx(lose_g, abs=1e-6)


def test_outputs_cover_exactly_the_bearoff_positions(db):
    b = board([0, 1, 0, 0, 2, 0], [3, 0, 0, 0, 0, 0])
    v = db.outputs(b)
    assert v.dtype == np.float32 and v.shape == (5,)
    assert v[0] == pytest.approx(db.two_sided[bo.index(b[1]), bo.index(b[0])], abs=1e-7)
    assert not v[1:].any()
    for side, slot in ((1, 6), (0, 6), (1, 24), (0, 24), (1, 20)):
        c = b.copy()
        c[side, slot] = 1
        if side == 0 and slot < 24:
            c[0, slot] = 1
        assert db.outputs(c) is None
    assert db.outputs(board([0] * 6, [1, 0, 0, 0, 0, 0])) is None    # game over
    assert db.outputs(board([1, 0, 0, 0, 0, 0], [0] * 6)) is None
    with pytest.raises(ValueError, match="both sides have borne off"):     # no position
        db.outputs(np.zeros((2, 25), np.uint8))
    # the batch entry point agrees
    rng = np.random.default_rng(9)
    boards = np.array([board(random_home(rng, int(rng.integers(0, 16))),
                             random_home(rng, int(rng.integers(0, 16)))) for _ in range(300)])
    boards[~boards.any(axis=(1, 2)), 1, 0] = 1     # both sides borne off is no position
    for k in range(0, len(boards), 7):      # some not covered: a checker off the home points
        j = int(np.flatnonzero(boards[k, 1])[0]) if boards[k, 1].any() else 0
        boards[k, 1, j] -= boards[k, 1, j] > 0
        boards[k, 1, 10] = 1
    res, ok = db.outputs_batch(boards)
    for k in range(len(boards)):
        v = db.outputs(boards[k])
        assert ok[k] == (v is not None)
        assert np.array_equal(res[k], v if v is not None else np.zeros(5, np.float32))


def test_output_forms(db):
    b = board([0, 0, 0, 0, 5, 10], [0, 2, 0, 0, 0, 1])
    v5 = db.outputs(b)
    assert v5[3] > 0.01             # a real lose-gammon chance: 15 checkers against 3
    v4 = db.outputs(b, 4)
    np.testing.assert_array_equal(v4, np.array([v5[0], 1 - v5[0], v5[1], v5[3]], np.float32))
    np.testing.assert_array_equal(db.outputs(b, 1), v5[:1])
    res, ok = db.outputs_batch(np.array([b, b]), 4)
    assert res.shape == (2, 4) and ok.all() and np.array_equal(res[1], v4)
    with pytest.raises(ValueError):
        db.outputs(b, 3)
    assert bo.BearoffDatabase.default() is bo.default() is db


def test_win_probability_and_pickle(db):
    assert db.win_probability([1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 15]) == 1.0
    assert db.win_probability([0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0]) == pytest.approx(27 / 36)
    with pytest.raises(ValueError):
        db.win_probability([0] * 6, [1, 0, 0, 0, 0, 0])
    assert bo.default() is db
    c = pickle.loads(pickle.dumps(db))
    assert np.array_equal(c.two_sided, db.two_sided) and np.array_equal(c.first, db.first)
    assert not db.dist.flags.writeable


def test_build_is_fast_and_deterministic(db):
    """The whole build takes about 0.4 s of CPU on one core (the bound leaves room for
    slow or busy machines) and gives the same bits every time."""
    t = time.process_time()
    again = bo.BearoffDatabase.build()
    assert time.process_time() - t < 3.0
    for k, v in db.tables().items():
        assert np.array_equal(v, again.tables()[k]), k


# ---------------------------------------------------------------- GNU Backgammon


@pytest.fixture(scope="module")
def golden():
    with gzip.open(GOLDEN) as f:
        return json.load(f)


def test_gnubg_races(db, golden):
    """gnubg's 0-ply evaluations of 3400 bear-offs (1900 from its one-sided database, 1500
    from its exact two-sided one): all five outputs within 1e-4 (observed: 6.0e-5 win,
    2.2e-5 gammons, 4.8e-5 two-sided; the two-sided ones differ by gnubg's fixed-point
    rounding: the brute-force oracle agrees with us to 1e-9 on the worst, see
    test_two_sided_matches_brute_force)."""
    races = golden["races"]
    assert len(races) == 3400
    worst = np.zeros(5)
    for r in races:
        v = db.outputs(board(r["mover"], r["opponent"]))
        assert v is not None
        worst = np.maximum(worst, np.abs(v - np.array(r["outputs"])))
    assert worst.max() < 1e-4, worst
    n_gammon = sum(1 for r in races if max(r["outputs"][1], r["outputs"][3]) > 0.01)
    assert n_gammon > 200        # the gammon outputs were really exercised


def test_gnubg_worst_two_sided_is_gnubg_rounding(db):
    """The largest two-sided difference from gnubg (4.8e-5): exact fractions side with us."""
    a, b = (0, 0, 0, 0, 0, 6), (0, 0, 0, 1, 1, 2)
    exact = 0.10395750094255145    # oracle_win(a, b) (53 s in pure Python, so stored)
    assert db.win_probability(a, b) == pytest.approx(exact, abs=1e-7)
    assert db.two_sided[bo.index(a), bo.index(b)] == pytest.approx(exact, abs=1e-15)


def test_gnubg_distributions(db, golden):
    """bearoffdump's one-sided distributions (percent, 3 decimals) of 400 positions.

    gnubg's entries are 16-bit and its recursion reads its successors' rounded entries,
    so where two moves' expected rolls differ by a few 1e-5 it may prefer the other one
    (e.g. from 1,0,4,1,3,0 with 5-2: our means 4.453672 vs 4.453710, gnubg's stored
    4.453700 vs 4.453670), which moves a few 1e-3 of probability between adjacent roll
    counts in that position and its ancestors.  So: every entry within 5e-3, means within
    2e-3, and most positions (95%) within 3e-5 in every entry."""
    dists = golden["distributions"]
    assert len(dists) == 400
    close = 0
    for r in dists:
        p = r["points"]
        off = np.zeros(bo.MAX_ROLLS)
        off[: len(r["off"])] = np.array(r["off"]) / 100
        diff = np.abs(db.distribution(p) - off).max()
        assert diff < 5e-3, (p, diff)
        assert db.mean_rolls(p) == pytest.approx(r["mean"], abs=2e-3)
        if r["first"]:
            first = np.zeros(bo.MAX_ROLLS)
            first[: len(r["first"])] = np.array(r["first"]) / 100
            diff = max(diff, np.abs(db.first_off_distribution(p) - first).max())
            assert db.mean_first_rolls(p) == pytest.approx(r["mean_first"], abs=2e-3)
        close += diff < 3e-5
    assert close >= 0.95 * len(dists), close
