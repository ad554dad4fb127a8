"""Shared by the match-file tests: the committed gnubg-made files, a match bgengine plays,
and GNU Backgammon itself (``GNUBG``, ``run_gnubg``) for the tests that compare with it."""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
from pathlib import Path

from bgengine.decisions.engine import Engine
from bgengine.matchfiles.record import MatchRecord, play_recorded_match
from bgengine.matches.players import load_default_network, make_player

DATA = Path(__file__).parent / "data" / "matfiles"
#: The gnubg-made matches and sessions (``make_matfiles.py``), by name.
GNUBG_FILES = sorted(p.stem for p in DATA.glob("gnubg_*.mat"))
#: GNU Backgammon's binary, ``None`` when it is not installed (its tests skip).
GNUBG = shutil.which("gnubg") or ("/usr/games/gnubg" if os.path.exists("/usr/games/gnubg")
                                   else None)


def run_gnubg(script: str, tmp: Path, **env: str) -> None:
    """Run ``script`` in gnubg's Python (text mode, no preference files, private HOME)."""
    assert GNUBG is not None
    path = tmp / "script.py"
    path.write_text(script)
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    done = subprocess.run([GNUBG, "-t", "-q", "-r", "-p", str(path)], cwd=tmp, timeout=600,
                          env={**os.environ, "HOME": str(home), **env},
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          errors="replace")
    assert done.returncode == 0, done.stderr[-2000:]


def mat_text(name: str) -> str:
    return (DATA / f"{name}.mat").read_text()


def sgf_text(name: str) -> str:
    with gzip.open(DATA / f"{name}.sgf.gz", "rt", encoding="utf-8") as f:
        return f.read()


def bgengine_match(length: int, seed: int, names=("net", "pubeval")) -> MatchRecord:
    """A match (``length`` 0: one money game) played by bgengine's own game loop with
    the cube (:class:`bgengine.matches.game.CubeGame`, the shipped network's cube decisions),
    recorded move by move."""
    net = load_default_network()
    players = tuple(make_player(n) for n in names)
    engines = tuple(Engine(player=p, network=net) for p in players)
    return play_recorded_match(players, engines, tuple(names), length, seed)
