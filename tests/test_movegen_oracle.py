"""The compiled move generator against the pure-Python rules in rules_oracle.py.

* Hand-made positions with known answers (opening rolls, bar entry, the
  must-use-both and larger-die rules, no legal play, bearing off, doubles
  played in part, hits).
* Over 100,000 random (position, roll) pairs: positions from random games and
  from the wildbg set, plus constructed ones (random scatter with checkers on
  the bar, bear-offs, primes, closed boards, a few checkers left), each with
  all 36 ordered rolls (the 21 rolls, non-doubles in both orders).  For every
  pair the set of afterstates must equal the oracle's, with no duplicates, and
  every canonical checker sequence must replay under the oracle's single-step
  rules to its afterstate, playing as many dice as the rules demand.
"""

from __future__ import annotations

import base64
import multiprocessing
import random
import time

import numpy as np
import pytest

import rules_oracle as oracle
from bgengine.core.board import game_result, swap_sides, validate_board
from bgengine.core.movegen import (MoveGenerator, count_afterstates, legal_afterstates,
                              legal_afterstates_batch)
from conftest import DATA

#: All 36 ordered rolls: the 21 distinct rolls, each non-double in both orders.
ORDERED_ROLLS = [(a, b) for a in range(1, 7) for b in range(1, 7)]

START = np.array(oracle.START, dtype=np.uint8)


# ------------------------------------------------------------------ helpers

def board_from(mover: dict[int, int], opponent: dict[int, int]) -> np.ndarray:
    """A board from ``{point: checkers}`` for each side, each in its own
    numbering (25 = bar); checkers not listed are borne off."""
    b = np.zeros((2, 25), dtype=np.uint8)
    for point, n in mover.items():
        b[1, point - 1] = n
    for point, n in opponent.items():
        b[0, point - 1] = n
    return validate_board(b)


def as_key(board) -> tuple:
    return tuple(tuple(int(v) for v in row) for row in board)


def plays(board, d1, d2) -> dict[tuple, tuple]:
    """The core's plays as ``{afterstate: steps}`` in the oracle's format."""
    afterstates, steps = legal_afterstates(board, d1, d2)
    out = {}
    for a, s in zip(afterstates, steps):
        out[as_key(a)] = tuple((int(x), int(y)) for x, y in s if x != -1)
    return out


def after(board, moves: list[tuple[int, int]]) -> tuple:
    """The position after moving mover checkers ``(from, to)`` (to 0 = off),
    hitting blots; no legality check (for writing expected answers)."""
    b = [list(r) for r in as_key(board)]
    for src, dst in moves:
        b[1][src - 1] -= 1
        if dst:
            b[1][dst - 1] += 1
            if b[0][24 - dst] == 1:
                b[0][24 - dst] = 0
                b[0][24] += 1
    return tuple(tuple(r) for r in b)


def agree(board, d1, d2) -> dict[tuple, tuple]:
    """Assert the core and the oracle agree on this roll; return the core's plays."""
    core = plays(board, d1, d2)
    ref = oracle.legal_plays(as_key(board), d1, d2)
    assert set(core) == set(ref)
    return core


# ------------------------------------------------------------------ hand-made cases
#
# Positions are written as {point: checkers} per side, each side in its own
# numbering (25 = its bar); the opponent's point q is the mover's point 25 - q.
# Every case checks the core against the oracle and against the answer worked
# out by hand.


def test_opening_31_has_16_plays_including_8_5_6_5():
    core = agree(START, 3, 1)
    assert len(core) == 16
    assert after(START, [(8, 5), (6, 5)]) in core
    assert after(START, [(24, 21), (21, 20)]) in core       # 24/20 with one checker
    assert after(START, [(13, 10), (10, 9)]) in core        # 13/9
    assert agree(START, 1, 3).keys() == core.keys()


@pytest.mark.parametrize("d1,d2", ORDERED_ROLLS)
def test_opening_position_every_roll(d1, d2):
    core = agree(START, d1, d2)
    assert all(len(s) == (4 if d1 == d2 else 2) for s in core.values())


def test_enter_against_five_point_board():
    # The opponent holds its points 1..5 (our 24..20); its 6-point (our 19) is open.
    board = board_from({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 13: 5})
    # Only a 6 enters (bar/19); the other die is then free.
    expected = {after(board, [(25, 19), (19, 16)]), after(board, [(25, 19), (13, 10)])}
    assert set(agree(board, 6, 3)) == expected
    assert set(agree(board, 3, 6)) == expected
    # Without a 6 nothing enters and nothing else may move.
    for d1, d2 in [(5, 4), (3, 3), (1, 2), (5, 5)]:
        assert agree(board, d1, d2) == {as_key(board): ()}
    # 6-6: enter, then three more sixes.
    core = agree(board, 6, 6)
    assert all(len(s) == 4 and s[0] == (25, 19) for s in core.values())
    assert after(board, [(25, 19), (19, 13), (13, 7), (7, 1)]) in core


def test_two_on_the_bar_one_enters_the_other_die_is_lost():
    board = board_from({25: 2, 13: 13}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 13: 5})
    for d1, d2 in [(6, 3), (3, 6)]:
        assert agree(board, d1, d2) == {after(board, [(25, 19)]): ((25, 19),)}


def test_closed_board_no_legal_move():
    board = board_from({25: 1, 6: 5, 8: 3, 13: 6},
                       {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 3, 8: 2})
    gen = MoveGenerator()
    for d1, d2 in ORDERED_ROLLS:
        afterstates, steps = legal_afterstates(board, d1, d2)
        assert afterstates.shape == (1, 2, 25) and steps.shape == (1, 4, 2)
        np.testing.assert_array_equal(afterstates[0], board)
        assert (steps == -1).all()
        assert gen.count(board, d1, d2) == 1
        assert oracle.legal_plays(as_key(board), d1, d2) == {as_key(board): ()}
    assert (count_afterstates(board[None], np.array(ORDERED_ROLLS)) == 1).all()


def test_must_use_both_dice():
    # Mover: 10 and 3 (13 off); the opponent holds our 4 (its 21).  Roll 6-2:
    #   the 6 cannot be played first (10/4 blocked; 3/off: not all home);
    #   2 first: 10/8 then 8/2 uses both; 3/1 then nothing (a dead end).
    # Only the play using both dice is legal: 10/8/2.
    board = board_from({10: 1, 3: 1}, {21: 2, 1: 13})
    expected = {after(board, [(10, 8), (8, 2)])}
    assert set(agree(board, 6, 2)) == expected
    assert set(agree(board, 2, 6)) == expected
    assert after(board, [(3, 1)]) not in agree(board, 6, 2)


def test_larger_die_when_only_one_can_be_played():
    # One mover checker on 20 (14 off); the opponent holds our 11 (its 14):
    # 20/14 then 14/11 and 20/17 then 17/11 are both blocked, so one die only,
    # and it must be the 6.
    board = board_from({20: 1}, {14: 2, 1: 13})
    for d1, d2 in [(6, 3), (3, 6)]:
        assert agree(board, d1, d2) == {after(board, [(20, 14)]): ((20, 14),)}
    # With our 14 blocked too (its 11), the 6 cannot be played: the 3 must be.
    board = board_from({20: 1}, {11: 2, 14: 2, 1: 11})
    for d1, d2 in [(6, 3), (3, 6)]:
        assert agree(board, d1, d2) == {after(board, [(20, 17)]): ((20, 17),)}


def test_bear_off_higher_point_rule():
    # Two on the 4-point, one on the 2: 6-5 bears off from the highest point twice.
    board = board_from({4: 2, 2: 1}, {1: 15})
    assert agree(board, 6, 5) == {after(board, [(4, 0), (4, 0)]): ((4, 0), (4, 0))}
    # 5 and 3: the 6 must bear off from the 5 (highest); the 4 may not bear off
    # from the 3 while the 5 is occupied, but may move 5/1 and then the 6 bears
    # off the 3 (now the highest).
    board = board_from({5: 1, 3: 1}, {1: 15})
    expected = {after(board, [(5, 0), (3, 0)]), after(board, [(5, 1), (3, 0)])}
    assert set(agree(board, 6, 4)) == expected
    assert set(agree(board, 4, 6)) == expected
    # An exact die bears off from its point even with higher points occupied.
    board = board_from({6: 1, 2: 1}, {1: 15})
    # 2-1 from {6, 2}: 2/off 6/5 -> {5}; 6/4/3 -> {3, 2}; 6/4 2/1 -> {4, 1}.
    # Not 2/1 1/off: the 2 cannot bear off from the 1 while the 6 is occupied.
    expected = {after(board, [(2, 0), (6, 5)]), after(board, [(6, 4), (4, 3)]),
                after(board, [(6, 4), (2, 1)])}
    assert set(agree(board, 2, 1)) == expected
    assert set(agree(board, 1, 2)) == expected


def test_no_bear_off_until_all_home():
    # A checker on 7: 6-5 -> 7/1 then 2/off, or 7/2 then 2/off (the 6, highest).
    board = board_from({7: 1, 2: 2}, {1: 15})
    expected = {after(board, [(7, 1), (2, 0)]), after(board, [(7, 2), (2, 0)])}
    assert set(agree(board, 6, 5)) == expected
    # Nothing may bear off before the 7 comes home, so both dice never bear off.
    assert after(board, [(2, 0), (2, 0)]) not in expected
    assert all(s[0][0] == 7 for s in agree(board, 6, 5).values())


def test_doubles_three_of_four():
    # Mover: 24 and 19 (13 off); the opponent holds our 13 (its 12).
    # 6-6: 24/18/12/6, then 6/off is not allowed (19 is not home), 19/13 blocked.
    board = board_from({24: 1, 19: 1}, {12: 2, 2: 13})
    assert agree(board, 6, 6) == {after(board, [(24, 18), (18, 12), (12, 6)]):
                                  ((24, 18), (18, 12), (12, 6))}


def test_doubles_two_of_four():
    # Mover: 24 and 13; the opponent holds our 16 (its 9) and our 5 (its 20).
    # 4-4: 24/20 then 20/16 blocked; 13/9 then 9/5 blocked.
    board = board_from({24: 1, 13: 1}, {9: 2, 20: 2, 2: 11})
    assert agree(board, 4, 4) == {after(board, [(24, 20), (13, 9)]): ((24, 20), (13, 9))}


def test_hits():
    # Opponent blots on its 5 (our 20) and its 3 (our 22).
    board = board_from({24: 2, 13: 13}, {5: 1, 3: 1, 6: 4, 8: 3, 13: 4, 24: 2})
    core = agree(board, 4, 2)
    one = after(board, [(24, 20), (20, 18)])            # 24/20*/18
    two = after(board, [(24, 20), (24, 22)])            # 24/20* 24/22*
    assert one in core and two in core
    assert one[0][24] == 1 and one[0][4] == 0           # the blot went to its bar
    assert two[0][24] == 2 and two[0][4] == 0 and two[0][2] == 0
    assert sum(one[0]) == sum(two[0]) == 15             # nothing borne off by a hit


def test_entering_with_a_hit():
    board = board_from({25: 1, 6: 14}, {3: 1, 6: 5, 8: 5, 13: 4})
    core = agree(board, 3, 2)
    hit = [a for a, s in core.items() if s[0] == (25, 22) or (25, 22) in s]
    assert hit and all(a[0][24] == 1 for a in hit)      # bar/22*
    assert all(s[0][0] == 25 for s in core.values())    # the bar checker moves first


# ------------------------------------------------------------------ random positions

def decode_position_id(pid: str) -> np.ndarray:
    """A GNU Backgammon Position ID as a (2, 25) board (side not on roll first)."""
    key = base64.b64decode(pid + "==")
    bits = [(key[i // 8] >> (i % 8)) & 1 for i in range(80)]
    board = np.zeros((2, 25), dtype=np.uint8)
    side = slot = 0
    for bit in bits:
        if side == 2:
            break
        if bit:
            board[side, slot] += 1
        else:
            slot += 1
            if slot == 25:
                side, slot = side + 1, 0
    return board


def random_game_positions(rng: random.Random, n_games: int, max_plies: int = 400) -> list:
    """Positions met in games of random legal moves from the start (the side on roll)."""
    out = []
    gen = MoveGenerator()
    for _ in range(n_games):
        board = START.copy()
        for _ply in range(max_plies):
            out.append(board)
            afterstates, _ = gen.legal_afterstates(board, rng.randint(1, 6), rng.randint(1, 6))
            board = afterstates[rng.randrange(len(afterstates))][::-1].copy()   # swap sides
            if (board.sum(axis=1) == 0).any():
                break
    return out


class Builder:
    """Place checkers on an empty board while keeping it legal."""

    def __init__(self):
        self.b = np.zeros((2, 25), dtype=np.uint8)

    def free(self, side: int, slot: int) -> bool:
        """May ``side`` put a checker on its ``slot`` (0..23 points, 24 bar)?"""
        if self.b[side].sum() >= 15:
            return False
        return slot == 24 or self.b[1 - side, 23 - slot] == 0

    def put(self, side: int, slot: int, n: int = 1) -> int:
        placed = 0
        for _ in range(n):
            if not self.free(side, slot):
                break
            self.b[side, slot] += 1
            placed += 1
        return placed

    def scatter(self, rng: random.Random, side: int, n: int, slots) -> None:
        slots = list(slots)
        for _ in range(n):
            choices = [s for s in slots if self.free(side, s)]
            if not choices:
                return
            self.put(side, rng.choice(choices))


def constructed_position(rng: random.Random) -> np.ndarray:
    kind = rng.choice(["scatter", "scatter", "bearoff", "almost_home", "prime",
                       "closed", "few", "stacked", "both_bar"])
    bd = Builder()
    me, opp = 1, 0
    if kind == "scatter":
        # Random points for both sides, sometimes heavy on the bar.
        bar_w = rng.choice([0, 1, 3])
        for side in (me, opp):
            slots = list(range(24)) + [24] * bar_w
            bd.scatter(rng, side, rng.randint(1, 15), slots)
    elif kind == "bearoff":
        bd.scatter(rng, me, rng.randint(1, 15), range(6))
        bd.scatter(rng, opp, rng.randint(1, 15), rng.choice([range(6), range(24), range(18, 25)]))
    elif kind == "almost_home":
        bd.scatter(rng, me, rng.randint(1, 3), range(6, rng.choice([8, 12, 24])))
        bd.scatter(rng, me, rng.randint(0, 12), range(6))
        bd.scatter(rng, opp, rng.randint(1, 15), range(25))
    elif kind == "prime":
        # The opponent holds k consecutive points; the mover has checkers behind them.
        k = rng.randint(4, 6)
        low = rng.randint(0, 24 - k)            # opponent slots low..low+k-1
        for s in range(low, low + k):
            bd.put(opp, s, 2 + rng.randint(0, 1))
        behind = [23 - s for s in range(0, low)] or [24]   # mover slots "above" the prime
        bd.scatter(rng, me, rng.randint(1, 4), behind + [24] * rng.randint(0, 2))
        bd.scatter(rng, me, rng.randint(0, 11), range(24))
        bd.scatter(rng, opp, rng.randint(0, 15), range(25))
    elif kind == "closed":
        # 5 or 6 home points of the opponent made, mover on the bar.
        for s in rng.sample(range(6), rng.randint(5, 6)):
            bd.put(opp, s, 2)
        bd.put(me, 24, rng.randint(1, 3))
        bd.scatter(rng, me, rng.randint(0, 12), range(24))
        bd.scatter(rng, opp, rng.randint(0, 3), range(25))
    elif kind == "few":
        for side in (me, opp):
            bd.scatter(rng, side, rng.randint(1, 3), range(25))
    elif kind == "stacked":
        # Tall stacks (up to 15 on a point), blocked and open.
        for side in (me, opp):
            for _ in range(rng.randint(1, 3)):
                bd.put(side, rng.randrange(25), rng.randint(1, 15))
    elif kind == "both_bar":
        bd.put(me, 24, rng.randint(1, 4))
        bd.put(opp, 24, rng.randint(1, 4))
        for side in (me, opp):
            bd.scatter(rng, side, rng.randint(1, 11), range(24))
    return validate_board(bd.b)


def wildbg_positions() -> list:
    out = []
    for name in ("contact_1000_positions.txt", "race_1000_positions.txt"):
        out += [decode_position_id(p) for p in (DATA / "wildbg" / name).read_text().split()]
    return out


def position_set(seed: int = 20240607) -> np.ndarray:
    """About 3000 distinct legal positions (x 36 rolls > 100,000 pairs)."""
    rng = random.Random(seed)
    positions = random_game_positions(rng, 20)
    positions += rng.sample(wildbg_positions(), 400)
    positions += [constructed_position(rng) for _ in range(1500)]
    unique = {p.tobytes(): p for p in positions}
    positions = list(unique.values())
    rng.shuffle(positions)
    return np.stack(positions[:3000])


# ------------------------------------------------------------------ the big comparison

def test_oracle_reproduces_the_wildbg_totals():
    """The oracle itself against published numbers (tests/data/wildbg/README.md):
    2000 positions x 21 rolls, counted the same way as test_wildbg.py."""
    expected = {"contact_1000_positions.txt": (218356, 185957),
                "race_1000_positions.txt": (140720, 122570)}
    with multiprocessing.get_context("fork").Pool(2) as pool:      # one file a process
        totals = pool.map(_oracle_totals, list(expected))
    for (name, counts), got in zip(expected.items(), totals):
        assert got == counts, name


def _oracle_totals(name: str) -> tuple[int, int]:
    """The oracle's plays of the wildbg file's positions over the 21 rolls: (doubles,
    non-doubles)."""
    rolls = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]
    got = [0, 0]
    for p in (DATA / "wildbg" / name).read_text().split():
        b = as_key(decode_position_id(p))
        for d1, d2 in rolls:
            got[d1 != d2] += len(oracle.legal_plays(b, d1, d2))
    return got[0], got[1]


def _check_pairs(chunk) -> tuple[int, int, int, list]:
    """Each (position, roll) pair of a chunk against the oracle: (pairs checked,
    afterstates, pairs without a legal play, up to 10 failures).  ``chunk``: the
    positions' oracle keys, their afterstates' bytes (50 a state), steps, and offsets
    (36 pairs a position, ``ORDERED_ROLLS`` order)."""
    board_states, buf, all_steps, offsets = chunk
    failures = []
    n_moves = n_noplay = n_checked = 0
    for k in range(36 * len(board_states)):
        n_checked += 1
        d1, d2 = ORDERED_ROLLS[k % 36]
        board = board_states[k // 36]
        ref = oracle.legal_plays(board, d1, d2)
        lo, hi = int(offsets[k]), int(offsets[k + 1])
        core = [buf[50 * i: 50 * i + 50] for i in range(lo, hi)]
        ref_bytes = {oracle.state_bytes(a): s for a, s in ref.items()}
        n_moves += hi - lo
        problem = None
        if len(set(core)) != len(core):
            problem = "duplicate afterstates"
        elif set(core) != set(ref_bytes):
            missing = set(ref_bytes) - set(core)
            extra = set(core) - set(ref_bytes)
            problem = (f"core misses {len(missing)} (e.g. {ref_bytes[next(iter(missing))]}) "
                       if missing else "") + (f"core has {len(extra)} extra" if extra else "")
        else:
            n_dice = len(next(iter(ref.values())))
            n_noplay += n_dice == 0
            for a, st in zip(core, all_steps[lo:hi]):
                played = [tuple(s) for s in st if s[0] != -1]
                if any(s != [-1, -1] for s in st[len(played):]):
                    problem = f"steps {st}: unused steps must be (-1, -1)"
                elif len(played) != n_dice:
                    problem = f"steps {played} play {len(played)} dice, the rules demand {n_dice}"
                else:
                    end = oracle.replay_state(board, played, d1, d2)
                    if end is None:
                        problem = f"steps {played} are not a legal sequence"
                    elif oracle.state_bytes(end) != a:
                        problem = f"steps {played} do not reach their afterstate"
                if problem:
                    break
        if problem:
            failures.append((board, (d1, d2), problem))
            if len(failures) >= 10:
                break
    return n_checked, n_moves, n_noplay, failures


def test_random_pairs_agree_with_oracle():
    t0 = time.perf_counter()
    boards = position_set()
    n_pos = len(boards)
    assert n_pos >= 2800
    rolls = np.array(ORDERED_ROLLS, dtype=np.int32)
    rep_boards = np.repeat(boards, len(rolls), axis=0)
    rep_dice = np.tile(rolls, (n_pos, 1))
    n_pairs = len(rep_boards)
    assert n_pairs >= 100_000

    afterstates, steps, offsets = legal_afterstates_batch(rep_boards, rep_dice)
    counts = count_afterstates(boards, rolls)
    np.testing.assert_array_equal(counts.ravel(), np.diff(offsets))
    # Threads do not change the counts.
    np.testing.assert_array_equal(count_afterstates(boards, rolls, n_threads=2), counts)

    board_states = [as_key(b) for b in boards]
    buf = afterstates.tobytes()                # afterstate i is buf[50 * i: 50 * i + 50]
    all_steps = steps.tolist()
    # the pure-Python side takes most of the time: positions in 4 chunks over 2 processes
    # (forked: the chunks are checked exactly as in one process, their figures summed)
    bounds = np.linspace(0, n_pos, 5).astype(int)
    chunks = []
    for p0, p1 in zip(bounds[:-1], bounds[1:]):
        lo, hi = int(offsets[36 * p0]), int(offsets[36 * p1])
        chunks.append((board_states[p0:p1], buf[50 * lo: 50 * hi], all_steps[lo:hi],
                       (offsets[36 * p0: 36 * p1 + 1] - lo).tolist()))
    with multiprocessing.get_context("fork").Pool(2) as pool:
        results = pool.map(_check_pairs, chunks)
    n_checked = sum(r[0] for r in results)
    n_moves = sum(r[1] for r in results)
    n_noplay = sum(r[2] for r in results)
    failures = [f for r in results for f in r[3]][:10]
    elapsed = time.perf_counter() - t0
    print(f"\n{n_checked} of {n_pairs} pairs ({n_pos} positions x 36 rolls), "
          f"{n_moves} afterstates, {n_noplay} without a legal play, {elapsed:.1f} s")
    assert not failures, "\n".join(f"board={list(map(list, b))} dice={d}: {p}"
                                   for b, d, p in failures)
    # The sample really is diverse.
    assert n_noplay > 500
    assert (boards[:, 1, 24] > 0).sum() > 300                     # mover on the bar
    assert (boards[:, 1, 6:].sum(axis=1) == 0).sum() > 300        # mover bearing off


def test_single_and_batch_and_generator_agree():
    rng = random.Random(5)
    boards = [constructed_position(rng) for _ in range(60)]
    gen = MoveGenerator()
    for b in boards:
        for d1, d2 in ORDERED_ROLLS:
            a1, s1 = legal_afterstates(b, d1, d2)
            a2, s2 = gen.legal_afterstates(b, d1, d2)
            np.testing.assert_array_equal(a1, a2)
            np.testing.assert_array_equal(s1, s2)
            assert gen.count(b, d1, d2) == len(a1)
    a, s, off = legal_afterstates_batch(np.stack(boards), np.array([(3, 1)] * len(boards)))
    for k, b in enumerate(boards):
        a1, s1 = legal_afterstates(b, 3, 1)
        np.testing.assert_array_equal(a[off[k]:off[k + 1]], a1)
        np.testing.assert_array_equal(s[off[k]:off[k + 1]], s1)


def test_random_games_with_the_oracle_reach_an_end():
    """Whole games played with the oracle only, checked against the core move by move."""
    rng = random.Random(11)
    for _ in range(3):
        board = oracle.START
        for _ply in range(600):
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            ref = oracle.legal_plays(board, d1, d2)
            assert set(plays(np.array(board, dtype=np.uint8), d1, d2)) == set(ref)
            board = oracle.swap(rng.choice(sorted(ref)))
            if oracle.result(board):
                break
        assert oracle.result(board) in (-1, -2, -3)   # the side that just moved won
        assert game_result(np.array(board, dtype=np.uint8)) == oracle.result(board)
        np.testing.assert_array_equal(swap_sides(np.array(board, dtype=np.uint8)),
                                      np.array(oracle.swap(board), dtype=np.uint8))
