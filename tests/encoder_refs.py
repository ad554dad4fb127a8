"""Plain-Python references of the contact and race encoders, written from the definitions in
``bgengine.core.encoders``' docstring (slow, obvious code; no masks, no tables).

A board is uint8 (2, 25): row 1 on roll, column i = that side's point i + 1, column 24 its
bar.  ``row`` is one side's 25 counts; its point t (1..24) is ``row[t - 1]``, the bar 25.
"""

from __future__ import annotations

import functools

import numpy as np


def off(row) -> int:
    return 15 - int(sum(int(x) for x in row))


def count(row, t) -> int:
    """Checkers of a side on its point t (25: its bar)."""
    return int(row[24]) if t == 25 else int(row[t - 1])


def pips(row) -> int:
    return sum(t * count(row, t) for t in range(1, 26))


def rearmost(row) -> int:
    pts = [t for t in range(1, 26) if count(row, t)]
    return max(pts) if pts else 0


def held_seen_by_other(row) -> set:
    """The points a side holds (2+), in the other side's numbering (t -> 25 - t)."""
    return {25 - t for t in range(1, 25) if count(row, t) >= 2}


def escapes_from(p: int, blocked: set) -> int:
    """Rolls of 36 on which a checker on point p (25: the bar) alone gets past every blocked
    point among the 12 in front of it (36 if there is none); landings must be open and on
    the board."""
    # no roll's landings go beyond 15 pips before getting past the 12 in front: memo on those
    return _escapes(p, tuple(t in blocked for t in range(p - 15, p)))


@functools.lru_cache(maxsize=None)
def _escapes(p: int, window: tuple) -> int:
    blocked = {p - 15 + i for i, x in enumerate(window) if x}
    held = [t for t in range(max(1, p - 12), p) if t in blocked]
    if not held:
        return 36
    lowest = min(held)
    n = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            seqs = [[d1] * k for k in range(1, 5)] if d1 == d2 else [[d1], [d2], [d1, d2], [d2, d1]]
            ok = False
            for seq in seqs:
                t = p
                for d in seq:
                    t -= d
                    if t < 1 or t in blocked:
                        break
                else:
                    ok = ok or t < lowest
            n += ok
    return n


# ---------------------------------------------------------------- point units

def g_units(n: int) -> list:
    return [float(n == 1), float(n >= 2), float(n >= 3), (n - 3) / 2 if n > 3 else 0.0]


def contact_units(row) -> list:
    u = []
    for t in range(1, 25):
        u += g_units(count(row, t))
    n = count(row, 25)
    u += [float(n >= 1), float(n >= 2), float(n >= 3), (n - 3) / 2 if n > 3 else 0.0]
    k = off(row)
    u += [min(k, 5) / 5, min(max(k - 5, 0), 5) / 5, max(k - 10, 0) / 5]
    return u


def race_units(row) -> list:
    u = []
    for t in range(1, 25):
        u += g_units(count(row, t))
    k = off(row)
    return u + [float(k > j) for j in range(14)]


# ---------------------------------------------------------------- hitting

def hits(b, side) -> tuple:
    """(p1, p2, pip loss) of ``side`` hitting the other side's blots, by searching every
    sequence of single-die moves of each of the 36 rolls (partial plays allowed, checkers on
    the bar entering first, no forced-move rule; a die that cannot be played is skipped):
    rolls that hit at least one blot, at least two, and the sum over rolls of the largest
    point (in ``side``'s numbering) of a blot hit."""
    other = 1 - side
    blocked = {25 - t for t in range(1, 25) if count(b[other], t) >= 2}
    blots0 = frozenset(25 - t for t in range(1, 25) if count(b[other], t) == 1)
    start = tuple(count(b[side], t) for t in range(1, 26))     # index t - 1, bar at 24
    p1 = p2 = loss = 0
    if not blots0:
        return 0, 0, 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            dice = (d1,) * 4 if d1 == d2 else (d1, d2)
            best = [0, 0]           # most blots hit, farthest blot hit
            seen = set()

            def search(pos, rest, hit):
                key = (pos, rest, hit)
                if key in seen:
                    return
                seen.add(key)
                if hit:
                    best[0] = max(best[0], len(hit))
                    best[1] = max(best[1], max(hit))
                for k, d in enumerate(rest):
                    if d in rest[:k]:
                        continue
                    left = rest[:k] + rest[k + 1:]
                    srcs = [25] if pos[24] else [t for t in range(1, 25) if pos[t - 1]]
                    for s in srcs:
                        t = s - d
                        if t < 1 or t in blocked:
                            continue
                        q = list(pos)
                        q[s - 1] -= 1
                        q[t - 1] += 1
                        h = hit | {t} if (t in blots0 and t not in hit) else hit
                        search(tuple(q), left, frozenset(h))

            search(start, dice, frozenset())
            p1 += best[0] >= 1
            p2 += best[0] >= 2
            loss += best[1]
    return p1, p2, loss


# ---------------------------------------------------------------- contact

def timing(row, q: int) -> int:
    spare = count(row, 25)
    tot = 24 * spare
    for t in range(7, 25):
        n = count(row, t)
        if t >= 13 and t + q >= 26:         # behind the other side's rearmost: keep a point
            free = n - 2 if n > 2 else (1 if n == 1 else 0)
        else:
            free = n
        spare += free
        tot += (t - 1) * free
    for t in range(6, 0, -1):
        n = count(row, t)
        if n > 2:
            tot += (t - 1) * (n - 2)
            spare += n - 2
        elif n < 2 and spare >= 2 - n:
            tot -= (t - 1) * (2 - n)
            spare -= 2 - n
    return max(tot, 0)


def contact_side(b, side, with_hits=True) -> list:
    row, orow = b[side], b[1 - side]
    held = [t for t in range(1, 25) if count(row, t) >= 2]
    n_all = sum(count(row, t) for t in range(1, 26))
    f = [pips(row) / 100, rearmost(row) / 25, (max(held) if held else 0) / 24]
    home_anchor = [t for t in held if t >= 19]
    mid_anchor = [t for t in held if 13 <= t <= 18]
    if home_anchor:
        f.append((25 - min(home_anchor)) / 6)
    elif mid_anchor:
        f.append((25 - max(mid_anchor)) / 6)
    else:
        f.append(2.0)
    m2 = 0.0
    if n_all:
        a = -(-pips(row) // n_all)             # mean point, rounded up
        beyond = [(t, count(row, t)) for t in range(a + 1, 26) if count(row, t)]
        if beyond:
            m2 = sum(n * (t - a) ** 2 for t, n in beyond) / (sum(n for _, n in beyond) * 400)
    f.append(m2)
    bb = 0.0
    if len(held) >= 2:
        pts = sorted(held, reverse=True)
        w = tot = 0
        for rear, front in zip(pts, pts[1:]):
            d = rear - front
            c = 11 if d <= 6 else (13 - d if d <= 11 else 0)
            w += c * count(row, rear)
            tot += count(row, rear)
        bb = 1 - w / (tot * 11)
    f.append(bb)
    anchors = sum(count(row, t) >= 2 for t in range(19, 25))
    back = sum(count(row, t) for t in range(19, 26))
    f.append((back - 3) / 4 if anchors >= 2 else 0.0)
    f.append(back / 8 if anchors == 1 else 0.0)
    blocked_o = held_seen_by_other(row)     # our points, as the other side sees them
    esc = {p: escapes_from(p, blocked_o) for p in range(16, 25)}
    c = 1 - min(esc.values()) / 36
    f += [c, c * c]
    # --- features needing the other side
    q = rearmost(orow)
    if q >= 16:
        ac = 1 - min(esc[p] for p in range(16, min(q, 24) + 1)) / 36
    else:
        ac = 0.0
    f += [ac, ac * ac]
    bc = fp = 0
    for t in range(1, 26):
        n = count(row, t)
        if q and t + q > 25:                # behind the other side's rearmost checker
            bc += n * (t + q - 24)          # pips to get past it
        elif t + q < 25:
            fp += n * t
    f += [bc / 167, fp / 100, timing(row, q) / 100]
    if with_hits:
        p1, p2, loss = hits(b, side)
    else:
        p1 = p2 = loss = None
    f += [p1 / 36 if with_hits else None, p2 / 36 if with_hits else None,
          loss / 432 if with_hits else None]
    blocked_s = held_seen_by_other(orow)
    r = rearmost(row)
    f.append((escapes_from(r, blocked_s) if r else 36) / 36)
    mob = sum((t - 6) * count(row, t) * escapes_from(t, blocked_s) for t in range(7, 26)
              if count(row, t))
    f.append(mob / 3600)
    closed = [d for d in range(1, 7) if count(orow, d) >= 2]   # its entry point of die d
    nb = count(row, 25)
    lost = 0
    if nb:
        for d1 in range(1, 7):
            for d2 in range(1, 7):
                if d1 == d2:
                    lost += 4 * d1 if d1 in closed else 0
                elif d1 in closed and d2 in closed:
                    lost += d1 + d2
                elif nb >= 2:
                    lost += (d1 if d1 in closed else 0) + (d2 if d2 in closed else 0)
    f.append(lost / 294)
    f.append((len(closed) / 6) ** 2)
    return f


def ref_contact(b, with_hits=True) -> np.ndarray:
    """The 250 contact inputs (with_hits False: P1, P2 and pip loss left NaN)."""
    x = []
    for side in (1, 0):
        x += contact_units(b[side]) + contact_side(b, side, with_hits)
    return np.array([np.nan if v is None else v for v in x], dtype=np.float64)


# ---------------------------------------------------------------- race

def race_side(row) -> list:
    n_all = sum(count(row, t) for t in range(1, 26))
    outside = sum(count(row, t) for t in range(7, 26))
    opips = sum(t * count(row, t) for t in range(7, 26))
    quadrant = {t: (t - 1) // 6 for t in range(1, 25)}
    quadrant[25] = 4
    cross = sum(quadrant[t] * count(row, t) for t in range(1, 26))
    h = min(6, rearmost(row))
    gaps = sum(count(row, t) == 0 for t in range(1, h + 1))
    return [pips(row) / 100, opips / 50, cross / 10, outside / 15, gaps / 6,
            (count(row, 1) + count(row, 2)) / 15, float(outside == 0 and n_all > 0)]


def ref_race(b) -> np.ndarray:
    x = race_units(b[1]) + race_side(b[1]) + race_units(b[0]) + race_side(b[0])
    mine, theirs = pips(b[1]), pips(b[0])
    lead = (theirs - mine) / mine if mine else 0.0
    x.append(min(1.0, max(-1.0, lead)))
    return np.array(x)
