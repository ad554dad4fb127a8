"""Learning curves: ppg against the evaluation opponent over games trained."""

from __future__ import annotations

import os
from pathlib import Path

from bgengine.runs import RunDir, read_log

__all__ = ["plot_run"]


def _check_is_run(run: str | os.PathLike) -> None:
    """``ValueError`` unless ``run`` is a training run's directory (it has a log)."""
    rd = RunDir(run)
    if not rd.path.is_dir():
        raise ValueError(f"{run}: no such run (no such directory)")
    if not rd.log.exists():
        raise ValueError(f"{run}: not a training run (it has no {rd.log.name})")


def plot_run(runs: list[str | os.PathLike], out: str | os.PathLike) -> Path:
    """Draw the evaluation ppg (with 95% bands) of one or more runs to PNG ``out``.

    Needs matplotlib (``pip install 'bgengine[plot]'``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ValueError("plotting needs matplotlib: pip install 'bgengine[plot]'") from None
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=120)
    opponents = set()
    for run in runs:
        _check_is_run(run)
        evals = [r for r in read_log(run) if r.get("kind") == "eval"]
        if not evals:
            raise ValueError(f"{run}: no evaluations in {RunDir(run).log}")
        games = [r["games"] for r in evals]
        ppg = [r["ppg"] for r in evals]
        ci = [r["ci95"] for r in evals]
        opponents.add(evals[0]["b"])
        line, = ax.plot(games, ppg, marker="o", markersize=3, label=Path(run).name)
        ax.fill_between(games, [p - c for p, c in zip(ppg, ci)], [p + c for p, c in zip(ppg, ci)],
                        color=line.get_color(), alpha=0.2)
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xlabel("self-play games")
    ax.set_ylabel(f"ppg vs {', '.join(sorted(opponents))}")
    ax.set_title("bgengine learning curve (95% confidence bands)")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out)
    plt.close(fig)
    return out
