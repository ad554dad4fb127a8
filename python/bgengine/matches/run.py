"""Matches between two players, with variance reduction and confidence intervals."""

from __future__ import annotations

import contextlib
import os

import numpy as np

from bgengine._checks import checked_int, game_pairs, is_int
from bgengine.core.agents import MAX_GAMES, Player, play_match
from bgengine.decisions.cube import gnubg_met
from bgengine.core.dice import Dice
from bgengine.decisions.engine import Engine
from bgengine.opponents.external import ExternalPlayer
from bgengine.matches.game import CubeSeries, play_game
from bgengine.opponents.gnubg import GnubgPlayer, play_gnubg_cube_pairs, play_gnubg_match
from bgengine.decisions.luck import LuckPool, Roll, cube_roll
from bgengine.matches.players import load_default_network, make_player
from bgengine.matches.results import CubeMatchResult, MatchResult, ci95, summarize

__all__ = ["run_match", "default_threads", "run_cube_match", "play_external_match",
           "play_python_pairs", "MatchInterrupted"]

#: Game pairs the compiled runner plays between two looks at Ctrl-C: a Ctrl-C loses at
#: most the batch under way (a second or two of games), the batches before it are reported.
BATCH_PAIRS = 2048


def default_threads() -> int:
    """The cores this process may run on (its CPU affinity): the default thread count."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


class MatchInterrupted(KeyboardInterrupt):
    """Ctrl-C during a match once some game pairs were finished: ``result`` is the result
    of those pairs (a :class:`MatchResult` or :class:`CubeMatchResult`, from the same
    seeds as the whole match would have played them), ``planned`` the games asked for.
    A ``KeyboardInterrupt``, so code that does not look for it stops as before."""

    def __init__(self, result, planned: int) -> None:
        super().__init__(f"interrupted after {_played(result)} of {planned} games")
        self.result = result
        self.planned = planned


def _played(result) -> int:
    return result.games if isinstance(result, MatchResult) else result.n


class _PairsInterrupted(KeyboardInterrupt):
    """Ctrl-C in :func:`play_python_pairs`: the arrays of the ``done`` pairs finished."""

    def __init__(self, points: np.ndarray, moves: np.ndarray) -> None:
        super().__init__()
        self.points, self.moves = points, moves


def run_match(a, b, games: int, seed: int = 0, threads: int | None = None,
              backend=None, progress=None, luck=None) -> MatchResult:
    """Play ``games`` games (rounded up to an even number: game pairs) between ``a`` and ``b``.

    Compiled players play whole games in the compiled core on ``threads``
    threads, or on ``backend`` (a :class:`bgengine.matches.distributed.Backend`, e.g.
    a Ray cluster; same results for the same seed); a match against GNU
    Backgammon (:class:`bgengine.opponents.gnubg.GnubgPlayer`) is played by a pool of
    gnubg processes, and one involving an external player (see
    :mod:`bgengine.opponents.external`) from Python, both with the same dice pairs.
    ``progress(games_done, games_total)`` is called after each game of those
    two kinds.  ``luck`` (a :class:`bgengine.decisions.luck.LuckMeter`): measure the luck
    of every roll, for luck-adjusted figures; compiled players' games are then
    played from Python too, at a fraction of the compiled runner's speed, the
    luck on threads of its own (the same dice: the same games, unless a player
    chooses at random, ``random`` or ``@EPS``, whose draws differ).

    Ctrl-C: :class:`MatchInterrupted` (a ``KeyboardInterrupt``) with the result of the
    game pairs finished, when there are any (compiled players on this machine: the
    batches of :data:`BATCH_PAIRS` pairs before the one under way; games played from
    Python without ``luck``: every pair finished); else ``KeyboardInterrupt``.

    ``games``: an integer in 2..:data:`bgengine.core.agents.MAX_GAMES` (10**8), else
    ``ValueError`` before any game.
    """
    n_pairs = game_pairs(games)
    if not (isinstance(a, Player) and isinstance(b, Player)):
        if isinstance(a, GnubgPlayer) or isinstance(b, GnubgPlayer):
            return play_gnubg_match(a, b, games, seed=seed, progress=progress, luck=luck)
        return play_external_match(a, b, games, seed=seed, progress=progress, luck=luck)
    if luck is not None:
        if backend is not None:
            raise ValueError("luck-adjusted results are measured on this machine: no backend")
        return play_external_match(a, b, games, seed=seed, progress=progress, luck=luck)
    if backend is not None and getattr(backend, "name", None) != "local":
        points, moves = backend.play_pairs(a, b, n_pairs, seed)     # a cluster: all at once
        return summarize(a.name, b.name, points, moves)
    # in batches (pair i rolls dice stream i whatever the batch: the same games), so that
    # a Ctrl-C keeps the batches finished
    parts: list[tuple[np.ndarray, np.ndarray]] = []
    done = 0
    try:
        while done < n_pairs:
            k = min(BATCH_PAIRS, n_pairs - done)
            if backend is not None:
                parts.append(backend.play_pairs(a, b, k, seed, first_pair=done))
            else:
                parts.append(play_match(a, b, k, seed=seed, n_threads=threads or default_threads(),
                                        first_pair=done))
            done += k
            if progress is not None:
                progress(2 * done, 2 * n_pairs)
    except KeyboardInterrupt:
        if not parts:
            raise
        points, moves = (np.concatenate(x) for x in zip(*parts))
        raise MatchInterrupted(summarize(a.name, b.name, points, moves), 2 * n_pairs) from None
    points, moves = (np.concatenate(x) for x in zip(*parts))
    return summarize(a.name, b.name, points, moves)


# ====================================================================== games with the cube

def _cube_engine(player, network, plays_at_score: bool = True, cube_plies: int = 0):
    net = getattr(player, "network", None) or network
    if net is None:
        try:
            net = load_default_network()
        except ValueError as exc:
            raise ValueError(f"{player.name} has no network for its cube decisions and {exc}; "
                             f"pass cube_network") from None
    return Engine(player=player, network=net, plays_at_score=plays_at_score,
                  cube_plies=cube_plies)


def run_cube_match(a, b, n: int, *, match_length: int = 0, seed: int = 0, jacoby: bool = False,
                   cube_network=None, progress=None,
                   plays_at_score: bool | tuple[bool, bool] = True,
                   cube_plies: int = 0, luck=None) -> CubeMatchResult:
    """Play ``n`` money games or ``n`` matches to ``match_length`` with the cube.

    Each bgengine side's cube decisions (double, take) come from
    :class:`bgengine.decisions.engine.Engine`: the Janowski cube model over its own
    network's probabilities, or, for a player without a network (pubeval,
    random, ...), over ``cube_network`` (default: the shipped network).
    A :class:`bgengine.opponents.gnubg.GnubgPlayer` side plays as gnubg does, its plays
    cubeful at the cube and score and its cube actions gnubg's own, each reply
    checked: a money game or match with a reply that is not a legal play or not
    an allowed cube action is stopped, its pair left out and counted in
    ``bad_games``.  Crawford rule in matches; ``jacoby`` in money games.  Pair
    ``i`` plays the dice of ``Dice(seed, stream=i)`` twice, the seats swapped
    (:class:`bgengine.matches.game.CubeSeries`).  Played from Python (the plays
    themselves are compiled), one game at a time; against gnubg, on a pool of
    gnubg processes, one money game or match a process at a time, with the same
    results whatever their number.  ``progress(done, total)`` is called after
    each game or match.  Ctrl-C (games of bgengine players): :class:`MatchInterrupted`
    with the result of the pairs finished, if any.  ``n``: an integer in 2..10**8.
    In matches a network player chooses its plays by match-winning chances at the score,
    in money games by cubeful equity at the cube
    (:meth:`bgengine.decisions.engine.Engine.choose_index_at`); ``plays_at_score=False``:
    the cubeless money plays of before, at every score (a pair ``(A's, B's)`` sets it per
    side, e.g. to measure what playing at the score is worth).  ``cube_plies``: the
    lookahead of the bgengine sides' cube decisions (:class:`Engine`'s ``cube_plies``).
    ``luck`` (money games; a :class:`bgengine.decisions.luck.LuckMeter` made with
    ``cubeful=True``): measure every roll's luck at its cube, for luck-adjusted figures.
    """
    n_pairs = game_pairs(n, "n, the games or matches,")
    if not is_int(match_length) or match_length < 0:
        raise ValueError(f"match length must be 0 (money) or a positive number of points, got {match_length!r}")
    if match_length > gnubg_met().length:
        raise ValueError(f"matches of up to {gnubg_met().length} points are supported "
                         f"(the match equity table's size), got {match_length}")
    for p in (a, b):
        if not isinstance(p, (Player, GnubgPlayer)):
            raise ValueError(f"games with the cube need bgengine players or gnubg, got {p!r}")
    at_score = (plays_at_score, plays_at_score) if isinstance(plays_at_score, bool) \
        else tuple(bool(x) for x in plays_at_score)
    engines = tuple(None if isinstance(p, GnubgPlayer)
                    else _cube_engine(p, cube_network, s, cube_plies)
                    for p, s in zip((a, b), at_score))
    jacoby = jacoby and match_length == 0
    if luck is not None and (match_length or not luck.cubeful):
        raise ValueError("the luck of games with the cube is measured in money games, by a "
                         "cubeful luck meter (LuckMeter(network, cubeful=True))")
    lucks = None if luck is None else np.zeros((n_pairs, 2))
    if isinstance(a, GnubgPlayer) or isinstance(b, GnubgPlayer):
        res = play_gnubg_cube_pairs(a, b, n_pairs, match_length=match_length, jacoby=jacoby,
                                    engines=engines, seed=seed, progress=progress, luck=luck)
        keep = res.good_pairs
        if lucks is not None:
            lucks = res.luck[keep]
        values, games = res.values[keep], int(res.games[keep].sum())
        doubles, drops = int(res.doubles[keep].sum()), int(res.drops[keep].sum())
        cube_sum = int(res.cube_sum[keep].sum())
        extra: dict = {"bad_games": int(res.bad.sum()), "bad_examples": tuple(res.reasons[:5])}
    else:
        values = np.zeros((n_pairs, 2))
        games = doubles = drops = cube_sum = 0
        extra = {}
        done = 0                # whole pairs played (a Ctrl-C reports these)
        try:
            for i in range(n_pairs):
                pair = np.zeros(4, dtype=np.int64)       # games, doubles, drops, cube sum
                for g in range(2):
                    seats = (0, 1) if g == 0 else (1, 0)           # seat -> player index (0 = A)
                    series = CubeSeries(Dice(seed, stream=i), match_length=match_length,
                                        jacoby=jacoby, seed=seed, pair=i, g=g,
                                        players=tuple((a, b)[s] for s in seats),
                                        engines=tuple(engines[s] for s in seats))
                    rolls: list[Roll] = []
                    winner = series.play(None if luck is None else (
                        lambda d, game, g=g: rolls.append(cube_roll(d, game, d.turn == g))))
                    if lucks is not None:
                        lucks[i, g] = luck.game_luck(rolls)
                    pair += (series.games, series.doubles, series.drops, series.cube_sum)
                    won_by_a = seats[winner] == 0
                    if match_length == 0:
                        values[i, g] = series.points if won_by_a else -series.points
                    else:
                        values[i, g] = 1.0 if won_by_a else 0.0
                    if progress is not None:
                        progress(2 * i + g + 1, 2 * n_pairs)
                games, doubles, drops, cube_sum = (x + int(y) for x, y in
                                                   zip((games, doubles, drops, cube_sum), pair))
                done = i + 1
        except KeyboardInterrupt:
            if not done:
                raise
            values = values[:done]
            lucks = None if lucks is None else lucks[:done]
    pair_means = values.mean(axis=1)
    per_game = max(games, 1)
    if lucks is not None:
        adjusted = (values - lucks).mean(axis=1)
        extra["luck_adjusted_ppg"] = float(adjusted.mean()) if len(adjusted) else float("nan")
        extra["luck_adjusted_ci95"] = ci95(adjusted)
    result = CubeMatchResult(a=a.name, b=b.name, match_length=match_length, n=2 * len(values),
                             value=float(pair_means.mean()) if len(values) else float("nan"),
                             ci95=ci95(pair_means), games=games, doubles=doubles / per_game,
                             drops=drops / per_game, mean_cube=cube_sum / per_game, **extra)
    if len(values) < n_pairs and "bad_games" not in extra:       # Ctrl-C: the pairs finished
        raise MatchInterrupted(result, 2 * n_pairs)
    return result


# ====================================================================== matches played from Python

def play_external_match(player, opponent, games: int, seed: int = 0, *,
                        timeout: float = 60.0, progress=None, luck=None) -> MatchResult:
    """Play ``games`` cubeless money games (rounded up to whole pairs) in Python,
    with the same variance reduction as the compiled match runner.

    Parameters
    ----------
    player : str, Player or ExternalPlayer
        Side A: a :func:`bgengine.matches.players.make_player` spec, a player object,
        or anything with ``choose(board, d1, d2, seed)`` and ``name``.
    opponent : str or ExternalPlayer
        Side B: ``"HOST:PORT"`` of an external-player server, or a player object.
    games, seed
        Pair ``i`` rolls the dice of ``Dice(seed, stream=i)`` (as the compiled
        :func:`bgengine.core.agents.play_match` does): game 0 with A moving first,
        game 1 with B moving first and the very same dice.  ``games``: 2..10**8.
    progress : callable, optional
        Called as ``progress(games_done, games_total)`` after every game.
    luck : LuckMeter, optional
        Measure the luck of every roll (:mod:`bgengine.decisions.luck`, on threads of
        their own while the games go on), for luck-adjusted figures.

    Returns
    -------
    MatchResult
        From A's side.
    """
    n_pairs = game_pairs(games)
    if isinstance(player, str):
        player = make_player(player)
    own = None
    if isinstance(opponent, str):
        own = opponent = ExternalPlayer(opponent, timeout=timeout)
    a_name = getattr(player, "name", repr(player))
    try:
        points, moves, luck_of_games = play_python_pairs(player, opponent, n_pairs, seed,
                                                         progress=progress, luck=luck)
    except _PairsInterrupted as stop:      # Ctrl-C: the pairs finished
        raise MatchInterrupted(summarize(a_name, getattr(opponent, "name", repr(opponent)),
                                         stop.points, stop.moves), 2 * n_pairs) from None
    finally:
        if own is not None:
            own.close()
    return summarize(getattr(player, "name", repr(player)), getattr(opponent, "name", repr(opponent)),
                     points, moves, luck=luck_of_games)


def play_python_pairs(player, opponent, n_pairs: int, seed: int = 0, *, progress=None,
                      luck=None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The games of :func:`play_external_match` as arrays of shape ``(n_pairs, 2)``
    (column 0: A moved first; column 1: B did, on the same dice): A's points (int8),
    the plays of each game (int32) and, with a ``luck`` meter, A's luck in each game
    (float64; else None).  ``player`` and ``opponent`` are player objects (anything with
    ``choose(board, d1, d2, seed)``).  Ctrl-C without ``luck``, once a pair is finished:
    a ``KeyboardInterrupt`` holding the finished pairs' arrays (``points``, ``moves``).
    ``n_pairs``: an integer in 0..5*10**7 (``MAX_GAMES // 2``)."""
    n_pairs = checked_int(n_pairs, "n_pairs", 0, MAX_GAMES // 2, "0..5*10**7")
    points = np.zeros((n_pairs, 2), dtype=np.int8)
    moves = np.zeros((n_pairs, 2), dtype=np.int32)
    luck_of_games = None if luck is None else np.zeros((n_pairs, 2))
    done = 0
    with contextlib.ExitStack() as stack:
        lucks = None if luck is None else stack.enter_context(LuckPool(luck))
        try:
            _python_pairs(player, opponent, n_pairs, seed, points, moves, lucks, progress)
        except _PairsDone as stop:
            done = stop.done
            if lucks is not None or not done:
                raise KeyboardInterrupt from None
            raise _PairsInterrupted(points[:done].copy(), moves[:done].copy()) from None
        if lucks is not None:
            for key, value in lucks.results().items():
                luck_of_games[key] = value                     # type: ignore[index]
    return points, moves, luck_of_games


class _PairsDone(Exception):
    """Ctrl-C in :func:`_python_pairs` after ``done`` whole pairs."""

    def __init__(self, done: int) -> None:
        super().__init__(done)
        self.done = done


def _python_pairs(player, opponent, n_pairs, seed, points, moves, lucks, progress) -> None:
    """The games of :func:`play_python_pairs` into ``points`` and ``moves``;
    :class:`_PairsDone` on Ctrl-C."""
    i = 0
    try:
        for i in range(n_pairs):
            for g in range(2):
                dice = Dice(seed, stream=i)
                rolls: list[Roll] = []
                # the player moves when d.turn == g (first in game 0, second in game 1)
                observer = None if lucks is None else (
                    lambda d, g=g: rolls.append(Roll(d.board, d.d1, d.d2, d.number == 0,
                                                     d.turn == g)))
                sides = (player, opponent) if g == 0 else (opponent, player)
                v, m = play_game(sides, dice, seed, i, g, observer=observer)
                points[i, g] = v if g == 0 else -v
                moves[i, g] = m
                if lucks is not None:
                    lucks.submit((i, g), rolls)
                if progress is not None:
                    progress(2 * i + g + 1, 2 * n_pairs)
    except KeyboardInterrupt:
        raise _PairsDone(i) from None
