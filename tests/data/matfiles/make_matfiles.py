"""Let GNU Backgammon play itself matches and money sessions with the cube and save them.

Run inside gnubg (its Python), from the repository root:

    HOME=$(mktemp -d) MATFILES_OUT=tests/data/matfiles gnubg -t -q -r -p tests/data/matfiles/make_matfiles.py

For each entry of ``PLAYS`` gnubg (0-ply checker play and cube decisions, both
sides, seeded dice) plays a match or a money session and writes it with
``export match mat NAME.mat`` and ``save match NAME.sgf``.  The ``.sgf`` files
keep gnubg's move analysis (the evaluations its players made), so they also test
that a reader skips it; they are gzipped to keep them small.  The players resign hopeless
games, so the files hold resignations as well as doubles, takes and drops.
"""

import gzip
import os
import shutil

import gnubg  # noqa: F401  (the module gnubg provides to scripts run with -p)

OUT = os.environ.get("MATFILES_OUT", "tests/data/matfiles")

#: (file name, match length (0: money session), games in a money session, seed, Jacoby)
PLAYS = [
    ("gnubg_match1", 1, 0, 11, False),
    ("gnubg_match3", 3, 0, 1, False),
    ("gnubg_match5", 5, 0, 5, False),
    ("gnubg_money", 0, 4, 7, True),
    ("gnubg_money_nojacoby", 0, 3, 21, False),
]

SETUP = [
    "set confirm new off",
    "set player 0 gnubg",
    "set player 1 gnubg",
    "set player 0 chequerplay evaluation plies 0",
    "set player 1 chequerplay evaluation plies 0",
    "set player 0 cubedecision evaluation plies 0",
    "set player 1 cubedecision evaluation plies 0",
]

for name, length, games, seed, jacoby in PLAYS:
    # a match plays on to its end by itself; a money session one game per "new game"
    auto = "on" if length else "off"
    for c in SETUP + [f"set automatic game {auto}", f"set seed {seed}",
                      f"set jacoby {'on' if jacoby else 'off'}"]:
        gnubg.command(c)
    if length:
        gnubg.command(f"new match {length}")
    else:
        gnubg.command("new session")
        for _ in range(games - 1):
            gnubg.command("new game")
    gnubg.command("set player 0 name Anna Lee")
    gnubg.command("set player 1 name bob")
    mat = os.path.join(OUT, name + ".mat")
    sgf = os.path.join(OUT, name + ".sgf")
    gnubg.command(f"export match mat {mat}")
    gnubg.command(f"save match {sgf}")
    with open(sgf, "rb") as src, gzip.open(sgf + ".gz", "wb") as dst:
        shutil.copyfileobj(src, dst)
    os.remove(sgf)
