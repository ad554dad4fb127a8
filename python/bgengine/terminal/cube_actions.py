"""The cube at the table: who may double, your doubles and the engine's answers, the
engine's doubles and your answers (a part of :class:`bgengine.terminal.PlaySession`)."""

from __future__ import annotations

from bgengine.decisions.cube import CubeInfo
from bgengine.matchfiles.record import Double, Drop, Take
from bgengine.terminal.commands import read_take
from bgengine.terminal.drawing import double_refusal
from bgengine.terminal.table import ENGINE, HUMAN, GameEnd

__all__ = ["CubeActions"]


class CubeActions:
    """The cube's moments of a session (a mix-in of
    :class:`bgengine.terminal.session.PlaySession`, whose game, engine, prompts and
    record it uses)."""

    def _cube_for(self, side: int) -> CubeInfo:
        """The cube as ``side`` sees it when about to roll."""
        return CubeInfo.from_match_state(self._state_for(side), side)

    def _double_refusal(self, side: int) -> str | None:
        """Why ``side`` may not double now, or ``None``."""
        return double_refusal(self._cube_for(side), side)

    def _human_cube_useful(self) -> bool:
        """Offer the roll/double prompt: the human may double and it can matter (a live cube)."""
        return self._cube_for(HUMAN).can_double()

    def _human_doubles(self) -> None:
        """You double; returns only when the engine takes."""
        self.say(f"You double to {2 * self.g.cube}.")
        self._record(Double(HUMAN))
        self._engine_answers()

    def _engine_answers(self) -> None:
        """The engine answers your double (:class:`GameEnd` when it drops)."""
        g = self.g
        new = 2 * g.cube
        board = self._board_for(HUMAN)
        state = self._state_for(HUMAN, double_offered=True, turn=ENGINE)
        try:
            take = self.engine.take_decision(board, state)
        except Exception as exc:   # pragma: no cover - a cube engine bug
            self.say(f"(cube engine error: {exc}; the engine takes)")
            take = True
        if take:
            g.cube, g.cube_owner = new, ENGINE
            self._record(Take(ENGINE))
            self.say(f"The engine takes. The cube is at {new}, owned by the engine.")
            return
        self.say("The engine drops.")
        self._record(Drop(ENGINE))
        raise GameEnd(HUMAN, g.cube, "the engine dropped your double")

    def _engine_doubles(self) -> bool:
        """The engine's cube decision before it rolls; True if it doubled (and you took)."""
        if self._double_refusal(ENGINE):
            return False
        state = self._state_for(ENGINE)
        try:
            if not self.engine.can_double(state, ENGINE):
                return False
            double = self.engine.cube_decision(self._board_for(ENGINE), state, self.jacoby)
        except Exception as exc:   # pragma: no cover - a cube engine bug
            self.say(f"(cube engine error: {exc}; the engine rolls)")
            return False
        if not double:
            return False
        self.say(f"The engine doubles to {2 * self.g.cube}.")
        self._record(Double(ENGINE))
        return self._human_answers()

    def _human_answers(self) -> bool:
        """You answer the engine's double: True when you take (:class:`GameEnd` when you drop)."""
        g = self.g
        new = 2 * g.cube
        self._double_pending = True
        try:
            self.show()
            a = self.ask("take", f"The engine doubles to {new}: take or drop? ", self._take_line)
        finally:
            self._double_pending = False
        if a == "take":
            g.cube, g.cube_owner = new, HUMAN
            self._record(Take(HUMAN))
            self.say(f"You take. The cube is at {new}, yours.")
            return True
        self.say("You drop.")
        self._record(Drop(HUMAN))
        raise GameEnd(ENGINE, g.cube, "you dropped the engine's double")

    def _take_line(self, text: str) -> str | None:
        return self._reply(read_take(text))
