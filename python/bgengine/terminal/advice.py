"""The engine's advice to the player: what ``bgengine hint`` says of the same game state
(:meth:`bgengine.decisions.engine.Engine.hint`, worded by :mod:`bgengine.decisions.hints`), and what
the engine would do in the player's place."""

from __future__ import annotations

from bgengine.core.agents import Player
from bgengine.decisions.engine import Engine
from bgengine.decisions.hints import hint_lines
from bgengine.position import Move
from bgengine.state import GameState
from bgengine.terminal.opponent import EngineSide

__all__ = ["hint_engine", "play_hint", "cube_hint", "take_hint"]


def hint_engine(network, plies: int) -> Engine | None:
    """The engine of the hints: ``network`` (``None``: no hints with values) at ``plies``."""
    if network is None:
        return None
    return Engine(Player("net", network, name="net"), network=network, plies=plies)


def play_hint(engine: Engine | None, side: EngineSide, state: GameState, legal: list[Move],
              n: int, seed: int) -> list[str]:
    """The best ``n`` plays of ``state``'s dice for the side on roll (the player), as
    ``bgengine hint`` ranks and shows them; without a network, the play the engine's
    side would choose (with ``seed``)."""
    if engine is None:
        k = side.choose(state.board, *state.dice, seed)
        return [f"No network loaded, so no equities; the engine ({side.name}) "
                f"would play {legal[k].notation}."]
    return hint_lines(engine.hint(state, n=n))


def cube_hint(engine: Engine | None, state: GameState, refusal: str | None) -> list[str]:
    """The cube action before the player rolls (``state``: the player on roll), as
    ``bgengine hint`` shows it; ``refusal``: why the player may not double, if so."""
    lines = ["No network loaded: no cube hint."] if engine is None else hint_lines(engine.hint(state))
    return lines + ([f"You cannot double: {refusal}. Roll."] if refusal else [])


def take_hint(engine: Engine | None, state: GameState) -> list[str]:
    """The cube action when the engine has doubled (``state``: the doubler on roll, the
    double offered), as ``bgengine hint`` shows it from the doubler's view, and what the
    engine would answer in the player's place."""
    if engine is None:
        return ["No network loaded: no cube hint."]
    hint = engine.hint(state)
    answer = "take" if hint.cube.decision.take else "drop"
    return hint_lines(hint) + [f"In your place the engine would {answer}."]
