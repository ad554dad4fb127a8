"""Learning curve of a training run against GNU Backgammon's 0-ply and pubeval.

    python lab/strength_curve.py training/NAME [--gnubg-games 4000] [--pubeval-games 20000]
        [--luck]

Every snapshot of the run (``RUN/checkpoints/games_N.npz``) and its latest network
(``RUN/network.npz``) plays gnubg at 0-ply and pubeval, on the same dice for every
network (fixed seeds).  Results are appended to ``RUN/strength.jsonl`` (one JSON object
per network and opponent; networks already measured with as many games are skipped, so
the script can be run again as the run goes on) and drawn to ``RUN/strength.png``.
``--luck`` luck-adjusts the games against gnubg (``bgengine match --luck``); the figure
draws the luck-adjusted figures of an opponent where every point has them.
Needs gnubg (``apt-get install gnubg``) and matplotlib.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bgengine.core.evaluator import load_evaluator
from bgengine.matches.run import run_match
from bgengine.matches.players import load_network, make_player
from bgengine.core.agents import Player
from bgengine.training.run_dir import RunDir

GNUBG_SEED = 1000
PUBEVAL_SEED = 2000


def snapshots(run: Path) -> list[tuple[int, Path]]:
    """(games trained, file) of the run's snapshots and latest network, oldest first."""
    rd = RunDir(run)
    out = dict(rd.snapshot_files())
    latest = rd.network
    if latest.exists():
        games = load_evaluator(latest).metadata.get("training", {}).get("games")
        if isinstance(games, int):
            out.setdefault(games, latest)
    return sorted(out.items())


def measured(path: Path) -> dict[tuple[int, str], dict]:
    done = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                r = json.loads(line)
                done[(r["trained_games"], r["opponent"])] = r
            except (json.JSONDecodeError, KeyError):
                continue
    return done


def measure_against_both(path: Path, key: int, extra: dict, done: dict, out: Path, gnubg,
                         gnubg_games: int, pubeval_games: int, label: str,
                         luck=None) -> None:
    """Play the network at ``path`` against gnubg 0-ply and pubeval on the curve's dice,
    unless ``done[(key, opponent)]`` already has as many games; append each new result
    (``trained_games`` = ``key``, plus ``extra``) to ``out`` and to ``done``.  With
    ``luck`` (a :class:`bgengine.decisions.luck.LuckMeter`) the games against gnubg are
    luck-adjusted too (and measured again where an earlier record is not)."""
    me = Player("net", load_network(path), name=path.name)
    for opponent, player, n, seed in (("gnubg", gnubg, gnubg_games, GNUBG_SEED),
                                      ("pubeval", Player("pubeval"), pubeval_games, PUBEVAL_SEED)):
        meter = luck if opponent == "gnubg" else None
        before = done.get((key, opponent), {})
        if n <= 0 or (before.get("games", 0) >= n
                      and (meter is None or before.get("luck_adjusted_ppg") is not None)):
            continue
        res = run_match(me, player, n, seed=seed, luck=meter)
        record = {"trained_games": key, "opponent": opponent, **extra, **res.as_dict()}
        done[(key, opponent)] = record
        with open(out, "a") as f:
            f.write(json.dumps(record) + "\n")
        print(f"{label} {res}", flush=True)


def series(records: list[dict]) -> tuple[list[float], list[float], bool]:
    """The ppg and 95% half-widths to draw for ``records`` (one opponent, in order): the
    luck-adjusted ones where every record has them, else the plain ones; and which."""
    adjusted = bool(records) and all(r.get("luck_adjusted_ppg") is not None for r in records)
    if adjusted:
        return ([r["luck_adjusted_ppg"] for r in records],
                [r["luck_adjusted_ci95"] for r in records], True)
    return [r["ppg"] for r in records], [r["ci95"] for r in records], False


def plot(run: Path, records: list[dict]) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=120)
    for opponent in ("gnubg", "pubeval"):
        rs = sorted((r for r in records if r["opponent"] == opponent),
                    key=lambda r: r["trained_games"])
        if not rs:
            continue
        x = [r["trained_games"] / 1e6 for r in rs]
        y, c, adjusted = series(rs)
        label = "vs gnubg 0-ply" if opponent == "gnubg" else "vs pubeval"
        line, = ax.plot(x, y, marker="o", markersize=3,
                        label=label + (", luck-adjusted" if adjusted else ""))
        ax.fill_between(x, [a - b for a, b in zip(y, c)], [a + b for a, b in zip(y, c)],
                        color=line.get_color(), alpha=0.2)
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xlabel("self-play games (millions)")
    ax.set_ylabel("ppg (cubeless money games)")
    ax.set_title(f"{run.name}: learning curve (95% confidence bands)")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    out = run / "strength.png"
    fig.savefig(out)
    plt.close(fig)
    return out


def add_luck_argument(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--luck", action="store_true",
                    help="luck-adjust the games against gnubg (the shipped network values the "
                         "rolls; bgengine match --luck): intervals about 4x narrower")


def luck_meter(args: argparse.Namespace):
    """The luck meter ``--luck`` asks for, or None."""
    if not args.luck:
        return None
    from bgengine.decisions.luck import LuckMeter
    from bgengine.matches.players import load_default_network

    return LuckMeter(load_default_network())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", type=Path)
    ap.add_argument("--gnubg-games", type=int, default=4000)
    ap.add_argument("--pubeval-games", type=int, default=20000)
    add_luck_argument(ap)
    args = ap.parse_args(argv)
    out = args.run / "strength.jsonl"
    done = measured(out)
    gnubg, luck = make_player("gnubg"), luck_meter(args)
    try:
        for games, path in snapshots(args.run):
            measure_against_both(path, games, {"file": str(path)}, done, out, gnubg,
                                 args.gnubg_games, args.pubeval_games, f"{games:>10}",
                                 luck=luck)
    finally:
        gnubg.close()
    print(f"wrote {plot(args.run, list(done.values()))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
