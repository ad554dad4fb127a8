"""A command's result on standard output: text for people, or with ``--json`` one JSON
document for scripts (the one place either is printed)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
from typing import Any

import numpy as np

__all__ = ["add_json_argument", "to_json", "emit"]


def add_json_argument(parser: argparse.ArgumentParser) -> None:
    """``--json``: print the result as one JSON document instead of text."""
    parser.add_argument("--json", action="store_true",
                        help="print the result as one JSON document on standard output "
                             "(messages and progress stay on standard error)")


def _plain(value: Any) -> Any:
    """``value`` as JSON's types: dataclasses, numpy scalars and arrays, paths and tuples
    converted; a float that is not finite (an interval of one game pair) becomes null."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value


def to_json(data: Any) -> str:
    """``data`` as indented, strictly valid JSON (no NaN or Infinity)."""
    return json.dumps(_plain(data), indent=2, allow_nan=False)


def emit(args: argparse.Namespace, data: Any, text: str | None = None) -> None:
    """Print a command's result: ``data`` as JSON if ``args.json``, else ``text``
    (nothing if None: the command printed its text as it went)."""
    if getattr(args, "json", False):
        print(to_json(data))
    elif text is not None:
        print(text, end="" if text.endswith("\n") else "\n")
