"""tools/teachers_vs_gnubg.py: the referee's table (no gnubg needed for the arithmetic)."""

from __future__ import annotations

import numpy as np
from tool_modules import load_tool


def test_judge_counts_same_best_plays_and_losses():
    tool = load_tool("teachers_vs_gnubg")
    group = np.array([0, 0, 0, 1, 1, 2])                 # decision 2 has one play: skipped
    referee = np.array([0.10, 0.00, 0.20, 0.50, 0.30, 9.0])   # best = lowest: plays 1 and 4
    exact = referee + 0.7                                 # same choices, centred RMS 0
    wrong = np.array([0.0, 0.1, 0.2, 0.3, 0.5, 0.0])      # picks 0 (loses 0.1) and 3 (loses 0.2)
    rows = tool.judge({"exact": exact, "wrong": wrong}, referee, group)
    assert rows[0] == "| exact | 100.0% | 0.00000 | 0.0000 |"
    assert rows[1].startswith("| wrong | 0.0% | 0.15000 |")
