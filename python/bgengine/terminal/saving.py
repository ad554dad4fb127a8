"""The terminal's game saved as it goes (:mod:`bgengine.matchfiles.session_file`), and a saved game
set back on the table.

The engine is the file's player 0 (the left column, ``bgengine``), you are player 1 (the
right column), as the table numbers its seats.  A match file from another program can
be continued too: you take its player 1's seat.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from bgengine.matches.game import MatchScore
from bgengine.matchfiles.record import Action, MatchRecord
from bgengine.matchfiles.session_file import SavedSession, SessionLog
from bgengine.terminal.table import ENGINE, HUMAN, TableGame

__all__ = ["PLAYERS", "TableRecorder", "resumed_match", "resumed_game"]

#: The players' names in a saved file (player 0, player 1).
PLAYERS = ("bgengine", "you")


class TableRecorder:
    """Everything played at the table, saved to ``path`` after every action.

    ``dice``: the session's dice (their state is saved when they have
    ``getstate()`` giving ``state`` and ``inc``, as :class:`bgengine.core.dice.Dice` does);
    ``seed``, ``level``: saved as tags.  ``resumed``: the saved session this one
    goes on with (its record grows), else a new match of ``match_length`` points (0:
    money, with ``jacoby``).
    """

    def __init__(self, path: str | Path, *, dice, seed: int, level: str, match_length: int,
                 jacoby: bool, resumed: SavedSession | None = None) -> None:
        if resumed is not None:
            record = resumed.record
        else:
            record = MatchRecord(players=PLAYERS, length=match_length, jacoby=jacoby,
                                 metadata={"EventDate": datetime.now().strftime("%Y.%m.%d")})
        self.log = SessionLog(path, record)
        self.dice = dice
        self.log.tags.update(seed=str(seed), level=level)

    @property
    def path(self) -> Path:
        return self.log.path

    def _note(self, g: TableGame | None) -> None:
        """The tags of the moment: the dice's state, the roll not yet played."""
        state = self.dice.getstate() if hasattr(self.dice, "getstate") else None
        if isinstance(state, dict) and {"state", "inc"} <= state.keys():
            self.log.tags["dice"] = f"{state['state']} {state['inc']}"
        if g is not None and g.dice:
            self.log.tags["roll"] = f"{g.turn} {g.dice[0]} {g.dice[1]}"
        else:
            self.log.tags.pop("roll", None)

    def game_started(self, g: TableGame, score: list[int]) -> None:
        """Game ``g`` begins at ``score`` (``[engine, you]``) with its opening roll; save."""
        self.log.start_game((score[ENGINE], score[HUMAN]), g.crawford)
        self.rolled(g)

    def rolled(self, g: TableGame) -> None:
        """``g``'s side on roll has rolled ``g.dice``; save."""
        self._note(g)
        self.log.save()

    def act(self, g: TableGame | None, *actions: Action) -> None:
        """``actions`` happened in the game in progress, which now stands as ``g``; save."""
        self._note(g)
        self.log.add(*actions)

    def mark(self) -> tuple[int, int]:
        return self.log.mark()

    def rewind(self, mark: tuple[int, int], g: TableGame) -> None:
        """Back to ``mark`` (an undo), the game standing as ``g`` again; save."""
        self._note(g)
        self.log.rewind(mark)


def resumed_match(saved: SavedSession) -> MatchScore:
    """The match score of a saved session (seats as in the file)."""
    finished = saved.finished_games
    return MatchScore(saved.record.length, list(saved.score), games=len(finished),
                      crawford_done=saved.crawford_done)


def resumed_game(saved: SavedSession, number: int) -> TableGame | None:
    """The saved session's game in progress on the table, as game ``number`` (``None``:
    every game is finished).  Its pending double, if any, is ``saved.standing.doubler``."""
    st = saved.standing
    if st is None:
        return None
    game = saved.record.games[st.game]
    board = st.position if st.on_roll == HUMAN else st.position.swap()
    dice = saved.roll[1:] if saved.roll is not None else None
    if dice is not None and dice[0] < dice[1]:      # an older file's roll: the high die first
        dice = (dice[1], dice[0])
    return TableGame(number=number, board=board, turn=st.on_roll, dice=dice, cube=st.cube,
                     cube_owner=st.owner, crawford=game.crawford, plays=st.plays)
