"""Lookahead and rollouts over a network, in compiled code.

n-ply evaluation (expectimax over the 21 rolls)
    ``eval_position(s, 0)`` is the network's output for ``s`` (side on roll).
    ``eval_position(s, n)`` averages over the 21 rolls (doubles 1/36, others
    2/36) the outputs, from ``s``'s side, of the reply the side on roll picks
    at 0-ply, itself evaluated at ``n - 1`` plies.  A play chosen "at n
    plies" is the afterstate whose position (opponent on roll) is best at
    ``n`` plies; only the best few plays at 0-ply are searched deeper (the
    move filter: at most ``candidates``, within ``margin`` equity of the best),
    as GNU Backgammon does.  Evaluations are cached by Zobrist key and ply.

Rollouts
    Each trial plays the position out to the end (or ``truncate`` plays,
    then the network's estimate; ``MAX_GAME_PLAYS`` at most) with both sides
    choosing at 0-ply.  The
    first two rolls are stratified: trial ``t`` starts with roll ``t % 36``
    then ``(t // 36) % 36`` of the 36 ordered outcomes, so 1296 trials cover
    every pair once; later rolls come from PCG32 stream ``t``.  Luck-based
    variance reduction subtracts, at every play, the gap between the value of
    the best play for the roll thrown and the mean over all 36 rolls.
"""

import threading

import numpy as np
cimport numpy as cnp
from cython.parallel cimport prange, threadid
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcmp, memcpy, memset
from libc.math cimport sqrt

from bgengine.core._types cimport int32_t, real_t, key_t, uint64_t, checker_t
from bgengine.core.memory cimport zeroed_or_raise
from bgengine.core.board cimport (board_t, board_key, board_swap, board_side_empty, board_win_value,
                             MOVER, OPPONENT, MAX_GAME_PLAYS)
from bgengine.core.interrupt cimport interrupt_t, interrupt_init, interrupt_poll
from bgengine.core.dice cimport rng_t, rng_seed, rng_roll
from bgengine.core.movegen cimport movelist_t, movelist_init, movelist_free, generate_moves
from bgengine.core.network cimport (net_t, netbuf_t, MAX_WIDTH, net_first_layer_partial,
                               net_forward_sparse_from, net_forward_sparse_keep)
from bgengine.core.outputs cimport outputs_flip, outputs_equity, outputs_target, MAX_OUTPUTS
from bgengine.core.evaluator cimport (evaluator_t, Evaluator, ev_static, ev_class, ev_slot, CLASS_CONTACT,
                                 CLASS_RACE, CLASS_EXACT, ev_frozen_t, ev_freeze, ev_frozen_free,
                                 board_shape)
from bgengine.core.encoders cimport (encode_head, encode_tail_features, enc_head_t, MAX_INPUTS,
                                ENC_CONTACT, N_CONTACT_TAIL_FEATURES, contact_tail_delta)
from bgengine.core.layer_delta cimport (layer_ref_t, layer_ref_init, layer_ref_set, layer_ref_delta,
                                   layer_ref_set_parts, layer_ref_delta_parts, MAX_DELTA,
                                   LAYER_DELTA_MIN_WIDTH, LAYER_DELTA_MIN_WIDTH_PARTS,
                                   layer_chain_t, LAYER_CHAIN_MAX)

from bgengine.core.checks cimport checked_int, checked_real

from bgengine.core.board import validate_board
from bgengine.core.evaluator import as_evaluator
from bgengine.core.movegen import _check_dice_array, check_die, check_seed, check_threads
from bgengine.core.network import equity_of

cnp.import_array()

cdef key_t PLY_SALT[MAX_PLIES + 1]
PLY_SALT[:] = [0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93]
cdef int TOP = MAX_PLIES + 1     # the move list kept for callers' top-level plays

#: Trials of one rollout at most: the per-trial outputs are kept, 20 bytes a trial (and a
#: float64 copy), so at most about 0.6 GB.
MAX_TRIALS = 10**7
#: The longest ``truncate`` of a rollout: every game is cut off after ``MAX_GAME_PLAYS``
#: plays anyway (a last resort, as if truncated there).
MAX_TRUNCATE = MAX_GAME_PLAYS


cdef int _plies(object plies, int lo=0) except -1:
    """``plies`` as an int in ``lo``..``MAX_PLIES``, or ``ValueError``."""
    return checked_int(plies, "plies", lo, MAX_PLIES, f"{lo}..{MAX_PLIES}", "an integer")


# The plays of one roll valued one by one, sharing what siblings share.  The side to roll
# next is the same in every afterstate and, unless a play hits, so are its checkers: their
# part of the encoding (encode_head: every encoder lists it first) and its first-layer sum
# are computed once and shared.  Same summation order (the encoder's): same bits as each
# afterstate evaluated on its own.  Two heads are kept (the plays that hit and those that
# do not come interleaved), each for the afterstate and class network it was made for.
# Afterstates are encoded in place, from their rows (the side to roll next: OPPONENT).
# With by_delta, and a network at least LAYER_DELTA_MIN_WIDTH wide, each head's first
# afterstate is also the reference of the others' first layer (layer_delta.pxd): those add
# the rows of the inputs that differ from it, when these are fewer than their tail's.
ctypedef struct siblings_t:
    real_t pre[2][MAX_WIDTH]        # the heads' first-layer sums
    enc_head_t head[2]
    int head_of[2]                  # the afterstate each head was made for (-1: none yet)
    int head_cls[2]                 # ... and its class network
    int lru                         # the head to replace next
    bint by_delta
    bint ref_ready[2]               # ref[h] initialised (layer_ref_init; not needed by parts)
    layer_ref_t ref[2]              # by_delta: each head's reference
    layer_chain_t chain[2]          # ... and, by parts, its last sibling (layer_delta.pxd)


cdef inline void siblings_init(siblings_t* V, bint by_delta) noexcept nogil:
    V.head_of[0] = V.head_of[1] = -1
    V.head_cls[0] = V.head_cls[1] = -1
    V.lru = 0
    V.by_delta = by_delta
    V.ref_ready[0] = V.ref_ready[1] = False


cdef void _forward_by_parts(const layer_ref_t* ref, layer_chain_t* chain, const net_t* net,
                            const checker_t* other, const real_t* feat,
                            netbuf_t* buf) noexcept nogil:
    """The forward pass of a contact tail (its other side's checkers ``other``, features
    ``feat``) by difference from the last tail of its head's ``chain``, or from the head's
    reference ``ref`` when the chain is new or LAYER_CHAIN_MAX long; the tail becomes the
    chain's last.  Apart from the common path, whose frame stays small."""
    cdef int32_t didx[MAX_DELTA]
    cdef real_t dval[MAX_DELTA]
    cdef int nd
    cdef const real_t* base
    if chain.depth == 0 or chain.depth >= LAYER_CHAIN_MAX:
        nd = layer_ref_delta_parts(ref, other, feat, didx, dval)
        base = ref.pre
        chain.depth = 1
    else:
        nd = contact_tail_delta(chain.c, chain.feat, other, feat, didx, dval)
        base = chain.pre
        chain.depth += 1
    memcpy(chain.c, other, 25 * sizeof(checker_t))
    memcpy(chain.feat, feat, N_CONTACT_TAIL_FEATURES * sizeof(real_t))
    net_forward_sparse_keep(net, base, didx, dval, nd, chain.pre, buf)


cdef void _forward_by_delta(layer_ref_t* ref, const net_t* net, const real_t* pre_head,
                            const int32_t* idx, const real_t* val, int nnz,
                            netbuf_t* buf) noexcept nogil:
    """The forward pass of a tail whose head has reference ``ref``, by difference from it
    when that adds fewer rows.  Apart from the common path, whose frame stays small."""
    cdef int32_t didx[MAX_DELTA]
    cdef real_t dval[MAX_DELTA]
    cdef int nd = layer_ref_delta(ref, idx, val, nnz, didx, dval)
    if nd < nnz:
        net_forward_sparse_from(net, ref.pre, didx, dval, nd, buf)
    else:
        net_forward_sparse_from(net, pre_head, idx, val, nnz, buf)


cdef inline void _race_flip(const evaluator_t* ev, int c, const board_t* after,
                            const real_t* net_out, real_t* mine) noexcept nogil:
    """mine = the network's outputs of an afterstate (its opponent on roll) flipped to the
    mover's side, refined first when the evaluator refines races."""
    cdef real_t t[MAX_OUTPUTS]
    if c == CLASS_RACE and ev.race_tables != NULL:
        memcpy(t, net_out, ev.K * sizeof(real_t))
        ev.race_refine(ev.race_tables, after.c[OPPONENT], after.c[MOVER], t)
        outputs_flip(ev.K, t, mine)
    else:
        outputs_flip(ev.K, net_out, mine)


cdef inline void sibling_outputs(siblings_t* V, const evaluator_t* ev, const movelist_t* ml,
                                 int i, netbuf_t* buf, real_t* mine) noexcept nogil:
    """Outputs (mover's side) of afterstate ``ml.boards[i]``, a sibling of those V has seen."""
    cdef int h, c, K = ev.K, nnz
    cdef const board_t* after = &ml.boards[i]
    cdef const net_t* net
    cdef board_t s
    cdef int32_t idx[MAX_INPUTS]
    cdef real_t val[MAX_INPUTS]
    cdef real_t t[MAX_OUTPUTS]
    cdef real_t feat_buf[N_CONTACT_TAIL_FEATURES]
    cdef real_t* feat = NULL        # by parts: the tail's contact features
    cdef bint fresh, delta
    if board_side_empty(after, MOVER):
        outputs_target(K, board_win_value(after, MOVER), mine)
        return
    c = (ev_class(ev, after) if ev.routed or ev.exact_db != NULL or ev.race_tables != NULL
         else CLASS_CONTACT)
    if c == CLASS_EXACT:
        board_swap(&s, after)
        if ev.exact(ev.exact_db, &s, t):
            outputs_flip(K, t, mine)
            return
        c = CLASS_RACE
    c = ev_slot(ev, c, after.c[OPPONENT], after.c[MOVER])     # the opponent is on roll
    net = ev.net[c]
    delta = V.by_delta and net.sizes[1] >= (LAYER_DELTA_MIN_WIDTH_PARTS
                                            if ev.encoder[c] == ENC_CONTACT
                                            else LAYER_DELTA_MIN_WIDTH)
    if delta and ev.encoder[c] == ENC_CONTACT:
        feat = feat_buf
    h = 0
    while h < 2 and (V.head_of[h] < 0 or V.head_cls[h] != c
                     or memcmp(ml.boards[V.head_of[h]].c[OPPONENT], after.c[OPPONENT],
                               sizeof(after.c[OPPONENT])) != 0):
        h += 1
    fresh = h == 2
    if fresh:                           # neither: replace the one used longer ago
        h = V.lru
        encode_head(ev.encoder[c], after.c[OPPONENT], &V.head[h])
        net_first_layer_partial(net, V.head[h].idx, V.head[h].val, V.head[h].nnz, V.pre[h])
        if delta and feat == NULL and not V.ref_ready[h]:
            # (by parts needs no per-input state; a head slot may serve a narrow class
            # network first)
            layer_ref_init(&V.ref[h])
            V.ref_ready[h] = True
        V.head_of[h] = i
        V.head_cls[h] = c
        V.chain[h].depth = 0
    V.lru = 1 - h
    if feat != NULL and not fresh:
        # by parts from the head's reference: the features suffice, no pairs
        encode_tail_features(ev.encoder[c], after.c[MOVER], &V.head[h], NULL, NULL, feat)
        _forward_by_parts(&V.ref[h], &V.chain[h], net, after.c[MOVER], feat, buf)
        _race_flip(ev, c, after, buf.act[net.n_layers], mine)
        return
    nnz = encode_tail_features(ev.encoder[c], after.c[MOVER], &V.head[h], idx, val, feat)
    if not delta:
        net_forward_sparse_from(net, V.pre[h], idx, val, nnz, buf)
    elif fresh:
        if feat != NULL:
            layer_ref_set_parts(&V.ref[h], net, V.pre[h], idx, val, nnz, after.c[MOVER], feat)
        else:
            layer_ref_set(&V.ref[h], net, V.pre[h], idx, val, nnz)
        net_forward_sparse_from(net, V.ref[h].pre, idx, val, 0, buf)
    else:
        _forward_by_delta(&V.ref[h], net, V.pre[h], idx, val, nnz, buf)
    _race_flip(ev, c, after, buf.act[net.n_layers], mine)


cdef int ev_best_move(const evaluator_t* ev, const movelist_t* ml, int n, netbuf_t* buf,
                      real_t* out, bint by_delta) noexcept nogil:
    cdef int i, best = 0
    cdef double e, best_e = -1e300
    cdef real_t mine[MAX_OUTPUTS]
    cdef siblings_t V
    if n == 1 and out == NULL:
        return 0                    # no choice to make, no value asked for
    siblings_init(&V, by_delta)
    for i in range(n):
        sibling_outputs(&V, ev, ml, i, buf, mine)
        e = outputs_equity(ev.K, mine)
        if e > best_e:
            best_e = e
            best = i
            if out != NULL:
                memcpy(out, mine, ev.K * sizeof(real_t))
    return best


cdef int searcher_init(searcher_t* S, const evaluator_t* ev, int cache_bits,
                       int candidates, double margin) except -1 nogil:
    cdef int i
    memset(S, 0, sizeof(searcher_t))
    S.ev = ev
    S.K = ev.K
    S.candidates = candidates if candidates < MAX_CANDIDATES else MAX_CANDIDATES
    S.margin = margin
    S.by_delta = True
    S.buf = <netbuf_t*> malloc(sizeof(netbuf_t))
    if S.buf == NULL:
        with gil:
            raise MemoryError()
    for i in range(MAX_PLIES + 2):
        movelist_init(&S.ml[i])
    if cache_bits > 0:
        S.cache = <cache_entry_t*> calloc(<size_t>1 << cache_bits, sizeof(cache_entry_t))
        if S.cache == NULL:
            with gil:
                raise MemoryError()
        S.cache_mask = (<uint64_t>1 << cache_bits) - 1
    return 0


cdef void searcher_free(searcher_t* S) noexcept nogil:
    cdef int i
    for i in range(MAX_PLIES + 2):
        movelist_free(&S.ml[i])
    free(S.buf)
    free(S.cache)
    S.buf = NULL
    S.cache = NULL


# ---------------------------------------------------------------- per-thread workspaces

cdef void workspaces_init(workspaces_t* W, int nt) noexcept nogil:
    memset(W, 0, sizeof(workspaces_t))
    W.nt = nt


cdef int workspaces_add_lists(workspaces_t* W) except -1:
    W.lists = <movelist_t*> zeroed_or_raise(W.nt, sizeof(movelist_t))
    while W.n_lists < W.nt:
        movelist_init(&W.lists[W.n_lists])
        W.n_lists += 1
    return 0


cdef int workspaces_add_bufs(workspaces_t* W) except -1:
    W.bufs = <netbuf_t*> zeroed_or_raise(W.nt, sizeof(netbuf_t))
    return 0


cdef int workspaces_add_searchers(workspaces_t* W, int k, const evaluator_t* ev, int cache_bits,
                                  int candidates, double margin) except -1:
    """Searchers ``k`` (0 or 1) of every thread, set up by searcher_init with these values."""
    W.searchers[k] = <searcher_t*> zeroed_or_raise(W.nt, sizeof(searcher_t))
    while W.n_searchers[k] < W.nt:
        searcher_init(&W.searchers[k][W.n_searchers[k]], ev, cache_bits, candidates, margin)
        W.n_searchers[k] += 1
    return 0


cdef void workspaces_free(workspaces_t* W) noexcept nogil:
    cdef int t, k
    for t in range(W.n_lists):
        movelist_free(&W.lists[t])
    for k in range(2):
        for t in range(W.n_searchers[k]):
            searcher_free(&W.searchers[k][t])
        free(W.searchers[k])
    free(W.lists)
    free(W.bufs)
    workspaces_init(W, W.nt)


cdef inline void _static(searcher_t* S, const board_t* s, real_t* out) noexcept nogil:
    ev_static(S.ev, s, S.buf, out)


cdef void eval_position(searcher_t* S, const board_t* s, int plies, real_t* out) noexcept nogil:
    cdef key_t key = 0
    cdef cache_entry_t* e = NULL
    cdef real_t acc[MAX_OUTPUTS]
    cdef real_t m[MAX_OUTPUTS]
    cdef real_t t[MAX_OUTPUTS]
    cdef board_t s2
    cdef int K = S.K, d1, d2, n, c, k, w
    if board_side_empty(s, OPPONENT):      # the side that just moved has won
        outputs_target(K, -board_win_value(s, OPPONENT), out)
        return
    if S.cache != NULL:
        key = board_key(s) ^ PLY_SALT[plies]
        e = &S.cache[key & S.cache_mask]
        S.lookups += 1
        if e.key == key:
            S.hits += 1
            memcpy(out, e.out, K * sizeof(real_t))
            return
    if plies == 0:
        _static(S, s, out)
    else:
        memset(acc, 0, K * sizeof(real_t))
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                w = 1 if d1 == d2 else 2
                n = generate_moves(&S.ml[plies], s, d1, d2)
                c = ev_best_move(S.ev, &S.ml[plies], n, S.buf, m, S.by_delta)
                if plies > 1 and not board_side_empty(&S.ml[plies].boards[c], MOVER):
                    board_swap(&s2, &S.ml[plies].boards[c])
                    eval_position(S, &s2, plies - 1, t)
                    outputs_flip(K, t, m)
                for k in range(K):
                    acc[k] += w * m[k]
        for k in range(K):
            out[k] = acc[k] / 36.0
    if e != NULL:
        e.key = key
        memcpy(e.out, out, K * sizeof(real_t))


cdef inline int _sample_offset(const board_t* s, int step) noexcept nogil:
    """Where a node's systematic sample of the 36 ordered rolls starts: 0..step-1, from
    its Zobrist key (mixed: its low bits index the cache), so the same position always
    draws the same rolls."""
    cdef uint64_t h = board_key(s) ^ 0x94D049BB133111EBULL
    h = (h ^ (h >> 31)) * 0xBF58476D1CE4E5B9ULL
    h ^= h >> 29
    return <int>(h % <uint64_t>step)


cdef void eval_pair(searcher_t* S, const board_t* s, int plies, int samples, int start,
                    real_t* lower, real_t* upper) noexcept nogil:
    """``lower``: eval_position(s, plies - 1), bit for bit; ``upper``: an unbiased estimate
    of eval_position(s, plies) (plies >= 2) that costs a fraction of it.

    Plays are chosen at 0-ply at every node, so the two values differ only at their
    frontier: each (plies - 1)-ply path ends in a position valued at 0-ply (the reply's
    network output) where the deeper search values it at 1-ply.  ``upper`` is ``lower``
    plus that 1-ply correction, averaged at each frontier parent over ``samples`` of the 36
    ordered rolls (systematic: every ``36 / samples``-th of them in row-major order, from
    an offset drawn from the parent's key; samples divides 36) instead of all of them.  The
    correction is small and varies little between rolls, so few samples suffice; 36 is
    the full search."""
    cdef real_t acc_lo[MAX_OUTPUTS]
    cdef real_t acc_hi[MAX_OUTPUTS]
    cdef real_t m[MAX_OUTPUTS]
    cdef real_t a[MAX_OUTPUTS]
    cdef real_t b[MAX_OUTPUTS]
    cdef double corr[MAX_OUTPUTS]
    cdef board_t s2
    cdef int K = S.K, d1, d2, n, c, k, w, o, count, step = 36 // samples, j = 0
    cdef bint frontier = plies == 2
    if board_side_empty(s, OPPONENT):      # the side that just moved has won
        outputs_target(K, -board_win_value(s, OPPONENT), lower)
        memcpy(upper, lower, K * sizeof(real_t))
        return
    memset(acc_lo, 0, K * sizeof(real_t))
    memset(acc_hi, 0, K * sizeof(real_t))
    memset(corr, 0, K * sizeof(double))
    if start < 0:
        start = _sample_offset(s, step)
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            w = 1 if d1 == d2 else 2
            n = generate_moves(&S.ml[plies], s, d1, d2)
            c = ev_best_move(S.ev, &S.ml[plies], n, S.buf, m, S.by_delta)
            if frontier:
                # how many sampled ordered rolls are this roll: (d1, d2) or (d2, d1)
                count = 0
                o = start
                while o < 36:
                    if (o // 6 + 1 == d1 and o % 6 + 1 == d2) or (o // 6 + 1 == d2
                                                                    and o % 6 + 1 == d1):
                        count += 1
                    o += step
                if count and not board_side_empty(&S.ml[plies].boards[c], MOVER):
                    board_swap(&s2, &S.ml[plies].boards[c])
                    eval_position(S, &s2, 1, a)
                    outputs_flip(K, a, b)
                    for k in range(K):
                        corr[k] += count * (<double>b[k] - m[k])
                for k in range(K):
                    acc_lo[k] += w * m[k]
            else:
                if not board_side_empty(&S.ml[plies].boards[c], MOVER):
                    board_swap(&s2, &S.ml[plies].boards[c])
                    # siblings start at successive offsets: every roll at the frontier is
                    # drawn about equally often across them (stratified)
                    eval_pair(S, &s2, plies - 1, samples, (start + j) % step, a, b)
                    outputs_flip(K, a, m)
                    for k in range(K):
                        acc_lo[k] += w * m[k]
                    outputs_flip(K, b, m)
                    for k in range(K):
                        acc_hi[k] += w * m[k]
                else:
                    for k in range(K):
                        acc_lo[k] += w * m[k]
                        acc_hi[k] += w * m[k]
            j += 1
    for k in range(K):
        lower[k] = acc_lo[k] / 36.0
        upper[k] = <real_t>(lower[k] + corr[k] / samples) if frontier else acc_hi[k] / 36.0


cdef int search_best_move(searcher_t* S, const movelist_t* ml, int n, int plies,
                          real_t* out) noexcept nogil:
    cdef int cand[MAX_CANDIDATES]
    cdef double ceq[MAX_CANDIDATES]
    cdef real_t m[MAX_OUTPUTS]
    cdef real_t t[MAX_OUTPUTS]
    cdef board_t s
    cdef int i, j, nc = 0, best = 0, K = S.K
    cdef double e, best_e = -1e300
    if plies <= 0 or n == 1:
        return ev_best_move(S.ev, ml, n, S.buf, out, S.by_delta)
    # 0-ply screen: keep the best few, sorted by equity (insertion)
    for i in range(n):
        _mover_static(S, &ml.boards[i], m)
        e = outputs_equity(K, m)
        if nc < S.candidates or e > ceq[nc - 1]:
            j = nc if nc < S.candidates else nc - 1
            while j > 0 and ceq[j - 1] < e:
                if j < S.candidates:
                    cand[j] = cand[j - 1]
                    ceq[j] = ceq[j - 1]
                j -= 1
            cand[j] = i
            ceq[j] = e
            if nc < S.candidates:
                nc += 1
    for j in range(nc):
        if ceq[j] < ceq[0] - S.margin:
            break
        i = cand[j]
        if board_side_empty(&ml.boards[i], MOVER):
            outputs_target(K, board_win_value(&ml.boards[i], MOVER), m)
        else:
            board_swap(&s, &ml.boards[i])
            eval_position(S, &s, plies, t)
            outputs_flip(K, t, m)
        e = outputs_equity(K, m)
        if e > best_e:
            best_e = e
            best = i
            if out != NULL:
                memcpy(out, m, K * sizeof(real_t))
    return best


cdef inline void _mover_static(searcher_t* S, const board_t* after, real_t* out) noexcept nogil:
    cdef board_t s
    cdef real_t t[MAX_OUTPUTS]
    if board_side_empty(after, MOVER):
        outputs_target(S.K, board_win_value(after, MOVER), out)
        return
    board_swap(&s, after)
    eval_position(S, &s, 0, t)
    outputs_flip(S.K, t, out)


# ---------------------------------------------------------------- rollouts

cdef inline void _roll_index(int r, int* d1, int* d2) noexcept nogil:
    d1[0] = r // 6 + 1
    d2[0] = r % 6 + 1


cdef void _best_for_roll(searcher_t* S, const board_t* s, int d1, int d2, int plies,
                         board_t* after, real_t* m) noexcept nogil:
    cdef int n = generate_moves(&S.ml[TOP], s, d1, d2)
    cdef int c = search_best_move(S, &S.ml[TOP], n, plies, m)
    memcpy(after, &S.ml[TOP].boards[c], sizeof(board_t))


# The first two rolls of trial t are stratified (roll t % 36, then (t // 36) % 36) and
# every trial starts from the same position, so the plays of those two moves depend on
# the trial only through those rolls: a rollout makes each once per thread and keeps it.
cdef enum:
    MEMO_SLOTS = 36 + 36 * 36   # move 0 by its roll, move 1 by both rolls

ctypedef struct memo_entry_t:
    bint ready
    board_t after
    real_t m[MAX_OUTPUTS]       # the play's value (mover's view), when computed
    real_t avg[MAX_OUTPUTS]     # mean over the 36 rolls of the best play (variance reduction)


cdef void _decide(searcher_t* S, const board_t* s, int d1, int d2, bint vr, int plies,
                  board_t* after, real_t* m, real_t* avg) noexcept nogil:
    """The play for (d1, d2) at ``s`` into ``after``; with variance reduction, its value
    ``m`` and the mean ``avg`` over all rolls of the best play's value (mover's view)."""
    cdef board_t tmp
    cdef real_t a[MAX_OUTPUTS]
    cdef int K = S.K, x1, x2, k
    if vr:
        memset(avg, 0, K * sizeof(real_t))
        for x1 in range(1, 7):
            for x2 in range(x1, 7):
                _best_for_roll(S, s, x1, x2, 0, &tmp, a)
                for k in range(K):
                    avg[k] += (1 if x1 == x2 else 2) * a[k] / 36.0
    # the chosen play's value is needed only for the luck of a 0-ply roll
    _best_for_roll(S, s, d1, d2, plies, after, m if vr and plies == 0 else NULL)
    if vr and plies > 0:
        _mover_static(S, after, m)


cdef void _rollout_trial(searcher_t* S, memo_entry_t* memo, const board_t* start, int t,
                         uint64_t seed, int truncate, bint vr, int plies,
                         real_t* result, bint truncate_bearoff=False) noexcept nogil:
    """Outputs of one trial from the side on roll at ``start``'s view.  ``memo``: the
    thread's MEMO_SLOTS plays of the first two moves (NULL: none kept).  With
    ``truncate_bearoff`` the trial stops at the first position the evaluator's bear-off
    database values (both sides home) and takes its value."""
    cdef board_t s, after
    cdef real_t m[MAX_OUTPUTS]
    cdef real_t avg[MAX_OUTPUTS]
    cdef real_t luck[MAX_OUTPUTS]
    cdef real_t a[MAX_OUTPUTS]
    cdef real_t b[MAX_OUTPUTS]
    cdef rng_t rng
    cdef memo_entry_t* e
    cdef int K = S.K, d1, d2, k, r0 = t % 36, r1 = (t // 36) % 36, moves = 0, root_to_move = 1
    rng_seed(&rng, seed, <uint64_t>t)
    memcpy(&s, start, sizeof(board_t))
    memset(luck, 0, K * sizeof(real_t))
    while True:
        if board_side_empty(&s, OPPONENT):         # previous mover won
            outputs_target(K, -board_win_value(&s, OPPONENT), m)
            break
        if ((truncate > 0 and moves >= truncate) or moves >= MAX_GAME_PLAYS
                or (truncate_bearoff and S.ev.exact_db != NULL
                    and board_shape(&s) == CLASS_EXACT)):
            # truncated (the cap a last resort, as if truncated there), or at the database
            eval_position(S, &s, 0, m)
            break
        if moves == 0:
            _roll_index(r0, &d1, &d2)
        elif moves == 1:
            _roll_index(r1, &d1, &d2)
        else:
            rng_roll(&rng, &d1, &d2)
        if moves < 2 and memo != NULL:
            e = &memo[r0 if moves == 0 else 36 + 36 * r0 + r1]
            if not e.ready:
                _decide(S, &s, d1, d2, vr, plies, &e.after, e.m, e.avg)
                e.ready = True
            memcpy(&after, &e.after, sizeof(board_t))
            memcpy(m, e.m, K * sizeof(real_t))
            memcpy(avg, e.avg, K * sizeof(real_t))
        else:
            _decide(S, &s, d1, d2, vr, plies, &after, m, avg)
        if vr:
            # luck of this roll, put in the root's frame
            if root_to_move:
                for k in range(K):
                    luck[k] += m[k] - avg[k]
            else:
                outputs_flip(K, m, a)
                outputs_flip(K, avg, b)
                for k in range(K):
                    luck[k] += a[k] - b[k]
        moves += 1
        board_swap(&s, &after)
        root_to_move ^= 1
    # m is from the view of the side on roll at s
    if root_to_move:
        memcpy(result, m, K * sizeof(real_t))
    else:
        outputs_flip(K, m, result)
    for k in range(K):
        result[k] -= luck[k]


# ---------------------------------------------------------------- Python

cdef class Searcher:
    """n-ply evaluation and move choice with a network, with an evaluation cache.

    Parameters
    ----------
    network : Network or Evaluator
        What values positions: a network, or an evaluator (class networks, exact values).
    candidates : int
        Move filter: at most this many plays (best at 0-ply) are searched deeper, 1..32.
    margin : float
        ... and only those within ``margin`` equity of the 0-ply best (finite, >= 0).
    cache_bits : int
        The cache holds ``2**cache_bits`` evaluations (0 = no cache), 0..26.
    by_delta : bool
        Value sibling plays' first layers by difference from one of them where the network
        is wide enough to gain (contact networks from 128 units, others from 256: faster;
        outputs within 1e-5), as play and rollouts do; False: each summed in full, bit for
        bit as ``evaluate`` and as training's targets.

    Integer arguments (``candidates``, ``cache_bits``, the methods' dice, 1..6, and
    ``plies``, 0..3) are Python or numpy integers, never bools or floats, and ``margin`` a
    finite number: else ``ValueError`` naming the argument.

    A searcher may be shared by threads: its searches take turns (each holds the
    searcher's cache and move lists while it runs).
    """
    cdef searcher_t S
    cdef readonly object network        # what was given: a Network or an Evaluator
    cdef readonly Evaluator evaluator
    cdef bint ready
    cdef object lock        # one search at a time: the cache and move lists are shared

    def __init__(self, network, candidates=8, margin=0.16, cache_bits=18, *,
                 bint by_delta=True):
        cdef int nc = checked_int(candidates, "candidates", 1, MAX_CANDIDATES,
                                  f"1..{MAX_CANDIDATES}", "an integer")
        cdef int bits = checked_int(cache_bits, "cache_bits", 0, 26, "0..26", "an integer")
        cdef double mg = checked_real(margin, "margin", 0.0, float("inf"), "[0, inf)")
        cdef Evaluator ev = as_evaluator(network)
        if self.ready:
            searcher_free(&self.S)
            self.ready = False
        self.network = network
        self.evaluator = ev
        self.lock = threading.Lock()
        searcher_init(&self.S, &ev.ev, bits, nc, mg)
        self.S.by_delta = by_delta
        self.ready = True

    def __dealloc__(self):
        if self.ready:
            searcher_free(&self.S)

    @property
    def cache_stats(self) -> tuple:
        """``(hits, lookups)`` since creation."""
        return int(self.S.hits), int(self.S.lookups)

    def evaluate(self, board, plies=0) -> np.ndarray:
        """Outputs (float32, n_outputs) of ``board`` from the side on roll, at ``plies``
        (0..3)."""
        cdef int np_ = _plies(plies)
        cdef cnp.ndarray arr = validate_board(board)
        out = np.zeros(self.S.K, dtype=np.float32)
        cdef real_t[::1] ov = out
        with self.lock, nogil:
            eval_position(&self.S, <const board_t*> cnp.PyArray_DATA(arr), np_, &ov[0])
        return out

    def evaluate_sampled(self, board, plies, samples=3, offset=None) -> tuple:
        """``(lower, upper)`` (float32, n_outputs each) of ``board``, side on roll:
        ``lower`` is ``evaluate(board, plies - 1)`` and ``upper`` an unbiased estimate of
        ``evaluate(board, plies)`` whose deepest ply averages ``samples`` of the 36 rolls
        (systematic, drawn from the position's key: deterministic) instead of all of them.
        ``samples`` must divide 36; at 36 ``upper`` is ``evaluate(board, plies)`` up to
        rounding (about 1e-6).  At 3 plies and 3 samples it costs about a quarter of
        ``evaluate(board, 3)`` (equity error about 0.004 rms on self-play positions).
        ``offset`` (0..36/samples - 1) fixes where the sample starts instead; the mean of
        ``upper`` over every offset is ``evaluate(board, plies)`` (up to rounding).
        ``plies``: 2..3."""
        cdef int np_ = _plies(plies, 2)
        cdef int ns = checked_int(samples, "samples", 1, 36, "1..36", "an integer")
        if 36 % ns:
            raise ValueError(f"samples must divide 36 (1, 2, 3, 4, 6, 9, 12, 18, 36), "
                             f"got {ns}")
        cdef int start = -1
        if offset is not None:
            start = checked_int(offset, "offset", 0, 36 // ns - 1, f"0..{36 // ns - 1}",
                                "an integer")
        cdef cnp.ndarray arr = validate_board(board)
        lower = np.zeros(self.S.K, dtype=np.float32)
        upper = np.zeros(self.S.K, dtype=np.float32)
        cdef real_t[::1] lv = lower
        cdef real_t[::1] uv = upper
        with self.lock, nogil:
            eval_pair(&self.S, <const board_t*> cnp.PyArray_DATA(arr), np_, ns, start,
                      &lv[0], &uv[0])
        return lower, upper

    def best_move(self, board, d1, d2, plies=0) -> tuple:
        """``(index, outputs)``: the play chosen at ``plies`` (0..3; index into
        ``legal_afterstates(board, d1, d2)``, dice 1..6) and its outputs, mover's side."""
        cdef int np_ = _plies(plies)
        cdef int a = check_die(d1, "d1"), b = check_die(d2, "d2")
        cdef cnp.ndarray arr = validate_board(board)
        out = np.zeros(self.S.K, dtype=np.float32)
        cdef real_t[::1] ov = out
        cdef int n, c
        with self.lock, nogil:
            n = generate_moves(&self.S.ml[TOP], <const board_t*> cnp.PyArray_DATA(arr), a, b)
            c = search_best_move(&self.S, &self.S.ml[TOP], n, np_, &ov[0])
        return c, out

    def best_plays(self, board, dice, plies=0) -> tuple:
        """``(afterstates, outputs)``: :meth:`best_move` of several rolls from one
        position in one call.  ``dice``: int array-like (M, 2), each die 1..6.
        ``afterstates``: uint8 (M, 2, 25), the chosen play's position for each roll,
        the mover still in row 1 (as ``legal_afterstates``); ``outputs``: float32
        (M, K), the mover's.  Bit for bit the same as M calls of ``best_move``."""
        cdef int np_ = _plies(plies)
        cdef cnp.ndarray arr = validate_board(board)
        cdef cnp.ndarray darr = _check_dice_array(dice)
        cdef Py_ssize_t m = darr.shape[0], r
        afters = np.zeros((m, 2, 25), dtype=np.uint8)
        out = np.zeros((m, self.S.K), dtype=np.float32)
        cdef real_t[:, ::1] ov = out
        cdef const int32_t[:, ::1] dv = darr
        cdef board_t* ap = <board_t*> cnp.PyArray_DATA(afters)
        cdef const board_t* b = <const board_t*> cnp.PyArray_DATA(arr)
        cdef int n, c
        with self.lock, nogil:
            for r in range(m):
                n = generate_moves(&self.S.ml[TOP], b, dv[r, 0], dv[r, 1])
                c = search_best_move(&self.S, &self.S.ml[TOP], n, np_, &ov[r, 0])
                memcpy(&ap[r], &self.S.ml[TOP].boards[c], sizeof(board_t))
        return afters, out

    def rank_moves(self, board, d1, d2, plies=0) -> list:
        """Every legal play with its outputs and equity (mover's side) at ``plies``,
        best first: ``[(index, outputs, equity), ...]``.  Each play is searched
        at ``plies`` (no move filter), so this is for hints, not for speed."""
        from bgengine.core.movegen import legal_afterstates
        plies = _plies(plies)
        afterstates, _ = legal_afterstates(board, d1, d2)
        rows = []
        for i, after in enumerate(afterstates):
            if after[1].sum() == 0:
                from bgengine.core.board import game_result
                outputs = _target(self.S.K, game_result(after))
            else:
                outputs = _flip(self.S.K, self.evaluate(after[::-1], plies))
            rows.append((i, outputs, _equity(self.S.K, outputs)))
        rows.sort(key=lambda r: -r[2])
        return rows


def play_outputs(network, board, d1, d2, *, bint by_delta=True) -> tuple:
    """``(index, outputs)``: the 0-ply outputs (float32, (n_plays, n_outputs), mover's side)
    of every play of ``d1``-``d2`` from ``board``, in ``legal_afterstates`` order, valued as
    move choice values them (one after the other, sharing what siblings share), and the
    index of the play chosen.  ``by_delta=False``: each first layer summed in full, bit for
    bit as ``evaluate`` of the afterstate; True: by difference from a sibling (within 1e-5)
    where the network is wide enough (contact networks from 128 units, others from 256),
    else in full too."""
    cdef int a = check_die(d1, "d1"), b = check_die(d2, "d2")
    cdef Evaluator ev = as_evaluator(network)
    cdef cnp.ndarray arr = validate_board(board)
    cdef movelist_t ml
    cdef siblings_t* V = <siblings_t*> malloc(sizeof(siblings_t))
    cdef netbuf_t* buf = <netbuf_t*> malloc(sizeof(netbuf_t))
    cdef int n, i, c
    cdef real_t[:, ::1] ov
    movelist_init(&ml)
    try:
        if V == NULL or buf == NULL:
            raise MemoryError()
        n = generate_moves(&ml, <const board_t*> cnp.PyArray_DATA(arr), a, b)
        out = np.zeros((n, ev.ev.K), dtype=np.float32)
        ov = out
        with nogil:
            siblings_init(V, by_delta)
            for i in range(n):
                sibling_outputs(V, &ev.ev, &ml, i, buf, &ov[i, 0])
            c = ev_best_move(&ev.ev, &ml, n, buf, NULL, by_delta) if n > 1 else 0
    finally:
        movelist_free(&ml)
        free(V)
        free(buf)
    return c, out


def _target(int K, int v) -> np.ndarray:
    out = np.zeros(K, dtype=np.float32)
    cdef real_t[::1] ov = out
    outputs_target(K, v, &ov[0])
    return out


def _flip(int K, v) -> np.ndarray:
    src = np.ascontiguousarray(v, dtype=np.float32)
    out = np.zeros(K, dtype=np.float32)
    cdef real_t[::1] sv = src, ov = out
    outputs_flip(K, &sv[0], &ov[0])
    return out


def _equity(int K, v) -> float:
    src = np.ascontiguousarray(v, dtype=np.float32)
    cdef real_t[::1] sv = src
    return outputs_equity(K, &sv[0])


def rollout(network, board, trials=1296, *, seed=0, truncate=0,
            bint variance_reduction=False, plies=0, n_threads=1, first_trial=0,
            bint by_delta=True, bint truncate_bearoff=False):
    """Monte-Carlo rollout of ``board`` (side on roll to roll next).

    Parameters
    ----------
    trials : int
        Number of games played out, 1..``MAX_TRIALS`` (10**7); multiples of 1296 stratify
        the first two rolls exactly.
    truncate : int
        Stop after this many plays and use the network's estimate (0 = play to the end),
        0..``MAX_TRUNCATE`` (10000: every game stops there anyway).
    variance_reduction : bool
        Subtract each roll's luck (36 times the evaluations per play).
    plies : int
        Plies used to choose the plays (0 = the network alone), 0..3.
    n_threads : int
        Threads over trials, 1..256; results do not depend on it.
    first_trial : int
        The number of the first trial (its dice): trials ``first_trial`` ..
        ``first_trial + trials - 1`` are played, all in 0..2**31-2.
    by_delta : bool
        Value sibling plays' first layers by difference from one of them where the network
        is wide enough to gain (as ``Searcher``); False: every one summed in full.
    truncate_bearoff : bool
        Stop a trial at the first position the evaluator's bear-off database values (both
        sides' checkers all home) and take the database's value there, as gnubg's
        "truncate at exact bear-off database" does: the same value in expectation where the
        trials would play the bear-off by the database, and no noise from it.  No effect
        without a database.

    The trials play with the evaluator's networks and bear-off database; an evaluator's
    race refinement (``race_gammons``) is not used inside a rollout, whose thousands of
    new races would cost about 100 times the networks' values there.

    Ctrl-C stops the trials (each thread finishes the one it is playing) and raises
    ``KeyboardInterrupt``, as does any signal handler that raises, in the main thread.

    Returns
    -------
    dict: ``outputs`` (mean, n_outputs), ``equity`` (mean cubeless equity),
    ``stderr`` (standard error of the equity), ``outputs_stderr``, ``trials``,
    and ``per_trial`` (trials, n_outputs) float32.

    The integer arguments are Python or numpy integers (not bools or floats): else, or out
    of their ranges, ``ValueError`` naming the argument, before anything is allocated.
    """
    cdef Py_ssize_t n_trials, first
    cdef int trunc, np_
    n_trials, trunc, first, np_ = _rollout_arguments(trials, truncate, first_trial, plies)
    cdef int nt = check_threads(n_threads)
    cdef uint64_t sd = check_seed(seed)
    cdef cnp.ndarray arr = validate_board(board)
    cdef const board_t* b = <const board_t*> cnp.PyArray_DATA(arr)
    cdef Evaluator ev = as_evaluator(network)
    cdef int K = ev.ev.K
    per = np.zeros((n_trials, K), dtype=np.float32)
    cdef real_t[:, ::1] pv = per
    cdef workspaces_t W
    # the first two moves' plays, per thread (worth it once trials repeat the rolls)
    cdef memo_entry_t* memo = NULL
    cdef Py_ssize_t t
    cdef interrupt_t it
    cdef ev_frozen_t frozen         # the weights stay put during the rollout
    pending = []
    interrupt_init(&it, pending)
    workspaces_init(&W, nt)
    frozen.buf = NULL
    try:
        if n_trials > 36:
            memo = <memo_entry_t*> zeroed_or_raise(nt, MEMO_SLOTS * sizeof(memo_entry_t))
        # the trials play with the networks alone: a rollout meets thousands of new races,
        # whose one-sided distributions (racegammon) would cost 100x the networks' values
        ev_freeze(&ev.ev, &frozen, False)
        workspaces_add_searchers(&W, 0, &frozen.ev, 16 if np_ > 0 else 0, 8, 0.16)
        for t in range(nt):
            W.searchers[0][t].by_delta = by_delta
        with nogil:
            for t in prange(n_trials, schedule="dynamic", num_threads=nt):
                if not interrupt_poll(&it, threadid() == 0):
                    _rollout_trial(&W.searchers[0][threadid()],
                                   memo + threadid() * MEMO_SLOTS if memo != NULL else NULL,
                                   b, <int>(first + t), sd, trunc, variance_reduction,
                                   np_, &pv[t, 0], truncate_bearoff)
        if pending:
            raise pending[0]
    finally:
        workspaces_free(&W)
        ev_frozen_free(&frozen)
        free(memo)
    return dict(_rollout_summary(per), per_trial=per)


def _rollout_arguments(trials, truncate, first_trial, plies) -> tuple:
    """The checked (trials, truncate, first_trial, plies) of a rollout (``rollout``'s
    ranges; ``ValueError`` naming the argument)."""
    n_trials = checked_int(trials, "trials", 1, MAX_TRIALS, "1..10**7", "an integer")
    trunc = checked_int(truncate, "truncate", 0, MAX_TRUNCATE, f"0..{MAX_TRUNCATE}",
                        "an integer")
    first = checked_int(first_trial, "first_trial", 0, 2**31 - 2, "0..2**31-2", "an integer")
    if first + n_trials > 2**31 - 1:
        raise ValueError(f"trials first_trial .. first_trial + trials - 1 must lie in 0..2**31 - 2, "
                         f"got first_trial={first}, trials={n_trials}")
    return n_trials, trunc, first, _plies(plies)


def _rollout_summary(per) -> dict:
    """Mean outputs, cubeless equity and their standard errors of per-trial outputs
    ``per`` (trials, K): ``rollout``'s result without ``per_trial``."""
    per64 = per.astype(np.float64)
    eq = equity_of(per64)
    n_trials = per.shape[0]
    n = float(n_trials)
    return {
        "outputs": per64.mean(axis=0),
        "outputs_stderr": (per64.std(axis=0, ddof=1) / np.sqrt(n) if n_trials > 1
                           else np.full(per.shape[1], np.inf)),
        "equity": float(eq.mean()),
        "stderr": float(eq.std(ddof=1) / np.sqrt(n)) if n_trials > 1 else float("inf"),
        "trials": int(n_trials),
    }
