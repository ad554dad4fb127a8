"""The one place that installs signal handlers: Ctrl-C (and SIGTERM) as a
request to stop cleanly.

Long jobs (training, sweeps, tournaments, the server) finish the batch under
way, save and report when interrupted, instead of dying mid-write.  Each
handler is installed only for the duration of a ``with`` block and the
caller's disposition is put back afterwards, whatever it was: a Python
function, ``SIG_DFL``, or ``SIG_IGN`` (a job started in the background with
``&`` inherits SIGINT ignored, and must not start taking Ctrl-C from its
terminal because of us).  Outside the main thread Python cannot install
handlers, so the blocks install nothing there and the caller's own stop event
is the only way to stop.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Callable, Iterator

__all__ = ["handling", "stop_on_interrupt", "raise_keyboard_interrupt"]


def raise_keyboard_interrupt() -> None:
    """A handler for :func:`handling` that makes a signal act like Ctrl-C."""
    raise KeyboardInterrupt


@contextmanager
def handling(signum: int, handler: Callable[[], None]) -> Iterator[bool]:
    """While active, ``handler()`` runs when signal ``signum`` arrives.

    Yields True if the handler was installed (False outside the main
    thread).  On exit the previous disposition is restored; one that Python
    cannot name (installed from C, reported as None) becomes ``SIG_DFL``.
    """
    if threading.current_thread() is not threading.main_thread():
        yield False
        return
    previous = signal.getsignal(signum)
    signal.signal(signum, lambda _signum, _frame: handler())
    try:
        yield True
    finally:
        signal.signal(signum, signal.SIG_DFL if previous is None else previous)


@contextmanager
def stop_on_interrupt(stop: threading.Event | None = None, *,
                      notice: Callable[[], None] | None = None,
                      again_raises: bool = False) -> Iterator[threading.Event]:
    """While active, Ctrl-C (SIGINT) sets ``stop`` instead of raising.

    Yields the event (a new one when ``stop`` is None) for the job to poll
    between batches.  ``notice()`` runs at the first Ctrl-C (say what will
    happen).  With ``again_raises``, a Ctrl-C while the event is already set
    raises ``KeyboardInterrupt`` as usual: the way to abort at once.
    """
    event = threading.Event() if stop is None else stop

    def on_sigint() -> None:
        if event.is_set():
            if again_raises:
                raise KeyboardInterrupt
            return
        event.set()
        if notice is not None:
            notice()

    with handling(signal.SIGINT, on_sigint):
        yield event
