"""Connect Four: the exact solver's nodes/s, the reference players' games/s and TD self-play
training games/s, single thread.

Solver input: four middle-game positions of Pascal Pons' test sets (15 and 14 stones, scores
0, -1, -3, 0), solved from an empty table.  Games: MM1..MM4 (20% random moves) against the
random player, and random against random, from the empty board.

The gates are same-run ratios, never absolute times: the compiled random-against-random games
against the plain-Python reference rules of tests/connect4_reference.py (target >= 20x), and
the compiled TD(0) self-play learner against the same learner in NumPy (>= 10x).

Figures (AMD EPYC 2-core KVM guest, training paused, two runs 2x apart on the shared machine):
solver 2.28 / 4.50 M nodes/s; mm1/mm2/mm3/mm4 against random 0.74 M / 92 k / 18.2 k / 2.5 k and
1.39 M / 203 k / 39.4 k / 5.4 k games/s; random against random 1.56 / 3.29 M games/s, 8700x /
7200x pure Python (gate 20x).
Training (AMD EPYC 2-core KVM guest, two runs under the benchmark lock, the other
engineers' processes not paused): TD self-play with the default recipe's 84-120-1 network,
epsilon 0.1, 0..2 opening plies, 8,920 / 10,856 games/s at lambda 0 and 5,621 / 7,395 at lambda
0.6, 26x / 22x the NumPy learner; solver in the same runs 1.95 / 4.25 M nodes/s.
``pytest bench/test_bench_connect4.py -s`` prints them with the CPU model.
"""

from __future__ import annotations

import random
import time

import numpy as np

from bgengine.core.connect4 import Board
from bgengine.core.connect4_players import Player, play_match
from bgengine.core.connect4_solver import Solver
from bgengine.core.dice import Dice
from bgengine.games import learners
from bgengine.games.network import GameNetwork

POSITIONS = [("274552224131661", 0), ("555317266147361", -1), ("32751571231557", -3),
             ("75734233473735", 0)]


def test_solver_nodes_per_second(cpu_model):
    solver = Solver()
    t0 = time.perf_counter()
    for seq, score in POSITIONS:
        assert solver.solve(Board.from_moves(seq)) == score
    seconds = time.perf_counter() - t0
    print(f"\n[{cpu_model}] solver: {solver.nodes} nodes in {seconds:.2f} s, "
          f"{solver.nodes / seconds / 1e6:.2f} M nodes/s")


def test_players_games_per_second(cpu_model):
    games = {1: 100_000, 2: 20_000, 3: 4000, 4: 1000}
    for depth, n in games.items():
        t0 = time.perf_counter()
        r = play_match(Player("minimax", depth=depth, epsilon=0.2), Player("random"), n,
                       Dice(depth))
        seconds = time.perf_counter() - t0
        print(f"[{cpu_model}] mm{depth} vs random: {n / seconds:,.0f} games/s "
              f"(won {r['a_wins'] / n:.1%})")


def test_compiled_games_against_pure_python(connect4_reference, cpu_model):
    ref = connect4_reference
    rng = random.Random(0)

    def python_games(n: int) -> None:
        for _ in range(n):
            grid = ref.Grid()
            while not grid.over():
                grid = grid.play(rng.choice(grid.legal()))

    n_py, n_c = 100, 100_000
    t0 = time.perf_counter()
    python_games(n_py)
    py_rate = n_py / (time.perf_counter() - t0)
    t0 = time.perf_counter()
    play_match(Player("random"), Player("random"), n_c, Dice(0))
    c_rate = n_c / (time.perf_counter() - t0)
    print(f"[{cpu_model}] random games/s: compiled {c_rate:,.0f}, pure Python {py_rate:,.0f}, "
          f"ratio {c_rate / py_rate:,.0f}x")
    assert c_rate >= 20 * py_rate


def numpy_td0_games(net: GameNetwork, games: int, alpha: float, epsilon: float,
                    rng: np.random.Generator) -> None:
    """TD(0) self-play over afterstates in NumPy (the compiled rules and encoder): the learner
    of bgengine.core.smalllearners (cross-entropy steps, exact final values), written plainly."""
    n, h = net.sizes[0], net.sizes[1]
    p = net.params
    W0, b0 = p[:n * h].reshape(n, h), p[n * h:n * h + h]
    W1, b1 = p[n * h + h:n * h + 2 * h], p[-1:]

    def value(board: Board) -> tuple[float, np.ndarray, np.ndarray]:
        x = board.encode(net.representation_name)
        hid = 1 / (1 + np.exp(-(x @ W0 + b0)))
        return float(1 / (1 + np.exp(-(hid @ W1 + b1[0])))), x, hid

    for _ in range(games):
        board, prev = Board(), None
        while True:
            values = {}
            for col in board.legal_moves():
                after = board.copy()
                after.play(col)
                r = after.result()
                values[col] = (1.0 if r == 1 else 0.5) if r >= 0 else 1 - value(after)[0]
            if rng.random() < epsilon:
                col = int(rng.choice(list(values)))
            else:
                col = max(values, key=values.get)
                if prev is not None:        # V(prev) toward the mover's best
                    v, x, hid = value(prev)
                    d = alpha * (values[col] - v)       # cross-entropy: no sigmoid slope
                    dh = d * W1 * hid * (1 - hid)
                    W1 += d * hid
                    b1 += d
                    W0 += np.outer(x, dh)
                    b0 += dh
            board.play(col)
            if board.result() >= 0:
                break
            prev = board.copy()


def test_self_play_training_games_per_second():
    """Connect Four TD(0) self-play, the default recipe's network (84-120-1) and exploration;
    TD(0.6) too.  Gate: the compiled learner against the same learner in NumPy, >= 10x."""
    rates = {}
    for lam, games in ((0.0, 20_000), (0.6, 10_000)):
        net = GameNetwork("connect4", "separated", (120,), seed=1)
        t0 = time.perf_counter()
        learners.train_td(net, games, 0.1, lam, epsilon=0.1, opening=2, seed=1)
        rates[lam] = games / (time.perf_counter() - t0)
    net = GameNetwork("connect4", "separated", (120,), seed=1)
    n_py = 20
    t0 = time.perf_counter()
    numpy_td0_games(net, n_py, 0.1, 0.1, np.random.default_rng(1))
    py_rate = n_py / (time.perf_counter() - t0)
    print(f"\n[{cpu_model()}] TD self-play training games/s: lambda 0 {rates[0.0]:,.0f}, "
          f"lambda 0.6 {rates[0.6]:,.0f}; NumPy TD(0) {py_rate:,.1f}, ratio "
          f"{rates[0.0] / py_rate:,.0f}x")
    assert rates[0.0] >= 10 * py_rate
