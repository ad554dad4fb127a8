"""Move choice's first layer by difference from a sibling play (layer_delta.pxd).

Pinned: with ``by_delta=False`` every play's outputs are bit for bit ``evaluate`` of its
afterstate; with ``by_delta=True`` (what play, lookahead and rollouts use) the same for
networks that sum in full (narrower than 128 units on contact inputs, 256 on others), and
for the others (the shipped evaluator's 128-wide contact network among them) within
``TOLERANCE`` of those, the same play chosen on every decision of the sample but near ties
(equities within the sums' rounding), reproducible
bit for bit, and rollouts independent of the thread count.
"""

from __future__ import annotations

import numpy as np
import pytest

from bgengine.core.evaluator import Evaluator
from bgengine.core.movegen import legal_afterstates
from bgengine.core.network import Network, equity_of
from bgengine.matches.players import default_network_path, load_network
from bgengine.position import STARTING_BOARD
from bgengine.core.search import play_outputs, rollout

from game_positions import board_from_points, random_positions

TOLERANCE = 1e-5        # on each output (probabilities); measured: below 1e-6
ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


def by_difference(net: Network) -> bool:
    """Whether move choice values this network's sibling plays by difference: contact
    networks (compared by parts) from 128 units wide, others from 256."""
    return net.sizes[1] >= (128 if net.encoder == "contact" else 256)


def flip5(v: np.ndarray) -> np.ndarray:
    """Outputs (n, 5) of the side on roll -> the other side's."""
    return np.stack([1 - v[:, 0], v[:, 3], v[:, 4], v[:, 1], v[:, 2]], axis=1)


def evaluators() -> dict[str, Evaluator | Network]:
    """The shipped evaluator, a 256-wide contact network (random weights: the sums'
    rounding does not depend on training), and a class evaluator of a 256-wide contact
    network and a narrow race network (siblings of both classes share the head slots)."""
    wide = Network((256,), 5, "contact", seed=11)
    mixed = Evaluator(Network((256,), 5, "contact", seed=14), Network((16,), 5, "race", seed=15))
    out: dict[str, Evaluator | Network] = {"wide contact 256": wide, "contact 256 + race 16": mixed}
    if default_network_path().exists():
        out["shipped"] = load_network(default_network_path())
    return out


@pytest.fixture(scope="module")
def decisions() -> list[tuple[np.ndarray, int, int]]:
    """(board, d1, d2) of positions met in random games, three rolls each."""
    out = []
    for i, b in enumerate(random_positions(12, seed=21, every=2)):
        for d1, d2 in (ROLLS[i % 21], ROLLS[(i + 7) % 21], ROLLS[(i + 14) % 21]):
            out.append((b, d1, d2))
    return out


@pytest.mark.parametrize("name", sorted(evaluators()))
def test_full_sums_are_each_plays_own_evaluation(name, decisions):
    ev = evaluators()[name]
    for board, d1, d2 in decisions[::4]:
        _, out = play_outputs(ev, board, d1, d2, by_delta=False)
        after, _ = legal_afterstates(board, d1, d2)
        live = after[:, 1].sum(axis=1) > 0         # game-ending plays score exactly
        if live.any():
            own = flip5(ev.evaluate(np.ascontiguousarray(after[live, ::-1])))
            np.testing.assert_array_equal(out[live], own)


@pytest.mark.parametrize("name", sorted(evaluators()))
def test_differences_stay_within_tolerance_and_choose_the_same_plays(name, decisions):
    ev = evaluators()[name]
    nets = ev.networks.values() if isinstance(ev, Evaluator) else [ev]
    wide = any(by_difference(n) for n in nets)
    worst, bit_equal, plays, crossing, ties = 0.0, 0, 0, 0, 0
    for board, d1, d2 in decisions:
        c_full, full = play_outputs(ev, board, d1, d2, by_delta=False)
        c_delta, delta = play_outputs(ev, board, d1, d2, by_delta=True)
        if isinstance(ev, Evaluator):
            after, _ = legal_afterstates(board, d1, d2)
            live = after[after[:, 1].sum(axis=1) > 0]
            crossing += len(live) > 0 and len(set(ev.classify(live[:, ::-1]).tolist())) > 1
        if c_delta != c_full:
            # only a near tie may go the other way: equities within the sums' rounding
            e = equity_of(full)
            assert abs(e[c_delta] - e[c_full]) <= 2 * TOLERANCE, (board, d1, d2)
            ties += 1
        worst = max(worst, float(np.abs(delta - full).max()))
        bit_equal += int((delta == full).all(axis=1).sum())
        plays += len(full)
    if not wide:                    # summed in full: the same bits
        assert bit_equal == plays
        return
    assert worst <= TOLERANCE
    assert ties <= 1, ties          # (one in the 256-wide random network's sample: 4e-7 apart)
    if "race" in name:              # some rolls' plays are valued by both class networks
        assert crossing > 0
    # the difference path runs: some plays' last bits change (the references' never do)
    assert bit_equal < plays


def test_differences_are_reproducible(decisions):
    ev = Network((256,), 5, "contact", seed=12)
    for board, d1, d2 in decisions[::5]:
        a = play_outputs(ev, board, d1, d2, by_delta=True)
        b = play_outputs(ev, board, d1, d2, by_delta=True)
        assert a[0] == b[0]
        np.testing.assert_array_equal(a[1], b[1])


def test_rollouts_by_difference():
    net = Network((256,), 5, "contact", seed=13)
    board = np.array(STARTING_BOARD)
    one = rollout(net, board, 72, seed=4, n_threads=1)
    two = rollout(net, board, 72, seed=4, n_threads=2)
    full = rollout(net, board, 72, seed=4, n_threads=1, by_delta=False)
    np.testing.assert_array_equal(one["per_trial"], two["per_trial"])
    # the same plays (a near tie could differ; none in these games), outputs within tolerance
    np.testing.assert_allclose(one["per_trial"], full["per_trial"], rtol=0, atol=TOLERANCE)


def test_head_slots_shared_by_race_and_wide_contact_networks():
    """One roll with plays that hit (contact), that stay in contact and that run past the
    last blot (race): the head slots serve the narrow race network and the wide contact
    network in turn."""
    ev = Evaluator(Network((256,), 5, "contact", seed=16), Network((16,), 5, "race", seed=17))
    board = board_from_points({10: 1, 6: 4, 5: 4, 4: 3, 3: 3}, {8: 1, 19: 4, 20: 4, 21: 3, 22: 3})
    for d1, d2 in ((2, 1), (3, 1), (4, 2), (5, 1)):
        after, _ = legal_afterstates(board, d1, d2)
        classes = set(ev.classify(np.ascontiguousarray(after[:, ::-1])).tolist())
        assert {0, 1} <= classes
        _, full = play_outputs(ev, board, d1, d2, by_delta=False)
        _, delta = play_outputs(ev, board, d1, d2, by_delta=True)
        np.testing.assert_allclose(delta, full, rtol=0, atol=TOLERANCE)


def test_contact_tails_compared_by_parts_give_each_differing_input():
    """The comparison by parts (the other side's checkers point by point, the dense
    features) lists exactly the inputs in which two siblings' contact encodings differ,
    each with the difference of its values, bit for bit."""
    from bgengine.core.encoders import _contact_tail_delta, encode
    pairs = 0
    for i, b in enumerate(random_positions(12, seed=23, every=2)):
        d1, d2 = ROLLS[i % 21]
        after, _ = legal_afterstates(b, d1, d2)
        live = np.ascontiguousarray(after[after[:, 1].sum(axis=1) > 0][:, ::-1])
        for j in range(1, len(live)):
            if not np.array_equal(live[0, 1], live[j, 1]):
                continue                    # a play that hits: another head
            want = encode(live[j], "contact") - encode(live[0], "contact")
            np.testing.assert_array_equal(_contact_tail_delta(live[0], live[j]), want)
            pairs += 1
    assert pairs > 500
