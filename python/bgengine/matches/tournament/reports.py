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
    """Points per game with their 95% half-width, as ``+0.123±0.045`` (``·`` when not played)."""
    if math.isnan(ppg):
        return "·"
    return f"{ppg:+.3f}±{ci:.3f}" if math.isfinite(ci) else f"{ppg:+.3f}±inf"


def json_number(x: float) -> float | None:
    """JSON-safe float: NaN and inf become null."""
    return float(x) if math.isfinite(x) else None


def shorten(name: str, width: int) -> str:
    """``name`` cut to ``width`` characters from the left (``…`` marks the cut), for table
    columns."""
    return name if len(name) <= width else "…" + name[-(width - 1):]


def csv_number(x: float) -> str:
    """``x`` with six decimals for a CSV cell; empty when missing or not finite."""
    return "" if x is None or not math.isfinite(x) else f"{x:.6f}"


def write_text(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` (UTF-8, atomically: a crash leaves the old file or the new one);
    ``path``."""
    atomic_write(path, lambda f: f.write(text.encode("utf-8")))
    return path


def matplotlib_canvas():
    """matplotlib's ``(Figure, FigureCanvasAgg)`` (no pyplot, no display); ``ValueError`` naming
    the extra to install without matplotlib."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ValueError("plotting needs matplotlib: pip install 'bgengine[plot]'") from None
    return Figure, FigureCanvasAgg


def try_png(draw: Callable[[], Path], warn: Warn) -> list[Path]:
    """``[draw()]``, the PNG it wrote; ``[]`` with a warning when it cannot plot (no matplotlib),
    so that the other files still count."""
    try:
        return [draw()]
    except ValueError as exc:  # no matplotlib: the other files still count
        warn(f"warning: no PNG: {exc}")
        return []
