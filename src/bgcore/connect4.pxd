# Connect Four rules on 7x6 bitboards, at C level, for the solver, the players and the learners.
#
# Layout: bit ``col * 7 + row`` is the cell of column ``col`` (0..6, left to right) and row
# ``row`` (0..5, bottom up); bit ``col * 7 + 6`` is a sentinel row that stays empty, so that
# shifts never carry a line from one column into the next.  A position is kept from the side to
# move's view: ``own`` holds its stones, ``mask`` every stone; the opponent's are
# ``own ^ mask``.  Everything here is inline so that game loops in other modules pay no call
# across modules.

from libc.stdint cimport uint64_t
from bgengine.core._types cimport real_t

cdef enum:
    C4_WIDTH = 7
    C4_HEIGHT = 6
    C4_CELLS = 42
    C4_COLUMN_BITS = 7          # bits per column: six cells and the sentinel
    C4_SIMPLE = 0               # encoding: first player's and second player's stones, side to move
    C4_SEPARATED = 1            # encoding: side to move's plane, then the opponent's
    C4_SIMPLE_INPUTS = 85
    C4_SEPARATED_INPUTS = 84
    C4_MAX_INPUTS = 85
    C4_ONGOING = -1             # c4_result: the game goes on
    C4_DRAW = 0                 # c4_result: the board is full, no line
    C4_WON = 1                  # c4_result: the side that just moved made a line

ctypedef struct c4_t:
    uint64_t own        # stones of the side to move
    uint64_t mask       # all stones
    int moves           # stones on the board, 0..42


cdef extern from * nogil:
    """
    #define C4_BOTTOM_MASK 0x40810204081ULL
    #define C4_BOARD_MASK (0x40810204081ULL * 0x3FULL)
    #if defined(__GNUC__) || defined(__clang__)
    #define c4_popcount64(x) __builtin_popcountll(x)
    #define c4_ctz64(x) __builtin_ctzll(x)
    #else
    static int c4_popcount64(unsigned long long x) { int n = 0; while (x) { x &= x - 1; n++; } return n; }
    static int c4_ctz64(unsigned long long x) { int n = 0; while (!(x & 1)) { x >>= 1; n++; } return n; }
    #endif
    """
    uint64_t C4_BOTTOM "C4_BOTTOM_MASK"     # one bit per column, at row 0
    uint64_t C4_BOARD "C4_BOARD_MASK"       # every cell, the sentinels excluded
    int c4_popcount "c4_popcount64" (uint64_t x)     # set bits
    int c4_ctz "c4_ctz64" (uint64_t x)            # lowest set bit (x != 0)


cdef inline uint64_t c4_bottom_bit(int col) noexcept nogil:
    return (<uint64_t>1) << (col * C4_COLUMN_BITS)


cdef inline uint64_t c4_top_bit(int col) noexcept nogil:
    return (<uint64_t>1) << (C4_HEIGHT - 1 + col * C4_COLUMN_BITS)


cdef inline uint64_t c4_column_bits(int col) noexcept nogil:
    return (<uint64_t>0x3F) << (col * C4_COLUMN_BITS)


cdef inline void c4_start(c4_t* s) noexcept nogil:
    s.own = 0
    s.mask = 0
    s.moves = 0


cdef inline bint c4_can_play(const c4_t* s, int col) noexcept nogil:
    return (s.mask & c4_top_bit(col)) == 0


cdef inline int c4_legal(const c4_t* s, int* moves) noexcept nogil:
    """The columns not yet full, in order 0..6, into ``moves`` (room for 7); their count.
    Whether the game is already over is c4_result's question, not this one's."""
    cdef int col, n = 0
    for col in range(C4_WIDTH):
        if (s.mask & c4_top_bit(col)) == 0:
            moves[n] = col
            n += 1
    return n


cdef inline void c4_play(c4_t* s, int col) noexcept nogil:
    """Drop a stone of the side to move into ``col`` (not full); the opponent is to move."""
    s.own ^= s.mask                                 # now the opponent's stones
    s.mask |= s.mask + c4_bottom_bit(col)           # the carry lands on the lowest empty cell
    s.moves += 1


cdef inline bint c4_has_line(uint64_t p) noexcept nogil:
    """Whether the stones ``p`` hold four in a line (any direction)."""
    cdef uint64_t m
    m = p & (p >> 7)                                # horizontal
    if m & (m >> 14):
        return True
    m = p & (p >> 6)                                # diagonal, rising to the left
    if m & (m >> 12):
        return True
    m = p & (p >> 8)                                # diagonal, rising to the right
    if m & (m >> 16):
        return True
    m = p & (p >> 1)                                # vertical
    if m & (m >> 2):
        return True
    return False


cdef inline int c4_result(const c4_t* s) noexcept nogil:
    """After a move: C4_WON (1) if the side that just moved made a line, C4_DRAW (0) if the
    board is full, C4_ONGOING (-1) otherwise."""
    if c4_has_line(s.own ^ s.mask):
        return C4_WON
    if s.moves == C4_CELLS:
        return C4_DRAW
    return C4_ONGOING


cdef inline uint64_t c4_line_cells(uint64_t p) noexcept nogil:
    """The empty or occupied cells that would complete a line of four for the stones ``p``
    (three of ``p`` in a line with the fourth cell anywhere on the board)."""
    cdef uint64_t r, q
    r = (p << 1) & (p << 2) & (p << 3)              # vertical: three below
    q = (p << 7) & (p << 14)                        # horizontal
    r |= q & (p << 21)
    r |= q & (p >> 7)
    q = (p >> 7) & (p >> 14)
    r |= q & (p << 7)
    r |= q & (p >> 21)
    q = (p << 6) & (p << 12)                        # diagonal, shift 6
    r |= q & (p << 18)
    r |= q & (p >> 6)
    q = (p >> 6) & (p >> 12)
    r |= q & (p << 6)
    r |= q & (p >> 18)
    q = (p << 8) & (p << 16)                        # diagonal, shift 8
    r |= q & (p << 24)
    r |= q & (p >> 8)
    q = (p >> 8) & (p >> 16)
    r |= q & (p << 8)
    r |= q & (p >> 24)
    return r & C4_BOARD


cdef inline uint64_t c4_playable_cells(const c4_t* s) noexcept nogil:
    """The cell each non-full column's next stone lands on."""
    return (s.mask + C4_BOTTOM) & C4_BOARD


cdef inline uint64_t c4_winning_cells(const c4_t* s) noexcept nogil:
    """Playable cells where the side to move completes a line at once."""
    return c4_line_cells(s.own) & ~s.mask & c4_playable_cells(s)


cdef inline int c4_cell_index(int col, int row) noexcept nogil:
    """Index of a cell in the encodings' planes: row-major from the bottom left, 0..41."""
    return row * C4_WIDTH + col


cdef inline int c4_encode(const c4_t* s, int representation, real_t* x) noexcept nogil:
    """The network inputs of a position into ``x`` (room for C4_MAX_INPUTS); their count, or
    -1 for an unknown representation.

    C4_SIMPLE (85): unit ``2 * cell + p`` is 1 where player ``p`` has a stone (0 = the first
    player, who moves when ``moves`` is even; 1 = the second), unit 84 is 1 when the first
    player is to move.  C4_SEPARATED (84): units ``cell`` are the side to move's stones and
    ``42 + cell`` the opponent's.  ``cell`` is c4_cell_index."""
    cdef uint64_t mover = s.own
    cdef uint64_t other = s.own ^ s.mask
    cdef uint64_t first, second, bit
    cdef int col, row, cell
    cdef bint first_to_move = (s.moves & 1) == 0
    if representation == C4_SIMPLE:
        first = mover if first_to_move else other
        second = other if first_to_move else mover
        for col in range(C4_WIDTH):
            for row in range(C4_HEIGHT):
                bit = (<uint64_t>1) << (col * C4_COLUMN_BITS + row)
                cell = c4_cell_index(col, row)
                x[2 * cell] = 1.0 if first & bit else 0.0
                x[2 * cell + 1] = 1.0 if second & bit else 0.0
        x[2 * C4_CELLS] = 1.0 if first_to_move else 0.0
        return C4_SIMPLE_INPUTS
    if representation == C4_SEPARATED:
        for col in range(C4_WIDTH):
            for row in range(C4_HEIGHT):
                bit = (<uint64_t>1) << (col * C4_COLUMN_BITS + row)
                cell = c4_cell_index(col, row)
                x[cell] = 1.0 if mover & bit else 0.0
                x[C4_CELLS + cell] = 1.0 if other & bit else 0.0
        return C4_SEPARATED_INPUTS
    return -1


cdef inline uint64_t c4_key(const c4_t* s) noexcept nogil:
    """A unique key of the position (49 bits): adding ``mask`` to ``own`` turns each column's
    lowest empty cell on and keeps the colours below it."""
    return s.own + s.mask


cdef class Board:
    cdef c4_t s
