"""One-sided race distributions, and the race values they give.

In a race (no contact left) each side's progress depends on its own checkers and dice
alone.  For one side's position this module computes, from the rules:

- the distribution of the number of rolls it needs to bear off its **first** checker
  (while it has all 15 on the board), and
- the distribution of the number of rolls it needs to bear off **all** its checkers, and
- the distribution of the number of rolls it needs to take its last checker out of the
  other side's home board (its points 19..24), for backgammons,

each playing every roll to minimise the expected number, by a memoised recursion over the
side's own positions that ends where every checker is home, in the one-sided bear-off
database (``bgengine.bearoff``).  While a checker is still outside the home board the
recursion plays only moves that leave the home checkers where they are (unless every
legal move moves one, or the move brings every checker home): moving a home checker
deeper then only wastes pips, and the restriction cuts the positions to solve by a
factor of 100 to 1000 (a side with two checkers outside needs a few hundred).  It
costs a few thousandths of a roll at most where a side with few checkers would do better
to move a home checker (tested against the unrestricted recursion).

From these follow a race's win, gammon and backgammon chances, as the bear-off database
gives them when both sides are home: the side on roll wins when it bears off its last
checker in its n-th roll while the other side needs at least n rolls to bear off its
last, and a gammon when the other needs at least n to bear off its first (the two sides
taken as independent, which they are in a race, but for the rare play one side would
choose differently knowing the other's rolls; and each side plays to minimise its
expected rolls, not to maximise its chances against the other's).
:meth:`RaceGammonTables.refine` puts these in place of a race network's values where
both sides have few enough checkers outside their home boards for the recursion to be
quick (``max_outside``).  An :class:`~bgengine.evaluator.Evaluator` made with
``race_gammons=True`` does so for every race it values: measured by rollouts at the race
decisions of 200 games against GNU Backgammon 0-ply, its plays gain +0.0028 ppg per game
over the race network's alone (``docs/strength.md``, session 20).

Solved positions are cached (up to ``max_entries``, then the cache starts over), so a
game, a decision's afterstates or a rollout's trials pay for each position once.  The
cache is guarded by a lock: threads may share one object.
"""

import threading

import numpy as np
cimport numpy as cnp
from cpython.pythread cimport (PyThread_allocate_lock, PyThread_free_lock,
                               PyThread_acquire_lock, PyThread_release_lock, WAIT_LOCK)
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memset, memcmp

from bgengine._types cimport checker_t, key_t, real_t
from bgengine.board cimport board_t, board_key, N_SLOTS
from bgengine.bearoff cimport (BearoffDatabase, bearoff_t, bo_rank, bo_first_before, BO_FIRST_15,
                               BO_MAX_ROLLS, BO_ROLL_D1, BO_ROLL_D2, BO_ROLL_W)
from bgengine.movegen cimport movelist_t, movelist_init, movelist_free, generate_moves

from bgengine.board import validate_board

cnp.import_array()

FIRST = RG_FIRST
ALL = RG_ALL
ESCAPE = RG_ESCAPE
ROLLS = RG_ROLLS

# keep a row's modes apart in the table
cdef key_t MODE_SALT[3]
MODE_SALT[0] = 0
MODE_SALT[1] = 0x9E3779B97F4A7C15ULL
MODE_SALT[2] = 0xC2B2AE3D27D4EB4FULL

# ---------------------------------------------------------------- one side's checkers

cdef inline int _checkers(const checker_t* row) noexcept nogil:
    cdef int i, n = 0
    for i in range(N_SLOTS):
        n += row[i]
    return n


cdef inline int _outside(const checker_t* row) noexcept nogil:
    """Checkers off the home points (the bar included)."""
    cdef int i, n = 0
    for i in range(6, N_SLOTS):
        n += row[i]
    return n


cdef inline bint _in_far_quarter(const checker_t* row) noexcept nogil:
    """A checker on its points 19..24 (the other side's home board) or the bar."""
    cdef int i
    for i in range(18, N_SLOTS):
        if row[i]:
            return True
    return False


cdef inline bint _keeps_home(const checker_t* before, const checker_t* after) noexcept nogil:
    """The move left every home checker where it was (its home points only gained), or
    brought every checker home."""
    cdef int i
    if _outside(after) == 0:
        return True
    for i in range(6):
        if after[i] < before[i]:
            return False
    return True


cdef inline double _mean(const double* d) noexcept nogil:
    cdef double m = 0.0
    cdef int n
    for n in range(1, RG_ROLLS):
        m += n * d[n]
    return m


cdef inline void _at_zero(double* d) noexcept nogil:
    memset(d, 0, RG_ROLLS * sizeof(double))
    d[0] = 1.0


cdef double _home(const bearoff_t* db, const checker_t* row, int mode, double* out) noexcept nogil:
    """Every checker home (or none left): the database's distribution in ``out`` (unless
    NULL); returns its mean."""
    cdef int i = bo_rank(row)
    if mode == RG_ALL:
        if out != NULL:
            memcpy(out, db.dist + <Py_ssize_t>i * BO_MAX_ROLLS, RG_ROLLS * sizeof(double))
        return db.mean[i]
    if i >= BO_FIRST_15:
        if out != NULL:
            memcpy(out, db.first + <Py_ssize_t>(i - BO_FIRST_15) * BO_MAX_ROLLS,
                   RG_ROLLS * sizeof(double))
        return db.mean_first[i - BO_FIRST_15]
    if out != NULL:
        _at_zero(out)                   # a checker is already off
    return 0.0


# ---------------------------------------------------------------- the cache

cdef rg_entry_t* _slot(rg_tables_t* t, const checker_t* row, key_t key, int mode) noexcept nogil:
    """The entry of (row, mode), or the empty slot where it goes."""
    cdef Py_ssize_t mask = t.n_slots - 1
    cdef Py_ssize_t s = <Py_ssize_t>(key & <key_t>mask)
    cdef rg_entry_t* e
    while True:
        e = &t.table[s]
        if not e.used:
            return e
        if e.key == key and e.mode == mode and memcmp(e.row, row, N_SLOTS) == 0:
            return e
        s = (s + 1) & mask


cdef int _grow(rg_tables_t* t) noexcept nogil:
    """Double the table (or empty it at max_slots).  0 on success, -1 out of memory."""
    cdef Py_ssize_t n = t.n_slots * 2, i
    cdef rg_entry_t* old = t.table
    cdef rg_entry_t* e
    cdef Py_ssize_t old_n = t.n_slots
    if n > t.max_slots:
        memset(t.table, 0, t.n_slots * sizeof(rg_entry_t))
        t.count = 0
        return 0
    t.table = <rg_entry_t*> calloc(n, sizeof(rg_entry_t))
    if t.table == NULL:
        t.table = old
        return -1
    t.n_slots = n
    for i in range(old_n):
        if old[i].used:
            e = _slot(t, old[i].row, old[i].key, old[i].mode)
            memcpy(e, &old[i], sizeof(rg_entry_t))
    free(old)
    return 0


cdef int _store(rg_tables_t* t, const checker_t* row, key_t key, int mode,
                const double* d, double mean) noexcept nogil:
    cdef rg_entry_t* e
    cdef int n
    if 2 * (t.count + 1) > t.n_slots and _grow(t) < 0:
        return -1
    e = _slot(t, row, key, mode)
    if not e.used:
        e.used = 1
        e.key = key
        e.mode = <unsigned char>mode
        memcpy(e.row, row, N_SLOTS)
        t.count += 1
    e.mean = mean
    for n in range(RG_ROLLS):
        e.dist[n] = <float>d[n]
    return 0


# ---------------------------------------------------------------- the recursion

cdef int _solve(rg_tables_t* t, const checker_t* row, key_t key, int mode, int depth,
                double* out, double* mean) noexcept nogil:
    """mean = the expected rolls of (row, mode), and out = its distribution unless out is
    NULL (plays are compared by their means alone, and only the best one's distribution is
    read).  1 when done, 0 when the query's budget or the depth ran out, -1 out of
    memory."""
    cdef double acc[RG_ROLLS]
    cdef double best[RG_ROLLS]
    cdef double m, bm
    cdef int r, i, n, rc, any_keeps, bi
    cdef const checker_t* a
    cdef rg_entry_t* e
    cdef board_t b
    cdef movelist_t* ml
    if mode == RG_ESCAPE:
        if not _in_far_quarter(row):
            if out != NULL:
                _at_zero(out)
            mean[0] = 0.0
            return 1
    elif _outside(row) == 0:
        mean[0] = _home(t.db, row, mode, out)
        return 1
    key ^= MODE_SALT[mode]
    e = _slot(t, row, key, mode)
    if e.used:
        if out != NULL:
            for n in range(RG_ROLLS):
                out[n] = e.dist[n]
        mean[0] = e.mean
        return 1
    if t.budget <= 0 or depth >= RG_MAX_DEPTH:
        return 0
    t.budget -= 1
    while t.ml_ready <= depth:
        if movelist_init(&t.ml[t.ml_ready]) < 0:
            return -1
        t.ml_ready += 1
    ml = &t.ml[depth]
    memset(&b, 0, sizeof(board_t))
    memcpy(b.c[1], row, N_SLOTS)
    memset(acc, 0, sizeof(acc))
    for r in range(21):
        n = generate_moves(ml, &b, BO_ROLL_D1[r], BO_ROLL_D2[r])
        if n < 0:
            return -1
        any_keeps = 0
        for i in range(n):
            if _keeps_home(row, ml.boards[i].c[1]):
                any_keeps = 1
                break
        bm = 1e300
        bi = -1
        for i in range(n):
            a = ml.boards[i].c[1]
            if any_keeps and not _keeps_home(row, a):
                continue
            if mode == RG_FIRST and _checkers(a) < 15:
                m = 0.0                     # a checker is off in this roll
            else:
                # the afterstate's key (its other row is empty): the list's own key
                rc = _solve(t, a, ml.keys[i], mode, depth + 1, NULL, &m)
                if rc <= 0:
                    return rc
            if m < bm:
                bm = m
                bi = i
                if m == 0.0:
                    break
        a = ml.boards[bi].c[1]
        if mode == RG_FIRST and _checkers(a) < 15:
            _at_zero(best)
        else:
            rc = _solve(t, a, ml.keys[bi], mode, depth + 1, best, &m)
            if rc <= 0:
                return rc
        for n in range(RG_ROLLS - 2):
            acc[n + 1] += BO_ROLL_W[r] * best[n]
        acc[RG_ROLLS - 1] += BO_ROLL_W[r] * (best[RG_ROLLS - 2] + best[RG_ROLLS - 1])   # the tail stays
    for n in range(RG_ROLLS):
        # rounded as the cache keeps it, so that a value is the same whether it was just
        # solved or read back (evaluations do not depend on what was asked before)
        acc[n] = <float>(acc[n] / 36.0)
    mean[0] = _mean(acc)
    if out != NULL:
        memcpy(out, acc, sizeof(acc))
    if _store(t, row, key, mode, acc, mean[0]) < 0:
        return -1
    t.solved += 1
    return 1


cdef int rg_distribution(rg_tables_t* t, const checker_t* row, int mode,
                         double* out) noexcept nogil:
    """The distribution of one side's row (25 slots, its own numbering) in ``mode``, with a
    fresh budget of ``t.state_budget`` new positions.  1 when done, 0 over budget, -1 out
    of memory.  The caller holds ``t.lock``."""
    cdef board_t b
    memset(&b, 0, sizeof(board_t))
    memcpy(b.c[1], row, N_SLOTS)
    cdef double mean
    t.budget = t.state_budget
    t.queries += 1
    return _solve(t, row, board_key(&b), mode, 0, out, &mean)


cdef int _gammon(rg_tables_t* t, const checker_t* winner, const checker_t* loser, int later,
                 double* p) noexcept nogil:
    """p[0] = P(winner bears off all before loser bears off one), p[1] = P(... before the
    loser has left the winner's home board); 1 when computed, 0 when not (too many
    checkers outside, over budget, out of memory)."""
    cdef double all_off[RG_ROLLS]
    cdef double other[RG_ROLLS]
    if (rg_distribution(t, winner, RG_ALL, all_off) <= 0
            or rg_distribution(t, loser, RG_FIRST, other) <= 0):
        t.refused += 1
        return 0
    p[0] = bo_first_before(all_off, other, later)
    p[1] = 0.0
    if _in_far_quarter(loser):
        if rg_distribution(t, loser, RG_ESCAPE, other) <= 0:
            t.refused += 1
            return 0
        p[1] = bo_first_before(all_off, other, later)
    return 1


cdef int rg_refine5(void* tables, const checker_t* on_roll, const checker_t* other,
                    real_t* out5) noexcept nogil:
    """Put one-sided values in a race's five outputs (gnubg's form, of the side on roll,
    whose row is ``on_roll``; ``other`` is the other side's).  Gammons and backgammons
    against a side that has borne a checker off are 0.  Where both sides have at most
    ``max_outside`` checkers outside their home boards (and the recursion stays in
    budget): the win chance from the two sides' bear-off distributions (when the tables
    refine wins), and the gammon and backgammon chances against a side with all 15 on
    the board from its first-off and escape distributions.  The win chance is then moved
    only as far as the gammons need.  Returns 1 when anything was replaced."""
    cdef rg_tables_t* t = <rg_tables_t*> tables
    cdef double p[2]
    cdef double a_on[RG_ROLLS]
    cdef double a_other[RG_ROLLS]
    cdef int done = 0
    cdef bint near = (_outside(on_roll) <= t.max_outside and
                      _outside(other) <= t.max_outside)
    if _checkers(other) < 15:
        out5[1] = 0
        out5[2] = 0
        done = 1
    if _checkers(on_roll) < 15:
        out5[3] = 0
        out5[4] = 0
        done = 1
    if near:
        PyThread_acquire_lock(t.lock, WAIT_LOCK)
        if (t.wins and rg_distribution(t, on_roll, RG_ALL, a_on) > 0
                and rg_distribution(t, other, RG_ALL, a_other) > 0):
            out5[0] = <real_t>bo_first_before(a_on, a_other, 0)
            done = 1
        if _checkers(other) == 15 and _gammon(t, on_roll, other, 0, p):
            out5[1] = <real_t>p[0]              # the side on roll wins a gammon
            out5[2] = <real_t>p[1]
            done = 1
        if _checkers(on_roll) == 15 and _gammon(t, other, on_roll, 1, p):
            out5[3] = <real_t>p[0]              # the other side, rolling second, does
            out5[4] = <real_t>p[1]
            done = 1
        PyThread_release_lock(t.lock)
    if done:
        if out5[0] < out5[1]:
            out5[0] = out5[1]
        if out5[0] > 1 - out5[3]:
            out5[0] = 1 - out5[3]
        if out5[2] > out5[1]:
            out5[2] = out5[1]
        if out5[4] > out5[3]:
            out5[4] = out5[3]
    return done


# ---------------------------------------------------------------- Python API

cdef class RaceGammonTables:
    """Cached one-sided race distributions (see the module docstring).

    Parameters
    ----------
    database : BearoffDatabase, optional
        The one-sided bear-off database the recursion ends in; the shared one by default.
    max_outside : int
        :meth:`refine` replaces a race's values only when each side has at most this many
        checkers outside its home board (3: a new race solves a few thousand positions, a
        few milliseconds; 4 takes about ten times as long, 5 a hundred).
    state_budget : int
        New positions one query may solve before it gives up (the network's value stands): a
        guard against runaway queries, far above what ``max_outside`` up to 3 needs, so that
        values do not depend on what the cache already held.
    max_entries : int
        Cached positions at most (about 170 bytes each, in a table at most half full: 88 MB
        at the default); the cache starts over past it.
    wins : bool
        Replace the win chance too (else only gammons and backgammons).
    """

    def __cinit__(self, database=None, int max_outside=3, long state_budget=200000,
                  Py_ssize_t max_entries=1 << 18, bint wins=True):
        from bgengine.bearoff import default
        if database is None:
            database = default()
        if not isinstance(database, BearoffDatabase):
            raise TypeError(f"database must be a BearoffDatabase, got {type(database).__name__}")
        if not 0 <= max_outside <= 15:
            raise ValueError(f"max_outside must be 0..15, got {max_outside}")
        if state_budget < 1:
            raise ValueError(f"state_budget must be at least 1, got {state_budget}")
        if max_entries < 1024:
            raise ValueError(f"max_entries must be at least 1024, got {max_entries}")
        self.database = database
        self.t.db = &(<BearoffDatabase> database).db
        self.t.n_slots = 1024
        self.t.max_slots = 1024
        while self.t.max_slots < 2 * max_entries:
            self.t.max_slots *= 2
        self.t.max_outside = max_outside
        self.t.state_budget = state_budget
        self.t.wins = wins
        self.t.table = <rg_entry_t*> calloc(self.t.n_slots, sizeof(rg_entry_t))
        self.t.lock = PyThread_allocate_lock()
        if self.t.table == NULL or self.t.lock == NULL:
            raise MemoryError()

    def __dealloc__(self):
        cdef int i
        for i in range(self.t.ml_ready):
            movelist_free(&self.t.ml[i])
        free(self.t.table)
        if self.t.lock != NULL:
            PyThread_free_lock(self.t.lock)

    def __reduce__(self):
        return (RaceGammonTables, (self.database, self.t.max_outside, self.t.state_budget,
                                   self.t.max_slots // 2, self.t.wins))

    def __repr__(self) -> str:
        return (f"RaceGammonTables(max_outside={self.t.max_outside}, "
                f"state_budget={self.t.state_budget}, wins={bool(self.t.wins)}, "
                f"cached={self.t.count})")

    @property
    def max_outside(self) -> int:
        return self.t.max_outside

    @property
    def stats(self) -> dict:
        """Counters: ``queries`` (distributions asked for), ``solved`` (positions solved by
        the recursion), ``refused`` (queries over budget), ``cached`` (positions held)."""
        return {"queries": self.t.queries, "solved": self.t.solved, "refused": self.t.refused,
                "cached": self.t.count}

    def clear(self) -> None:
        """Forget every cached position."""
        with nogil:
            PyThread_acquire_lock(self.t.lock, WAIT_LOCK)
            memset(self.t.table, 0, self.t.n_slots * sizeof(rg_entry_t))
            self.t.count = 0
            PyThread_release_lock(self.t.lock)

    def _distribution(self, row, int mode):
        a = np.asarray(row)
        if a.shape != (N_SLOTS,):
            raise ValueError(f"a side's row must have shape (25,), got {a.shape}")
        if a.dtype.kind not in "iub" or (a < 0).any() or a.sum() > 15:
            raise ValueError(f"a side's row must be 0..15 checkers in all, got {a.tolist()}")
        if a[24]:
            raise ValueError("a checker on the bar is not in a race")
        cdef checker_t r[N_SLOTS]
        cdef int i, rc
        for i in range(N_SLOTS):
            r[i] = <checker_t>a[i]
        if mode == RG_FIRST and _checkers(r) != 15:
            raise ValueError("the first checker off is asked of a side with all 15 on the board")
        out = np.zeros(RG_ROLLS, np.float64)
        cdef double[::1] o = out
        with nogil:
            PyThread_acquire_lock(self.t.lock, WAIT_LOCK)
            rc = rg_distribution(&self.t, r, mode, &o[0])
            PyThread_release_lock(self.t.lock)
        if rc < 0:
            raise MemoryError("race distribution tables")
        return out if rc > 0 else None

    def first_off_distribution(self, row) -> np.ndarray | None:
        """float64 (32,): P(a side with all 15 checkers on the board, ``row`` (25,) in its
        own numbering, bears off its first checker in exactly n rolls), playing to
        minimise the expected number; None when it needs more than ``state_budget`` new
        positions."""
        return self._distribution(row, RG_FIRST)

    def escape_distribution(self, row) -> np.ndarray | None:
        """float64 (32,): P(the side has no checker left on its points 19..24 after
        exactly n rolls), playing to minimise the expected number; None over budget."""
        return self._distribution(row, RG_ESCAPE)

    def bear_off_distribution(self, row) -> np.ndarray | None:
        """float64 (32,): P(the side bears off all its checkers in exactly n rolls),
        playing to minimise the expected number; None over budget."""
        return self._distribution(row, RG_ALL)

    def refine(self, board, outputs) -> np.ndarray:
        """A race's five outputs (gnubg's form, side on roll = row 1 of ``board`` (2, 25))
        with the win, gammon and backgammon chances taken from the one-sided distributions
        where they can be (the module docstring says where).  ``outputs``: float (5,), the
        race network's; returns a new float32 (5,)."""
        cdef cnp.ndarray arr = validate_board(board)
        cdef const board_t* bp = <const board_t*> cnp.PyArray_DATA(arr)
        res = np.array(outputs, dtype=np.float32).reshape(-1)
        if res.shape != (5,):
            raise ValueError(f"outputs must be the five of gnubg's form, got shape {res.shape}")
        cdef real_t[::1] rv = res
        with nogil:
            rg_refine5(&self.t, bp.c[1], bp.c[0], &rv[0])
        return res


_shared = {}
_shared_lock = threading.Lock()


def default(max_outside: int = 3) -> RaceGammonTables:
    """The shared :class:`RaceGammonTables` of the process for ``max_outside`` (made on
    first use, one per value; their caches grow as positions are asked for)."""
    tables = _shared.get(max_outside)
    if tables is None:
        with _shared_lock:
            tables = _shared.get(max_outside)
            if tables is None:
                tables = _shared[max_outside] = RaceGammonTables(max_outside=max_outside)
    return tables
