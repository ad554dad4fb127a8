# The integer and real arguments of the core's Python API, checked by one helper each:
# bools and non-numbers refused, the range said, in the same words everywhere (and as
# bgengine._checks says them for the Python modules).
#
# Header-only (inline): cimporting it adds no module to import.

cimport numpy as cnp
from libc.math cimport isfinite


cdef inline object checked_int(object value, str name, object lo, object hi, str span,
                               str kind):
    """``value`` (a Python or numpy integer, not a bool) as an int in ``lo``..``hi``;
    ``ValueError`` saying "``name`` must be ``kind``" for a non-integer and "``name``
    must be in ``span``" for a value out of range."""
    if isinstance(value, bool) or not isinstance(value, (int, cnp.integer)):
        raise ValueError(f"{name} must be {kind}, got {value!r}")
    if not lo <= value <= hi:
        raise ValueError(f"{name} must be in {span}, got {value}")
    return int(value)


cdef inline double checked_real(object value, str name, double lo, double hi,
                                str span) except? -1.0:
    """``value`` (a Python or numpy integer or float, not a bool; finite) as a double in
    ``lo``..``hi``; ``ValueError`` saying "``name`` must be a finite number" for a
    non-number, NaN or an infinity and "``name`` must be in ``span``" for a value out of
    range."""
    if isinstance(value, bool) or not isinstance(value, (int, float, cnp.integer,
                                                         cnp.floating)):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    cdef double v
    try:
        v = value
    except OverflowError:       # an int beyond any double
        raise ValueError(f"{name} must be in {span}, got {value}") from None
    if not isfinite(v):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if not lo <= v <= hi:
        raise ValueError(f"{name} must be in {span}, got {value}")
    return v
