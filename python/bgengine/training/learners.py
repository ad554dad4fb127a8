"""The sources' other learning methods: mutation hill-climbing and rollout targets.

TD(lambda), TD(0), "backpropagation" to the result and epsilon-greedy
exploration live in the compiled learner (:func:`bgengine.core.td.train_games`).
These two are built from compiled pieces (the match loop, rollouts, batched
forward/backward) with a thin Python loop, and like it they take a batch of
games at a time, numbered within the run, so that a run resumes exactly.

* :func:`mutation_games`: Pollack and Blair's hill-climbing.  The champion's
  weights start at 0; each generation a mutant (champion + Gaussian noise,
  ``sigma`` 0.05) plays the champion ``games_per_generation`` games (pairs of
  games with the same dice, seats swapped); if the mutant wins on points the
  champion moves ``step`` (0.05) of the way toward it; the weights are divided
  by their largest magnitude only when some weight exceeds 1.
* :func:`rollout_target_games`: the Monte-Carlo source's method.  At every
  move the network proposes its ``best`` best and ``worst`` worst plays; each
  is rolled out ``trials`` times (compiled rollouts, optionally truncated); the
  play with the best mean is played and the network is trained toward every
  candidate's rollout means (one gradient step of size ``alpha`` per move).
"""

from __future__ import annotations

import numpy as np

from bgengine._checks import checked_int
from bgengine.core.agents import MAX_GAMES, Player, play_match
from bgengine.core.board import game_result
from bgengine.core.dice import Dice
from bgengine.core.encoders import encode
from bgengine.matches.game import game_decisions, game_seed
from bgengine.core.network import Network, equity_of, flip_outputs
from bgengine.core.search import _target, rollout

__all__ = ["mutation_games", "rollout_target_games"]

def mutation_games(net: Network, n_games: int, *, sigma: float = 0.05, step: float = 0.05,
                   games_per_generation: int = 4, seed: int = 0, first_game: int = 0) -> dict:
    """Hill-climb ``net`` (the champion, updated in place) for ``n_games`` games.

    ``n_games`` and ``first_game`` must be multiples of ``games_per_generation``
    (an even number).  Generation ``g`` (= game number / games per generation)
    draws its mutant from ``seed`` and ``g`` and its dice from the same, so a
    resumed run is exact.  Returns per-game arrays ``moves``, ``result``
    (champion's points) and per-generation ``accepted`` (bool).  ``n_games``: an integer
    in 0..10**8 (:data:`bgengine.core.agents.MAX_GAMES`).
    """
    n_games = checked_int(n_games, "n_games", 0, MAX_GAMES, "0..10**8")
    games_per_generation = checked_int(games_per_generation, "games_per_generation", 2,
                                       MAX_GAMES, "2..10**8")
    if games_per_generation < 2 or games_per_generation % 2:
        raise ValueError(f"games_per_generation must be a positive even number, got {games_per_generation}")
    if n_games % games_per_generation or first_game % games_per_generation:
        raise ValueError(f"n_games ({n_games}) and first_game ({first_game}) must be multiples of "
                         f"games_per_generation ({games_per_generation})")
    if not sigma > 0 or not 0 < step <= 1:
        raise ValueError(f"need sigma > 0 and 0 < step <= 1, got {sigma} and {step}")
    n_gen = n_games // games_per_generation
    pairs = games_per_generation // 2
    moves = np.zeros(n_games, dtype=np.int32)
    result = np.zeros(n_games, dtype=np.int8)
    accepted = np.zeros(n_gen, dtype=bool)
    champion = Player("net", net, name="champion")
    mutant_net = net.copy()
    mutant = Player("net", mutant_net, name="mutant")
    w = net.params                       # views: updating them updates the players' networks
    m = mutant_net.params
    for i in range(n_gen):
        g = first_game // games_per_generation + i
        rng = np.random.default_rng([seed, g])
        m[:] = w + rng.normal(0.0, sigma, size=w.shape).astype(np.float32)
        points, mv = play_match(champion, mutant, pairs, seed=game_seed(seed, g, 0, 0), n_threads=1)
        moves[i * games_per_generation:(i + 1) * games_per_generation] = mv.reshape(-1)
        result[i * games_per_generation:(i + 1) * games_per_generation] = points.reshape(-1)
        if points.sum() < 0:             # the mutant won on points
            accepted[i] = True
            w += np.float32(step) * (m - w)
            top = float(np.abs(w).max())
            if top > 1.0:
                w /= np.float32(top)
    return {"moves": moves, "result": result, "accepted": accepted,
            "error": np.zeros(n_games)}


def rollout_target_games(net: Network, n_games: int, alpha: float, *, best: int = 3, worst: int = 1,
                         trials: int = 36, truncate: int = 0, seed: int = 0,
                         first_game: int = 0, threads: int = 1) -> dict:
    """Self-play ``n_games`` games choosing every play by rollouts and training
    ``net`` toward the rollout means (see the module docstring).

    Game ``g`` of the run rolls dice stream ``g`` of ``seed``; rollout ``j``
    of move ``k`` uses a seed derived from (seed, g, k, j).  Returns per-game
    ``moves``, ``result`` (points of the side that moved first) and ``error``
    (mean absolute difference between the network's and the rollout's win
    chance over the candidates).  ``n_games``: an integer in 0..10**8
    (:data:`bgengine.core.agents.MAX_GAMES`).
    """
    n_games = checked_int(n_games, "n_games", 0, MAX_GAMES, "0..10**8")
    if best < 1 or worst < 0 or trials < 1 or truncate < 0:
        raise ValueError("need best >= 1, worst >= 0, trials >= 1, truncate >= 0")
    moves = np.zeros(n_games, dtype=np.int32)
    result = np.zeros(n_games, dtype=np.int8)
    error = np.zeros(n_games)
    for i in range(n_games):
        g = first_game + i
        loop = game_decisions(Dice(seed, stream=g))
        d, errs = next(loop), []
        while True:
            k, after = d.number, d.afterstates
            opp_view = np.ascontiguousarray(after[:, ::-1])          # the opponent on roll
            if len(after) > 1:
                mine = flip_outputs(np.asarray(net.evaluate(opp_view), dtype=np.float64))
                eq = equity_of(mine)
                order = np.argsort(-eq, kind="stable")
                cand = list(dict.fromkeys(list(order[:best]) + (list(order[-worst:]) if worst else [])))
                targets = np.zeros((len(cand), mine.shape[1]), dtype=np.float32)
                for j, c in enumerate(cand):
                    won = game_result(after[c])
                    if won:                                           # the play wins: exact target
                        targets[j] = _target(mine.shape[1], won)
                        continue
                    r = rollout(net, opp_view[c], trials, seed=game_seed(seed, g, k, j), truncate=truncate,
                                n_threads=threads)
                    targets[j] = flip_outputs(np.asarray(r["outputs"], dtype=np.float64))
                pick = cand[int(np.argmax(equity_of(targets.astype(np.float64))))]
                # train toward the rollout means (targets are the mover's; the net sees the opponent on roll)
                x = encode(opp_view[cand], net.encoder)
                want = flip_outputs(targets.astype(np.float64)).astype(np.float32)
                out = net.forward(x)
                params = net.params
                params += np.float32(alpha) * net.backward(x, want - out)
                errs.append(float(np.abs(want[:, 0] - out[:, 0]).mean()))
            else:
                pick = 0
            try:
                d = loop.send(int(pick))
            except StopIteration as done:
                result[i], k = done.value
                break
        moves[i] = k
        error[i] = float(np.mean(errs)) if errs else 0.0
    return {"moves": moves, "result": result, "error": error}
