"""``bgengine serve``: the engine behind the gnubg external-player protocol, over TCP."""

from __future__ import annotations

import argparse

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``serve`` to the ``bgengine`` sub-commands."""
    from bgengine.serve import add_serve_parser

    add_serve_parser(sub)
