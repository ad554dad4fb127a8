"""Other projects' Cython code can ``cimport`` the core's C-level API as installed:
``from bgengine.core.board cimport board_t`` resolves against the package's ``.pxd`` files
(a wheel's, beside the compiled modules; from a source tree, ``src/bgcore/`` laid out as the
wheel lays them out) and Cython translates a module that uses them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import bgengine

SRC = Path(__file__).resolve().parent.parent / "src" / "bgcore"

USER_MODULE = """\
from bgengine.core.board cimport board_t, board_start, board_pips
from bgengine.core.movegen cimport movelist_t

def start_pips():
    cdef board_t b
    board_start(&b)
    return board_pips(&b, 0), board_pips(&b, 1)
"""


def _include_root(tmp_path: Path) -> Path:
    installed = Path(bgengine.__file__).parent
    if (installed / "core" / "board.pxd").is_file():        # a wheel
        return installed.parent
    root = tmp_path / "site"
    (root / "bgengine" / "core").mkdir(parents=True)
    shutil.copy(installed / "__init__.py", root / "bgengine")
    shutil.copy(installed / "core" / "__init__.py", root / "bgengine" / "core")
    for pxd in SRC.glob("*.pxd"):
        shutil.copy(pxd, root / "bgengine" / "core")
    return root


def test_a_user_module_cimports_the_installed_core(tmp_path):
    pytest.importorskip("Cython")
    (tmp_path / "user.pyx").write_text(USER_MODULE)
    done = subprocess.run([sys.executable, "-m", "cython", "-3", "-I", str(_include_root(tmp_path)),
                           "-o", str(tmp_path / "user.c"), str(tmp_path / "user.pyx")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "board_pips" in (tmp_path / "user.c").read_text()


def test_the_pxd_files_are_installed_beside_the_modules():
    from bgengine.core import board

    installed = Path(board.__file__).parent
    assert {p.name for p in SRC.glob("*.pxd")} <= {p.name for p in installed.glob("*.pxd")}
