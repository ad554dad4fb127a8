"""Runs inside GNU Backgammon (``gnubg -t -q -p lab/gnubg_judge.py``): judges checker plays.

Reads the path of a JSON-lines file of decisions from the environment variable
``JUDGE_IN`` and writes one JSON line per decision to ``JUDGE_OUT``.  A decision is
``{"id": ..., "board": [[25 ints], [25 ints]], "after": [[[25], [25]], ...],
"keep": [indices], "top": K, "plies": P}``: the position before the play (the mover in
row 1, gnubg's orientation) and every legal play's afterstate (the mover still in row
1).  Every afterstate is valued at gnubg's 0-ply, then the ``top`` best of them and the
``keep`` plays (the plays the players made) again at ``plies`` (pruning on, as gnubg's
own analysis does).  Values are cubeless money equities of the mover (gammons and
backgammons count, no Jacoby rule).  The answer: ``{"id", "class" (gnubg's
``classifypos``), "eq0": [per play], "eqn": {index: equity}}``.
"""

import json
import os

import gnubg

gnubg.command("set jacoby off")
CUBE = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)


def equity(probs):
    """Cubeless money equity of gnubg's five probabilities (gammons include backgammons)."""
    return 2.0 * probs[0] - 1.0 + probs[1] + probs[2] - probs[3] - probs[4]


def mover_equity(after, context):
    """The mover's equity after its play: the opponent is on roll in ``after`` swapped."""
    if sum(after[1]) == 0:              # the mover has borne off its last checker
        rest = after[0]
        gammon = sum(rest) == 15
        backgammon = gammon and sum(rest[18:25]) > 0
        return 3.0 if backgammon else 2.0 if gammon else 1.0
    swapped = (tuple(after[1]), tuple(after[0]))
    return -equity(gnubg.evaluate(swapped, CUBE, context))


def judge(task):
    after = task["after"]
    ctx0 = gnubg.evalcontext(0, 0, 1, 0, 0.0)
    ctxn = gnubg.evalcontext(0, int(task["plies"]), 1, 1, 0.0)
    eq0 = [mover_equity(a, ctx0) for a in after]
    order = sorted(range(len(after)), key=lambda i: -eq0[i])
    chosen = set(order[:int(task["top"])]) | set(task["keep"])
    eqn = {str(i): mover_equity(after[i], ctxn) for i in sorted(chosen)}
    board = (tuple(task["board"][0]), tuple(task["board"][1]))
    return {"id": task["id"], "class": gnubg.classifypos(board, 0), "eq0": eq0, "eqn": eqn}


def main():
    with open(os.environ["JUDGE_IN"]) as src, open(os.environ["JUDGE_OUT"], "a") as out:
        for line in src:
            if line.strip():
                out.write(json.dumps(judge(json.loads(line))) + "\n")
                out.flush()


main()
