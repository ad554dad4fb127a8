"""Runs inside GNU Backgammon (``gnubg -t -q -p gnubg_outputs.py``; see :mod:`bgengine.opponents.gnubg.evaluate`): evaluates positions.

Reads the path of a JSON-lines file from the environment variable ``OUTPUTS_IN`` and writes
one JSON line per input line to ``OUTPUTS_OUT``.  An input line is ``{"id": ..., "board":
[[25 ints], [25 ints]], "plies": P}`` with the side on roll in row 1 (gnubg's
orientation); the answer is ``{"id": ..., "outputs": [win, win gammon, win backgammon,
lose gammon, lose backgammon]}``: gnubg's cubeless P-ply probabilities for the side on roll
(gammons include backgammons), pruning on as in gnubg's own analysis.
"""

import json
import os

import gnubg

CUBE = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)


def main():
    contexts = {}
    with open(os.environ["OUTPUTS_IN"]) as src, open(os.environ["OUTPUTS_OUT"], "a") as out:
        for line in src:
            if not line.strip():
                continue
            task = json.loads(line)
            plies = int(task["plies"])
            if plies not in contexts:
                contexts[plies] = gnubg.evalcontext(0, plies, 1, 1, 0.0)
            board = (tuple(task["board"][0]), tuple(task["board"][1]))
            probs = gnubg.evaluate(board, CUBE, contexts[plies])
            out.write(json.dumps({"id": task["id"], "outputs": list(probs[:5])}) + "\n")
            out.flush()


main()
