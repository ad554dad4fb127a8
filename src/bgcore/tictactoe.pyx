"""Tic-tac-toe on bitboards: rules, encodings, an exact solver and the reference players.

The C functions (``tictactoe.pxd``) are the small games' interface (``smallgame.pxd``), and
``GAME`` is their table for the compiled learners (``bgengine.core.smalllearners``).  A state is
``(own, mask, moves)``: the side to move's cells, every occupied cell (bit ``3 * row +
column``) and the number of pieces played; the first player is to move when ``moves`` is even.

The solver is a full search of the game tree, done once at import into a table of the exact
value of every reachable ongoing state (4,520 of the 5,478 reachable positions), so that
solving is a lookup.

Reference players: ``random``; ``primitive`` takes a winning move if there is one, else plays
at random; ``smart`` takes a win, else blocks the opponent's win, else plays the cell with the
most open lines (lines holding none of the opponent's pieces); ``solver`` plays a random one
of the exactly best moves.  Their ties are broken at random.
"""

import numpy as np
cimport numpy as cnp
from libc.string cimport memset

from bgengine.core._types cimport real_t, uint64_t
from bgengine.core.dice cimport rng_t, rng_seed, rng_below
from bgengine.core.checks cimport checked_int
from bgengine.core.smallgame cimport (smallgame_t, sg_capsule, SG_SIMPLE, SG_SEPARATED,
                                 SG_ONGOING, SG_DRAW, SG_WIN)

from bgengine.core.movegen import check_seed

cnp.import_array()

#: The reference players, by number (``kind`` of :func:`player_move` and of the learners).
PLAYERS = ("random", "primitive", "smart", "solver")
#: Inputs of each representation (``simple``, ``separated``).
N_INPUTS = (TTT_INPUTS_SIMPLE, TTT_INPUTS_SEPARATED)

cdef uint64_t LINES[8]
LINES[:] = [0x7, 0x38, 0x1C0, 0x49, 0x92, 0x124, 0x111, 0x54]

# ---------------------------------------------------------------- rules

cdef inline bint _has_line(uint64_t cells) noexcept nogil:
    cdef int i
    for i in range(8):
        if cells & LINES[i] == LINES[i]:
            return True
    return False


cdef void ttt_init(ttt_t* s) noexcept nogil:
    s.own = 0
    s.mask = 0
    s.moves = 0


cdef int ttt_legal(const ttt_t* s, int* moves) noexcept nogil:
    cdef int c, n = 0
    for c in range(TTT_CELLS):
        if not (s.mask >> c) & 1:
            moves[n] = c
            n += 1
    return n


cdef void ttt_play(ttt_t* s, int move) noexcept nogil:
    cdef uint64_t mover = s.own | (<uint64_t> 1 << move)
    s.mask |= <uint64_t> 1 << move
    s.own = s.mask ^ mover          # the other side's pieces: it is to move
    s.moves += 1


cdef int ttt_result(const ttt_t* s) noexcept nogil:
    if _has_line(s.mask ^ s.own):   # the side that just moved
        return SG_WIN
    if s.moves == TTT_CELLS:
        return SG_DRAW
    return SG_ONGOING


cdef int ttt_encode(const ttt_t* s, int representation, real_t* x) noexcept nogil:
    cdef uint64_t first, second
    cdef int c
    if representation == SG_SEPARATED:
        first = s.own
        second = s.mask ^ s.own
    else:
        first = s.own if s.moves % 2 == 0 else s.mask ^ s.own
        second = s.mask ^ first
    for c in range(TTT_CELLS):
        x[c] = (first >> c) & 1
        x[TTT_CELLS + c] = (second >> c) & 1
    if representation == SG_SEPARATED:
        return TTT_INPUTS_SEPARATED
    x[2 * TTT_CELLS] = 1 if s.moves % 2 == 0 else 0
    return TTT_INPUTS_SIMPLE

# ---------------------------------------------------------------- solver

# value + 2 of every reachable ongoing state for its side to move, by own | mask << 9
# (0: not a reachable ongoing state); filled once at import, read-only after
cdef signed char SOLVED[1 << 18]


cdef inline int _key(const ttt_t* s) noexcept nogil:
    return <int> (s.own | (s.mask << TTT_CELLS))


cdef int _move_value(const ttt_t* s, int move) noexcept nogil:
    """The exact value of ``move`` for s's side to move."""
    cdef ttt_t child = s[0]
    cdef int r
    ttt_play(&child, move)
    r = ttt_result(&child)
    return 1 if r == SG_WIN else 0 if r == SG_DRAW else -_search(&child)


cdef int _search(const ttt_t* s) noexcept nogil:
    """Negamax over the whole tree below s (ongoing), memoised in SOLVED (after the import's
    search from the empty board, a lookup)."""
    cdef int k = _key(s), n, i, v, best = -2
    cdef int moves[TTT_CELLS]
    if SOLVED[k]:
        return SOLVED[k] - 2
    n = ttt_legal(s, moves)
    for i in range(n):
        v = _move_value(s, moves[i])
        if v > best:
            best = v
    SOLVED[k] = <signed char> (best + 2)
    return best


cdef int ttt_solve(const ttt_t* s) noexcept nogil:
    return SOLVED[_key(s)] - 2


cdef ttt_t _start
ttt_init(&_start)
memset(SOLVED, 0, sizeof(SOLVED))
_search(&_start)

# ---------------------------------------------------------------- players

cdef int _pick(const int* cells, int n, rng_t* rng) noexcept nogil:
    return cells[rng_below(rng, n) if n > 1 else 0]


cdef int _completing(uint64_t pieces, uint64_t empty, int* cells) noexcept nogil:
    """Empty cells that complete a line of ``pieces``; their count."""
    cdef int c, n = 0
    for c in range(TTT_CELLS):
        if (empty >> c) & 1 and _has_line(pieces | (<uint64_t> 1 << c)):
            cells[n] = c
            n += 1
    return n


cdef int _most_open_lines(uint64_t opponent, uint64_t empty, int* cells) noexcept nogil:
    """Empty cells with the most lines through them that hold no opponent piece."""
    cdef int c, i, count, best = -1, n = 0
    for c in range(TTT_CELLS):
        if not (empty >> c) & 1:
            continue
        count = 0
        for i in range(8):
            if (LINES[i] >> c) & 1 and not (LINES[i] & opponent):
                count += 1
        if count > best:
            best = count
            n = 0
        if count == best:
            cells[n] = c
            n += 1
    return n


cdef int _best_by_solver(const ttt_t* s, int* cells) noexcept nogil:
    cdef int moves[TTT_CELLS]
    cdef int n = ttt_legal(s, moves), i, v, best = -2, m = 0
    for i in range(n):
        v = _move_value(s, moves[i])
        if v > best:
            best = v
            m = 0
        if v == best:
            cells[m] = moves[i]
            m += 1
    return m


cdef int ttt_player(const ttt_t* s, int kind, rng_t* rng) noexcept nogil:
    cdef int cells[TTT_CELLS]
    cdef int n
    cdef uint64_t empty = TTT_FULL & ~s.mask, opponent = s.mask ^ s.own
    if kind == TTT_SOLVER:
        return _pick(cells, _best_by_solver(s, cells), rng)
    if kind == TTT_PRIMITIVE or kind == TTT_SMART:
        n = _completing(s.own, empty, cells)
        if n:
            return _pick(cells, n, rng)
    if kind == TTT_SMART:
        n = _completing(opponent, empty, cells)
        if not n:
            n = _most_open_lines(opponent, empty, cells)
        return _pick(cells, n, rng)
    n = ttt_legal(s, cells)
    return _pick(cells, n, rng)

# ---------------------------------------------------------------- the game's table

cdef void _init(void* s) noexcept nogil:
    ttt_init(<ttt_t*> s)

cdef int _legal(const void* s, int* moves) noexcept nogil:
    return ttt_legal(<const ttt_t*> s, moves)

cdef void _play(void* s, int move) noexcept nogil:
    ttt_play(<ttt_t*> s, move)

cdef int _result(const void* s) noexcept nogil:
    return ttt_result(<const ttt_t*> s)

cdef int _encode(const void* s, int representation, real_t* x) noexcept nogil:
    return ttt_encode(<const ttt_t*> s, representation, x)

cdef int _player(const void* s, int kind, rng_t* rng) noexcept nogil:
    return ttt_player(<const ttt_t*> s, kind, rng)


cdef smallgame_t TABLE
TABLE.name = b"tictactoe"
TABLE.state_size = sizeof(ttt_t)
TABLE.max_plies = TTT_CELLS
TABLE.n_inputs[SG_SIMPLE] = TTT_INPUTS_SIMPLE
TABLE.n_inputs[SG_SEPARATED] = TTT_INPUTS_SEPARATED
TABLE.n_players = TTT_N_PLAYERS
TABLE.init = _init
TABLE.legal = _legal
TABLE.play = _play
TABLE.result = _result
TABLE.encode = _encode
TABLE.player = _player


cdef const smallgame_t* ttt_game() noexcept nogil:
    return &TABLE


#: The game's table for the compiled learners (an opaque capsule).
GAME = sg_capsule(&TABLE)

# ---------------------------------------------------------------- Python entry points

cdef bint _reachable(const ttt_t* s) noexcept nogil:
    """An ongoing state the search met, or a finished one whose last move was from one."""
    cdef uint64_t mover = s.mask ^ s.own, bit
    cdef ttt_t before
    cdef int c
    if ttt_result(s) == SG_ONGOING:
        return SOLVED[_key(s)] != 0
    for c in range(TTT_CELLS):
        bit = <uint64_t> 1 << c
        if mover & bit:
            before.own = mover & ~bit
            before.mask = s.mask & ~bit
            before.moves = s.moves - 1
            if ttt_result(&before) == SG_ONGOING and SOLVED[_key(&before)]:
                return True
    return False


cdef int _state(object own, object mask, object moves, ttt_t* s) except -1:
    """Fill s from Python integers; ``ValueError`` unless a game reaches that state."""
    s.own = checked_int(own, "own", 0, TTT_FULL, "0..511", "an integer")
    s.mask = checked_int(mask, "mask", 0, TTT_FULL, "0..511", "an integer")
    s.moves = checked_int(moves, "moves", 0, TTT_CELLS, "0..9", "an integer")
    if s.own & ~s.mask or bin(s.mask).count("1") != s.moves \
            or bin(s.own).count("1") != s.moves // 2 or not _reachable(s):
        raise ValueError(f"no game reaches the state own={own:09b} mask={mask:09b} "
                         f"moves={moves} (own within mask, moves pieces, moves // 2 of them "
                         f"the side to move's, at most the last move completing a line)")
    return 0


def legal_moves(own: int, mask: int, moves: int) -> list:
    """The empty cells of an ongoing state, ascending ([] once the game is over)."""
    cdef ttt_t s
    cdef int cells[TTT_CELLS]
    _state(own, mask, moves, &s)
    if ttt_result(&s) != SG_ONGOING:
        return []
    return [cells[i] for i in range(ttt_legal(&s, cells))]


def play(own: int, mask: int, moves: int, move: int) -> tuple:
    """The state after the side to move plays cell ``move``: ``(own, mask, moves)``."""
    cdef ttt_t s
    _state(own, mask, moves, &s)
    if ttt_result(&s) != SG_ONGOING:
        raise ValueError("the game is over")
    move = checked_int(move, "move", 0, TTT_CELLS - 1, "0..8", "a cell")
    if (s.mask >> move) & 1:
        raise ValueError(f"cell {move} is taken")
    ttt_play(&s, move)
    return (int(s.own), int(s.mask), s.moves)


def result(own: int, mask: int, moves: int) -> int:
    """1 when the side that just moved has won, 0 for a draw, -1 while the game goes on."""
    cdef ttt_t s
    _state(own, mask, moves, &s)
    return ttt_result(&s)


def encode(own: int, mask: int, moves: int, representation: int) -> np.ndarray:
    """The network inputs of a state: float32 (N_INPUTS[representation],)."""
    cdef ttt_t s
    _state(own, mask, moves, &s)
    representation = checked_int(representation, "representation", 0, 1,
                                 "0..1 (simple, separated)", "an integer")
    out = np.zeros(N_INPUTS[representation], dtype=np.float32)
    cdef real_t[::1] x = out
    ttt_encode(&s, representation, &x[0])
    return out


def solve(own: int, mask: int, moves: int) -> int:
    """Exact value of an ongoing state for the side to move: 1 win, 0 draw, -1 loss."""
    cdef ttt_t s
    _state(own, mask, moves, &s)
    if ttt_result(&s) != SG_ONGOING:
        raise ValueError("the game is over: only ongoing states have a value")
    return ttt_solve(&s)


def player_move(own: int, mask: int, moves: int, kind: int, seed: int = 0) -> int:
    """The cell reference player ``kind`` (an index of PLAYERS) plays, its random choices
    drawn from ``seed``."""
    cdef ttt_t s
    cdef rng_t rng
    _state(own, mask, moves, &s)
    if ttt_result(&s) != SG_ONGOING:
        raise ValueError("the game is over")
    kind = checked_int(kind, "kind", 0, TTT_N_PLAYERS - 1,
                       f"0..{TTT_N_PLAYERS - 1} ({', '.join(PLAYERS)})", "an integer")
    rng_seed(&rng, check_seed(seed), 0)
    return ttt_player(&s, kind, &rng)
