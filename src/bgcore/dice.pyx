"""Reproducible dice: the same seed gives the same rolls on every platform.

>>> d = Dice(seed=1)
>>> d.roll()          # (die1, die2), each 1..6
"""

import numpy as np
cimport numpy as cnp
from libc.stdint cimport uint64_t

from bgengine.core.checks cimport checked_int

from bgengine.core.dice cimport (rng_t, rng_seed, rng_next32, rng_roll,
                            rng_opening_roll)

cnp.import_array()

_MASK64 = (1 << 64) - 1


def _as_u64(value, str name):
    return checked_int(value, name, 0, _MASK64, "0..2**64-1", "an integer")


cdef class Dice:
    """A PCG32 dice generator.

    Parameters
    ----------
    seed : int
        Any integer in 0..2**64-1.
    stream : int
        Independent stream number (for example one per game or thread); two
        generators with the same seed and different streams do not overlap.
    """

    def __init__(self, seed=0, stream=0):
        self.seed = _as_u64(seed, "seed")
        self.stream = _as_u64(stream, "stream")
        rng_seed(&self.rng, <uint64_t>self.seed, <uint64_t>self.stream)

    def roll(self) -> tuple[int, int]:
        """One roll of two dice, ``(d1, d2)`` in 1..6 each, in the order rolled."""
        cdef int d1, d2
        rng_roll(&self.rng, &d1, &d2)
        return d1, d2

    def opening_roll(self) -> tuple[int, int]:
        """The opening roll, never a double; ``d1 > d2``."""
        cdef int d1, d2
        rng_opening_roll(&self.rng, &d1, &d2)
        return d1, d2

    def rolls(self, n) -> np.ndarray:
        """``n`` rolls (an integer in 0..2**30: 2 GiB at most) as a ``uint8`` array of
        shape (n, 2)."""
        cdef Py_ssize_t count = checked_int(n, "n", 0, 1 << 30, "0..2**30", "an integer")
        out = np.empty((count, 2), dtype=np.uint8)
        cdef unsigned char[:, ::1] view = out
        cdef Py_ssize_t k
        cdef int d1, d2
        with nogil:
            for k in range(count):
                rng_roll(&self.rng, &d1, &d2)
                view[k, 0] = d1
                view[k, 1] = d2
        return out

    def next_uint32(self) -> int:
        """The raw next 32-bit output (for tests against the PCG32 reference)."""
        return rng_next32(&self.rng)

    def getstate(self) -> dict:
        """The full generator state, for checkpoints (JSON-serialisable)."""
        return {"state": int(self.rng.state), "inc": int(self.rng.inc),
                "seed": self.seed, "stream": self.stream}

    def setstate(self, state: dict) -> None:
        """Restore a state from :meth:`getstate`."""
        try:
            st = _as_u64(state["state"], "state")
            inc = _as_u64(state["inc"], "inc")
        except (KeyError, TypeError):
            raise ValueError("dice state must be a dict with 'state' and 'inc'") from None
        if inc % 2 == 0:
            raise ValueError("dice state 'inc' must be odd")
        self.rng.state = st
        self.rng.inc = inc

    def __repr__(self) -> str:
        return f"Dice(seed={self.seed}, stream={self.stream})"
