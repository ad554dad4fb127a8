"""Shared inputs for the benchmarks (run explicitly: ``pytest bench``)."""

from __future__ import annotations

import importlib.util
import pathlib
import platform
import sys
from types import ModuleType

import numpy as np
import pytest

from bgengine.notation.ids import board_from_position_id

ROOT = pathlib.Path(__file__).resolve().parent.parent
WILDBG = ROOT / "tests" / "data" / "wildbg"

#: The 21 distinct rolls, doubles included, higher die first.
ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, a + 1)], dtype=np.int32)


@pytest.fixture(scope="session")
def wildbg_boards() -> np.ndarray:
    """The 2000 wildbg positions (1000 contact, 1000 race), shape (2000, 2, 25)."""
    ids = []
    for name in ("contact_1000_positions.txt", "race_1000_positions.txt"):
        ids += (WILDBG / name).read_text().split()
    return np.stack([board_from_position_id(pid) for pid in ids])


@pytest.fixture(scope="session")
def rolls() -> np.ndarray:
    return ROLLS


def load_test_module(name: str) -> ModuleType:
    """A pure-Python reference module kept in tests/ (``tests/NAME.py``), imported by name."""
    path = ROOT / "tests" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def rules_oracle() -> ModuleType:
    """The pure-Python rules implementation kept in tests/ as the reference."""
    return load_test_module("rules_oracle")


@pytest.fixture(scope="session")
def connect4_reference() -> ModuleType:
    """The plain-Python Connect Four kept in tests/ as the reference."""
    return load_test_module("connect4_reference")


@pytest.fixture(scope="session")
def cpu_model() -> str:
    """The CPU's model name, for the benchmarks' printed figures."""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """Benchmarks time one process alone: the test suite's ``-n auto`` (pytest-xdist,
    pyproject.toml) is turned off here (pytest-benchmark does not time under xdist)."""
    if getattr(config.option, "numprocesses", None):
        config.option.numprocesses = 0
        config.option.dist = "no"
