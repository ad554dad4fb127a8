# bgengine's driver for GNU Backgammon: runs *inside* gnubg as
# ``gnubg -t -q -r -p gnubg_driver.py`` (started by bgengine.opponents.gnubg, not by hand).
#
# Protocol, one line each way, on stdin/stdout.  BOARD is 50 numbers, gnubg's
# TanBoard: 25 for the side not on roll, then 25 for the side on roll (points
# 1..24 in each side's own numbering, then its bar); the same layout as
# bgengine's (2, 25) boards, row 0 first.
#
#   request  ``m ID PLIES PRUNE D1 D2 BOARD``  a cubeless money play.
#   reply    ``@@ok ID F1 T1 F2 T2 ...``  gnubg's chosen play as single-die
#            steps (points 1..24, 25 = bar, 0 = off); nothing after the ID when
#            there is no legal play.
#
# With the cube, STATE is ``CUBE OWNER LENGTH SCORE0 SCORE1 CRAWFORD JACOBY`` in
# gnubg's numbering of the players, where player 1 is the side on roll (row 1 of
# BOARD) and player 0 the other: CUBE the cube's value (a power of two), OWNER -1
# (centred), 1 (the side on roll) or 0 (the other), LENGTH the match length (0:
# money), SCORE0 and SCORE1 the players' scores (0 0 in money play), CRAWFORD 1
# in the Crawford game, JACOBY 1 for the Jacoby rule (money play only).  Beavers
# are off; the match equity table is gnubg's default, Kazaross-XG2.
#
#   request  ``p ID PLIES PRUNE D1 D2 STATE BOARD``  a play with the cube at that
#            state, chosen cubefully (money equity, or match-winning chances).
#   reply    as for ``m``.
#   request  ``d ID PLIES PRUNE STATE BOARD``  the side on roll, before rolling:
#            does it double?  Decided as gnubg's own player decides (play.c,
#            ComputerTurn): no access to the cube -> no; a cubeless evaluation one
#            ply shallower below the dead-cube double point ("market window")
#            -> no; else gnubg's cube analysis at PLIES (cubeful): double for
#            double/take, double/pass (also redoubles, double/beaver), roll for no
#            double and too good; an optional double at 0-ply when its win chance
#            exceeds 0.001.
#   reply    ``@@ok ID double`` or ``@@ok ID roll``.
#   request  ``t ID PLIES PRUNE STATE BOARD``  the side on roll (the doubler, row 1)
#            has doubled from the cube in STATE: does the other side take?  gnubg's
#            cube analysis of the doubler's position: pass for */pass, else take
#            (with beavers off, a beaver is a take).
#   reply    ``@@ok ID take`` or ``@@ok ID pass``.
#
#   request  ``q``  exit.
# ID is the request's, so that a reply to an abandoned request is never taken
# for the answer to a later one.  Any reply line starts with ``@@`` (``@@ready
# ...`` once after start-up, ``@@error ID ...`` for a request that could not be
# served); gnubg's own output (settings messages) may come in between and is
# ignored by the reader.
#
# Every setting that matters is set here or passed with each call (board,
# dice, cube, evaluation context, move filters), so gnubg's preference files
# cannot change a result: no noise, deterministic evaluation, gnubg's "Normal"
# move filters, beavers off, the Kazaross-XG2 table; ``m`` is cubeless money
# play without the Jacoby rule.
import math
import sys

import gnubg

for cmd in ("set threads 1", "set jacoby off", "set beavers 0", "set cube use off",
            "set display off", "set rng mersenne", "set seed 1"):
    gnubg.command(cmd)

# cube value 1, centred, player 1 on move, money (match length 0), score 0-0,
# not Crawford, standard variant; Jacoby is off (set above) so gammons count.
CUBE = gnubg.cubeinfo(1, -1, 1, 0, (0, 0), 0, 0)
if CUBE["jacoby"] != 0 or CUBE["gammonprice"] != ((1.0, 1.0), (1.0, 1.0)):
    print("@@error cube settings not as required: %r" % (CUBE,), flush=True)
    sys.exit(1)

# gnubg's default match equity table, Kazaross-XG2 (bgengine ships the same
# table); checked at start, since a settings file could have changed it.
MET_LENGTH = 64                            # gnubg's longest match (MAXSCORE)
PRE, POST0, POST1 = gnubg.met(MET_LENGTH)
if abs(PRE[0][1] - 0.6774) > 1e-4 or abs(PRE[1][2] - 0.59947) > 1e-4 or abs(POST0[1] - 0.48803) > 1e-5:
    print("@@error the match equity table is not Kazaross-XG2 (1-away 2-away %.5f, 2-away "
          "3-away %.5f)" % (PRE[0][1], PRE[1][2]), flush=True)
    sys.exit(1)

# gnubg's default ("Normal") chequer-play move filters, given explicitly.
FILTERS = []
for ply in (1, 2, 3, 4):
    for level, (accept, extra, threshold) in enumerate(
            [(0, 8, 0.16), (-1, 0, 0.0), (0, 2, 0.04), (-1, 0, 0.0)][:ply]):
        FILTERS.append({"ply": ply, "level": level, "acceptmoves": accept,
                        "extramoves": extra, "threshold": threshold})

# gnubg's cube decisions (eval.h, ``cubedecision``) as returned by cfevaluate
DOUBLE_TAKE, DOUBLE_PASS, NODOUBLE_TAKE, TOOGOOD_TAKE, TOOGOOD_PASS = 0, 1, 2, 3, 4
DOUBLE_BEAVER, NODOUBLE_BEAVER, REDOUBLE_TAKE, REDOUBLE_PASS, NO_REDOUBLE_TAKE = 5, 6, 7, 8, 9
TOOGOODRE_TAKE, TOOGOODRE_PASS, NO_REDOUBLE_BEAVER, NODOUBLE_DEADCUBE = 10, 11, 12, 13
NO_REDOUBLE_DEADCUBE, NOT_AVAILABLE, OPTIONAL_DOUBLE_TAKE, OPTIONAL_REDOUBLE_TAKE = 14, 15, 16, 17
OPTIONAL_DOUBLE_BEAVER, OPTIONAL_DOUBLE_PASS, OPTIONAL_REDOUBLE_PASS = 18, 19, 20
# what gnubg's own player does with each (play.c, ComputerTurn)
DOUBLES = {DOUBLE_TAKE, REDOUBLE_TAKE, DOUBLE_PASS, REDOUBLE_PASS, DOUBLE_BEAVER}
OPTIONAL = {OPTIONAL_DOUBLE_BEAVER, OPTIONAL_DOUBLE_TAKE, OPTIONAL_REDOUBLE_TAKE,
            OPTIONAL_DOUBLE_PASS, OPTIONAL_REDOUBLE_PASS}
PASSES = {DOUBLE_PASS, TOOGOOD_PASS, REDOUBLE_PASS, TOOGOODRE_PASS, OPTIONAL_DOUBLE_PASS,
          OPTIONAL_REDOUBLE_PASS}
TAKES = {DOUBLE_TAKE, NODOUBLE_TAKE, TOOGOOD_TAKE, REDOUBLE_TAKE, NO_REDOUBLE_TAKE,
         TOOGOODRE_TAKE, NODOUBLE_DEADCUBE, NO_REDOUBLE_DEADCUBE, OPTIONAL_DOUBLE_TAKE,
         OPTIONAL_REDOUBLE_TAKE,
         # beavers are off: a beaver is a take
         DOUBLE_BEAVER, NODOUBLE_BEAVER, NO_REDOUBLE_BEAVER, OPTIONAL_DOUBLE_BEAVER}

_contexts = {}


def context(plies, prune, cubeful=0):
    key = (plies, prune, cubeful)
    if key not in _contexts:
        _contexts[key] = {"cubeful": cubeful, "plies": plies, "deterministic": 1, "prune": prune,
                          "noise": 0.0}
    return _contexts[key]


class State:
    """The cube and score of a request (player 1 on roll), checked."""

    def __init__(self, nums):
        (self.cube, self.owner, self.length, self.score0, self.score1, self.crawford,
         self.jacoby) = nums
        c, n = self.cube, self.length
        if c < 1 or c & (c - 1) or c > 4096:
            raise ValueError("cube %d is not a power of two up to 4096" % c)
        if self.owner not in (-1, 0, 1):
            raise ValueError("cube owner %d is not -1, 0 or 1" % self.owner)
        if self.crawford not in (0, 1) or self.jacoby not in (0, 1):
            raise ValueError("Crawford and Jacoby flags must be 0 or 1")
        if n == 0:
            if self.score0 or self.score1 or self.crawford:
                raise ValueError("money play has no score and no Crawford game")
        else:
            if not (0 < n <= MET_LENGTH and 0 <= self.score0 < n and 0 <= self.score1 < n):
                raise ValueError("score %d-%d is not a score of a %d-point match"
                                 % (self.score0, self.score1, n))
            if self.jacoby:
                raise ValueError("the Jacoby rule is a rule of money play")
            if self.crawford and n - 1 not in (self.score0, self.score1):
                raise ValueError("the Crawford game needs a side 1-away")
        info = gnubg.cubeinfo(c, self.owner, 1, n, (self.score0, self.score1), self.crawford, 0)
        info["jacoby"] = self.jacoby
        info["beavers"] = 0
        self.info = gnubg.calcgammonprice(info)

    def may_double(self):
        """gnubg's GetDPEq for player 1: it has access to the cube and the cube is alive."""
        if self.owner == 0:
            return False
        if self.length == 0:
            return True
        post = not self.crawford and self.length - 1 in (self.score0, self.score1)
        return (not self.crawford and self.score1 + self.cube < self.length
                and not (post and self.score1 == self.length - 1))

    def equity(self, points):
        """Player 1's match-winning chance once the game ends with ``points`` to it (a
        negative number: to player 0); gnubg's getMEMultiple."""
        a1 = self.length - self.score1 - 1 - max(points, 0)
        a0 = self.length - self.score0 - 1 - max(-points, 0)
        if a1 < 0:
            return 1.0
        if a0 < 0:
            return 0.0
        if self.crawford or self.length - self.score0 == 1 or self.length - self.score1 == 1:
            return POST1[a1] if a0 == 0 else 1.0 - POST0[a0]
        return 1.0 - PRE[a0][a1]

    def dead_double_point(self, p):
        """gnubg's GetDoublePointDeadCube for player 1 from cubeless outputs ``p``."""
        win, wg, wbg, lg, lbg = p[:5]
        if self.length == 0:
            rw = 1.0 + (wg + wbg) / win if win > 0.0 else 1.0
            rl = 1.0 + (lg + lbg) / (1.0 - win) if win < 1.0 else 1.0
            if self.owner == -1 and self.jacoby:
                return ratio(rl - 0.5, rw + rl - 1.0)          # beavers off
            return ratio(rl, rl + rw)
        g1, b1 = ((wg - wbg) / win, wbg / win) if win > 0.0 else (0.0, 0.0)
        g2, b2 = ((lg - lbg) / (1.0 - win), lbg / (1.0 - win)) if win < 1.0 else (0.0, 0.0)
        c, me = self.cube, self.equity
        dtw = (1.0 - g1 - b1) * me(2 * c) + g1 * me(4 * c) + b1 * me(6 * c)
        ndw = (1.0 - g1 - b1) * me(c) + g1 * me(2 * c) + b1 * me(3 * c)
        dtl = (1.0 - g2 - b2) * me(-2 * c) + g2 * me(-4 * c) + b2 * me(-6 * c)
        ndl = (1.0 - g2 - b2) * me(-c) + g2 * me(-2 * c) + b2 * me(-3 * c)
        risk, gain = ndl - dtl, dtw - ndw
        return ratio(risk, risk + gain)


def ratio(a, b):
    """a / b as C's floats have it (0 / 0 is NaN, which no win chance reaches)."""
    if b == 0.0:
        return math.nan if a == 0.0 else math.copysign(math.inf, a)
    return a / b


def board_of(nums):
    if len(nums) != 50:
        raise ValueError("a board is 50 numbers, got %d" % len(nums))
    return (nums[:25], nums[25:])


def double(plies, prune, state, board):
    if not state.may_double():
        return "roll"
    shallow = context(plies - 1 if plies else 0, prune)     # cubeless, one ply shallower
    p = gnubg.evaluate(board, state.info, shallow)
    if not p[0] >= state.dead_double_point(p):
        return "roll"                                       # outside the market window
    cp = gnubg.cfevaluate(board, state.info, context(plies, prune, 1))[4]
    if cp in DOUBLES or (cp in OPTIONAL and plies == 0 and p[0] > 0.001):
        return "double"
    return "roll"


def take(plies, prune, state, board):
    equities = gnubg.cfevaluate(board, state.info, context(plies, prune, 1))
    cp = equities[4]
    if cp in PASSES:
        return "pass"
    if cp in TAKES:
        return "take"
    # the doubler had no access to the cube (gnubg's player is never asked then):
    # take when double/take is no better for the doubler than double/pass
    return "take" if equities[2] <= equities[3] else "pass"


def serve(parts):
    kind = parts[0]
    nums = [int(x) for x in parts[2:]]
    if kind == "m":
        if len(nums) != 54:
            raise ValueError("bad request")
        plies, prune, d1, d2 = nums[:4]
        move = gnubg.findbestmove(board_of(nums[4:]), CUBE, context(plies, prune), (d1, d2),
                                  FILTERS)
        return " ".join(str(x) for x in move)
    if kind == "p":
        if len(nums) != 61:
            raise ValueError("bad request")
        plies, prune, d1, d2 = nums[:4]
        state = State(nums[4:11])
        move = gnubg.findbestmove(board_of(nums[11:]), state.info, context(plies, prune, 1),
                                  (d1, d2), FILTERS)
        return " ".join(str(x) for x in move)
    if kind in ("d", "t"):
        if len(nums) != 59:
            raise ValueError("bad request")
        plies, prune = nums[:2]
        state = State(nums[2:9])
        return (double if kind == "d" else take)(plies, prune, state, board_of(nums[9:]))
    raise ValueError("bad request")


print("@@ready gnubg driver 2", flush=True)
for line in sys.stdin:
    parts = line.split()
    if not parts:
        continue
    if parts[0] == "q":
        break
    ident = parts[1] if len(parts) > 1 else "-"
    try:
        print("@@ok %s %s" % (ident, serve(parts)), flush=True)
    except Exception as exc:  # report, keep serving
        print("@@error %s %s: %s" % (ident, type(exc).__name__, str(exc).replace("\n", " ")),
              flush=True)
