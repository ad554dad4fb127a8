"""Shared test helpers."""

from __future__ import annotations

import pathlib
import sys

import pytest

TESTS = pathlib.Path(__file__).resolve().parent
DATA = TESTS / "data"

# Make the test-side modules (rules_oracle, data loaders) importable by name
# under --import-mode=importlib.
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# Hypothesis: deterministic and quick by default (same examples on every run,
# no example database, no per-example deadline: the first call of a compiled
# function can be slow).  HYPOTHESIS_PROFILE=thorough explores more.
try:
    import os

    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "bgengine", derandomize=True, database=None, deadline=None, max_examples=200,
        suppress_health_check=[HealthCheck.too_slow],
    )
    settings.register_profile(
        "thorough", derandomize=False, database=None, deadline=None, max_examples=5000,
        suppress_health_check=[HealthCheck.too_slow],
    )
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "bgengine"))
except ImportError:  # hypothesis is a test extra; tests that need it import it themselves
    pass



@pytest.fixture(autouse=True)
def _sessions_in_a_temporary_folder(tmp_path_factory, monkeypatch):
    """``bgengine play`` saves its sessions under ``$XDG_DATA_HOME``: never the user's own
    folder during the tests (subprocesses inherit the variable)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))
