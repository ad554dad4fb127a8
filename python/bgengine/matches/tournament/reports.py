"""Tournament reports: number formats, text, CSV and PNG files."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Callable

from bgengine.core.fileio import atomic_write
from bgengine.matches.tournament.entrants import Warn

__all__ = ["fmt_ppg", "json_number", "shorten", "csv_number", "write_text", "matplotlib_canvas",
           "try_png"]


def fmt_ppg(ppg: float, ci: float) -> str:
    if math.isnan(ppg):
        return "·"
    return f"{ppg:+.3f}±{ci:.3f}" if math.isfinite(ci) else f"{ppg:+.3f}±inf"


def json_number(x: float) -> float | None:
    """JSON-safe float: NaN and inf become null."""
    return float(x) if math.isfinite(x) else None


def shorten(name: str, width: int) -> str:
    return name if len(name) <= width else "…" + name[-(width - 1):]


def csv_number(x: float) -> str:
    return "" if x is None or not math.isfinite(x) else f"{x:.6f}"


def write_text(path: Path, text: str) -> Path:
    atomic_write(path, lambda f: f.write(text.encode("utf-8")))
    return path


def matplotlib_canvas():
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ValueError("plotting needs matplotlib: pip install 'bgengine[plot]'") from None
    return Figure, FigureCanvasAgg


def try_png(draw: Callable[[], Path], warn: Warn) -> list[Path]:
    try:
        return [draw()]
    except ValueError as exc:  # no matplotlib: the other files still count
        warn(f"warning: no PNG: {exc}")
        return []
