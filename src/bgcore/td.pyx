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
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memcpy, memset
from libc.math cimport fabs

from bgengine._types cimport int32_t, real_t, uint64_t
from bgengine.board cimport board_t, board_start, board_swap, board_side_empty, board_win_value, MOVER
from bgengine.dice cimport rng_t, rng_seed, rng_roll, rng_opening_roll, rng_below
from bgengine.movegen cimport movelist_t, movelist_init, movelist_free, generate_moves
from bgengine.network cimport (net_t, netbuf_t, Network, net_forward_sparse, net_backward_sparse,
                               outputs_flip, outputs_target, MAX_OUTPUTS)
from bgengine.encoders cimport encode_sparse, MAX_INPUTS
from bgengine.search cimport net_best_move

from bgengine.encoders import encoder_id
from bgengine.movegen import check_seed

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
    net_t* net
    int encoder
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


cdef double _td_game(learner_t* L, rng_t* dice, rng_t* explore, double alpha, double lam,
                     double epsilon, int* n_moves, int* result) except -1 nogil:
    """One self-play game with online TD(lambda) updates; returns the mean
    absolute TD error of the first output."""
    cdef board_t b
    cdef int32_t idx[MAX_INPUTS]
    cdef real_t val[MAX_INPUTS]
    cdef real_t V[MAX_OUTPUTS]
    cdef real_t M[MAX_OUTPUTS]
    cdef real_t d[MAX_OUTPUTS]
    cdef real_t coef[MAX_OUTPUTS]
    cdef real_t unit[MAX_OUTPUTS]
    cdef int K = L.K, P = L.net.n_params, d1, d2, n, k, j, nnz, parity = 0, v = 0, c
    cdef bint done = False
    cdef double err_sum = 0
    cdef int top = L.net.n_layers
    board_start(&b)
    if lam > 0:
        _clear_traces(L)
    rng_opening_roll(dice, &d1, &d2)
    n_moves[0] = 0
    while not done:
        # value and gradient of the state before the move, current weights
        nnz = encode_sparse(L.encoder, &b, idx, val)
        net_forward_sparse(L.net, idx, val, nnz, &L.buf)
        memcpy(V, L.buf.act[top], K * sizeof(real_t))
        if lam > 0:
            L.scale *= <real_t>lam
            if n_moves[0] == 0:
                L.scale = 1
            if L.scale < RESCALE_BELOW:
                _rescale(L)
            for j in range(nnz):
                if not L.touched[idx[j]]:
                    L.touched[idx[j]] = 1
                    L.rows[L.n_rows] = idx[j]
                    L.n_rows += 1
            # E_k (A's frame) += grad U_k / scale, U_k = sign * V[perm[k]] on odd turns
            for k in range(K):
                memset(unit, 0, K * sizeof(real_t))
                if parity:
                    unit[L.perm[k]] = L.sign[k]
                else:
                    unit[k] = 1
                net_backward_sparse(L.net, idx, val, nnz, &L.buf, unit, L.E + k * P,
                                    1 / L.scale)
        # the move: greedy (or exploring) on the current weights
        n = generate_moves(&L.ml, &b, d1, d2)
        c = net_best_move(L.net, L.encoder, &L.ml, n, &L.buf, M)
        if epsilon > 0 and n > 1 and rng_below(explore, 1000000) < epsilon * 1000000:
            c = rng_below(explore, n)
            _mover_outputs(L, &L.ml.boards[c], M)
        n_moves[0] += 1
        if board_side_empty(&L.ml.boards[c], MOVER):
            v = board_win_value(&L.ml.boards[c], MOVER)
            outputs_target(K, v, M)
            done = True
        # delta in the mover's frame; M is the next state's value seen by the mover
        for k in range(K):
            d[k] = M[k] - V[k]
        err_sum += fabs(d[0])
        if lam > 0:
            for k in range(K):
                # delta in A's frame
                coef[k] = <real_t>(alpha * L.scale * (L.sign[k] * d[L.perm[k]] if parity else d[k]))
            _apply_traces(L, coef)
        else:
            # TD(0): the frame cancels out, w += alpha * sum_k d_k grad V_k
            net_forward_sparse(L.net, idx, val, nnz, &L.buf)
            for k in range(K):
                coef[k] = <real_t>(alpha * d[k])
            net_backward_sparse(L.net, idx, val, nnz, &L.buf, coef, L.net.params, 1)
        if not done:
            board_swap(&b, &L.ml.boards[c])
            parity ^= 1
            rng_roll(dice, &d1, &d2)
    result[0] = v if parity == 0 else -v
    return err_sum / n_moves[0]


cdef void _mover_outputs(learner_t* L, const board_t* after, real_t* out) noexcept nogil:
    """Outputs of an afterstate from the mover's side (exact if the game is over)."""
    cdef board_t s
    cdef int32_t idx[MAX_INPUTS]
    cdef real_t val[MAX_INPUTS]
    cdef int nnz
    if board_side_empty(after, MOVER):
        outputs_target(L.K, board_win_value(after, MOVER), out)
        return
    board_swap(&s, after)
    nnz = encode_sparse(L.encoder, &s, idx, val)
    net_forward_sparse(L.net, idx, val, nnz, &L.buf)
    outputs_flip(L.K, L.buf.act[L.net.n_layers], out)


ctypedef struct record_t:
    int nnz
    int parity
    int32_t idx[MAX_INPUTS]
    real_t val[MAX_INPUTS]


cdef double _backprop_game(learner_t* L, rng_t* dice, rng_t* explore, double alpha,
                           double epsilon, record_t** hist, int* cap, int* n_moves,
                           int* result) except -1 nogil:
    """Play one greedy game, then train every position toward the result."""
    cdef board_t b
    cdef real_t T[MAX_OUTPUTS]
    cdef real_t dout[MAX_OUTPUTS]
    cdef int K = L.K, d1, d2, n, c, t, k, v = 0, parity = 0, top = L.net.n_layers
    cdef double err_sum = 0
    cdef void* p
    board_start(&b)
    rng_opening_roll(dice, &d1, &d2)
    n_moves[0] = 0
    while True:
        if n_moves[0] == cap[0]:
            cap[0] = 2 * cap[0] + 64
            p = realloc(hist[0], cap[0] * sizeof(record_t))
            if p == NULL:
                with gil:
                    raise MemoryError()
            hist[0] = <record_t*> p
        hist[0][n_moves[0]].nnz = encode_sparse(L.encoder, &b, hist[0][n_moves[0]].idx,
                                                hist[0][n_moves[0]].val)
        hist[0][n_moves[0]].parity = parity
        n = generate_moves(&L.ml, &b, d1, d2)
        c = net_best_move(L.net, L.encoder, &L.ml, n, &L.buf, NULL)
        if epsilon > 0 and n > 1 and rng_below(explore, 1000000) < epsilon * 1000000:
            c = rng_below(explore, n)
        n_moves[0] += 1
        if board_side_empty(&L.ml.boards[c], MOVER):
            v = board_win_value(&L.ml.boards[c], MOVER)
            break
        board_swap(&b, &L.ml.boards[c])
        parity ^= 1
        rng_roll(dice, &d1, &d2)
    # v was won by the side on roll at the last position (parity)
    for t in range(n_moves[0]):
        outputs_target(K, v if hist[0][t].parity == parity else -v, T)
        net_forward_sparse(L.net, hist[0][t].idx, hist[0][t].val, hist[0][t].nnz, &L.buf)
        for k in range(K):
            dout[k] = <real_t>(alpha * (T[k] - L.buf.act[top][k]))
        err_sum += fabs(T[0] - L.buf.act[top][0])
        net_backward_sparse(L.net, hist[0][t].idx, hist[0][t].val, hist[0][t].nnz, &L.buf,
                            dout, L.net.params, 1)
    result[0] = v if parity == 0 else -v
    return err_sum / n_moves[0]


def train_games(Network net, Py_ssize_t n_games, double alpha, double lam=0.0, *,
                seed=0, first_game=0, str method="td", double epsilon=0.0):
    """Play ``n_games`` self-play games, updating ``net`` in place.

    Parameters
    ----------
    net : Network
        Trained in place (its ``params`` array).
    n_games : int
    alpha : float
        Learning rate (step size) for this batch.
    lam : float
        TD(lambda) trace decay in [0, 1]; 0 is TD(0).  Ignored by ``backprop``.
    seed, first_game : int
        Game ``g`` of the batch is game number ``first_game + g`` of the run:
        its dice are stream ``first_game + g`` of ``seed``.  Passing the next
        game number when resuming continues the run exactly.
    method : {"td", "backprop"}
    epsilon : float
        Chance per move of a random play (epsilon-greedy exploration).

    Returns
    -------
    dict of arrays (n_games,): ``moves`` (int32, plays in the game),
    ``result`` (int8, points won by the side that moved first), ``error``
    (float64, mean absolute error of the first output over the game).
    """
    if n_games < 0:
        raise ValueError(f"n_games must be >= 0, got {n_games}")
    if not 0.0 <= lam <= 1.0:
        raise ValueError(f"lam must be in [0, 1], got {lam}")
    if not alpha > 0.0:
        raise ValueError(f"alpha must be > 0, got {alpha}")
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"epsilon must be in [0, 1], got {epsilon}")
    if method not in ("td", "backprop"):
        raise ValueError(f"method must be 'td' or 'backprop', got {method!r}")
    cdef uint64_t sd = check_seed(seed), g0 = check_seed(first_game, "first_game")
    cdef bint td = method == "td"
    cdef learner_t* L = <learner_t*> calloc(1, sizeof(learner_t))
    if L == NULL:
        raise MemoryError()
    L.net = &net.net
    L.encoder = encoder_id(net.encoder)
    L.K = net.net.sizes[net.net.n_layers]
    L.H = net.net.sizes[1]
    L.n_inputs = net.net.sizes[0]
    L.upper = net.net.offset_b[0]
    if L.K == 1:
        L.perm, L.sign = PERM1, SIGN1
    elif L.K == 4:
        L.perm, L.sign = PERM4, SIGN4
    else:
        L.perm, L.sign = PERM5, SIGN5
    moves = np.zeros(n_games, dtype=np.int32)
    result = np.zeros(n_games, dtype=np.int8)
    error = np.zeros(n_games, dtype=np.float64)
    cdef int32_t[::1] mv = moves
    cdef cnp.int8_t[::1] rv = result
    cdef double[::1] ev = error
    cdef record_t* hist = NULL
    cdef int cap = 0, nm, res
    cdef Py_ssize_t g
    cdef rng_t dice, explore
    cdef bint use_traces = td and lam > 0
    try:
        movelist_init(&L.ml)
        if use_traces:
            L.E = <real_t*> calloc(<size_t>L.K * net.net.n_params, sizeof(real_t))
            L.touched = <unsigned char*> calloc(L.n_inputs, 1)
            L.rows = <int*> calloc(L.n_inputs, sizeof(int))
            if L.E == NULL or L.touched == NULL or L.rows == NULL:
                raise MemoryError()
        with nogil:
            for g in range(n_games):
                rng_seed(&dice, sd, g0 + g)
                rng_seed(&explore, sd, EXPLORE_STREAM + g0 + g)
                if td:
                    ev[g] = _td_game(L, &dice, &explore, alpha, lam, epsilon, &nm, &res)
                else:
                    ev[g] = _backprop_game(L, &dice, &explore, alpha, epsilon, &hist, &cap,
                                           &nm, &res)
                mv[g] = nm
                rv[g] = res
    finally:
        movelist_free(&L.ml)
        free(L.E)
        free(L.touched)
        free(L.rows)
        free(L)
        free(hist)
    if not np.all(np.isfinite(net.params)):
        raise FloatingPointError("training diverged: the network's weights are no longer finite "
                                 "(try a smaller alpha)")
    return {"moves": moves, "result": result, "error": error}
