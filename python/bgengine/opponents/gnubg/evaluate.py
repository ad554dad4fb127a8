"""GNU Backgammon's own evaluations of positions: a yardstick for bgengine's values.

The positions are valued by gnubg processes running the script ``gnubg_outputs.py``
shipped in ``bgengine/data`` (gnubg's ``gnubg.evaluate`` with a cubeless money cube and an
explicit evaluation context), one process per job, each on its share of the positions.
"""

from __future__ import annotations

import json
import tempfile
from importlib import resources
from pathlib import Path

import numpy as np

from bgengine.core.board import validate_boards
from bgengine.opponents.gnubg.binary import GnubgError, run_gnubg_scripts

__all__ = ["gnubg_outputs", "gnubg_cube_values", "script_path"]


def script_path() -> Path:
    """The evaluation script run inside gnubg."""
    return Path(str(resources.files("bgengine").joinpath("data", "gnubg_outputs.py")))


def _check(plies, jobs) -> None:
    if isinstance(plies, bool) or not isinstance(plies, int) or not 0 <= plies <= 4:
        raise ValueError(f"plies must be an integer in 0..4, got {plies!r}")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= 64:
        raise ValueError(f"jobs must be an integer in 1..64, got {jobs!r}")


def _run(boards: np.ndarray, task: dict, answer: str, width: int, jobs: int,
         binary: str | None, per_board: list[dict] | None = None) -> np.ndarray:
    """The script's ``answer`` (``width`` numbers) for every board, each asked with the
    fields of ``task`` (and board ``i`` with those of ``per_board[i]``), on ``jobs`` gnubg
    processes."""
    boards = validate_boards(boards)
    jobs = max(1, min(jobs, len(boards)))
    with tempfile.TemporaryDirectory(prefix="bgengine-gnubg-eval-") as tmp:
        inputs = [Path(tmp) / f"in-{j}.jsonl" for j in range(jobs)]
        outputs = [Path(tmp) / f"out-{j}.jsonl" for j in range(jobs)]
        for j, path in enumerate(inputs):
            with open(path, "w") as f:
                for i in range(j, len(boards), jobs):
                    extra = per_board[i] if per_board is not None else {}
                    f.write(json.dumps({"id": i, "board": boards[i].tolist(), **task,
                                        **extra}) + "\n")
        if len(boards):
            run_gnubg_scripts(script_path(), [{"OUTPUTS_IN": str(s), "OUTPUTS_OUT": str(o)}
                                              for s, o in zip(inputs, outputs)], binary=binary)
        result = np.full((len(boards), width), np.nan)
        for path in outputs:
            if path.exists():
                for line in path.read_text().splitlines():
                    d = json.loads(line)
                    result[d["id"]] = d[answer]
    if np.isnan(result).any():
        raise GnubgError("gnubg did not value every position")
    return result


def gnubg_outputs(boards: np.ndarray, plies: int = 0, jobs: int = 2,
                  binary: str | None = None) -> np.ndarray:
    """gnubg's cubeless ``plies``-ply outputs (float64, (N, 5): win, win gammon, win
    backgammon, lose gammon, lose backgammon of the side on roll) of ``boards`` (uint8,
    (N, 2, 25), side on roll in row 1), valued by ``jobs`` gnubg processes at once.
    Raises :class:`bgengine.opponents.gnubg.GnubgNotFound` without gnubg and
    :class:`bgengine.opponents.gnubg.GnubgError` if it fails."""
    _check(plies, jobs)
    return _run(boards, {"plies": plies}, "outputs", 5, jobs, binary)


#: gnubg's cube owners by name, from the side on roll.
_OWNERS = {"centre": -1, "me": 0, "opponent": 1}


def gnubg_cube_values(boards: np.ndarray, plies: int = 0, owner: str = "centre", jobs: int = 2,
                      binary: str | None = None, scores: np.ndarray | None = None) -> np.ndarray:
    """gnubg's cubeful ``plies``-ply cube analysis of ``boards`` (side on roll in row 1,
    before it rolls) in money play, cube 1 held by ``owner`` ("centre", "me", "opponent"),
    Jacoby off: float64 (N, 3), no double, double/take and double/pass for the side on roll
    in points per cube.  ``scores`` (N, 2): each position's match score instead, how far the
    side on roll and the other are from winning ((0, 0): money play), in a match as long as
    the longer of the two, not the Crawford game; the values are then gnubg's normalised
    equities (double/pass +1).  Errors as :func:`gnubg_outputs`."""
    _check(plies, jobs)
    if owner not in _OWNERS:
        raise ValueError(f"owner must be one of {', '.join(_OWNERS)}, got {owner!r}")
    per_board = None
    if scores is not None:
        scores = np.asarray(scores, dtype=np.int64).reshape(-1, 2)
        if len(scores) != len(boards) or (scores < 0).any() \
                or ((scores == 0).any(axis=1) & (scores != 0).any(axis=1)).any():
            raise ValueError("scores must be one (away, opp_away) pair a board, both 0 "
                             "(money) or both positive")
        per_board = [{"match": [int(max(a, b)), int(max(a, b) - a), int(max(a, b) - b)]}
                     if a else {} for a, b in scores]
    return _run(boards, {"plies": plies, "cube": _OWNERS[owner]}, "cube", 3, jobs, binary,
                per_board)
