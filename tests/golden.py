"""Loaders for the GNU Backgammon golden data in tests/data/gnubg/ (see its README.md).

    from golden import load_movegen_golden, load_match_ids

Self-contained on purpose: Position IDs are decoded here with numpy (gnubg positionid.c
layout), not with bgengine.notation.ids, so these data can check that module too.
"""

from __future__ import annotations

import base64
import functools
import gzip
import json
from dataclasses import dataclass

import numpy as np

from conftest import DATA

GNUBG = DATA / "gnubg"
MOVEGEN_FILE = GNUBG / "movegen_golden.jsonl.gz"
MATCH_IDS_FILE = GNUBG / "match_ids.jsonl"

ROLL_KEYS = [f"{a}{b}" for a in range(1, 7) for b in range(1, a + 1)]  # "11", "21", ..., "66"


def decode_position_ids(pids) -> np.ndarray:
    """Decode gnubg Position IDs to uint8 boards (n, 2, 25), row 1 = side on roll.

    The 14 base64 characters give an 80-bit key, least significant bit of byte 0 first:
    for row 0 then row 1, for points 0..24, one 1-bit per checker then a 0-bit."""
    pids = list(pids)
    n = len(pids)
    out = np.zeros((n, 2, 25), dtype=np.uint8)
    chunk = 65536
    for s in range(0, n, chunk):
        part = pids[s : s + chunk]
        if any(len(p) != 14 for p in part):
            raise ValueError("a Position ID has 14 characters")
        raw = b"".join(base64.b64decode(p + "==", validate=True) for p in part)
        keys = np.frombuffer(raw, dtype=np.uint8).reshape(len(part), 10)
        bits = np.unpackbits(keys, axis=1, bitorder="little")  # (m, 80)
        zeros = bits == 0
        slot = np.cumsum(zeros, axis=1, dtype=np.int16) - zeros  # 0-bits before each bit
        rows, cols = np.nonzero(bits)
        sl = slot[rows, cols].astype(np.int64)
        if sl.size and sl.max() >= 50:
            raise ValueError("invalid Position ID (more than 50 point fields)")
        counts = np.bincount(rows.astype(np.int64) * 50 + sl, minlength=len(part) * 50)
        out[s : s + len(part)] = counts.reshape(len(part), 2, 25)
    return out


def decode_position_id(pid: str) -> np.ndarray:
    return decode_position_ids([pid])[0]


@dataclass(frozen=True)
class GoldenPosition:
    pid: str
    source: str               # "game" (from gnubg self-play) or "crafted" (rules corner case)
    kind: str                 # bar / opp_bar / bearoff / race / contact
    board: np.ndarray         # uint8 (2, 25), as gnubg decoded `pid`
    rolls: dict               # "hi lo" key -> GoldenRoll


@dataclass(frozen=True)
class GoldenRoll:
    d1: int                   # high die
    d2: int                   # low die
    pids: tuple               # afterstate Position IDs (mover orientation), gnubg hint order
    notations: tuple          # gnubg's notation for each move
    afterstates: np.ndarray   # uint8 (n, 2, 25) decoded from pids; n == 0: no legal move


@functools.lru_cache(maxsize=1)
def load_movegen_golden() -> tuple:
    """All golden positions (tuple of GoldenPosition), every one with its 21 rolls."""
    recs = []
    with gzip.open(MOVEGEN_FILE, "rt") as f:
        for line in f:
            recs.append(json.loads(line))
    all_pids = [m[0] for r in recs for k in ROLL_KEYS for m in r["rolls"][k]]
    boards = decode_position_ids(all_pids)
    out = []
    i = 0
    for r in recs:
        rolls = {}
        for k in ROLL_KEYS:
            moves = r["rolls"][k]
            n = len(moves)
            rolls[k] = GoldenRoll(
                d1=int(k[0]),
                d2=int(k[1]),
                pids=tuple(m[0] for m in moves),
                notations=tuple(m[1] for m in moves),
                afterstates=boards[i : i + n],
            )
            i += n
        out.append(
            GoldenPosition(
                pid=r["pid"],
                source=r["source"],
                kind=r["kind"],
                board=np.array(r["board"], dtype=np.uint8),
                rolls=rolls,
            )
        )
    return tuple(out)


MATCH_ID_FIELDS = ("cube", "cubeowner", "move", "crawford", "gamestate", "turn", "doubled",
                   "resigned", "dice", "matchto", "score", "jacoby")


def decode_match_id_bits(mid: str) -> dict:
    """Reference decoding of a 12-character Match ID per gnubg matchid.c (README bit table)."""
    if len(mid) != 12:
        raise ValueError("a Match ID has 12 characters")
    key = base64.b64decode(mid, validate=True)  # 9 bytes
    v = int.from_bytes(key, "little")           # bit k = (key[k // 8] >> (k % 8)) & 1

    def get(pos: int, n: int) -> int:
        return (v >> pos) & ((1 << n) - 1)

    owner = get(4, 2)
    return {
        "cube": 1 << get(0, 4),
        "cubeowner": owner if owner in (0, 1) else -1,
        "move": get(6, 1),
        "crawford": get(7, 1),
        "gamestate": get(8, 3),
        "turn": get(11, 1),
        "doubled": get(12, 1),
        "resigned": get(13, 2),
        "dice": [get(15, 3), get(18, 3)],
        "matchto": get(21, 15),
        "score": [get(36, 15), get(51, 15)],
        "jacoby": 1 - get(66, 1),
    }


@functools.lru_cache(maxsize=1)
def load_match_ids() -> tuple:
    """Match ID records (tuple of dicts): "matchid" plus the decoded fields (README.md)."""
    with open(MATCH_IDS_FILE) as f:
        return tuple(json.loads(line) for line in f if line.strip())
