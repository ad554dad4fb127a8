"""Tic-tac-toe: the compiled learners' training games/s, single thread, with the study's
network (18-80-1, the separated inputs, configs/tictactoe-q.toml).

Q-learning against smart and against the solver and by self-play; TD(0) and TD(0.7) by
self-play and TD(0) against the solver; each game opens with 0..2 random plies, epsilon 0.2.
The gate is a same-run ratio, never an absolute time: a training game (a backward pass per
learned move besides the greedy move choice) costs at most 6x a greedy game of the same
network against the same opponent (self-play: the network against itself).

Figures (AMD EPYC 2-core KVM guest, training paused, two runs under the benchmark lock on the
shared machine): Q-learning against smart 110k / 85k training games/s, against the solver
108k / 90k, by self-play 64k / 55k; TD(0) by self-play 90k / 69k, against the solver
142k / 110k; TD(0.7) by self-play 72k / 42k; a training game costs 0.93-1.52x a greedy game.
``pytest bench/test_bench_tictactoe.py -s`` prints them with the CPU model.
"""

from __future__ import annotations

import time

import pytest

from bgengine.games.learners import play, train_q, train_td
from bgengine.games.network import GameNetwork

GAMES = 20_000


def _net() -> GameNetwork:
    return GameNetwork("tictactoe", "separated", (80,), seed=1)


def _rate(fn) -> float:
    """Games per second of ``fn()`` (which plays GAMES games), the best of three."""
    best = 0.0
    for _ in range(3):
        t0 = time.perf_counter()
        fn()
        best = max(best, GAMES / (time.perf_counter() - t0))
    return best


@pytest.mark.parametrize("method, opponent, lam", [
    ("q", "smart", 0.0), ("q", "solver", 0.0), ("q", "self", 0.0),
    ("td", "self", 0.0), ("td", "self", 0.7), ("td", "solver", 0.0)])
def test_training_games_per_second(method, opponent, lam, cpu_model):
    net = _net()
    common = dict(epsilon=0.2, opening=2, opponent=opponent, seed=1)
    if method == "q":
        train = lambda: train_q(net, GAMES, 0.3, 0.9, **common)     # noqa: E731
    else:
        train = lambda: train_td(net, GAMES, 0.3, lam, **common)    # noqa: E731
    trained = _rate(train)
    greedy_opponent = net if opponent == "self" else opponent      # self: the net twice
    greedy = _rate(lambda: play("tictactoe", net, greedy_opponent, GAMES, seed=1))
    name = f"{method}{f'({lam})' if method == 'td' else ''} vs {opponent}"
    print(f"\n[{cpu_model}] {name}: {trained:,.0f} training games/s; greedy games of the "
          f"net against {opponent} {greedy:,.0f}/s, ratio {greedy / trained:.2f}")
    assert trained * 6 >= greedy
