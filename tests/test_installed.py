"""The suite run against an installed wheel (``.ci/wheel``): the package imported is the
wheel's, not the source tree's, and no compiler was needed to install it."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig

import pytest

WHEEL = os.environ.get("BGENGINE_TEST_INSTALLED")
SOURCE = pathlib.Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not WHEEL, reason="not run against an installed wheel "
                                                  "(set by .ci/wheel)")


def test_the_package_is_the_installed_wheels():
    import bgengine
    import bgengine.core.network

    site = pathlib.Path(sysconfig.get_paths()["purelib"]).resolve()
    for module in (bgengine, bgengine.core.network):
        where = pathlib.Path(module.__file__).resolve()
        assert site in where.parents, where
        assert SOURCE / "python" not in where.parents
    assert pathlib.Path(WHEEL).name.startswith(f"bgengine-{bgengine.__version__}-")
    assert "manylinux" in pathlib.Path(WHEEL).name


def test_no_compiler_is_on_path():
    for name in ("cc", "gcc", "c++", "g++", "clang"):
        assert shutil.which(name) is None, name


def test_the_installed_command_runs_and_names_its_kernel():
    out = subprocess.run([sys.executable, "-m", "bgengine", "--version"], capture_output=True,
                         text=True, check=True).stdout
    assert out.startswith("bgengine ")
    from bgengine.core.network import available_kernels
    assert "c" in available_kernels()
