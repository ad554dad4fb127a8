"""Connect Four positions on 7x6 bitboards (the C level is in connect4.pxd).

A position's text form is the sequence of columns played, 1-based, as common Connect Four
tools write it: ``"4453"`` is the first player in the centre, the second on top of it, the
first again in the centre, then the second in column 3.

>>> b = Board.from_moves("4453")
>>> b.legal_moves()          # 0-based columns
[0, 1, 2, 3, 4, 5, 6]
"""

import numpy as np
cimport numpy as cnp
from libc.stdint cimport uint64_t

from bgengine.core._types cimport real_t
from bgengine.core.checks cimport checked_int
from bgengine.core.connect4 cimport (
    c4_t, c4_start, c4_legal, c4_play, c4_result, c4_encode, c4_can_play, c4_key,
    c4_winning_cells, c4_has_line, C4_WIDTH, C4_HEIGHT, C4_CELLS, C4_COLUMN_BITS, C4_BOARD,
    C4_SIMPLE, C4_SEPARATED, C4_SIMPLE_INPUTS, C4_SEPARATED_INPUTS, C4_MAX_INPUTS, C4_ONGOING)

cnp.import_array()

WIDTH = C4_WIDTH
HEIGHT = C4_HEIGHT
#: encodings by name: their number (the C level's ``representation``) and input count
REPRESENTATIONS = {"simple": (C4_SIMPLE, C4_SIMPLE_INPUTS),
                   "separated": (C4_SEPARATED, C4_SEPARATED_INPUTS)}


def representation_inputs(representation: str) -> int:
    """The input count of an encoding by name ("simple" 85, "separated" 84)."""
    return REPRESENTATIONS[_representation_name(representation)][1]


def _representation_name(representation):
    if representation not in REPRESENTATIONS:
        raise ValueError(f"representation must be one of {sorted(REPRESENTATIONS)}, "
                         f"got {representation!r}")
    return representation


cdef class Board:
    """A Connect Four position, from the side to move's view (mutable; :meth:`copy` it).

    ``own`` is the side to move's stones and ``mask`` all stones, as bitboards with bit
    ``col * 7 + row`` (``row`` 0 at the bottom, bit 6 of each column unused).
    """

    def __init__(self):
        c4_start(&self.s)

    @staticmethod
    def from_moves(str moves) -> Board:
        """The position after a sequence of 1-based columns (``"4453"``); ``ValueError`` on
        a character that is no column 1..7, a full column, or a move after the game ended."""
        cdef Board b = Board()
        cdef int i, col
        for i, ch in enumerate(moves):
            if ch not in "1234567":
                raise ValueError(f"move {i + 1} of {moves!r}: {ch!r} is no column 1..7")
            col = ord(ch) - ord("1")
            if c4_result(&b.s) != C4_ONGOING:
                raise ValueError(f"move {i + 1} of {moves!r}: the game is already over")
            if not c4_can_play(&b.s, col):
                raise ValueError(f"move {i + 1} of {moves!r}: column {col + 1} is full")
            c4_play(&b.s, col)
        return b

    @staticmethod
    def from_bits(own: int, mask: int) -> Board:
        """A position from its bitboards; ``ValueError`` unless the stones lie on the board,
        rest on one another, and their counts fit a game with ``own`` to move (whether some
        order of play reaches it is not checked)."""
        cdef uint64_t o = checked_int(own, "own", 0, (1 << 64) - 1, "0..2**64-1", "an integer")
        cdef uint64_t m = checked_int(mask, "mask", 0, (1 << 64) - 1, "0..2**64-1",
                                      "an integer")
        cdef Board b = Board()
        cdef int col
        cdef uint64_t column
        if m & ~C4_BOARD or o & ~m:
            raise ValueError("stones off the board, or own stones outside the mask")
        for col in range(C4_WIDTH):
            column = (m >> (col * C4_COLUMN_BITS)) & 0x7F
            if column & (column + 1):
                raise ValueError(f"column {col + 1} has a stone above an empty cell")
        n_own, n_all = bin(o).count("1"), bin(m).count("1")
        if n_all - 2 * n_own not in (0, 1):
            raise ValueError(f"{n_own} stones to move and {n_all - n_own} of the opponent's "
                             "fit no game")
        b.s.own, b.s.mask, b.s.moves = o, m, n_all
        return b

    def copy(self) -> Board:
        cdef Board b = Board()
        b.s = self.s
        return b

    @property
    def own(self) -> int:
        return self.s.own

    @property
    def mask(self) -> int:
        return self.s.mask

    @property
    def moves(self) -> int:
        """Stones on the board, 0..42."""
        return self.s.moves

    @property
    def key(self) -> int:
        """A unique integer of the position (own + mask)."""
        return c4_key(&self.s)

    def legal_moves(self) -> list[int]:
        """The 0-based columns not full (empty once the game is over)."""
        cdef int cols[C4_WIDTH]
        if c4_result(&self.s) != C4_ONGOING:
            return []
        n = c4_legal(&self.s, cols)
        return [cols[i] for i in range(n)]

    def play(self, col) -> None:
        """Drop a stone of the side to move into 0-based ``col`` (an integer); ``ValueError``
        if the column is out of range or full or the game is over."""
        cdef int c = checked_int(col, "col", 0, C4_WIDTH - 1, "0..6", "an integer")
        if c4_result(&self.s) != C4_ONGOING:
            raise ValueError("the game is over")
        if not c4_can_play(&self.s, c):
            raise ValueError(f"column {c + 1} is full")
        c4_play(&self.s, c)

    def result(self) -> int:
        """1 if the side that moved last made four in a line, 0 for a full board without one,
        -1 while the game goes on (the empty board goes on)."""
        return c4_result(&self.s)

    def winning_moves(self) -> list[int]:
        """The columns where the side to move makes four in a line at once."""
        cdef uint64_t w = c4_winning_cells(&self.s)
        return [c for c in range(C4_WIDTH) if w & (<uint64_t>0x3F << (c * C4_COLUMN_BITS))]

    def cell(self, col, row) -> int:
        """Who holds a cell: 1 the side to move, 2 the opponent, 0 nobody (``col`` 0..6 and
        ``row`` 0..5, 0 at the bottom: integers)."""
        cdef int c = checked_int(col, "col", 0, C4_WIDTH - 1, "0..6", "an integer")
        cdef int r = checked_int(row, "row", 0, C4_HEIGHT - 1, "0..5", "an integer")
        cdef uint64_t bit = (<uint64_t>1) << (c * C4_COLUMN_BITS + r)
        if not self.s.mask & bit:
            return 0
        return 1 if self.s.own & bit else 2

    def encode(self, representation: str = "separated") -> np.ndarray:
        """The network inputs, float32 of shape (85,) for "simple", (84,) for "separated"
        (see connect4.pxd's c4_encode)."""
        cdef int rep = REPRESENTATIONS[_representation_name(representation)][0]
        out = np.zeros(C4_MAX_INPUTS, dtype=np.float32)
        cdef real_t[::1] x = out
        n = c4_encode(&self.s, rep, &x[0])
        return out[:n]

    def __str__(self) -> str:
        """Six rows, top first: ``X`` the first player's stones, ``O`` the second's."""
        first_to_move = self.s.moves % 2 == 0
        marks = {0: ".", 1: "X" if first_to_move else "O", 2: "O" if first_to_move else "X"}
        rows = ["".join(marks[self.cell(c, r)] for c in range(C4_WIDTH))
                for r in reversed(range(C4_HEIGHT))]
        return "\n".join(rows + ["1234567"])

    def __repr__(self) -> str:
        return f"Board.from_bits({self.s.own:#x}, {self.s.mask:#x})"

    def __eq__(self, other):
        if not isinstance(other, Board):
            return NotImplemented
        return self.key == other.key

    def __hash__(self):
        return hash(self.key)


def has_line(stones: int) -> bool:
    """Whether a bitboard of one side's stones holds four in a line."""
    return c4_has_line(checked_int(stones, "stones", 0, (1 << 64) - 1, "0..2**64-1",
                                   "an integer"))
