"""Shared test helpers."""

from __future__ import annotations

import pathlib
import sys

TESTS = pathlib.Path(__file__).resolve().parent
DATA = TESTS / "data"

# Make the test-side modules (rules_oracle, data loaders) importable by name
# under --import-mode=importlib.
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
