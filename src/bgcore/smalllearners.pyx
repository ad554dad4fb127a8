"""The learners and the match loop of the small games, one compiled code for every game.

A game is its table of C functions (``smallgame.pxd``), handed over as the game module's
``GAME`` capsule (``bgengine.core.tictactoe.GAME``); a network is any object with ``params``
(float32, flat, trained in place), ``sizes`` (inputs, hidden..., 1) and ``representation``
(0 simple, 1 separated), in the layout of ``bgengine.core.network`` and run by its kernels
(``net_forward_dense``, ``net_backward_dense``).

Values.  The network's one sigmoid output ``V(s)`` is the expected score (win 1, draw 1/2,
loss 0) of the side to move in ``s``.  A move is judged by its afterstate ``a`` from the side
that made it: exactly (1 or 1/2) when the move ends the game, else ``1 - V(a)``; the greedy
player takes the best (the first of equals).

TD(lambda) (:func:`train_td`)
    Self-play (or, as in Sutton and Barto's tic-tac-toe, against a reference player: then each
    of the learner's afterstates is trained toward its next one, or toward the result),
    greedy but for a random move with chance ``epsilon``.  Each afterstate ``a_k``
    is trained toward its successor's value from the same side, ``1 - V(a_{k+1})`` (the exact
    result at the end), with eligibility traces; afterstates alternate sides, so the trace is
    kept in the frame of the latest one: ``e <- -lambda e + grad V(a_k)``, ``w += alpha delta
    e``.  A random move is not learned from and clears the trace.  ``opening``: each game
    starts with 0..opening random plies (uniform), so that the learner meets the many
    openings a greedy self-play would not (tic-tac-toe's solver plays any drawing move).
Q-learning (:func:`train_q`)
    Over afterstates: ``Q(a) = 2 (1 - V(a)) - 1`` in [-1, 1] (rewards +1 win, -1 loss, 0 draw,
    exact for a final move).  After each of its moves a learning side's previous afterstate
    moves toward ``gamma max Q`` over its new choices, or toward the reward when the other side
    ended the game; it plays epsilon-greedily.  Against a reference player (the learner takes
    the first seat in even games, the second in odd ones) or by self-play (both sides learn).
Network-guided simulations (:func:`train_simulation`)
    Self-play: the network's ``best`` most promising moves each get ``trials`` random playouts,
    the best mean is played, and the network is trained toward every simulated mean.  Its
    reference opponent, ``SIMULATION`` in :func:`play_games`, spreads the same budget evenly
    over all moves, without a network; the search itself plays as ``(network, best, trials)``
    in :func:`play_games` (not learning).

Game ``g`` draws every random choice from PCG32 stream ``g`` of the seed: the same seed,
weights and game numbers give the same games and weights, bit for bit.  The loops run
without the GIL and stop on Ctrl-C between two games.
"""

import numpy as np
cimport numpy as cnp
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset

from bgengine.core._types cimport int32_t, real_t, uint64_t
from bgengine.core.checks cimport checked_int
from bgengine.core.dice cimport rng_t, rng_seed, rng_below, rng_next32
from bgengine.core.interrupt cimport interrupt_t, interrupt_init, interrupt_poll
from bgengine.core.network cimport (net_t, netbuf_t, net_forward_dense, net_backward_dense,
                               MAX_LAYERS, MAX_WIDTH)
from bgengine.core.smallgame cimport (smallgame_t, sg_from_capsule, SG_MAX_STATE, SG_MAX_MOVES,
                                 SG_MAX_INPUTS, SG_N_REPRESENTATIONS, SG_ONGOING, SG_WIN, SG_DRAW)

from bgengine.core.movegen import check_seed

cnp.import_array()

#: Names of the representations (index = ``representation``).
REPRESENTATIONS = ("simple", "separated")
#: A player of :func:`play_games` besides networks and the game's reference players: random
#: playouts spread evenly over every move (``simulations`` per move in all).
SIMULATION = -1
#: ``opponent`` of :func:`train_td` and :func:`train_q` for self-play.
SELF_PLAY = -2

cdef enum:
    PL_GUIDED = -3          # player kinds; >= 0 are the game's reference players
    PL_NET = -2
    PL_SIMULATION = -1

# the networks' summation order over dense inputs: ascending
cdef int32_t ASCENDING[MAX_WIDTH]
for _i in range(MAX_WIDTH):
    ASCENDING[_i] = _i


ctypedef struct work_t:     # what a loop needs besides the game and its players
    const smallgame_t* game
    netbuf_t* buf
    real_t x[SG_MAX_INPUTS]
    rng_t rng


ctypedef struct player_t:
    int kind                # PL_NET, PL_GUIDED, PL_SIMULATION or a reference player
    net_t* net
    int representation
    int simulations         # PL_SIMULATION: playouts per move
    int best, trials        # PL_GUIDED: the network's best moves, playouts each


# ---------------------------------------------------------------- values

cdef inline double _uniform(rng_t* rng) noexcept nogil:
    return rng_next32(rng) * (1.0 / 4294967296.0)


cdef double _value(work_t* w, const net_t* net, int rep, const void* s) noexcept nogil:
    """V(s) for the side to move; w.buf and w.x keep the pass (for a backward pass)."""
    w.game.encode(s, rep, w.x)
    net_forward_dense(net, w.x, w.buf)
    return w.buf.act[net.n_layers][0]


cdef double _exact(int result) noexcept nogil:
    """The score of the side that just moved in a finished game."""
    return 1.0 if result == SG_WIN else 0.5


cdef double _move_values(work_t* w, const net_t* net, int rep, const void* s, const int* moves,
                         int n, double* values) noexcept nogil:
    """values[i]: the score of moves[i] for the side to move in s; returns the best."""
    cdef unsigned char a[SG_MAX_STATE]
    cdef int i, r
    cdef double best = -1
    for i in range(n):
        memcpy(a, s, w.game.state_size)
        w.game.play(a, moves[i])
        r = w.game.result(a)
        values[i] = _exact(r) if r != SG_ONGOING else 1 - _value(w, net, rep, a)
        if values[i] > best:
            best = values[i]
    return best


cdef int _argmax(const double* values, int n) noexcept nogil:
    cdef int i, best = 0
    for i in range(1, n):
        if values[i] > values[best]:
            best = i
    return best


cdef double _playout(work_t* w, const void* s) noexcept nogil:
    """Random moves to the end from ongoing s: the score of s's side to move."""
    cdef unsigned char a[SG_MAX_STATE]
    cdef int moves[SG_MAX_MOVES]
    cdef int n, r, plies = 0
    memcpy(a, s, w.game.state_size)
    while True:
        n = w.game.legal(a, moves)
        w.game.play(a, moves[rng_below(&w.rng, n)])
        plies += 1
        r = w.game.result(a)
        if r != SG_ONGOING:
            # the side that moved last is s's side to move when plies is odd
            return _exact(r) if plies % 2 else 1 - _exact(r)


cdef double _simulated(work_t* w, const void* s, int move, int trials) noexcept nogil:
    """The mean score of ``move`` for s's side to move over ``trials`` random playouts (exact
    when the move ends the game)."""
    cdef unsigned char a[SG_MAX_STATE]
    cdef int t, r
    cdef double total = 0
    memcpy(a, s, w.game.state_size)
    w.game.play(a, move)
    r = w.game.result(a)
    if r != SG_ONGOING:
        return _exact(r)
    for t in range(trials):
        total += 1 - _playout(w, a)
    return total / trials


cdef int _guided_move(work_t* w, net_t* net, int rep, const void* s, int best, int trials,
                     double alpha) noexcept nogil:
    """The network-guided search's move in s: the network's ``best`` best moves get ``trials``
    random playouts each, the best mean is played; with ``alpha`` > 0 the network is also
    trained toward every mean (of a move that does not end the game)."""
    cdef unsigned char a[SG_MAX_STATE]
    cdef int moves[SG_MAX_MOVES]
    cdef double values[SG_MAX_MOVES]
    cdef int n, i, k, chosen = -1
    cdef double mean, best_mean = -1
    n = w.game.legal(s, moves)
    _move_values(w, net, rep, s, moves, n, values)
    for k in range(best if best < n else n):    # the network's k-th best move
        i = _argmax(values, n)
        values[i] = -2          # taken
        mean = _simulated(w, s, moves[i], trials)
        if alpha > 0:
            memcpy(a, s, w.game.state_size)
            w.game.play(a, moves[i])
            if w.game.result(a) == SG_ONGOING:
                _step(w, net, rep, a, 1 - mean, alpha)
        if mean > best_mean:
            best_mean = mean
            chosen = moves[i]
    return chosen


cdef int _choose(work_t* w, const player_t* p, const void* s) noexcept nogil:
    cdef int moves[SG_MAX_MOVES]
    cdef double values[SG_MAX_MOVES]
    cdef int n, i
    if p.kind >= 0:
        return w.game.player(s, p.kind, &w.rng)
    if p.kind == PL_GUIDED:
        return _guided_move(w, p.net, p.representation, s, p.best, p.trials, 0)
    n = w.game.legal(s, moves)
    if p.kind == PL_NET:
        _move_values(w, p.net, p.representation, s, moves, n, values)
    else:       # PL_SIMULATION: the budget spread evenly, the remainder to the first moves
        for i in range(n):
            values[i] = _simulated(w, s, moves[i],
                                   p.simulations // n + (1 if i < p.simulations % n else 0))
    return moves[_argmax(values, n)]


cdef inline real_t _output_step(double alpha, double target, double v) noexcept nogil:
    """The step on the output, alpha (target - v), divided by the sigmoid's slope v (1 - v)
    (which the backward pass multiplies back): the gradient of the cross-entropy, which does
    not vanish where the output saturates, so that a value learned wrong can be unlearned."""
    return <real_t> (alpha * (target - v) / (v * (1 - v) + 1e-12))


cdef void _step(work_t* w, net_t* net, int rep, const void* s, double target,
                double alpha) noexcept nogil:
    """One gradient step of V(s) toward ``target`` (cross-entropy, see _output_step)."""
    cdef double v = _value(w, net, rep, s)
    cdef real_t dout = _output_step(alpha, target, v)
    net_backward_dense(net, w.x, w.buf, &dout, net.params)


# ---------------------------------------------------------------- games

cdef int _play_game(work_t* w, const player_t* first, const player_t* second) noexcept nogil:
    """One game; 1 when the first player wins, 0 for a draw, -1 when it loses."""
    cdef unsigned char s[SG_MAX_STATE]
    cdef int side = 0, r
    w.game.init(s)
    while True:
        w.game.play(s, _choose(w, first if side == 0 else second, s))
        r = w.game.result(s)
        if r != SG_ONGOING:
            return 0 if r == SG_DRAW else (1 if side == 0 else -1)
        side ^= 1


cdef inline int _opening_plies(work_t* w, int opening) noexcept nogil:
    """Plies played at random at the start of a training game: 0..opening, uniform."""
    return rng_below(&w.rng, opening + 1) if opening > 0 else 0


cdef void _td_update(work_t* w, net_t* net, int rep, const void* a, double target,
                     double alpha, double decay, real_t* trace) noexcept nogil:
    """One TD step of V(a) toward ``target``: ``trace <- decay trace + grad logit V(a)``,
    ``w += alpha (target - V(a)) trace`` (decay = -lambda when successive afterstates are the
    two sides', lambda when they are one side's); decay 0: the plain step (_step)."""
    cdef double v
    cdef real_t slope, step
    cdef int k
    if decay == 0:
        _step(w, net, rep, a, target, alpha)
        return
    v = _value(w, net, rep, a)
    for k in range(net.n_params):
        trace[k] = <real_t> decay * trace[k]
    slope = _output_step(1, 1 + v, v)       # 1 / (v (1 - v)): the logit's gradient
    net_backward_dense(net, w.x, w.buf, &slope, trace)
    step = <real_t> (alpha * (target - v))
    for k in range(net.n_params):
        net.params[k] += step * trace[k]


cdef void _td_game(work_t* w, net_t* net, int rep, double alpha, double lam, double epsilon,
                   int opening, real_t* trace, const player_t* opponent,
                   int learner_side) noexcept nogil:
    """learner_side: 0 or 1, the learner's seat against ``opponent``; 2: self-play."""
    cdef unsigned char s[SG_MAX_STATE]
    cdef unsigned char prev[SG_MAX_STATE]     # the learner's last afterstate (self-play: the
    cdef int moves[SG_MAX_MOVES]              # last one)
    cdef double values[SG_MAX_MOVES]
    cdef int n, i, r, side = 0
    cdef bint have_prev = False, opening_ply
    cdef int ply = 0, random_plies = _opening_plies(w, opening)
    w.game.init(s)
    if lam > 0:
        memset(trace, 0, net.n_params * sizeof(real_t))
    while True:
        opening_ply = ply < random_plies
        ply += 1
        n = w.game.legal(s, moves)
        if learner_side == 2 or side == learner_side:
            if opening_ply or (epsilon > 0 and _uniform(&w.rng) < epsilon):
                i = rng_below(&w.rng, n)
                if lam > 0:
                    memset(trace, 0, net.n_params * sizeof(real_t))
            else:
                _move_values(w, net, rep, s, moves, n, values)
                i = _argmax(values, n)
                if have_prev and learner_side == 2:   # prev's side to move is this mover
                    _td_update(w, net, rep, prev, values[i], alpha, -lam, trace)
                elif have_prev:         # prev and this move's afterstate: the same side to move
                    _td_update(w, net, rep, prev, 1 - values[i], alpha, lam, trace)
            w.game.play(s, moves[i])
            if w.game.result(s) != SG_ONGOING:
                return
            memcpy(prev, s, w.game.state_size)
            have_prev = True
        else:
            w.game.play(s, moves[rng_below(&w.rng, n)] if opening_ply else _choose(w, opponent, s))
            r = w.game.result(s)
            if r != SG_ONGOING:
                if have_prev:           # prev's side to move made the last move
                    _td_update(w, net, rep, prev, _exact(r), alpha, lam, trace)
                return
        side ^= 1


cdef void _q_game(work_t* w, net_t* net, int rep, double alpha, double gamma, double epsilon,
                  int opening, const player_t* opponent, int learner_side) noexcept nogil:
    """learner_side: 0 or 1, the learner's seat; 2: both (self-play)."""
    cdef unsigned char s[SG_MAX_STATE]
    cdef unsigned char pending[2][SG_MAX_STATE]
    cdef bint has_pending[2]
    cdef int moves[SG_MAX_MOVES]
    cdef double values[SG_MAX_MOVES]
    cdef int n, i, r, side = 0
    cdef bint learns, opening_ply
    cdef double best
    cdef int ply = 0, random_plies = _opening_plies(w, opening)
    has_pending[0] = has_pending[1] = False
    w.game.init(s)
    while True:
        learns = learner_side == 2 or learner_side == side
        opening_ply = ply < random_plies
        ply += 1
        if learns:
            n = w.game.legal(s, moves)
            best = 2 * _move_values(w, net, rep, s, moves, n, values) - 1
            if has_pending[side]:       # Q(a) = 2 (1 - V(a)) - 1 -> V target (1 - Q) / 2
                _step(w, net, rep, pending[side], (1 - gamma * best) / 2, alpha)
            if opening_ply or (epsilon > 0 and _uniform(&w.rng) < epsilon):
                i = rng_below(&w.rng, n)
            else:
                i = _argmax(values, n)
            w.game.play(s, moves[i])
        elif opening_ply:
            n = w.game.legal(s, moves)
            w.game.play(s, moves[rng_below(&w.rng, n)])
        else:
            w.game.play(s, _choose(w, opponent, s))
        r = w.game.result(s)
        if r != SG_ONGOING:
            # the other side's last afterstate: reward -1 (it lost) or 0 (draw)
            if has_pending[side ^ 1] and (learner_side == 2 or learner_side == side ^ 1):
                _step(w, net, rep, pending[side ^ 1], 1.0 if r == SG_WIN else 0.5, alpha)
            return
        if learns:
            memcpy(pending[side], s, w.game.state_size)
            has_pending[side] = True
        side ^= 1


cdef void _simulation_game(work_t* w, net_t* net, int rep, double alpha, int best,
                           int trials) noexcept nogil:
    cdef unsigned char s[SG_MAX_STATE]
    w.game.init(s)
    while True:
        w.game.play(s, _guided_move(w, net, rep, s, best, trials, alpha))
        if w.game.result(s) != SG_ONGOING:
            return


# ---------------------------------------------------------------- Python entry points

cdef class _Nets:
    """The C networks of a call, and the Python objects that own their weights."""
    cdef net_t nets[2]
    cdef list owners

    def __cinit__(self):
        self.owners = []

    cdef net_t* add(self, int i, object network, const smallgame_t* game) except NULL:
        params = network.params
        if not (isinstance(params, np.ndarray) and params.dtype == np.float32
                and params.ndim == 1 and params.flags.c_contiguous and params.flags.writeable):
            raise ValueError("a network's params must be a writable, contiguous float32 vector")
        sizes = tuple(int(v) for v in network.sizes)
        rep = network.representation
        checked_int(rep, "representation", 0, SG_N_REPRESENTATIONS - 1,
                    "0..1 (simple, separated)", "an integer")
        if not 3 <= len(sizes) <= MAX_LAYERS + 1 or sizes[len(sizes) - 1] != 1 \
                or any(not 1 <= v <= MAX_WIDTH for v in sizes):
            raise ValueError(f"a small game's network has 1 to {MAX_LAYERS - 1} hidden layers of "
                             f"1..{MAX_WIDTH} units and one output, got sizes {sizes}")
        if sizes[0] != game.n_inputs[rep]:
            raise ValueError(f"the network has {sizes[0]} inputs; {game.name.decode()}'s "
                             f"{REPRESENTATIONS[rep]} representation has {game.n_inputs[rep]}")
        cdef net_t* net = &self.nets[i]
        cdef int l, off = 0
        net.n_layers = len(sizes) - 1
        for l in range(net.n_layers + 1):
            net.sizes[l] = sizes[l]
        for l in range(net.n_layers):
            net.offset_W[l] = off
            off += sizes[l] * sizes[l + 1]
            net.offset_b[l] = off
            off += sizes[l + 1]
        if params.shape[0] != off:
            raise ValueError(f"params has {params.shape[0]} values; sizes {sizes} need {off}")
        net.n_params = off
        net.params = <real_t*> cnp.PyArray_DATA(params)
        net.order = ASCENDING
        self.owners.append(params)
        return net


cdef int _player(object spec, int i, _Nets nets, const smallgame_t* game, int simulations,
                 player_t* p) except -1:
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        p.kind = checked_int(spec, "player", SIMULATION, game.n_players - 1,
                             f"{SIMULATION}..{game.n_players - 1}", "a player")
        p.simulations = checked_int(simulations, "simulations", 1, 1 << 30, "1..2**30",
                                    "an integer")
        p.net = NULL
        return 0
    if isinstance(spec, tuple):     # (network, best, trials): the network-guided search
        network, best, trials = spec
        p.kind = PL_GUIDED
        p.best = checked_int(best, "best", 1, SG_MAX_MOVES, f"1..{SG_MAX_MOVES}", "an integer")
        p.trials = checked_int(trials, "trials", 1, 1 << 20, "1..2**20", "an integer")
        spec = network
    else:
        p.kind = PL_NET
    p.net = nets.add(i, spec, game)
    p.representation = spec.representation
    return 0


cdef class _Work:
    cdef work_t w

    def __cinit__(self, game):
        self.w.game = sg_from_capsule(game)
        self.w.buf = <netbuf_t*> malloc(sizeof(netbuf_t))
        if self.w.buf == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.w.buf)


# one game, number g (its stream), of a loop
ctypedef void (*game_fn)(work_t* w, void* args, Py_ssize_t g) noexcept nogil


cdef object _loop(_Work work, uint64_t seed, Py_ssize_t first_game, Py_ssize_t n_games,
                  game_fn fn, void* args):
    """Games first_game .. first_game + n_games - 1, each from its own stream; Ctrl-C stops
    between two games."""
    cdef interrupt_t it
    cdef Py_ssize_t g
    pending = []
    interrupt_init(&it, pending)
    with nogil:
        for g in range(n_games):
            if interrupt_poll(&it, True):
                break
            rng_seed(&work.w.rng, seed, <uint64_t> (first_game + g))
            fn(&work.w, args, first_game + g)
    if pending:
        raise pending[0]


ctypedef struct match_args_t:
    player_t players[2]
    long counts[3]          # losses, draws, wins of the first player


cdef void _match_game(work_t* w, void* args, Py_ssize_t g) noexcept nogil:
    cdef match_args_t* m = <match_args_t*> args
    m.counts[_play_game(w, &m.players[0], &m.players[1]) + 1] += 1


def play_games(game, first, second, games: int, *, seed: int = 0, first_game: int = 0,
               simulations: int = 100) -> dict:
    """Play ``games`` games of ``first`` (who always moves first) against ``second``.

    A player is a network (greedy), the index of one of the game's reference players
    (``bgengine.core.tictactoe.PLAYERS``), ``SIMULATION`` (``simulations`` random playouts per
    move spread evenly over the moves) or ``(network, best, trials)``: the network-guided
    search of :func:`train_simulation` (the network's ``best`` best moves get ``trials``
    playouts each), not learning.  Returns ``{"wins", "draws", "losses"}`` of ``first``.
    """
    cdef _Work work = _Work(game)
    cdef _Nets nets = _Nets()
    cdef match_args_t m
    _player(first, 0, nets, work.w.game, simulations, &m.players[0])
    _player(second, 1, nets, work.w.game, simulations, &m.players[1])
    memset(m.counts, 0, sizeof(m.counts))
    n = checked_int(games, "games", 0, 1 << 40, "0..2**40", "an integer")
    _loop(work, check_seed(seed), check_seed(first_game, "first_game"), n, _match_game, &m)
    return {"wins": m.counts[2], "draws": m.counts[1], "losses": m.counts[0]}


ctypedef struct train_args_t:
    net_t* net
    int representation
    double alpha, lam, gamma, epsilon
    int opening             # TD, Q: at most this many opening plies at random
    player_t opponent       # Q-learning against a reference player
    bint self_play
    int best, trials        # network-guided simulations
    real_t* trace           # TD(lambda), n_params


cdef void _td_one(work_t* w, void* args, Py_ssize_t g) noexcept nogil:
    cdef train_args_t* t = <train_args_t*> args
    _td_game(w, t.net, t.representation, t.alpha, t.lam, t.epsilon, t.opening, t.trace,
             &t.opponent, 2 if t.self_play else <int> (g % 2))


cdef void _q_one(work_t* w, void* args, Py_ssize_t g) noexcept nogil:
    cdef train_args_t* t = <train_args_t*> args
    _q_game(w, t.net, t.representation, t.alpha, t.gamma, t.epsilon, t.opening, &t.opponent,
            2 if t.self_play else <int> (g % 2))


cdef void _simulation_one(work_t* w, void* args, Py_ssize_t g) noexcept nogil:
    cdef train_args_t* t = <train_args_t*> args
    _simulation_game(w, t.net, t.representation, t.alpha, t.best, t.trials)


cdef object _train(game, network, Py_ssize_t n_games, double alpha, seed, first_game,
                   game_fn fn, train_args_t* t):
    cdef _Work work = _Work(game)
    cdef _Nets nets = _Nets()
    t.net = nets.add(0, network, work.w.game)
    t.representation = network.representation
    if not alpha > 0 or not alpha < 100:
        raise ValueError(f"alpha must be in (0, 100), got {alpha}")
    t.alpha = alpha
    n = checked_int(n_games, "n_games", 0, 1 << 40, "0..2**40", "an integer")
    trace = np.zeros(t.net.n_params, dtype=np.float32)
    t.trace = <real_t*> cnp.PyArray_DATA(trace)
    _loop(work, check_seed(seed), check_seed(first_game, "first_game"), n, fn, t)
    if not np.all(np.isfinite(network.params)):
        raise FloatingPointError("the network's weights diverged (NaN or infinite)")


cdef double _fraction(double value, str name) except -1:
    if not 0 <= value <= 1:
        raise ValueError(f"{name} must be in [0, 1], got {value}")
    return value


cdef int _opponent(object game, object opponent, object simulations,
                   train_args_t* t) except -1:
    cdef _Nets none = _Nets()
    t.self_play = isinstance(opponent, (int, np.integer)) and opponent == SELF_PLAY
    if not t.self_play:
        _player(opponent, 1, none, sg_from_capsule(game), simulations, &t.opponent)
        if t.opponent.kind in (PL_NET, PL_GUIDED):
            raise ValueError("a learner's opponent is a reference player or SELF_PLAY")
    return 0


cdef int _opening(object opening) except -1:
    return checked_int(opening, "opening", 0, 1 << 20, "0..2**20", "an integer")


def train_td(game, network, n_games: int, alpha: float, lam: float = 0.0, *,
             epsilon: float = 0.1, opening: int = 0, opponent: int = SELF_PLAY, seed: int = 0,
             first_game: int = 0, simulations: int = 100) -> None:
    """TD(lambda) over afterstates: ``n_games`` games (numbers ``first_game`` onward) by
    self-play or against ``opponent`` (as for :func:`train_q`), ``network.params`` updated in
    place.  ``epsilon``: chance of a random move; ``opening``: each game starts with
    0..opening random plies (uniform)."""
    cdef train_args_t t
    memset(&t, 0, sizeof(t))
    t.opening = _opening(opening)
    _opponent(game, opponent, simulations, &t)
    t.lam = _fraction(lam, "lam")
    t.epsilon = _fraction(epsilon, "epsilon")
    _train(game, network, n_games, alpha, seed, first_game, _td_one, &t)


def train_q(game, network, n_games: int, alpha: float, gamma: float = 0.9, *,
            epsilon: float = 0.1, opening: int = 0, opponent: int = SELF_PLAY,
            seed: int = 0, first_game: int = 0, simulations: int = 100) -> None:
    """Q-learning over afterstates, epsilon-greedy: ``n_games`` games against reference player
    ``opponent`` (an index of the game's PLAYERS, or ``SIMULATION``; the learner's seat is
    drawn per game) or ``SELF_PLAY``; ``network.params`` updated in place.  ``opening``: as
    for :func:`train_td` (both sides' opening plies)."""
    cdef train_args_t t
    memset(&t, 0, sizeof(t))
    t.opening = _opening(opening)
    _opponent(game, opponent, simulations, &t)
    t.gamma = _fraction(gamma, "gamma")
    t.epsilon = _fraction(epsilon, "epsilon")
    _train(game, network, n_games, alpha, seed, first_game, _q_one, &t)


def train_simulation(game, network, n_games: int, alpha: float, *, best: int = 3,
                     trials: int = 30, seed: int = 0, first_game: int = 0) -> None:
    """Network-guided simulations by self-play: the network's ``best`` best moves get
    ``trials`` random playouts each, the best mean is played and the network trained toward
    every mean; ``network.params`` updated in place."""
    cdef train_args_t t
    memset(&t, 0, sizeof(t))
    t.best = checked_int(best, "best", 1, SG_MAX_MOVES, f"1..{SG_MAX_MOVES}", "an integer")
    t.trials = checked_int(trials, "trials", 1, 1 << 20, "1..2**20", "an integer")
    _train(game, network, n_games, alpha, seed, first_game, _simulation_one, &t)


def choose_move(game, player, moves=(), *, seed: int = 0, simulations: int = 100) -> int:
    """The move ``player`` (as in :func:`play_games`: a network, greedy; a reference player's
    index; ``SIMULATION``) makes in the position that the game's moves ``moves`` reach from
    the start, its random choices from stream 0 of ``seed``: the same choice as in a game of
    :func:`play_games`.  ``ValueError`` if a move is illegal or the game is over."""
    cdef _Work work = _Work(game)
    cdef _Nets nets = _Nets()
    cdef player_t p
    cdef unsigned char s[SG_MAX_STATE]
    cdef int legal[SG_MAX_MOVES]
    cdef int n, move
    _player(player, 0, nets, work.w.game, simulations, &p)
    work.w.game.init(s)
    for k, m in enumerate(moves):
        n = work.w.game.legal(s, legal)
        move = checked_int(m, "move", 0, 1 << 20, "a legal move", "an integer")
        if n == 0 or move not in [legal[i] for i in range(n)]:
            raise ValueError(f"move {k + 1} ({m}) is not legal there")
        work.w.game.play(s, move)
        if work.w.game.result(s) != SG_ONGOING and k + 1 < len(moves):
            raise ValueError(f"the game is over after move {k + 1}")
    if work.w.game.legal(s, legal) == 0 or (len(moves) and work.w.game.result(s) != SG_ONGOING):
        raise ValueError("the game is over: there is no move to choose")
    rng_seed(&work.w.rng, check_seed(seed), 0)
    return _choose(&work.w, &p, s)
