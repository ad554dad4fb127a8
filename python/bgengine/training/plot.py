"""Plots to PNG: learning curves (backgammon: ppg against the evaluation opponent; a small
game: the win rate against each evaluation opponent from either seat; over games trained:
"self-play games", or "training games" for a small game's run against a reference player)
and a match analysis's equity over the match."""

from __future__ import annotations

import os
from pathlib import Path

from bgengine.training.run_dir import RunDir, read_log

__all__ = ["plot_run", "plot_match_analysis"]


def _check_is_run(run: str | os.PathLike) -> None:
    """``ValueError`` unless ``run`` is a training run's directory (it has a log)."""
    rd = RunDir(run)
    if not rd.path.is_dir():
        raise ValueError(f"{run}: no such run (no such directory)")
    if not rd.log.exists():
        raise ValueError(f"{run}: not a training run (it has no {rd.log.name})")


def _games_counted(run: str | os.PathLike) -> str:
    """What a run's x-axis counts: "self-play games" for backgammon runs; another game's
    run says (:mod:`bgengine.other_games`: "training games" against a reference player)."""
    from bgengine.other_games import owner_of_run_config

    config = RunDir(run).config
    owner = owner_of_run_config(config) if config.is_file() else None
    return "self-play games" if owner is None else owner.games_counted(config)


def _pyplot():
    """matplotlib's pyplot on the file-only backend; ``ValueError`` if it is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ValueError("plotting needs matplotlib: pip install 'bgengine[plot]'") from None
    return plt


def _game_curves(ax, run: str | os.PathLike, records: list[dict],
                 opponents: list[str] | None) -> set[str]:
    """A small game's run: one line per evaluation opponent and seat (win rate; the second
    seat dashed); returns the opponents drawn."""
    drawn = set()
    wanted = opponents or list(dict.fromkeys(r["opponent"] for r in records))
    for opponent in wanted:
        for seat, style in (("first", "-"), ("second", "--")):
            rows = [r for r in records if r["opponent"] == opponent and r["seat"] == seat]
            if rows:
                ax.plot([r["games"] for r in rows], [r["win"] for r in rows], style,
                        marker="o", markersize=2,
                        label=f"{Path(run).name}: vs {opponent}, {seat}")
                drawn.add(opponent)
    if opponents and not drawn:
        known = sorted({r["opponent"] for r in records})
        raise ValueError(f"{run}: no evaluations against {', '.join(opponents)}; "
                         f"it has {', '.join(known)}")
    return drawn


def plot_run(runs: list[str | os.PathLike], out: str | os.PathLike,
             opponents: list[str] | None = None) -> Path:
    """Draw the evaluation curves of one or more runs to PNG ``out``: a backgammon run's ppg
    (with 95% bands); a small game's win rate against each evaluation opponent (or only
    ``opponents``) from either seat.

    Needs matplotlib (``pip install 'bgengine[plot]'``).
    """
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=120)
    opponents_drawn, counted, kinds = set(), set(), set()
    for run in runs:
        _check_is_run(run)
        counted.add(_games_counted(run))
        log = list(read_log(run))
        game_records = [r for r in log if r.get("kind") == "game_eval"]
        if game_records:
            kinds.add("win rate")
            opponents_drawn |= _game_curves(ax, run, game_records, opponents)
            continue
        kinds.add("ppg")
        evals = [r for r in log if r.get("kind") == "eval"]
        if not evals:
            raise ValueError(f"{run}: no evaluations in {RunDir(run).log}")
        games = [r["games"] for r in evals]
        ppg = [r["ppg"] for r in evals]
        ci = [r["ci95"] for r in evals]
        opponents_drawn.add(evals[0]["b"])
        line, = ax.plot(games, ppg, marker="o", markersize=3, label=Path(run).name)
        ax.fill_between(games, [p - c for p, c in zip(ppg, ci)], [p + c for p, c in zip(ppg, ci)],
                        color=line.get_color(), alpha=0.2)
    if len(kinds) > 1:
        raise ValueError("a backgammon run and a small game's run cannot share a plot")
    if "ppg" in kinds:
        ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xlabel(counted.pop() if len(counted) == 1 else "training games")
    ax.set_ylabel(f"{next(iter(kinds))} vs {', '.join(sorted(opponents_drawn))}")
    ax.set_title("bgengine learning curve" + (" (95% confidence bands)" if "ppg" in kinds else ""))
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out)
    plt.close(fig)
    return out


def plot_match_analysis(analysis, out: str | os.PathLike) -> Path:
    """Draw a :class:`bgengine.decisions.analysis.MatchAnalysis` to PNG ``out``: after each play, the
    first player's match-winning chance (a match) or cubeful equity in points (money: per
    cube times the cube), at the analysis depth; errors and blunders marked, games
    separated.  Needs matplotlib."""
    plt = _pyplot()
    a = analysis
    xs, ys, marks = [], [], []
    for d in a.decisions:
        if d.kind != "play":
            if d.mark in ("error", "blunder"):
                marks.append((len(xs), d))
            continue
        mine = d.value if d.player == 0 else (-d.value if a.is_money else 1.0 - d.value)
        ys.append(100.0 * mine if not a.is_money else mine * d.state.match.cube)
        xs.append(len(xs))
        if d.mark in ("error", "blunder"):
            marks.append((xs[-1], d))
    fig, ax = plt.subplots(figsize=(9, 4.5), dpi=120)
    ax.plot(xs, ys, linewidth=1.2, color="tab:blue")
    plays = [d for d in a.decisions if d.kind == "play"]
    for k in (k for k in range(1, len(plays)) if plays[k].game != plays[k - 1].game):
        ax.axvline(k - 0.5, color="grey", linewidth=0.6, linestyle=":")
    for k, d in marks:
        y = ys[min(k, len(ys) - 1)] if ys else 0.0
        ax.plot([k], [y], marker="v" if d.mark == "blunder" else "o", linestyle="none",
                color="tab:red" if d.player == 0 else "tab:orange", markersize=6)
    ax.axhline(50.0 if not a.is_money else 0.0, color="grey", linewidth=0.8)
    ax.set_xlabel("play (games separated by dotted lines; red/orange: errors and blunders "
                  f"of {a.match.players[0]}/{a.match.players[1]})", fontsize=8)
    ax.set_ylabel(f"{a.match.players[0]}'s " + ("equity (points)" if a.is_money
                                                  else "match-winning chance (%)"))
    kind = f"{a.match.length}-point match" if a.match.length else "money session"
    ax.set_title(f"{a.match.players[0]} vs {a.match.players[1]}, {kind}: analysis at "
                 f"{a.plies}-ply")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out)
    plt.close(fig)
    return out
