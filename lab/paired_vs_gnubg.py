"""Candidates measured against gnubg (or any opponent) on the same dice, luck-adjusted and paired.

    python lab/paired_vs_gnubg.py OUT net:A.npz net:B.npz ... --seeds 17 18 --games 20000
    python lab/paired_vs_gnubg.py OUT net:A.npz net:B.npz ... --opponent pubeval

Each player plays ``--games`` cubeless money games against gnubg 0-ply (or
``--opponent gnubg:N``, or any other player spec: those games are played from Python,
as ``bgengine match --luck`` plays them) on each seed's dice, with the luck of every
roll measured (:mod:`bgengine.decisions.luck`, by the shipped network).  Every game's points,
luck, plays and bad-reply flag are saved in ``OUT/<player>_<seed>.npz`` with the
opponent's spec (a file already there is read, not played again: an interrupted run
goes on where it stopped; one saved against another opponent is refused).

Printed: per player, the plain and the luck-adjusted ppg over all seeds with
their 95% intervals; then each player against the first, paired pair by pair on
the same dice (the players' adjusted results are correlated, so the interval of
the difference is narrower than either's).  Pairs with a bad reply in either
file are left out of a difference.
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

import numpy as np

from bgengine.opponents.gnubg import GnubgConfig, play_gnubg_pairs
from bgengine.decisions.luck import LuckMeter
from bgengine.matches.run import play_python_pairs
from bgengine.matches.players import load_default_network, make_player
from bgengine.matches.results import ci95


def file_name(spec: str, seed: int) -> str:
    """``OUT``'s file of player ``spec`` on ``seed``'s dice: the spec's last path
    part without ``.npz``, other characters made safe."""
    stem = spec.split(":", 1)[1] if spec.startswith("net:") else spec
    stem = Path(stem).name.removesuffix(".npz")
    return re.sub(r"[^A-Za-z0-9_.-]", "_", stem) + f"_{seed}.npz"


def play(spec: str, seed: int, games: int, opponent: str, out: Path, meter: LuckMeter,
         config: GnubgConfig) -> dict[str, np.ndarray]:
    """Player ``spec``'s games on ``seed``'s dice: from ``out`` if saved, else played
    and saved."""
    path = out / file_name(spec, seed)
    if path.exists():
        saved = dict(np.load(path))
        if saved["points"].shape[0] * 2 != games:
            raise ValueError(f"{path} holds {saved['points'].shape[0] * 2} games, not {games}")
        against = str(saved.get("opponent", "gnubg"))   # files from before were all gnubg's
        if against != opponent:
            raise ValueError(f"{path} holds games against {against!r}, not {opponent!r}")
        return saved
    t0 = time.monotonic()
    if opponent == "gnubg" or opponent.startswith("gnubg:"):
        res = play_gnubg_pairs(make_player(spec), make_player(opponent, config), games // 2,
                               seed=seed, luck=meter)
        arrays = {"points": res.points, "luck": res.luck, "moves": res.moves, "bad": res.bad}
    else:
        points, moves, luck = play_python_pairs(make_player(spec), make_player(opponent),
                                                games // 2, seed, luck=meter)
        arrays = {"points": points, "luck": luck, "moves": moves,
                  "bad": np.zeros(points.shape, bool)}
    arrays["opponent"] = np.array(opponent)
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, **arrays)
    tmp.replace(path)
    print(f"  {spec} seed {seed}: {games} games in {time.monotonic() - t0:.0f} s", flush=True)
    return arrays


def pair_means(runs: list[dict[str, np.ndarray]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pair over every seed: plain and luck-adjusted means, and which pairs are clean."""
    points = np.concatenate([r["points"] for r in runs]).astype(np.float64)
    luck = np.concatenate([r["luck"] for r in runs])
    clean = ~np.concatenate([r["bad"] for r in runs]).any(axis=1)
    return points.mean(axis=1), (points - luck).mean(axis=1), clean


def report(specs: list[str], runs: dict[str, list[dict[str, np.ndarray]]]) -> list[str]:
    """The table's lines (see the module's docstring)."""
    lines = ["| player | games | ppg | luck-adjusted ppg | adjusted minus the first's (paired) |",
             "|---|---|---|---|---|"]
    base = pair_means(runs[specs[0]])
    for spec in specs:
        plain, adjusted, clean = pair_means(runs[spec])
        diff = ""
        if spec != specs[0]:
            both = clean & base[2]
            d = adjusted[both] - base[1][both]
            diff = f"{d.mean():+.4f} ± {ci95(d):.4f}"
        lines.append(f"| {spec} | {2 * int(clean.sum())} | {plain[clean].mean():+.4f} ± "
                     f"{ci95(plain[clean]):.4f} | {adjusted[clean].mean():+.4f} ± "
                     f"{ci95(adjusted[clean]):.4f} | {diff} |")
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="folder of the games' arrays")
    ap.add_argument("players", nargs="+", help="player specs; the first is the reference")
    ap.add_argument("--seeds", type=int, nargs="+", default=[17])
    ap.add_argument("--games", type=int, default=20000, help="games per seed (even)")
    ap.add_argument("--opponent", default="gnubg",
                    help="gnubg, gnubg:N or any player spec, e.g. pubeval (default gnubg)")
    ap.add_argument("--gnubg-processes", type=int, default=None)
    args = ap.parse_args(argv)
    if args.games < 2 or args.games % 2:
        ap.error("--games must be even and at least 2")
    args.out.mkdir(parents=True, exist_ok=True)
    meter = LuckMeter(load_default_network())
    config = GnubgConfig(processes=args.gnubg_processes)
    runs = {spec: [play(spec, s, args.games, args.opponent, args.out, meter, config)
                   for s in args.seeds] for spec in args.players}
    print(f"against {args.opponent}, seeds {' '.join(map(str, args.seeds))}, "
          f"{args.games} games each:")
    print("\n".join(report(args.players, runs)))


if __name__ == "__main__":
    main()
