"""Feature encoders against plain-Python references written from their docstrings.

Board convention: uint8 (2, 25), row 1 on roll, index i = that side's point
i + 1, index 24 its bar, off = 15 - sum(row).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from encoder_refs import escapes_from, hits, rearmost, ref_contact, ref_race
from bgengine.core.encoders import (CONTACT_FEATURES, ENCODERS, EXPERT_FEATURES, RACE_FEATURES,
                               contact_features, encode, encoder_id, expert_features, n_inputs)
from bgengine.core.movegen import legal_afterstates
from game_positions import random_positions, start_board

SIZES = {"tesauro198": 198, "tesauro198+extra": 212, "expert": 222, "contact": 250, "race": 235}


def random_boards(n: int, seed: int) -> list[np.ndarray]:
    """Random legal positions, many unlike any game's: each side has some checkers off
    (often none) and on the bar, the rest spread over 1 to 9 random points that the other
    side does not hold."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        b = np.zeros((2, 25), np.uint8)
        for side in (1, 0):
            left = 15 - int(rng.choice([0, 0, 0, 1, 3, 8, 14]))
            b[side, 24] = min(int(rng.choice([0, 0, 0, 1, 2, 3])), left)
            left -= int(b[side, 24])
            free = [i for i in range(24) if b[1 - side, 23 - i] == 0]
            pts = rng.choice(free, size=min(int(rng.integers(1, 10)), len(free)), replace=False)
            for _ in range(left):
                b[side, int(rng.choice(pts))] += 1
        out.append(b)
    return out


def race_boards(n: int, seed: int) -> list[np.ndarray]:
    """Random races: the side on roll on its points 1..k, the other side beyond them."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        b = np.zeros((2, 25), np.uint8)
        k = int(rng.integers(1, 24))            # the side on roll on 1..k, the other on 1..24-k
        for side, top in ((1, k), (0, 24 - k)):
            for _ in range(15 - int(rng.choice([0, 0, 2, 7, 13]))):
                b[side, int(rng.integers(0, min(top, 12 if rng.random() < 0.7 else 24)))] += 1
        out.append(b)
    return out


# ---------------------------------------------------------------- references

def pips(row) -> int:
    return int(sum(int(row[i]) * (i + 1) for i in range(25)))


def is_race(b) -> bool:
    """No contact: nobody on the bar and every checker of the side on roll lies
    below (in its own numbering) every checker of the other side."""
    if b[0, 24] or b[1, 24]:
        return False
    mine = [i + 1 for i in range(24) if b[1, i]]
    theirs = [25 - (i + 1) for i in range(24) if b[0, i]]   # in the roller's numbering
    if not mine or not theirs:
        return True
    return max(mine) < min(theirs)


def longest_prime(row) -> int:
    best = run = 0
    for i in range(24):
        run = run + 1 if row[i] >= 2 else 0
        best = max(best, run)
    return best


def point_units(row) -> list[float]:
    u = []
    for i in range(24):
        n = int(row[i])
        u += [float(n >= 1), float(n >= 2), float(n >= 3), (n - 3) / 2 if n > 3 else 0.0]
    u.append(int(row[24]) / 2)
    u.append((15 - int(row.sum())) / 15)
    return u


def ref_tesauro198(b) -> np.ndarray:
    return np.array(point_units(b[1]) + point_units(b[0]) + [1.0, 0.0])


def ref_tesauro212(b) -> np.ndarray:
    race = is_race(b)
    x = list(ref_tesauro198(b)) + [float(race), float(not race)]
    for side in (1, 0):
        run = longest_prime(b[side])
        x += [float(run >= k) for k in range(1, 7)]
    return np.array(x)


def blocked_for(b, side) -> list[bool]:
    """blocked[t], t = 1..24 in ``side``'s numbering: the other side holds it."""
    return [False] + [int(b[1 - side, 24 - t]) >= 2 for t in range(1, 25)]


def ref_shots(b, roller) -> int:
    """Rolls (of 36) on which ``roller`` can hit a blot of the other side by
    some sequence of single-die moves (bar checkers entering first), ignoring
    the rules that force using as many dice as possible -- what the docstring
    describes as direct and combination shots."""
    other = 1 - roller
    blocked = blocked_for(b, roller)
    blot = [False] + [int(b[other, 24 - t]) == 1 for t in range(1, 25)]
    if not any(blot):
        return 0
    start = [int(x) for x in b[roller]]     # start[p - 1] = checkers on point p, [24] = bar

    seen = set()

    def search(pos, dice) -> bool:
        if not dice or (tuple(pos), dice) in seen:
            return False
        seen.add((tuple(pos), dice))
        for d in sorted(set(dice)):
            k = dice.index(d)
            rest = dice[:k] + dice[k + 1:]
            srcs = [25] if pos[24] else [p for p in range(1, 25) if pos[p - 1]]
            for p in srcs:
                t = p - d
                if t < 1 or blocked[t]:
                    continue            # bearing off never hits
                if blot[t]:
                    return True
                q = list(pos)
                q[24 if p == 25 else p - 1] -= 1
                q[t - 1] += 1
                if search(q, rest):
                    return True
        return False

    count = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            dice = (d1,) * 4 if d1 == d2 else (d1, d2)
            seen.clear()            # states known not to lead to a hit with this roll
            count += search(start, dice)
    return count


def exact_shots(b, roller) -> int:
    """Rolls of 36 on which some fully legal play of ``roller`` hits."""
    pos = b if roller == 1 else b[::-1].copy()
    before = int(pos[0, 24])
    count = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            after, _ = legal_afterstates(pos, d1, d2)
            count += bool((after[:, 0, 24] > before).any())
    return count


def ref_escapes(b, side) -> int:
    """Rolls of 36 on which ``side``'s rearmost checker alone gets past every
    point the other side holds among the 12 points in front of it."""
    p = rearmost(b[side])
    if not p:
        return 36
    return escapes_from(p, {t for t in range(1, 25) if blocked_for(b, side)[t]})


def ref_expert_side(b, side) -> list[float]:
    row, other = b[side], b[1 - side]
    back = int(row[18:24].sum()) + int(row[24])
    home = sum(int(row[i]) >= 2 for i in range(6))
    anchors = sum(int(row[i]) >= 2 for i in range(18, 24))
    blots = sum(int(row[i]) == 1 for i in range(24))
    closed = sum(int(other[i]) >= 2 for i in range(6))
    outfield = int(row[6:18].sum())
    stack = sum(max(int(row[i]) - 3, 0) for i in range(6))
    return [
        pips(row) / 100, back / 5, home / 6, longest_prime(row) / 6, anchors / 2,
        ref_shots(b, 1 - side) / 36, ref_escapes(b, side) / 36, blots / 5, closed / 6,
        (closed / 6) ** 2 if row[24] else 0.0, outfield / 15, stack / 10,
    ]


def ref_expert(b) -> np.ndarray:
    x = point_units(b[1]) + point_units(b[0])
    x += ref_expert_side(b, 1) + ref_expert_side(b, 0)
    x += [float(is_race(b)), (pips(b[1]) - pips(b[0])) / 100]
    return np.array(x)


REFS = {"tesauro198": ref_tesauro198, "tesauro198+extra": ref_tesauro212, "expert": ref_expert,
        # P1, P2 and pip loss (a slow search) are checked on their own below: NaN here
        "contact": lambda b: ref_contact(b, with_hits=False), "race": ref_race}


@pytest.fixture(scope="module")
def positions():
    pos = random_positions(12, seed=11, every=3)
    # a few hand-made corner cases: empty rows (all off), bars, stacks
    b = np.zeros((2, 25), np.uint8)
    b[1, 0] = 15
    pos.append(b.copy())                     # opponent all off
    b = np.zeros((2, 25), np.uint8)
    b[1, 24], b[1, 17], b[0, 0:6] = 3, 12, 2  # closed board, 3 on the bar
    pos.append(b.copy())
    b = np.zeros((2, 25), np.uint8)
    b[1, 5], b[0, 5] = 15, 15                # pure race, 15-checker stacks
    pos.append(b.copy())
    pos.append(start_board())
    return pos


# ---------------------------------------------------------------- tests

def test_names_and_sizes():
    assert ENCODERS == ("tesauro198", "tesauro198+extra", "expert", "contact", "race")
    for i, name in enumerate(ENCODERS):
        assert encoder_id(name) == i
        assert n_inputs(name) == SIZES[name]
    assert len(EXPERT_FEATURES) == 12
    assert len(CONTACT_FEATURES) == 22 and len(RACE_FEATURES) == 7
    assert 2 * (103 + len(CONTACT_FEATURES)) == SIZES["contact"]
    assert 2 * (110 + len(RACE_FEATURES)) + 1 == SIZES["race"]


@pytest.mark.parametrize("name", ENCODERS)
def test_encoder_matches_reference(name, positions):
    ref = REFS[name]
    X = encode(np.array(positions), name)
    assert X.dtype == np.float32 and X.shape == (len(positions), SIZES[name])
    assert X.flags.c_contiguous
    for b, x in zip(positions, X):
        want = ref(b)
        bad = np.flatnonzero(np.abs(x - want) > 1e-6)     # (NaN: not compared)
        assert bad.size == 0, (name, b.tolist(), bad, x[bad], want[bad])


@pytest.mark.parametrize("name", ENCODERS)
def test_single_vs_batch_and_out_buffer(name, positions):
    boards = np.array(positions[:20])
    X = encode(boards, name)
    one = encode(boards[3], name)
    assert one.shape == (SIZES[name],) and one.dtype == np.float32
    np.testing.assert_array_equal(one, X[3])
    # lists of ints are accepted like arrays
    np.testing.assert_array_equal(encode(boards[3].tolist(), name), X[3])
    out = np.full((20, SIZES[name]), 7.0, np.float32)
    res = encode(boards, name, out=out)
    assert res is out
    np.testing.assert_array_equal(out, X)
    # empty batch
    assert encode(np.zeros((0, 2, 25), np.uint8), name).shape == (0, SIZES[name])


def test_bad_out_buffers():
    boards = np.array([start_board()] * 3)
    for bad in (np.zeros((3, 198), np.float64), np.zeros((3, 197), np.float32),
                np.zeros((2, 198), np.float32), np.zeros((198, 3), np.float32).T,
                [[0.0] * 198] * 3):
        with pytest.raises(ValueError, match="out must be"):
            encode(boards, "tesauro198", out=bad)
    ro = np.zeros((3, 198), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError):
        encode(boards, "tesauro198", out=ro)


def test_bad_names_and_boards():
    b = start_board()
    for name in ("", "tesauro", "Tesauro198", "expert2"):
        with pytest.raises(ValueError, match="unknown encoder"):
            encode(b, name)
        with pytest.raises(ValueError, match="unknown encoder"):
            n_inputs(name)
    bad = []
    x = b.astype(np.int64)
    x[1, 3] = 1                                  # 16 checkers
    bad.append(x)
    x = b.astype(np.int64)
    x[0, 0] = -1
    bad.append(x)
    x = np.zeros((2, 25), np.int64)
    x[1, 0], x[0, 23] = 1, 1                     # both sides on one point
    bad.append(x)
    bad.append(np.zeros((2, 24), np.uint8))
    bad.append(np.zeros((3, 25), np.uint8))
    bad.append(np.zeros((2, 2, 2, 25), np.uint8))
    bad.append(b.astype(np.float64) + 0.5)
    bad.append(np.full((2, 25), "x"))
    for arr in bad:
        for name in ENCODERS:
            with pytest.raises(ValueError):
                encode(arr, name)
    with pytest.raises(ValueError):
        encode([b, b[:, :24]], "tesauro198")     # ragged
    with pytest.raises(ValueError, match=r"boards\[1\]"):
        encode(np.array([b, bad[0]]), "expert")
    for fn in (expert_features,):
        with pytest.raises(ValueError):
            fn(bad[0])


def test_turn_units_and_symmetry(positions):
    """tesauro198's two halves: the on-roll half of b equals the opponent half of swap(b)."""
    for b in positions[:50]:
        x = encode(b, "tesauro198")
        y = encode(b[::-1].copy(), "tesauro198")
        np.testing.assert_array_equal(x[:98], y[98:196])
        np.testing.assert_array_equal(x[196:], [1, 0])
        e, f = encode(b, "expert"), encode(b[::-1].copy(), "expert")
        np.testing.assert_array_equal(e[196:208], f[208:220])
        assert e[220] == f[220]
        assert e[221] == pytest.approx(-f[221], abs=1e-6)


def test_prefixes_shared(positions):
    boards = np.array(positions[:40])
    t = encode(boards, "tesauro198")
    np.testing.assert_array_equal(encode(boards, "tesauro198+extra")[:, :198], t)
    np.testing.assert_array_equal(encode(boards, "expert")[:, :196], t[:, :196])


def test_race_and_contact_units():
    b = np.zeros((2, 25), np.uint8)
    b[1, 10], b[0, 12] = 15, 15          # mover on its 11, opponent on its 13 = mover's 12
    x = encode(b, "tesauro198+extra")
    assert (x[198], x[199]) == (1, 0)
    b = np.zeros((2, 25), np.uint8)
    b[1, 11], b[0, 12] = 15, 15          # the opponent's 13 is the mover's 12: both on one point
    with pytest.raises(ValueError):
        encode(b, "tesauro198+extra")
    b = np.zeros((2, 25), np.uint8)
    b[1, 12], b[0, 12] = 15, 15          # mover on 13, opponent on mover's 12: contact
    x = encode(b, "tesauro198+extra")
    assert (x[198], x[199]) == (0, 1)
    assert encode(b, "expert")[220] == 0


def test_point_unit_values():
    b = np.zeros((2, 25), np.uint8)
    b[1, 0], b[1, 1], b[1, 2], b[1, 3], b[1, 4], b[1, 24] = 1, 2, 3, 4, 5, 0
    b[0, 10], b[0, 24] = 6, 3
    x = encode(b, "tesauro198")
    np.testing.assert_allclose(x[0:4], [1, 0, 0, 0])
    np.testing.assert_allclose(x[4:8], [1, 1, 0, 0])
    np.testing.assert_allclose(x[8:12], [1, 1, 1, 0])
    np.testing.assert_allclose(x[12:16], [1, 1, 1, 0.5])
    np.testing.assert_allclose(x[16:20], [1, 1, 1, 1.0])
    assert x[96] == 0 and x[97] == pytest.approx(0 / 15)        # 15 on board, none off
    np.testing.assert_allclose(x[98 + 40:98 + 44], [1, 1, 1, 1.5])
    assert x[98 + 96] == 1.5 and x[98 + 97] == pytest.approx(6 / 15)


def test_thermometer_units():
    b = np.zeros((2, 25), np.uint8)
    b[1, 3:10] = 2                       # a 7-prime: all six units
    b[1, 20] = 1
    b[0, 0:3] = 2                        # a 3-prime for the opponent
    x = encode(b, "tesauro198+extra")
    np.testing.assert_array_equal(x[200:206], [1] * 6)
    np.testing.assert_array_equal(x[206:212], [1, 1, 1, 0, 0, 0])
    f = expert_features(b)
    assert f["prime_on_roll"] == 7 and f["prime_opponent"] == 3


def test_expert_features_dict_agrees_with_encoding(positions):
    for b in positions[:80]:
        f = expert_features(b)
        x = encode(b, "expert")
        assert x[196 + 5] == pytest.approx(f["shots_by_opponent"] / 36, abs=1e-7)
        assert x[208 + 5] == pytest.approx(f["shots_by_on_roll"] / 36, abs=1e-7)
        assert x[196 + 6] == pytest.approx(f["escapes_on_roll"] / 36, abs=1e-7)
        assert x[208 + 6] == pytest.approx(f["escapes_opponent"] / 36, abs=1e-7)
        assert f["prime_on_roll"] == longest_prime(b[1])
        assert f["prime_opponent"] == longest_prime(b[0])


def shot_positions():
    pos = random_positions(20, seed=5, every=2)
    return [b for b in pos if (b[0, :24] == 1).any() or (b[1, :24] == 1).any()]


def test_shots_match_single_move_reference():
    """shots_36 equals a brute-force search over single-die move sequences
    (entering first), which is what its docstring describes."""
    n_bar = 0
    for b in shot_positions():
        f = expert_features(b)
        for roller, key in ((1, "shots_by_on_roll"), (0, "shots_by_opponent")):
            want = ref_shots(b, roller)
            assert f[key] == want, (b.tolist(), roller, f[key], want)
            n_bar += bool(b[roller, 24])
    assert n_bar > 20        # the bar branches were exercised


def test_shots_close_to_full_rules():
    """Against the exact count over fully legal plays, the approximation only
    differs in rare positions and by little."""
    diffs = []
    for b in shot_positions()[::2]:
        f = expert_features(b)
        diffs.append(f["shots_by_on_roll"] - exact_shots(b, 1))
    diffs = np.array(diffs)
    assert len(diffs) > 200
    assert (diffs == 0).mean() > 0.97, np.unique(diffs, return_counts=True)
    assert np.abs(diffs).max() <= 4


def test_shot_hand_cases():
    b = np.zeros((2, 25), np.uint8)
    b[1, 12] = 15                        # mover on its 13
    b[0, 15] = 1                         # opponent blot on its 16 = mover's 9 (4 away)
    b[0, 0] = 14
    # direct 4s: 11 rolls; combinations summing to 4: 1-3 (2), 2-2 (1), 1-1 (1) -> 15
    assert expert_features(b)["shots_by_on_roll"] == 15 == ref_shots(b, 1)
    # block the 3-point-away landing (mover's 10 = opponent's 15): 1-3 still via 12
    c = b.copy()
    c[0, 0], c[0, 14] = 12, 2
    assert expert_features(c)["shots_by_on_roll"] == ref_shots(c, 1)
    # no blots: zero
    d = start_board()
    assert expert_features(d)["shots_by_on_roll"] == 0


def test_escapes_match_reference():
    for b in random_positions(10, seed=8, every=2):
        f = expert_features(b)
        assert f["escapes_on_roll"] == ref_escapes(b, 1), b.tolist()
        assert f["escapes_opponent"] == ref_escapes(b, 0), b.tolist()


def random_masks(seed: int, per_density: int, k: int):
    """k random point masks (bits 1..24) at a time, per_density times for each density."""
    rng = np.random.default_rng(seed)
    pts = np.arange(1, 25)
    for density in (0.1, 0.3, 0.5, 0.7):
        for _ in range(per_density):
            yield rng, [int(((rng.random(24) < density) << pts).sum()) for _ in range(k)]


def test_shots_simd_equals_plain_c():
    """The AVX2 shot count (the 36 rolls as a bit matrix) against the plain C loops, on
    random masks of every density, with 0 to 4 of the roller's checkers on the bar."""
    from bgengine.core.encoders import _shots_both
    if _shots_both(2, 0, 0)[0] is None:
        pytest.skip("this CPU has no AVX2")
    n = 0
    for rng, (mine, made, blot) in random_masks(11, 15000, 3):
        made &= ~mine
        blot &= ~mine & ~made
        open_ = ~made & ((1 << 25) - 2)
        bar = int(rng.choice([0, 0, 0, 1, 1, 2, 3, 4]))
        fast, plain = _shots_both(mine, blot, open_, bar)
        assert fast == plain, (hex(mine), hex(blot), hex(open_), bar)
        n += plain > 0
    assert n > 20000                           # most cases have shots to count
    for mine, blot, open_ in ((1 << 24, 1 << 23, (1 << 25) - 2), ((1 << 25) - 2, 0, 0),
                              (1 << 13, 1 << 1, (1 << 25) - 2), (1 << 7, 1 << 1, 0x2)):
        fast, plain = _shots_both(mine, blot, open_)
        assert fast == plain


def test_escapes_table_equals_search():
    """The escape table (12 points ahead + the 15-pip point) against the 21-roll search:
    every pattern of the 12 points ahead of the bar and of points 13 and 14, with the
    points beyond all open or all held, and random masks for every other point."""
    from bgengine.core.encoders import _escapes_both
    rest = (1 << 25) - 2                       # bits 1..24
    for p in (25, 14, 13):
        ahead = sum(1 << t for t in range(max(1, p - 12), p))
        for w in range(1 << 12):
            m = 0
            for k in range(12):
                if (w >> k) & 1:
                    m |= 1 << (p - 1 - k)
            m &= ahead
            for far in (0, rest & ~ahead & ((1 << (p - 12)) - 1)):
                a, b = _escapes_both(p, m | far)
                assert a == b, (p, bin(m | far))
    rng = np.random.default_rng(4)
    for _ in range(60000):
        p = int(rng.integers(1, 26))
        m = int(rng.integers(0, 1 << 25)) & int(rng.integers(0, 1 << 25))
        a, b = _escapes_both(p, m)
        assert a == b, (p, bin(m))
    with pytest.raises(ValueError):
        _escapes_both(0, 0)


def test_escape_hand_cases():
    b = np.zeros((2, 25), np.uint8)
    b[1, 23] = 1                          # mover's back checker on 24
    b[1, 1] = 14
    b[0, 23] = 15                         # the opponent's 24 = the mover's 1, 23 pips away
    assert expert_features(b)["escapes_on_roll"] == 36        # nothing held in front
    b[0, 23], b[0, 6] = 13, 2             # opponent's 7 = mover's 18 (6 in front)
    # must land on 17 or below without stopping on 18: any roll totalling >= 7
    # whose path avoids 18: all non-doubles summing >= 7 (6-x needs x first)
    want = ref_escapes(b, 1)
    assert expert_features(b)["escapes_on_roll"] == want
    # by hand: non-doubles totalling >= 7 (play the non-6 first), 4-4 (20, 16)
    # and 5-5 (19, 14); 6-6, 3-3, 2-2 and 1-1 stop on or before 18
    manual = sum(1 for d1, d2 in itertools.product(range(1, 7), repeat=2)
                 if d1 != d2 and d1 + d2 >= 7) + 2
    assert want == manual == 20


def test_input_order_is_the_sparse_order():
    """encode_sparse writes the nonzero inputs in the encoder's summation order (the
    network sums rows in it): a permutation, ascending but for expert's side-on-roll
    features that need its checkers alone, which follow its point units."""
    from bgengine.core.encoders import EXPERT_FEATURES, _sparse_pairs, input_order
    for name in ENCODERS:
        order = input_order(name)
        assert sorted(order) == list(range(n_inputs(name)))
        rank = np.empty(len(order), int)
        rank[order] = np.arange(len(order))
        for b in random_positions(20, seed=8, every=2):
            idx, val = _sparse_pairs(b, name)
            assert (np.diff(rank[idx]) > 0).all()
            np.testing.assert_array_equal(val, encode(b, name)[idx])
            assert (val != 0).all()
    order = list(input_order("expert"))
    own = [196 + k for k in (0, 1, 2, 3, 4, 7, 10, 11)]
    assert order == list(range(98)) + own + [i for i in range(98, 222) if i not in own]
    assert len(EXPERT_FEATURES) == 12


# ---------------------------------------------------------------- contact and race

@pytest.fixture(scope="module")
def many_positions(positions):
    """Game positions, random legal ones (bars, checkers off, blots), random races, and
    the mirror image of each (rows swapped)."""
    pos = positions + random_boards(1500, seed=21) + race_boards(300, seed=22)
    return pos + [b[::-1].copy() for b in pos]


@pytest.mark.parametrize("name", ["contact", "race"])
def test_new_encoders_match_reference_on_many_positions(name, many_positions):
    X = encode(np.array(many_positions), name)
    for b, x in zip(many_positions, X):
        want = REFS[name](b)
        bad = np.flatnonzero(np.abs(x - want) > 1e-6)
        assert bad.size == 0, (name, b.tolist(), bad, x[bad], want[bad])


def test_contact_hits_match_search():
    """P1, P2 and pip loss of both sides against a search over every sequence of
    single-die moves of the 36 rolls (encoder_refs.hits), with bar checkers too."""
    pos = [b for b in random_boards(300, seed=23) + random_positions(3, seed=24, every=2)
           if (b[:, :24] == 1).any()]
    seen = {"p2": 0, "p2 bar 1": 0, "p2 bar 2+": 0, "one blot hit": 0, "one blot hit, bar": 0}
    for b in pos:
        f = contact_features(b)
        for side, key in ((1, "on_roll"), (0, "opponent")):
            got = (f[key]["p1"], f[key]["p2"], f[key]["pip_loss"])
            assert got == hits(b, side), (b.tolist(), side, got, hits(b, side))
            nb = int(b[side, 24])
            seen["p2"] += got[1] > 0
            seen["p2 bar 1"] += got[1] > 0 and nb == 1
            seen["p2 bar 2+"] += got[1] > 0 and nb >= 2
            one_blot = int((b[1 - side, :24] == 1).sum()) == 1      # (its own shortcut)
            seen["one blot hit"] += one_blot and got[0] > 0
            seen["one blot hit, bar"] += one_blot and got[0] > 0 and nb > 0
    assert min(seen.values()) >= 15, seen        # every branch met often


def test_contact_p1_is_shots(many_positions):
    """P1 is shots_36 of the expert encoder (the same move model), and the scaled dump is
    the encoding."""
    for b in many_positions[::3]:
        f, e = contact_features(b), expert_features(b)
        assert f["on_roll"]["p1"] == e["shots_by_on_roll"]
        assert f["opponent"]["p1"] == e["shots_by_opponent"]
        assert f["on_roll"]["p2"] <= f["on_roll"]["p1"]
        assert f["on_roll"]["escapes"] == e["escapes_on_roll"]
        x = encode(b, "contact")
        np.testing.assert_array_equal(x[103:125], f["on_roll"]["scaled"])
        np.testing.assert_array_equal(x[228:250], f["opponent"]["scaled"])


def test_contact_hand_cases():
    b = start_board()
    x = encode(b, "contact")
    assert x[103 + 12] == pytest.approx(1.0)            # break contact of the opening: 167 pips
    f = contact_features(b)["on_roll"]
    assert f["timing"] == 52 and f["p1"] == 0 and f["escapes"] == 0
    assert x[103 + 8] == 1 and x[103 + 10] == 1         # no escape from behind its 13-point
    # one checker on the bar against a 5-point board: enters only with 6s
    b = np.zeros((2, 25), np.uint8)
    b[1, 24], b[1, 5] = 1, 14
    b[0, 0:5], b[0, 10] = 2, 5
    x = encode(b, "contact")
    # losses: doubles 1-5 (4d each: 60), pairs both closed (10 pairs of 1..5: 2 x 60 = 120)
    assert x[103 + 20] == pytest.approx(180 / 294)
    assert x[103 + 21] == pytest.approx(25 / 36)
    # a direct 6 (11 rolls) and 3-3, 2-2 hit the blot 6 pips away
    b = np.zeros((2, 25), np.uint8)
    b[1, 12], b[1, 0] = 1, 14             # mover's 13 and 1
    b[0, 17], b[0, 0] = 1, 14             # opponent blot on its 18 = mover's 7
    f = contact_features(b)["on_roll"]
    assert (f["p1"], f["p2"]) == (hits(b, 1)[0], 0) and f["pip_loss"] == 7 * f["p1"]


def test_race_hand_cases():
    b = np.zeros((2, 25), np.uint8)
    b[1, 0], b[1, 7], b[1, 20] = 3, 2, 1    # 3 on its 1, 2 on its 8, 1 on its 21; 9 off
    b[0, 2] = 15
    x = encode(b, "race")
    np.testing.assert_array_equal(x[96:110], [1] * 9 + [0] * 5)
    pips = 3 + 16 + 21
    np.testing.assert_allclose(x[110:117], [pips / 100, 37 / 50, (2 + 3) / 10, 3 / 15,
                                            5 / 6, 3 / 15, 0], rtol=1e-6)
    assert x[234] == pytest.approx((45 - 40) / 40)   # the other side has 15 x 3 pips


def test_new_encoders_mirror(many_positions):
    """Swapping the rows swaps the halves (every feature of a side is defined from it and
    the other side alone); race's pip lead is antisymmetric when the pips are equal."""
    for b in many_positions[::4]:
        s = b[::-1].copy()
        x, y = encode(b, "contact"), encode(s, "contact")
        np.testing.assert_array_equal(x[:125], y[125:])
        np.testing.assert_array_equal(x[125:], y[:125])
        x, y = encode(b, "race"), encode(s, "race")
        np.testing.assert_array_equal(x[:117], y[117:234])
        np.testing.assert_array_equal(x[117:234], y[:117])


#: per feature, an upper bound by construction (all are >= 0)
CONTACT_MAX = [3.75, 1, 1, 2, 1.44, 1, 3, 1.875, 1, 1, 1, 1, 390 / 167, 3.6, 3.6, 1, 1, 2, 1,
               2.85, 1, 1]
RACE_MAX = [3.75, 7.5, 6, 1, 1, 1, 1]


def test_new_encoders_value_ranges(many_positions):
    C = encode(np.array(many_positions), "contact")
    for half in (0, 125):
        assert ((C[:, half:half + 103] >= 0) & (C[:, half:half + 103] <= 6)).all()
        F = C[:, half + 103:half + 125]
        assert (F >= 0).all() and (F <= np.array(CONTACT_MAX, np.float32)).all()
        np.testing.assert_allclose(F[:, 9], F[:, 8] ** 2, rtol=1e-6)
        np.testing.assert_allclose(F[:, 11], F[:, 10] ** 2, rtol=1e-6)
        assert (F[:, 10] <= F[:, 8]).all()
    R = encode(np.array(many_positions), "race")
    for half in (0, 117):
        assert ((R[:, half:half + 110] >= 0) & (R[:, half:half + 110] <= 6)).all()
        F = R[:, half + 110:half + 117]
        assert (F >= 0).all() and (F <= np.array(RACE_MAX, np.float32)).all()
    assert (np.abs(R[:, 234]) <= 1).all()


def sibling_groups(n_positions: int, seed: int):
    """Groups of afterstates of one roll as the next side to roll sees them (rows swapped),
    grouped by its checkers (which the plays that do not hit leave alone)."""
    rng = np.random.default_rng(seed)
    for b in (random_positions(4, seed=seed, every=3) + random_boards(60, seed))[:n_positions]:
        d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
        after, _ = legal_afterstates(b, d1, d2)
        groups = {}
        for a in after:
            s = a[::-1].copy()
            groups.setdefault(s[1].tobytes(), []).append(s)
        yield from groups.values()


@pytest.mark.parametrize("name", ENCODERS)
def test_tails_under_one_head_equal_each_alone(name):
    """Sibling tails encoded one after another under one head (whose caches, for contact the
    q terms, escapes and the made-points memo, fill and evict as they come, as in a search)
    give the same pairs as each tail under its own fresh head; the groups also in reverse
    and shuffled order, so that a cached entry meets tails it was not made for."""
    from bgengine.core.encoders import _head_tail_pairs, _shared_head_tails
    rng = np.random.default_rng(5)
    n = big = 0
    for group in sibling_groups(70, seed=37):
        alone = [_head_tail_pairs(s, name)[1] for s in group]
        for order in (np.arange(len(group)), np.arange(len(group))[::-1],
                      rng.permutation(len(group))):
            shared = _shared_head_tails(np.array([group[i] for i in order]), name)
            for i, (ti, tv) in zip(order, shared):
                np.testing.assert_array_equal(ti, alone[i][0])
                np.testing.assert_array_equal(tv, alone[i][1])
        n += len(group)
        big += len(group) > 16
    assert n > 500 and big > 10, (n, big)


@pytest.mark.parametrize("name", ENCODERS)
def test_head_shared_by_siblings(name):
    """encode_head depends on the side on roll's checkers alone (sibling afterstates share
    it), head + tail = the sparse pairs, and the head holds exactly the inputs that come
    first in the summation order."""
    from bgengine.core.encoders import _head_tail_pairs, _sparse_pairs, input_order
    order = list(input_order(name))
    head_size = {"tesauro198": 98, "tesauro198+extra": 98, "expert": 106, "contact": 113,
                 "race": 117}[name]
    head_inputs = set(order[:head_size])
    n = 0
    for group in sibling_groups(70, seed=31):
        (hi, hv), _ = _head_tail_pairs(group[0], name)
        assert set(hi) <= head_inputs
        for s in group:
            (hi2, hv2), (ti, tv) = _head_tail_pairs(s, name)
            np.testing.assert_array_equal(hi2, hi)
            np.testing.assert_array_equal(hv2, hv)
            assert not set(ti) & head_inputs
            idx, val = _sparse_pairs(s, name)
            np.testing.assert_array_equal(np.concatenate([hi, ti]), idx)
            np.testing.assert_array_equal(np.concatenate([hv, tv]), val)
            n += 1
    assert n > 500


def test_contact_order():
    from bgengine.core.encoders import input_order
    own = list(range(103, 113))
    assert list(input_order("contact")) == (list(range(103)) + own + list(range(125, 228))
                                            + list(range(113, 125)) + list(range(228, 250)))
    assert list(input_order("race")) == list(range(235))


@pytest.mark.parametrize("name", ["contact", "race"])
def test_network_sparse_equals_dense(name, many_positions):
    """A network on the new encoders: positions evaluated from the sparse pairs give the
    same bits as their dense encodings summed in the encoder's order."""
    from bgengine.core.network import Network
    net = Network((16,), 5, name, seed=3, init_range=0.5)
    boards = np.array(many_positions[::7])
    np.testing.assert_array_equal(net.evaluate(boards), net.forward(encode(boards, name)))


def test_hits_simd_equals_plain_c():
    """The AVX2 P1, P2 and pip loss (lanes the first die) against the plain C loops, on
    random masks of every density."""
    from bgengine.core.encoders import _hits_both
    if _hits_both(2, 0, 0, 0)[0] is None:
        pytest.skip("this CPU has no AVX2")
    n2 = 0
    for _, (mine, made, held, blot) in random_masks(12, 6000, 4):
        made &= mine
        held &= ~mine
        blot &= ~mine & ~held
        fast, plain = _hits_both(mine, made, blot, ~held & ((1 << 25) - 2))
        assert fast == plain, (hex(mine), hex(made), hex(blot), hex(held))
        n2 += plain[1] > 0
    assert n2 > 5000


def test_hits_bar_simd_equals_plain_c():
    """The same with 1..4 checkers on the roller's bar (they enter first), on random masks
    of every density; every count met."""
    from bgengine.core.encoders import _hits_both
    if _hits_both(2, 0, 0, 0, 1)[0] is None:
        pytest.skip("this CPU has no AVX2")
    seen = {bar: [0, 0] for bar in range(1, 5)}
    for k, (_, (mine, _, held, blot)) in enumerate(random_masks(13, 6000, 4)):
        bar = 1 + k % 4
        held &= ~mine
        blot &= ~mine & ~held
        fast, plain = _hits_both(mine, 0, blot, ~held & ((1 << 25) - 2), bar)
        assert fast == plain, (bar, hex(mine), hex(blot), hex(held))
        seen[bar][0] += plain[0] > 0
        seen[bar][1] += plain[1] > 0
    assert all(p1 > 500 and p2 > 100 for p1, p2 in seen.values()), seen
