"""Move notation as GNU Backgammon writes and reads it.

* :func:`format_move` prints a play exactly as gnubg's ``FormatMove``
  (``drawboard.c``) does: the single-die steps are sorted by source point
  (descending), the steps of one checker are merged into one path
  (``13/7 7/5`` -> ``13/5``) except that a point where a blot was hit on the
  way stays in the path (``13/7*/5``), a hit is marked with ``*`` (once per
  point), identical paths are counted (``8/5(2)``), and the bar and borne-off
  are written ``bar`` and ``off``.
* :func:`parse_move` reads every form gnubg's ``ParseMove`` accepts
  (``24/18 13/11``, ``bar/22*``, ``b/22``, ``25/22``, ``6/off``, ``6/o``,
  ``6/0``, ``8/5(2)``, ``13/7*/5``, ``13 8 6 5``, ...) and, beyond gnubg's
  move command, ``-`` between two points as a separator (``24-18``, as
  gnubg's Python ``parsemove`` does).
* :func:`match_move` finds the legal play meant by a text, the way gnubg's
  ``move`` command and external-player interface do: the parsed steps are
  applied directly (source checker to destination, a blot hit only on the
  destination) in canonical order and the resulting position must be one of
  the legal afterstates.  If that fails it also accepts a compressed path
  whose intermediate point must be a hit (``13/5`` for ``13/8*/5``) as long
  as exactly one legal play fits; otherwise the error says what is wrong.

Points are in the mover's numbering: 1..24, 25 = the bar, 0 = off.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from bgengine.core.board import validate_board
from bgengine.core.movegen import check_die, legal_afterstates
from bgengine.types import Step

__all__ = [
    "format_move", "parse_move", "match_move", "legal_moves", "legal_move_notations",
    "format_steps_plain",
]


_SPACE = " \t\n\v\f\r"
_DIGITS = "0123456789"


# ---------------------------------------------------------------- formatting

def _point(n: int) -> str:
    if n == 0:
        return "off"
    if n == 25:
        return "bar"
    return str(n)


def _clean_steps(steps) -> list[Step]:
    out = []
    for s in steps:
        a, b = int(s[0]), int(s[1])
        if a < 0:
            continue
        if not (1 <= a <= 25 and 0 <= b <= 24):
            raise ValueError(f"bad step {(a, b)}: from must be 1..25 (25 = bar), to 0..24 (0 = off)")
        out.append((a, b))
    if len(out) > 4:
        raise ValueError(f"a play has at most 4 steps, got {len(out)}")
    return out


def format_move(board, steps: Iterable[Sequence[int]]) -> str:
    """gnubg's notation of a play.

    Parameters
    ----------
    board : array-like (2, 25)
        The position *before* the play, the mover in row 1 (only the
        opponent's row is looked at, to mark hits).
    steps : iterable of (from, to)
        The single-die steps in the mover's numbering (25 = bar, 0 = off).
        Rows with a negative ``from`` (the ``-1`` padding of
        ``legal_afterstates``) are ignored.

    Returns ``""`` for no steps.

    >>> from bgengine.position import STARTING_BOARD
    >>> format_move(STARTING_BOARD, [(24, 18), (18, 13)])
    '24/13'
    >>> format_move(STARTING_BOARD, [(8, 5), (6, 5)])
    '8/5 6/5'
    """
    opp = np.asarray(board)[0]
    rows = _clean_steps(steps)
    rows.sort(key=lambda r: (-r[0], -r[1]))
    chains: list[list[int] | None] = [[a, b] for a, b in rows]
    n = len(chains)
    # Merge the steps of one checker (gnubg: i over the sorted steps, j from i).
    for i in range(n):
        ci = chains[i]
        if ci is None:
            continue
        for j in range(i + 1, n):
            cj = chains[j]
            if cj is None or ci[-1] != cj[0]:
                continue
            if opp[24 - ci[-1]]:
                ci.append(cj[-1])        # a blot hit on the way: keep the point
            else:
                ci[-1] = cj[-1]          # elide the intermediate point
            chains[j] = None
    merged = [c for c in chains if c is not None]
    # Count identical paths.
    counted: list[tuple[list[int], int]] = []
    for c in merged:
        for k, (other, cnt) in enumerate(counted):
            if other == c:
                counted[k] = (other, cnt + 1)
                break
        else:
            counted.append((c, 1))
    marked: set[int] = set()
    parts = []
    for chain, cnt in counted:
        text = _point(chain[0])
        for p in chain[1:-1]:
            text += f"/{_point(p)}*"
            marked.add(p)
        dest = chain[-1]
        text += f"/{_point(dest)}"
        if dest and opp[24 - dest] and dest not in marked:
            text += "*"
            marked.add(dest)
        if cnt > 1:
            text += f"({cnt})"
        parts.append(text)
    return " ".join(parts)


def format_steps_plain(steps: Iterable[Sequence[int]], board=None, words: bool = False) -> str:
    """The steps one by one, in canonical order (source descending), e.g.
    ``"25/20 6/0"`` (gnubg's external-player style) or with ``words=True``
    ``"bar/20 6/off"``.  With ``board`` (before the play, mover in row 1),
    the first step landing on each opponent blot gets a ``*``."""
    rows = _clean_steps(steps)
    rows.sort(key=lambda r: (-r[0], -r[1]))
    opp = None if board is None else np.asarray(board)[0]
    fmt = _point if words else str
    marked: set[int] = set()
    parts = []
    for a, b in rows:
        text = f"{fmt(a)}/{fmt(b)}"
        if opp is not None and b and opp[24 - b] and b not in marked:
            text += "*"
            marked.add(b)
        parts.append(text)
    return " ".join(parts)


# ---------------------------------------------------------------- parsing

def _parse_gnubg(text: str) -> list[Step]:
    """gnubg's ``ParseMove``: the steps in canonical order, or ValueError."""
    pairs = _parse_written(text)
    pairs.sort(key=lambda p: (-p[0], -p[1]))
    return pairs


def _parse_written(text: str) -> list[Step]:
    """gnubg's ``ParseMove`` before it sorts: the steps in the order written, or ValueError."""
    if not isinstance(text, str):
        raise ValueError(f"a move must be a string, got {type(text).__name__}")
    users: list[int] = []          # point tokens
    slash: set[int] = set()        # token indices preceded by '/'
    i, n = 0, len(text)

    def fail(why: str) -> ValueError:
        return ValueError(f"cannot parse move {text!r}: {why}")

    def add(value: int) -> None:
        if len(users) == 8:
            raise fail("more than 8 points")
        users.append(value)

    while i < n:
        ch = text[i]
        if ch in _SPACE:
            i += 1
            continue
        if ch in _DIGITS:
            j = i
            while j < n and text[j] in _DIGITS:
                j += 1
            if len(users) == 8:
                raise fail("more than 8 points")
            value = int(text[i:j])
            if value > 25:
                raise fail(f"no point {value} (points are 0..25)")
            users.append(value)
            i = j
            continue
        if ch in "oO-":
            add(0)
            if ch != "-" and i + 1 < n and text[i + 1] in "fF":
                i += 1
                if i + 1 < n and text[i + 1] in "fF":
                    i += 1
        elif ch in "bB":
            add(25)
            if i + 1 < n and text[i + 1] in "aA":
                i += 1
                if i + 1 < n and text[i + 1] in "rR":
                    i += 1
        elif ch == "/":
            c = len(users)
            if not c:
                raise fail("'/' before the first point")
            if c in slash:
                raise fail("two '/' in a row")
            slash.add(c)
        elif ch in "*,)":
            pass
        elif ch == "(":
            # strtol: optional white space and sign, then digits
            j = i + 1
            while j < n and text[j] in _SPACE:
                j += 1
            k = j
            if k < n and text[k] in "+-":
                k += 1
            m = k
            while m < n and text[m] in _DIGITS:
                m += 1
            if m == k:
                raise fail("'(' must be followed by a count")
            count = int(text[j:m])
            c = len(users)
            if count < 2:
                raise fail(f"invalid count ({count}); use (2), (3) or (4)")
            if c < 2:
                raise fail("incomplete move before '('")
            if c in slash:
                raise fail("'/' right before '('")
            begin = c - 1
            while begin >= 0 and begin in slash:
                begin -= 1
            if begin < 0:
                raise fail("no move before '('")
            if c + (c - begin) * (count - 1) > 8:
                raise fail(f"({count}) makes more than 4 steps")
            for _ in range(count - 1):
                for t in range(begin, c):
                    if t in slash:
                        slash.add(len(users))
                    users.append(users[t])
            # gnubg skips the character after the count (normally ')')
            i = m
        else:
            raise fail(f"unexpected character {ch!r}")
        i += 1
    if len(users) in slash:
        raise fail("'/' at the end")
    an: list[int] = []
    for j, value in enumerate(users):
        if len(an) == 8:
            raise fail("more than 4 steps")
        dest = len(an) & 1
        if dest and value == 25:
            raise fail("cannot move to the bar")
        if not dest and value == 0:
            raise fail("cannot move from off the board")
        an.append(value)
        if dest and (j + 1) in slash:
            # a chain: this destination is also the next source
            if len(an) == 8:
                raise fail("more than 4 steps")
            if value in (0, 25):
                raise fail("a path cannot continue from the bar or from off")
            an.append(value)
    if len(an) & 1:
        raise fail("the last move has no destination")
    return [(an[k], an[k + 1]) for k in range(0, len(an), 2)]


def _forward(pairs: list[Step]) -> bool:
    return all(a > b for a, b in pairs)


def _interpretations(text: str) -> list[list[Step]]:
    """The readings of ``text``: gnubg's, then (if different) ``-`` read as ``/``."""
    out: list[list[Step]] = []
    error = None
    try:
        out.append(_parse_gnubg(text))
    except ValueError as exc:
        error = exc
    if isinstance(text, str) and "-" in text:
        try:
            dashed = _parse_gnubg(text.replace("-", "/"))
        except ValueError:
            dashed = None
        if dashed is not None and dashed not in out:
            if out and not _forward(out[0]) and _forward(dashed):
                out.insert(0, dashed)
            else:
                out.append(dashed)
    if not out:
        assert error is not None
        raise error
    return out


def parse_move(text: str) -> list[Step]:
    """The steps ``(from, to)`` a move text means, as gnubg's ``ParseMove`` reads it.

    Points are in the mover's numbering; 25 = the bar, 0 = off.  A path
    ``13/7/5`` gives two steps, ``(n)`` repeats the preceding path, ``*``
    ``,`` and ``)`` are ignored, points are paired in order (``13 8 6 5`` =
    ``13/8 6/5``).  The result is in gnubg's canonical order (source point
    descending, then destination descending).  ``-`` is "off" for gnubg
    (``6/-``); when the text does not parse that way, or only gives backward
    moves, ``-`` is read as ``/`` (``24-18``).

    Raises ``ValueError`` saying what cannot be parsed.

    >>> parse_move("13/7*/5 bar/22")
    [(25, 22), (13, 7), (7, 5)]
    >>> parse_move("8/5(2)")
    [(8, 5), (8, 5)]
    """
    return list(_interpretations(text)[0])


# ---------------------------------------------------------------- matching

def _roll(d1: int, d2: int) -> str:
    return f"{d1}-{d2}"


def _pair(a: int, b: int) -> str:
    return f"{_point(a)}/{_point(b)}"


def _steps_of(st) -> tuple[Step, ...]:
    return tuple((int(a), int(b)) for a, b in st if a >= 0)


def legal_moves(board, d1: int, d2: int) -> list[tuple[tuple[Step, ...], str, np.ndarray]]:
    """Every legal play as ``(steps, gnubg notation, afterstate)``, in the
    order of :func:`bgengine.core.movegen.legal_afterstates` (afterstate with the
    mover still in row 1).  No legal play: one entry ``((), "", board)``."""
    arr = validate_board(board)
    after, steps = legal_afterstates(arr, check_die(d1, "d1"), check_die(d2, "d2"))
    out = []
    for a, st in zip(after, steps):
        seq = _steps_of(st)
        out.append((seq, format_move(arr, seq), a))
    return out


def legal_move_notations(board, d1: int, d2: int) -> list[str]:
    """gnubg's notation of every legal play (``[""]`` when there is none)."""
    return [m[1] for m in legal_moves(board, d1, d2)]


def _apply(board: np.ndarray, pairs: list[Step]) -> tuple[np.ndarray, str | None]:
    """Apply pairs directly as gnubg does (``ApplySubMove`` without dice
    checks), in the order given; stop at the first impossible one and say why.

    Beyond gnubg: a backward pair, or a pair not from the bar while the mover
    still has a checker there, is refused (neither can be part of a legal play).
    """
    b = board.astype(np.int16)
    me, opp = b[1], b[0]
    for a, t in pairs:
        where = _pair(a, t)
        if t >= a:
            return b, (f"{where}: a checker cannot stay put" if t == a
                       else f"{where}: checkers move from higher to lower points")
        if me[a - 1] < 1:
            left = " left" if board[1, a - 1] else ""      # earlier steps took them away
            return b, (f"{where}: no checker{left} on the bar" if a == 25
                       else f"{where}: no checker{left} on {a}")
        if a != 25 and me[24]:
            return b, f"{where}: must enter from the bar first"
        if t and opp[24 - t] > 1:
            return b, f"{where}: point {t} is blocked ({opp[24 - t]} opposing checkers)"
        me[a - 1] -= 1
        if t:
            if opp[24 - t]:
                opp[24 - t] = 0
                opp[24] += 1
            me[t - 1] += 1
    return b, None


def _paths(pos: int, end: int, steps: list[Step]):
    """Ways to go from ``pos`` to ``end`` with some of ``steps``: yields the
    remaining steps for each."""
    if pos == end:
        yield steps
        return
    tried = set()
    for k, (a, b) in enumerate(steps):
        if a == pos and b >= end and (a, b) not in tried:
            tried.add((a, b))
            yield from _paths(b, end, steps[:k] + steps[k + 1:])


def _covers(play: tuple[Step, ...], pairs: list[Step]) -> bool:
    """True if the play's steps split into one path per pair."""
    def rec(k: int, remaining: list[Step]) -> bool:
        if k == len(pairs):
            return not remaining
        a, b = pairs[k]
        return any(rec(k + 1, rest) for rest in _paths(a, b, remaining))
    return rec(0, list(play))


def _dice_fit(pairs: list[Step], dice: list[int]) -> tuple[bool, int]:
    """Can each pair be given its own dice (sum = distance; bearing off: sum
    >= the point)?  Returns (fits, dice used) for the cheapest assignment."""
    best = None

    def rec(k: int, avail: list[int], used: int) -> None:
        nonlocal best
        if k == len(pairs):
            if best is None or used < best:
                best = used
            return
        a, b = pairs[k]
        dist = a - b
        n = len(avail)
        seen = set()
        for mask in range(1, 1 << n):
            chosen = tuple(sorted(avail[i] for i in range(n) if mask >> i & 1))
            if chosen in seen:
                continue
            seen.add(chosen)
            total = sum(chosen)
            ok = total == dist if b else (total >= dist and total - max(chosen) < dist)
            if ok:
                rest = [avail[i] for i in range(n) if not mask >> i & 1]
                rec(k + 1, rest, used + len(chosen))

    rec(0, list(dice), 0)
    return best is not None, (best or 0)


def _written_order(text: str, pairs: list[Step]) -> list[Step]:
    """``pairs`` (a reading of ``text`` in canonical order) in the order ``text`` gives them."""
    for reading in (text, text.replace("-", "/")):
        try:
            written = _parse_written(reading)
        except ValueError:
            continue
        if sorted(written, key=lambda p: (-p[0], -p[1])) == pairs:
            return written
    return pairs


def _diagnose(board: np.ndarray, d1: int, d2: int, pairs: list[Step], text: str,
              plays: list[tuple[Step, ...]]) -> str:
    """Why ``pairs`` is not a legal play: the first problem found."""
    roll = _roll(d1, d2)
    shown = repr(text.strip())
    final, err = _apply(board, pairs)
    if err:
        # name the step at fault as the player wrote the steps, not in gnubg's order
        return _apply(board, _written_order(text, pairs))[1] or err
    opp = board[0]
    dice = [d1] * 4 if d1 == d2 else [d1, d2]
    for a, b in pairs:
        if not _dice_fit([(a, b)], dice)[0]:
            return f"{_pair(a, b)}: not playable with {roll}"
    if any(b == 0 for _, b in pairs) and final[1, 6:].sum():
        a = max(a for a, b in pairs if b == 0)
        return f"{_pair(a, 0)}: cannot bear off while checkers are outside the home board"
    fits, used = _dice_fit(pairs, dice)
    if not fits:
        return f"{shown} moves more than the roll {roll} allows"
    most = max(len(p) for p in plays)
    if used > most:
        return f"{shown}: only {most} of the dice can be played with {roll}"
    if used < most:
        if d1 != d2:
            return f"{shown} uses one die, but both dice of {roll} can be played"
        return f"{shown} uses {used} of the four {d1}s, but {most} can be played"
    if d1 != d2 and most == 1 and len(pairs) == 1:
        a, b = pairs[0]
        big = max(d1, d2)
        if b and a - b == min(d1, d2) and all(p[0][0] - p[0][1] == big or p[0][1] == 0
                                             for p in plays):
            return (f"{shown}: only one die of {roll} can be played, so it must be "
                    f"the larger ({big})")
    for a, b in pairs:
        dist = a - b
        if not b or dist in dice:
            continue
        if d1 == d2:
            for k in range(1, dist // d1):
                p = a - k * d1
                if opp[24 - p] > 1:
                    return f"{_pair(a, b)}: point {p} on the way is blocked"
        else:
            mids = [a - d1, a - d2]
            if all(opp[24 - p] > 1 for p in mids):
                return (f"{_pair(a, b)}: both points on the way ({mids[0]} and "
                        f"{mids[1]}) are blocked")
    return f"{shown} is not a legal play with {roll}"


def match_move(board, d1: int, d2: int, text: str) -> int:
    """The index, in ``legal_afterstates(board, d1, d2)``, of the play ``text`` means.

    ``board`` is the position before the play, the mover in row 1.  An empty
    text is the "no legal play" answer (index 0 when no play exists).

    A text matches a legal play the way gnubg's ``move`` command and
    external-player interface decide it: the parsed steps, applied directly
    in canonical order (each checker from its source straight to its
    destination, hitting only there), reach that play's position.  In
    addition a path whose intermediate hits are left out (``13/5`` for
    ``13/8*/5``) is accepted when exactly one legal play fits it.

    Raises ``ValueError`` saying which part is illegal (``"24/18: no checker
    on 24"``, ``"13/9: not playable with 6-5"``, ``"13/7: must enter from the
    bar first"``, ...) or that the text is ambiguous (with the candidates).
    """
    arr = validate_board(board)
    d1, d2 = check_die(d1, "d1"), check_die(d2, "d2")
    after, steps = legal_afterstates(arr, d1, d2)
    roll = _roll(d1, d2)
    no_play = len(after) == 1 and not _steps_of(steps[0])
    if not isinstance(text, str):
        raise ValueError(f"a move must be a string, got {type(text).__name__}")
    if not text.strip():
        if no_play:
            return 0
        raise ValueError(f"no move given, but {roll} can be played "
                         f"(e.g. {format_move(arr, _steps_of(steps[0]))})")
    readings = _interpretations(text)
    if no_play:
        raise ValueError(f"there is no legal play with {roll}; the roll is forfeited "
                         "(give an empty move)")
    for pairs in readings:
        result, err = _apply(arr, pairs)
        if err is None:
            hit = np.flatnonzero((after == result).all(axis=(1, 2)))  # afterstates are unique
            if hit.size:
                return int(hit[0])
    plays = [_steps_of(st) for st in steps]    # only the slower paths need every play's steps
    for pairs in readings:
        if not _forward(pairs):
            continue
        cands = [i for i, p in enumerate(plays) if _covers(p, pairs)]
        if len(cands) == 1:
            return cands[0]
        if len(cands) > 1:
            names = [format_move(arr, plays[i]) for i in cands]
            raise ValueError(f"{text.strip()!r} is ambiguous with {roll}: it could be "
                             + " or ".join(repr(s) for s in names))
    raise ValueError(_diagnose(arr, d1, d2, readings[0], text, plays))
