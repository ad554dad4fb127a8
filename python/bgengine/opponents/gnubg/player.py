"""gnubg as a player (:class:`GnubgPlayer`), cubeless matches against it, and money games
with the cube and matches against it."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable

from bgengine._checks import game_pairs
from bgengine.core.board import validate_board
from bgengine.decisions.cube import CubeInfo
from bgengine.matches.game import CubeQuestion, Decision
from bgengine.opponents.gnubg.binary import find_gnubg
from bgengine.opponents.gnubg.driver import GnubgSettings
from bgengine.opponents.gnubg.pool import CubePairResults, GnubgPool, PairResults
from bgengine.opponents.gnubg.process import GnubgConfig
from bgengine.decisions.luck import LuckMeter
from bgengine.core.movegen import legal_afterstates
from bgengine.matches.results import MatchResult, summarize

__all__ = ["GnubgPlayer", "play_gnubg_pairs", "play_gnubg_match", "play_gnubg_cube_pairs"]

log = logging.getLogger(__name__)

class GnubgPlayer:
    """gnubg as a player: what it plays (``settings``) and how it is run (``config``).

    :func:`bgengine.matches.run.run_match` and :func:`bgengine.matches.run.run_cube_match`
    play it through a pool of their own, stopped when the match ends.
    :meth:`pool` gives the player's own pool, kept between calls (tournaments
    use it for their many batches), and :meth:`choose` asks that pool for one
    cubeless play; :meth:`choose_cubeful`, :meth:`can_double`,
    :meth:`cube_decision` and :meth:`take_decision` make it a cube player too,
    its own cube engine (as :class:`bgengine.decisions.engine.Engine` is for bgengine's
    players: :class:`bgengine.matches.game.CubeGame` takes it as both), one question
    at a time.  :meth:`close` (or the end of a ``with`` block) stops the pool.
    Raises :class:`GnubgNotFound` at once when gnubg is not installed.
    """

    def __init__(self, settings: GnubgSettings | None = None, config: GnubgConfig | None = None,
                 name: str | None = None) -> None:
        self.settings = settings or GnubgSettings()
        self.config = config or GnubgConfig()
        self.binary = find_gnubg(self.config.binary)
        self.name = name or ("gnubg" if self.settings.plies == 0 else f"gnubg:{self.settings.plies}")
        self._pool: GnubgPool | None = None

    def __repr__(self) -> str:
        return f"GnubgPlayer({self.name!r}, plies={self.settings.plies})"

    def pool(self, processes: int | None = None) -> "GnubgPool":
        """The player's own pool, started on first use with ``processes``
        processes (default: the config's) and grown when more are asked for."""
        n = processes or self.config.n_processes()
        if self._pool is None:
            self._pool = GnubgPool(dataclasses.replace(self.config, processes=n))
        else:
            self._pool.ensure(n)
        return self._pool

    def choose(self, board, d1: int, d2: int, seed: int = 0) -> int:
        """Index of gnubg's play in ``legal_afterstates(board, d1, d2)``
        (``seed`` unused).  Raises :class:`BadReply` (a ``ValueError``) for a
        reply that is not a legal play, :class:`GnubgError` if gnubg fails."""
        arr = validate_board(board)
        after, _ = legal_afterstates(arr, int(d1), int(d2))
        return self.pool(1).ask(self.settings, Decision(1, arr, int(d1), int(d2), after, 0))

    def choose_cubeful(self, board, d1: int, d2: int, state) -> int:
        """Index of gnubg's play in ``legal_afterstates(board, d1, d2)``, chosen
        cubefully at the cube and score of ``state`` (a
        :class:`bgengine.notation.ids.MatchState`; the mover is ``state.player_on_roll``).
        Errors as :meth:`choose`."""
        arr = validate_board(board)
        after, _ = legal_afterstates(arr, int(d1), int(d2))
        if len(after) == 1:
            return 0
        return self.pool(1).ask_play(self.settings, Decision(state.player_on_roll, arr, int(d1),
                                                             int(d2), after, 0), state)

    def can_double(self, state, side: int) -> bool:
        """``side`` has access to the cube and doubling can matter (as gnubg sees it)."""
        return CubeInfo.from_match_state(state, side).can_double()

    def cube_decision(self, board, state, jacoby: bool | None = None) -> bool:
        """True when gnubg, on roll (row 1 of ``board``, ``state.player_on_roll``),
        doubles before it rolls; never without access to the cube.  ``jacoby``, if
        given, replaces ``state.jacoby`` in money play."""
        if jacoby is not None:
            state = dataclasses.replace(state, jacoby=bool(jacoby))
        if not self.can_double(state, state.player_on_roll):
            return False
        return self.pool(1).ask_cube(self.settings, CubeQuestion(
            "double", state.player_on_roll, validate_board(board), state, 0))

    def take_decision(self, board, state) -> bool:
        """True when gnubg takes the double of the side on roll (row 1 of ``board``,
        ``state.player_on_roll``) from ``state.cube``, False when it passes."""
        return self.pool(1).ask_cube(self.settings, CubeQuestion(
            "take", 1 - state.player_on_roll, validate_board(board), state, 0))

    def close(self) -> None:
        """Stop the player's own pool, if it has one (safe to call twice)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    def __enter__(self) -> "GnubgPlayer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _gnubg_config(*players) -> GnubgConfig:
    for p in players:
        if isinstance(p, GnubgPlayer):
            return p.config
    return GnubgConfig()


def play_gnubg_pairs(a, b, n_pairs: int, seed: int = 0, first_pair: int = 0,
                     config: GnubgConfig | None = None,
                     progress: Callable[[int, int], None] | None = None,
                     luck: LuckMeter | None = None) -> PairResults:
    """:meth:`GnubgPool.play_pairs` in a pool of its own, stopped at the end.
    ``config`` defaults to the first :class:`GnubgPlayer`'s."""
    with GnubgPool(config or _gnubg_config(a, b)) as pool:
        return pool.play_pairs(a, b, n_pairs, seed, first_pair, progress, luck)


def play_gnubg_match(a, b, games: int, seed: int = 0, config: GnubgConfig | None = None,
                     progress: Callable[[int, int], None] | None = None,
                     luck: LuckMeter | None = None) -> MatchResult:
    """``games`` cubeless money games (rounded up to whole pairs) between
    ``a`` and ``b``, one or both a :class:`GnubgPlayer`, as a
    :class:`bgengine.matches.results.MatchResult` from ``a``'s side.  Games with a bad
    reply are counted in ``bad_games`` and their pairs left out.  With
    ``luck``, the result has luck-adjusted figures too (:mod:`bgengine.decisions.luck`).
    ``games``: an integer in 2..10**8 (:data:`bgengine.core.agents.MAX_GAMES`)."""
    res = play_gnubg_pairs(a, b, game_pairs(games), seed, config=config, progress=progress,
                           luck=luck)
    log.info("gnubg match: %d games in %.1f s (%.1f games/s), %d requests, %d replays",
             res.points.size, res.seconds, res.points.size / max(res.seconds, 1e-9),
             res.requests, res.replays)
    return summarize(_name(a), _name(b), res.points, res.moves, res.bad, tuple(res.reasons[:5]),
                     luck=res.luck)


def _name(p) -> str:
    return getattr(p, "name", repr(p))


def play_gnubg_cube_pairs(a, b, n_pairs: int, *, match_length: int = 0, jacoby: bool = False,
                          engines: tuple = (None, None), seed: int = 0,
                          config: GnubgConfig | None = None,
                          progress: Callable[[int, int], None] | None = None,
                          luck: LuckMeter | None = None) -> CubePairResults:
    """:meth:`GnubgPool.play_cube_pairs` in a pool of its own, stopped at the end.
    ``config`` defaults to the first :class:`GnubgPlayer`'s."""
    with GnubgPool(config or _gnubg_config(a, b)) as pool:
        res = pool.play_cube_pairs(a, b, n_pairs, match_length=match_length, jacoby=jacoby,
                                   engines=engines, seed=seed, progress=progress, luck=luck)
    units = "matches" if match_length else "games"
    log.info("gnubg cube match: %d %s (%d games) in %.1f s (%.2f %s/s, %.1f games/s), "
             "%d requests, %d replays", res.values.size, units, int(res.games.sum()), res.seconds,
             res.values.size / max(res.seconds, 1e-9), units,
             res.games.sum() / max(res.seconds, 1e-9), res.requests, res.replays)
    return res
