"""GNU Backgammon's own ``analyse match`` of match files, as JSON: the golden data of
``bgengine analyse``.

Run inside gnubg (its Python), from the repository root (``bgengine.opponents.gnubg.analysis``
compares bgengine's analyses with what it writes):

    HOME=$(mktemp -d) ANALYSE_FILES="tests/data/analysis/*.mat" \\
        ANALYSE_OUT=tests/data/analysis/gnubg_2ply.json ANALYSE_PLIES=2 \\
        gnubg -t -q -r -p python/bgengine/data/gnubg_analyse.py

For each file gnubg imports it (``import mat``), analyses it with its chequer play and
cube decisions at ``ANALYSE_PLIES`` (luck at 0-ply, its default; ``ANALYSE_THREADS``
sets ``set threads``, default gnubg's own) and records, per player (0: the left column
of the ``.mat`` file, gnubg's X; 1: the right one, gnubg's O):

* ``unforced_moves``, ``close_cube`` (the decisions gnubg's error rate divides by),
  ``checker_error``, ``cube_error`` (normalised equity lost, EMG, summed), ``error_rate``
  (gnubg's "Error rate mEMG": 1000 x the sum over unforced moves plus close or actual cube
  decisions), ``luck`` (EMG) and ``rolls``;
* the decisions gnubg marks, from its text export (``export match text``): game (from 1),
  move number, player, what was decided (``move`` or ``cube``), gnubg's alert (``very bad
  move``, ``wrong take``...), the equity lost (EMG) and the position before the decision
  as gnubg's Position ID and Match ID.

``seconds`` is the time ``analyse match`` took (gnubg started and the file read before).
"""

import glob
import json
import os
import re
import tempfile
import time

import gnubg  # noqa: F401  (the module gnubg provides to scripts run with -p)

FILES = sorted(glob.glob(os.environ.get("ANALYSE_FILES", "tests/data/analysis/*.mat")))
OUT = os.environ.get("ANALYSE_OUT", "tests/data/analysis/gnubg_2ply.json")
PLIES = int(os.environ.get("ANALYSE_PLIES", "2"))
THREADS = os.environ.get("ANALYSE_THREADS")

ALERT = re.compile(r"^Alert: (.+?) \(\s*([-+]?[0-9.]+)\)")
HEADER = re.compile(r"^Move number (\d+):\s+(.*)$")
CHECKER_ALERTS = ("doubtful move", "bad move", "very bad move")
LUCK_ALERTS = ("lucky roll!", "unlucky roll!", "very lucky roll!", "very unlucky roll!")


def _player(text, names):
    """The player whose name ``text`` starts with (longest name first)."""
    for i in sorted((0, 1), key=lambda k: -len(names[k])):
        if text.startswith(names[i]):
            return i
    raise ValueError(f"no player in {text!r}")


def marked_decisions(path, names, game):
    """The decisions gnubg marks in one game's text export ``path``."""
    out, block = [], None
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        m = HEADER.match(line)
        if m:
            block = {"number": int(m.group(1)), "player": _player(m.group(2), names)}
            continue
        if block is None:
            continue
        if "Position ID:" in line:
            block["position_id"] = line.split("Position ID:")[1].strip()
        elif "Match ID   :" in line:
            block["match_id"] = line.split("Match ID   :")[1].strip()
        elif line.startswith("* ") and (line.endswith(" accepts") or line.endswith(" rejects")
                                        or " beavers" in line):
            block["answer_by"] = _player(line[2:], names)
        a = ALERT.match(line)
        if a and a.group(1) not in LUCK_ALERTS:
            kind = a.group(1)
            answer = kind in ("wrong take", "wrong pass", "wrong beaver")
            out.append({"game": game, "number": block["number"],
                        "player": block.get("answer_by", 1 - block["player"]) if answer
                        else block["player"],
                        "decision": "move" if kind in CHECKER_ALERTS else "cube",
                        "alert": kind, "skill": float(a.group(2)),
                        "position_id": block.get("position_id"),
                        "match_id": block.get("match_id")})
    return out


def player_stats(stats):
    moves, cube, dice = stats["moves"], stats["cube"], stats["dice"]
    n = moves["unforced-moves"] + cube["close-cube"]
    # the cube's "error-skill" of gnubg.match() is per close cube decision (the chequer
    # play's is a total): the total is the sum of the kinds of cube error
    cube_error = sum(v for k, v in cube.items() if k.startswith("err-") and k.endswith("-skill"))
    error = moves["error-skill"] + cube_error
    return {"unforced_moves": moves["unforced-moves"], "total_moves": moves["total-moves"],
            "close_cube": cube["close-cube"], "total_cube": cube["total-cube"],
            "checker_error": moves["error-skill"], "cube_error": cube_error,
            "error_rate": 1000.0 * error / n if n else 0.0,
            "marked_moves": moves["marked"],
            "luck": dice["luck"], "rolls": sum(dice["marked-rolls"].values())}


def analyse(path):
    gnubg.command(f"import mat {path}")
    start = time.perf_counter()
    gnubg.command("analyse match")
    seconds = time.perf_counter() - start
    m = gnubg.match(analysis=1, boards=0, statistics=1, verbose=0)
    names = (m["match-info"]["X"]["name"], m["match-info"]["O"]["name"])
    decisions = []
    with tempfile.TemporaryDirectory() as tmp:
        gnubg.command(f"export match text {tmp}/m.txt")
        exported = sorted(glob.glob(f"{tmp}/m*.txt"), key=lambda p: (len(p), p))
        for game, text in enumerate(exported, 1):
            decisions += marked_decisions(text, names, game)
    return {"file": os.path.basename(path), "players": names, "seconds": seconds,
            "stats": [player_stats(m["stats"]["X"]), player_stats(m["stats"]["O"])],
            "decisions": decisions}


for c in ["set confirm new off",
          f"set analysis chequerplay evaluation plies {PLIES}",
          f"set analysis cubedecision evaluation plies {PLIES}",
          "set export moves number 1"] + ([f"set threads {THREADS}"] if THREADS else []):
    gnubg.command(c)
results = [analyse(p) for p in FILES]
with open(OUT, "w") as f:
    json.dump({"plies": PLIES, "gnubg": "GNU Backgammon 1.07", "threads": THREADS,
               "matches": results}, f, indent=1)
    f.write("\n")
