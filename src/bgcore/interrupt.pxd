# Ctrl-C (any Python signal handler) in long compiled loops: rollouts, matches, self-play.
#
# Python runs signal handlers in the main thread only, and only once that thread holds the
# GIL.  A loop that runs without the GIL for long calls interrupt_poll between units of
# work (a rollout trial, a game pair, a training game).  In the caller's thread (OpenMP's
# thread 0 of a prange started from it), if that is the main thread, and at most every
# POLL_MS milliseconds, it takes the GIL and runs the pending handlers (PyErr_CheckSignals).
# When a handler raises (KeyboardInterrupt, by default), the exception is kept and `stop`
# set: every thread skips its remaining units, and the caller, with the GIL back, raises
# it.  A handler that returns (bgengine.interrupts.stop_on_interrupt's, which training
# installs: it finishes the chunk, then saves) does not stop the loop.  Per unit of work, not per move: a poll costs a clock read.
#
# Header-only (inline): cimporting it adds no module to import.

from cpython.exc cimport PyErr_CheckSignals

cdef extern from "<time.h>" nogil:
    ctypedef struct c_timespec "struct timespec":
        long tv_sec
        long tv_nsec
    int timespec_get(c_timespec* ts, int base)       # C11: on glibc, macOS, Windows (UCRT)
    int TIME_UTC

cdef enum:
    POLL_MS = 20                # milliseconds between two polls of the main thread

ctypedef struct interrupt_t:
    bint main                   # the loop was started in the main thread: it may poll
    volatile bint stop          # a handler raised: every thread stops at its next poll
    double next_poll            # clock time of the next poll, s
    void* pending               # the caller's list; a handler's exception is appended


cdef inline int interrupt_init(interrupt_t* it, list pending) except -1:
    """Before the loop, with the GIL; ``pending`` receives the exception of a handler."""
    import threading
    it.main = threading.current_thread() is threading.main_thread()
    it.stop = False
    it.next_poll = 0
    it.pending = <void*> pending
    return 0


cdef inline double _interrupt_clock() noexcept nogil:
    cdef c_timespec ts
    timespec_get(&ts, TIME_UTC)
    return ts.tv_sec + 1e-9 * ts.tv_nsec


cdef inline bint _interrupt_run_handlers(interrupt_t* it) noexcept with gil:
    try:
        PyErr_CheckSignals()
    except BaseException as exc:    # KeyboardInterrupt, or whatever a handler raised
        (<list> it.pending).append(exc)
        it.stop = True
    return it.stop


cdef inline bint interrupt_poll(interrupt_t* it, bint callers_thread) noexcept nogil:
    """True once the loop must stop.  ``callers_thread``: this is the thread that started
    the loop (``threadid() == 0`` in a prange); only it runs the handlers."""
    cdef double now
    if it.stop:
        return True
    if not (callers_thread and it.main):
        return False
    now = _interrupt_clock()
    # (a clock set back by more than a poll's interval polls at once)
    if it.next_poll - POLL_MS * 1e-3 <= now < it.next_poll:
        return False
    it.next_poll = now + POLL_MS * 1e-3
    return _interrupt_run_handlers(it)
