"""IDs and notation: the text forms of positions, states and plays.

- :mod:`~bgengine.notation.ids`: gnubg Position IDs and Match IDs
- :mod:`~bgengine.notation.state_text`: a whole game state as text (XGID, ``PositionID:MatchID``)
- :mod:`~bgengine.notation.moves`: move notation (``24/18 13/11``), read against a position and roll
- :mod:`~bgengine.notation.fibs`: FIBS ``board:`` lines

The package re-exports the names of :mod:`~bgengine.notation.moves` (``from bgengine.notation
import parse_move``).
"""

from __future__ import annotations

from bgengine._lazy import lazy_exports

#: public name -> the module that defines it (imported on first use)
_EXPORTS = {
    "format_move": "bgengine.notation.moves",
    "parse_move": "bgengine.notation.moves",
    "match_move": "bgengine.notation.moves",
    "legal_moves": "bgengine.notation.moves",
    "legal_move_notations": "bgengine.notation.moves",
    "format_steps_plain": "bgengine.notation.moves",
}

__all__ = list(_EXPORTS)

__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)
