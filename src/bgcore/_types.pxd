# Shared C typedefs of the compiled core.
#
# checker_t is one byte: a point never holds more than 15 checkers, so a whole
# position (2 sides x 25 slots) is 50 bytes, cheap to copy on every step of
# move generation and cache-friendly in batches.  index_t matches numpy's
# indexing type; real_t is float32, the agreed network format.

from libc.stdint cimport uint8_t, int8_t, int32_t, int64_t, uint32_t, uint64_t

ctypedef uint8_t checker_t      # checkers on one slot, 0..15
ctypedef int8_t point_t         # a point in a side's own numbering: 0 off, 1..24, 25 bar; -1 unused
ctypedef Py_ssize_t index_t     # array index / count, as numpy uses
ctypedef float real_t           # network weights, inputs and outputs
ctypedef uint64_t key_t         # Zobrist key of a position
