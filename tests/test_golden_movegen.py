"""Move generation against GNU Backgammon: every golden position, every one of the 21 rolls.

The golden data (tests/data/gnubg/, made by make_golden.py inside gnubg 1.07.001) list, for
each position and roll, all legal moves gnubg generates as afterstates (mover orientation,
not swapped).  Our legal_afterstates must give exactly the same set of afterstates, with the
same count and no duplicates; with no legal move, gnubg lists nothing and we return the
unchanged board once with no steps.
"""

from __future__ import annotations

import numpy as np
import pytest

from bgengine.core.movegen import legal_afterstates
from golden import ROLL_KEYS, decode_position_ids, load_movegen_golden

MAX_REPORT = 25


def fmt_board(b: np.ndarray) -> str:
    return f"opp={b[0].tolist()} mover={b[1].tolist()}"


def test_golden_file_shape():
    data = load_movegen_golden()
    games = [p for p in data if p.source == "game"]
    assert len(games) >= 2000
    assert len({p.pid for p in data}) == len(data)
    kinds = {p.kind for p in games}
    assert {"bar", "bearoff", "race", "contact"} <= kinds
    for p in data:
        assert sorted(p.rolls) == sorted(ROLL_KEYS)
        assert p.board.shape == (2, 25)
        assert int(p.board[0].sum()) <= 15 and int(p.board[1].sum()) <= 15


def test_our_position_id_decoder_matches_gnubg():
    """golden.py decodes Position IDs exactly as gnubg did (the stored boards)."""
    data = load_movegen_golden()
    boards = decode_position_ids([p.pid for p in data])
    np.testing.assert_array_equal(boards, np.stack([p.board for p in data]))


def test_legal_afterstates_match_gnubg():
    data = load_movegen_golden()
    problems = []
    n_rolls = n_moves = 0
    for pos in data:
        board = np.ascontiguousarray(pos.board)
        for key in ROLL_KEYS:
            g = pos.rolls[key]
            n_rolls += 1
            n_moves += len(g.pids)
            ours, steps = legal_afterstates(board, g.d1, g.d2)
            if len(g.pids) == 0:
                ok = (
                    ours.shape[0] == 1
                    and np.array_equal(ours[0], board)
                    and bool((steps[0] == -1).all())
                )
                if not ok:
                    problems.append(
                        f"{pos.pid} roll {key} ({pos.kind}): gnubg has NO legal move, we give "
                        f"{ours.shape[0]} afterstate(s), first steps {steps[0].tolist()}\n"
                        f"    board {fmt_board(board)}"
                    )
                continue
            ours_b = [ours[i].tobytes() for i in range(ours.shape[0])]
            gold_b = {g.afterstates[i].tobytes(): i for i in range(len(g.pids))}
            ours_set = set(ours_b)
            if len(ours_set) == len(ours_b) == len(gold_b) and ours_set == set(gold_b):
                continue
            msg = [
                f"{pos.pid} roll {key} ({pos.kind}): gnubg {len(gold_b)} moves, "
                f"we {len(ours_b)} ({len(ours_set)} distinct)\n    board {fmt_board(board)}"
            ]
            for b, i in gold_b.items():
                if b not in ours_set:
                    msg.append(f"    missing (gnubg {g.notations[i]!r} -> {g.pids[i]})")
            for i, b in enumerate(ours_b):
                if b not in gold_b:
                    a = np.frombuffer(b, dtype=np.uint8).reshape(2, 25)
                    msg.append(f"    extra   (our steps {steps[i].tolist()} -> {fmt_board(a)})")
            if len(ours_set) != len(ours_b):
                msg.append("    duplicate afterstates in our list")
            problems.append("\n".join(msg))
    assert n_rolls == 21 * len(data) and n_moves > 0
    if problems:
        shown = "\n".join(problems[:MAX_REPORT])
        pytest.fail(
            f"{len(problems)} of {n_rolls} (position, roll) pairs differ from gnubg:\n{shown}",
            pytrace=False,
        )


def test_match_id_records_follow_documented_layout():
    """The Match-ID golden records agree with the README's bit layout (data sanity check)."""
    from golden import MATCH_ID_FIELDS, decode_match_id_bits, load_match_ids

    recs = load_match_ids()
    assert len(recs) >= 500
    for r in recs:
        dec = decode_match_id_bits(r["matchid"])
        assert {f: r[f] for f in MATCH_ID_FIELDS} == dec, r
        assert sorted(r["dice_given"], reverse=True) == r["dice"]
    for field in ("doubled", "resigned", "crawford", "jacoby"):
        assert {r[field] for r in recs} >= {0, 1}, field
    assert {r["gamestate"] for r in recs} >= {1, 2, 3, 4}
    assert {r["cubeowner"] for r in recs} == {-1, 0, 1}
    assert 0 in {r["matchto"] for r in recs} and max(r["matchto"] for r in recs) > 1
