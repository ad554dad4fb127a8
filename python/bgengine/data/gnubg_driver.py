# bgengine's driver for GNU Backgammon: runs *inside* gnubg as
# ``gnubg -t -q -r -p gnubg_driver.py`` (started by bgengine.gnubg, not by hand).
#
# Protocol, one line each way, on stdin/stdout:
#   request  ``m ID PLIES PRUNE D1 D2 B0 ... B49``  board as gnubg's TanBoard:
#            25 numbers for the side not on roll, then 25 for the side on roll
#            (points 1..24 in each side's own numbering, then its bar); the
#            same layout as bgengine's (2, 25) boards, row 0 first.
#   reply    ``@@ok ID F1 T1 F2 T2 ...``  gnubg's chosen play as single-die
#            steps (points 1..24, 25 = bar, 0 = off); nothing after the ID when
#            there is no legal play.  ID is the request's, so that a reply to
#            an abandoned request is never taken for the answer to a later one.
#   request  ``q``  exit.
# Any reply line starts with ``@@`` (``@@ready ...`` once after start-up,
# ``@@error ID ...`` for a request that could not be served); gnubg's own
# output (settings messages) may come in between and is ignored by the reader.
#
# Every setting that matters is set here or passed with each call (board,
# dice, cube, evaluation context, move filters), so gnubg's preference files
# cannot change a result: cubeless money play, no Jacoby rule, no noise,
# deterministic evaluation, gnubg's "Normal" move filters.
import sys

import gnubg

for cmd in ("set threads 1", "set jacoby off", "set cube use off", "set display off",
            "set rng mersenne", "set seed 1"):
    gnubg.command(cmd)

# cube value 1, centred, player 1 on move, money (match length 0), score 0-0,
# not Crawford, standard variant; Jacoby is off (set above) so gammons count.
CUBE = gnubg.cubeinfo(1, -1, 1, 0, (0, 0), 0, 0)
if CUBE["jacoby"] != 0 or CUBE["gammonprice"] != ((1.0, 1.0), (1.0, 1.0)):
    print("@@error cube settings not as required: %r" % (CUBE,), flush=True)
    sys.exit(1)

# gnubg's default ("Normal") chequer-play move filters, given explicitly.
FILTERS = []
for ply in (1, 2, 3, 4):
    for level, (accept, extra, threshold) in enumerate(
            [(0, 8, 0.16), (-1, 0, 0.0), (0, 2, 0.04), (-1, 0, 0.0)][:ply]):
        FILTERS.append({"ply": ply, "level": level, "acceptmoves": accept,
                        "extramoves": extra, "threshold": threshold})

_contexts = {}


def context(plies, prune):
    key = (plies, prune)
    if key not in _contexts:
        _contexts[key] = {"cubeful": 0, "plies": plies, "deterministic": 1, "prune": prune,
                          "noise": 0.0}
    return _contexts[key]


print("@@ready gnubg driver 1", flush=True)
for line in sys.stdin:
    parts = line.split()
    if not parts:
        continue
    if parts[0] == "q":
        break
    ident = parts[1] if len(parts) > 1 else "-"
    try:
        if parts[0] != "m" or len(parts) != 56:
            raise ValueError("bad request")
        nums = [int(x) for x in parts[2:]]
        plies, prune, d1, d2 = nums[:4]
        board = (nums[4:29], nums[29:54])
        move = gnubg.findbestmove(board, CUBE, context(plies, prune), (d1, d2), FILTERS)
        print("@@ok %s %s" % (ident, " ".join(str(x) for x in move)), flush=True)
    except Exception as exc:  # report, keep serving
        print("@@error %s %s: %s" % (ident, type(exc).__name__, str(exc).replace("\n", " ")),
              flush=True)
