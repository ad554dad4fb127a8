"""Golden game states from GNU Backgammon: Position IDs, Match IDs and XGIDs.

Runs *inside* gnubg's embedded Python (it needs ``import gnubg``), from the repository root::

    /usr/games/gnubg -t -q -p lab/make_state_golden.py > /dev/null

(gnubg's own chatter goes to stdout, the summary to stderr) and writes ``tests/data/gnubg/game_states.jsonl.gz`` (gzip with mtime 0; about a minute).
``STATE_GOLDEN_N`` in the environment sets the number of states (default 3000).

Each state is drawn at random (``random.Random(SEED)``): a random legal board, money play or
a match of 1 to 64 points with random scores (Crawford and post-Crawford scores included), a
cube of 1 to 2**15 with any owner, the Jacoby rule and beavers on or off in money play, either
player on roll, dice or none (given in either order), and now and then a double offered, a
resignation offered or a game not in progress.  For each one gnubg itself gives:

* ``positionid``: ``gnubg.positionid(board)`` (row 1 = the player on roll);
* ``matchid``: ``gnubg.matchid(cubeinfo, posinfo)``, gnubg's encoder fed the fields;
* ``xgid`` (states an XGID can hold and gnubg 1.07 reads: a game in progress, no resignation
  pending, no Jacoby rule in a match, a cube of at most 4096, which is gnubg's limit there): the XGID of the state, written here from the layout gnubg 1.07 reads
  (``SetXGID`` in gnubg's ``set.c``; documented in ``bgengine.state``), and *checked by gnubg*:
  ``set xgid`` must leave gnubg holding the state's own Match ID and Position ID.  gnubg's
  ``set xgid`` adapts two things, which the check allows for exactly: when the top player is on
  roll it swaps the players (the side on roll is drawn at the bottom), so the check compares
  with the state's players swapped (``xgid_check: "swapped"``); and it cannot set a pending
  double ("SetMatchID cannot handle positions where a double has been offered"): it steps back
  to before the double, so those are compared without the double (``"double stepped back"``).
  Otherwise ``xgid_check`` is ``"exact"``.  The script stops at the first disagreement.

The record also holds the fields (gnubg's names: ``cube``, ``cubeowner``, ``move``,
``turn``, ``matchto``, ``score``, ``crawford``, ``jacoby``, ``doubled``, ``resigned``,
``gamestate``, ``dice`` as given) and ``beavers``, ``maxcube`` (XGID only).
"""

import gzip
import json
import os
import random
import sys

import gnubg  # only importable inside gnubg

SEED = 20261124
N_STATES = int(os.environ.get("STATE_GOLDEN_N", 3000))
OUT = os.path.join(os.getcwd(), "tests", "data", "gnubg", "game_states.jsonl.gz")
LENGTHS = (1, 2, 3, 5, 7, 9, 11, 13, 15, 17, 21, 25, 33, 64)


# ------------------------------------------------------------------ random states

def random_row(rnd, n, taken):
    """25 counts (points 1..24 of this side, then its bar) of ``n`` checkers avoiding the
    indices in ``taken`` (points the other side holds, in this side's numbering)."""
    row = [0] * 25
    shape = rnd.random()
    if shape < 0.25:
        free = [i for i in range(6) if i not in taken] or [i for i in range(24) if i not in taken]
    elif shape < 0.5:
        free = [i for i in range(12) if i not in taken] or [i for i in range(24) if i not in taken]
    else:
        free = [i for i in range(24) if i not in taken]
    if rnd.random() < 0.2 and n:
        row[24] = rnd.randint(1, min(n, 4))
        n -= row[24]
    for _ in range(n):
        row[rnd.choice(free)] += 1
    return row


def closed(row):
    return all(row[i] >= 2 for i in range(6))


def random_board(rnd):
    while True:
        n0 = 15 if rnd.random() < 0.6 else rnd.randint(0, 15)
        n1 = 15 if rnd.random() < 0.6 else rnd.randint(0, 15)
        if n0 == 0 and n1 == 0:
            continue
        row1 = random_row(rnd, n1, set())
        taken = {23 - i for i in range(24) if row1[i]}
        row0 = random_row(rnd, n0, taken)
        if row0[24] and row1[24] and closed(row0) and closed(row1):
            continue    # both on the bar against closed boards: no game reaches it
        return [row0, row1]


def random_state(rnd):
    money = rnd.random() < 0.4
    if money:
        length = 0
        # gnubg's set xgid reads 4 characters a field: session scores up to 9999
        score = rnd.choice([(0, 0), (0, 0), (rnd.randrange(20), rnd.randrange(20)),
                            (rnd.randrange(10000), rnd.randrange(10000))])
        crawford = 0
        jacoby = rnd.randrange(2)
        beavers = rnd.randrange(2)
    else:
        length = rnd.choice(LENGTHS)
        kind = rnd.random()
        if kind < 0.3 and length > 1:       # one side 1-away: Crawford or post-Crawford
            leader = rnd.randrange(2)
            score = [0, 0]
            score[leader] = length - 1
            score[1 - leader] = rnd.randrange(length)
            score = tuple(score)
            crawford = int(score[1 - leader] < length - 1 and rnd.random() < 0.5)
        else:
            score = (rnd.randrange(length), rnd.randrange(length))
            crawford = 0
        jacoby = 0
        beavers = 0
    if crawford:
        cube, owner = 1, -1
    else:
        cube = 1 << rnd.choice([0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 10, 15])
        owner = rnd.choice([-1, 0, 1]) if cube > 1 else -1
    move = rnd.randrange(2)
    turn, doubled, resigned, gamestate = move, 0, 0, 1
    dice = (0, 0)
    r = rnd.random()
    if r < 0.1 and cube < 1 << 15 and not crawford:
        doubled, turn = 1, 1 - move
    elif r < 0.14:
        resigned, turn = rnd.randrange(1, 4), 1 - move
    elif r < 0.6:
        dice = (rnd.randrange(1, 7), rnd.randrange(1, 7))
    if rnd.random() < 0.03:
        gamestate = rnd.choice([0, 2, 3, 4])
        if gamestate >= 2 and length:
            # a finished game may leave the winner at or past the length
            score = (min(score[0] + rnd.randrange(3), length + 2), score[1])
    return {"board": random_board(rnd), "cube": cube, "cubeowner": owner, "move": move,
            "turn": turn, "matchto": length, "score": list(score), "crawford": crawford,
            "jacoby": jacoby, "doubled": doubled, "resigned": resigned, "gamestate": gamestate,
            "dice": list(dice), "beavers": beavers,
            "maxcube": rnd.choice([10, 10, 10, 8, 15, 0])}


# ------------------------------------------------------------------ gnubg's encoders

def gnubg_ids(s):
    ci = {"cube": s["cube"], "cubeowner": s["cubeowner"], "move": s["move"],
          "matchto": s["matchto"], "score": tuple(s["score"]), "crawford": s["crawford"],
          "jacoby": s["jacoby"]}
    pi = {"dice": tuple(s["dice"]), "turn": s["turn"], "resigned": s["resigned"],
          "doubled": s["doubled"], "gamestate": s["gamestate"]}
    return gnubg.positionid(tuple(tuple(r) for r in s["board"])), gnubg.matchid(ci, pi)


def xgid_holds(s):
    """An XGID can hold the state, and gnubg 1.07's ``set xgid`` reads it (cubes up to 4096)."""
    return (s["gamestate"] == 1 and not s["resigned"] and s["cube"] <= 4096
            and not (s["matchto"] and s["jacoby"]))


def xg_char(n, one):
    return chr(ord(one) + n - 1) if n else "-"


def make_xgid(s):
    """The state's XGID, in the layout gnubg's SetXGID reads: the board from the bottom player
    (gnubg's player 1); position character 0 = top bar, 1..24 = bottom's points, 25 = bottom bar."""
    row0, row1 = s["board"]
    bottom, top = (row1, row0) if s["move"] == 1 else (row0, row1)
    chars = [xg_char(top[24], "a")]
    for p in range(1, 25):
        chars.append(xg_char(bottom[p - 1], "A") if bottom[p - 1] else xg_char(top[24 - p], "a"))
    chars.append(xg_char(bottom[24], "A"))
    dice = "D" if s["doubled"] else "%d%d" % tuple(s["dice"])
    rules = s["crawford"] if s["matchto"] else s["jacoby"] + 2 * s["beavers"]
    owner = {-1: 0, 1: 1, 0: -1}[s["cubeowner"]]
    fields = ["".join(chars), s["cube"].bit_length() - 1, owner, 1 if s["move"] == 1 else -1,
              dice, s["score"][1], s["score"][0], rules, s["matchto"], s["maxcube"]]
    return "XGID=" + ":".join(str(f) for f in fields)


def expected_after_set_xgid(s):
    """What gnubg holds after ``set xgid`` of ``s``, and the name of the adaptation."""
    e = dict(s)
    how = "exact"
    if e["doubled"]:
        e["doubled"], e["turn"] = 0, e["move"]
        how = "double stepped back"
    if e["move"] == 0:     # top player on roll: gnubg swaps the players
        e["move"], e["turn"] = 1 - e["move"], 1 - e["turn"]
        e["score"] = [e["score"][1], e["score"][0]]
        e["cubeowner"] = {-1: -1, 0: 1, 1: 0}[e["cubeowner"]]
        how = "swapped" if how == "exact" else how + ", swapped"
    return e, how


def check_xgid(s, xgid):
    gnubg.command("set xgid " + xgid)
    got = (gnubg.positionid(gnubg.board()), gnubg.matchid())
    expect, how = expected_after_set_xgid(s)
    want = gnubg_ids(expect)
    if got != want:
        raise RuntimeError(f"gnubg read {xgid} as {got}, expected {want} ({how}); state {s}")
    return how


def main():
    for c in ("set player 0 human", "set player 1 human", "set automatic roll off",
              "set automatic move off", "set display off", "new session"):
        gnubg.command(c)
    rnd = random.Random(SEED)
    out, seen, counts = [], set(), {}
    while len(out) < N_STATES:
        s = random_state(rnd)
        pid, mid = gnubg_ids(s)
        rec = dict(s, positionid=pid, matchid=mid)
        if xgid_holds(s):
            rec["xgid"] = make_xgid(s)
            rec["xgid_check"] = check_xgid(s, rec["xgid"])
        key = (pid, mid, rec.get("xgid"))
        if key in seen:
            continue
        seen.add(key)
        counts[rec.get("xgid_check", "no xgid")] = counts.get(rec.get("xgid_check", "no xgid"), 0) + 1
        out.append(rec)
    with open(OUT, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0) as gz:
        for rec in out:
            gz.write((json.dumps(rec, separators=(",", ":")) + "\n").encode())
    print(f"{len(out)} states written to {OUT}: {counts}", file=sys.stderr, flush=True)


main()
