"""A roll played one checker step at a time, as a person plays it on a board.

The legal plays of a roll are :func:`bgengine.core.movegen.legal_afterstates`' positions.  A
person reaches one of them step by step, one die at a time, in any order.  :class:`TurnSteps`
answers, at each moment of the turn, which single steps keep a legal play within reach
(a step after which the dice could no longer be used as the rules demand is refused) and
when the play is complete.  The compiled move generator stays the judge of what is legal:
a step is offered only if some order of steps from it ends on one of its positions with
as many dice used as its plays use.

Boards are ``(2, 25)`` arrays, the mover in row 1 (:data:`bgengine.types.Board`); a step
is ``(from, to)`` in the mover's numbering (25 = the bar, 0 = off).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from bgengine.core.board import validate_board
from bgengine.core.movegen import check_die, legal_afterstates
from bgengine.types import Step

__all__ = ["die_steps", "apply_step", "TurnSteps"]


def die_steps(board: np.ndarray, die: int) -> list[Step]:
    """The single steps of one ``die`` (a checker moved ``die`` pips or borne off), the
    bar first and bearing off only with every checker home; the rule to use as many
    dice as possible is not applied here (:class:`TurnSteps` applies it)."""
    me, opp = board[1], board[0]
    sources = [25] if me[24] else [p for p in range(24, 0, -1) if me[p - 1]]
    all_home = not me[6:25].any()
    out = []
    for a in sources:
        t = a - die
        if t >= 1:
            if opp[24 - t] < 2:                 # the mover's point t is the opponent's 25 - t
                out.append((a, t))
        elif all_home and (t == 0 or not me[a:6].any()):   # a larger die only from the highest
            out.append((a, 0))
    return out


def apply_step(board: np.ndarray, step: Step) -> np.ndarray:
    """The board after one step (a new array), hitting a lone opposing checker on arrival."""
    a, t = step
    b = board.copy()
    b[1, a - 1] -= 1
    if t:
        if b[0, 24 - t] == 1:
            b[0, 24 - t] = 0
            b[0, 24] += 1
        b[1, t - 1] += 1
    return b


class TurnSteps:
    """The turn of the mover of ``board`` (row 1) with the roll ``d1``-``d2``, step by step.

    ``steps`` are the steps made so far, ``board`` the position after them (``start``
    before them), ``dice_left`` the dice not yet used.  :meth:`next_steps` lists the
    steps allowed now, :meth:`step` and :meth:`hop` make them, :meth:`undo` takes back
    the last hop, :attr:`complete` says the play is finished and :attr:`index` is then
    its index in ``legal_afterstates(start, d1, d2)``.
    """

    def __init__(self, board, d1: int, d2: int) -> None:
        self.start = validate_board(board)
        self.d1, self.d2 = check_die(d1, "d1"), check_die(d2, "d2")
        after, steps = legal_afterstates(self.start, self.d1, self.d2)
        self._finals = {a.tobytes(): k for k, a in enumerate(after)}
        self._needed = max(int((st[:, 0] >= 0).sum()) for st in steps)   # dice every play uses
        self._dice = [d1] * 4 if d1 == d2 else [d1, d2]
        self._viable = lru_cache(maxsize=None)(self._viable_uncached)
        self.steps: list[Step] = []
        self._used: list[int] = []             # the die of each step
        self._hops: list[int] = []             # steps in each hop (what undo takes back)
        self.board = self.start

    # ------------------------------------------------------------ the rules
    @property
    def dice_left(self) -> list[int]:
        left = list(self._dice)
        for d in self._used:
            left.remove(d)
        return left

    def _viable_uncached(self, key: bytes, left: tuple[int, ...]) -> bool:
        """A legal play can still be reached from board ``key`` with the dice ``left``."""
        board = np.frombuffer(key, dtype=np.uint8).reshape(2, 25)
        if len(self._dice) - len(left) == self._needed:
            return key in self._finals
        return any(self._viable(apply_step(board, s).tobytes(), _without(left, d))
                   for d in set(left) for s in die_steps(board, d))

    def _allowed(self, board: np.ndarray, left: tuple[int, ...]) -> list[tuple[Step, int]]:
        """The steps allowed from ``board`` with the dice ``left`` (sorted), each with its die."""
        if len(self._dice) - len(left) == self._needed:
            return []
        return [(s, d) for d in sorted(set(left), reverse=True) for s in die_steps(board, d)
                if self._viable(apply_step(board, s).tobytes(), _without(left, d))]

    def next_steps(self) -> list[tuple[Step, int]]:
        """The steps allowed now, each with the die it uses, highest source first."""
        out = self._allowed(self.board, tuple(sorted(self.dice_left)))
        return sorted(out, key=lambda sd: (-sd[0][0], sd[0][1]))

    @property
    def complete(self) -> bool:
        """The steps made form a whole legal play (for a roll with no legal play: at once)."""
        return len(self._used) == self._needed and self.board.tobytes() in self._finals

    @property
    def index(self) -> int:
        """The finished play's index in ``legal_afterstates(start, d1, d2)``."""
        if not self.complete:
            raise ValueError("the play is not finished")
        return self._finals[self.board.tobytes()]

    # ------------------------------------------------------------ moving
    def step(self, step: Step) -> None:
        """Make one allowed step (``ValueError`` for any other)."""
        for s, d in self.next_steps():
            if s == tuple(step):
                self._make(s, d)
                self._hops.append(1)
                return
        raise ValueError(f"{_text(step)} is not a legal step now")

    def _make(self, step: Step, die: int) -> None:
        self.steps.append(step)
        self._used.append(die)
        self.board = apply_step(self.board, step)

    def hop_paths(self) -> dict[int, dict[int, list[tuple[Step, int]]]]:
        """Where each checker can go now by one or more allowed steps of that checker:
        ``{from: {to: [(step, die), ...]}}`` (a path with the fewest steps)."""
        out: dict[int, dict[int, list[tuple[Step, int]]]] = {}
        left = tuple(sorted(self.dice_left))
        for (a, _), _ in self.next_steps():
            if a in out:
                continue
            found = out[a] = {}
            frontier = [(self.board, left, a, [])]
            while frontier:                      # breadth first: the fewest steps first
                nxt = []
                for board, dice, pos, path in frontier:
                    for s, d in self._allowed(board, dice):
                        if s[0] != pos or s[1] in found:
                            continue
                        found[s[1]] = path + [(s, d)]
                        if s[1]:
                            nxt.append((apply_step(board, s), _without(dice, d), s[1],
                                        path + [(s, d)]))
                frontier = nxt
        return out

    def hop(self, source: int, dest: int) -> list[Step]:
        """Move one checker from ``source`` to ``dest`` by the fewest allowed steps (the
        steps made, for the record); ``ValueError`` when it cannot go there now."""
        path = self.hop_paths().get(source, {}).get(dest)
        if path is None:
            raise ValueError(f"{_text((source, dest))} is not a legal move now")
        for s, d in path:
            self._make(s, d)
        self._hops.append(len(path))
        return [s for s, _ in path]

    def undo(self) -> bool:
        """Take back the last hop; False when there is none."""
        if not self._hops:
            return False
        for _ in range(self._hops.pop()):
            self.steps.pop()
            self._used.pop()
        board = self.start
        for s in self.steps:
            board = apply_step(board, s)
        self.board = board
        return True


def _without(left: tuple[int, ...], die: int) -> tuple[int, ...]:
    rest = list(left)
    rest.remove(die)
    return tuple(rest)


def _text(step: Step) -> str:
    a, t = step
    return f"{'bar' if a == 25 else a}/{'off' if t == 0 else t}"
