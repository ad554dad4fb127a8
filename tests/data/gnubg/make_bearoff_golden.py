"""Build the GNU Backgammon bear-off golden data (runs *inside* gnubg's embedded Python).

Exact command (run from the repository root; gnubg's own output goes to /dev/null,
progress to stderr; about half a minute)::

    /usr/games/gnubg -t -q -p tests/data/gnubg/make_bearoff_golden.py

Produced with GNU Backgammon 1.07.001 (Debian package 1.07.001-1+b1, gnubg-data's
``gnubg_os0.bd``).  Output: ``tests/data/gnubg/bearoff_golden.json.gz`` (see README.md
there), gzip written with ``mtime=0``.  Deterministic: Python ``random.Random(SEED)``.

Three parts:

``races``
    Random positions with every checker of both sides on their home points, both sides
    with at least one checker.  ``kind`` ``"one_sided"``: at least one side has more
    than 6 checkers (gnubg classifies them CLASS_BEAROFF1 and evaluates them from its
    one-sided database, 15 checkers on 6 points, with gammon distributions);
    ``"gammon"``: the same with one side holding all 15 checkers far back and the other
    a few checkers left, so gammons are likely; ``"two_sided"``: both sides with at most
    6 checkers (CLASS_BEAROFF2: gnubg's exact two-sided database, 6 checkers on 6
    points).  ``outputs`` is ``gnubg.evaluate(board, cubeinfo, evalcontext)[:5]`` at
    0 plies: gnubg's five cubeless outputs of the side on roll.

``distributions``
    Random one-sided positions, dumped by gnubg's ``bearoffdump`` from ``gnubg_os0.bd``
    (the position on both sides of the board, so "Player" and "Opponent" agree):
    percentages with 3 decimals of bearing off all checkers in n rolls (``off``) and of
    bearing at least one checker off in n rolls (``first``, only for 15 checkers), and
    the means as printed (3 decimals).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import random
import re
import subprocess
import sys
import time

import gnubg  # only importable inside gnubg

SEED = 20261124
N_ONE_SIDED = 1500
N_GAMMON = 400
N_TWO_SIDED = 1500
N_DIST = 400
OUT = os.path.join(os.getcwd(), "tests", "data", "gnubg", "bearoff_golden.json.gz")
BEAROFFDUMP = os.environ.get("BEAROFFDUMP", "/usr/games/bearoffdump")
OS_DB = os.environ.get("GNUBG_OS_DB", "/usr/share/gnubg/gnubg_os0.bd")


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def silence_stdout():
    """gnubg writes boards and chatter to C stdout; send it to /dev/null."""
    sys.stdout.flush()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)


def random_side(rng, n, deep=False):
    """n checkers on points 1..6 with a random skew (deep: towards the 6-point)."""
    w = [rng.random() ** 2 for _ in range(6)]
    if deep:
        w = [x * (i + 1) ** 3 for i, x in enumerate(w)]
    pts = [0] * 6
    for _ in range(n):
        pts[rng.choices(range(6), weights=w)[0]] += 1
    return pts


def board(mover, opp):
    return [list(opp) + [0] * 19, list(mover) + [0] * 19]


def race_positions(rng):
    out = []
    while len(out) < N_ONE_SIDED:
        nm, no = (15 if rng.random() < 0.25 else rng.randint(1, 15) for _ in range(2))
        if nm <= 6 and no <= 6:
            continue
        out.append(("one_sided", random_side(rng, nm), random_side(rng, no)))
    while len(out) < N_ONE_SIDED + N_GAMMON:
        few = random_side(rng, rng.randint(1, 8))
        full = random_side(rng, 15, deep=True)
        out.append(("gammon",) + ((few, full) if rng.random() < 0.5 else (full, few)))
    while len(out) < N_ONE_SIDED + N_GAMMON + N_TWO_SIDED:
        out.append(("two_sided", random_side(rng, rng.randint(1, 6)),
                    random_side(rng, rng.randint(1, 6))))
    return out


def evaluate_races(positions):
    cmd = gnubg.command
    for c in ("set player 0 human", "set player 1 human", "set rng mersenne",
              "set threads 1", "set evaluation chequerplay evaluation plies 0",
              "set evaluation chequerplay evaluation noise 0",
              "set evaluation chequerplay evaluation deterministic on", "new session"):
        cmd(c)
    ci, ec = gnubg.cubeinfo(), gnubg.evalcontext()
    recs = []
    for kind, mover, opp in positions:
        b = board(mover, opp)
        cls = gnubg.classifypos(b)
        want = 4 if kind == "two_sided" else 6       # CLASS_BEAROFF2, CLASS_BEAROFF1
        if cls != want:
            raise SystemExit(f"gnubg class {cls} for {kind} {mover} {opp}")
        v = gnubg.evaluate(b, ci, ec)
        recs.append({"kind": kind, "mover": mover, "opponent": opp, "class": cls,
                     "pid": gnubg.positionid(b), "outputs": [round(x, 8) for x in v[:5]]})
    return recs


ROW = re.compile(r"^\s*(\d+)\s+([\d.]+)\s+([\d.]+)(?:\s+([\d.]+)\s+([\d.]+))?\s*$")
MEAN = re.compile(r"^Mean\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$")


def dump(points):
    """bearoffdump's tables for ``points`` on both sides of the board."""
    pid = gnubg.positionid(board(points, points))
    text = subprocess.run([BEAROFFDUMP, OS_DB, "-p", pid], check=True, capture_output=True,
                          text=True).stdout
    off, first, mean = {}, {}, None
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            n = int(m.group(1))
            if m.group(2) != m.group(3):
                raise SystemExit(f"sides differ: {line!r}")
            off[n] = float(m.group(2))
            if m.group(4) is not None:
                first[n] = float(m.group(4))
        m = MEAN.match(line)
        if m:
            mean = (float(m.group(1)), float(m.group(3)))
    if mean is None or not off:
        raise SystemExit(f"cannot parse bearoffdump for {points}:\n{text}")
    size = max(off) + 1
    return {"points": points, "pid": pid,
            "off": [off.get(n, 0.0) for n in range(size)],
            "first": [first.get(n, 0.0) for n in range(max(first) + 1)] if first else [],
            "mean": mean[0], "mean_first": mean[1]}


def main():
    silence_stdout()
    t0 = time.time()
    rng = random.Random(SEED)
    races = evaluate_races(race_positions(rng))
    log(f"races: {len(races)} in {time.time() - t0:.1f}s")
    dists = []
    for k in range(N_DIST):
        n = 15 if k % 3 == 0 else rng.randint(1, 15)
        dists.append(dump(random_side(rng, n)))
    log(f"distributions: {len(dists)} in {time.time() - t0:.1f}s")
    data = {"gnubg": "GNU Backgammon 1.07.001", "seed": SEED, "races": races,
            "distributions": dists}
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz:
        gz.write(json.dumps(data, separators=(",", ":")).encode())
    with open(OUT, "wb") as f:
        f.write(buf.getvalue())
    log(f"wrote {OUT} ({len(buf.getvalue())} bytes)")


main()
