"""A small pure-Python implementation of the backgammon rules: the reference
that the compiled move generator (``bgengine.core.movegen``) is tested against.

It is written to be obviously correct, not fast: plain tuples and lists, no
numpy, no shortcuts beyond "positions already reached are not explored twice".

Conventions (the same as the compiled core, see the README's board convention)
-----------------------------------------------------------------------------
* A board is any nested sequence of shape (2, 25) of non-negative ints
  (tuples, lists or a numpy array).  Row 1 is the side on roll (the *mover*),
  row 0 its opponent.  ``row[i]`` for i in 0..23 is that side's own point
  ``i + 1``; ``row[24]`` is its bar.  Borne off = ``15 - sum(row)``.
* The opponent's point ``q`` (its numbering) is the mover's point ``25 - q``,
  so the opponent's checkers on the mover's point ``p`` are ``row0[24 - p]``.
* Points in steps are in the mover's numbering: 1..24, 25 = bar, 0 = off.
  The mover moves down: from point ``p`` with die ``d`` to ``p - d``;
  ``p - d <= 0`` means bearing off.

What :func:`legal_plays` returns
--------------------------------
A dict ``{afterstate: steps}`` where

* ``afterstate`` is a **tuple of two 25-tuples** ``(row0, row1)`` -- exactly
  ``tuple(tuple(row) for row in board)`` of the resulting position, the mover
  still in row 1 (NOT swapped);
* ``steps`` is one sequence reaching it: a tuple of ``(from, to)`` pairs, one
  per die played (so its length is the number of dice used; every value of the
  dict has the same length).

The keys are the unique legal afterstates.  With no legal play the dict holds
exactly one entry: the unchanged board with ``steps == ()``.

Rules applied
-------------
* A checker on the bar must enter before any other checker moves.
* A point holding two or more opponent checkers is blocked; landing on a
  single opponent checker hits it (it goes to the opponent's bar, ``row0[24]``).
* Bearing off only when all 15 - off checkers are on points 1..6; an exact die
  bears off from its point; a larger die bears off from the highest occupied
  point only (no checker on a higher point).
* Doubles give four moves of the same size; otherwise the two dice may be
  played in either order.
* Among all sequences keep those that play the most dice; if that is one die
  of a non-double and the larger die can be played, only plays of the larger
  die count (gnubg's semantics).
"""

from __future__ import annotations

from itertools import permutations

N_CHECKERS = 15
BAR = 25   # the bar, in point numbering
OFF = 0    # borne off, in point numbering

State = tuple  # (row0: tuple[int, ...] of 25, row1: tuple[int, ...] of 25)


# --------------------------------------------------------------- positions

def to_state(board) -> State:
    """``board`` as ``(row0, row1)``, two 25-tuples of Python ints.

    Checks the shape and that counts are non-negative with at most 15 per side
    and no point held by both sides; raises ``ValueError`` otherwise.
    """
    rows = [tuple(map(int, row)) for row in board]
    if len(rows) != 2 or any(len(row) != 25 for row in rows):
        raise ValueError("board must be 2 rows of 25 counts")
    opp, me = rows
    if min(opp) < 0 or min(me) < 0:
        raise ValueError("negative checker count")
    if sum(opp) > N_CHECKERS or sum(me) > N_CHECKERS:
        raise ValueError("more than 15 checkers on a side")
    for point in range(1, 25):
        if me[point - 1] > 0 and opp[24 - point] > 0:
            raise ValueError(f"point {point} held by both sides")
    return (opp, me)


def is_valid(board) -> bool:
    try:
        to_state(board)
    except (ValueError, TypeError):
        return False
    return True


def pips(board) -> tuple[int, int]:
    """``(mover pips, opponent pips)``: a checker on point p needs p pips, the bar 25."""
    opp, me = to_state(board)
    mover = sum(me[i] * (i + 1) for i in range(25))
    opponent = sum(opp[i] * (i + 1) for i in range(25))
    return mover, opponent


def _win_value(winner_row, loser_row) -> int:
    """Points won when ``winner_row`` has borne off everything."""
    if sum(loser_row) < N_CHECKERS:
        return 1                                  # the loser bore off at least one
    # The winner's home board (its points 1..6) is the loser's points 19..24,
    # i.e. loser indices 18..23; index 24 is the loser's bar.
    if any(loser_row[i] > 0 for i in range(18, 25)):
        return 3                                  # backgammon
    return 2                                      # gammon


def result(board) -> int:
    """0 while the game goes on; +1/+2/+3 if the mover (row 1) has borne off
    all its checkers (single, gammon, backgammon); -1/-2/-3 if row 0 has."""
    opp, me = to_state(board)
    if sum(me) == 0:
        return _win_value(me, opp)
    if sum(opp) == 0:
        return -_win_value(opp, me)
    return 0


def swap(board) -> State:
    """The same position with the other side on roll."""
    opp, me = to_state(board)
    return (me, opp)


# --------------------------------------------------------------- one step

def all_home(me) -> bool:
    """True if every mover checker still in play is on points 1..6."""
    return all(me[i] == 0 for i in range(6, 25))   # points 7..24 and the bar


def single_step(state: State, src: int, die: int):
    """Move one mover checker from point ``src`` (25 = bar) by ``die``.

    Returns ``(to, new_state)``, or ``None`` when that is not a legal move.
    """
    opp, me = state
    if me[src - 1] == 0:
        return None                               # no checker there
    if src != BAR and me[BAR - 1] > 0:
        return None                               # must enter from the bar first
    dst = src - die
    if dst >= 1:
        if opp[24 - dst] >= 2:
            return None                           # blocked point
    else:
        if not all_home(me):
            return None                           # bearing off needs all checkers home
        if dst < 0:
            # A larger die than needed: only from the highest occupied point.
            higher_points = range(src + 1, 7)
            if any(me[p - 1] > 0 for p in higher_points):
                return None
        dst = OFF
    new_me = list(me)
    new_opp = list(opp)
    new_me[src - 1] -= 1
    if dst != OFF:
        new_me[dst - 1] += 1
        if new_opp[24 - dst] == 1:                # hit a blot
            new_opp[24 - dst] = 0
            new_opp[24] += 1
    return dst, (tuple(new_opp), tuple(new_me))


def single_steps(state: State, die: int) -> list:
    """Every legal move of one checker by ``die``: ``[((from, to), new_state), ...]``."""
    moves = []
    for src in range(25, 0, -1):
        played = single_step(state, src, die)
        if played is not None:
            dst, new_state = played
            moves.append(((src, dst), new_state))
    return moves


# --------------------------------------------------------------- full plays

def _check_die(d) -> int:
    if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6:
        raise ValueError(f"die must be an int 1..6, got {d!r}")
    return d


def _levels(start: State, order) -> list[dict]:
    """Positions reachable by playing the dice of ``order`` in that order.

    ``levels[k]`` maps each position reachable after exactly ``k`` dice to the
    first step sequence found for it.  Stops at the first die that cannot be
    played anywhere (so ``len(levels) - 1`` dice are playable in this order).
    """
    levels = [{start: ()}]
    for die in order:
        reached = {}
        for state, steps in levels[-1].items():
            for step, new_state in single_steps(state, die):
                if new_state not in reached:
                    reached[new_state] = steps + (step,)
        if not reached:
            break
        levels.append(reached)
    return levels


def legal_plays(board, d1: int, d2: int) -> dict:
    """The unique legal afterstates of ``board`` for the roll ``d1``-``d2``.

    See the module docstring for the format.
    """
    start = to_state(board)
    d1, d2 = _check_die(d1), _check_die(d2)
    if d1 == d2:
        orders = [(d1, d1, d1, d1)]
    else:
        orders = [(d1, d2), (d2, d1)]
    all_levels = [_levels(start, order) for order in orders]
    most = max(len(levels) - 1 for levels in all_levels)    # most dice playable

    if most == 0:
        return {start: ()}                                   # no legal play

    if most == 1 and d1 != d2:
        # Only one die can be played: the larger one if it can be played at all.
        larger_first = all_levels[0] if d1 > d2 else all_levels[1]
        if len(larger_first) > 1:
            return dict(larger_first[1])
        smaller_first = all_levels[1] if d1 > d2 else all_levels[0]
        return dict(smaller_first[1])

    plays = {}
    for levels in all_levels:
        if len(levels) - 1 == most:
            for state, steps in levels[most].items():
                plays.setdefault(state, steps)
    return plays


def max_dice(board, d1: int, d2: int) -> int:
    """How many dice a legal play of ``d1``-``d2`` uses (0..4)."""
    return len(next(iter(legal_plays(board, d1, d2).values())))


# --------------------------------------------------------------- replaying

def replay(board, steps, d1: int, d2: int):
    """Play ``steps`` (``(from, to)`` pairs, ``(-1, -1)`` pairs ignored) from
    ``board`` one die at a time under the single-step rules above.

    Returns the final state if the steps are legal single-die moves using
    distinct dice of the roll in some order, else ``None``.  (Whether the
    sequence is a *complete* legal play is a separate question: compare
    ``len(steps)`` with :func:`max_dice`, and the final state with the keys of
    :func:`legal_plays`.)
    """
    return replay_state(to_state(board), steps, d1, d2)


def replay_state(start: State, steps, d1: int, d2: int):
    """:func:`replay` for a state already checked by :func:`to_state`."""
    steps = [(int(a), int(b)) for a, b in steps if (a, b) != (-1, -1)]
    dice = [d1] * 4 if d1 == d2 else [d1, d2]
    if len(steps) > len(dice):
        return None
    for order in sorted(set(permutations(dice, len(steps)))):
        state = start
        for (src, dst), die in zip(steps, order):
            if not 1 <= src <= 25:
                state = None
                break
            played = single_step(state, src, die)
            if played is None or played[0] != dst:
                state = None
                break
            state = played[1]
        if state is not None:
            return state
    return None


def state_bytes(state: State) -> bytes:
    """The 50 counts as bytes, row 0 first: equal to ``numpy_board.tobytes()``
    of the same position as a C-contiguous uint8 (2, 25) array."""
    return bytes(state[0] + state[1])


# --------------------------------------------------------------- games

START = (
    (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0),
    (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0),
)
"""The starting position (the same for both rows)."""
