"""Connect Four: the exact solver's nodes/s and the reference players' games/s, single thread.

Solver input: four middle-game positions of Pascal Pons' test sets (15 and 14 stones, scores
0, -1, -3, 0), solved from an empty table.  Games: MM1..MM4 (20% random moves) against the
random player, and random against random, from the empty board.

The gate is a same-run ratio, never an absolute time: the compiled random-against-random games
against the plain-Python reference rules of tests/connect4_reference.py (target >= 20x).

Figures (AMD EPYC 2-core KVM guest, training paused, two runs 2x apart on the shared machine):
solver 2.28 / 4.50 M nodes/s; mm1/mm2/mm3/mm4 against random 0.74 M / 92 k / 18.2 k / 2.5 k and
1.39 M / 203 k / 39.4 k / 5.4 k games/s; random against random 1.56 / 3.29 M games/s, 8700x /
7200x pure Python (gate 20x).
``pytest bench/test_bench_connect4.py -s`` prints them with the CPU model.
"""

from __future__ import annotations

import random
import time

from bgengine.connect4 import Board
from bgengine.connect4_players import Player, play_match
from bgengine.connect4_solver import Solver
from bgengine.dice import Dice

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
