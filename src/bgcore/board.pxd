# C-level API of a backgammon position (the conventions: docs/board.md in the repository).
#
# A position is board_t: c[side][slot], side 1 = the side on roll, side 0 = its
# opponent; slot i in 0..23 is that side's own point i+1 (slot 0 = its 1-point,
# deepest in its home board), slot 24 is its bar.  Borne-off checkers are
# 15 - sum(c[side]).  A numpy uint8 array of shape (2, 25), C-contiguous, has
# exactly this layout, so kernels cast its data pointer to board_t*.

from libc.stdint cimport uint64_t
from libc.string cimport memcpy

from bgengine.core._types cimport checker_t, key_t

cdef enum:
    BAR = 24             # slot of the bar in a side's row
    N_SLOTS = 25         # slots per side: 24 points + bar
    N_CHECKERS = 15      # checkers per side
    MOVER = 1            # row of the side on roll
    OPPONENT = 0         # row of the side not on roll
    # A compiled game loop stops a game after this many plays (both sides), a last resort:
    # every valid position can be played out (see validate_board), and the longest of
    # 40,000 random-vs-random games took 396 plays.  A rollout trial cut off there is
    # valued by the network, as if truncated; a match or training game has no result (0).
    MAX_GAME_PLAYS = 10000

ctypedef struct board_t:
    checker_t c[2][25]   # [side][slot]; 50 bytes, no padding

# Zobrist keys: key ^= zobrist[side][slot][n] for every slot holding n checkers
# (zobrist[.][.][0] == 0), so a step updates the key with a few XORs.
cdef key_t zobrist[2][25][16]

cdef key_t board_key(const board_t* b) noexcept nogil
cdef void board_start(board_t* b) noexcept nogil
cdef int board_pips(const board_t* b, int side) noexcept nogil
cdef int board_checkers(const board_t* b, int side) noexcept nogil
cdef bint board_is_race(const board_t* b) noexcept nogil
cdef int board_win_value(const board_t* b, int winner) noexcept nogil
cdef int board_result(const board_t* b) noexcept nogil
cdef int board_check(const board_t* b) noexcept nogil
cdef bint board_shut_out(const board_t* b, int side) noexcept nogil


cdef inline bint board_side_empty(const board_t* b, int side) noexcept nogil:
    """True when ``side`` has borne off all its checkers (inline: the rollout loop asks
    this of every afterstate)."""
    cdef uint64_t w[3]
    memcpy(w, b.c[side], 24)
    return (w[0] | w[1] | w[2]) == 0 and b.c[side][BAR] == 0


cdef inline void board_swap(board_t* out, const board_t* b) noexcept nogil:
    """Exchange the rows: the opponent is now on roll.  ``out`` may alias ``b``."""
    cdef checker_t tmp[25]
    memcpy(tmp, b.c[0], N_SLOTS)
    memcpy(out.c[0], b.c[1], N_SLOTS)
    memcpy(out.c[1], tmp, N_SLOTS)
