"""Progress bars of the long commands, on standard error (tqdm).

A bar is drawn only on a terminal (and never with ``--quiet``): scripts and logs
that read standard error see no bar.  The library functions know nothing of it: they
take a callback, which :class:`ProgressBar` is.
"""

from __future__ import annotations

import sys
from contextlib import ExitStack
from types import TracebackType

from tqdm import tqdm
from tqdm.contrib.logging import logging_redirect_tqdm

__all__ = ["ProgressBar"]


class ProgressBar:
    """``bar(done, total)``: the callback of a long job (games, pairings, runs...),
    drawn as one tqdm bar on standard error when that is a terminal.

    ``desc`` labels the bar, ``unit`` names what is counted; ``total`` may be given now
    or with each call (None: unknown, a counter is drawn).  :meth:`note` prints a line
    above the bar (or plainly, with no bar drawn).  Used as a context manager, it also
    sends the log's lines above the bar while it is drawn.
    """

    def __init__(self, desc: str, unit: str = "games", total: int | None = None,
                 quiet: bool = False) -> None:
        self._quiet = quiet
        self._stack = ExitStack()
        # disable=None: tqdm draws only when its file is a terminal
        self._bar = tqdm(desc=desc, unit=unit, total=total, file=sys.stderr,
                         disable=True if quiet else None, dynamic_ncols=True,
                         mininterval=0.5, leave=True)

    @property
    def shown(self) -> bool:
        """True if the bar is drawn (a terminal, not quiet)."""
        return not self._bar.disable

    def start_at(self, done: int) -> None:
        """Count from ``done`` (a resumed job): the speed shown is of this session's work."""
        if not self._bar.disable and self._bar.n == 0:
            self._bar.n = self._bar.last_print_n = self._bar.initial = done
            self._bar.refresh()

    def __call__(self, done: int, total: int | None = None) -> None:
        if self._bar.disable:
            return
        if total is not None and total != self._bar.total:
            self._bar.total = total
        self._bar.update(done - self._bar.n)

    def status(self, text: str) -> None:
        """Text after the bar's figures (e.g. the latest evaluation)."""
        if not self._bar.disable:
            self._bar.set_postfix_str(text, refresh=False)

    def note(self, text: str) -> None:
        """A line on standard error that does not break the bar (none with ``quiet``)."""
        if self._quiet:
            return
        if self._bar.disable:
            print(text, file=sys.stderr, flush=True)
        else:
            self._bar.write(text, file=sys.stderr)

    def close(self) -> None:
        self._bar.close()
        self._stack.close()

    def __enter__(self) -> "ProgressBar":
        if self.shown:      # log lines while the bar is drawn go above it, not through it
            self._stack.enter_context(logging_redirect_tqdm(tqdm_class=tqdm))
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
