"""Runs inside GNU Backgammon (``gnubg -t -q -p gnubg_outputs.py``; see :mod:`bgengine.opponents.gnubg.evaluate`): evaluates positions.

Reads the path of a JSON-lines file from the environment variable ``OUTPUTS_IN`` and writes
one JSON line per input line to ``OUTPUTS_OUT``.  An input line is ``{"id": ..., "board":
[[25 ints], [25 ints]], "plies": P}`` with the side on roll in row 1 (gnubg's
orientation); the answer is ``{"id": ..., "outputs": [win, win gammon, win backgammon,
lose gammon, lose backgammon]}``: gnubg's cubeless P-ply probabilities for the side on roll
(gammons include backgammons), pruning on as in gnubg's own analysis.  With ``"cube":
OWNER`` in the line (-1 centred, 0 the side on roll, 1 the other; money play, cube 1,
Jacoby off) the answer is ``{"id": ..., "cube": [no double, double/take, double/pass]}``
instead: gnubg's cubeful P-ply values for the side on roll (``gnubg.cfevaluate``); with
``"match": [LENGTH, SCORE, OTHER]`` too (the side on roll's score first), at that match
score, not the Crawford game (gnubg's normalised equities).
"""

import json
import os

import gnubg

CUBE = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
gnubg.command("set jacoby off")


def main():
    contexts = {}
    cubeful = {}
    cubes = {owner: gnubg.cubeinfo(1, owner, 0, 0, (0, 0), 0, 0) for owner in (-1, 0, 1)}
    with open(os.environ["OUTPUTS_IN"]) as src, open(os.environ["OUTPUTS_OUT"], "a") as out:
        for line in src:
            if not line.strip():
                continue
            task = json.loads(line)
            plies = int(task["plies"])
            if plies not in contexts:
                contexts[plies] = gnubg.evalcontext(0, plies, 1, 1, 0.0)
            board = (tuple(task["board"][0]), tuple(task["board"][1]))
            if "cube" in task:
                if plies not in cubeful:
                    cubeful[plies] = {"cubeful": 1, "plies": plies, "deterministic": 1,
                                      "prune": 1, "noise": 0.0}
                cube = cubes[int(task["cube"])]
                if "match" in task:
                    length, mine, theirs = (int(v) for v in task["match"])
                    cube = gnubg.cubeinfo(1, int(task["cube"]), 0, length, (mine, theirs), 0, 0)
                values = gnubg.cfevaluate(board, cube, cubeful[plies])
                out.write(json.dumps({"id": task["id"], "cube": list(values[1:4])}) + "\n")
                out.flush()
                continue
            probs = gnubg.evaluate(board, CUBE, contexts[plies])
            out.write(json.dumps({"id": task["id"], "outputs": list(probs[:5])}) + "\n")
            out.flush()


main()
