"""Connect Four reference players and their game loop.

* ``random``: a uniformly random legal column;
* ``minimax`` to a depth (MM1..MM4 are depths 1..4): leaves valued by the line counts (for each
  own stone, the number of lines of four through its cell, minus the same for the opponent's),
  wins by a large value that prefers sooner wins; ties broken at random;
* ``simulation``: the playouts spread evenly over the legal moves, each a game of uniformly
  random moves to the end, and the move of the best mean played;
* ``perfect``: the exact solver's best score (its table persists; early positions are slow).

Each plays a uniformly random move instead with probability ``epsilon`` (0.2 in the studies'
MM players).

``GAME`` is Connect Four's table of the small games' interface (``smallgame.pxd``) for the
compiled learners (``bgengine.core.smalllearners``), with ``PLAYERS`` its reference players.

>>> from bgengine.core.dice import Dice
>>> play_match(Player("minimax", depth=2), Player("random"), games=100, dice=Dice(1))["a_wins"]
"""

from libc.stdint cimport uint64_t

from bgengine.core.checks cimport checked_int, checked_real
from bgengine.core._types cimport real_t
from bgengine.core.connect4 cimport (
    c4_t, Board, c4_start, c4_legal, c4_play, c4_result, c4_encode, c4_ctz, C4_WIDTH,
    C4_HEIGHT, C4_CELLS, C4_COLUMN_BITS, C4_WON, C4_DRAW, C4_ONGOING, C4_SIMPLE_INPUTS,
    C4_SEPARATED_INPUTS)
from bgengine.core.connect4_solver cimport c4_solver_t, c4_move_scores, Solver
from bgengine.core.dice cimport rng_t, rng_below, rng_next32, Dice
from bgengine.core.smallgame cimport smallgame_t, sg_capsule, SG_SIMPLE, SG_SEPARATED

#: the studies' MM players play a uniformly random move this often
STUDY_EPSILON = 0.2

KINDS = {"random": C4_RANDOM, "minimax": C4_MINIMAX, "simulation": C4_SIMULATION,
         "perfect": C4_PERFECT}

#: lines of four through each cell, bottom row first (the studies' table; top rows mirrored)
LINE_COUNTS = ((3, 4, 5, 7, 5, 4, 3), (4, 6, 8, 10, 8, 6, 4), (5, 8, 11, 13, 11, 8, 5),
               (5, 8, 11, 13, 11, 8, 5), (4, 6, 8, 10, 8, 6, 4), (3, 4, 5, 7, 5, 4, 3))

# LINE_COUNTS by bit index (col * 7 + row); the sentinel bits count 0
cdef int line_count_by_bit[64]
for _c in range(C4_WIDTH):
    for _r in range(C4_HEIGHT):
        line_count_by_bit[_c * C4_COLUMN_BITS + _r] = LINE_COUNTS[_r][_c]

# above any line-count difference (at most 138), below any win plus its depth bonus
cdef int WIN_VALUE = 100000


cdef int c4_line_value(unsigned long long stones) noexcept nogil:
    cdef int v = 0
    while stones:
        v += line_count_by_bit[c4_ctz(stones)]
        stones &= stones - 1
    return v


cdef int _minimax(const c4_t* s, int depth) noexcept nogil:
    """The value of a position where the game goes on, for the side to move."""
    if depth == 0:
        return c4_line_value(s.own) - c4_line_value(s.own ^ s.mask)
    cdef int cols[C4_WIDTH]
    cdef int n = c4_legal(s, cols)
    cdef int i, v, best = -2 * WIN_VALUE
    cdef c4_t child
    for i in range(n):
        child = s[0]
        c4_play(&child, cols[i])
        v = _after_move_value(&child, depth)
        if v > best:
            best = v
    return best


cdef inline int _after_move_value(const c4_t* child, int depth) noexcept nogil:
    """The value for the side that just moved into ``child``, searched ``depth - 1`` more."""
    cdef int r = c4_result(child)
    if r == C4_WON:
        return WIN_VALUE + depth            # sooner wins are worth more
    if r == C4_DRAW:
        return 0
    return -_minimax(child, depth - 1)


cdef int _random_playout(c4_t s, rng_t* rng) noexcept nogil:
    """A game of uniformly random moves from ``s`` (going on): 1 the side to move at ``s``
    won, 0 a draw, -1 it lost."""
    cdef int cols[C4_WIDTH]
    cdef int n, r, sign = 1
    while True:
        n = c4_legal(&s, cols)
        c4_play(&s, cols[rng_below(rng, n)])
        r = c4_result(&s)
        if r == C4_WON:
            return sign
        if r == C4_DRAW:
            return 0
        sign = -sign


cdef int _pick_best(const int* values, const int* cols, int n, rng_t* rng) noexcept nogil:
    """A column of the highest value, uniformly among ties."""
    cdef int i, best = values[0], ties = 0
    for i in range(n):
        if values[i] > best:
            best = values[i]
    cdef int tied[C4_WIDTH]
    for i in range(n):
        if values[i] == best:
            tied[ties] = cols[i]
            ties += 1
    return tied[rng_below(rng, ties)]


cdef int c4_player_move(const c4_player_t* p, const c4_t* s, rng_t* rng) noexcept nogil:
    cdef int cols[C4_WIDTH]
    cdef int values[C4_WIDTH]
    cdef int scores[C4_WIDTH]
    cdef int n = c4_legal(s, cols)
    cdef int i, k, per, r
    cdef c4_t child
    if p.kind == C4_RANDOM or (p.epsilon > 0 and rng_next32(rng) < p.epsilon * 4294967296.0):
        return cols[rng_below(rng, n)]
    if p.kind == C4_MINIMAX:
        for i in range(n):
            child = s[0]
            c4_play(&child, cols[i])
            values[i] = _after_move_value(&child, p.depth)
    elif p.kind == C4_SIMULATION:
        per = p.playouts // n if p.playouts >= n else 1
        for i in range(n):
            child = s[0]
            c4_play(&child, cols[i])
            r = c4_result(&child)
            if r == C4_WON:
                values[i] = per
            elif r == C4_DRAW:
                values[i] = 0
            else:
                values[i] = 0
                for k in range(per):
                    values[i] -= _random_playout(child, rng)
    else:
        c4_move_scores(p.solver, s, False, scores)
        for i in range(n):
            values[i] = scores[cols[i]]
    return _pick_best(values, cols, n, rng)


cdef int c4_play_game(const c4_player_t* first, const c4_player_t* second, c4_t s,
                      rng_t* rng) noexcept nogil:
    cdef const c4_player_t* players[2]
    players[0] = first
    players[1] = second
    cdef int turn = 0, r
    while True:
        c4_play(&s, c4_player_move(players[turn], &s, rng))
        r = c4_result(&s)
        if r == C4_WON:
            return 1 if turn == 0 else -1
        if r == C4_DRAW:
            return 0
        turn ^= 1


cdef class Player:
    """A reference player (see the module).

    Parameters
    ----------
    kind : str
        "random", "minimax", "simulation" or "perfect".
    depth : int
        minimax: plies searched, 1..8.
    epsilon : float
        Chance of a uniformly random move instead, 0..1.
    playouts : int
        simulation: random playouts per decision, spread evenly over the legal moves.
    solver : Solver
        perfect: the solver to ask (a new one by default).
    """

    def __init__(self, str kind, depth=0, epsilon=0.0, playouts=0, solver=None):
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {sorted(KINDS)}, got {kind!r}")
        self.p.kind = KINDS[kind]
        self.p.epsilon = checked_real(epsilon, "epsilon", 0.0, 1.0, "0..1")
        self.p.depth = checked_int(depth, "depth", 1 if kind == "minimax" else 0,
                                   8 if kind == "minimax" else 0, "1..8 for minimax, 0 else",
                                   "an integer")
        self.p.playouts = checked_int(playouts, "playouts", 1 if kind == "simulation" else 0,
                                      10**9 if kind == "simulation" else 0,
                                      "1.. for simulation, 0 else", "an integer")
        self.p.solver = NULL
        self.solver_ref = None
        if kind == "perfect":
            self.solver_ref = Solver() if solver is None else solver
            self.p.solver = &(<Solver>self.solver_ref).sv

    @property
    def kind(self) -> str:
        return next(k for k, v in KINDS.items() if v == self.p.kind)

    @property
    def depth(self) -> int:
        return self.p.depth

    @property
    def epsilon(self) -> float:
        return self.p.epsilon

    @property
    def playouts(self) -> int:
        return self.p.playouts

    def move(self, Board board, Dice dice) -> int:
        """The 0-based column this player picks in ``board`` (a game that goes on), its random
        choices drawn from ``dice``."""
        if not board.legal_moves():
            raise ValueError("the game is over")
        with nogil:
            col = c4_player_move(&self.p, &board.s, &dice.rng)
        return col

    def __repr__(self) -> str:
        return (f"Player({self.kind!r}, depth={self.depth}, epsilon={self.epsilon}, "
                f"playouts={self.playouts})")


def line_value(stones: int) -> int:
    """The line-count value of a bitboard of one side's stones."""
    return c4_line_value(checked_int(stones, "stones", 0, (1 << 64) - 1, "0..2**64-1",
                                     "an integer"))


def play_match(Player a, Player b, games, Dice dice, Board start=None) -> dict[str, int]:
    """``games`` games between ``a`` and ``b`` from ``start`` (the empty board by default),
    ``a`` moving first in the even-numbered games (0, 2, ...) and ``b`` in the others.

    Returns the counts ``a_wins``, ``b_wins``, ``draws`` and, by seat, ``a_first_wins``
    (games ``a`` won moving first) and ``b_first_wins``."""
    cdef Py_ssize_t n = checked_int(games, "games", 0, 10**12, "0..10**12", "an integer")
    cdef c4_t s0
    if start is None:
        start = Board()
    if not start.legal_moves():
        raise ValueError("the start position's game is over")
    s0 = start.s
    cdef Py_ssize_t g
    cdef long long a_wins = 0, b_wins = 0, a_first_wins = 0, b_first_wins = 0, draws = 0
    cdef int r
    cdef bint a_first
    with nogil:
        for g in range(n):
            a_first = g % 2 == 0
            if a_first:
                r = c4_play_game(&a.p, &b.p, s0, &dice.rng)
            else:
                r = c4_play_game(&b.p, &a.p, s0, &dice.rng)
            if r == 0:
                draws += 1
            elif (r > 0) == a_first:
                a_wins += 1
                a_first_wins += a_first
            else:
                b_wins += 1
                b_first_wins += not a_first
    return {"games": n, "a_wins": a_wins, "b_wins": b_wins, "draws": draws,
            "a_first_wins": a_first_wins, "b_first_wins": b_first_wins}

# ---------------------------------------------------------------- the small games' table

#: The reference players of the small games' learners (``kind`` of the table's player()), by
#: number: random, then the studies' MM1..MM4 (20% random moves), then MM1..MM4 without them;
#: the names are :func:`bgengine.games.connect4.make_player`'s specs.
PLAYERS = ("random", "mm1", "mm2", "mm3", "mm4",
           "mm1-greedy", "mm2-greedy", "mm3-greedy", "mm4-greedy")
#: Inputs of each representation (``simple``, ``separated``; connect4.pxd's c4_encode).
N_INPUTS = (C4_SIMPLE_INPUTS, C4_SEPARATED_INPUTS)

cdef enum:
    N_MM = 4                        # minimax depths 1..N_MM
    N_TABLE_PLAYERS = 1 + 2 * N_MM

# the players by PLAYERS' numbers; read-only after import
cdef c4_player_t TABLE_PLAYERS[N_TABLE_PLAYERS]
TABLE_PLAYERS[0].kind = C4_RANDOM
TABLE_PLAYERS[0].depth = 0
TABLE_PLAYERS[0].epsilon = 0.0
TABLE_PLAYERS[0].playouts = 0
TABLE_PLAYERS[0].solver = NULL
for _k in range(1, N_TABLE_PLAYERS):
    TABLE_PLAYERS[_k].kind = C4_MINIMAX
    TABLE_PLAYERS[_k].depth = (_k - 1) % N_MM + 1
    TABLE_PLAYERS[_k].epsilon = STUDY_EPSILON if _k <= N_MM else 0.0
    TABLE_PLAYERS[_k].playouts = 0
    TABLE_PLAYERS[_k].solver = NULL


cdef void _init(void* s) noexcept nogil:
    c4_start(<c4_t*> s)

cdef int _legal(const void* s, int* moves) noexcept nogil:
    return c4_legal(<const c4_t*> s, moves)

cdef void _play(void* s, int move) noexcept nogil:
    c4_play(<c4_t*> s, move)

cdef int _result(const void* s) noexcept nogil:
    return c4_result(<const c4_t*> s)

cdef int _encode(const void* s, int representation, real_t* x) noexcept nogil:
    return c4_encode(<const c4_t*> s, representation, x)

cdef int _player(const void* s, int kind, rng_t* rng) noexcept nogil:
    return c4_player_move(&TABLE_PLAYERS[kind], <const c4_t*> s, rng)


cdef smallgame_t TABLE
TABLE.name = b"connect4"
TABLE.state_size = sizeof(c4_t)
TABLE.max_plies = C4_CELLS
TABLE.n_inputs[SG_SIMPLE] = C4_SIMPLE_INPUTS
TABLE.n_inputs[SG_SEPARATED] = C4_SEPARATED_INPUTS
TABLE.n_players = N_TABLE_PLAYERS
TABLE.init = _init
TABLE.legal = _legal
TABLE.play = _play
TABLE.result = _result
TABLE.encode = _encode
TABLE.player = _player

#: The game's table for the compiled learners (``bgengine.core.smalllearners``; an opaque capsule).
GAME = sg_capsule(&TABLE)
