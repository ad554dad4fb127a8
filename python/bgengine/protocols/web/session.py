"""One browser's game against the engine: a match (or money session) played action by action.

The browser sends actions (roll, double, take, pass, a checker moved, undo, the play
finished, the next game); :class:`BoardSession` checks each against the rules, plays the
engine's side until the person must act again, and describes the table for the page
(:meth:`BoardSession.view`).  The rules come from :mod:`bgengine.matches.game` (opening roll,
match score, Crawford and Jacoby rules), the plays a person may make step by step from
:class:`bgengine.protocols.web.steps.TurnSteps`, every decision of the engine (its plays, its cube,
its answers, the hints) from :class:`bgengine.decisions.engine.Engine`, and the record of the
match, saved as a ``.mat`` file, from :mod:`bgengine.matchfiles.record` and
:mod:`bgengine.matchfiles.mat`.

Seats are gnubg's: the engine is player 0 (top, the ``.mat`` file's left column), the
person player 1 (bottom, X), as in ``bgengine play``.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
import threading
from pathlib import Path
from typing import Any

from bgengine._checks import is_int
from bgengine.decisions.cube import CubeInfo
from bgengine.core.dice import Dice
from bgengine.decisions.engine import Engine
from bgengine.core.fileio import atomic_write
from bgengine.matches.game import Decision, MatchScore, match_opening, points_scored
from bgengine.notation.ids import MAX_MATCH_LENGTH, MatchState
from bgengine.matchfiles.record import GameRecorder, MatchRecord
from bgengine.matchfiles.mat import write_mat
from bgengine.core.movegen import legal_afterstates
from bgengine.position import Position
from bgengine.state import GameState
from bgengine.terminal.commands import LEVEL_NAMES
from bgengine.terminal.drawing import double_refusal, final_line, game_over_lines
from bgengine.terminal.table import ENGINE, HUMAN, TableGame, table_match_state
from bgengine.protocols.web.steps import TurnSteps

__all__ = ["BoardSession", "SessionError", "ROLL", "MOVE", "TAKE", "GAME_OVER", "MATCH_OVER",
           "LOG_LINES"]

log = logging.getLogger(__name__)

#: What the person is to do: roll (or double), move the checkers of a roll, answer the
#: engine's double, start the next game, or (match over) a new match.
ROLL, MOVE, TAKE, GAME_OVER, MATCH_OVER = "roll", "move", "take", "game_over", "match_over"
RESIGN = "resign"           # the engine offers to resign: accept or reject

#: Lines of the game's story kept for the page.
LOG_LINES = 40

_SIDE = {ENGINE: "engine", HUMAN: "you"}


class SessionError(ValueError):
    """An action the rules do not allow now (the message says why)."""


class BoardSession:
    """A person (player 1) against ``engine`` (player 0): a ``match_length``-point match,
    or money play (0; ``jacoby``: the Jacoby rule), with dice from ``seed`` (random if
    ``None``).  Every method that changes the game is an action of the person; it raises
    :class:`SessionError` when the action is not allowed now and leaves the game unchanged.
    Not safe for concurrent use by itself: :attr:`lock` guards it (the HTTP layer holds it).
    """

    def __init__(self, engine: Engine, *, match_length: int = 0, jacoby: bool = False,
                 seed: int | None = None, hint_plies: int | None = None,
                 player_name: str = "You") -> None:
        if not is_int(match_length) or not 0 <= match_length <= MAX_MATCH_LENGTH:
            raise ValueError(f"match length must be 0 (money play) or 1..{MAX_MATCH_LENGTH}, "
                             f"got {match_length!r}")
        self.engine = engine
        self.seed = secrets.randbelow(1 << 31) if seed is None else int(seed)
        self.dice = Dice(self.seed)
        self.jacoby = bool(jacoby) and match_length == 0
        self.hint_plies = hint_plies
        self.match = MatchScore(int(match_length))
        self.record = MatchRecord(players=(engine.player.name, player_name),
                                  length=int(match_length), jacoby=self.jacoby)
        self.lock = threading.Lock()
        self.log: list[str] = []
        self.game: TableGame | None = None
        self.turn: TurnSteps | None = None        # the person's roll being played
        self.phase = ROLL
        self.result: dict[str, Any] | None = None  # the last game's end
        self._recorder: GameRecorder | None = None
        self._finished: TableGame | None = None    # the last game, once over
        self._start_game()

    # ================================================================== views
    def _say(self, text: str) -> None:
        self.log.append(text)
        del self.log[:-LOG_LINES]

    def match_state(self, on_roll: int | None = None, **kw) -> MatchState:
        """The gnubg match state now, ``on_roll`` (default: the side whose turn it is) in row 1."""
        state = table_match_state(self.game, self.match, self.jacoby)
        if on_roll is not None:
            state = dataclasses.replace(state, player_on_roll=on_roll, turn=on_roll)
        return dataclasses.replace(state, **kw) if kw else state

    def _board_for(self, side: int):
        return self.game.board_for(side)

    def can_double(self) -> bool:
        """The person may double now (their turn, before rolling, with access to the cube)."""
        return (self.phase == ROLL and self.game is not None
                and double_refusal(CubeInfo.from_match_state(self.match_state(HUMAN), HUMAN),
                                   HUMAN) is None)

    def view(self) -> dict[str, Any]:
        """The table as the page draws it, from the person's side (``points[i]``: the
        checkers on the person's point ``i + 1``, positive the person's, negative the
        engine's; ``bar``/``off``/``pips``: ``{"you": n, "engine": n}``)."""
        g = self.game
        shown = g if g is not None else self._finished      # a finished game stays in view
        board = self.turn.board if self.turn is not None else (
            shown.board.board if shown is not None else Position.initial().board)
        me, opp = board[1], board[0]
        points = [int(me[i]) - int(opp[23 - i]) for i in range(24)]
        pips = Position(board).pips()
        view: dict[str, Any] = {
            "phase": self.phase,
            "points": points,
            "bar": {"you": int(me[24]), "engine": int(opp[24])},
            "off": {"you": 15 - int(me.sum()), "engine": 15 - int(opp.sum())},
            "pips": {"you": int(pips[0]), "engine": int(pips[1])},
            "dice": list(g.dice) if g is not None and g.dice else None,
            "dice_left": self.turn.dice_left if self.turn is not None else [],
            "cube": {"value": shown.cube if shown else 1,
                     "owner": {-1: "centre", ENGINE: "engine",
                               HUMAN: "you"}[shown.cube_owner if shown else -1]},
            "can_double": self.can_double(),
            "match": {"length": self.match.length,
                      "score": {"you": self.match.score[HUMAN], "engine": self.match.score[ENGINE]},
                      "crawford": bool(g and g.crawford), "game": self.match.games + (g is not None),
                      "jacoby": self.jacoby},
            "engine": self.engine.player.name,
            "resignation": (None if self.phase != RESIGN else
                            {"level": self.game.resignation_offered,
                             "points": self._points(self.game.resignation_offered)}),
            "result": self.result,
            "log": list(self.log),
            "move": None,
        }
        if self.turn is not None:
            view["move"] = {
                "steps": [list(s) for s in self.turn.steps],
                "complete": self.turn.complete,
                "targets": {str(a): sorted(dests) for a, dests in self.turn.hop_paths().items()},
                "can_undo": bool(self.turn.steps),
            }
        if g is not None:        # the state of the decision at hand, as gnubg writes it
            taking, answering = self.phase == TAKE, self.phase == RESIGN
            state = self.match_state(double_offered=taking,
                                     resignation=g.resignation_offered if answering else 0,
                                     turn=HUMAN if taking or answering else g.turn)
            view["gnubgid"] = GameState(Position(self._board_for(g.turn)), state).to_gnubgid()
        return view

    # ================================================================== games
    def _start_game(self) -> None:
        number = self.match.games + 1
        crawford = self.match.start_game()
        self.result = None
        score = (self.match.score[0], self.match.score[1])
        self._recorder = GameRecorder(score, crawford)
        self.record.games.append(self._recorder.record)
        seat, (h, e) = match_opening(self.dice, on_tie=lambda h, e: self._say(
            f"Opening roll: you {h}, engine {e}: a tie, roll again."))
        first = HUMAN if seat == 0 else ENGINE
        self._say(f"Game {number}" + (" (Crawford game: no doubling)" if crawford else "")
                  + f". Opening roll: you {h}, engine {e}: "
                  + ("you go first." if first == HUMAN else "the engine goes first."))
        self.game = TableGame(number=number, board=Position.initial(), turn=first,
                              dice=(max(h, e), min(h, e)), crawford=crawford)
        if first == HUMAN:
            self._begin_move()
        else:
            self._engine_plays()

    def _end_game(self, winner: int, level: int | None, how: str, points: int | None = None) -> None:
        """Game over: ``winner`` won at ``level`` (1-3; ``None``: ``points`` given, a dropped
        double)."""
        g = self.game
        if points is None:
            points = points_scored(level, g.cube, jacoby=self.jacoby, cube_turned=g.cube_owner != -1)
            if points < level * g.cube:
                how += " (counted single: Jacoby rule, the cube was never turned)"
        self._recorder.finish(winner, points)
        self.match.record(winner, points)
        for line in game_over_lines(self.match, winner, g.number, how, points):
            self._say(line)
        self.result = {"winner": _SIDE[winner], "points": points, "how": how}
        self._finished, self.game, self.turn = g, None, None
        if self.match.over:
            self._say(final_line(self.match, stopped=False))
            self.phase = MATCH_OVER
        else:
            self.phase = GAME_OVER

    def _check_over(self) -> bool:
        r = self.game.board.result()
        if r:
            self._end_game(HUMAN if r > 0 else ENGINE, abs(r), LEVEL_NAMES[abs(r)])
        return bool(r)

    def _record_play(self, side: int, board, d1: int, d2: int, index: int) -> None:
        after, _ = legal_afterstates(board, d1, d2)
        self._recorder("play", side, Decision(side, board, d1, d2, after, self.game.plays), index)

    # ================================================================== the engine
    def _points(self, level: int) -> int:
        g = self.game
        return points_scored(level, g.cube, jacoby=self.jacoby, cube_turned=g.cube_owner != -1)

    def _engine_turn(self) -> None:
        """The engine's turn from before its roll: an offer to resign when the game is
        decided (once a level a game), its cube action, then its play."""
        state = self.match_state(ENGINE)
        board = self._board_for(ENGINE)
        g = self.game
        level = self.engine.resign_offer(board, state, self.jacoby)
        if level > g.rejected_resignation:
            g.resignation_offered = level
            self._say(f"The engine offers to resign {LEVEL_NAMES[level]} "
                      f"({self._points(level)} point{'s' * (self._points(level) != 1)}).")
            self.phase = RESIGN
            return
        self._engine_cube_and_play()

    def _engine_cube_and_play(self) -> None:
        state = self.match_state(ENGINE)
        board = self._board_for(ENGINE)
        if self.engine.cube_decision(board, state, self.jacoby):
            self._recorder("double", ENGINE)
            self._say(f"The engine doubles to {2 * self.game.cube}.")
            self.phase = TAKE
            return
        self.game.dice = self.dice.roll()
        self._engine_plays()

    def _engine_plays(self) -> None:
        """The engine plays its roll, then it is the person's turn (or the game is over)."""
        g = self.game
        d1, d2 = g.dice
        board = self._board_for(ENGINE)
        legal = Position(board).legal_moves(d1, d2)
        k = (self.engine.choose_index_at(board, d1, d2, self.match_state(ENGINE))
             if len(legal) > 1 else 0)
        self._record_play(ENGINE, board, d1, d2, k)
        self._say(f"The engine rolls {d1}-{d2} and plays {legal[k]}.")
        g.board, g.turn, g.dice = legal[k].position, HUMAN, None
        g.plays += 1
        if not self._check_over():
            self.phase = ROLL

    # ================================================================== the person's actions
    def _require(self, *phases: str) -> None:
        if self.phase not in phases:
            raise SessionError(f"not now: the game waits for {_WAITING[self.phase]}")

    def roll(self) -> None:
        """Roll the dice (before the roll, instead of doubling)."""
        self._require(ROLL)
        self.game.dice = self.dice.roll()
        self._say(f"You roll {self.game.dice[0]}-{self.game.dice[1]}.")
        self._begin_move()

    def _begin_move(self) -> None:
        d1, d2 = self.game.dice
        self.turn = TurnSteps(self._board_for(HUMAN), d1, d2)
        self.phase = MOVE
        if self.turn.complete:
            self._say(f"No legal play with {d1}-{d2}: press Done to pass the turn.")

    def double(self) -> None:
        """Offer the engine a double; it takes (you then roll) or passes (you win the game)."""
        self._require(ROLL)
        if not self.can_double():
            why = double_refusal(CubeInfo.from_match_state(self.match_state(HUMAN), HUMAN), HUMAN)
            raise SessionError(f"you cannot double: {why}")
        g = self.game
        self._recorder("double", HUMAN)
        self._say(f"You double to {2 * g.cube}.")
        state = self.match_state(HUMAN, double_offered=True, turn=ENGINE)
        if self.engine.take_decision(self._board_for(HUMAN), state):
            self._recorder("take", ENGINE)
            g.cube, g.cube_owner = 2 * g.cube, ENGINE
            self._say(f"The engine takes: the cube is at {g.cube}, the engine's.")
            self.roll()
            return
        self._recorder("drop", ENGINE)
        self._say("The engine passes.")
        self._end_game(HUMAN, None, "the engine passed your double", points=g.cube)

    def accept(self) -> None:
        """Accept the engine's offer to resign: you win the game at that level."""
        self._require(RESIGN)
        level = self.game.resignation_offered
        self._recorder("resign", ENGINE, level)
        self._say(f"You accept: the engine resigns {LEVEL_NAMES[level]}.")
        self._end_game(HUMAN, level, f"the engine resigned {LEVEL_NAMES[level]}")

    def reject(self) -> None:
        """Reject the engine's offer to resign: the engine plays on (and offers that level
        no more this game)."""
        self._require(RESIGN)
        self.game.rejected_resignation = self.game.resignation_offered
        self._say("You reject: play on.")
        self._engine_cube_and_play()

    def take(self) -> None:
        """Take the engine's double: the cube is doubled and yours; the engine rolls."""
        self._require(TAKE)
        g = self.game
        self._recorder("take", HUMAN)
        g.cube, g.cube_owner = 2 * g.cube, HUMAN
        self._say(f"You take: the cube is at {g.cube}, yours.")
        g.dice = self.dice.roll()
        self._engine_plays()

    def pass_(self) -> None:
        """Pass (drop) the engine's double: the engine wins the cube's value."""
        self._require(TAKE)
        self._recorder("drop", HUMAN)
        self._say("You pass.")
        self._end_game(ENGINE, None, "you passed the engine's double", points=self.game.cube)

    def move(self, source: int, dest: int) -> None:
        """Move a checker of your roll from point ``source`` (25: the bar) to ``dest`` (0:
        off), by one or more dice; only steps that keep a legal play within reach."""
        self._require(MOVE)
        if not (is_int(source) and is_int(dest)):
            raise SessionError("a move is two point numbers (25: the bar, 0: off)")
        try:
            self.turn.hop(int(source), int(dest))
        except ValueError as exc:
            raise SessionError(str(exc)) from None

    def undo(self) -> None:
        """Take back the last checker moved in this turn."""
        self._require(MOVE)
        if not self.turn.undo():
            raise SessionError("nothing to undo: no checker moved in this turn")

    def commit(self) -> None:
        """The play is finished: it is recorded and the engine takes its turn."""
        self._require(MOVE)
        turn, g = self.turn, self.game
        if not turn.complete:
            raise SessionError("the play is not finished: move the checkers of every die "
                               "that can be played")
        board, (d1, d2) = self._board_for(HUMAN), g.dice
        move = Position(board).legal_moves(d1, d2)[turn.index]
        self._record_play(HUMAN, board, d1, d2, turn.index)
        self._say(f"You play {move}.")
        self.turn = None
        g.board, g.turn, g.dice = move.position.swap(), ENGINE, None
        g.plays += 1
        if not self._check_over():
            self._engine_turn()

    def next_game(self) -> None:
        """Start the next game of the match (or money session)."""
        self._require(GAME_OVER)
        self._start_game()

    # ================================================================== advice and the record
    def hint(self, n: int = 5) -> dict[str, Any]:
        """The engine's advice for the person now (:meth:`bgengine.decisions.engine.Engine.hint`):
        the plays of the roll (from the start of the turn), the cube action before the
        roll, or, with the engine's double to answer, the double seen from the engine's
        side; its ``to_dict()`` with ``"for"`` saying which."""
        g = self.game
        if self.phase == MOVE:
            state = GameState(Position(self._board_for(HUMAN)),
                              self.match_state(HUMAN, dice=g.dice))
            what = "play"
        elif self.phase == ROLL:
            state = GameState(Position(self._board_for(HUMAN)), self.match_state(HUMAN))
            what = "cube"
        elif self.phase == TAKE:
            state = GameState(Position(self._board_for(ENGINE)),
                              self.match_state(ENGINE, double_offered=True, turn=HUMAN))
            what = "take"
        else:
            raise SessionError("no hint: no game in progress")
        doc = self.engine.hint(state, n=n, plies=self.hint_plies).to_dict()
        doc["for"] = what
        return doc

    def mat_text(self) -> str:
        """The match so far (the game in progress too) as a ``.mat`` file's text."""
        return write_mat(self.record)

    def save_mat(self, folder: Path) -> Path | None:
        """Write the match to ``folder`` when a game has just ended (the same file each
        time, so that it holds the match so far); ``None`` otherwise."""
        if self.phase not in (GAME_OVER, MATCH_OVER):
            return None
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"bgengine-{self.seed}.mat"
        text = self.mat_text().encode()
        atomic_write(path, lambda f: f.write(text))
        return path

    @property
    def finished(self) -> bool:
        """The match is over (never in money play)."""
        return self.phase == MATCH_OVER


_WAITING = {ROLL: "you to roll or double", MOVE: "your play", TAKE: "your answer to the double",
            RESIGN: "your answer to the engine's resignation",
            GAME_OVER: "the next game", MATCH_OVER: "a new match (this one is over)"}
