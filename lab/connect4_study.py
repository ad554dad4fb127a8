"""The Connect Four TD(lambda) study's grid: train every point of a sweep file's grid (by default
configs/connect4-td-grid.toml: representation x hidden x lambda), then report each final network
(greedy games from both seats against random and MM1..MM4, the 60 concept positions) as a
Markdown table, one row per run.

    python lab/connect4_study.py OUT_DIR [--grid configs/connect4-td-grid.toml] [--games N]
        [--eval-games 1000] [--json OUT_DIR/study.json]
    python lab/connect4_study.py OUT_DIR --simulation GAMES [--best 3 --trials 30]

``--simulation``: instead, the network-guided simulation learner (self-play, the network's
``best`` moves get ``trials`` playouts each), GAMES games in OUT_DIR/simulation, then its search
against the pure-simulation bot with the same budget (``best * trials`` playouts a move), and its
network alone (greedy) against random and MM1..MM4, from both seats.

The sweep file has the layout of ``bgengine sweep``'s ([sweep] seeds and eval_games, [base] a
small game's settings, [grid] lists); each run is an ordinary small-game run directory
(OUT_DIR/<point>/seed_<s>), resumable, with its curve (``bgengine plot``).  Runs already
trained are only evaluated again.
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

from bgengine.games.connect4_report import STUDY_OPPONENTS, network_report, seat_results
from bgengine.games.learners import GameRecord, GuidedSearch, play
from bgengine.games.study import GameRunConfig, train_game_run
from bgengine.training.sweep import point_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

GRID = Path(__file__).resolve().parents[1] / "configs" / "connect4-td-grid.toml"

log = logging.getLogger("connect4_study")


def runs(grid_file: Path, games: int | None) -> list[tuple[str, int, GameRunConfig]]:
    """(point name, seed, config) of every run of the grid file; ``games`` overrides."""
    doc = tomllib.loads(grid_file.read_text())
    base, grid = doc.get("base", {}), doc.get("grid", {})
    seeds = doc.get("sweep", {}).get("seeds", [1])
    if games is not None:
        base = {**base, "games": games}
    out = []
    for combo in itertools.product(*grid.values()):
        point = dict(zip(grid, combo))
        for seed in seeds:
            out.append((point_name(point), seed, GameRunConfig(**{**base, **point, "seed": seed})))
    return out


def row(config: GameRunConfig, report: dict[str, Any], minutes: float) -> str:
    """One Markdown row: the settings, each opponent's win rate as first / second player,
    the concept rates (attack / defence, diagonal) and the training minutes."""
    cells = [config.representation, "-".join(map(str, config.hidden)), f"{config.lam:g}"]
    for name in STUDY_OPPONENTS:
        r = report["opponents"][name]
        cells.append(f"{r['first']['win']:.0%} / {r['second']['win']:.0%}")
    c = report["concepts"]
    cells += [f"{c['all']:.0%}", f"{c['attack']:.0%} / {c['defence']:.0%}",
              f"{c['diagonal']:.0%}", f"{minutes:.1f}"]
    return "| " + " | ".join(cells) + " |"


HEADER = ("| representation | hidden | lambda | vs random | vs MM1 | vs MM2 | vs MM3 | vs MM4 "
          "| concepts | attack / defence | diagonal | minutes |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|")


def simulation_study(out: Path, games: int, best: int, trials: int,
                     eval_games: int) -> dict[str, Any]:
    """The network-guided simulation learner's run and its figures (see the module's doc)."""
    config = GameRunConfig(game="connect4", method="simulation", hidden=[80], alpha=0.1,
                           best=best, trials=trials, games=games, eval_every=games,
                           eval_games=100, eval_opponents=["random"])
    t0 = time.process_time()
    net = train_game_run(config, out / "simulation")
    minutes = (time.process_time() - t0) / 60
    budget = best * trials
    search = GuidedSearch(net, best, trials)
    first = play("connect4", search, "simulation", eval_games, seed=1, simulations=budget)
    o = play("connect4", "simulation", search, eval_games, seed=2, simulations=budget)
    second = GameRecord(o.losses, o.draws, o.wins)
    report = network_report(net, eval_games)
    report["search_vs_simulation"] = {"budget": budget, "first": first.rates(),
                                      "second": second.rates()}
    report["greedy_vs_simulation"] = seat_results(net, "simulation", eval_games, 1,
                                                  simulations=budget)
    report["cpu_minutes"] = minutes
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--grid", type=Path, default=GRID)
    ap.add_argument("--games", type=int, default=None, help="training games of every run")
    ap.add_argument("--eval-games", type=int, default=1000, help="final games a seat")
    ap.add_argument("--json", type=Path, default=None, help="(default OUT/study.json)")
    ap.add_argument("--simulation", type=int, default=None, metavar="GAMES",
                    help="the network-guided simulation learner instead of the grid")
    ap.add_argument("--best", type=int, default=3)
    ap.add_argument("--trials", type=int, default=30)
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.simulation is not None:
        report = simulation_study(args.out, args.simulation, args.best, args.trials,
                                  args.eval_games)
        (args.json or args.out / "simulation.json").write_text(json.dumps(report, indent=1))
        print(json.dumps(report, indent=1))
        return
    results = []
    print(HEADER, flush=True)
    for name, seed, config in runs(args.grid, args.games):
        run = args.out / name / f"seed_{seed}"
        t0 = time.process_time()
        net = train_game_run(config, run)
        minutes = (time.process_time() - t0) / 60
        report = network_report(net, args.eval_games)
        results.append({"point": name, "seed": seed, "run": str(run), "cpu_minutes": minutes,
                        **report})
        print(row(config, report, minutes), flush=True)
    path = args.json or args.out / "study.json"
    path.write_text(json.dumps(results, indent=1) + "\n")
    log.info("wrote %s", path)


if __name__ == "__main__":
    main()
