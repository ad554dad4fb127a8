"""Where a network loses against GNU Backgammon's 0-ply: every checker play judged by gnubg 2-ply.

    python lab/diagnose_vs_gnubg.py OUT [--player net] [--pairs 200] [--seed 0]
                                          [--plies 2] [--top 4] [--jobs 2]

Three steps, each skipped when its output is already in OUT:

1. ``play``: ``--pairs`` seat-swapped pairs of cubeless money games between the player
   and gnubg 0-ply (pair ``i`` rolls ``Dice(seed, stream=i)``, as ``bgengine match``
   does).  The games go to ``OUT/games.mat`` (player 0 is the network); every decision
   with more than one legal play goes to ``OUT/decisions.jsonl`` with the play made and
   the play the OTHER engine would have made in the same spot (gnubg 0-ply is asked at
   the network's decisions, the network at gnubg's).
2. ``judge``: gnubg (``lab/gnubg_judge.py``, ``--jobs`` processes, niced) values every
   legal play at its 0-ply and the ``--top`` best plus both engines' plays at
   ``--plies`` (``OUT/judged-*.jsonl``).
3. ``report``: equity lost per decision against the best judged play, for each side,
   by position class (``OUT/report.json`` and a markdown table on stdout):

   * ``bearoff``: both sides have every checker home; ``race``: no contact; ``crashed``
     and ``contact``: gnubg's own classes (``classifypos``); contact is split further
     into phases (see :func:`phase`).
   * ``error``: equity lost by the play made (against the best play at ``--plies``),
     summed per game and per decision, with a 95% interval over games (decisions of
     one game are not independent).
   * ``gnubg's play - net's play``: at the very same decisions (both sides' positions),
     the judged equity of gnubg 0-ply's play minus the network's: a paired measure of
     where the network's choices are worse (positive) than gnubg's own.

Equities are cubeless money equities of the mover (a gammon counts 2, a backgammon 3).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import sys
from pathlib import Path

import numpy as np

from bgengine.core.board import pip_counts
from bgengine.core.dice import Dice
from bgengine.matches.game import game_decisions
from bgengine.opponents.gnubg.binary import run_gnubg_scripts
from bgengine.matchfiles.record import GameRecorder, MatchRecord
from bgengine.matchfiles.mat import write_mat
from bgengine.matches.players import make_player

log = logging.getLogger("diagnose")

#: gnubg's ``classifypos`` values (eval.h ``positionclass``).
GNUBG_RACE, GNUBG_CRASHED, GNUBG_CONTACT = 8, 9, 10
CLASSES = ("bearoff", "race", "crashed", "contact")
PHASES = ("opening", "back game", "holding", "middle")
SIDES = ("net", "gnubg")


# ====================================================================== step 1: play

def play(out: Path, player_spec: str, pairs: int, seed: int) -> None:
    """Play the games, write ``games.mat`` and ``decisions.jsonl``."""
    net = make_player(player_spec)
    gnubg = make_player("gnubg")
    games = []
    n_dec = 0
    points = []
    score = [0, 0]                     # the session's running score (the .mat needs it)
    with open(out / "decisions.jsonl.tmp", "w") as dec_out, gnubg:
        for pair in range(pairs):
            for g in (0, 1):
                # seat 0 moves first; in game 0 the network has seat 0, in game 1 gnubg
                engines = (net, gnubg) if g == 0 else (gnubg, net)
                loop = game_decisions(Dice(seed, stream=pair))
                rec = GameRecorder(tuple(score))
                k = None
                while True:
                    try:
                        d = loop.send(k)
                    except StopIteration as end:
                        seat0_points, _ = end.value
                        break
                    mover = engines[d.turn]
                    if len(d.afterstates) == 1:
                        k = 0
                    else:
                        net_k = net.choose(d.board, d.d1, d.d2, 0)
                        gnubg_k = gnubg.choose(d.board, d.d1, d.d2)
                        k = net_k if mover is net else gnubg_k
                        dec_out.write(json.dumps({
                            "id": n_dec, "pair": pair, "game": g, "number": d.number,
                            "side": "net" if mover is net else "gnubg",
                            "board": d.board.tolist(), "dice": [d.d1, d.d2],
                            "net": net_k, "gnubg": gnubg_k}) + "\n")
                        n_dec += 1
                    # the .mat's player 0 is the network whichever seat it had
                    rec("play", 0 if mover is net else 1, d, k)
                net_points = seat0_points if g == 0 else -seat0_points
                points.append(net_points)
                score[0 if net_points > 0 else 1] += abs(net_points)
                games.append(rec.finish(0 if net_points > 0 else 1, abs(net_points)))
            log.info("pair %d/%d: %d decisions, network %+.3f ppg so far", pair + 1, pairs,
                     n_dec, float(np.mean(points)))
    match = MatchRecord(("bgengine " + player_spec, "gnubg 0-ply"), 0, games, jacoby=False,
                        metadata={"Event": f"diagnosis, seed {seed}"})
    (out / "games.mat").write_text(write_mat(match))
    (out / "points.json").write_text(json.dumps(points))
    os.replace(out / "decisions.jsonl.tmp", out / "decisions.jsonl")


# ====================================================================== step 2: judge

def judge(out: Path, plies: int, top: int, jobs: int) -> None:
    """Value the decisions with gnubg in ``jobs`` niced processes (resumable)."""
    from bgengine.core.movegen import legal_afterstates

    decisions = [json.loads(x) for x in open(out / "decisions.jsonl")]
    done = set()
    for f in out.glob("judged-*.jsonl"):
        done |= {json.loads(x)["id"] for x in open(f) if x.strip()}
    todo = [d for d in decisions if d["id"] not in done]
    log.info("judging %d of %d decisions at %d-ply in %d processes", len(todo), len(decisions),
             plies, jobs)
    if not todo:
        return
    shards = [out / f"todo-{j}.jsonl" for j in range(jobs)]
    files = [open(s, "w") for s in shards]
    for i, d in enumerate(todo):
        after, _ = legal_afterstates(np.array(d["board"], np.uint8), *d["dice"])
        task = {"id": d["id"], "board": d["board"], "after": after.tolist(),
                "keep": sorted({d["net"], d["gnubg"]}), "top": top, "plies": plies}
        files[i % jobs].write(json.dumps(task) + "\n")
    for f in files:
        f.close()
    run_gnubg_scripts(Path(__file__).with_name("gnubg_judge.py"),
                      [{"JUDGE_IN": str(shard), "JUDGE_OUT": str(out / f"judged-{j}.jsonl")}
                       for j, shard in enumerate(shards)], niceness=15)


# ====================================================================== step 3: report

def position_class(board: np.ndarray, gnubg_class: int) -> str:
    """``bearoff`` (every checker of both sides home), ``race``, ``crashed`` or ``contact``."""
    home = all(board[s, 6:].sum() == 0 for s in (0, 1))
    if home:
        return "bearoff"
    if gnubg_class < GNUBG_CRASHED:
        return "race"
    return "crashed" if gnubg_class == GNUBG_CRASHED else "contact"


def phase(board: np.ndarray, number: int) -> str:
    """Phase of a contact position, either side's view:

    * ``opening``: the game's first six plays;
    * ``back game``: a side holds two or more points in its opponent's home board
      (its own points 19-24) and trails in the race by 30 pips or more;
    * ``holding``: a side holds a point on its own 18-21 (the opponent's 4-7 points)
      and trails by 10 pips or more;
    * ``middle``: every other contact position.
    """
    if number < 6:
        return "opening"
    mover, opponent = pip_counts(board)
    pips = (opponent, mover)          # by row: row 0 is the opponent, row 1 the mover
    for s in (0, 1):
        behind = int(pips[s]) - int(pips[1 - s])
        if (board[s, 18:24] >= 2).sum() >= 2 and behind >= 30:
            return "back game"
    for s in (0, 1):
        behind = int(pips[s]) - int(pips[1 - s])
        if (board[s, 17:21] >= 2).any() and behind >= 10:
            return "holding"
    return "middle"


def ci95(per_game: np.ndarray) -> tuple[float, float]:
    """Mean and 95% half-width over games."""
    n = per_game.size
    if n < 2:
        return float(per_game.mean()) if n else 0.0, math.nan
    return float(per_game.mean()), float(1.96 * per_game.std(ddof=1) / math.sqrt(n))


def report(out: Path) -> dict:
    decisions = {d["id"]: d for d in map(json.loads, open(out / "decisions.jsonl"))}
    judged = {}
    for f in sorted(out.glob("judged-*.jsonl")):
        for line in open(f):
            if line.strip():
                j = json.loads(line)
                judged[j["id"]] = j
    # games whose every decision is judged (all of them once the judge has finished)
    partial = {(d["pair"], d["game"]) for d in decisions.values() if d["id"] not in judged}
    games = sorted({(d["pair"], d["game"]) for d in decisions.values()} - partial)
    gindex = {g: i for i, g in enumerate(games)}
    n_games = len(games)
    keys = [(c, None) for c in CLASSES] + [("contact", p) for p in PHASES] + [("all", None)]
    # per game sums: error of each side, count of each side's decisions, paired difference
    err = {k: {s: np.zeros(n_games) for s in SIDES} for k in keys}
    cnt = {k: {s: np.zeros(n_games) for s in SIDES} for k in keys}
    diff = {k: np.zeros(n_games) for k in keys}
    differ = {k: 0 for k in keys}
    n_judged = 0
    for i, d in decisions.items():
        j = judged.get(i)
        if j is None or (d["pair"], d["game"]) in partial:
            continue
        n_judged += 1
        board = np.array(d["board"], np.uint8)
        eqn = {int(k): v for k, v in j["eqn"].items()}
        best = max(eqn.values())
        made = d["net"] if d["side"] == "net" else d["gnubg"]
        cls = position_class(board, j["class"])
        ks = [(cls, None), ("all", None)]
        if cls == "contact":
            ks.append(("contact", phase(board, d["number"])))
        gi = gindex[(d["pair"], d["game"])]
        for k in ks:
            err[k][d["side"]][gi] += best - eqn[made]
            cnt[k][d["side"]][gi] += 1
            diff[k][gi] += eqn[d["gnubg"]] - eqn[d["net"]]
            differ[k] += d["net"] != d["gnubg"]
    rows = {}
    for k in keys:
        name = k[0] if k[1] is None else f"contact: {k[1]}"
        row = {"differ": differ[k]}
        for s in SIDES:
            n = int(cnt[k][s].sum())
            total = float(err[k][s].sum())
            row[s] = {"decisions": n, "equity_lost": total,
                      "per_decision": total / n if n else math.nan,
                      "per_game": ci95(err[k][s])}
        row["net_minus_gnubg_errors_per_game"] = ci95(err[k]["net"] - err[k]["gnubg"])
        row["net_loss_vs_gnubg_choice_per_game"] = ci95(diff[k])
        n_all = int(cnt[k]["net"].sum() + cnt[k]["gnubg"].sum())
        row["net_loss_vs_gnubg_choice_per_decision"] = (float(diff[k].sum()) / n_all
                                                              if n_all else math.nan)
        rows[name] = row
    points = json.loads((out / "points.json").read_text()) if (out / "points.json").exists() else []
    judged_points = np.array([points[2 * p + g] for p, g in games], float) if points else None
    summary = {"games": n_games, "decisions": len(decisions), "judged": n_judged,
               "network_ppg": ci95(np.array(points, float)) if points else None,
               "network_ppg_judged_games": ci95(judged_points) if points else None, "rows": rows}
    (out / "report.json").write_text(json.dumps(summary, indent=1))
    return summary


def markdown(summary: dict) -> str:
    """The report as markdown tables (equities x 1000, i.e. millipoints)."""
    def pm(v):
        return f"{1000 * v[0]:+.1f} ± {1000 * v[1]:.1f}"
    ppg = summary["network_ppg_judged_games"]
    lines = [f"{summary['games']} games judged in full ({summary['judged']} of "
             f"{summary['decisions']} decisions; equity x 1000)"
             + (f"; the network scored {ppg[0]:+.3f} ± {ppg[1]:.3f} ppg in them" if ppg else ""),
             "",
             "| class | decisions net / gnubg | error per decision net / gnubg | "
             "error per game net | error per game gnubg | net - gnubg per game | "
             "plays differ | gnubg's play - net's play, per game (same decisions) |",
             "|---|---|---|---|---|---|---|---|"]
    for name, r in summary["rows"].items():
        n, g = r["net"], r["gnubg"]
        lines.append(
            f"| {name} | {n['decisions']} / {g['decisions']} | "
            f"{1000 * n['per_decision']:.1f} / {1000 * g['per_decision']:.1f} | "
            f"{pm(n['per_game'])} | {pm(g['per_game'])} | "
            f"{pm(r['net_minus_gnubg_errors_per_game'])} | {r['differ']} | "
            f"{pm(r['net_loss_vs_gnubg_choice_per_game'])} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--player", default="net", help="the network's player spec (default: net)")
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--plies", type=int, default=2, help="gnubg's lookahead as judge")
    ap.add_argument("--top", type=int, default=4, help="plays judged at --plies besides both engines'")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    args.out.mkdir(parents=True, exist_ok=True)
    if not (args.out / "decisions.jsonl").exists():
        play(args.out, args.player, args.pairs, args.seed)
    judge(args.out, args.plies, args.top, args.jobs)
    print(markdown(report(args.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
