# C arrays: the core's checked allocations (zeroed arrays, and the one checked realloc).
#
# Header-only (inline): cimporting it adds no module to import.

from libc.stdlib cimport calloc, realloc


cdef inline void* zeroed_or_raise(size_t n, size_t size) except NULL:
    """``n`` zeroed items of ``size`` bytes side by side (calloc; the caller frees them);
    MemoryError when refused."""
    cdef void* p = calloc(n, size)
    if p == NULL:
        raise MemoryError()
    return p


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
