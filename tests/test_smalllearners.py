"""The small games' compiled learners and match loop (bgengine.core.smalllearners), on
tic-tac-toe: against plain-Python references, reproducible from the seed, and reaching the
issue's targets."""

from __future__ import annotations

import numpy as np
import pytest

from bgengine.core import smalllearners
from bgengine.games import learners
from bgengine.games.network import GameNetwork
from bgengine.games.tictactoe import GAME, TicTacToe


# ------------------------------------------------------------------ a plain-Python reference

def forward(p: np.ndarray, x: np.ndarray, hidden: int) -> tuple[float, np.ndarray]:
    n = len(x)
    W0, b0 = p[:n * hidden].reshape(n, hidden), p[n * hidden:n * hidden + hidden]
    W1, b1 = p[n * hidden + hidden:n * hidden + 2 * hidden], p[-1]
    h = 1 / (1 + np.exp(-(x @ W0 + b0)))
    return float(1 / (1 + np.exp(-(h @ W1 + b1)))), h


def logit_gradient(p: np.ndarray, x: np.ndarray, hidden: int) -> np.ndarray:
    """Gradient of the output's pre-activation with respect to the weights."""
    n = len(x)
    W1 = p[n * hidden + hidden:n * hidden + 2 * hidden]
    _, h = forward(p, x, hidden)
    dh = W1 * h * (1 - h)
    return np.concatenate([np.outer(x, dh).ravel(), dh, h, [1.0]])


def move_values(p, pos: TicTacToe, rep: int, hidden: int) -> list[tuple[int, float]]:
    out = []
    for m in pos.legal_moves():
        a = pos.play(m)
        r = a.result()
        out.append((m, 1.0 if r == 1 else 0.5 if r == 0 else
                    1 - forward(p, a.encode(rep).astype(np.float64), hidden)[0]))
    return out


def reference_td_game(p: np.ndarray, alpha: float, lam: float, rep: int, hidden: int) -> None:
    """One greedy self-play game of TD(lambda) over afterstates, cross-entropy steps."""
    pos, prev, trace = TicTacToe(), None, np.zeros_like(p)
    while True:
        values = move_values(p, pos, rep, hidden)
        move, best = max(values, key=lambda mv: mv[1])       # the first of equals
        if prev is not None:
            x = prev.encode(rep).astype(np.float64)
            v = forward(p, x, hidden)[0]
            trace = -lam * trace + logit_gradient(p, x, hidden)
            p += alpha * (best - v) * trace
        pos = pos.play(move)
        if pos.result() != -1:
            return
        prev = pos


def reference_q_self_play_game(p: np.ndarray, alpha: float, gamma: float, rep: int,
                               hidden: int) -> None:
    """One greedy game of Q-learning by self-play: Q(a) = 1 - 2 V(a)."""
    pos, pending, side = TicTacToe(), [None, None], 0

    def step(state, target_v):
        x = state.encode(rep).astype(np.float64)
        v = forward(p, x, hidden)[0]
        p[:] += alpha * (target_v - v) * logit_gradient(p, x, hidden)

    while True:
        values = move_values(p, pos, rep, hidden)
        move, best = max(values, key=lambda mv: mv[1])
        if pending[side] is not None:
            step(pending[side], (1 - gamma * (2 * best - 1)) / 2)
        pos = pos.play(move)
        if pos.result() != -1:
            if pending[1 - side] is not None:
                step(pending[1 - side], 1.0 if pos.result() == 1 else 0.5)
            return
        pending[side] = pos
        side ^= 1


@pytest.mark.parametrize("rep", [0, 1])
@pytest.mark.parametrize("lam", [0.0, 0.6])
def test_td_is_the_reference(rep, lam):
    net = GameNetwork("tictactoe", ("simple", "separated")[rep], (10,), seed=5)
    p = net.params.astype(np.float64)
    smalllearners.train_td(GAME, net, 3, 0.3, lam, epsilon=0.0, seed=1)
    for _ in range(3):
        reference_td_game(p, 0.3, lam, rep, 10)
    assert np.abs(p - net.params).max() < 1e-5
    assert np.abs(p - GameNetwork("tictactoe", net.representation_name, (10,), seed=5)
                  .params).max() > 1e-3         # it did learn


def test_q_learning_by_self_play_is_the_reference():
    net = GameNetwork("tictactoe", "separated", (10,), seed=3)
    p = net.params.astype(np.float64)
    smalllearners.train_q(GAME, net, 3, 0.2, 0.9, epsilon=0.0, seed=1)
    for _ in range(3):
        reference_q_self_play_game(p, 0.2, 0.9, 1, 10)
    assert np.abs(p - net.params).max() < 1e-5


@pytest.mark.parametrize("train", [
    lambda net, n, first: learners.train_td(net, n, 0.1, 0.5, epsilon=0.2, seed=9,
                                            first_game=first),
    lambda net, n, first: learners.train_q(net, n, 0.1, 0.9, epsilon=0.2, opponent="smart",
                                           seed=9, first_game=first),
    lambda net, n, first: learners.train_simulation(net, n, 0.1, best=2, trials=5, seed=9,
                                                    first_game=first),
])
def test_learners_are_reproducible_and_resume_by_game_number(train):
    a = GameNetwork("tictactoe", hidden=(12,), seed=2)
    b = a.copy()
    train(a, 60, 0)
    train(b, 25, 0)
    train(b, 35, 25)
    assert np.array_equal(a.params, b.params)
    c = GameNetwork("tictactoe", hidden=(12,), seed=2)
    train(c, 60, 0)
    assert np.array_equal(a.params, c.params)


def test_the_match_loop():
    r = learners.play("tictactoe", "random", "random", 20000, seed=3)
    assert r.games == 20000
    # random against random: the first player wins 58.5%, draws 12.7% (exact: 737/1260...)
    assert abs(r.wins / 20000 - 0.585) < 0.015 and abs(r.draws / 20000 - 0.127) < 0.01
    assert learners.play("tictactoe", "solver", "solver", 500).draws == 500
    assert learners.play("tictactoe", "random", "solver", 500).wins == 0
    assert learners.play("tictactoe", "solver", "random", 500).losses == 0
    assert learners.play("tictactoe", "smart", "primitive", 500).wins > 400
    sim = learners.play("tictactoe", "simulation", "random", 500, simulations=200)
    assert sim.wins > 450
    assert learners.play("tictactoe", "random", "smart", 300, seed=4) == \
        learners.play("tictactoe", "random", "smart", 300, seed=4)


def test_bad_arguments():
    net = GameNetwork("tictactoe", hidden=(4,))
    with pytest.raises(TypeError):
        smalllearners.play_games(object(), 0, 0, 10)
    with pytest.raises(ValueError, match="unknown tictactoe player"):
        learners.play("tictactoe", net, "perfect", 10)
    wrong = GameNetwork("tictactoe", hidden=(4,))
    wrong.sizes = (19, 4, 1)        # the separated representation has 18 inputs
    with pytest.raises(ValueError, match="inputs"):
        learners.play("tictactoe", wrong, "random", 10)
    with pytest.raises(ValueError, match="alpha"):
        learners.train_td(net, 10, 0.0)
    with pytest.raises(ValueError, match="epsilon"):
        learners.train_q(net, 10, 0.1, epsilon=2.0)


def test_network_files(tmp_path):
    net = GameNetwork("tictactoe", "simple", (7, 5), seed=4, metadata={"games": 12})
    net.save(tmp_path / "n.npz")
    back = GameNetwork.load(tmp_path / "n.npz")
    assert back.sizes == (19, 7, 5, 1) and back.representation_name == "simple"
    assert np.array_equal(back.params, net.params) and back.metadata == {"games": 12}
    assert learners.play("tictactoe", back, "random", 50) == \
        learners.play("tictactoe", net, "random", 50)
    (tmp_path / "bad.npz").write_bytes(b"nonsense")
    with pytest.raises(ValueError, match="not a small game's network"):
        GameNetwork.load(tmp_path / "bad.npz")


def trained_against_the_solver(train, seed: int) -> GameNetwork:
    """The issue's targets' learner: 200,000 games against the exact solver, the step size
    falling from 0.3 to 0.01 in 40 chunks, 0..2 random opening plies, epsilon 0.2."""
    net = GameNetwork("tictactoe", "separated", (80,), seed=seed)
    chunks, per = 40, 5000
    for k in range(chunks):
        train(net, per, 0.3 + (0.01 - 0.3) * k / (chunks - 1), first_game=k * per, seed=seed)
    return net


@pytest.mark.parametrize("train", [
    lambda net, n, alpha, **kw: learners.train_q(net, n, alpha, 0.9, epsilon=0.2, opening=2,
                                                 opponent="solver", **kw),
    lambda net, n, alpha, **kw: learners.train_td(net, n, alpha, 0.0, epsilon=0.2, opening=2,
                                                  opponent="solver", **kw),
], ids=["q-learning", "td"])
def test_the_learners_reach_the_tictactoe_targets(train):
    """Never a loss to the exact solver in 1000 greedy games from either seat, and >= 95%
    wins against random as first player (when this was written, Q-learning reached them on
    seeds 1-7 and TD(0) on seeds 1-4, evaluated on other games)."""
    net = trained_against_the_solver(train, seed=1)
    assert learners.play("tictactoe", net, "solver", 1000, seed=11).losses == 0
    assert learners.play("tictactoe", "solver", net, 1000, seed=11).wins == 0
    assert learners.play("tictactoe", net, "random", 1000, seed=11).wins >= 950


def test_learning_against_the_simulation_player_is_not_self_play():
    a = GameNetwork("tictactoe", hidden=(6,), seed=1)
    b = a.copy()
    learners.train_q(a, 20, 0.1, opponent="simulation", simulations=20, seed=2)
    learners.train_q(b, 20, 0.1, opponent="self", seed=2)
    assert not np.array_equal(a.params, b.params)
