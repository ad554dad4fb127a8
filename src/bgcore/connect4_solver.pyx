"""The exact Connect Four solver: the game-theoretic score of a position and its best moves.

Scores are from the side to move: 0 a draw; ``22 - k`` a win with the mover's k-th stone of the
game; ``k - 22`` a loss to the opponent's k-th stone (so the empty board, a first-player win with
its last stone, scores 1).

>>> from bgengine.core.connect4 import Board
>>> Solver().solve(Board.from_moves("4455"))
18
"""

from libc.stdint cimport uint64_t, int8_t
from libc.stdlib cimport calloc, free
from libc.string cimport memset

from bgengine.core.checks cimport checked_int
from bgengine.core.connect4 cimport (
    c4_t, Board, c4_can_play, c4_play, c4_result, c4_line_cells, c4_playable_cells,
    c4_winning_cells, c4_column_bits, c4_key, c4_popcount, C4_WIDTH, C4_CELLS, C4_ONGOING)
from bgengine.core.connect4_solver cimport c4_solver_t, C4_NO_SCORE

NO_SCORE = C4_NO_SCORE
#: default transposition table slots: a prime near 2**23 (72 MB)
DEFAULT_TABLE_SIZE = 8388617

# columns by distance from the centre: lines through the centre are the most
cdef int[7] CENTRE_FIRST = [3, 2, 4, 1, 5, 0, 6]
# table values are score - MIN_STORED + 1 (> 0, 0 marks no entry)
cdef int MIN_STORED = -C4_CELLS // 2 + 3


cdef int c4_solver_init(c4_solver_t* sv, size_t size) noexcept nogil:
    sv.size = size
    sv.nodes = 0
    sv.keys = <uint64_t*>calloc(size, sizeof(uint64_t))
    sv.values = <int8_t*>calloc(size, sizeof(int8_t))
    if sv.keys == NULL or sv.values == NULL:
        c4_solver_free(sv)
        return -1
    return 0


cdef void c4_solver_free(c4_solver_t* sv) noexcept nogil:
    free(sv.keys)
    free(sv.values)
    sv.keys = NULL
    sv.values = NULL


cdef void c4_solver_clear(c4_solver_t* sv) noexcept nogil:
    memset(sv.keys, 0, sv.size * sizeof(uint64_t))
    memset(sv.values, 0, sv.size * sizeof(int8_t))
    sv.nodes = 0


cdef inline void _play_cell(c4_t* s, uint64_t cell) noexcept nogil:
    s.own ^= s.mask
    s.mask |= cell
    s.moves += 1


cdef int _negamax(c4_solver_t* sv, const c4_t* s, int alpha, int beta) noexcept nogil:
    """The score within (alpha, beta): exact inside, a bound outside (fail soft at the edges).
    Precondition: the side to move cannot win at once, and the game goes on."""
    sv.nodes += 1
    cdef uint64_t possible = c4_playable_cells(s)
    cdef uint64_t threats = c4_line_cells(s.own ^ s.mask) & ~s.mask   # the opponent's
    cdef uint64_t forced = possible & threats
    if forced:
        if forced & (forced - 1):           # two immediate threats: one of them wins
            return -(C4_CELLS - s.moves) // 2
        possible = forced
    possible &= ~(threats >> 1)             # never play just below the opponent's threat
    if possible == 0:
        return -(C4_CELLS - s.moves) // 2
    if s.moves >= C4_CELLS - 2:             # no win for either side in the last two stones
        return 0

    cdef int lo = -(C4_CELLS - 2 - s.moves) // 2     # the opponent cannot win next move
    if alpha < lo:
        alpha = lo
        if alpha >= beta:
            return alpha
    cdef int hi = (C4_CELLS - 1 - s.moves) // 2      # we cannot win at once
    cdef uint64_t key = c4_key(s)
    cdef size_t slot = key % sv.size
    if sv.keys[slot] == key and sv.values[slot] != 0:    # (the empty board's key is 0)
        hi = sv.values[slot] + MIN_STORED - 1
    if beta > hi:
        beta = hi
        if alpha >= beta:
            return beta

    # order: most threats after the move first, centre first among equals (insertion sort)
    cdef uint64_t cells[7]
    cdef int order[7]
    cdef int n = 0, i, j, col, threat_count
    cdef uint64_t cell
    for i in range(C4_WIDTH):
        col = CENTRE_FIRST[i]
        cell = possible & c4_column_bits(col)
        if cell:
            threat_count = c4_popcount(c4_line_cells(s.own | cell) & ~(s.mask | cell))
            j = n
            while j > 0 and order[j - 1] < threat_count:
                cells[j] = cells[j - 1]
                order[j] = order[j - 1]
                j -= 1
            cells[j] = cell
            order[j] = threat_count
            n += 1

    cdef c4_t child
    cdef int score
    for i in range(n):
        child = s[0]
        _play_cell(&child, cells[i])
        score = -_negamax(sv, &child, -beta, -alpha)
        if score >= beta:
            return score
        if score > alpha:
            alpha = score
    sv.keys[slot] = key
    sv.values[slot] = <int8_t>(alpha - MIN_STORED + 1)
    return alpha


cdef int c4_solve(c4_solver_t* sv, const c4_t* s, bint weak) noexcept nogil:
    if s.moves >= C4_CELLS:
        return 0
    if c4_winning_cells(s):
        return 1 if weak else (C4_CELLS + 1 - s.moves) // 2
    cdef int lo = -(C4_CELLS - s.moves) // 2
    cdef int hi = (C4_CELLS + 1 - s.moves) // 2
    if weak:
        lo, hi = -1, 1
    cdef int med, r
    # bisection by null windows, each probe pulled toward 0 (wins and losses are decided
    # faster near the ends)
    while lo < hi:
        med = lo + (hi - lo) // 2
        if med <= 0 and lo // 2 < med:
            med = lo // 2
        elif med >= 0 and hi // 2 > med:
            med = hi // 2
        r = _negamax(sv, s, med, med + 1)
        if r <= med:
            hi = r
        else:
            lo = r
    if weak:                                # the window's bounds leave only the sign exact
        return (lo > 0) - (lo < 0)
    return lo


cdef int c4_move_scores(c4_solver_t* sv, const c4_t* s, bint weak, int* scores) noexcept nogil:
    cdef int col, r, best = C4_NO_SCORE
    cdef c4_t child
    for col in range(C4_WIDTH):
        if not c4_can_play(s, col):
            scores[col] = C4_NO_SCORE
            continue
        child = s[0]
        c4_play(&child, col)
        r = c4_result(&child)
        if r == 1:
            scores[col] = (C4_CELLS + 1 - s.moves) // 2
            if weak:
                scores[col] = 1
        elif r == 0:
            scores[col] = 0
        else:
            scores[col] = -c4_solve(sv, &child, weak)
        if scores[col] > best:
            best = scores[col]
    return best


def _board_state(Board board):
    if c4_result(&board.s) != C4_ONGOING:
        raise ValueError("the game is over: no score to solve")


cdef class Solver:
    """An exact solver with its transposition table (kept between calls: positions of one
    game share most of their search).

    Parameters
    ----------
    table_size : int
        Transposition table slots (9 bytes each); a prime spreads keys best.
    """

    def __cinit__(self, table_size=DEFAULT_TABLE_SIZE):
        size = checked_int(table_size, "table_size", 1, 1 << 32, "1..2**32", "an integer")
        if c4_solver_init(&self.sv, size) != 0:
            raise MemoryError(f"no room for a table of {size} slots")

    def __dealloc__(self):
        c4_solver_free(&self.sv)

    def solve(self, Board board, bint weak=False) -> int:
        """The score of ``board`` (see the module); ``weak``: only win (1), draw (0) or loss
        (-1), found faster."""
        _board_state(board)
        with nogil:
            r = c4_solve(&self.sv, &board.s, weak)
        return r

    def move_scores(self, Board board, bint weak=False) -> list[int | None]:
        """The score for the side to move of playing each 0-based column (None where full)."""
        _board_state(board)
        cdef int scores[7]
        with nogil:
            c4_move_scores(&self.sv, &board.s, weak, scores)
        return [None if v == C4_NO_SCORE else v for v in scores]

    def best_moves(self, Board board, bint weak=False) -> list[int]:
        """The 0-based columns of the best score (with ``weak``: of the best outcome)."""
        scores = self.move_scores(board, weak)
        best = max(v for v in scores if v is not None)
        return [c for c, v in enumerate(scores) if v == best]

    @property
    def nodes(self) -> int:
        """Positions searched since the last :meth:`clear` (or :meth:`reset_nodes`)."""
        return self.sv.nodes

    def reset_nodes(self) -> None:
        self.sv.nodes = 0

    def clear(self) -> None:
        """Empty the transposition table and the node count."""
        c4_solver_clear(&self.sv)


def plies_to_end(score, moves) -> int | None:
    """How many more stones perfect play puts on the board before the game ends in a win
    (score > 0) or a loss (score < 0) for the side to move at ``moves`` stones; None for a
    draw (the board fills).  ``score``: an integer in -21..21; ``moves``: 0..42."""
    score = checked_int(score, "score", -21, 21, "-21..21", "an integer")
    moves = checked_int(moves, "moves", 0, 42, "0..42", "an integer")
    if score > 0:
        return 2 * (22 - score - moves // 2) - 1
    if score < 0:
        return 2 * (22 + score - (moves + 1) // 2)
    return None
