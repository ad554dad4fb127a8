"""Matches between two players, with variance reduction and confidence intervals."""

from __future__ import annotations

import os
from collections.abc import Generator
from dataclasses import dataclass

import numpy as np

from bgengine.agents import Player, play_match
from bgengine.board import game_result
from bgengine.engine import Engine
from bgengine.ids import MatchState
from bgengine.movegen import legal_afterstates
from bgengine.players import load_default_network
from bgengine.position import STARTING_BOARD
from bgengine.results import CubeMatchResult, MatchResult, ci95, summarize

__all__ = ["run_match", "default_threads", "run_cube_match",
           "Decision", "game_decisions", "game_seed"]


def default_threads() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


# ====================================================================== one game, step by step

@dataclass(frozen=True)
class Decision:
    """One play to choose in a game driven by :func:`game_decisions`.

    ``turn``: 0 for the side that moved first, 1 for the other; ``board``: the
    position, the mover in row 1; ``afterstates``: ``legal_afterstates(board,
    d1, d2)``'s positions (the answer is an index into them); ``number``:
    plays made so far in the game.
    """

    turn: int
    board: np.ndarray
    d1: int
    d2: int
    afterstates: np.ndarray
    number: int


#: A game that has run this long without ending has a bug in it.
MAX_PLAYS = 10000


def game_decisions(dice) -> Generator[Decision, int, tuple[int, int]]:
    """A cubeless money game from the starting position as a generator.

    The first mover rolls ``dice.opening_roll()``, then every turn
    ``dice.roll()`` (a :class:`bgengine.dice.Dice`).  Each ``yield`` hands out
    a :class:`Decision` and takes back the index of the chosen play; the
    generator returns ``(points for the first mover, plays made)`` when the
    game is over.  Whoever drives it decides who answers each decision (a
    compiled player, a socket, a gnubg process), so every Python game loop
    plays by this one.  Raises ``ValueError`` for an index out of range.
    """
    board = STARTING_BOARD.copy()
    turn = 0
    d1, d2 = dice.opening_roll()
    n_moves = 0
    while n_moves < MAX_PLAYS:
        after, _ = legal_afterstates(board, d1, d2)
        k = yield Decision(turn, board, int(d1), int(d2), after, n_moves)
        if not 0 <= k < len(after):
            raise ValueError(f"chose play {k} of {len(after)}")
        n_moves += 1
        a = after[k]
        v = game_result(a)              # > 0 once the mover has borne off all its checkers
        if v:
            return (v if turn == 0 else -v), n_moves
        board = np.ascontiguousarray(a[::-1])
        turn ^= 1
        d1, d2 = dice.roll()
    raise RuntimeError(f"game did not end after {MAX_PLAYS} plays")  # pragma: no cover


def game_seed(seed: int, pair: int, game: int, move: int) -> int:
    """The seed a Python game loop passes to ``Player.choose`` for one play
    (only players with randomness, ``@EPS``, use it)."""
    return (seed * 0x9E3779B1 + pair * 0x85EBCA77 + game * 0xC2B2AE3D + move) & ((1 << 63) - 1)


def run_match(a, b, games: int, seed: int = 0, threads: int | None = None,
              backend=None, progress=None) -> MatchResult:
    """Play ``games`` games (rounded up to an even number: game pairs) between ``a`` and ``b``.

    Compiled players play whole games in the compiled core on ``threads``
    threads, or on ``backend`` (a :class:`bgengine.distributed.Backend`, e.g.
    a Ray cluster; same results for the same seed); a match against GNU
    Backgammon (:class:`bgengine.gnubg.GnubgPlayer`) is played by a pool of
    gnubg processes, and one involving an external player (see
    :mod:`bgengine.external`) from Python, both with the same dice pairs.
    ``progress(games_done, games_total)`` is called after each game of those
    two kinds.
    """
    if games < 2:
        raise ValueError(f"games must be at least 2 (one pair), got {games}")
    if not (isinstance(a, Player) and isinstance(b, Player)):
        from bgengine.gnubg import GnubgPlayer, play_gnubg_match

        if isinstance(a, GnubgPlayer) or isinstance(b, GnubgPlayer):
            return play_gnubg_match(a, b, games, seed=seed, progress=progress)
        from bgengine.external import play_external_match

        return play_external_match(a, b, games, seed=seed, progress=progress)
    n_pairs = (games + 1) // 2
    if backend is not None:
        points, moves = backend.play_pairs(a, b, n_pairs, seed)
    else:
        points, moves = play_match(a, b, n_pairs, seed=seed, n_threads=threads or default_threads())
    return summarize(a.name, b.name, points, moves)


# ====================================================================== games with the cube

class _CubeGame:
    """One game with the cube between ``sides[0]`` and ``sides[1]`` (players and cube engines)."""

    def __init__(self, players, engines, *, match_length: int, score: list[int], crawford: bool,
                 jacoby: bool, seed: int) -> None:
        self.players, self.engines = players, engines
        self.match_length, self.score, self.crawford = match_length, score, crawford
        self.jacoby, self.seed = jacoby, seed
        self.cube, self.owner = 1, -1
        self.doubles = self.drops = 0

    def state(self, on_roll: int, **kw) -> MatchState:
        return MatchState(match_length=self.match_length, score=tuple(self.score), cube=self.cube,
                          cube_owner=self.owner, player_on_roll=on_roll, crawford=self.crawford,
                          jacoby=self.jacoby, **kw)

    def play(self, dice, first: int, opening: tuple[int, int]) -> tuple[int, int]:
        """Play to the end; (winner seat, points won).  Cube decisions come
        before every roll except the opening one."""

        board = STARTING_BOARD.copy()
        turn, (d1, d2) = first, opening
        n = 0
        while True:
            if n:
                st = self.state(turn)
                if self.engines[turn].can_double(st, turn) and self.engines[turn].cube_decision(board, st):
                    self.doubles += 1
                    if not self.engines[1 - turn].take_decision(board, self.state(turn, double_offered=True)):
                        self.drops += 1
                        return turn, self.cube
                    self.cube, self.owner = 2 * self.cube, 1 - turn
                d1, d2 = dice.roll()
            after, _ = legal_afterstates(board, d1, d2)
            k = int(self.players[turn].choose(board, d1, d2, (self.seed + n) & ((1 << 63) - 1)))
            if not 0 <= k < len(after):
                raise RuntimeError(f"{self.players[turn]!r} chose play {k} of {len(after)}")
            n += 1
            a = after[k]
            level = game_result(a)
            if level:
                if self.match_length == 0 and self.jacoby and self.owner == -1:
                    level = 1       # Jacoby: no gammons before the cube is turned
                return turn, level * self.cube
            board = np.ascontiguousarray(a[::-1])
            turn ^= 1


def _cube_engine(player, network):
    net = getattr(player, "network", None) or network
    if net is None:
        try:
            net = load_default_network()
        except ValueError as exc:
            raise ValueError(f"{player.name} has no network for its cube decisions and {exc}; "
                             f"pass cube_network") from None
    return Engine(player=player, network=net)


def run_cube_match(a, b, n: int, *, match_length: int = 0, seed: int = 0, jacoby: bool = False,
                   cube_network=None, progress=None) -> CubeMatchResult:
    """Play ``n`` money games or ``n`` matches to ``match_length`` with the cube.

    Each side's cube decisions (double, take) come from
    :class:`bgengine.engine.Engine`: the Janowski cube model over its own
    network's probabilities, or, for a player without a network (pubeval,
    random, ...), over ``cube_network`` (default: the shipped network).
    Crawford rule in matches; ``jacoby`` in money games.  Pair ``i`` plays
    the dice of ``Dice(seed, stream=i)`` twice, the seats swapped.  Played
    from Python (the plays themselves are compiled), one game at a time.
    ``progress(done, total)`` is called after each game or match.
    """
    from bgengine.cube import gnubg_met
    from bgengine.dice import Dice

    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise ValueError(f"need at least 2 games or matches (one pair), got {n!r}")
    if isinstance(match_length, bool) or not isinstance(match_length, int) or match_length < 0:
        raise ValueError(f"match length must be 0 (money) or a positive number of points, got {match_length!r}")
    if match_length > gnubg_met().length:
        raise ValueError(f"matches of up to {gnubg_met().length} points are supported "
                         f"(the match equity table's size), got {match_length}")
    for p in (a, b):
        if not isinstance(p, Player):
            raise ValueError(f"games with the cube need bgengine players, got {p!r}")
    engines = (_cube_engine(a, cube_network), _cube_engine(b, cube_network))
    n_pairs = (n + 1) // 2
    values = np.zeros((n_pairs, 2))
    games = doubles = drops = 0
    cube_sum = 0
    for i in range(n_pairs):
        for g in range(2):
            seats = (0, 1) if g == 0 else (1, 0)           # seat -> player index (0 = A)
            players = tuple((a, b)[s] for s in seats)
            engs = tuple(engines[s] for s in seats)
            dice = Dice(seed, stream=i)
            score = [0, 0]
            crawford_done = False
            game_no = 0
            while True:
                crawford = (match_length > 0 and not crawford_done
                            and match_length - 1 in score and score[0] != score[1])
                game = _CubeGame(players, engs, match_length=match_length, score=list(score),
                                 crawford=crawford, jacoby=jacoby and match_length == 0,
                                 seed=seed * 0x9E3779B1 + i * 0x85EBCA77 + g * 0xC2B2AE3D + game_no * 1000003)
                if match_length == 0:
                    first, opening = 0, dice.opening_roll()
                else:
                    while True:     # the opening roll: seat 0's die against seat 1's
                        d1, d2 = dice.roll()
                        if d1 != d2:
                            break
                    first = 0 if d1 > d2 else 1
                    opening = (d1, d2)
                winner, pts = game.play(dice, first, opening)
                games += 1
                game_no += 1
                doubles += game.doubles
                drops += game.drops
                cube_sum += game.cube
                crawford_done = crawford_done or crawford
                if match_length == 0:
                    v = pts if winner == 0 else -pts
                    values[i, g] = v if g == 0 else -v
                    break
                score[winner] += pts
                if score[winner] >= match_length:
                    won_by_a = seats[winner] == 0
                    values[i, g] = 1.0 if won_by_a else 0.0
                    break
            if progress is not None:
                progress(2 * i + g + 1, 2 * n_pairs)
    pair_means = values.mean(axis=1)
    return CubeMatchResult(a=a.name, b=b.name, match_length=match_length, n=2 * n_pairs,
                           value=float(pair_means.mean()), ci95=ci95(pair_means), games=games,
                           doubles=doubles / games, drops=drops / games, mean_cube=cube_sum / games)
