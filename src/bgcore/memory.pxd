# Growing C arrays: the one checked realloc of the core.
#
# Header-only (inline): cimporting it adds no module to import.

from libc.stdlib cimport realloc


cdef inline bint grow_block(void** block, size_t n_bytes) noexcept nogil:
    """Resize ``*block`` (NULL: allocate) to ``n_bytes`` bytes by realloc.  True on success;
    False when memory is refused, ``*block`` then unchanged and still the caller's to free."""
    cdef void* p = realloc(block[0], n_bytes)
    if p == NULL:
        return False
    block[0] = p
    return True


cdef inline int grow_or_raise(void** block, size_t n_bytes, const char* what) except -1 nogil:
    """:func:`grow_block`, raising ``MemoryError(what)`` (``MemoryError()`` when ``what`` is
    NULL) when memory is refused; ``*block`` is then unchanged."""
    if grow_block(block, n_bytes):
        return 0
    with gil:
        if what == NULL:
            raise MemoryError()
        raise MemoryError(what.decode("ascii"))
