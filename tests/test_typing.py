"""A library user's typed program (tests/typed/user_program.py) passes ``mypy --strict``
against the package as installed (its annotations, ``py.typed`` and the compiled modules'
stubs), and runs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import bgengine

PROGRAM = Path(__file__).resolve().parent / "typed" / "user_program.py"
SRC = Path(__file__).resolve().parent.parent / "src" / "bgcore"


def _as_installed(tmp_path: Path) -> dict[str, str]:
    """The environment for mypy: as it is where the stubs sit beside the compiled modules
    (a wheel); from an editable build, a copy of the package with the stubs put there."""
    package = Path(bgengine.__file__).parent
    if (package / "core" / "network.pyi").is_file():
        return dict(os.environ)
    copy = tmp_path / "site" / "bgengine"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("*.so", "__pycache__", "*.npz",
                                                                 "static"))
    for stub in SRC.glob("*.pyi"):
        shutil.copy(stub, copy / "core")
    return {**os.environ, "MYPYPATH": str(copy.parent)}


#: The package's own modules are not the user's to check: mypy follows an installed
#: package's imports silently (its errors unreported), and so here, where it is a copy.
CONFIG = "[mypy]\nstrict = True\n\n[mypy-bgengine.*]\nfollow_imports = silent\n"


@pytest.mark.slow
def test_a_typed_user_program_passes_mypy_strict(tmp_path):
    pytest.importorskip("mypy")
    env = _as_installed(tmp_path)
    (tmp_path / "mypy.ini").write_text(CONFIG)
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                           "--config-file", str(tmp_path / "mypy.ini"),
                           "--cache-dir", str(tmp_path / "cache"), str(PROGRAM)],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_the_typed_user_program_runs():
    done = subprocess.run([sys.executable, str(PROGRAM)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(done.stdout.splitlines()) == 2
