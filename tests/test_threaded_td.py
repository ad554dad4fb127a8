"""Self-play training on several threads (bgengine.training.threaded_td) against a one-thread reference.

The reference replays the merge order one job at a time: whatever the threads' timing, the
threaded weights must equal it bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

from bgengine.core.evaluator import Evaluator, as_evaluator
from bgengine.core.network import Network
from bgengine.core.td import train_games
from bgengine.training.threaded_td import SYNC_MODES, train_games_threaded


def arrays(model) -> list[np.ndarray]:
    nets = as_evaluator(model).networks
    return [nets["contact"].params] + ([] if nets["race"] is nets["contact"]
                                       else [nets["race"].params])


def reference(model, n: int, alpha: float, threads: int, sync_games: int, mode: str, *,
              seed: int, first_game: int, **kw) -> list[np.ndarray]:
    """The weights the module promises, one job after another in merge order (round by
    round, thread by thread): a job plays on its thread's copy, the copy's change is added
    to the master, and the thread goes on from the master as merged so far ("rolling") or
    once its round is merged ("round")."""
    master = [a.copy() for a in arrays(model)]
    copies = [model.copy() for _ in range(threads)]
    starts = [[a.copy() for a in master] for _ in range(threads)]
    per_round = threads * sync_games
    for r in range(-(-n // per_round)):
        for t in range(threads):
            first = r * per_round + t * sync_games
            if first >= n:
                break
            train_games(copies[t], min(sync_games, n - first), alpha, 0.0, seed=seed,
                        first_game=first_game + first, **kw)
            for m, w, s in zip(master, arrays(copies[t]), starts[t]):
                m += w - s
            if mode == "rolling":
                for w, s, m in zip(arrays(copies[t]), starts[t], master):
                    w[:] = m
                    s[:] = m
        if mode == "round":
            for t in range(threads):
                for w, s, m in zip(arrays(copies[t]), starts[t], master):
                    w[:] = m
                    s[:] = m
    return master


def class_model() -> Evaluator:
    contact = Network((8,), 5, "expert", seed=5)
    race = Network((4,), 5, "tesauro198", seed=6)
    return Evaluator(contact, race)


@pytest.mark.parametrize("mode", SYNC_MODES)
@pytest.mark.parametrize("threads,sync_games,n", [(2, 4, 40), (3, 3, 29)])
def test_threads_equal_the_merge_order_replayed(mode, threads, sync_games, n):
    """Several rounds, a last round that some threads sit out: the same weights, bit for
    bit, as the one-thread replay; the statistics are the games' own, in game order."""
    for model in (Network((8,), 5, "expert", seed=2), class_model()):
        want = reference(model, n, 0.1, threads, sync_games, mode, seed=7, first_game=50)
        stats = train_games_threaded(model, n, 0.1, 0.0, threads=threads, sync_games=sync_games,
                                     mode=mode, seed=7, first_game=50)
        for got, exp in zip(arrays(model), want):
            np.testing.assert_array_equal(got, exp)
        assert stats["moves"].shape == (n,) and stats["moves"].min() > 0


def test_rolling_differs_from_round_after_the_first_round():
    start = Network((8,), 5, "expert", seed=2)
    one_round = {m: start.copy() for m in SYNC_MODES}
    rounds = {m: start.copy() for m in SYNC_MODES}
    for mode in SYNC_MODES:
        train_games_threaded(one_round[mode], 8, 0.1, 0.0, threads=2, sync_games=4, mode=mode)
        train_games_threaded(rounds[mode], 24, 0.1, 0.0, threads=2, sync_games=4, mode=mode)
    np.testing.assert_array_equal(one_round["round"].params, one_round["rolling"].params)
    assert not np.array_equal(rounds["round"].params, rounds["rolling"].params)


def test_one_thread_is_train_games():
    a, b = Network((8,), 5, "expert", seed=2), Network((8,), 5, "expert", seed=2)
    train_games_threaded(a, 12, 0.1, 0.0, threads=1, sync_games=5, seed=3, mode="rolling")
    train_games(b, 12, 0.1, 0.0, seed=3)
    # one copy merged back after every 5 games: the same games, and the same weights to
    # within rounding (start + (w - start) need not be w in floats)
    np.testing.assert_allclose(a.params, b.params, rtol=0, atol=1e-6)


def test_an_error_in_a_thread_is_raised_and_stops_all():
    model = Network((8,), 5, "expert", seed=2)
    before = model.params.copy()
    with pytest.raises(ValueError, match="target_plies"):
        train_games_threaded(model, 40, 0.1, 0.0, threads=2, sync_games=4, target_plies=7)
    np.testing.assert_array_equal(model.params, before)


def test_argument_checks():
    model = Network((8,), 5, "expert", seed=2)
    with pytest.raises(ValueError, match="mode"):
        train_games_threaded(model, 8, 0.1, 0.0, threads=2, sync_games=4, mode="async")
    with pytest.raises(ValueError, match="sync_games"):
        train_games_threaded(model, 8, 0.1, 0.0, threads=2, sync_games=0)
    stats = train_games_threaded(model, 0, 0.1, 0.0, threads=2, sync_games=4)
    assert stats["moves"].shape == (0,)
