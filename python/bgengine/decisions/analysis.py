"""Analysis of a played match: every decision valued, errors, error rates and luck.

:func:`analyse_match` replays a :class:`bgengine.matchfiles.record.MatchRecord` and asks the
engine (:class:`bgengine.decisions.engine.Engine`, its lookahead at ``plies``) about every decision:

* a **play**: the plays of the roll are ranked (:func:`bgengine.decisions.ranking.rank_plays`: all at
  0-ply, the best five and the play made at ``plies``) by their cubeful value for the
  mover; the equity lost is the best play's value minus the value of the play made.  A
  forced play (one legal play, or none) is listed but not counted;
* a **cube decision** before a roll (the player could double: no double or double):
  no double, double/take and double/pass values at ``plies`` (Janowski's cube model,
  :mod:`bgengine.decisions.cube`); the doubler's best is ``max(no double, min(take, pass))``;
* an **answer** to a double: take or pass, from the same values.

Values are the engine's: in money play cubeful equity per cube, in a match the
match-winning chance (MWC).  Equity lost is reported as gnubg reports it, in normalised
money equity (EMG): per cube in money play; in a match the MWC lost converted as gnubg's
``mwc2eq`` does, ``2 * dMWC / (MWC(win the cube) - MWC(lose the cube))`` at the
decider's score and cube (for an answer, the doubler's scale, as gnubg).

What counts (gnubg 1.07's ``analysis.c``): the **error rate** is 1000 x the equity lost
over the unforced plays and the *close or actual* cube decisions (doubles, takes and
passes always; a no-double when it was a missed double or ``no double - min(take, pass)
< 0.16`` EMG).  The **PR** is eXtreme Gammon's scale, 500 x the mean equity lost per
decision, here over the same decisions (half the error rate).  Marks use gnubg's
thresholds: doubtful 0.03, error ("bad") 0.06, blunder ("very bad") 0.12 EMG lost.
**Luck** of a roll (gnubg's, at 0-ply whatever ``plies``): the mover's value after the
best 0-ply play of the roll made minus its mean over the 36 rolls (30 non-doubles on a
game's first roll), in EMG.

A **resignation** (accepted: a match file records no other) is two decisions, listed and
marked but not counted in the error rates: the resigner's (resigning against playing on,
the cubeful value before the roll of the side on roll) and the acceptor's (accepting
against playing on); whichever side's choice was worse than playing on lost the
difference.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from bgengine.decisions.cube import CubeDecision
from bgengine.decisions.engine import Engine
from bgengine.decisions.ranking import rank_plays
from bgengine.notation.ids import MatchState
from bgengine.decisions.luck import ROLLS, roll_luck
from bgengine.core.movegen import legal_afterstates
from bgengine.matchfiles.record import (Double, Drop, MatchRecord, Moment, Play, Resign, Take,
                                        replay)
from bgengine.position import Move
from bgengine.state import GameState

__all__ = ["Decision", "PlayerSummary", "MatchAnalysis", "analyse_match", "DOUBTFUL", "ERROR",
           "BLUNDER", "CLOSE_CUBE", "PLAYS_SEARCHED", "PLAYS_WITHIN"]

#: gnubg 1.07's default marks (``set analysis threshold``), EMG lost.
DOUBTFUL, ERROR, BLUNDER = 0.03, 0.06, 0.12
#: A no-double counts as a decision when no double is within this of the double (EMG).
CLOSE_CUBE = 0.16
#: Plays searched at the analysis depth besides the one made: the best at 0-ply, at most
#: this many, within ``PLAYS_WITHIN`` cubeless equity of the best.
PLAYS_SEARCHED = 5
PLAYS_WITHIN = 0.08


@dataclass(frozen=True)
class Decision:
    """One decision of the match.

    ``game`` (from 1) and ``number`` (the move number, a ``.mat`` file's line);
    ``player`` (0 or 1); ``kind``: ``"play"``, ``"cube"`` (double or not, before a roll),
    ``"answer"`` (take or pass), ``"resign"`` or ``"accept"`` (a resignation's two sides); ``action`` what was done and ``best`` the engine's
    choice (a play as ``63: 24/15``; ``double``, ``no double``, ``take``, ``pass``);
    ``state``: the game state before it (with the dice for a play, the double pending for
    an answer).  ``value``, ``best_value``: the decider's values of the two (money:
    cubeful equity per cube; match: MWC).  ``equity_lost``: EMG, >= 0; ``counted``: it
    counts toward the error rate.  ``luck`` (plays only): EMG gained (+) or lost to the
    roll against the average roll.
    """

    game: int
    number: int
    player: int
    kind: str
    action: str
    best: str
    state: GameState
    value: float
    best_value: float
    equity_lost: float
    counted: bool
    luck: float | None = None

    @property
    def mark(self) -> str:
        """gnubg's mark: ``"blunder"`` (very bad), ``"error"`` (bad), ``"doubtful"`` or ``""``."""
        for name, level in (("blunder", BLUNDER), ("error", ERROR), ("doubtful", DOUBTFUL)):
            if self.equity_lost >= level:
                return name
        return ""

    def to_dict(self) -> dict[str, Any]:
        try:
            xgid: str | None = self.state.to_xgid()
        except ValueError:
            xgid = None
        return {"game": self.game, "number": self.number, "player": self.player,
                "kind": self.kind, "action": self.action, "best": self.best,
                "value": self.value, "best_value": self.best_value,
                "equity_lost": self.equity_lost, "counted": self.counted, "mark": self.mark,
                "luck": self.luck, "gnubgid": self.state.to_gnubgid(), "xgid": xgid}


@dataclass(frozen=True)
class PlayerSummary:
    """One player's figures (EMG: normalised money equity, see the module's notes)."""

    name: str
    plays: int = 0
    unforced_plays: int = 0
    cube_decisions: int = 0
    checker_error: float = 0.0
    cube_error: float = 0.0
    errors: int = 0
    blunders: int = 0
    luck: float = 0.0
    rolls: int = 0

    @property
    def decisions(self) -> int:
        """The decisions counted: unforced plays and close or actual cube decisions."""
        return self.unforced_plays + self.cube_decisions

    @property
    def error_rate(self) -> float:
        """gnubg's error rate, mEMG per decision (1000 x mean EMG lost)."""
        return 1000.0 * (self.checker_error + self.cube_error) / self.decisions \
            if self.decisions else 0.0

    @property
    def pr(self) -> float:
        """eXtreme Gammon's performance rating scale: 500 x mean EMG lost per decision."""
        return self.error_rate / 2.0

    @property
    def luck_rate(self) -> float:
        """mEMG of luck per roll."""
        return 1000.0 * self.luck / self.rolls if self.rolls else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "plays": self.plays, "unforced_plays": self.unforced_plays,
                "cube_decisions": self.cube_decisions, "decisions": self.decisions,
                "checker_error": self.checker_error, "cube_error": self.cube_error,
                "error_rate": self.error_rate, "pr": self.pr, "errors": self.errors,
                "blunders": self.blunders, "luck": self.luck, "rolls": self.rolls,
                "luck_rate": self.luck_rate}


@dataclass(frozen=True)
class MatchAnalysis:
    """The analysis of a match (or money session): its ``decisions`` in order and the
    two ``players``' figures, at ``plies``."""

    match: MatchRecord
    plies: int
    decisions: tuple[Decision, ...]
    players: tuple[PlayerSummary, PlayerSummary]

    @property
    def is_money(self) -> bool:
        return self.match.length == 0

    @property
    def marked(self) -> list[Decision]:
        """The errors and blunders, in the order played."""
        return [d for d in self.decisions if d.mark in ("error", "blunder")]

    def to_dict(self) -> dict[str, Any]:
        return {"players": list(self.match.players), "length": self.match.length,
                "plies": self.plies, "summary": [p.to_dict() for p in self.players],
                "decisions": [d.to_dict() for d in self.decisions]}


# ====================================================================== the analysis

@dataclass
class _Totals:
    """A player's running sums (made into a :class:`PlayerSummary` at the end)."""

    name: str
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(
        ("plays", "unforced_plays", "cube_decisions", "errors", "blunders", "rolls"), 0))
    sums: dict[str, float] = field(default_factory=lambda: dict.fromkeys(
        ("checker_error", "cube_error", "luck"), 0.0))

    def add(self, d: Decision) -> None:
        c, s = self.counts, self.sums
        if d.kind == "play":
            c["plays"] += 1
            if d.luck is not None:
                c["rolls"] += 1
                s["luck"] += d.luck
        if d.counted:
            c["unforced_plays" if d.kind == "play" else "cube_decisions"] += 1
            s["checker_error" if d.kind == "play" else "cube_error"] += d.equity_lost
        c["errors"] += d.mark == "error"
        c["blunders"] += d.mark == "blunder"

    def summary(self) -> PlayerSummary:
        return PlayerSummary(self.name, **self.counts, **self.sums)


class _Analyst:
    """The engine's questions for each decision, at one depth."""

    def __init__(self, engine: Engine, plies: int) -> None:
        self.engine, self.plies = engine, plies

    def emg_scale(self, state: MatchState, side: int) -> float:
        """EMG per unit of value for ``side``: 1 in money play (values are per cube);
        in a match 2 / (MWC of winning the cube - MWC of losing it), gnubg's ``mwc2eq``."""
        if state.match_length == 0:
            return 1.0
        info = self.engine.cube_info(state, side)
        met, post = self.engine.met, info.post_crawford or info.crawford
        win = met(info.away - info.cube, info.opp_away, post)
        lose = met(info.away, info.opp_away - info.cube, post)
        return 2.0 / (win - lose)

    def cube(self, m: Moment) -> CubeDecision:
        """The cube values at the moment (the side on roll doubling, before its roll)."""
        state = replace(m.state, dice=(0, 0), double_offered=False, turn=None)
        return self.engine.cube_analysis(m.position.board, state, jacoby=m.state.jacoby,
                                         plies=self.plies)

    def play(self, m: Moment, first: bool) -> Decision:
        a = m.action
        assert isinstance(a, Play) and m.move is not None
        state = GameState(m.position, m.state)
        d1, d2 = m.state.dice
        # the plays as arrays: Move objects (with their notation) only for the two reported
        afters, steps = legal_afterstates(m.position.board, d1, d2)
        made = int(np.flatnonzero((afters[:, ::-1] == m.move.position.board).all(axis=(1, 2)))[0])
        rows = rank_plays(self.engine.searcher(), m.position.board, d1, d2,
                          n=PLAYS_SEARCHED, plies=self.plies, include=(made,),
                          within=PLAYS_WITHIN)
        values = dict(zip((r.index for r in rows), self.engine.values_after(
            state, [afters[r.index][::-1] for r in rows], [r.outputs for r in rows])))
        best = max(values, key=values.__getitem__)
        scale = self.emg_scale(m.state, a.player)
        played = _play_text(d1, d2, m.position.move(afters[made], steps[made]))
        return Decision(m.game + 1, m.number, a.player, "play", played,
                        _play_text(d1, d2, m.position.move(afters[best], steps[best])), state,
                        values[made], values[best], max(0.0, values[best] - values[made]) * scale,
                        len(afters) > 1, self.luck(state, first) * scale)

    def luck(self, state: GameState, first: bool) -> float:
        """The roll's value minus the mean roll's, in the mover's values (0-ply best plays)."""
        pre = state.without_dice()
        afters, outputs = self.engine.searcher().best_plays(pre.board, ROLLS, plies=0)
        return roll_luck(self.engine.values_after(pre, afters[:, ::-1], outputs), *state.dice,
                         opening=first)

    def cube_decision(self, m: Moment, cube: CubeDecision, doubled: bool) -> Decision:
        """The roller's double or no double."""
        state = GameState(m.position, replace(m.state, dice=(0, 0)))
        best_value = max(cube.no_double, min(cube.double_take, cube.double_pass))
        value = min(cube.double_take, cube.double_pass) if doubled else cube.no_double
        scale = self.emg_scale(m.state, m.state.player_on_roll)
        close = (cube.no_double - min(cube.double_take, cube.double_pass)) * scale < CLOSE_CUBE
        return Decision(m.game + 1, m.number, m.state.player_on_roll, "cube",
                        "double" if doubled else "no double",
                        "double" if cube.double else "no double", state, value, best_value,
                        max(0.0, best_value - value) * scale, doubled or close or cube.double)

    def answer(self, m: Moment, cube: CubeDecision, took: bool) -> Decision:
        """The taker's take or pass; its values are the taker's (the doubler's, negated
        in money play, one minus them in a match)."""
        a = m.action
        state = GameState(m.position, m.state)
        money = m.state.match_length == 0

        def mine(v: float) -> float:
            return -v if money else 1.0 - v

        take, drop = mine(cube.double_take), mine(cube.double_pass)
        scale = self.emg_scale(m.state, m.state.player_on_roll)     # the doubler's, as gnubg
        return Decision(m.game + 1, m.number, a.player, "answer", "take" if took else "pass",
                        "take" if cube.take else "pass", state, take if took else drop,
                        max(take, drop), abs(take - drop) * scale * ((take > drop) != took),
                        True)


    def resignation(self, m: Moment) -> tuple[Decision, Decision]:
        """The resigner's and the acceptor's decisions of an accepted resignation."""
        a = m.action
        assert isinstance(a, Resign)
        money = m.state.match_length == 0
        pre = replace(m.state, dice=(0, 0), double_offered=False, resignation=0, turn=None)
        resigner_on_roll = m.state.player_on_roll == a.player
        play, resign = self.engine.resignation_values(
            m.position.board, pre, a.level, jacoby=m.state.jacoby, side_resigns=resigner_on_roll)
        other = (lambda v: -v) if money else (lambda v: 1.0 - v)
        if not resigner_on_roll:                    # the values were the acceptor's
            play, resign = other(play), other(resign)
        state = GameState(m.position, m.state)
        level = ("a single game", "a gammon", "a backgammon")[a.level - 1]
        lost = max(0.0, play - resign) * self.emg_scale(m.state, a.player)
        accept_lost = max(0.0, resign - play) * self.emg_scale(m.state, 1 - a.player)
        return (Decision(m.game + 1, m.number, a.player, "resign", f"resign {level}",
                         "play on" if play > resign else f"resign {level}", state, resign,
                         max(play, resign), lost, False),
                Decision(m.game + 1, m.number, 1 - a.player, "accept", "accept",
                         "reject" if resign > play else "accept", state, other(resign),
                         max(other(resign), other(play)), accept_lost, False))


def _play_text(d1: int, d2: int, move: Move) -> str:
    return f"{max(d1, d2)}{min(d1, d2)}: {move.notation or '(no play)'}"


def _decisions(record: MatchRecord, analyst: _Analyst,
               progress: Callable[[int, int], None] | None) -> Iterable[Decision]:
    moments = list(replay(record))
    previous = None
    cube: CubeDecision | None = None
    first = True
    for k, m in enumerate(moments):
        a = m.action
        if previous is None or previous.game != m.game:
            first = True
        if isinstance(a, Play):
            took_before = previous is not None and previous.game == m.game and \
                isinstance(previous.action, Take)
            may_double = analyst.engine.can_double(m.state, a.player)
            if not first and not took_before and may_double:
                yield analyst.cube_decision(m, analyst.cube(m), doubled=False)
            yield analyst.play(m, first)
            first = False
        elif isinstance(a, Double):
            cube = analyst.cube(m)
            yield analyst.cube_decision(m, cube, doubled=True)
        elif isinstance(a, (Take, Drop)) and cube is not None:
            yield analyst.answer(m, cube, isinstance(a, Take))
        elif isinstance(a, Resign):
            yield from analyst.resignation(m)
        previous = m
        if progress is not None:
            progress(k + 1, len(moments))


def analyse_match(record: MatchRecord, engine: Engine, plies: int | None = None, *,
                  progress: Callable[[int, int], None] | None = None) -> MatchAnalysis:
    """Analyse every play and cube decision of ``record`` at ``plies`` (default: the
    engine's depth); ``progress(done, total)`` is told after each action.

    Raises :class:`bgengine.matchfiles.record.MatchRecordError` if the record breaks the rules,
    ``ValueError`` without a network to evaluate with.
    """
    if engine.network is None:
        raise ValueError("analysis needs a network; none is loaded")
    plies = engine.plies if plies is None else plies
    if plies > engine.max_plies or plies < 0:
        raise ValueError(f"plies must be 0..{engine.max_plies}, got {plies}")
    if plies > engine.plies:
        engine = Engine(engine.player, engine.network, plies=plies, jacoby=engine.jacoby,
                        met=engine.met)
    decisions = tuple(_decisions(record, _Analyst(engine, plies), progress))
    totals = (_Totals(record.players[0]), _Totals(record.players[1]))
    for d in decisions:
        totals[d.player].add(d)
    return MatchAnalysis(record, plies, decisions, (totals[0].summary(), totals[1].summary()))
