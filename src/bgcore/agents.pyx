"""Benchmark players and the compiled match loop.

Players (``Player(kind)``):

``random``
    A uniformly random legal play.
``pubeval``
    Tesauro's public evaluator: the afterstate with the highest linear score.
    Race rule: the race weights are used when the position *before* the move
    has no contact (as in Tesauro's driver), otherwise the contact weights.
``simple1``, ``simple2``, ``simple3``
    The sources' heuristics.  Simple_001 maximises the number of points
    made (2+ checkers); Simple_002 adds one for each pair of adjacent made
    points (rewarding blocks and primes); Simple_003 plays like Simple_002
    but, when the position is a race, bears off as fast as possible (most
    checkers off, then fewest pips).  Ties are broken at random.
``net``
    A :class:`~bgengine.core.network.Network` or :class:`~bgengine.core.evaluator.Evaluator`
    at 0-ply (or searching ``plies`` deeper): the afterstate whose equity for the
    mover is highest.

``play_match`` plays game pairs: the same dice sequence twice, the players
swapping seats, on as many threads as asked; pair ``i`` depends only on
``(seed, i)``, so results do not depend on the number of threads.
"""

import json
from importlib import resources

import numpy as np
cimport numpy as cnp
from cython.parallel cimport prange, threadid
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy

from bgengine.core._types cimport int32_t, real_t, uint64_t
from bgengine.core.board cimport (board_t, board_start, board_swap, board_checkers, board_is_race,
                             board_side_empty, board_win_value, board_pips, MOVER, OPPONENT, BAR,
                             MAX_GAME_PLAYS)
from bgengine.core.interrupt cimport interrupt_t, interrupt_init, interrupt_poll
from bgengine.core.dice cimport rng_t, rng_seed, rng_roll, rng_opening_roll, rng_below
from bgengine.core.movegen cimport movelist_t, movelist_init, movelist_free, generate_moves
from bgengine.core.network cimport netbuf_t
from bgengine.core.outputs cimport outputs_flip, outputs_equity, outputs_target, MAX_OUTPUTS
from bgengine.core.evaluator cimport Evaluator
from bgengine.core.search cimport (searcher_t, searcher_init, searcher_free, search_best_move,
                             ev_best_move, MAX_PLIES, workspaces_t, workspaces_init,
                             workspaces_add_lists, workspaces_add_bufs, workspaces_add_searchers,
                             workspaces_free)

from bgengine.core.checks cimport checked_int, checked_real

from bgengine.core.board import validate_board
from bgengine.core.evaluator import as_evaluator
from bgengine.core.movegen import check_die, check_seed, check_threads

cnp.import_array()

#: Games one call plays at most (``play_match``: ``MAX_GAMES // 2`` pairs; the library's
#: matches, self-play and training batches: ``MAX_GAMES`` games).  A per-game array of
#: results is kept, about 10 bytes a game: at most about 1 GB.
MAX_GAMES = 10**8

#: Player kinds by name.
PLAYER_KINDS = {"random": P_RANDOM, "pubeval": P_PUBEVAL, "simple1": P_SIMPLE1,
                "simple2": P_SIMPLE2, "simple3": P_SIMPLE3, "net": P_NET}

# Dice and the players' own randomness come from separate PCG32 streams, so
# a random choice never shifts the dice.  Stream numbers: pair index for the
# dice, PLAYER_STREAM + 2 * pair + game for choices.
cdef uint64_t PLAYER_STREAM = 1ULL << 40
# the move filter of searching players (gnubg's defaults are of this order)
cdef int SEARCH_CANDIDATES = 8
cdef double SEARCH_MARGIN = 0.16

cdef double pubeval_race[122]
cdef double pubeval_contact[122]


def _load_pubeval():
    data = json.loads(resources.files("bgengine").joinpath("data/pubeval_weights.json").read_text())
    for name, target in (("race", 0), ("contact", 1)):
        w = data[name]
        if len(w) != 122:
            raise ValueError(f"pubeval {name} weights: expected 122 values, got {len(w)}")
    cdef int i
    for i in range(122):
        pubeval_race[i] = data["race"][i]
        pubeval_contact[i] = data["contact"][i]

_load_pubeval()


# ---------------------------------------------------------------- pubeval

cdef double pubeval_score(const board_t* a, bint race) noexcept nogil:
    """Tesauro's score of afterstate ``a`` (mover in row 1, not swapped)."""
    cdef const double* w = &pubeval_contact[0]
    if race:
        w = &pubeval_race[0]
    cdef int j, p, n, u
    cdef double s = 0
    cdef int off = 15 - board_checkers(a, MOVER)
    if off == 15:
        return 99999999.0
    for j in range(1, 25):
        p = 25 - j                       # input block j describes the mover's point 25 - j
        n = a.c[MOVER][p - 1] - a.c[OPPONENT][24 - p]
        if n == 0:
            continue
        u = 5 * (j - 1)
        if n == -1:
            s += w[u]
        elif n == 1:
            s += w[u + 1]
        elif n >= 2:
            s += w[u + 2]
            if n == 3:
                s += w[u + 3]
            elif n >= 4:
                s += w[u + 4] * (n - 3) * 0.5
    s += w[120] * a.c[OPPONENT][BAR] * 0.5
    s += w[121] * off / 15.0
    return s


def pubeval(board, race=None) -> float:
    """pubeval's score of an afterstate (mover in row 1, not swapped).

    ``race`` picks the weights; by default, whether ``board`` itself has no
    contact (the players use the position before the move instead).
    """
    cdef cnp.ndarray arr = validate_board(board)
    cdef const board_t* b = <const board_t*> cnp.PyArray_DATA(arr)
    if race is None:
        race = board_is_race(b)
    return pubeval_score(b, bool(race))


# ---------------------------------------------------------------- heuristics

cdef int _made_points(const board_t* a) noexcept nogil:
    cdef int i, n = 0
    for i in range(24):
        n += a.c[MOVER][i] >= 2
    return n


cdef int _adjacent_made(const board_t* a) noexcept nogil:
    cdef int i, n = 0
    for i in range(23):
        n += a.c[MOVER][i] >= 2 and a.c[MOVER][i + 1] >= 2
    return n


cdef double _simple_score(int kind, const board_t* a, bint race) noexcept nogil:
    if kind == P_SIMPLE3 and race:
        return 1000.0 * (15 - board_checkers(a, MOVER)) - board_pips(a, MOVER)
    if kind == P_SIMPLE1:
        return _made_points(a)
    return _made_points(a) + _adjacent_made(a)


# ---------------------------------------------------------------- choosing

cdef int choose_move(const player_t* p, const board_t* before, const movelist_t* ml, int n,
                     netbuf_t* buf, rng_t* rng, real_t* out, searcher_t* S) noexcept nogil:
    cdef int i, best = 0, ties = 0
    cdef double s, best_s = -1e300
    cdef bint race
    if n == 1:
        if p.kind == P_NET and out != NULL:
            return ev_best_move(p.ev, ml, n, buf, out, True)
        return 0
    if p.kind == P_RANDOM or (p.epsilon > 0 and rng_below(rng, 1000000) < p.epsilon * 1000000):
        return rng_below(rng, n)
    if p.kind == P_NET:
        if p.plies > 0 and S != NULL:
            return search_best_move(S, ml, n, p.plies, out)
        return ev_best_move(p.ev, ml, n, buf, out, True)
    race = board_is_race(before)
    for i in range(n):
        if p.kind == P_PUBEVAL:
            s = pubeval_score(&ml.boards[i], race)
        else:
            s = _simple_score(p.kind, &ml.boards[i], race)
        if s > best_s:
            best_s = s
            best = i
            ties = 1
        elif s == best_s and p.kind != P_PUBEVAL:
            # reservoir sampling: each of the tied plays equally likely
            ties += 1
            if rng_below(rng, ties) == 0:
                best = i
    return best


# ---------------------------------------------------------------- games

cdef int play_one_game(const player_t* first, const player_t* second, rng_t* dice, rng_t* prng,
                       movelist_t* ml, netbuf_t* buf, int* n_moves, searcher_t* s_first,
                       searcher_t* s_second) except? -100 nogil:
    cdef board_t b
    cdef const player_t* players[2]
    cdef int turn = 0, d1, d2, n, k, v, i
    cdef searcher_t* searchers[2]
    players[0] = first
    players[1] = second
    searchers[0] = s_first
    searchers[1] = s_second
    board_start(&b)
    rng_opening_roll(dice, &d1, &d2)
    n_moves[0] = 0
    while True:
        n = generate_moves(ml, &b, d1, d2)
        k = choose_move(players[turn], &b, ml, n, buf, prng, NULL, searchers[turn])
        n_moves[0] += 1
        if board_side_empty(&ml.boards[k], MOVER):
            v = board_win_value(&ml.boards[k], MOVER)
            return v if turn == 0 else -v
        if n_moves[0] >= MAX_GAME_PLAYS:
            return 0            # a last resort (see board.pxd): no result
        board_swap(&b, &ml.boards[k])
        turn ^= 1
        rng_roll(dice, &d1, &d2)


cdef class Player:
    """A player the compiled match loop can run.

    Parameters
    ----------
    kind : str
        One of ``PLAYER_KINDS``.
    network : Network or Evaluator, optional
        Required for ``kind="net"``: what values its plays.
    epsilon : float
        Chance, per move, of playing a uniformly random legal play (noise, for
        weaker difficulty levels or exploration): a number in [0, 1].
    name : str, optional
        Display name (defaults to the kind).
    plies : int
        A ``net`` player's lookahead, 0..3 (an integer, not a bool or a float).
    """

    def __init__(self, str kind, network=None, epsilon=0.0, name=None, plies=0):
        if kind not in PLAYER_KINDS:
            raise ValueError(f"unknown player kind {kind!r}; known: {', '.join(PLAYER_KINDS)}")
        self.p.epsilon = checked_real(epsilon, "epsilon", 0.0, 1.0, "[0, 1]")
        self.p.kind = PLAYER_KINDS[kind]
        self.p.ev = NULL
        self.p.plies = 0
        self.network = network
        self.evaluator = None
        plies = checked_int(plies, "plies", 0, MAX_PLIES, f"0..{MAX_PLIES}", "an integer")
        if plies and kind != "net":
            raise ValueError(f"only a 'net' player searches; {kind!r} cannot use plies={plies}")
        self.p.plies = plies
        if kind == "net":
            if network is None:
                raise ValueError("a 'net' player needs a network")
            ev = as_evaluator(network)
            self.evaluator = ev
            self.p.ev = &(<Evaluator> ev).ev
        elif network is not None:
            raise ValueError(f"a {kind!r} player takes no network")
        self.name = name or kind

    @property
    def kind(self) -> str:
        return next(k for k, v in PLAYER_KINDS.items() if v == self.p.kind)

    @property
    def plies(self) -> int:
        return self.p.plies

    @property
    def epsilon(self) -> float:
        return self.p.epsilon

    def __reduce__(self):
        # pickling (Ray workers): rebuilt from its settings and its network
        return (Player, (self.kind, self.network, self.p.epsilon, self.name, self.p.plies))

    def __repr__(self) -> str:
        return f"Player({self.name!r})"

    def choose(self, board, d1, d2, seed=0) -> int:
        """Index of the chosen play among ``legal_afterstates(board, d1, d2)`` (dice: integers
        1..6, as there)."""
        cdef cnp.ndarray arr = validate_board(board)
        cdef int a = check_die(d1, "d1"), c = check_die(d2, "d2")
        cdef movelist_t ml
        cdef rng_t rng
        cdef netbuf_t* buf = <netbuf_t*> malloc(sizeof(netbuf_t))
        if buf == NULL:
            raise MemoryError()
        rng_seed(&rng, check_seed(seed), PLAYER_STREAM)
        cdef int n, k
        cdef searcher_t S
        cdef searcher_t* sp = NULL
        movelist_init(&ml)
        cdef const board_t* b = <const board_t*> cnp.PyArray_DATA(arr)
        try:
            if self.p.plies > 0:
                # a searcher per call: Python threads may share this Player
                searcher_init(&S, self.p.ev, 16, SEARCH_CANDIDATES, SEARCH_MARGIN)
                sp = &S
            with nogil:
                n = generate_moves(&ml, b, a, c)
                k = choose_move(&self.p, b, &ml, n, buf, &rng, NULL, sp)
        finally:
            if sp != NULL:
                searcher_free(sp)
            movelist_free(&ml)
            free(buf)
        return k


cdef int _play_pair(const player_t* a, const player_t* b, uint64_t seed, uint64_t pair,
                    movelist_t* ml, netbuf_t* buf, cnp.int8_t* points, int32_t* moves,
                    searcher_t* sa, searcher_t* sb) except -1 nogil:
    """Both games of pair ``pair``; everything per game is local, so threads
    share nothing but the read-only players."""
    cdef rng_t dice, prng
    cdef int g, nm, v
    for g in range(2):
        rng_seed(&dice, seed, pair)
        rng_seed(&prng, seed, PLAYER_STREAM + 2 * pair + g)
        if g == 0:
            v = play_one_game(a, b, &dice, &prng, ml, buf, &nm, sa, sb)
        else:
            v = -play_one_game(b, a, &dice, &prng, ml, buf, &nm, sb, sa)
        points[g] = <cnp.int8_t>v
        moves[g] = nm
    return 0


def play_match(Player a not None, Player b not None, n_pairs, seed=0, n_threads=1, first_pair=0):
    """Play ``n_pairs`` game pairs between ``a`` and ``b``: an integer in
    0..``MAX_GAMES // 2`` (5 * 10**7), checked before anything is allocated.

    In pair ``i`` (dice stream ``first_pair + i`` of ``seed``) game 0 has
    ``a`` moving first and game 1 has ``b`` moving first with the very same
    dice, so luck largely cancels within a pair.

    Ctrl-C stops the match (each thread finishes the pair it is playing) and raises
    ``KeyboardInterrupt``, as does any signal handler that raises, in the main thread.

    Returns
    -------
    points : int8 (n_pairs, 2), points won by ``a`` in each game (negative if lost; 0 for
        a game cut off after ``MAX_GAME_PLAYS`` plays, a last resort never met in practice).
    moves : int32 (n_pairs, 2), plays made in each game (both sides).
    """
    cdef Py_ssize_t n = checked_int(n_pairs, "n_pairs", 0, MAX_GAMES // 2, "0..5*10**7",
                                    "an integer")
    cdef int nt = check_threads(n_threads)
    cdef uint64_t sd = check_seed(seed), fp = check_seed(first_pair, "first_pair")
    points = np.zeros((n, 2), dtype=np.int8)
    moves = np.zeros((n, 2), dtype=np.int32)
    cdef cnp.int8_t[:, ::1] pv = points
    cdef int32_t[:, ::1] mv = moves
    # a move list and a network buffer per thread, and a searcher per thread for each
    # searching player (each owns a cache)
    cdef workspaces_t W
    cdef Py_ssize_t i
    cdef int tid
    cdef interrupt_t it
    pending = []
    interrupt_init(&it, pending)
    workspaces_init(&W, nt)
    try:
        workspaces_add_lists(&W)
        workspaces_add_bufs(&W)
        if a.p.plies > 0:
            workspaces_add_searchers(&W, 0, a.p.ev, 18, SEARCH_CANDIDATES, SEARCH_MARGIN)
        if b.p.plies > 0:
            workspaces_add_searchers(&W, 1, b.p.ev, 18, SEARCH_CANDIDATES, SEARCH_MARGIN)
        with nogil:
            for i in prange(n, schedule="dynamic", num_threads=nt):
                tid = threadid()
                if not interrupt_poll(&it, tid == 0):
                    _play_pair(&a.p, &b.p, sd, fp + <uint64_t>i, &W.lists[tid], &W.bufs[tid],
                               &pv[i, 0], &mv[i, 0],
                               &W.searchers[0][tid] if a.p.plies > 0 else NULL,
                               &W.searchers[1][tid] if b.p.plies > 0 else NULL)
        if pending:
            raise pending[0]
    finally:
        workspaces_free(&W)
    return points, moves
