"""Checks of argument types and ranges shared by the library's modules."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["is_int", "is_number"]


def is_int(x: Any) -> bool:
    """A real integer (Python or numpy), not a bool."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def is_number(x: Any) -> bool:
    """A real integer or float (Python or numpy), not a bool."""
    return is_int(x) or isinstance(x, (float, np.floating))
