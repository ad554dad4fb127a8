"""The engine's advice to the player, in words: its best plays with equities, and what
it would do with the cube in the player's place."""

from __future__ import annotations

import numpy as np

from bgengine.engine import Engine
from bgengine.ids import MatchState
from bgengine.network import equity_of, flip_outputs
from bgengine.position import Move
from bgengine.terminal.drawing import probs_text
from bgengine.terminal.opponent import EngineSide

__all__ = ["play_hint", "cube_hint", "take_hint"]


def play_hint(side: EngineSide, board: np.ndarray, legal: list[Move], d1: int, d2: int,
              n: int, plies: int, seed: int) -> list[str]:
    """The best ``n`` of the ``legal`` plays of ``d1``-``d2`` from ``board`` (the player
    in row 1) with their cubeless equities at ``plies``; without a network, the play the
    engine would choose (with ``seed``)."""
    if side.searcher is None:
        k = side.choose(board, d1, d2, seed)
        return [f"No network loaded, so no equities; the engine ({side.name}) "
                f"would play {legal[k].notation}."]
    rows = side.rank_plays(board, d1, d2, n, plies)
    best = rows[0][2]
    lines = [f"The engine's best plays for {d1}-{d2} (cubeless equity for you):"]
    for rank, (i, out, eq, pl) in enumerate(rows, 1):
        diff = "" if rank == 1 else f" ({eq - best:+.3f})"
        lines.append(f"  {rank:2d}. {legal[i].notation:<24} {pl}-ply  {eq:+.3f}{diff}")
        if rank == 1:
            lines.append(f"      {probs_text(out)}")
    return lines


def cube_hint(engine: Engine, board: np.ndarray, state: MatchState, refusal: str | None,
              jacoby: bool) -> list[str]:
    """The player's chances before rolling (``board``: the player in row 1, ``state``:
    the player on roll) and whether the engine would double in the player's place;
    ``refusal``: why the player may not double, if so."""
    probs = engine.evaluate(board)
    lines = [f"Before rolling: {probs_text(probs)}; cubeless equity {equity_of(probs):+.3f}."]
    if refusal:
        return lines + [f"You cannot double: {refusal}. Roll."]
    try:
        double = engine.cube_decision(board, state, jacoby)
    except Exception as exc:   # pragma: no cover - a cube engine bug
        return lines + [f"No cube advice ({exc})."]
    return lines + ["The engine would double." if double else "The engine would not double: roll."]


def take_hint(engine: Engine, board: np.ndarray, state: MatchState) -> list[str]:
    """The player's chances when doubled (``board``: the doubler in row 1, ``state``: the
    doubler on roll) and whether the engine would take in the player's place."""
    take = engine.take_decision(board, state)
    probs = flip_outputs(engine.evaluate(board))
    return [f"Your chances: {probs_text(probs)}.",
            "The engine would take in your place." if take else "The engine would drop in your place."]

