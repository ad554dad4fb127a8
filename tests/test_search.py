"""Lookahead and rollouts (bgengine.core.search) against plain Python over the same network."""

from __future__ import annotations

import numpy as np
import pytest

from bgengine.core.agents import Player, play_match
from bgengine.core.movegen import legal_afterstates
from bgengine.core.network import Network
from bgengine.position import STARTING_BOARD
from bgengine.core.search import Searcher, rollout
from bgengine.core.td import train_games

ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


@pytest.fixture(scope="module")
def net() -> Network:
    n = Network((12,), 5, "tesauro198", seed=3)
    train_games(n, 300, 0.1, 0.7, seed=3)
    return n


def flip5(v):
    return np.array([1 - v[0], v[3], v[4], v[1], v[2]], dtype=np.float64)


def equity5(v):
    return 2 * v[0] - 1 + v[1] - v[3] + v[2] - v[4]


def mover_outputs(net, after):
    """Outputs of an afterstate (mover in row 1) from the mover's side, 0-ply."""
    if after[1].sum() == 0:
        raise AssertionError("no game-ending plays expected from these positions")
    return flip5(net.evaluate(after[::-1].copy()).astype(np.float64))


def one_ply(net, board):
    """eval_position(board, 1) in plain Python: mean over rolls of the 0-ply best reply."""
    acc = np.zeros(5)
    for d1, d2 in ROLLS:
        afters, _ = legal_afterstates(board, d1, d2)
        outs = [mover_outputs(net, a) for a in afters]
        best = max(range(len(outs)), key=lambda i: equity5(outs[i]))
        acc += (1 if d1 == d2 else 2) * outs[best]
    return acc / 36


def some_positions(net, n=4):
    pos = [STARTING_BOARD.copy()]
    board = STARTING_BOARD.copy()
    rng = np.random.default_rng(1)
    while len(pos) < n:
        d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
        afters, _ = legal_afterstates(board, d1, d2)
        board = afters[rng.integers(len(afters))][::-1].copy()
        if board[0].sum() == 15 and board[1].sum() == 15:
            pos.append(board)
    return pos


def test_zero_ply_is_the_network(net):
    s = Searcher(net)
    for b in some_positions(net):
        np.testing.assert_allclose(s.evaluate(b, 0), net.evaluate(b), atol=1e-7)


def test_one_ply_matches_plain_python(net):
    s = Searcher(net, cache_bits=0)
    for b in some_positions(net, 3):
        np.testing.assert_allclose(s.evaluate(b, 1), one_ply(net, b), atol=2e-6)


def test_cache_gives_the_same_answer_and_hits(net):
    cold, warm = Searcher(net, cache_bits=0), Searcher(net, cache_bits=16)
    b = some_positions(net, 2)[1]
    first = warm.evaluate(b, 2)
    np.testing.assert_array_equal(first, warm.evaluate(b, 2))
    np.testing.assert_allclose(first, cold.evaluate(b, 2), atol=1e-7)
    hits, lookups = warm.cache_stats
    assert lookups > 0 and hits > 0


def test_zero_ply_move_is_the_net_players(net):
    s, p = Searcher(net), Player("net", net)
    for b in some_positions(net):
        for d1, d2 in [(3, 1), (6, 6), (5, 2)]:
            assert s.best_move(b, d1, d2, 0)[0] == p.choose(b, d1, d2)


def test_one_ply_move_choice(net):
    """With no move filter cut-off, 1-ply choice = argmax over plays of the flipped
    1-ply value of the position after the play."""
    s = Searcher(net, candidates=32, margin=10.0, cache_bits=0)
    b = STARTING_BOARD
    afters, _ = legal_afterstates(b, 4, 2)
    values = [equity5(flip5(one_ply(net, a[::-1].copy()))) for a in afters]
    assert s.best_move(b, 4, 2, 1)[0] == int(np.argmax(values))
    ranked = s.rank_moves(b, 4, 2, 1)
    assert ranked[0][0] == int(np.argmax(values))
    assert ranked[0][2] == pytest.approx(max(values), abs=1e-5)


def test_rollout_reproducible_and_thread_independent(net):
    a = rollout(net, STARTING_BOARD, 144, seed=4, n_threads=1)
    b = rollout(net, STARTING_BOARD, 144, seed=4, n_threads=2)
    np.testing.assert_array_equal(a["per_trial"], b["per_trial"])
    assert a["trials"] == 144 and np.isfinite(a["stderr"]) and -3 <= a["equity"] <= 3
    c = rollout(net, STARTING_BOARD, 144, seed=5)
    assert not np.array_equal(a["per_trial"], c["per_trial"])


def test_rollout_and_evaluate_read_weights_changed_in_place():
    """A rollout or a batch evaluation freezes its networks for the call only (their output
    layers transposed as it starts): weights changed in place between calls are the ones
    the next call uses."""
    net = Network((128,), 5, "contact", seed=3)
    before = rollout(net, STARTING_BOARD, 72, seed=1)["per_trial"]
    boards = np.array([STARTING_BOARD, STARTING_BOARD[::-1]])
    net.evaluate(boards)
    net.params[-(128 * 5 + 5):] *= -1.5         # the output layer
    fresh = Network((128,), 5, "contact", params=net.params)
    after = rollout(net, STARTING_BOARD, 72, seed=1)["per_trial"]
    assert not np.array_equal(before, after)
    np.testing.assert_array_equal(after, rollout(fresh, STARTING_BOARD, 72, seed=1)["per_trial"])
    np.testing.assert_array_equal(net.evaluate(boards), fresh.evaluate(boards))


@pytest.mark.parametrize("kw", [{}, {"variance_reduction": True, "truncate": 7},
                                {"plies": 1, "truncate": 3}])
def test_rollout_keeps_the_first_two_plays_without_changing_a_trial(net, kw):
    """A rollout of more than 36 trials makes the plays of the first two (stratified)
    moves once per thread; in runs of at most 36 trials every trial makes its own.
    Trial by trial, the same results."""
    whole = rollout(net, STARTING_BOARD, 180, seed=6, **kw)["per_trial"]
    parts = [rollout(net, STARTING_BOARD, 36, seed=6, first_trial=f, **kw)["per_trial"]
             for f in range(0, 180, 36)]
    np.testing.assert_array_equal(whole, np.concatenate(parts))
    with pytest.raises(ValueError, match="first_trial"):
        rollout(net, STARTING_BOARD, 10, first_trial=-1)


def test_truncated_rollout_after_one_play_is_the_first_roll_average(net):
    """truncate=1 with 36 trials: each trial plays the stratified first roll at
    0-ply and stops, so the mean is exactly the 36-roll average of the best play."""
    r = rollout(net, STARTING_BOARD, 36, truncate=1)
    acc = np.zeros(5)
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            afters, _ = legal_afterstates(STARTING_BOARD, d1, d2)
            outs = [mover_outputs(net, x) for x in afters]
            acc += max(outs, key=equity5) / 36
    np.testing.assert_allclose(r["outputs"], acc, atol=2e-6)


def test_variance_reduction_keeps_the_mean(net):
    plain = rollout(net, STARTING_BOARD, 1296, seed=9, n_threads=2)
    vr = rollout(net, STARTING_BOARD, 72, seed=9, variance_reduction=True, n_threads=2)
    assert abs(plain["equity"] - vr["equity"]) < 4 * np.hypot(plain["stderr"], vr["stderr"])
    assert vr["stderr"] < plain["stderr"] * np.sqrt(1296 / 72)   # less spread per trial


def test_searching_players_in_matches(net):
    one = Player("net", net, plies=1)
    assert one.plies == 1
    p1, m1 = play_match(one, Player("pubeval"), 4, seed=2, n_threads=1)
    p2, m2 = play_match(one, Player("pubeval"), 4, seed=2, n_threads=2)
    np.testing.assert_array_equal(p1, p2)
    np.testing.assert_array_equal(m1, m2)
    assert one.choose(STARTING_BOARD, 3, 1) == Searcher(net).best_move(STARTING_BOARD, 3, 1, 1)[0]


@pytest.mark.parametrize("kwargs", [dict(plies=4), dict(plies=-1)])
def test_bad_plies(net, kwargs):
    with pytest.raises(ValueError, match="plies"):
        Searcher(net).evaluate(STARTING_BOARD, **kwargs)
    with pytest.raises(ValueError, match="plies"):
        Player("net", net, **kwargs)


def test_bad_arguments(net):
    with pytest.raises(ValueError, match="plies"):
        Player("pubeval", plies=1)
    with pytest.raises(ValueError, match="trials"):
        rollout(net, STARTING_BOARD, 0)
    with pytest.raises(ValueError, match="seed"):
        rollout(net, STARTING_BOARD, 10, seed=-1)
    with pytest.raises(ValueError, match="candidates"):
        Searcher(net, candidates=0)


def test_rollout_moves_and_cli(net, tmp_path, capsys):
    from bgengine.cli import main
    from bgengine.decisions.rollouts import rollout_moves, rollout_position

    rows = rollout_moves(net, STARTING_BOARD, 3, 1, trials=36, candidates=3)
    assert len(rows) == 3 and rows[0].equity >= rows[-1].equity
    # a play's rollout is the opponent's rollout turned round
    after = [m for m in __import__("bgengine.position", fromlist=["Position"]).Position(
        STARTING_BOARD).legal_moves(3, 1) if str(m) == rows[0].label][0]
    theirs = rollout(net, after.position.board, 36)
    assert rows[0].equity == pytest.approx(-theirs["equity"])
    assert rollout_position(net, STARTING_BOARD, 36).trials == 36
    path = tmp_path / "n.npz"
    net.save(path)
    assert main(["rollout", "4HPwATDgc/ABMA", "--dice", "31", "--trials", "36",
                 "--network", str(path), "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert "rollout of the best" in out and "equity" in out


@pytest.mark.parametrize("plies", [0, 1])
def test_best_plays_is_best_move_for_each_roll(net, plies):
    s, ref = Searcher(net), Searcher(net)
    for b in some_positions(net):
        afters, outputs = s.best_plays(b, ROLLS, plies)
        assert afters.shape == (len(ROLLS), 2, 25) and outputs.shape == (len(ROLLS), 5)
        for k, (d1, d2) in enumerate(ROLLS):
            index, out = ref.best_move(b, d1, d2, plies)
            np.testing.assert_array_equal(afters[k], legal_afterstates(b, d1, d2)[0][index])
            np.testing.assert_array_equal(outputs[k], out)


def test_best_plays_rejects_bad_dice(net):
    s = Searcher(net)
    with pytest.raises(ValueError):
        s.best_plays(STARTING_BOARD, [(0, 3)])
    with pytest.raises(ValueError):
        s.best_plays(STARTING_BOARD, [1, 2, 3])
    with pytest.raises(ValueError):
        s.best_plays(STARTING_BOARD, [(3, 1)], plies=9)


# ------------------------------------------------------------ sampled search (evaluate_sampled)

def _near_end() -> np.ndarray:
    """A race where some plays bear off the last checker (game-ending branches)."""
    b = np.zeros((2, 25), dtype=np.uint8)
    b[1, [0, 2]] = [2, 1]          # on roll: three checkers left
    b[0, [1, 4]] = [2, 2]
    return b


def test_sampled_lower_is_one_ply_less_bit_for_bit(net):
    S = Searcher(net, cache_bits=0)
    for b in some_positions(net, 3) + [_near_end()]:
        for plies in (2, 3):
            lo, up = S.evaluate_sampled(b, plies, 3)
            assert np.array_equal(lo, S.evaluate(b, plies - 1))
            assert up.dtype == np.float32 and up.shape == (5,)


@pytest.mark.parametrize("plies,samples", [(2, 1), (2, 4), (3, 3), (3, 12)])
def test_sampled_mean_over_offsets_is_the_full_search(net, plies, samples):
    S = Searcher(net, cache_bits=0)
    for b in some_positions(net, 2)[1:] + [_near_end()]:
        full = S.evaluate(b, plies)
        ups = [S.evaluate_sampled(b, plies, samples, offset=o)[1] for o in range(36 // samples)]
        np.testing.assert_allclose(np.mean(ups, axis=0), full, atol=2e-6)
        np.testing.assert_allclose(S.evaluate_sampled(b, plies, 36)[1], full, atol=2e-6)
        if samples < 36 and b[1].sum() == 15:
            # a real sample of a contact position: the offsets differ
            assert max(np.abs(u - full).max() for u in ups) > 1e-4


def test_sampled_two_ply_matches_plain_python(net):
    """upper = 1-ply + the mean, over the sampled ordered rolls (row-major from the
    offset, every 36/samples-th), of the reply's 1-ply value less its 0-ply value."""
    b = some_positions(net, 2)[1]
    S = Searcher(net, cache_bits=0)
    for samples, offset in ((2, 5), (3, 11), (4, 0)):
        lo, up = S.evaluate_sampled(b, 2, samples, offset=offset)
        corr = np.zeros(5)
        for o in range(offset, 36, 36 // samples):
            afters, _ = legal_afterstates(b, o // 6 + 1, o % 6 + 1)
            outs = [mover_outputs(net, a) for a in afters]
            best = max(range(len(outs)), key=lambda i: equity5(outs[i]))
            corr += flip5(one_ply(net, afters[best][::-1].copy())) - outs[best]
        np.testing.assert_allclose(lo, one_ply(net, b), atol=1e-5)
        np.testing.assert_allclose(up, one_ply(net, b) + corr / samples, atol=1e-5)


def test_sampled_is_deterministic_and_cache_independent(net):
    b = some_positions(net, 3)[2]
    cold = Searcher(net, cache_bits=0).evaluate_sampled(b, 3, 2)
    warm = Searcher(net, cache_bits=16)
    warm.evaluate(b, 3)
    for _ in range(2):
        got = warm.evaluate_sampled(b, 3, 2)
        assert np.array_equal(got[0], cold[0]) and np.array_equal(got[1], cold[1])


@pytest.mark.parametrize("kwargs,match", [
    (dict(plies=1), "plies must be in 2..3"), (dict(plies=4), "plies must be in 2..3"),
    (dict(plies=3, samples=5), "samples must divide 36"),
    (dict(plies=3, samples=0), "samples must be in 1..36"),
    (dict(plies=3, samples=4, offset=9), "offset must be in 0..8"),
    (dict(plies=3, samples=4, offset=-1), "offset must be in 0..8")])
def test_sampled_bad_arguments(net, kwargs, match):
    with pytest.raises(ValueError, match=match):
        Searcher(net).evaluate_sampled(STARTING_BOARD, **kwargs)
