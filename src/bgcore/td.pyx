"""Self-play learning in compiled code: TD(lambda) and backpropagation-to-result.

One call plays a batch of games of a network against itself, updating its
weights in place; Python drives it batch by batch (schedules, checkpoints,
evaluation).  Everything per move runs without the GIL: roll, list the unique
afterstates, encode, evaluate, choose, update.

TD(lambda)
    States ``s_0, s_1, ...`` are the positions before each move, each seen
    from its side on roll.  Values are put in the frame of the side that
    moved first (``A``): ``U_t = V(s_t)`` on A's turns and the flipped
    outputs on the other side's (``1 - p`` for one output; win and lose
    terms exchanged for 4 and 5 outputs).  Then ordinary TD(lambda) runs on
    ``U``: ``e_k <- lambda e_k + grad U_k`` (one trace per output),
    ``delta_k = U_{t+1,k} - U_{t,k}`` (the true final reward at the end:
    single, gammon, backgammon), ``w <- w + alpha sum_k delta_k e_k``, after
    every move.  ``lambda = 0`` is TD(0), done with one backward pass and no
    traces.  Traces are stored scaled (``e = scale * E``) so that decaying
    them costs nothing; only first-layer rows of inputs seen this game are
    kept and updated.

backprop
    The sources' supervised method: play a game greedily, then train every
    position of it toward the final result (from its side on roll).

Games are reproducible: game ``g`` rolls dice from PCG32 stream ``g`` of the
seed, and exploration from another stream, so the same seed, weights and
game numbers give the same weights, bit for bit.
"""

import numpy as np
cimport numpy as cnp
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy, memset
from libc.math cimport fabs

from bgengine.core.memory cimport grow_or_raise, zeroed_or_raise
from bgengine.core._types cimport int32_t, real_t, uint64_t
from bgengine.core.board cimport (board_t, board_start, board_swap, board_side_empty, board_win_value,
                             MOVER, MAX_GAME_PLAYS)
from bgengine.core.interrupt cimport interrupt_t, interrupt_init, interrupt_poll
from bgengine.core.dice cimport rng_t, rng_seed, rng_roll, rng_opening_roll, rng_below
from bgengine.core.movegen cimport movelist_t, movelist_init, movelist_free, generate_moves
from bgengine.core.network cimport net_t, netbuf_t, net_forward_sparse, net_backward_sparse
from bgengine.core.outputs cimport outputs_flip, outputs_target, MAX_OUTPUTS
from bgengine.core.evaluator cimport (evaluator_t, Evaluator, ev_class, ev_static, CLASS_CONTACT,
                                 CLASS_RACE, CLASS_EXACT, N_NET_CLASSES)
from bgengine.core.encoders cimport encode_sparse, MAX_INPUTS
from bgengine.core.search cimport ev_best_move, searcher_t, searcher_init, searcher_free, eval_position
from bgengine.core.adam_step cimport adam_step
from cython.parallel cimport parallel
from cpython.exc cimport PyErr_Occurred
from bgengine.core.thread_barrier cimport (bg_barrier_t, bg_barrier_init, bg_barrier_wait,
                                      bg_team_index, bg_team_size)

from bgengine.core.checks cimport checked_int, checked_real

from bgengine.core.agents import MAX_GAMES as _MAX_GAMES
from bgengine.core.board import validate_boards
from bgengine.core.evaluator import as_evaluator
from bgengine.core.movegen import MAX_THREADS as _MAX_THREADS, check_seed

# Self-play and its targets choose plays with the first layer summed in full, not by
# difference (layer_delta.pxd): a run's games stay bit for bit those of earlier versions,
# so that checkpoints resume exactly.
cdef bint TRAIN_BY_DELTA = False

cnp.import_array()

cdef uint64_t EXPLORE_STREAM = 1ULL << 41
cdef real_t RESCALE_BELOW = 1e-20

# Signed permutations taking outputs of the side on roll to the other side's
# frame, linear part only: flipped[k] = const + sign[k] * v[perm[k]].
cdef int PERM1[1]
cdef int PERM4[4]
cdef int PERM5[5]
cdef real_t SIGN1[1]
cdef real_t SIGN4[4]
cdef real_t SIGN5[5]
PERM1[:] = [0]
SIGN1[:] = [-1]
PERM4[:] = [1, 0, 3, 2]
SIGN4[:] = [1, 1, 1, 1]
PERM5[:] = [0, 3, 4, 1, 2]
SIGN5[:] = [-1, 1, 1, 1, 1]


ctypedef struct learner_t:
    const evaluator_t* ev   # what values positions (&own_ev); its class networks are trained
    evaluator_t own_ev      # the evaluator without its race refinement: training plays and
                            # learns by the networks' own values (and at their speed)
    bint classes            # positions are routed by class (class networks or exact values)
    net_t* net              # the contact network (the only one, when traces are kept)
    int K                   # outputs
    int H                   # first hidden layer width
    int n_inputs
    int upper               # offset of the first parameter above W0
    const int* perm
    const real_t* sign
    real_t* E               # [K][n_params] scaled traces
    real_t scale
    unsigned char* touched  # [n_inputs] W0 rows holding trace this game
    int* rows               # list of touched rows
    int n_rows
    movelist_t ml
    netbuf_t buf
    int target_plies        # TD(0) target: 0 = the next state's value; n = s's n-ply value
    searcher_t S            # for n-ply targets (no cache: the weights keep changing)
    real_t* dest[N_NET_CLASSES]     # TD(0) updates of each class's network go here: its
                                    # weights (online), or a gradient sum (batches)


cdef void _clear_traces(learner_t* L) noexcept nogil:
    cdef int k, r, P = L.net.n_params
    for k in range(L.K):
        for r in range(L.n_rows):
            memset(L.E + k * P + L.rows[r] * L.H, 0, L.H * sizeof(real_t))
            L.touched[L.rows[r]] = 0
        memset(L.E + k * P + L.upper, 0, (P - L.upper) * sizeof(real_t))
    L.n_rows = 0
    L.scale = 1


cdef void _rescale(learner_t* L) noexcept nogil:
    cdef int k, r, j, P = L.net.n_params
    cdef real_t* e
    for k in range(L.K):
        for r in range(L.n_rows):
            e = L.E + k * P + L.rows[r] * L.H
            for j in range(L.H):
                e[j] *= L.scale
        e = L.E + k * P
        for j in range(L.upper, P):
            e[j] *= L.scale
    L.scale = 1


cdef void _apply_traces(learner_t* L, const real_t* coef) noexcept nogil:
    """w += sum_k coef[k] * E_k over the rows and parameters holding trace.

    Fused over the outputs, so each weight is read and written once (one
    pass instead of K); missing outputs get a zero coefficient."""
    cdef int k, r, j, P = L.net.n_params, base, H = L.H
    cdef real_t* w = L.net.params
    cdef const real_t* e[MAX_OUTPUTS]
    cdef real_t c[MAX_OUTPUTS]
    for k in range(MAX_OUTPUTS):
        e[k] = L.E + (k if k < L.K else 0) * P
        c[k] = coef[k] if k < L.K else 0
    cdef const real_t* e0 = e[0]
    cdef const real_t* e1 = e[1]
    cdef const real_t* e2 = e[2]
    cdef const real_t* e3 = e[3]
    cdef const real_t* e4 = e[4]
    cdef real_t c0 = c[0], c1 = c[1], c2 = c[2], c3 = c[3], c4 = c[4]
    if L.K == 1:
        for r in range(L.n_rows):
            base = L.rows[r] * H
            for j in range(base, base + H):
                w[j] += c0 * e0[j]
        for j in range(L.upper, P):
            w[j] += c0 * e0[j]
        return
    for r in range(L.n_rows):
        base = L.rows[r] * H
        for j in range(base, base + H):
            w[j] += c0 * e0[j] + c1 * e1[j] + c2 * e2[j] + c3 * e3[j] + c4 * e4[j]
    for j in range(L.upper, P):
        w[j] += c0 * e0[j] + c1 * e1[j] + c2 * e2[j] + c3 * e3[j] + c4 * e4[j]


cdef int _value(learner_t* L, const board_t* b, int32_t* idx, real_t* val, int* nnz,
                real_t* V) noexcept nogil:
    """Outputs of b (side on roll) into V.  Returns the class whose network valued b, its
    encoding left in idx/val (nnz pairs), or -1 when the value is exact (no gradient)."""
    cdef int c = CLASS_CONTACT
    if L.classes:
        c = ev_class(L.ev, b)
        if c == CLASS_EXACT:
            if L.ev.exact(L.ev.exact_db, b, V):
                return -1
            c = CLASS_RACE
    nnz[0] = encode_sparse(L.ev.encoder[c], b, idx, val)
    net_forward_sparse(L.ev.net[c], idx, val, nnz[0], &L.buf)
    memcpy(V, L.buf.act[L.ev.net[c].n_layers], L.K * sizeof(real_t))
    return c


cdef void _begin(board_t* b, const board_t* start, rng_t* dice, int* d1, int* d2) noexcept nogil:
    """A game's first position and roll: the starting position and an opening roll, or
    ``start`` (a position with its side on roll in row 1) and an ordinary roll."""
    if start == NULL:
        board_start(b)
        rng_opening_roll(dice, d1, d2)
    else:
        memcpy(b, start, sizeof(board_t))
        rng_roll(dice, d1, d2)


# A self-play game in progress: its position, dice and running totals.
ctypedef struct game_t:
    board_t b               # the position before the next move, side on roll in row 1
    rng_t dice
    rng_t explore
    int d1, d2              # the roll to play
    int parity              # 0 on the turns of the side that moved first
    int n_moves
    int v                   # once over: points won by the side on roll at the last move
    double err_sum          # sum of |delta| of the first output
    bint over


cdef void _seed_game(rng_t* dice, rng_t* explore, uint64_t seed, uint64_t number) noexcept nogil:
    """Game ``number``'s dice and exploration streams."""
    rng_seed(dice, seed, number)
    rng_seed(explore, seed, EXPLORE_STREAM + number)


cdef void _td_start(learner_t* L, game_t* G, const board_t* start, uint64_t seed,
                    uint64_t number, double lam) noexcept nogil:
    """Begin self-play game ``number`` (see ``_begin`` for ``start``)."""
    _seed_game(&G.dice, &G.explore, seed, number)
    if lam > 0:
        _clear_traces(L)
    _begin(&G.b, start, &G.dice, &G.d1, &G.d2)
    G.n_moves = 0
    G.parity = 0
    G.v = 0
    G.err_sum = 0
    G.over = False


cdef int _td_move(learner_t* L, game_t* G, double alpha, double lam,
                  double epsilon) except -1 nogil:
    """One move of a self-play game with its TD(lambda) update; sets ``G.over`` at the end.

    TD(0) adds ``alpha * sum_k delta_k grad V_k`` to ``L.dest`` of the class network that
    valued the state (its weights: online updates; or a gradient sum, for batches)."""
    cdef int32_t idx[MAX_INPUTS]
    cdef real_t val[MAX_INPUTS]
    cdef real_t V[MAX_OUTPUTS]
    cdef real_t M[MAX_OUTPUTS]
    cdef real_t d[MAX_OUTPUTS]
    cdef real_t coef[MAX_OUTPUTS]
    cdef real_t unit[MAX_OUTPUTS]
    cdef int K = L.K, P = L.net.n_params, n, k, j, nnz = 0, c, cls
    cdef net_t* net
    # value and gradient of the state before the move, current weights (an exact
    # value has no gradient: its class is -1)
    cls = _value(L, &G.b, idx, val, &nnz, V)
    if lam > 0:
        L.scale *= <real_t>lam
        if G.n_moves == 0:
            L.scale = 1
        if L.scale < RESCALE_BELOW:
            _rescale(L)
    if lam > 0 and cls >= 0:
        for j in range(nnz):
            if not L.touched[idx[j]]:
                L.touched[idx[j]] = 1
                L.rows[L.n_rows] = idx[j]
                L.n_rows += 1
        # E_k (A's frame) += grad U_k / scale, U_k = sign * V[perm[k]] on odd turns
        for k in range(K):
            memset(unit, 0, K * sizeof(real_t))
            if G.parity:
                unit[L.perm[k]] = L.sign[k]
            else:
                unit[k] = 1
            net_backward_sparse(L.net, idx, val, nnz, &L.buf, unit, L.E + k * P,
                                1 / L.scale)
    # the move: greedy (or exploring) on the current weights
    n = generate_moves(&L.ml, &G.b, G.d1, G.d2)
    c = ev_best_move(L.ev, &L.ml, n, &L.buf, M, TRAIN_BY_DELTA)
    if epsilon > 0 and n > 1 and rng_below(&G.explore, 1000000) < epsilon * 1000000:
        c = rng_below(&G.explore, n)
        _mover_outputs(L, &L.ml.boards[c], M)
    G.n_moves += 1
    if board_side_empty(&L.ml.boards[c], MOVER):
        G.v = board_win_value(&L.ml.boards[c], MOVER)
        outputs_target(K, G.v, M)
        G.over = True
    if L.target_plies > 0 and cls >= 0:
        # the state's own n-ply value (an average over the 21 rolls) instead of the
        # next state's: the same expectation, without the roll's noise
        eval_position(&L.S, &G.b, L.target_plies, M)
    # delta in the mover's frame; M is the next state's value seen by the mover
    for k in range(K):
        d[k] = M[k] - V[k]
    G.err_sum += fabs(d[0])
    if lam > 0:
        for k in range(K):
            # delta in A's frame
            coef[k] = <real_t>(alpha * L.scale * (L.sign[k] * d[L.perm[k]] if G.parity else d[k]))
        _apply_traces(L, coef)
    elif cls >= 0:
        # TD(0): the frame cancels out, w += alpha * sum_k d_k grad V_k (of the network
        # that valued the state)
        net = L.ev.net[cls]
        net_forward_sparse(net, idx, val, nnz, &L.buf)
        for k in range(K):
            coef[k] = <real_t>(alpha * d[k])
        net_backward_sparse(net, idx, val, nnz, &L.buf, coef, L.dest[cls], 1)
    if not G.over:
        if G.n_moves >= MAX_GAME_PLAYS:
            G.over = True       # a last resort (see board.pxd): no result, no final update
            return 0
        board_swap(&G.b, &L.ml.boards[c])
        G.parity ^= 1
        rng_roll(&G.dice, &G.d1, &G.d2)
    return 0


cdef inline int _game_result(const game_t* G) noexcept nogil:
    """Points won by the side that moved first (0 for a game cut off)."""
    return G.v if G.parity == 0 else -G.v


cdef void _mover_outputs(learner_t* L, const board_t* after, real_t* out) noexcept nogil:
    """Outputs of an afterstate from the mover's side (exact if the game is over)."""
    cdef board_t s
    cdef real_t t[MAX_OUTPUTS]
    if board_side_empty(after, MOVER):
        outputs_target(L.K, board_win_value(after, MOVER), out)
        return
    board_swap(&s, after)
    ev_static(L.ev, &s, &L.buf, t)
    outputs_flip(L.K, t, out)


ctypedef struct record_t:
    int nnz
    int parity
    int cls                 # the class network that values the position; -1: exact
    int32_t idx[MAX_INPUTS]
    real_t val[MAX_INPUTS]


cdef double _backprop_game(learner_t* L, const board_t* start, rng_t* dice, rng_t* explore,
                           double alpha,
                           double epsilon, record_t** hist, int* cap, int* n_moves,
                           int* result) except -1 nogil:
    """Play one greedy game, then train every position toward the result."""
    cdef board_t b
    cdef real_t T[MAX_OUTPUTS]
    cdef real_t dout[MAX_OUTPUTS]
    cdef int K = L.K, d1, d2, n, c, t, k, v = 0, parity = 0, top
    cdef double err_sum = 0
    cdef net_t* net
    cdef real_t V[MAX_OUTPUTS]
    _begin(&b, start, dice, &d1, &d2)
    n_moves[0] = 0
    while True:
        if n_moves[0] == cap[0]:
            cap[0] = 2 * cap[0] + 64
            grow_or_raise(<void**> hist, cap[0] * sizeof(record_t), NULL)
        hist[0][n_moves[0]].cls = _value(L, &b, hist[0][n_moves[0]].idx, hist[0][n_moves[0]].val,
                                         &hist[0][n_moves[0]].nnz, V)
        hist[0][n_moves[0]].parity = parity
        n = generate_moves(&L.ml, &b, d1, d2)
        c = ev_best_move(L.ev, &L.ml, n, &L.buf, NULL, TRAIN_BY_DELTA)
        if epsilon > 0 and n > 1 and rng_below(explore, 1000000) < epsilon * 1000000:
            c = rng_below(explore, n)
        n_moves[0] += 1
        if board_side_empty(&L.ml.boards[c], MOVER):
            v = board_win_value(&L.ml.boards[c], MOVER)
            break
        if n_moves[0] >= MAX_GAME_PLAYS:
            result[0] = 0       # a last resort (see board.pxd): no result, nothing learnt
            return 0
        board_swap(&b, &L.ml.boards[c])
        parity ^= 1
        rng_roll(dice, &d1, &d2)
    # v was won by the side on roll at the last position (parity)
    for t in range(n_moves[0]):
        if hist[0][t].cls < 0:
            continue                    # exact: nothing to learn
        net = L.ev.net[hist[0][t].cls]
        top = net.n_layers
        outputs_target(K, v if hist[0][t].parity == parity else -v, T)
        net_forward_sparse(net, hist[0][t].idx, hist[0][t].val, hist[0][t].nnz, &L.buf)
        for k in range(K):
            dout[k] = <real_t>(alpha * (T[k] - L.buf.act[top][k]))
        err_sum += fabs(T[0] - L.buf.act[top][0])
        net_backward_sparse(net, hist[0][t].idx, hist[0][t].val, hist[0][t].nnz, &L.buf,
                            dout, net.params, 1)
    result[0] = v if parity == 0 else -v
    return err_sum / n_moves[0]


cdef void _learner_init(learner_t* L, Evaluator evaluator, int target_plies) noexcept:
    """Point a zeroed learner at ``evaluator``; TD(0) updates go to the weights."""
    cdef int c
    memcpy(&L.own_ev, &evaluator.ev, sizeof(evaluator_t))
    L.own_ev.race_tables = NULL
    L.own_ev.race_refine = NULL
    L.ev = &L.own_ev
    L.classes = evaluator.ev.routed or evaluator.ev.exact_db != NULL
    L.net = evaluator.ev.net[CLASS_CONTACT]
    L.K = evaluator.ev.K
    L.H = L.net.sizes[1]
    L.n_inputs = L.net.sizes[0]
    L.upper = L.net.offset_b[0]
    L.target_plies = target_plies
    for c in range(N_NET_CLASSES):
        L.dest[c] = evaluator.ev.net[c].params
    if L.K == 1:
        L.perm, L.sign = PERM1, SIGN1
    elif L.K == 4:
        L.perm, L.sign = PERM4, SIGN4
    else:
        L.perm, L.sign = PERM5, SIGN5


cdef int _learner_open(learner_t* L, bint traces) except -1:
    """Allocate the learner's workspaces (traces only when ``traces``)."""
    movelist_init(&L.ml)
    if L.target_plies:
        searcher_init(&L.S, L.ev, 0, 8, 0.16)
        L.S.by_delta = TRAIN_BY_DELTA
    if traces:
        L.E = <real_t*> calloc(<size_t>L.K * L.net.n_params, sizeof(real_t))
        L.touched = <unsigned char*> calloc(L.n_inputs, 1)
        L.rows = <int*> calloc(L.n_inputs, sizeof(int))
        if L.E == NULL or L.touched == NULL or L.rows == NULL:
            raise MemoryError()
    return 0


cdef void _learner_close(learner_t* L) noexcept:
    """Free what ``_learner_open`` allocated (safe after a partial open of a zeroed learner)."""
    movelist_free(&L.ml)
    if L.target_plies:
        searcher_free(&L.S)
    free(L.E)
    free(L.touched)
    free(L.rows)


def train_games(net, n_games, alpha, lam=0.0, *,
                seed=0, first_game=0, str method="td", epsilon=0.0, target_plies=0,
                starts=None, adam=None, batch_positions=0, threads=1):
    """Play ``n_games`` self-play games, updating ``net`` in place.

    Parameters
    ----------
    net : Network or Evaluator
        Trained in place (its ``params`` arrays).  With an evaluator, each position
        trains the network of its class (contact or race) and positions with exact
        values (a bear-off database) train nothing, but give exact targets.
        TD(lambda) with lam > 0 needs one network for every class.
    n_games : int
        0..``MAX_GAMES`` (10**8; ``bgengine.core.agents.MAX_GAMES``).
    alpha : float
        Learning rate (step size) for this batch: a finite number > 0, at most 10 (the
        training config's bound).
    lam : float
        TD(lambda) trace decay in [0, 1]; 0 is TD(0).  Ignored by ``backprop``.
    seed, first_game : int
        Game ``g`` of the batch is game number ``first_game + g`` of the run:
        its dice are stream ``first_game + g`` of ``seed``.  Passing the next
        game number when resuming continues the run exactly.
    method : {"td", "backprop"}
    epsilon : float
        Chance per move of a random play (epsilon-greedy exploration).
    target_plies : int
        TD(0) only: 0 trains each state toward the next state's value (the value
        after the roll thrown); 1 to 3 toward the state's own value at that many
        plies (1: the mean over the 21 rolls of the best play's 0-ply value), which
        removes the roll's noise from the target at about 21 times the cost per move.
    starts : array (S, 2, 25), optional
        Positions to start the games from (side on roll in row 1, neither side borne
        off): game number ``n`` (``first_game + g``) starts from ``starts[n % S]`` with an
        ordinary roll of its dice stream, instead of the starting position and an
        opening roll.  E.g. races sampled from self-play, to train a race network on
        short games.  None: every game from the starting position.
    adam : bgengine.training.optimizer.AdamState, optional
        Batch TD(0) with Adam instead of online updates (method "td", lam = 0): the
        TD gradients ``delta * dV/dw`` of ``batch_positions`` positions, all valued
        with the same weights, are summed and applied as one Adam step of rate
        ``alpha`` (see ``adam_step.pxd``).  Its moments ``m``, ``v`` (float32 arrays
        shaped like the trained networks' params: contact, then race if it has its
        own) are updated in place and its ``step`` count advanced.  The batch's last
        step takes the positions left (fewer), so a call ends on a whole step.
    batch_positions : int
        Positions per Adam step (every move played counts one), 1..10**8.
    threads : int
        Adam only: self-play threads, data-parallel, 1..256 (and at most batch_positions).
        Thread ``t`` plays the games ``t, t + threads, ...`` of the batch and
        ``batch_positions / threads`` positions (the first ``batch_positions % threads``
        threads one more) of every step, with the
        weights all threads share; their gradient sums are added in thread order before
        the step.  The result depends on the seed and ``threads`` only (if OpenMP gives
        fewer threads, each plays several shares: the same bits, more slowly).  The threads
        meet twice a step at a barrier that spins up to 200 microseconds, then sleeps, so no
        ``OMP_WAIT_POLICY`` is needed on a busy machine.

    Ctrl-C (any signal handler that raises, in the main thread) stops after the game
    being played (with Adam: after the step) and raises ``KeyboardInterrupt``; the
    network keeps the updates made.  A handler that returns
    (``bgengine.interrupts.stop_on_interrupt``'s, which training installs) lets the
    batch finish.

    Returns
    -------
    dict of arrays (n_games,): ``moves`` (int32, plays in the game),
    ``result`` (int8, points won by the side that moved first; 0 for a game cut off after
    ``MAX_GAME_PLAYS`` plays, a last resort never met in practice), ``error``
    (float64, mean absolute error of the first output over the game).

    Integers are Python or numpy integers and numbers finite (a bool, a float for an
    integer, NaN or an infinity is refused): ``ValueError`` naming the argument, before
    anything is allocated.
    """
    n_games = checked_int(n_games, "n_games", 0, _MAX_GAMES, "0..10**8", "an integer")
    lam = checked_real(lam, "lam", 0.0, 1.0, "[0, 1]")
    alpha = checked_real(alpha, "alpha", 0.0, 10.0, "(0, 10]")
    if not alpha > 0.0:
        raise ValueError(f"alpha must be > 0, got {alpha}")
    epsilon = checked_real(epsilon, "epsilon", 0.0, 1.0, "[0, 1]")
    if method not in ("td", "backprop"):
        raise ValueError(f"method must be 'td' or 'backprop', got {method!r}")
    target_plies = checked_int(target_plies, "target_plies", 0, 3, "0..3", "an integer")
    batch_positions = checked_int(batch_positions, "batch_positions", 0, 10**8, "0..10**8",
                                  "an integer")
    threads = checked_int(threads, "threads", 1, _MAX_THREADS, f"1..{_MAX_THREADS}",
                          "an integer")
    if target_plies and (method != "td" or lam > 0):
        raise ValueError("n-ply targets (target_plies > 0) are for TD(0): method 'td', lam = 0")
    if adam is None and threads != 1:
        raise ValueError("threads > 1 is for Adam batches (adam=...); online updates on "
                         "several threads: bgengine.training.threaded_td")
    cdef Evaluator evaluator = as_evaluator(net)
    if evaluator.experts:
        raise ValueError("self-play training of contact experts is not supported: fit them "
                         "with 'bgengine distill fit --experts' or 'bgengine data fit'")
    cdef bint td = method == "td"
    if td and lam > 0 and evaluator.ev.routed:
        raise ValueError("TD(lambda) with lam > 0 needs one network for every position class; "
                         "train class networks with lam = 0 (TD(0))")
    cdef uint64_t sd = check_seed(seed), g0 = check_seed(first_game, "first_game")
    cdef cnp.ndarray start_arr = _checked_starts(starts)
    moves = np.zeros(n_games, dtype=np.int32)
    result = np.zeros(n_games, dtype=np.int8)
    error = np.zeros(n_games, dtype=np.float64)
    stats = {"moves": moves, "result": result, "error": error}
    if adam is not None:
        if not td or lam > 0:
            raise ValueError("Adam batches (adam=...) are for TD(0): method 'td', lam = 0")
        _train_adam(evaluator, stats, alpha, sd, g0, epsilon, target_plies, start_arr, adam,
                    batch_positions, threads)
    else:
        _train_online(evaluator, stats, alpha, lam, sd, g0, td, epsilon, target_plies,
                      start_arr)
    if not all(np.all(np.isfinite(n.params)) for n in (evaluator.contact, evaluator.race)):
        raise FloatingPointError("training diverged: the network's weights are no longer finite "
                                 "(try a smaller alpha)")
    return stats


cdef int _train_online(Evaluator evaluator, dict stats, double alpha, double lam, uint64_t sd,
                       uint64_t g0, bint td, double epsilon, int target_plies,
                       cnp.ndarray start_arr) except -1:
    """``train_games`` with online updates, game by game on this thread."""
    cdef const board_t* start_boards = NULL
    cdef const board_t* start = NULL
    cdef Py_ssize_t n_starts = 0
    if start_arr is not None:
        start_boards = <const board_t*> cnp.PyArray_DATA(start_arr)
        n_starts = start_arr.shape[0]
    cdef int32_t[::1] mv = stats["moves"]
    cdef cnp.int8_t[::1] rv = stats["result"]
    cdef double[::1] errv = stats["error"]
    cdef Py_ssize_t n_games = mv.shape[0]
    cdef learner_t* L = <learner_t*> zeroed_or_raise(1, sizeof(learner_t))
    _learner_init(L, evaluator, target_plies)
    cdef record_t* hist = NULL
    cdef int cap = 0, nm, res
    cdef Py_ssize_t g
    cdef rng_t dice, explore
    cdef game_t G
    cdef interrupt_t it
    pending = []
    interrupt_init(&it, pending)
    try:
        _learner_open(L, td and lam > 0)
        with nogil:
            for g in range(n_games):
                if interrupt_poll(&it, True):
                    break
                if n_starts:
                    start = &start_boards[(g0 + g) % <uint64_t>n_starts]
                if td:
                    _td_start(L, &G, start, sd, g0 + g, lam)
                    while not G.over:
                        _td_move(L, &G, alpha, lam, epsilon)
                    errv[g] = G.err_sum / G.n_moves
                    mv[g] = G.n_moves
                    rv[g] = _game_result(&G)
                else:
                    _seed_game(&dice, &explore, sd, g0 + g)
                    errv[g] = _backprop_game(L, start, &dice, &explore, alpha, epsilon, &hist,
                                             &cap, &nm, &res)
                    mv[g] = nm
                    rv[g] = res
        if pending:
            raise pending[0]
    finally:
        _learner_close(L)
        free(L)
        free(hist)
    return 0


# ---------------------------------------------------------------- batch TD(0) with Adam

# What the workers of an Adam batch share (read only during a step).
ctypedef struct batch_t:
    Py_ssize_t n_games
    int stride              # threads: worker t plays games t, t + stride, ...
    uint64_t seed
    uint64_t first_game
    double epsilon
    const board_t* starts
    Py_ssize_t n_starts
    int32_t* moves          # per-game statistics (n_games each)
    cnp.int8_t* result
    double* error


# One share of an Adam batch: its learner (gradient sums in ``grad``) and game.
ctypedef struct worker_t:
    learner_t L
    game_t G
    Py_ssize_t game         # the batch's index of the game being played; -1: none
    Py_ssize_t next_game    # the next game this worker starts
    int quota               # positions per step
    int played              # positions played in the current step
    int failed              # its share of a step raised (MemoryError)
    real_t* grad[N_NET_CLASSES]     # gradient sums of the trained networks (slots)
    char _pad[64]           # workers side by side in an array share no cache line


cdef int _worker_step(worker_t* W, const batch_t* B, const int* n_params,
                      int n_slots) except -1 nogil:
    """Play the worker's share of one step: up to ``quota`` positions, starting its next
    games as needed, their TD(0) gradients summed into ``W.grad`` (zeroed first)."""
    cdef int s
    cdef const board_t* start = NULL
    for s in range(n_slots):
        memset(W.grad[s], 0, n_params[s] * sizeof(real_t))
    W.played = 0
    while W.played < W.quota:
        if W.game < 0:
            if W.next_game >= B.n_games:
                break
            W.game = W.next_game
            W.next_game += B.stride
            if B.n_starts:
                start = &B.starts[(B.first_game + W.game) % <uint64_t>B.n_starts]
            _td_start(&W.L, &W.G, start, B.seed, B.first_game + W.game, 0)
        _td_move(&W.L, &W.G, 1.0, 0.0, B.epsilon)
        W.played += 1
        if W.G.over:
            B.moves[W.game] = W.G.n_moves
            B.result[W.game] = _game_result(&W.G)
            B.error[W.game] = W.G.err_sum / W.G.n_moves
            W.game = -1
    return 0


# ``_worker_step`` called from a team thread, which must reach the next barrier even when
# the share raised: its status is checked here, not propagated by Cython (-1: an exception
# was raised in that thread, see ``_train_adam``).
ctypedef int (*share_fn)(worker_t*, const batch_t*, const int*, int) noexcept nogil
cdef share_fn _play_share = <share_fn> _worker_step

#: Microseconds a thread of an Adam batch spins at a barrier before it sleeps
#: (thread_barrier.h): longer than most waits for the other thread's share on a quiet
#: machine, short enough to cost little when that thread has lost its core.
cdef double BARRIER_SPIN_US = 200

# An Adam batch as its team of threads sees it.
ctypedef struct adam_team_t:
    worker_t* W             # the batch's shares (``threads`` workers)
    int threads
    const batch_t* B
    int n_slots
    int n_params[N_NET_CLASSES]
    real_t* params[N_NET_CLASSES]
    real_t* m[N_NET_CLASSES]
    real_t* v[N_NET_CLASSES]
    double alpha, beta1, beta2, eps
    long long step          # Adam steps taken (in: before the batch; out: after it)
    interrupt_t* it
    bint stop               # the caller's thread saw Ctrl-C: stop after this step
    bg_barrier_t barrier


cdef inline Py_ssize_t _slice_start(Py_ssize_t n, int i, int team) noexcept nogil:
    """Start of team thread ``i``'s slice of ``n`` parameters: equal slices, each a whole
    number of cache lines (16 floats), so that no two threads write one line."""
    cdef Py_ssize_t chunk = ((n + team - 1) // team + 15) // 16 * 16
    return min(n, i * chunk)


cdef void _adam_team_thread(adam_team_t* R) noexcept nogil:
    """One thread of the team playing an Adam batch (inside a parallel region).  Each step:
    the shares of workers ``i, i + team, ...``; a barrier; then, for this thread's slice of
    every network's parameters, the workers' gradient sums added in worker order and the
    Adam step (elementwise: the same bits whatever the slices); a barrier.  The team's
    size changes nothing but the speed."""
    cdef int i = bg_team_index(), team = bg_team_size(), w, s, played, failed
    cdef long long step = R.step
    cdef Py_ssize_t lo, hi, j
    cdef real_t* g
    cdef const real_t* h
    while True:
        w = i
        while w < R.threads:
            R.W[w].failed = _play_share(&R.W[w], R.B, R.n_params, R.n_slots) < 0
            w += team
        bg_barrier_wait(&R.barrier, team)
        played = failed = 0
        for w in range(R.threads):
            played += R.W[w].played
            failed |= R.W[w].failed
        if played == 0 or failed:
            break
        step += 1
        for s in range(R.n_slots):
            lo = _slice_start(R.n_params[s], i, team)
            hi = _slice_start(R.n_params[s], i + 1, team)
            g = R.W[0].grad[s]
            for w in range(1, R.threads):
                h = R.W[w].grad[s]
                for j in range(lo, hi):
                    g[j] += h[j]
            adam_step(R.params[s] + lo, g + lo, R.m[s] + lo, R.v[s] + lo, hi - lo, R.alpha,
                      R.beta1, R.beta2, R.eps, step)
        if i == 0:
            R.stop = interrupt_poll(R.it, True)
        bg_barrier_wait(&R.barrier, team)
        if R.stop:
            break
    if i == 0:
        R.step = step


cdef int _train_adam(Evaluator evaluator, dict stats, double alpha, uint64_t sd, uint64_t g0,
                     double epsilon, int target_plies, cnp.ndarray start_arr, adam,
                     int batch_positions, int threads) except -1:
    """``train_games`` by batch TD(0) with Adam on ``threads`` threads (see there).

    The threads live for the whole batch and meet at a barrier that spins briefly, then
    sleeps (``thread_barrier.h``), twice a step; each adds up and steps its own slice of
    the parameters."""
    if batch_positions < 1:
        raise ValueError(f"batch_positions must be >= 1, got {batch_positions}")
    if not 1 <= threads <= batch_positions:
        raise ValueError(f"threads must be in 1..batch_positions, got {threads}")
    cdef adam_team_t R
    R.beta1, R.beta2, R.eps = adam.beta1, adam.beta2, adam.eps
    if not (0 <= R.beta1 < 1 and 0 <= R.beta2 < 1 and R.eps > 0):
        raise ValueError(f"Adam needs 0 <= beta1, beta2 < 1 and eps > 0, got {R.beta1}, "
                         f"{R.beta2}, {R.eps}")
    R.step = adam.step
    if R.step < 0:
        raise ValueError(f"the Adam step count must be >= 0, got {R.step}")
    # the trained networks (slots): the contact network, and the race network if its own
    nets = [evaluator.contact] if evaluator.race is evaluator.contact else \
        [evaluator.contact, evaluator.race]
    R.n_slots = len(nets)
    cdef int s, t, c
    moments = [list(adam.m), list(adam.v)]
    for what, arrs in zip(("m", "v"), moments):
        if len(arrs) != R.n_slots or not all(
                isinstance(a, np.ndarray) and a.dtype == np.float32 and a.flags.c_contiguous
                and a.flags.writeable and a.shape == n.params.shape for a, n in zip(arrs, nets)):
            raise ValueError(f"Adam's {what} must be {R.n_slots} writeable contiguous float32 "
                             f"array(s) shaped like the trained networks' params")
    cdef int slot_of[N_NET_CLASSES]
    for s in range(R.n_slots):
        R.params[s] = <real_t*> cnp.PyArray_DATA(nets[s].params)
        R.m[s] = <real_t*> cnp.PyArray_DATA(moments[0][s])
        R.v[s] = <real_t*> cnp.PyArray_DATA(moments[1][s])
        R.n_params[s] = nets[s].params.size
    slot_of[CLASS_CONTACT] = 0
    slot_of[CLASS_RACE] = R.n_slots - 1
    R.alpha = alpha
    cdef batch_t B
    cdef int32_t[::1] mv = stats["moves"]
    cdef cnp.int8_t[::1] rv = stats["result"]
    cdef double[::1] errv = stats["error"]
    B.n_games = mv.shape[0]
    B.stride = threads
    B.seed = sd
    B.first_game = g0
    B.epsilon = epsilon
    B.starts = NULL
    B.n_starts = 0
    if start_arr is not None:
        B.starts = <const board_t*> cnp.PyArray_DATA(start_arr)
        B.n_starts = start_arr.shape[0]
    if B.n_games:
        B.moves, B.result, B.error = &mv[0], &rv[0], &errv[0]
    R.B = &B
    R.threads = threads
    R.W = <worker_t*> zeroed_or_raise(threads, sizeof(worker_t))
    R.stop = False
    bg_barrier_init(&R.barrier, BARRIER_SPIN_US)
    cdef interrupt_t it
    pending = []
    interrupt_init(&it, pending)
    R.it = &it
    cdef bint failed = False
    try:
        for t in range(threads):
            _learner_init(&R.W[t].L, evaluator, target_plies)
            _learner_open(&R.W[t].L, False)
            for s in range(R.n_slots):
                R.W[t].grad[s] = <real_t*> zeroed_or_raise(R.n_params[s], sizeof(real_t))
            for c in range(N_NET_CLASSES):
                R.W[t].L.dest[c] = R.W[t].grad[slot_of[c]]
            R.W[t].game = -1
            R.W[t].next_game = t
            R.W[t].quota = batch_positions // threads + (1 if t < batch_positions % threads else 0)
        if not interrupt_poll(&it, True):
            with nogil, parallel(num_threads=threads):
                _adam_team_thread(&R)
            for t in range(threads):
                failed |= R.W[t].failed
        adam.step = R.step
        if failed:
            # raised in a thread of the team: the exception is lost with that thread's
            # state unless it was the caller's own (then it is pending here)
            if PyErr_Occurred() == NULL:
                raise MemoryError("a self-play thread ran out of memory")
            return -1
        if pending:
            raise pending[0]
    finally:
        for t in range(threads):
            _learner_close(&R.W[t].L)
            for s in range(R.n_slots):
                free(R.W[t].grad[s])
        free(R.W)
    return 0

def _checked_starts(starts):
    """``starts`` as contiguous uint8 boards (S, 2, 25), None for None; ``ValueError`` for
    an empty list, an invalid position or a finished game (a side with no checker)."""
    if starts is None:
        return None
    arr = validate_boards(starts)
    if arr.shape[0] == 0:
        raise ValueError("starts must hold at least one position")
    done = np.flatnonzero(arr.reshape(-1, 2, 25).sum(axis=2).min(axis=1) == 0)
    if done.size:
        raise ValueError(f"starts[{done[0]}] is a finished game (a side has borne off every "
                         f"checker)")
    return arr
