"""The Python face of a backgammon position.

A :class:`Position` wraps the ``uint8`` (2, 25) array the compiled core uses
(row 1 = side on roll, row 0 = its opponent; column ``i`` = that side's own
point ``i + 1``; column 24 = its bar) and adds Position IDs, pip counts, a
text board, and legal moves that know their notation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Sequence

import numpy as np

from bgengine.core.board import game_result, is_race, pip_counts, validate_board
from bgengine.notation.ids import board_from_position_id, position_id
from bgengine.core.movegen import MoveGenerator
from bgengine.notation.moves import format_move, match_move
from bgengine.notation.state_text import parse_state
from bgengine.types import Step

__all__ = ["Position", "Move", "STARTING_BOARD"]

#: Slot -> checkers of one side in the starting position: 2 on the 24-point,
#: 5 on the 13, 3 on the 8, 5 on the 6.
_START_ROW = np.zeros(25, dtype=np.uint8)
_START_ROW[[23, 12, 7, 5]] = [2, 5, 3, 5]
STARTING_BOARD = np.stack([_START_ROW, _START_ROW])
STARTING_BOARD.setflags(write=False)



@dataclass(frozen=True)
class Move:
    """One legal play: a distinct resulting position and one checker sequence reaching it.

    Attributes
    ----------
    steps : tuple of (from, to)
        Single-die steps in the mover's numbering (25 = bar, 0 = off); empty
        when there is no legal play.
    notation : str
        gnubg's notation of the play (``"24/18 13/11"``); ``""`` for no play.
    position : Position
        The position after the play, with the opponent on roll (rows swapped).
    """

    steps: tuple[Step, ...]
    notation: str
    position: "Position"

    @property
    def board_after(self) -> np.ndarray:
        """The resulting board from the mover's side (row 1 = the mover, not swapped)."""
        return self.position.board[::-1]

    @property
    def is_pass(self) -> bool:
        """True for the empty play made when no legal play exists."""
        return not self.steps

    def __str__(self) -> str:
        return self.notation or "(no legal play)"


class Position:
    """An immutable backgammon position, the side on roll in row 1.

    >>> p = Position.initial()
    >>> p.position_id
    '4HPwATDgc/ABMA'
    >>> [m.notation for m in p.legal_moves(3, 1)][:2]
    """

    __slots__ = ("_board",)

    def __init__(self, board: Sequence[Sequence[int]] | np.ndarray) -> None:
        arr = validate_board(board)
        arr.setflags(write=False)
        self._board = arr

    # ------------------------------------------------------------ construction
    @classmethod
    def initial(cls) -> "Position":
        """The starting position."""
        return cls(STARTING_BOARD)

    @classmethod
    def from_id(cls, pid: str) -> "Position":
        """From a 14-character GNU Backgammon Position ID, or from a whole game state
        (gnubg's ``PositionID:MatchID``, an XGID; :func:`bgengine.notation.state_text.parse_state`):
        then the position of the side on roll."""
        if isinstance(pid, str) and (":" in pid or pid.lstrip().upper().startswith("XGID=")):
            return cls(parse_state(pid).board)
        return cls(board_from_position_id(pid))

    # ------------------------------------------------------------ accessors
    @property
    def board(self) -> np.ndarray:
        """The (2, 25) ``uint8`` array, read-only."""
        return self._board

    @property
    def position_id(self) -> str:
        """The GNU Backgammon Position ID."""
        return position_id(self._board)

    def swap(self) -> "Position":
        """The same checkers with the other side on roll."""
        return Position(self._board[::-1])

    def pips(self) -> tuple[int, int]:
        """``(pips of the side on roll, pips of the opponent)``."""
        return pip_counts(self._board)

    def borne_off(self) -> tuple[int, int]:
        """``(checkers borne off by the side on roll, by the opponent)``."""
        s = self._board.sum(axis=1, dtype=np.int64)
        return 15 - int(s[1]), 15 - int(s[0])

    def result(self) -> int:
        """0 while the game goes on; +v if the side on roll has borne off all
        its checkers (v = 1 single, 2 gammon, 3 backgammon), -v if the opponent has."""
        return game_result(self._board)

    def is_game_over(self) -> bool:
        return self.result() != 0

    def result_text(self) -> str:
        """Who has won what, in words (for a finished game)."""
        r = self.result()
        kind = {1: "a single game", 2: "a gammon", 3: "a backgammon"}[abs(r)]
        return f"the side {'on roll' if r > 0 else 'not on roll'} has won {kind}"

    def is_race(self) -> bool:
        """True when no more contact is possible."""
        return is_race(self._board)

    # ------------------------------------------------------------ moves
    def legal_moves(self, d1: int, d2: int) -> list[Move]:
        """Every distinct legal play for the roll ``d1``-``d2``, in gnubg's order.

        Always at least one: with no legal play, a single :class:`Move` with no
        steps and the unchanged checkers (opponent now on roll).  ``ValueError`` for a
        finished game: nobody moves once a side has borne off every checker.
        """
        if self.is_game_over():
            raise ValueError(f"the game is over ({self.result_text()}): there is no play")
        afterstates, steps = MoveGenerator().legal_afterstates(self._board, d1, d2)
        return [self.move(after, st) for after, st in zip(afterstates, steps)]

    def move(self, after: np.ndarray, steps: np.ndarray) -> Move:
        """The :class:`Move` of one row of ``legal_afterstates`` from this position:
        ``after`` (2, 25), the mover still in row 1, and its ``steps`` (4, 2), -1 unused."""
        seq = tuple((int(a), int(b)) for a, b in steps if a >= 0)
        return Move(seq, format_move(self._board, seq), Position(after[::-1]))

    def parse_move(self, text: str, d1: int, d2: int) -> Move:
        """The legal play that ``text`` (any notation gnubg accepts) means.

        Raises ``ValueError`` saying which part is illegal, or that the text is
        ambiguous.
        """
        index = match_move(self._board, d1, d2, text)
        return self.legal_moves(d1, d2)[index]

    def play(self, text: str, d1: int, d2: int) -> "Position":
        """The position after playing ``text``, opponent on roll."""
        return self.parse_move(text, d1, d2).position

    def best_move(self, model, d1: int, d2: int, plies: int = 0) -> Move:
        """The play ``model`` chooses for the roll ``d1``-``d2`` at ``plies``, as a :class:`Move`.

        ``model`` is a :class:`~bgengine.core.search.Searcher` (its cache and move filter are
        used) or a network or evaluator (searched with a new ``Searcher``).  The same
        choice as ``Searcher.best_move``, which returns the play's index and outputs.
        """
        from bgengine.core.search import Searcher

        searcher = model if isinstance(model, Searcher) else Searcher(model)
        index, _ = searcher.best_move(self._board, d1, d2, plies)
        return self.legal_moves(d1, d2)[index]

    # ------------------------------------------------------------ dunder
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return bool(np.array_equal(self._board, other._board))

    def __hash__(self) -> int:
        return hash(self._board.tobytes())

    def __repr__(self) -> str:
        return f"Position.from_id({self.position_id!r})"

    def __str__(self) -> str:
        return self.to_text()

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter(self._board)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        """The board: a Position goes wherever a (2, 25) board array does (``np.asarray``,
        ``Network.evaluate``, ``Searcher.best_move``, ``rollout``...)."""
        arr = self._board if dtype is None else self._board.astype(dtype, copy=False)
        return arr.copy() if copy else arr

    # ------------------------------------------------------------ drawing
    def to_text(self, mover: str = "X", opponent: str = "O") -> str:
        """A readable text board from the side on roll's view, gnubg style.

        The side on roll (``mover``) moves from the top-right (its 24-point)
        round to the bottom-right (its 1-point); its bar is drawn in the
        middle column, as is the opponent's.
        """
        b = self._board.astype(int)
        me, opp = b[1], b[0]

        def cell(point: int, row: int) -> str:
            # point in the mover's numbering 1..24; row 0 is nearest the edge
            n_me, n_opp = me[point - 1], opp[24 - point]
            n, ch = (n_me, mover) if n_me else (n_opp, opponent)
            return _stack(n, ch, row, empty=" . " if row == 0 else "   ")

        def half(points: list[int], rows: range, bar_n: int, bar_ch: str) -> list[str]:
            return [f" |{''.join(cell(p, r) for p in points[:6])}"
                    f"|{_stack(bar_n, bar_ch, r)}"
                    f"|{''.join(cell(p, r) for p in points[6:])}|" for r in rows]

        top = list(range(13, 25))
        bottom = list(range(12, 0, -1))
        my_pips, opp_pips = self.pips()
        my_off, opp_off = self.borne_off()
        out = [" +13-14-15-16-17-18-+BAR+19-20-21-22-23-24-+"]
        out += half(top, range(5), int(opp[24]), opponent)
        out.append(" |                  |   |                  |")
        out += half(bottom, range(4, -1, -1), int(me[24]), mover)
        out.append(" +12-11-10-09-08-07-+---+06-05-04-03-02-01-+")
        out.append(f" {mover} on roll: pips {my_pips}, off {my_off}   "
                   f"{opponent}: pips {opp_pips}, off {opp_off}")
        out.append(f" Position ID: {self.position_id}")
        return "\n".join(out)


def _stack(n: int, ch: str, row: int, empty: str = "   ") -> str:
    """Row ``row`` (0 = nearest the edge) of a stack of ``n`` checkers: up to
    five drawn, a taller stack shows four and then its count."""
    if n == 0:
        return empty
    if n <= 5:
        return f" {ch} " if row < n else "   "
    return f" {ch} " if row < 4 else f"{n:>2} "
