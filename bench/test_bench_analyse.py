"""Analysing a 7-point match at 2-ply: ``bgengine analyse`` against gnubg's ``analyse match``.

The match is ``tests/data/analysis/net_vs_pubeval.mat`` (3 games, 189 plays, 7 cube
actions).  In the same run: gnubg 1.07 (``bgengine/data/gnubg_analyse.py``: chequer play and
cube decisions at 2-ply, luck at 0-ply, its defaults otherwise; the time of the
``analyse match`` command alone, gnubg started and the file read before) with its
default threads and with one thread, then ``analyse_match`` at 2-ply on a fresh engine
(one thread, an empty cache; the file read before).

Gate (ratio in the same run): bgengine at least 4x faster than gnubg with one thread and
at least 3.5x faster than gnubg on its default threads (regression guards below the measured
figures).  The issue's target, 5x, is met (figures below).

Figures (2-core AMD EPYC family 25 model 17 (Zen 4) KVM guest, Python 3.11, gcc 12 -O3;
the shipped evaluator; other work paused; one run):

=====================  ===============  ===================  ===========  ==============
run                    gnubg, 1 thread  gnubg, default (2)   bgengine     ratio (1 / 2)
=====================  ===============  ===================  ===========  ==============
1                      10.2 s           9.1 s                1.5 s        6.7x / 6.0x
=====================  ===============  ===================  ===========  ==============

(With the previous evaluator, on an AMD EPYC guest with other engineers' gnubg processes
running: 5.2x-6.0x / 5.5x-5.8x in three runs.)

The luck of each roll is one compiled ``Searcher.best_plays`` call for the 21 rolls and
``cube_efficiencies`` over the batch, ``cubeful_values`` share the match equities, and only
the plays reported become ``Move`` objects.  Where bgengine's time goes (CPU time, same
match, 2.2 s in all):
1.7 s the compiled 2-ply searches of 2.2 candidate plays a roll on average (the play
made and the best at 0-ply within 0.08), 0.3 s the luck (mostly the Python cube model).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from bgengine.decisions.analysis import analyse_match
from bgengine.decisions.engine import Engine
from bgengine.opponents.gnubg.analysis import analysis_script
from bgengine.matchfiles.files import read_match_file

ROOT = Path(__file__).resolve().parent.parent
MATCH = ROOT / "tests" / "data" / "analysis" / "net_vs_pubeval.mat"
GNUBG = Path("/usr/games/gnubg")

pytestmark = pytest.mark.skipif(not GNUBG.exists(), reason="GNU Backgammon is not installed")


def gnubg_seconds(tmp: Path, threads: int | None) -> float:
    """Seconds of gnubg's ``analyse match`` of MATCH at 2-ply."""
    out = tmp / f"gnubg-{threads}.json"
    env = dict(os.environ, HOME=str(tmp), ANALYSE_FILES=str(MATCH), ANALYSE_OUT=str(out),
               ANALYSE_PLIES="2")
    if threads:
        env["ANALYSE_THREADS"] = str(threads)
    subprocess.run([str(GNUBG), "-t", "-q", "-r", "-p", str(analysis_script())],
                   env=env, cwd=ROOT, check=True, capture_output=True, timeout=1800)
    return float(json.loads(out.read_text())["matches"][0]["seconds"])


def bgengine_seconds() -> float:
    record = read_match_file(MATCH)
    engine = Engine("net", plies=2)
    start = time.perf_counter()
    analyse_match(record, engine, 2)
    return time.perf_counter() - start


def test_bgengine_analyses_faster_than_gnubg(tmp_path):
    one = gnubg_seconds(tmp_path, 1)
    default = gnubg_seconds(tmp_path, None)
    ours = bgengine_seconds()
    print(f"\ngnubg analyse match 2-ply: {one:.1f} s (1 thread), {default:.1f} s (default "
          f"threads); bgengine analyse 2-ply: {ours:.1f} s; ratios {one / ours:.1f}x, "
          f"{default / ours:.1f}x")
    assert one / ours >= 4.0
    assert default / ours >= 3.5
