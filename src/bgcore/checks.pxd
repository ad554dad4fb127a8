# The integer arguments of the core's Python API, checked by one helper: bools and
# non-integers refused, the range said, in the same words everywhere.
#
# Header-only (inline): cimporting it adds no module to import.

cimport numpy as cnp


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
