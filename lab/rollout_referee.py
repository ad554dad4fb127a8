"""Rollouts as the referee where the network and gnubg 0-ply chose different plays.

    python lab/rollout_referee.py OUT [--class race] [--trials 1296] [--player net]
    python lab/rollout_referee.py OUT --candidate net:CAND.npz [...]

``OUT`` is a folder written by ``lab/diagnose_vs_gnubg.py``: its ``decisions.jsonl``
holds, at every decision of the games, the play the network chose and the play gnubg 0-ply
chose.  Where they differ (in positions of ``--class`` by our evaluator's classes: race,
contact or exact; or ``all``), both plays are rolled out by bgengine (``--trials`` games each
at 0-ply with variance reduction, both plays on the same dice, so their difference is measured
far more precisely than either value).  Unlike the gnubg 2-ply judge of ``diagnose_vs_gnubg``,
whose leaves are gnubg 0-ply's own values, this referee does not lean toward gnubg's choices
(it leans, if anything, toward the player's, whose network plays the rollouts).

Printed: the decisions compared, the rollout equity of gnubg's play minus the network's
(sum, and per game of the match), how many differences are more than two standard errors
either way, and the same sum by the gnubg judge when ``judged-*.jsonl`` are there.  Saved:
``OUT/referee-CLASS.json`` (each decision's difference and its standard error).

With ``--candidate SPEC`` the other play is not gnubg's but the one that player (e.g. a new
network) chooses at the same decision: a paired measure, on the same positions, of how much a
candidate's plays gain over the network's (``OUT/referee-CLASS-candidate.json``).  Self-play
only: gnubg's values are used to judge, never to train.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from bgengine.core.board import game_result
from bgengine.core.evaluator import CLASSES, as_evaluator
from bgengine.core.movegen import legal_afterstates
from bgengine.core.network import equity_of
from bgengine.matches.players import load_network_spec, make_player
from bgengine.core.search import rollout


def play_equity(model, board: np.ndarray, dice: tuple[int, int], play: int, trials: int,
                seed: int, threads: int) -> np.ndarray:
    """Per trial, the mover's cubeless equity after ``play`` (float64, (trials,)), by a
    rollout with variance reduction; a play that bears off the last checker wins
    outright (its equity is the game's points, every trial)."""
    after, _ = legal_afterstates(board, *dice)
    points = game_result(after[play])                           # > 0: the mover has borne off
    if points:
        return np.full(trials, float(points))
    opp = np.ascontiguousarray(after[play][::-1])              # the opponent on roll
    r = rollout(model, opp, trials, seed=seed, variance_reduction=True, n_threads=threads)
    return -np.asarray(equity_of(np.asarray(r["per_trial"], np.float64)), np.float64)


def read_decisions(out: Path) -> list[dict]:
    """``OUT/decisions.jsonl`` of ``diagnose_vs_gnubg``, one dict per decision."""
    with open(out / "decisions.jsonl") as f:
        return [json.loads(line) for line in f]


def judged_differences(out: Path) -> dict[int, float]:
    """gnubg's judged equity of its own play minus the network's, per decision id, where
    ``diagnose_vs_gnubg`` judged both."""
    dec = {d["id"]: d for d in read_decisions(out)}
    diffs = {}
    for path in sorted(out.glob("judged-*.jsonl")):
        with path.open() as f:
            for j in map(json.loads, f):
                d = dec[j["id"]]
                a, b = j["eqn"].get(str(d["gnubg"])), j["eqn"].get(str(d["net"]))
                if a is not None and b is not None:
                    diffs[j["id"]] = a - b
    return diffs


def referee(out: Path, klass: str, trials: int, player: str | None, threads: int = 2,
            progress: bool = True, candidate: str | None = None) -> list[dict]:
    """Each differing decision of ``klass`` (or ``all``): its id, side, and the rollout
    equity of gnubg's play (or ``candidate``'s) minus the network's with its standard
    error."""
    model = load_network_spec(player)
    evaluator = as_evaluator(model)
    rows = []
    decisions = [d for d in read_decisions(out) if klass == "all" or
                 CLASSES[evaluator.classify(np.array(d["board"], np.uint8))] == klass]
    other = "gnubg"
    if candidate is not None:
        chooser, other = make_player(candidate), "candidate"
        for d in decisions:
            d[other] = int(chooser.choose(np.array(d["board"], np.uint8), *d["dice"], 0))
    todo = [d for d in decisions if d["net"] != d[other]]
    t0 = time.monotonic()
    for i, d in enumerate(todo):
        board = np.array(d["board"], np.uint8)
        seed = 1000 + int(d["id"])                  # the same dice for both plays
        ours, theirs = (play_equity(model, board, tuple(d["dice"]), d[k], trials, seed, threads)
                        for k in ("net", other))
        diff = theirs - ours
        rows.append({"id": d["id"], "side": d["side"], "pair": d["pair"],
                     "diff": float(diff.mean()), "stderr": float(diff.std() / np.sqrt(trials))})
        if progress and (i + 1) % 50 == 0:
            print(f"  {i + 1} of {len(todo)} decisions, {time.monotonic() - t0:.0f} s", flush=True)
    return rows


def summary(rows: list[dict], games: int, judged: dict[int, float],
            other: str = "gnubg's") -> list[str]:
    diff = np.array([r["diff"] for r in rows])
    err = np.array([r["stderr"] for r in rows])
    decisive = np.abs(diff) > 2 * err
    lines = [f"{len(rows)} decisions where the plays differ",
             f"rollouts: {other} play minus the network's {diff.sum():+.3f} in all "
             f"(± {2 * np.sqrt((err ** 2).sum()):.3f} from the trials), "
             f"{diff.sum() / games:+.4f} per game of {games}",
             f"more than two standard errors apart: {other} better in "
             f"{int((diff[decisive] > 0).sum())}, the network's in {int((diff[decisive] < 0).sum())}"]
    both = [(r["diff"], judged[r["id"]]) for r in rows if r["id"] in judged]
    if both:
        b = np.array(both)
        agree = np.mean(np.sign(b[:, 0]) == np.sign(b[:, 1]))
        lines.append(f"the gnubg judge on the same {len(b)} decisions: {b[:, 1].sum():+.3f} "
                     f"(the same sign as the rollouts in {100 * agree:.0f}%)")
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="a folder of lab/diagnose_vs_gnubg.py")
    ap.add_argument("--class", dest="klass", choices=(*CLASSES, "all"), default="race")
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--player", default=None, help="the network that plays the rollouts")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--candidate", default=None, metavar="SPEC",
                    help="compare this player's plays with the network's instead of gnubg's")
    args = ap.parse_args(argv)
    rows = referee(args.out, args.klass, args.trials, args.player, args.threads,
                   candidate=args.candidate)
    games = len({(d["pair"], d["game"]) for d in read_decisions(args.out)})
    suffix = "" if args.candidate is None else "-candidate"
    (args.out / f"referee-{args.klass}{suffix}.json").write_text(json.dumps(rows))
    if args.candidate is None:
        print("\n".join(summary(rows, games, judged_differences(args.out))))
    else:
        print("\n".join(summary(rows, games, {}, f"{args.candidate}'s")))


if __name__ == "__main__":
    main()
