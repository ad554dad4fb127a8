"""The doubling cube: a match equity table and a Janowski-style cube-life model.

Cube decisions are made from a network's *cubeless* probabilities (win, win
gammon, win backgammon, lose gammon, lose backgammon, for the side on roll
before it rolls), turned into *cubeful* values with Janowski's model (R.
Janowski, "Take-points in money games", 1993): the cubeful value is a blend

    cubeful = x * live(p) + (1 - x) * dead

of the dead-cube value (the cube is never turned again: the plain expectation
over the six outcomes) and the fully-live value, where the side that can double
does so at exactly its opponent's take point.  The fully-live value is a
piecewise-linear function of the win chance ``p``, through

* ``(0, L)``: losing, with this position's gammon and backgammon rates;
* ``(T, drop)``: the side's take point when the opponent can double (below it
  the opponent cashes);
* ``(C, cash)``: the side's cash point when it can double (above it it cashes);
* ``(1, W)``: winning, with the gammon and backgammon rates.

In money play the values are points per cube and ``T``, ``C`` have Janowski's
closed forms.  In a match the values are match-winning chances from the match
equity table, and the take and cash points come from the same lines one cube
level up, recursively, until the cube is dead (a win at the cube already wins
the match) -- the approach of gnubg's match cube, without its refinements.
``x`` is the cube efficiency (:mod:`bgengine.decisions.efficiency`): gnubg's
defaults, 0.68 in contact positions and in a race ``0.55 + 0.00125 * pips`` of the side
on roll clipped to 0.6..0.7, or one per position class carried by the evaluator file.

The decision then compares no double (``nd``), double/take (``dt``) and
double/pass (``dp``), all from the doubler's side: double when
``min(dt, dp) > nd``; the opponent takes when ``dt <= dp``.

The match equity table is Kazaross-XG2 (Neil Kazaross, 2011: eXtreme Gammon
rollouts to 9 points, gnubg rollouts to 15, extended to 25 points), gnubg's
default table, made from gnubg's copy by ``lab/make_met.py``.  It covers
matches of up to 25 points; :meth:`MatchEquityTable.extended` extends it the way
gnubg 1.07 does (``ExtendMET`` in gnubg's ``matchequity.c``), to gnubg's longest
match, 64 points: David Montgomery's normal approximation for every pre-Crawford
entry with a side more than 25 away, and a gammon-rate recurrence for the
post-Crawford row.  :func:`gnubg_met` is that 64-point table, the one the server
uses, equal to gnubg's own to within its float rounding.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from bgengine._checks import is_int
from bgengine.core.fileio import MAX_TEXT_BYTES, NotARegularFile, read_regular
from bgengine.decisions.efficiency import (CONTACT_EFFICIENCY, GNUBG_EFFICIENCY, CubeEfficiency,
                                           cube_efficiencies, cube_efficiency)

__all__ = ["MatchEquityTable", "CubeInfo", "CubeDecision", "CubeEfficiency", "GNUBG_EFFICIENCY",
           "cube_efficiency", "cube_efficiencies",
           "cubeful_value", "cubeful_values", "score_table",
           "cube_decision", "decision_of_values", "take_point", "default_met", "gnubg_met", "MAX_CUBE",
           "MET_MAX_LENGTH"]

#: Highest cube value considered (gnubg's Match ID stores log2(cube) in 4 bits).
MAX_CUBE = 1 << 15
#: Money-play recursion depth for take and cash points (converges to Janowski's closed form).
_MONEY_LEVELS = 12
#: gnubg's longest match (``MAXSCORE``), the length :func:`gnubg_met` covers, in points.
MET_MAX_LENGTH = 64
#: Montgomery's standard deviation of one game's result in points, by points away
#: (gnubg's ``arStddevTable``; 1.77 from 11 away on).
_GAME_STDDEV = (1.24, 1.27, 1.47, 1.50, 1.60, 1.61, 1.66, 1.68, 1.70, 1.72)
#: Gammon rate of the post-Crawford extension (gnubg's ``GAMMONRATE``).
_POST_CRAWFORD_GAMMONS = 0.25


@dataclass(frozen=True)
class MatchEquityTable:
    """Match-winning chances before a game starts, by points still needed.

    ``pre[i][j]``: chance that the side ``i + 1`` away beats the side ``j + 1``
    away, pre-Crawford (when one side is 1-away, that game is the Crawford
    game).  ``post[i]``: chance that the side ``i + 1`` away beats a 1-away
    side after the Crawford game.
    """

    name: str
    source: str
    pre: tuple[tuple[float, ...], ...]
    post: tuple[float, ...]

    @property
    def length(self) -> int:
        return len(self.pre)

    @classmethod
    def load(cls, path: str | Path) -> MatchEquityTable:
        """Read a table written by ``lab/make_met.py``; ``ValueError`` if it is malformed."""
        try:
            doc = json.loads(read_regular(path, "match equity table", MAX_TEXT_BYTES))
            pre = tuple(tuple(float(v) for v in row) for row in doc["pre_crawford"])
            post = tuple(float(v) for v in doc["post_crawford"])
            name, source = str(doc["name"]), str(doc.get("source", ""))
        except NotARegularFile:
            raise                   # its own message names the file
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"cannot read match equity table {path}: {exc}") from exc
        n = len(pre)
        if n < 1 or any(len(r) != n for r in pre) or len(post) != n:
            raise ValueError(f"match equity table {path}: expected a square table and a row of {n}")
        arr = np.array(pre)
        if not (np.all((arr >= 0) & (arr <= 1)) and np.allclose(arr + arr.T, 1.0, atol=1e-6)):
            raise ValueError(f"match equity table {path}: entries must be in 0..1 and pre[i][j] + pre[j][i] == 1")
        return cls(name=name, source=source, pre=pre, post=post)

    def __call__(self, away: int, opp_away: int, post_crawford: bool = False) -> float:
        """Chance that the side ``away`` points from victory wins the match.

        ``away <= 0`` is a won match, ``opp_away <= 0`` a lost one.
        ``post_crawford``: the Crawford game has been played (matters only when
        one side is 1-away).
        """
        if away <= 0:
            return 1.0
        if opp_away <= 0:
            return 0.0
        n = self.length
        if away > n or opp_away > n:
            raise ValueError(f"the match equity table {self.name!r} covers scores up to {n} away, "
                             f"got {away}-away against {opp_away}-away")
        if post_crawford and opp_away == 1 and away > 1:
            return self.post[away - 1]
        if post_crawford and away == 1 and opp_away > 1:
            return 1.0 - self.post[opp_away - 1]
        return self.pre[away - 1][opp_away - 1]

    def extended(self, length: int = MET_MAX_LENGTH) -> MatchEquityTable:
        """This table extended to ``length`` points as gnubg 1.07 extends its tables.

        Pre-Crawford: every entry with a side more than ``self.length`` away is
        David Montgomery's normal approximation (gnubg's ``ExtendMET``), which
        uses no entry of the table: the trailer, ``a`` away against ``b <= a``,
        wins with probability ``P(X > a - b)``, ``X`` normal with mean 0 and
        standard deviation ``sqrt(s(a)**2 + s(b)**2) * sqrt((a + b) / 2)``
        points, ``s(n)`` the per-game deviation at ``n`` away (1.24 at 1 away
        to 1.77 from 11 away on).  Post-Crawford, from ``self.length`` away on
        (gnubg recomputes that last native entry too: it never occurs in a
        match of the table's own length): the trailer doubles at once and wins
        half the games, a quarter of them gammons,
        ``post(n) = 0.5 * (0.25 * post(n - 4) + 0.75 * post(n - 2))``.
        Entries of the native table are kept; a table at least ``length``
        long is returned unchanged.  ``length``: a Python or numpy integer.
        """
        n = self.length
        if not is_int(length) or length < 1:
            raise ValueError(f"length must be a whole number of points >= 1, got {length!r}")
        length = int(length)
        if length <= n:
            return self
        pre = [list(row) + [0.0] * (length - n) for row in self.pre]
        pre += [[0.0] * length for _ in range(length - n)]
        for i in range(length):
            for j in range(length):
                if max(i, j) >= n:
                    pre[i][j] = _montgomery(i + 1, j + 1)
        post = list(self.post[:n - 1]) + [0.0] * (length - n + 1)
        g = _POST_CRAWFORD_GAMMONS
        for i in range(n - 1, length):
            four = post[i - 4] if i >= 4 else 1.0      # a gammon at a 2-cube wins the match
            two = post[i - 2] if i >= 2 else 1.0
            post[i] = 0.5 * (g * four + (1.0 - g) * two)
        return MatchEquityTable(
            name=f"{self.name}, extended to {length} points",
            source=f"{self.source}; extended beyond {n} points as gnubg does (Montgomery's "
                   "normal approximation; post-Crawford gammon-rate recurrence)",
            pre=tuple(tuple(row) for row in pre), post=tuple(post))


def _montgomery(away: int, opp_away: int) -> float:
    """Montgomery's normal approximation: the chance that the side ``away`` points
    from victory beats the side ``opp_away`` away (both >= 1)."""
    s0 = _GAME_STDDEV[away - 1] if away <= len(_GAME_STDDEV) else 1.77
    s1 = _GAME_STDDEV[opp_away - 1] if opp_away <= len(_GAME_STDDEV) else 1.77
    sigma = math.sqrt(s0 * s0 + s1 * s1) * math.sqrt((away + opp_away) / 2.0)
    # P(X > away - opp_away); gnubg cuts the tail at 6 sigma (a difference below 1e-9)
    return 0.5 * math.erfc((away - opp_away) / (sigma * math.sqrt(2.0)))


@lru_cache(maxsize=1)
def default_met() -> MatchEquityTable:
    """The shipped Kazaross-XG2 table (25 points)."""
    return MatchEquityTable.load(Path(str(resources.files("bgengine").joinpath("data", "met_kazaross_xg2.json"))))


@lru_cache(maxsize=1)
def gnubg_met() -> MatchEquityTable:
    """Kazaross-XG2 extended to 64 points as gnubg 1.07 extends it: every match gnubg
    can play (:meth:`MatchEquityTable.extended`)."""
    return default_met().extended(MET_MAX_LENGTH)


@dataclass(frozen=True)
class CubeInfo:
    """The cube and the score, seen from the side on roll.

    ``away == 0`` is money play (then ``opp_away`` is 0 too).  ``owner``:
    ``"centre"``, ``"me"`` (the side on roll) or ``"opponent"``.
    ``crawford``: this game is the Crawford game (nobody may double);
    ``post_crawford``: the Crawford game has been played.  ``jacoby``: money
    play with the Jacoby rule (gammons count only once the cube is turned); ``beavers``:
    money play where the taker may beaver (redouble at once, keeping the cube).
    """

    cube: int = 1
    owner: str = "centre"
    away: int = 0
    opp_away: int = 0
    crawford: bool = False
    post_crawford: bool = False
    jacoby: bool = False
    beavers: bool = False

    def __post_init__(self) -> None:
        c = self.cube
        if not is_int(c) or c < 1 or c > MAX_CUBE or c & (c - 1):
            raise ValueError(f"cube must be a power of two from 1 to {MAX_CUBE}, got {c!r}")
        if self.owner not in ("centre", "me", "opponent"):
            raise ValueError(f"owner must be 'centre', 'me' or 'opponent', got {self.owner!r}")
        if (self.away == 0) != (self.opp_away == 0) or self.away < 0 or self.opp_away < 0:
            raise ValueError(f"away and opp_away must both be 0 (money) or both positive, "
                             f"got {self.away} and {self.opp_away}")
        if self.is_money and (self.crawford or self.post_crawford):
            raise ValueError("there is no Crawford game in money play")
        if self.beavers and not self.is_money:
            raise ValueError("beavers are a rule of money play, not of a match")
        if self.crawford and 1 not in (self.away, self.opp_away):
            raise ValueError("the Crawford game needs one side 1-away")

    @property
    def is_money(self) -> bool:
        return self.away == 0

    @classmethod
    def from_match_state(cls, state, side: int | None = None) -> CubeInfo:
        """From a :class:`bgengine.notation.ids.MatchState`, seen from ``side`` (default: the player on roll)."""
        side = state.player_on_roll if side is None else side
        owner = "centre" if state.cube_owner == -1 else ("me" if state.cube_owner == side else "opponent")
        if state.match_length == 0:
            return cls(cube=state.cube, owner=owner, jacoby=bool(state.jacoby))
        away = state.match_length - state.score[side]
        opp_away = state.match_length - state.score[1 - side]
        post = not state.crawford and 1 in (away, opp_away) and (away, opp_away) != (1, 1)
        return cls(cube=state.cube, owner=owner, away=away, opp_away=opp_away,
                   crawford=bool(state.crawford), post_crawford=post)

    def swapped(self) -> CubeInfo:
        """The same cube seen from the other side."""
        owner = {"centre": "centre", "me": "opponent", "opponent": "me"}[self.owner]
        return replace(self, owner=owner, away=self.opp_away, opp_away=self.away)

    def can_double(self) -> bool:
        """The side on roll has access to the cube and doubling can matter."""
        if self.owner == "opponent" or self.crawford or self.cube >= MAX_CUBE:
            return False
        return self.is_money or self.away > self.cube   # else a win at this cube already wins


# ---------------------------------------------------------------- the model

class _Sides:
    """Outcome values and gammon rates for both sides of one evaluation.

    ``value(s, points)``: what side ``s`` (0 = on roll, 1 = opponent) getting
    ``points`` (negative: losing them) is worth to it -- points / cube in
    money play, a match-winning chance in a match.  ``mix[s]`` are side s's
    conditional (single, gammon, backgammon) rates given it wins.
    """

    def __init__(self, probs, info: CubeInfo, met: MatchEquityTable,
                 values: dict[tuple[int, int], float] | None = None) -> None:
        win, wg, wbg, lg, lbg = (float(v) for v in probs)
        win = min(max(win, 0.0), 1.0)
        lose = 1.0 - win
        wg, lg = min(max(wg, 0.0), win), min(max(lg, 0.0), lose)
        wbg, lbg = min(max(wbg, 0.0), wg), min(max(lbg, 0.0), lg)
        self.p = win

        def mix(w, g, b):
            return (1.0, 0.0, 0.0) if w <= 0 else ((w - g) / w, (g - b) / w, b / w)

        self.mix = (mix(win, wg, wbg), mix(lose, lg, lbg))
        self.info, self.met = info, met
        self.aways = (info.away, info.opp_away)
        self._take_points: dict[tuple[int, int], float] = {}
        # value(s, points) depends on the cube and score only: shareable between
        # evaluations with the same ``info`` and ``met`` (see cubeful_values)
        self._values = {} if values is None else values

    def value(self, s: int, points: int) -> float:
        try:
            return self._values[s, points]
        except KeyError:
            v = self._values[s, points] = self._value(s, points)
            return v

    def _value(self, s: int, points: int) -> float:
        if self.info.is_money:
            return points / self.info.cube
        me, opp = self.aways[s], self.aways[1 - s]
        post = self.info.post_crawford or self.info.crawford
        if points > 0:
            return self.met(me - points, opp, post)
        return self.met(me, opp + points, post)

    def win_value(self, s: int, cube: int, gammons: bool = True) -> float:
        """Side s's value of winning the game at ``cube`` (rates of this position)."""
        m = self.mix[s] if gammons else (1.0, 0.0, 0.0)
        value = self.value
        return sum([f * value(s, k * cube) for k, f in zip((1, 2, 3), m) if f > 0])

    def lose_value(self, s: int, cube: int, gammons: bool = True) -> float:
        m = self.mix[1 - s] if gammons else (1.0, 0.0, 0.0)
        value = self.value
        return sum([f * value(s, -k * cube) for k, f in zip((1, 2, 3), m) if f > 0])

    def live(self, s: int, cube: int) -> bool:
        """Side s could usefully double (or redouble) from ``cube``."""
        if self.info.crawford or cube >= MAX_CUBE:
            return False
        if self.info.is_money:
            return cube < self.info.cube << _MONEY_LEVELS
        return self.aways[s] > cube

    def take_point(self, s: int, cube: int) -> float:
        """Side s's live-cube take point when doubled from ``cube`` to ``2 cube``
        (it then owns the cube): the win chance where taking equals passing."""
        key = (s, cube)
        if key not in self._take_points:
            owned = self._line(s, 2 * cube, can_double=self.live(s, 2 * cube), opp_can_double=False)
            self._take_points[key] = _solve(owned, self.value(s, -cube))
        return self._take_points[key]

    def cash_point(self, s: int, cube: int) -> float:
        """Side s's cash point when it doubles from ``cube``: one minus the opponent's take point."""
        return 1.0 - self.take_point(1 - s, cube)

    def _line(self, s: int, cube: int, can_double: bool, opp_can_double: bool,
              gammons: bool = True) -> list[tuple[float, float]]:
        pts = [(0.0, self.lose_value(s, cube, gammons))]
        if opp_can_double:
            pts.append((self.take_point(s, cube), self.value(s, -cube)))
        if can_double:
            pts.append((self.cash_point(s, cube), self.value(s, cube)))
        pts.append((1.0, self.win_value(s, cube, gammons)))
        # keep the break points in order (degenerate gammon rates can cross them)
        out = [pts[0]]
        for x, y in pts[1:]:
            out.append((max(x, out[-1][0]), y))
        return out

    def cubeful(self, cube: int, owner: str, x: float) -> float:
        """Cubeful value for the side on roll at ``cube`` with ``owner``."""
        info = self.info
        jacoby_dead = info.is_money and info.jacoby and owner == "centre"
        gam = not jacoby_dead
        me_can = owner != "opponent" and self.live(0, cube)
        opp_can = owner != "me" and self.live(1, cube)
        line = self._line(0, cube, me_can, opp_can, gammons=gam)
        p = self.p
        dead = p * self.win_value(0, cube, gam) + (1 - p) * self.lose_value(0, cube, gam)
        return x * _interpolate(line, p) + (1 - x) * dead


def _interpolate(line: list[tuple[float, float]], p: float) -> float:
    for (x0, y0), (x1, y1) in zip(line, line[1:]):
        if p <= x1:
            return y0 if x1 <= x0 else y0 + (y1 - y0) * (p - x0) / (x1 - x0)
    return line[-1][1]


def _solve(line: list[tuple[float, float]], target: float) -> float:
    """Smallest p with line(p) >= target (the lines are non-decreasing)."""
    if target <= line[0][1]:
        return 0.0
    for (x0, y0), (x1, y1) in zip(line, line[1:]):
        if target <= y1:
            return x0 if y1 <= y0 else x0 + (x1 - x0) * (target - y0) / (y1 - y0)
    return 1.0


def cubeful_value(probs, info: CubeInfo, x: float = CONTACT_EFFICIENCY,
                  met: MatchEquityTable | None = None) -> float:
    """Cubeful value for the side on roll (before it rolls): money equity per
    ``info.cube`` (so 1.0 is a cash), or its match-winning chance."""
    return cubeful_values([probs], info, [x], met)[0]


def cubeful_values(probs, info: CubeInfo, xs, met: MatchEquityTable | None = None) -> list[float]:
    """:func:`cubeful_value` of several evaluations with the same cube and score:
    ``probs`` ``(N, 5)``, ``xs`` ``(N,)`` cube efficiencies; the match equities they
    need are looked up once for all."""
    met = met or default_met()
    values: dict[tuple[int, int], float] = {}
    out = []
    for p, x in zip(probs, xs):
        if not 0.0 <= x <= 1.0:
            raise ValueError(f"cube efficiency must be in 0..1, got {x}")
        out.append(_Sides(p, info, met, values).cubeful(info.cube, info.owner, float(x)))
    return out


#: Cube levels a score table may hold (the compiled search's ``TABLE_LEVELS``).
_TABLE_LEVELS = 16


def score_table(info: CubeInfo, met: MatchEquityTable | None = None
                ) -> tuple[np.ndarray, np.ndarray, float]:
    """What the game's outcomes are worth at ``info``'s score, for the compiled cubeful
    search (:func:`bgengine.core.cubesearch.cube_search`): ``values`` float64 ``(2, L, 7)``,
    ``values[o, n, k + 3]`` the value to the side on roll (``o`` 0: ``info``'s side, 1: the
    other) of winning ``k`` (negative: losing ``-k``) times ``info.cube * 2**n``; ``live``
    bool ``(2, L)``, that side could usefully double from level ``n``; and the sum of the
    two sides' values (0 in money play, 1 in a match).  Money values are per ``info.cube``,
    match values match-winning chances; the same values and liveness as this model's."""
    met = met or default_met()
    even = (0.5, 0.0, 0.0, 0.0, 0.0)
    sides = (_Sides(even, info, met), _Sides(even, info.swapped(), met))
    levels = 2 if info.cube < MAX_CUBE else 1      # a double's value even where none is live
    while (levels < _TABLE_LEVELS and info.cube << levels <= MAX_CUBE
           and any(s.live(0, info.cube << (levels - 1)) for s in sides)):
        levels += 1
    values = np.zeros((2, levels, 7))
    live = np.zeros((2, levels), dtype=bool)
    for o, side in enumerate(sides):
        for n in range(levels):
            cube = info.cube << n
            live[o, n] = side.live(0, cube) and n < levels - 1
            values[o, n] = [side.value(0, k * cube) if k else 0.0 for k in range(-3, 4)]
    return values, live, (0.0 if info.is_money else 1.0)


@dataclass(frozen=True)
class CubeDecision:
    """A cube decision for the side on roll.

    ``no_double``, ``double_take``, ``double_pass``: cubeful values for the
    doubler (money: per the current cube; match: match-winning chances).
    ``double``: the side on roll should double; ``take``: the opponent should
    take a double; ``beaver``: with beavers allowed, it should beaver (its take is
    worth more than nothing to it: the doubler's value after a double is then twice
    ``double_take``).  ``action``: gnubg's wording.
    """

    no_double: float
    double_take: float
    double_pass: float
    double: bool
    take: bool
    action: str
    can_double: bool
    beaver: bool = False


def cube_decision(probs, info: CubeInfo, x: float = CONTACT_EFFICIENCY,
                  met: MatchEquityTable | None = None) -> CubeDecision:
    """Double or not, take or pass, from cubeless ``probs`` of the side on roll.

    When the side on roll cannot double (no access, Crawford game, dead
    cube) ``double`` is False and the other values describe a hypothetical
    double.
    """
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"cube efficiency must be in 0..1, got {x}")
    sides = _Sides(probs, info, met or default_met())
    c = info.cube
    nd = sides.cubeful(c, info.owner, x)
    dp = sides.value(0, c)
    if c < MAX_CUBE:
        dt = sides.cubeful(2 * c, "opponent", x)     # money: already per the current cube
    else:
        dt = dp
    return decision_of_values(nd, dt, dp, info.can_double(), info.beavers)


def decision_of_values(no_double: float, double_take: float, double_pass: float,
                       can_double: bool = True, beavers: bool = False) -> CubeDecision:
    """The cube decision the three cubeful values (the doubler's) call for, however they
    were found (the model, a cubeful rollout): double when ``min(double/take, double/pass)
    > no double`` and the side has access; take when ``double/take <= double/pass``.  With
    ``beavers`` (money play) the taker beavers where ``double/take < 0`` (the take is worth
    more than nothing to it), so that a double is worth ``2 double/take`` to the doubler
    (gnubg's rule)."""
    nd, dt, dp = float(no_double), float(double_take), float(double_pass)
    beaver = bool(beavers) and bool(can_double) and dt < 0.0
    doubled = 2.0 * dt if beaver else dt       # the doubler's value of a double taken
    take = doubled <= dp
    double = can_double and min(doubled, dp) > nd
    answer = "beaver" if beaver else ("take" if take else "pass")
    if double:
        action = f"double, {answer}"
    elif not can_double:
        action = "no access to the cube"
    elif not take and nd > dp:
        action = "too good to double, pass"
    else:
        action = f"no double, {answer}"
    return CubeDecision(no_double=nd, double_take=dt, double_pass=dp, double=bool(double),
                        take=bool(take), action=action, can_double=bool(can_double),
                        beaver=beaver)


def take_point(probs, info: CubeInfo, x: float = CONTACT_EFFICIENCY,
               met: MatchEquityTable | None = None) -> float:
    """The opponent's take point of a double now: the least winning chance (0..1) at which
    it takes, with this position's gammon and backgammon rates (as shares of the wins and
    of the losses) and cube efficiency ``x`` -- where double/take equals double/pass in
    :func:`cube_decision`. Money play without gammons: Janowski's ``0.5 / (2 + x / 2)``
    (21.4% at ``x`` = 0.68; 25% with a dead cube, 20% with a fully live one)."""
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"cube efficiency must be in 0..1, got {x}")
    met = met or default_met()
    win, wg, wbg, lg, lbg = (float(v) for v in probs)
    lose = 1.0 - win
    shares = (wg / win if win > 0 else 0.0, wbg / win if win > 0 else 0.0,
              lg / lose if lose > 0 else 0.0, lbg / lose if lose > 0 else 0.0)
    c = info.cube
    if c >= MAX_CUBE:
        return 0.0
    drop = _Sides(probs, info, met).value(0, c)
    # The shares, and so the cube's break points, are the same at every win chance q: one
    # model serves every q of the bisection (its take points computed once).
    half = _Sides((0.5, 0.5 * shares[0], 0.5 * shares[1], 0.5 * shares[2], 0.5 * shares[3]),
                  info, met)

    def take_minus_pass(q: float) -> float:       # the doubler's, at its win chance q
        half.p = q
        return half.cubeful(2 * c, "opponent", x) - drop

    lo, hi = 0.0, 1.0         # the doubler's win chance where the opponent stops taking
    if take_minus_pass(hi) <= 0:
        return 0.0
    if take_minus_pass(lo) > 0:
        return 1.0
    for _ in range(50):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if take_minus_pass(mid) <= 0 else (lo, mid)
    return 1.0 - (lo + hi) / 2
