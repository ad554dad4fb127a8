"""Build the GNU Backgammon golden test data (runs *inside* gnubg's embedded Python).

Exact command (run from the repository root; gnubg's own output goes to /dev/null, progress
to stderr; takes about 8 minutes)::

    /usr/games/gnubg -t -q -p tests/data/gnubg/make_golden.py

Produced with GNU Backgammon 1.07.001 (Debian package 1.07.001-1+b1).  Outputs, written to
``tests/data/gnubg/`` (see README.md there for the field meanings):

``movegen_golden.jsonl.gz``
    One JSON object per position, mover on roll::

        {"pid": "4HPwATDgc/ABMA", "source": "game", "kind": "contact",
         "board": [[25 ints], [25 ints]],
         "rolls": {"11": [[afterstate_pid, notation], ...], ..., "66": [...]}}

    ``board`` is ``gnubg.positionfromid(pid)``: row 1 = side on roll, row 0 = opponent,
    index i = that side's point i+1, index 24 = its bar (gnubg's TanBoard).  For every one of
    the 21 distinct rolls (key = high die then low die) the list holds *every* legal move gnubg
    generates (gnubg's GenerateMoves already merges sequences that reach the same position),
    in gnubg's 0-ply hint order.  ``afterstate_pid`` is the Position ID of the position after
    the move *in the mover's orientation* (row 1 is still the side that just moved; NOT
    swapped to the opponent), and ``notation`` is the move exactly as gnubg prints it in its
    hint list (FormatMove).  A roll with no legal move has an empty list.

``match_ids.jsonl``
    Match IDs gnubg produced (gnubg.matchid()) in varied match states, with the decoded
    fields; see README.md.

Positions: gnubg plays itself cubeless money games at 0 ply (both sides ``gnubg``, seeded
Mersenne Twister dice) until the games hold at least 2000 distinct positions; every position
a player had to move from (the boards of all move records, mover on roll, deduplicated) is
kept, so bar, bear-off, race and contact positions appear as they occur in real play.  Six
hand-made rules corner cases are added with ``"source": "crafted"``.

How the moves are obtained: ``set board <pid>``, ``set dice <hi> <lo>``, then
``gnubg.hint(100000)`` with 0-ply chequer evaluation.  At 0 plies gnubg scores and lists
every generated move (no move filter applies), so the hint list is the complete legal move
list.  The hint gives only the notation string; the afterstate is obtained by parsing that
string with gnubg's own parser (``gnubg.parsemove``) and applying the (from, to) steps
(hitting lone opposing checkers).  This is cross-checked: (a) the hit count matches the '*'
marks; (b) the afterstates of one roll are pairwise distinct (as gnubg guarantees);
(c) ``positionfromid(positionid(b)) == b``; (d) for a deterministic sample of positions every
move is also played through gnubg's own ``move`` command and the board gnubg ends up with
(rows swapped back) must be the same afterstate; (e) the move actually played in the game
(gnubg's recorded move tuple for the recorded dice) must be one of the listed afterstates.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import random
import sys
import time

import gnubg  # only importable inside gnubg

SEED_GAMES = 20240611          # gnubg dice for the self-play money games
SEED_MATCHES = 20240612        # gnubg dice for the match-ID matches
SEED_PY = 20240613             # Python-side random choices (match-ID states)
N_POSITIONS = int(os.environ.get("GOLDEN_POSITIONS", 2000))  # play games until this many
VERIFY_EVERY = 10              # every 10th kept position: all moves of all rolls via `move`

OUT_DIR = os.path.join(os.getcwd(), "tests", "data", "gnubg")
ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]  # (hi, lo), 21 rolls


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def cmd(c):
    gnubg.command(c)


def silence_stdout():
    """gnubg writes boards and chatter to C stdout; send it to /dev/null."""
    sys.stdout.flush()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)


# ---------------------------------------------------------------------------------------------
# board helpers (mover = row 1, TanBoard layout)


def board_lists(b):
    return [list(b[0]), list(b[1])]


def apply_steps(board, steps):
    """Apply gnubg (from, to) steps (25 = bar, 0 = off) for the side on roll (row 1).

    Returns (new_board, hits).  Steps whose source is still empty are retried after the
    others (gnubg prints e.g. '13/7*/5'; parsemove keeps the chain order, this is a guard)."""
    opp, me = list(board[0]), list(board[1])
    pending = list(steps)
    hits = 0
    guard = 0
    while pending:
        guard += 1
        if guard > 20:
            raise ValueError(f"cannot apply {steps} to {board}")
        f, t = pending.pop(0)
        src = 24 if f == 25 else f - 1
        if me[src] == 0:
            pending.append((f, t))
            continue
        me[src] -= 1
        if t > 0:
            dst = t - 1
            o = 23 - dst
            if opp[o] == 1:
                opp[o] = 0
                opp[24] += 1
                hits += 1
            elif opp[o] > 1:
                raise ValueError(f"step {f}/{t} lands on a made point: {board} {steps}")
            me[dst] += 1
    return [opp, me], hits


def classify(b):
    opp, me = b
    if me[24]:
        return "bar"
    if sum(me[6:25]) == 0:
        return "bearoff"
    m = max(i for i in range(25) if me[i])
    o = max(i for i in range(25) if opp[i])
    if m + o <= 23:
        return "race"
    if opp[24]:
        return "opp_bar"
    return "contact"


def swap(b):
    return [list(b[1]), list(b[0])]


# ---------------------------------------------------------------------------------------------
# phase A: self-play games -> positions


def common_setup():
    for c in [
        "set display off",
        "set confirm new off",
        "set automatic game off",
        "set automatic roll off",
        "set automatic move off",
        "set automatic bearoff off",
        "set rng mersenne",
        "set threads 1",
        "set evaluation chequerplay evaluation plies 0",
        "set evaluation cubedecision evaluation plies 0",
        "set evaluation chequerplay evaluation noise 0",
        "set evaluation chequerplay evaluation deterministic on",
    ]:
        cmd(c)


def game_positions():
    """{pid: (dice, move)} over every move record of the session, first occurrence."""
    positions = {}
    n_rec = 0
    for g in gnubg.match(0, 1, 0, 0)["games"]:  # include boards
        for r in g["game"]:
            if r["action"] != "move":
                continue
            n_rec += 1
            pid = r["board"]  # PositionID before the move, mover = row 1
            if pid not in positions:
                positions[pid] = (tuple(r["dice"]), tuple(tuple(s) for s in r["move"]))
    return positions, n_rec


def play_games():
    """Cubeless 0-ply gnubg-vs-gnubg money games until N_POSITIONS distinct positions."""
    cmd(f"set seed {SEED_GAMES}")
    cmd("set cube use off")
    for p in (0, 1):
        cmd(f"set player {p} gnubg")
        cmd(f"set player {p} chequerplay evaluation plies 0")
        cmd(f"set player {p} chequerplay evaluation noise 0")
        cmd(f"set player {p} cubedecision evaluation plies 0")
    cmd("new session")  # starts (and, with two computer players, plays) the first game
    while len(game_positions()[0]) < N_POSITIONS:
        cmd("new game")
    positions, n_rec = game_positions()
    n_games = len(gnubg.match(0, 0, 0, 0)["games"])
    log(f"games: {n_games}, move records: {n_rec}, distinct positions: {len(positions)}")
    kinds = {}
    for pid in positions:
        k = classify(gnubg.positionfromid(pid))
        kinds[k] = kinds.get(k, 0) + 1
    log("by kind:", dict(sorted(kinds.items())))
    return positions


# hand-made positions for rules corner cases (mover = row 1; index i = point i+1, 24 = bar)
def crafted_positions():
    z = lambda: [0] * 25  # noqa: E731
    out = []
    # 1. either die alone is playable but never both: the larger (6) must be played
    opp, me = z(), z()
    me[12], me[0] = 1, 14
    opp[22], opp[5] = 2, 13
    out.append([opp, me])
    # 2. one checker on the bar against a closed board: no legal move for any roll
    opp, me = z(), z()
    for i in range(6):
        opp[i] = 2
    opp[12] = 3
    me[12], me[24] = 14, 1
    out.append([opp, me])
    # 3. two on the bar against a 5-point board (only one can enter for many rolls)
    opp, me = z(), z()
    for i in range(5):
        opp[i] = 2
    opp[12] = 5
    me[24], me[12], me[7], me[5] = 2, 5, 3, 5
    out.append([opp, me])
    # 4. bear-off with the higher-point rule and gaps
    opp, me = z(), z()
    opp[0], opp[3], opp[24] = 3, 2, 1
    me[4], me[2], me[1] = 1, 2, 1
    out.append([opp, me])
    # 5. doubles that can only be partly played (blocked prime in front)
    opp, me = z(), z()
    for i in range(14, 20):  # opponent 6-prime on the mover's points 5..10
        opp[i] = 2
    opp[1] = 3
    me[23], me[21], me[2], me[1] = 2, 3, 5, 5
    out.append([opp, me])
    # 6. last checkers: bearing off with a checker still outside home
    opp, me = z(), z()
    opp[2], opp[19] = 10, 5
    me[8], me[3], me[0] = 1, 2, 3
    out.append([opp, me])
    return out


# ---------------------------------------------------------------------------------------------
# phase B: all legal moves of every position and roll


def enter_human_game():
    cmd("set cube use off")
    for p in (0, 1):
        cmd(f"set player {p} human")
    cmd("new session")


def set_position(pid):
    cmd("new session")  # fresh, short game record (keeps every command cheap)
    cmd("set board " + pid)
    b = gnubg.board()
    if gnubg.positionid(b) != pid:
        raise RuntimeError(f"gnubg refused position {pid} (got {gnubg.positionid(b)})")


def moves_for(pid, board, hi, lo):
    cmd(f"set dice {hi} {lo}")
    pi = gnubg.posinfo()
    if sorted(pi["dice"]) != sorted((hi, lo)) or gnubg.positionid() != pid:
        raise RuntimeError(f"state drift at {pid} {hi}{lo}: {pi} {gnubg.positionid()}")
    h = gnubg.hint(100000)
    if h["gnubgid"].split(":")[0] != pid:
        raise RuntimeError("hint answered for another position")
    out = []
    seen = set()
    for mv in h["hint"]:
        s = mv["move"]
        steps = gnubg.parsemove(s)
        after, hits = apply_steps(board, steps)
        if (hits > 0) != ("*" in s):
            raise RuntimeError(f"hit marks disagree: {pid} {hi}{lo} {s} hits={hits}")
        used = len(steps)
        if used > (4 if hi == lo else 2):
            raise RuntimeError(f"too many steps {pid} {hi}{lo} {s}")
        apid = gnubg.positionid(after)
        if board_lists(gnubg.positionfromid(apid)) != after:
            raise RuntimeError(f"positionid round trip failed for {after}")
        if apid in seen:
            raise RuntimeError(f"duplicate afterstate {pid} {hi}{lo} {s}")
        seen.add(apid)
        out.append([apid, s])
    return out


def verify_with_move_command(pid, hi, lo, moves):
    """Play every listed move through gnubg's `move` command; compare gnubg's board."""
    for apid, s in moves:
        set_position(pid)
        cmd(f"set dice {hi} {lo}")
        cmd("move " + s)
        pi = gnubg.posinfo()
        if pi["gamestate"] == 1 and (pi["dice"] != (0, 0) or gnubg.positionid() == pid):
            raise RuntimeError(f"gnubg did not accept move {s!r} at {pid} {hi}{lo}")
        if pi["gamestate"] != 1:
            # the move ended the game: its afterstate has no checker left for the mover
            a = gnubg.positionfromid(apid)
            if sum(a[1]) != 0:
                raise RuntimeError(f"game ended but afterstate not empty: {pid} {s}")
            continue
        got = gnubg.positionid(swap(gnubg.board()))
        if got != apid:
            raise RuntimeError(f"`move {s}` at {pid} {hi}{lo}: gnubg {got} vs ours {apid}")


def build_movegen(positions, keep):
    enter_human_game()
    crafted = crafted_positions()
    records = []
    all_pids = [(pid, "game") for pid in keep] + [
        (gnubg.positionid(b), "crafted") for b in crafted
    ]
    t0 = time.time()
    n_moves = n_empty = n_verified = 0
    for k, (pid, source) in enumerate(all_pids):
        set_position(pid)
        board = board_lists(gnubg.positionfromid(pid))
        rolls = {}
        for hi, lo in ROLLS:
            mv = moves_for(pid, board, hi, lo)
            rolls[f"{hi}{lo}"] = mv
            n_moves += len(mv)
            n_empty += not mv
        # the move really played in the game must be among the listed afterstates
        if source == "game":
            dice, played = positions[pid]
            hi, lo = max(dice), min(dice)
            lst = rolls[f"{hi}{lo}"]
            if played:
                a, _ = apply_steps(board, played)
                if gnubg.positionid(a) not in {x[0] for x in lst}:
                    raise RuntimeError(f"played move {played} missing at {pid} {hi}{lo}")
            elif lst:
                raise RuntimeError(f"game had no move but hint lists some at {pid} {hi}{lo}")
        if k % VERIFY_EVERY == 0 or source == "crafted":
            for hi, lo in ROLLS:
                verify_with_move_command(pid, hi, lo, rolls[f"{hi}{lo}"])
                n_verified += len(rolls[f"{hi}{lo}"])
        records.append(
            {"pid": pid, "source": source, "kind": classify(board), "board": board, "rolls": rolls}
        )
        if k % 100 == 0:
            log(f"  {k}/{len(all_pids)} positions, {n_moves} moves, {time.time() - t0:.0f}s")
    log(
        f"movegen: {len(records)} positions, {21 * len(records)} rolls, {n_moves} moves, "
        f"{n_empty} rolls without a legal move, {n_verified} moves re-played via `move`"
    )
    return records


def write_jsonl_gz(path, records):
    raw = io.BytesIO()
    with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as f:
        for r in records:
            f.write((json.dumps(r, separators=(",", ":")) + "\n").encode())
    with open(path, "wb") as f:
        f.write(raw.getvalue())


# ---------------------------------------------------------------------------------------------
# phase C: Match IDs


def decode_match_id(mid):
    """gnubg matchid.c MatchFromKey, in Python (used only to cross-check gnubg's own state)."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    v = [alphabet.index(c) for c in mid]
    key = []
    for i in range(3):
        a, b, c, d = v[4 * i : 4 * i + 4]
        key += [(a << 2) | (b >> 4), ((b << 4) & 0xFF) | (c >> 2), ((c << 6) & 0xFF) | d]
    bits = "".join(format(x, "08b")[::-1] for x in key)  # bit k = (key[k//8] >> (k%8)) & 1

    def get(pos, n):
        return sum(int(bits[pos + i]) << i for i in range(n))

    owner = get(4, 2)
    return {
        "cube": 1 << get(0, 4),
        "cubeowner": owner if owner in (0, 1) else -1,
        "move": get(6, 1),
        "crawford": get(7, 1),
        "gamestate": get(8, 3),
        "turn": get(11, 1),
        "doubled": get(12, 1),
        "resigned": get(13, 2),
        "dice": [get(15, 3), get(18, 3)],
        "matchto": get(21, 15),
        "score": [get(36, 15), get(51, 15)],
        "jacoby": 1 - get(66, 1),
    }


FIELDS = ("cube", "cubeowner", "move", "crawford", "gamestate", "turn", "doubled", "resigned",
          "dice", "matchto", "score", "jacoby")


def session_score(pi):
    """ms.anScore: score at the start of the current game, plus its result once it is over.

    (gnubg.cubeinfo() reports the score for match play only; for money it gives 0, 0.)"""
    info = gnubg.match(0, 0, 0, 0)["games"][-1]["info"]
    score = [info["score-X"], info["score-O"]]
    if pi["gamestate"] != 1 and info.get("winner") in ("X", "O"):
        score["XO".index(info["winner"])] += info["points-won"]
    return score


def state_record(source, note=""):
    mid = gnubg.matchid()
    pi = gnubg.posinfo()
    score = session_score(pi)
    try:
        ci = gnubg.cubeinfo()
    except Exception:
        # gnubg.cubeinfo() refuses a finished match (score >= match length): take the cube
        # fields from the bits, everything else is still checked against gnubg's state
        dec = decode_match_id(mid)
        ci = {k: dec[k] for k in ("cube", "cubeowner", "move", "crawford", "jacoby")}
        ci["matchto"] = gnubg.match(0, 0, 0, 0)["match-info"]["match-length"]
        ci["score"] = score
        note = (note + "; " if note else "") + "match over: cube fields decoded from the ID"
    if ci["matchto"] and score != list(ci["score"]):
        raise RuntimeError(f"score bookkeeping: {score} vs cubeinfo {ci['score']}")
    dice = list(pi["dice"])
    rec = {
        "matchid": mid,
        "source": source,
        "cube": ci["cube"],
        "cubeowner": ci["cubeowner"],
        "move": ci["move"],
        "crawford": ci["crawford"],
        "gamestate": pi["gamestate"],
        "turn": pi["turn"],
        "doubled": pi["doubled"],
        "resigned": pi["resigned"],
        "dice": sorted(dice, reverse=True),
        "dice_given": dice,
        "matchto": ci["matchto"],
        "score": score,
        "jacoby": ci["jacoby"],
        "positionid": gnubg.positionid(),
    }
    if note:
        rec["note"] = note
    dec = decode_match_id(mid)
    for f in FIELDS:
        if dec[f] != rec[f]:
            raise RuntimeError(f"matchid {mid}: field {f} gnubg state {rec[f]} vs bits {dec[f]}")
    return rec


def play_match_states(rnd, length, jacoby=True, max_games=6):
    """Human-driven match (gnubg picks the checker plays; cube/resign actions are random)."""
    cmd("set jacoby " + ("on" if jacoby else "off"))
    cmd("set cube use on")
    for p in (0, 1):
        cmd(f"set player {p} human")
    cmd(f"new match {length}" if length else "new session")
    out = []
    games = 1
    for _ in range(3000):
        pi = gnubg.posinfo()
        rec = state_record("play")
        out.append(rec)
        if pi["gamestate"] != 1:
            if games >= max_games or (length and max(rec["score"]) >= length):
                break
            cmd("new game")
            games += 1
            continue
        if pi["doubled"]:
            cmd(rnd.choice(["take", "take", "drop"]))
        elif pi["resigned"]:
            cmd(rnd.choice(["accept", "reject", "reject"]))
        elif pi["dice"] == (0, 0):
            r = rnd.random()
            if r < 0.12:
                cmd("double")
            elif r < 0.15:
                cmd("resign " + rnd.choice(["normal", "gammon", "backgammon"]))
            else:
                cmd("roll")
        else:
            h = gnubg.hint(1)["hint"]
            if h:
                cmd("move " + h[0]["move"])
            else:
                raise RuntimeError("dice rolled, no legal move, but gnubg still waits")
    return out


def synthetic_states(rnd, n):
    """Match IDs straight from gnubg.matchid(cube-info, pos-info) for arbitrary field values."""
    out = []
    specials = []
    for matchto in (0, 1, 3, 5, 7, 11, 13, 17, 21, 25, 64):
        specials.append(matchto)
    for i in range(n):
        matchto = rnd.choice(specials)
        if matchto:
            s0, s1 = rnd.randrange(matchto), rnd.randrange(matchto)
            crawford = int((s0 == matchto - 1 or s1 == matchto - 1) and rnd.random() < 0.5)
            jacoby = 0
        else:
            s0, s1 = rnd.choice([(0, 0), (rnd.randrange(50), rnd.randrange(50)),
                                 (rnd.randrange(32768), rnd.randrange(32768))])
            crawford = 0
            jacoby = rnd.randrange(2)
        cube = 1 << rnd.choice([0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15])
        owner = rnd.choice([-1, 0, 1]) if cube > 1 else rnd.choice([-1, -1, -1, 0, 1])
        move = rnd.randrange(2)
        gs = rnd.choice([0, 1, 1, 1, 1, 1, 2, 3, 4])
        doubled = resigned = 0
        turn = move
        r = rnd.random()
        if r < 0.15:
            doubled, turn = 1, 1 - move
        elif r < 0.3:
            resigned, turn = rnd.randrange(1, 4), 1 - move
        if rnd.random() < 0.5 and not doubled and not resigned:
            dice = [rnd.randrange(1, 7), rnd.randrange(1, 7)]  # given in either order
        else:
            dice = [0, 0]
        ci = {"cube": cube, "cubeowner": owner, "move": move, "matchto": matchto,
              "score": (s0, s1), "crawford": crawford, "jacoby": jacoby}
        pi = {"dice": tuple(dice), "turn": turn, "resigned": resigned, "doubled": doubled,
              "gamestate": gs}
        mid = gnubg.matchid(ci, pi)
        rec = {"matchid": mid, "source": "synthetic", "cube": cube, "cubeowner": owner,
               "move": move, "crawford": crawford, "gamestate": gs, "turn": turn,
               "doubled": doubled, "resigned": resigned,
               "dice": sorted(dice, reverse=True), "dice_given": dice,
               "matchto": matchto, "score": [s0, s1], "jacoby": jacoby}
        dec = decode_match_id(mid)
        for f in FIELDS:
            if dec[f] != rec[f]:
                raise RuntimeError(f"synthetic {mid}: {f} {rec[f]} vs bits {dec[f]}")
        out.append(rec)
    return out


def build_match_ids():
    rnd = random.Random(SEED_PY)
    cmd(f"set seed {SEED_MATCHES}")
    recs = []
    for length, jac, games in [(0, True, 4), (0, False, 3), (1, True, 3), (3, True, 6),
                               (5, True, 8), (7, True, 8), (9, True, 4), (15, True, 3),
                               (25, True, 2)]:
        recs += play_match_states(rnd, length, jac, games)
    # dedupe (same Match ID & same fields), keep first occurrence
    seen, play = set(), []
    for r in recs:
        k = json.dumps({f: r[f] for f in ("matchid",) + FIELDS}, sort_keys=True)
        if k not in seen:
            seen.add(k)
            play.append(r)
    synth = synthetic_states(rnd, 400)
    seen_ids = {r["matchid"] for r in play}
    synth = [r for r in synth if r["matchid"] not in seen_ids]
    log(f"match ids: {len(play)} from play, {len(synth)} synthetic")
    return play + synth


# ---------------------------------------------------------------------------------------------


def main():
    parts = os.environ.get("GOLDEN_PARTS", "movegen,matchids").split(",")
    silence_stdout()
    log("gnubg golden data; cwd", os.getcwd())
    if not os.path.isdir(OUT_DIR):
        raise SystemExit(f"run from the repository root ({OUT_DIR} not found)")
    common_setup()
    t0 = time.time()
    if "movegen" in parts:
        positions = play_games()
        records = build_movegen(positions, sorted(positions))
        write_jsonl_gz(os.path.join(OUT_DIR, "movegen_golden.jsonl.gz"), records)
        log(f"movegen done in {time.time() - t0:.0f}s")
    if "matchids" in parts:
        recs = build_match_ids()
        with open(os.path.join(OUT_DIR, "match_ids.jsonl"), "w") as f:
            for r in recs:
                f.write(json.dumps(r, separators=(",", ":")) + "\n")
        log(f"match ids done in {time.time() - t0:.0f}s")


main()
