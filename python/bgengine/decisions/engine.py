"""The decision maker: plays, evaluations, cube decisions and hint ranking.

:class:`Engine` is the brain behind ``bgengine serve`` (both roles of the gnubg
external protocol), the cube of :func:`bgengine.matches.run.run_cube_match` and the
engine of ``bgengine play``.  Its plays come from a player (a network at 0-3
plies, optionally deepening within a time budget, or any compiled player); its
probabilities from a network (or, without one, a pip-count race estimate); its
cube decisions from those probabilities through a Janowski cube-life model and
the Kazaross-XG2 match equity table (:mod:`bgengine.decisions.cube`).  Subclasses can
override any method to plug in another brain.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from dataclasses import replace
from typing import Sequence

import numpy as np

from bgengine._checks import MAX_LISTED_PLAYS, checked_int, is_int
from bgengine.core.agents import Player
from bgengine.core.board import game_result, pip_counts, validate_board
from bgengine.decisions.cube import (GNUBG_EFFICIENCY, MAX_CUBE, MET_MAX_LENGTH, CubeDecision,
                                     CubeEfficiency, CubeInfo, MatchEquityTable, cube_decision,
                                     cubeful_value, cubeful_values, decision_of_values,
                                     gnubg_met, score_table, take_point)
from bgengine.core.cubesearch import cube_search
from bgengine.decisions.hints import CubeHint, Evaluation, Hint, PlayHint
from bgengine.notation.ids import MatchState
from bgengine.core.movegen import legal_afterstates
from bgengine.core.network import equity_of, flip_outputs
from bgengine.matches.players import default_network_path, load_default_network, make_player
from bgengine.position import Move
from bgengine.decisions.ranking import RankedPlay, rank_plays
from bgengine.decisions.rollouts import (RolloutResult, rollout_cube_decision, rollout_moves,
                                        rollout_position)
from bgengine.core.search import MAX_TRIALS, Searcher
from bgengine.state import GameState
from bgengine.types import Board, Step, five_outputs

__all__ = ["RESIGN_TOLERANCE", "Engine", "EngineError", "NotSupported", "RankedPlay", "rank_plays", "DEEPEN_GROWTH"]

log = logging.getLogger(__name__)

#: The most a resignation the engine offers may give up against playing on (EMG).
RESIGN_TOLERANCE = 0.01


#: Predicted cost of one more ply of lookahead, relative to the last (measured: a 1-ply
#: decision takes 20-90 times a 0-ply one, a 2-ply one 15-30 times a 1-ply one).
DEEPEN_GROWTH = 40.0
#: Plays searched at the engine's depth when it plays at the score (the best at 0-ply).
SCORE_PLAY_CANDIDATES = 5
#: A double whose 0-ply cubeful margin (min(double/take, double/pass) - no double, in
#: equity per cube; at a match score converted as a point of the cube) is wider than this
#: is decided at 0-ply even by an engine with deeper cube decisions: on 2,000 sampled
#: positions 2-ply never reversed one (81% of them), so the search goes where it can matter.
CUBE_SCREEN = 0.1


class EngineError(Exception):
    """A request the engine cannot answer (server role: an ``Error:`` line)."""


class NotSupported(EngineError):
    """A request for something this engine does not do (yet), e.g. 2-ply."""


# ====================================================================== engine

def _clean_probs(p: Sequence[float]) -> np.ndarray:
    """Clip a network's 5 outputs into a consistent set: 0 <= bg <= gammon <= win/lose."""
    win, wg, wbg, lg, lbg = (min(max(float(x), 0.0), 1.0) for x in p)
    lose = 1.0 - win
    wg = min(wg, win)
    wbg = min(wbg, wg)
    lg = min(lg, lose)
    lbg = min(lbg, lg)
    return np.array([win, wg, wbg, lg, lbg], dtype=np.float64)


class Engine:
    """The brain behind ``bgengine serve``: plays, evaluates and handles the cube.

    Parameters
    ----------
    player : str or bgengine.core.agents.Player, optional
        Who chooses the plays: a :func:`bgengine.matches.players.make_player` spec
        (``"net"``, ``"net:runs/r1/best.npz"``, ``"pubeval"``, ...) or a Player.
        Default: the shipped network if installed, else pubeval.
    network : Network, optional
        The network for probabilities and cube decisions.  Default: the
        player's own network, else the shipped one if installed, else none
        (then evaluation requests are refused and the cube logic falls back to
        a pip-count race estimate).
    plies : int
        Lookahead depth of the plays (0-3; more than 0 needs a network player):
        n-ply expectimax with gnubg-style move filtering, in compiled code.
    time_budget : float, optional
        Seconds per play.  With ``plies`` > 0 the engine deepens one ply at a
        time (0-ply, 1-ply, ...) and starts the next depth only when the time
        spent so far plus a prediction of that depth (the last depth's time
        times ``DEEPEN_GROWTH``) fits; the deepest finished depth's play is
        answered.  Overruns of any decision are logged.
    jacoby : bool
        Assume the Jacoby rule in money games when gnubg does not say (it
        never does in the player role; ``docs/gnubg-external.md`` §1.1
        recommends ``set jacoby off``).
    met : MatchEquityTable, optional
        For match cube decisions and match-winning chances (default:
        Kazaross-XG2 extended to 64 points as gnubg does,
        :func:`bgengine.decisions.cube.gnubg_met`).  A shorter table is extended the
        same way, so that every match gnubg can play (up to 64 points) is
        covered.
    plays_at_score : bool
        Where the game loop or a protocol gives the score (:meth:`choose_index_at`): in
        matches, choose plays by match-winning chances at the score and cube, and in money
        games with the cube by cubeful equity (default); False: the cubeless money play at
        every score.
    cube_plies : int, optional
        Lookahead of the cube decisions (double, take, resignations accepted): default the
        engine's ``plies``.  In money play a cubeful search of that depth (a few ms at
        2-ply), in matches the model over the probabilities at that depth
        (docs/guide/cube.md).

    Notes
    -----
    Boards are ``(2, 25)`` arrays, row 1 = the side on roll (:data:`bgengine.types.Board`).
    Override any method to plug in another brain.
    """

    max_plies = 3

    def __init__(self, player=None, network=None, *, plies: int = 0,
                 time_budget: float | None = None, jacoby: bool = False,
                 met: MatchEquityTable | None = None, plays_at_score: bool = True,
                 efficiency: CubeEfficiency | None = None,
                 cube_plies: int | None = None) -> None:
        depths = [("plies", plies)] + ([] if cube_plies is None else [("cube plies", cube_plies)])
        for what, n in depths:
            if not is_int(n) or n < 0:
                raise ValueError(f"{what} must be a whole number >= 0, got {n!r}")
            if n > self.max_plies:
                raise NotSupported(f"{n}-ply lookahead is not available (0..{self.max_plies})")
        if time_budget is not None and not (time_budget > 0 and math.isfinite(time_budget)):
            raise ValueError(f"time budget must be a positive number of seconds, got {time_budget!r}")
        if player is None:
            player = "net" if default_network_path().exists() else "pubeval"
        if isinstance(player, str):
            player = make_player(player)
        if not isinstance(player, Player):
            raise ValueError(f"player must be a spec string or a bgengine Player, got {type(player).__name__}")
        if plies > 0:
            if player.kind != "net":
                raise ValueError(f"--plies {plies} needs a network player, not {player.name!r}")
            player = Player("net", player.network, name=player.name, plies=plies)
        self.player = player
        if network is None:
            network = getattr(player, "network", None)
        if network is None and default_network_path().exists():
            try:
                network = load_default_network()
            except ValueError as exc:  # pragma: no cover - corrupt install
                log.warning("cannot load the shipped network for evaluations: %s", exc)
        self.network = network
        #: Cube efficiency by position class: given, else the network file's, else gnubg's.
        self.efficiency = efficiency if efficiency is not None else (
            CubeEfficiency.of_evaluator(network) if network is not None else GNUBG_EFFICIENCY)
        self.plies = plies
        #: Lookahead of the cube decisions (:meth:`cube_decision`, :meth:`take_decision`,
        #: :meth:`resign_decision`).
        self.cube_plies = plies if cube_plies is None else int(cube_plies)
        self.time_budget = time_budget
        self.jacoby = bool(jacoby)
        #: In matches, choose plays by match-winning chances at the score
        #: (:meth:`choose_index_at`); False: the cubeless money play at every score.
        self.plays_at_score = bool(plays_at_score)
        # every match length a board line can carry (1..64) must be covered: a
        # shorter table would fail mid-decision (an error, or a silent fallback for gnubg)
        self.met = (met or gnubg_met()).extended(MET_MAX_LENGTH)
        self._counter = 0
        self._lock = threading.Lock()
        self._local = threading.local()     # a Searcher per client thread (each has a cache)

    def searcher(self) -> Searcher:
        """This thread's :class:`Searcher` over the engine's network (each has a cache)."""
        s = getattr(self._local, "searcher", None)
        if s is None:
            s = self._local.searcher = Searcher(self.network, cache_bits=16)
        return s

    @property
    def name(self) -> str:
        return f"{self.player.name} ({self.plies}-ply)"

    def describe(self) -> str:
        net = repr(self.network) if self.network is not None else "none (pip-count estimate)"
        return f"player {self.player.name}, {self.plies}-ply; evaluations and cube: {net}"

    # ------------------------------------------------------------ plays
    def _seed(self) -> int:
        with self._lock:
            self._counter += 1
            return self._counter

    def choose_index(self, board, d1: int, d2: int) -> int:
        """Index of the chosen play in ``legal_afterstates(board, d1, d2)``."""
        if self.plies == 0 or self.time_budget is None:
            return int(self.player.choose(board, d1, d2, self._seed()))
        return self._deepen(board, d1, d2)[0]

    def choose_index_at(self, board, d1: int, d2: int, state: MatchState,
                        cube_in_use: bool = False) -> int:
        """Index of the chosen play in ``legal_afterstates(board, d1, d2)`` at the cube and
        score of ``state`` (the side on roll's, before the play).

        In a match: the play of the highest cubeful match-winning chance, its gammons and
        backgammons valued by the match equity table at the score and cube (the value
        :meth:`hint` ranks by); every play valued at 0-ply, the best
        :data:`SCORE_PLAY_CANDIDATES` of them searched at the engine's depth.  In money play
        with ``cube_in_use`` (a game with the doubling cube): the same by cubeful money
        equity at the cube's value and owner.  In cubeless money play, without
        :attr:`plays_at_score` or without a network of the player's own:
        :meth:`choose_index`.
        """
        if ((state.match_length == 0 and not cube_in_use) or not self.plays_at_score
                or self.network is None or self.player.kind != "net"):
            return self.choose_index(board, d1, d2)
        searcher = self.searcher()
        rows = searcher.rank_moves(board, d1, d2, 0)
        if len(rows) <= 1:
            return int(rows[0][0]) if rows else 0
        afters, _ = legal_afterstates(board, d1, d2)
        index = [int(i) for i, _, _ in rows]
        outputs = [np.asarray(o, dtype=np.float64) for _, o, _ in rows]
        turned = [np.ascontiguousarray(afters[i][::-1]) for i in index]   # the opponent on roll
        before = GameState(position=validate_board(board), match=state)
        values = self.values_after(before, turned, outputs)
        if self.plies == 0:
            return index[int(np.argmax(values))]
        top = [int(k) for k in np.argsort(values)[::-1][:SCORE_PLAY_CANDIDATES]]
        for k in top:
            if not game_result(turned[k]):
                outputs[k] = flip_outputs(searcher.evaluate(turned[k], self.plies))
        deeper = self.values_after(before, [turned[k] for k in top], [outputs[k] for k in top])
        return index[top[int(np.argmax(deeper))]]

    def _deepen(self, board, d1: int, d2: int) -> tuple[int, int]:
        """Iterative deepening within the time budget: ``(index, depth reached)``."""
        searcher = self.searcher()
        start = time.perf_counter()
        best, depth, last = 0, -1, 0.0
        for plies in range(self.plies + 1):
            spent = time.perf_counter() - start
            if plies and spent + last * DEEPEN_GROWTH > self.time_budget:
                break
            t = time.perf_counter()
            best = int(searcher.best_move(board, d1, d2, plies=plies)[0])
            last = max(time.perf_counter() - t, 1e-5)
            depth = plies
        return best, depth

    def choose_move(self, board, d1: int, d2: int) -> tuple[Step, ...]:
        """The chosen play as single-die steps ``(from, to)`` in the mover's
        numbering (25 = bar, 0 = off); ``()`` when there is no legal play."""
        _, steps = legal_afterstates(board, d1, d2)
        k = self.choose_index(board, d1, d2)
        return tuple((int(a), int(b)) for a, b in steps[k] if a >= 0)

    def choose_move_at(self, board, d1: int, d2: int, state: MatchState) -> tuple[Step, ...]:
        """:meth:`choose_move` at the cube and score of ``state``: in a match with
        :attr:`plays_at_score`, the play of :meth:`choose_index_at`; else, or when a subclass
        overrides :meth:`choose_move` (another brain), :meth:`choose_move`."""
        if (not self.plays_at_score or state.match_length == 0
                or type(self).choose_move is not Engine.choose_move):
            return self.choose_move(board, d1, d2)
        _, steps = legal_afterstates(board, d1, d2)
        k = self.choose_index_at(board, d1, d2, state)
        return tuple((int(a), int(b)) for a, b in steps[k] if a >= 0)

    # ------------------------------------------------------------ evaluation
    def evaluate(self, board, plies: int = 0) -> np.ndarray:
        """Cubeless probabilities for the side on roll (before it rolls):
        win, win gammon, win backgammon, lose gammon, lose backgammon.
        ``plies`` (an integer) may not exceed the engine's own depth (``NotSupported``)."""
        plies = checked_int(plies, "plies", 0, math.inf, f"0..{self.max_plies}")
        deepest = max(self.plies, self.cube_plies)
        if plies > deepest:
            raise NotSupported(f"{plies}-ply evaluation is not available: this engine searches "
                               f"0..{deepest} plies (start the server with --plies {plies})"
                               if plies <= self.max_plies else
                               f"{plies}-ply evaluation is not available (0..{deepest})")
        arr = validate_board(board)
        if self.network is None:
            if plies:
                raise NotSupported("lookahead evaluation needs a network")
            return self._race_estimate(arr)
        if plies:
            out = np.asarray(self.searcher().evaluate(arr, plies), dtype=np.float64)
        else:
            out = np.asarray(self.network.evaluate(arr), dtype=np.float64)
        try:
            return _clean_probs(five_outputs(out))
        except ValueError:
            raise EngineError(f"cannot read a network with {out.shape[-1]} outputs") from None

    def evaluate_sampled(self, board, plies: int, samples: int = 3) -> tuple[np.ndarray, np.ndarray]:
        """``(lower, upper)``: ``evaluate(board, plies - 1)`` and an unbiased estimate of
        ``evaluate(board, plies)`` whose deepest ply averages ``samples`` of the 36 rolls
        (:meth:`Searcher.evaluate_sampled <bgengine.core.search.Searcher.evaluate_sampled>`;
        at 3 plies and 3 samples about a quarter of the cost of ``evaluate(board, 3)``)."""
        plies = checked_int(plies, "plies", 0, math.inf, f"0..{self.max_plies}")
        if plies > self.plies:
            raise NotSupported(f"{plies}-ply evaluation is not available (0..{self.plies})")
        if self.network is None:
            raise NotSupported("lookahead evaluation needs a network")
        lower, upper = self.searcher().evaluate_sampled(validate_board(board), plies, samples)
        return (_clean_probs(five_outputs(np.asarray(lower, np.float64))),
                _clean_probs(five_outputs(np.asarray(upper, np.float64))))

    def has_probabilities(self) -> bool:
        return self.network is not None

    @staticmethod
    def _race_estimate(board: np.ndarray) -> np.ndarray:
        """Win chance from the pip counts alone (no network): a normal
        approximation, the side on roll worth 4 pips, no gammons."""
        me, opp = pip_counts(board)
        sd = max(1.0, 0.98 * math.sqrt(me + opp))
        win = 0.5 * (1.0 + math.erf((opp - me + 4.0) / (sd * math.sqrt(2.0))))
        return _clean_probs([win, 0, 0, 0, 0])

    def evaluate_cubeful(self, board, state: MatchState, plies: int = 0,
                         jacoby: bool | None = None) -> float:
        """Cubeful value of the side on roll (``board`` row 1), before it
        rolls: money equity per cube, or in a match its match-winning chance
        (Janowski cube-life model, Kazaross-XG2 table; see :mod:`bgengine.decisions.cube`)."""
        return self._cubeful(self.evaluate(board, plies), board, state, jacoby=jacoby)

    def _cubeful(self, probs: np.ndarray, board, state: MatchState, side: int | None = None,
                 jacoby: bool | None = None) -> float:
        """Cubeful value of ``probs`` for ``side`` (default: on roll, row 1 of ``board``),
        before it rolls: money equity per cube or match-winning chance."""
        info = self.cube_info(state, side, jacoby=jacoby)
        return float(cubeful_value(probs, info, x=self.efficiency.of_board(board), met=self.met))

    # ------------------------------------------------------------ cube
    def cube_info(self, state: MatchState, side: int | None = None,
                  jacoby: bool | None = None) -> CubeInfo:
        """The cube seen from ``side`` (default: on roll); money games use
        ``jacoby`` if given, else the engine's setting."""
        info = CubeInfo.from_match_state(state, side)
        if info.is_money:
            info = replace(info, jacoby=self.jacoby if jacoby is None else bool(jacoby))
        return info

    def can_double(self, state: MatchState, side: int) -> bool:
        """``side`` has access to the cube and doubling could matter."""
        return self.cube_info(state, side).can_double()

    def cube_analysis(self, board, state: MatchState, jacoby: bool | None = None,
                      plies: int = 0, probs: np.ndarray | None = None,
                      beavers: bool = False) -> CubeDecision:
        """No double / double-take / double-pass values and the decision for
        the side on roll (row 1 of ``board``), before it rolls, from its
        probabilities at ``plies`` (or ``probs``, e.g. a rollout's): Janowski
        cube-life model, Kazaross-XG2 match equity table (:mod:`bgengine.decisions.cube`).
        At ``plies`` > 0 it searches cubefully instead, the cube's later turns in the tree as
        gnubg's n-ply, in money play and at the match score
        (:func:`~bgengine.core.cubesearch.cube_search`).  ``beavers``: money play where
        the taker may beaver (:func:`~bgengine.decisions.cube.decision_of_values`)."""
        info = replace(self.cube_info(state, jacoby=jacoby), beavers=bool(beavers))
        if (probs is None and plies and self.network is not None
                and plies <= max(self.plies, self.cube_plies)):
            values, live, complement = score_table(info, self.met)
            return decision_of_values(*cube_search(
                self.network, validate_board(board), plies, values, live, complement,
                owner=info.owner, jacoby=info.jacoby, efficiency=self.efficiency.values),
                info.can_double(), info.beavers)
        probs = self.evaluate(board, plies) if probs is None else probs
        return cube_decision(probs, info, x=self.efficiency.of_board(board), met=self.met)

    def cube_decision(self, board, state: MatchState, jacoby: bool | None = None) -> bool:
        """True to double, False to roll.  ``board``: the position before rolling,
        row 1 = the side deciding (``state.player_on_roll``).  Doubles when
        ``min(double/take, double/pass) > no double`` in cubeful values; never
        without access to the cube (opponent owns it, Crawford game, dead cube)."""
        if not self.can_double(state, state.player_on_roll):
            return False
        if self.cube_plies:
            quick = self.cube_analysis(board, state, jacoby)
            margin = min(quick.double_take, quick.double_pass) - quick.no_double
            if abs(margin) > CUBE_SCREEN * self._point(state, jacoby):
                return quick.double
        return self.cube_analysis(board, state, jacoby, plies=self.cube_plies).double

    def _point(self, state: MatchState, jacoby: bool | None = None) -> float:
        """A point of the cube in the unit of cubeful values at ``state``: 1 (equity per
        cube) in money play, in a match half the match-winning chances between winning and
        losing the cube's value."""
        info = self.cube_info(state, jacoby=jacoby)
        if info.is_money:
            return 1.0
        post = info.post_crawford or info.crawford
        return (self.met(info.away - info.cube, info.opp_away, post)
                - self.met(info.away, info.opp_away - info.cube, post)) / 2

    def take_decision(self, board, state: MatchState) -> bool:
        """True to take, False to drop.  ``board``: the position with the
        *doubler* on roll (row 1 = ``state.player_on_roll``, who doubled);
        the taker is the other side.  ``state.cube`` is the cube before the
        double.  Takes when the cubeful value of owning the doubled cube is at
        least what passing gives."""
        return self.cube_analysis(board, state, jacoby=False, plies=self.cube_plies).take

    def resign_decision(self, board, state: MatchState, level: int,
                        jacoby: bool | None = None) -> bool:
        """True to accept the opponent's offer to resign ``level`` (1 single,
        2 gammon, 3 backgammon) times the cube.  ``board``: row 1 = the side
        offered the resignation (on roll).  Accept when that is worth at least
        playing on (cubeful)."""
        probs = self.evaluate(board, self.cube_plies)
        play, resign = self.resignation_values(board, state, level, jacoby, probs=probs)
        return bool(resign >= play - 1e-12)

    def resignation_values(self, board, state: MatchState, level: int,
                           jacoby: bool | None = None, side_resigns: bool = False,
                           probs: np.ndarray | None = None) -> tuple[float, float]:
        """(playing on, a resignation of ``level``) for the side on roll (row 1 of
        ``board``, before it rolls): the side offered it, or with ``side_resigns`` the side
        resigning.  Money: cubeful equity per cube (gammons single under the Jacoby rule
        with the cube centred); match: match-winning chances."""
        info = self.cube_info(state, jacoby=jacoby)
        probs = self.evaluate(board) if probs is None else probs
        play = self._cubeful(probs, board, state, jacoby=jacoby)
        if info.is_money:
            points = 1 if info.jacoby and info.owner == "centre" else level
            return play, float(-points if side_resigns else points)
        post = info.post_crawford or info.crawford
        if side_resigns:
            return play, float(self.met(info.away, info.opp_away - level * info.cube, post))
        return play, float(self.met(info.away - level * info.cube, info.opp_away, post))

    def resign_offer(self, board, state: MatchState, jacoby: bool | None = None,
                     tolerance: float = RESIGN_TOLERANCE) -> int:
        """The resignation the side on roll (row 1 of ``board``, before it rolls) should
        offer: the least level (1 single, 2 gammon, 3 backgammon) that the opponent,
        judging as this engine does, would accept, when giving it up costs at most
        ``tolerance`` (EMG: points per cube in money play, converted at the score in a
        match) against playing on; 0 when none does (the game is not decided)."""
        probs = self.evaluate(board)
        info = self.cube_info(state, jacoby=jacoby)
        tol = tolerance * self._point(state, jacoby)
        for level in (1, 2, 3):
            play, resign = self.resignation_values(board, state, level, jacoby,
                                                   side_resigns=True, probs=probs)
            if resign <= play + tol:            # the opponent gains by accepting
                return level if resign >= play - tol else 0
        return 0

    def equity(self, board, state: MatchState, probs: np.ndarray | None = None) -> float:
        """Cubeless equity of the side on roll: points per cube in money play,
        match-winning chance in a match (cube never turned again)."""
        p = self.evaluate(board) if probs is None else probs
        if state.match_length == 0:
            return float(equity_of(p))
        return float(cubeful_value(p, self.cube_info(state), x=0.0, met=self.met))

    # ------------------------------------------------------------ hints
    def _hint_plies(self, plies: int | None) -> int:
        if self.network is None:
            raise EngineError("evaluations and hints need a network; none is loaded")
        if plies is None:
            return self.plies
        return checked_int(plies, "plies", 0, self.max_plies)

    def evaluate_state(self, state: GameState, plies: int | None = None) -> Evaluation:
        """The position of ``state`` before the roll, side on roll's view, at ``plies``
        (default: the engine's depth): probabilities, cubeless equity, cubeful value."""
        plies = self._hint_plies(plies)
        return self._evaluation(state, plies, self.evaluate(state.board, plies))

    def _evaluation(self, state: GameState, plies: int, probs: np.ndarray,
                    rollout: RolloutResult | None = None) -> Evaluation:
        board, m = state.board, state.match
        return Evaluation(state=state, plies=plies, outputs=probs,
                          cubeless=float(equity_of(probs)),
                          cubeful=self._cubeful(probs, board, m, jacoby=m.jacoby),
                          cubeless_mwc=None if state.is_money else self.equity(board, m, probs),
                          rollout=rollout)

    def hint(self, state: GameState, n: int = 5, plies: int | None = None, *,
             rollout: int = 0, seed: int = 0, threads: int | None = None) -> Hint:
        """The engine's advice for ``state`` at ``plies`` (default: the engine's depth).

        Before the roll (or with a double pending): the cube action, :class:`CubeHint`.
        With dice: the best ``n`` plays ranked by their cubeful value for the mover
        (money equity per cube, or match-winning chance), :class:`PlayHint`; all plays
        are ranked at 0-ply and the best ``max(n, 5)`` searched at ``plies``
        (:func:`rank_plays`).  ``rollout`` > 0: the position before the roll, or each of
        the ``n`` plays, is then rolled out that many times (0-ply plays, ``seed``, on
        ``threads``, default all cores; :mod:`bgengine.decisions.rollouts`) and valued from the
        rollout's probabilities; the cube action by a cubeful rollout (both sides using the
        cube, in money play or at the match score), where the side can
        double, else by the cube model over the rollout's probabilities.  ``n``: 1..10**6; ``rollout``: 0..10**7
        (:data:`bgengine.core.search.MAX_TRIALS`); integers, not bools or floats.
        ``ValueError`` for a game not in progress or a pending resignation.
        """
        n = checked_int(n, "n, the number of plays to show,", 1, MAX_LISTED_PLAYS, "1..10**6")
        rollout = checked_int(rollout, "rollout trials", 0, MAX_TRIALS, "0..10**7")
        plies = self._hint_plies(plies)
        m = state.match
        if m.game_state_name != "playing" or m.resignation:
            raise ValueError(f"no hint for this state: {state.summary()}")
        if state.position.is_game_over():
            raise ValueError(f"no hint: the game is over ({state.position.result_text()})")
        if threads is None:         # all cores (bgengine.matches.run.default_threads; no import circle)
            threads = max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                          else (os.cpu_count() or 1))
        kw = {"seed": seed, "n_threads": threads}
        if m.dice == (0, 0):
            info = replace(self.cube_info(m, jacoby=m.jacoby), beavers=state.beavers)
            cube_rollout = None
            if rollout and (info.is_money or info.can_double()):  # both sides use the cube
                cube_rollout = rollout_cube_decision(
                    self.network, state.board, info, rollout, self.efficiency, self.met, **kw)
                r = cube_rollout.cubeless
                ev = replace(self._evaluation(state, plies, _clean_probs(five_outputs(r.outputs)),
                                              r), cubeful=cube_rollout.no_double)
            elif rollout:
                r = rollout_position(self.network, state.board, rollout, **kw)
                ev = self._evaluation(state, plies, _clean_probs(five_outputs(r.outputs)), r)
            else:
                ev = self.evaluate_state(state, plies)
            decision = (cube_rollout.decision if cube_rollout is not None else
                        self.cube_analysis(state.board, m, jacoby=m.jacoby, probs=ev.outputs,
                                           beavers=state.beavers))
            taker = take_point(ev.outputs, info, self.efficiency.of_board(state.board), self.met) \
                if info.cube < MAX_CUBE and not info.crawford else None
            return Hint(state=state, plies=plies, cube=CubeHint(ev, decision, taker, cube_rollout),
                        plays=())
        legal = state.position.legal_moves(*m.dice)
        rows = rank_plays(self.searcher(), state.board, *m.dice, n=max(n, 5), plies=plies)
        # (play, mover's outputs after it, cubeless equity, plies, rollout)
        found = [(legal[r.index], np.asarray(r.outputs, dtype=np.float64), r.equity, r.plies, None)
                 for r in rows]
        if rollout:
            top = sorted(found, key=lambda f: -self.value_after(state, f[0].position.board,
                                                                f[1]))[:n]
            results = {r.label: r for r in rollout_moves(
                self.network, state.board, *m.dice, rollout,
                indices=[legal.index(f[0]) for f in top], **kw)}
            found = [(move, _clean_probs(five_outputs(results[str(move)].outputs)),
                      results[str(move)].equity, plies, results[str(move)])
                     for move, *_ in top]
        scored = sorted(((self.value_after(state, f[0].position.board, f[1]),) + f
                         for f in found),
                        key=lambda t: -t[0])[:n]
        best = scored[0][0]
        plays = tuple(
            PlayHint(notation=str(move), after=self.state_after(state, move), outputs=out,
                     cubeless=cubeless, value=value, difference=value - best, plies=depth,
                     rollout=r)
            for value, move, out, cubeless, depth, r in scored)
        return Hint(state=state, plies=plies, cube=None, plays=plays)

    @staticmethod
    def state_after(state: GameState, move: Move) -> GameState:
        """The state after ``move``: the opponent on roll, no dice."""
        opponent = 1 - state.match.player_on_roll
        return replace(state, position=move.position,
                       match=replace(state.match, player_on_roll=opponent, turn=opponent,
                                     dice=(0, 0)))

    def value_after(self, state: GameState, after: Board, outputs: np.ndarray) -> float:
        """Cubeful value for the side on roll in ``state`` of a play that leaves ``after``
        (the board with the opponent on roll, row 1) whose outputs (mover's view) are
        ``outputs``: the opponent's value before its roll, turned round."""
        return self.values_after(state, [after], [outputs])[0]

    def values_after(self, state: GameState, afters: Sequence[Board],
                     outputs: Sequence[np.ndarray]) -> list[float]:
        """:meth:`value_after` of several plays from ``state`` (the cube seen once)."""
        m = state.match
        opponent = 1 - m.player_on_roll
        match = replace(m, player_on_roll=opponent, turn=opponent, dice=(0, 0))
        info = self.cube_info(match, jacoby=m.jacoby)
        base = 0.0 if state.is_money else 1.0      # the mover: minus the money equity, 1 - MWC
        if not len(afters):
            return []
        probs = flip_outputs(np.asarray(outputs))
        xs = self.efficiency.of_boards(np.asarray(afters))
        return [base - v for v in cubeful_values(probs, info, xs, met=self.met)]
