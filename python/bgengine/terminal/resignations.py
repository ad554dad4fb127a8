"""Resignations at the table: yours, which the engine accepts or declines, and the
engine's offers, which you accept or reject (a part of
:class:`bgengine.terminal.PlaySession`)."""

from __future__ import annotations

from bgengine.matches.game import points_scored
from bgengine.matchfiles.record import Resign
from bgengine.terminal.commands import LEVEL_NAMES, read_resignation_answer
from bgengine.terminal.table import ENGINE, HUMAN, GameEnd

__all__ = ["Resignations"]


class Resignations:
    """The resignations of a session (a mix-in of
    :class:`bgengine.terminal.session.PlaySession`, whose game, engine, prompts and
    record it uses).  The engine offers at most one resignation of each level a game: a
    rejected offer is made again only at a higher level."""

    def _points(self, level: int) -> int:
        """Points of the game in progress won (or resigned) at ``level``."""
        return points_scored(level, self.g.cube, jacoby=self.jacoby, cube_turned=self.g.cube_owner != -1)

    def _resign(self, level: int) -> None:
        g = self.g
        if g is None:
            self.say("No game in progress.")
            return
        board = self._board_for(ENGINE)
        state = self._state_for(ENGINE)
        try:
            accept = self.engine.resign_decision(board, state, level, self.jacoby)
        except Exception as exc:   # pragma: no cover - a cube engine bug
            self.say(f"The engine cannot judge the resignation ({exc}); it declines.")
            accept = False
        pts = self._points(level)
        if accept:
            self.say(f"You resign {LEVEL_NAMES[level]}; the engine accepts.")
            self._record(Resign(HUMAN, level))
            raise GameEnd(ENGINE, pts, f"you resigned {LEVEL_NAMES[level]}")
        self.say(f"You offer to resign {LEVEL_NAMES[level]} ({pts} point{'s' * (pts != 1)}); "
                 "the engine declines: play on.")

    def _engine_resigns(self) -> None:
        """Before its roll the engine offers to resign when the game is decided
        (:meth:`bgengine.decisions.engine.Engine.resign_offer`); :class:`GameEnd` when you
        accept."""
        g = self.g
        try:
            level = self.engine.resign_offer(self._board_for(ENGINE), self._state_for(ENGINE),
                                             self.jacoby)
        except Exception as exc:   # pragma: no cover - a cube engine bug
            self.say(f"(resignation engine error: {exc}; the engine plays on)")
            return
        if not level or level <= g.rejected_resignation:
            return
        pts = self._points(level)
        self.show()
        answer = self.ask("resignation", f"The engine offers to resign {LEVEL_NAMES[level]} "
                          f"({pts} point{'s' * (pts != 1)}): accept or reject? ",
                          lambda text: self._reply(read_resignation_answer(text)))
        if answer == "accept":
            self.say(f"You accept: the engine resigns {LEVEL_NAMES[level]}.")
            self._record(Resign(ENGINE, level))
            raise GameEnd(HUMAN, pts, f"the engine resigned {LEVEL_NAMES[level]}")
        g.rejected_resignation = level
        self.say("You reject: play on.")
