"""Match files through the real GNU Backgammon (skipped when gnubg is not installed).

1. Round trip: bgengine writes each match (gnubg's committed matches and sessions,
   and a match bgengine played itself) as ``.mat`` and ``.sgf``; gnubg imports
   each file (``import mat``, ``load match``) and re-exports it both ways
   (``export match mat``, ``save match``); bgengine reads all four files back:
   every game, move and cube action must be the same.
2. Fresh files: ``tests/data/matfiles/make_matfiles.py`` run again by gnubg gives
   files bgengine reads with every play legal, and the very games committed.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from bgengine.matfile import read_mat, write_mat
from bgengine.sgf import read_sgf, write_sgf
from matfile_helpers import DATA, GNUBG_FILES, bgengine_match, mat_text, sgf_text

GNUBG = shutil.which("gnubg") or ("/usr/games/gnubg" if os.path.exists("/usr/games/gnubg") else None)

pytestmark = [pytest.mark.gnubg,
              pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed")]


def run_gnubg(script: str, tmp: Path, **env: str) -> None:
    """Run ``script`` in gnubg's Python (text mode, no preference files, private HOME)."""
    path = tmp / "script.py"
    path.write_text(script)
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    done = subprocess.run([GNUBG, "-t", "-q", "-r", "-p", str(path)], cwd=tmp, timeout=600,
                          env={**os.environ, "HOME": str(home), **env},
                          stdin=subprocess.DEVNULL, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


def test_round_trip_through_gnubg(tmp_path):
    records = {name: read_sgf(sgf_text(name)) for name in GNUBG_FILES}
    records["bgengine_match7"] = bgengine_match(7, seed=11)
    commands = []
    for name, record in records.items():
        (tmp_path / f"{name}.mat").write_text(write_mat(record))
        (tmp_path / f"{name}.sgf").write_text(write_sgf(record))
        for src, load in (("mat", "import mat"), ("sgf", "load match")):
            commands += [f"{load} {name}.{src}",
                         f"export match mat {name}.{src}.mat",
                         f"save match {name}.{src}.sgf"]
    run_gnubg("import gnubg\n" + "".join(f"gnubg.command({c!r})\n" for c in commands), tmp_path)
    for name, record in records.items():
        for src in ("mat", "sgf"):
            via_mat = read_mat((tmp_path / f"{name}.{src}.mat").read_text())
            via_sgf = read_sgf((tmp_path / f"{name}.{src}.sgf").read_text())
            for back in (via_mat, via_sgf):
                assert back.games == record.games, (name, src)
                assert back.players == record.players and back.length == record.length


def test_gnubg_makes_the_committed_files_again(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    script = (DATA / "make_matfiles.py").read_text()
    run_gnubg(script, tmp_path, MATFILES_OUT=str(out))
    made = sorted(p.stem for p in out.glob("gnubg_*.mat"))
    assert made == GNUBG_FILES
    for name in made:
        mat = read_mat((out / f"{name}.mat").read_text())
        with gzip.open(out / f"{name}.sgf.gz", "rt", encoding="utf-8") as f:
            sgf = read_sgf(f.read())
        assert mat.games == sgf.games == read_mat(mat_text(name)).games
