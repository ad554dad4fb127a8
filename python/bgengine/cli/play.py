"""``bgengine play``: a human against the engine at the terminal."""

from __future__ import annotations

import argparse

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``play`` to the ``bgengine`` sub-commands."""
    from bgengine.play import add_play_parser

    add_play_parser(sub)
