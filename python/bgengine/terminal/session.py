"""The terminal session: a thin controller between the player's lines and the game.

The rules come from :mod:`bgengine.matches.game` (the match score and the Crawford rule, the
opening roll, the Jacoby rule), the cube's rules from :mod:`bgengine.decisions.cube` and every
decision of the engine's side (its cube, takes, resignations, hints) from
:class:`bgengine.decisions.engine.Engine`.  What the player types is read by
:mod:`~bgengine.terminal.commands`, what the player sees is drawn by
:mod:`~bgengine.terminal.drawing`.
"""

from __future__ import annotations

import dataclasses
import secrets
import sys
from typing import Callable, TextIO

import numpy as np

from bgengine._checks import is_int
from bgengine.core.dice import Dice
from bgengine.decisions.engine import Engine
from bgengine.matches.game import MatchScore, game_seed, match_opening, points_scored
from bgengine.notation.ids import MAX_MATCH_LENGTH, MatchState, match_id
from bgengine.matchfiles.record import Action, Play, Resign, Win
from bgengine.position import Move, Position
from bgengine.matchfiles.session_file import SavedSession
from bgengine.state import GameState
from bgengine.terminal.advice import cube_hint, hint_engine, play_hint, take_hint
from bgengine.terminal.commands import (HELP, MAX_INPUT, LEVEL_NAMES, CommandError, Reply,
                                        not_understood, quote, read_command, read_move_word,
                                        read_preroll, suggest_command)
from bgengine.terminal.console import Console, Quit
from bgengine.terminal.cube_actions import CubeActions
from bgengine.terminal.resignations import Resignations
from bgengine.terminal.drawing import banner_lines, board_text, final_line, game_over_lines, score_line
from bgengine.terminal.opponent import LEVELS, EngineSide, load_play_network
from bgengine.terminal.saving import TableRecorder, resumed_game, resumed_match
from bgengine.terminal.table import (ENGINE, HUMAN, GameEnd, TableGame, high_first, start_position,
                                     table_match_state)

__all__ = ["PlaySession", "LEVELS"]


class _Undo(Exception):
    """Back to the start of the turn whose move was taken back (never shown)."""


#: Control flow out of a prompt: never reported as a failure of the line.
_FLOW = (Quit, _Undo, GameEnd)


class PlaySession(CubeActions, Resignations):
    """A person against the engine, through an input and an output stream.

    Parameters
    ----------
    input, output : text streams
        Lines are read with ``input.readline()``; everything is written to
        ``output``.  Defaults: ``sys.stdin`` / ``sys.stdout``.
    seed : int, optional
        Dice seed (random if not given; it is printed so a session can be
        replayed).  Same seed and same input lines: the same session.
    match_length : int
        0 for money play (the default), else the match length (1..64).
    level : str
        ``easy``, ``medium`` or ``hard`` (see ``LEVELS``).
    player : str or Player, optional
        A :func:`bgengine.matches.players.make_player` spec (or a player object with
        ``choose(board, d1, d2, seed)``) that chooses the engine's plays
        instead of the level's network play.
    network : Network or str or path, optional
        The network for the engine's plays, hints and cube decisions.
        Default: the shipped network if installed, else none (pubeval plays).
    games : int, optional
        Money play: stop after this many games (default: play until quit);
        with ``resume``, this many more.
    jacoby : bool
        Money play with the Jacoby rule (gammons count only once the cube
        has been turned).
    hint_plies : int
        Lookahead of ``hint`` for its best candidates (default 2).
    echo : bool
        Write every input line back (useful when the input is a file).
    engine : bgengine.decisions.engine.Engine, optional
        The cube brain (default: ``Engine(network=...)``).
    position : Position or str, optional
        Start the first game from this position (a Position or a Position
        ID), you on roll, instead of the opening position.
    dice : optional
        The dice (an object with ``roll()``, ``getstate()``, ``setstate()``
        like :class:`bgengine.core.dice.Dice`); default ``Dice(seed)``.
    save : str or path, optional
        Save the match (or money session) to this ``.mat`` file after every
        action (:mod:`bgengine.terminal.saving`); default: not saved.
    resume : SavedSession, optional
        Go on with this saved session (:func:`bgengine.matchfiles.session_file.load_session`)
        at the point it stopped: its match length, rules, score, game, dice
        and seed (unless ``seed`` is given) replace the arguments'.
    """

    def __init__(self, input: TextIO | None = None, output: TextIO | None = None, *,
                 seed: int | None = None, match_length: int = 0, level: str = "medium",
                 player=None, network=None, games: int | None = None, jacoby: bool = False,
                 hint_plies: int = 2, echo: bool = False, engine=None, position=None,
                 dice=None, save=None, resume: SavedSession | None = None) -> None:
        self.input = input if input is not None else sys.stdin
        self.output = output if output is not None else sys.stdout
        if resume is not None:
            match_length, jacoby = resume.record.length, resume.record.jacoby
            seed = resume.seed if seed is None else seed
        if not is_int(match_length) or not 0 <= match_length <= MAX_MATCH_LENGTH:
            raise ValueError(f"match length must be 0 (money play) or 1..{MAX_MATCH_LENGTH}, "
                             f"got {match_length!r}")
        if level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")
        if games is not None and not (is_int(games) and games >= 1):
            raise ValueError(f"games must be a whole number >= 1, got {games!r}")
        if not is_int(hint_plies) or not 0 <= hint_plies <= 3:
            raise ValueError(f"hint plies must be 0..3, got {hint_plies!r}")
        if seed is None:
            seed = secrets.randbelow(1 << 31)
        self.seed = int(seed)
        self.dice = Dice(self.seed) if dice is None else dice
        if resume is not None and resume.dice_state is not None and hasattr(self.dice, "setstate"):
            self.dice.setstate(resume.dice_state)
        self._start_position = start_position(position)
        if self._start_position is not None and (save is not None or resume is not None):
            raise ValueError("a game from a set position cannot be saved or continued: a .mat "
                             "file's games start from the opening position")
        self.match_length = match_length
        self.level = level
        self.games_limit = games
        self.jacoby = bool(jacoby) and match_length == 0
        self.hint_plies = hint_plies
        self._hint_engine: Engine | None = None       # made at the first hint
        self.console = Console(self.input, self.output, echo)

        # ---- who plays for the engine, and its network (hints, cube, level play)
        network = load_play_network(network)
        self.side = EngineSide(level, network, player)
        self.network, self.searcher = network, self.side.searcher
        self.engine_name, self.notes = self.side.name, self.side.notes
        self.engine = engine if engine is not None else Engine(player="pubeval", network=network)

        # ---- match state
        self.match = MatchScore(match_length) if resume is None else resumed_match(resume)
        self.g: TableGame | None = None
        self._snapshots: list[tuple[TableGame, dict, tuple[int, int]]] = []
        # a saved session: its game in progress, a double waiting for its answer, the
        # next game's opening roll
        self.resume = resume
        self._resumed = None if resume is None else resumed_game(resume, self.match.games + 1)
        self._pending_double = -1 if self._resumed is None else resume.standing.doubler
        self._opening = resume.roll if resume is not None and self._resumed is None else None
        self._games_at_start = self.match.games
        self.recorder = None if save is None else TableRecorder(
            save, dice=self.dice, seed=self.seed, level=level, match_length=match_length,
            jacoby=self.jacoby, resumed=resume)
        # what is being asked (for scripts and tests): None, "preroll", "move", "take"
        self.prompt_kind: str | None = None
        self.legal: list[Move] = []
        self.finished = False
        self.error: Exception | None = None     # set when run() stopped on an internal error
        self._double_pending = False

    # ================================================================== I/O
    @property
    def echo(self) -> bool:
        return self.console.echo

    @property
    def lines_read(self) -> int:
        return self.console.lines_read

    def say(self, text: str = "") -> None:
        """Write a line (text that the output's encoding cannot hold is escaped)."""
        self.console.say(text)

    def _say_lines(self, lines: list[str]) -> None:
        for line in lines:
            self.say(line)

    def ask(self, kind: str, prompt: str, handler: Callable[[str], object]) -> object:
        """Read lines until ``handler`` returns something other than ``None`` (``None``:
        the line was dealt with, prompt again).

        Every line is handled inside its own ``try``: whatever the line, an
        unexpected error is reported and the prompt comes back.
        """
        while True:
            self.prompt_kind = kind
            line = self.console.readline(prompt)
            try:
                text = "".join(ch if ch.isprintable() else " " for ch in line).strip()
                if len(text) > MAX_INPUT:
                    self.say(f"That line is too long ({len(text)} characters); ignored.")
                    continue
                if self._common(text, kind):
                    continue
                result = handler(text)
                if result is None:
                    continue
                self.prompt_kind = None
                return result
            except _FLOW:
                self.prompt_kind = None
                raise
            except KeyboardInterrupt:
                raise
            except Exception as exc:  # never crash on an input line
                try:
                    self.say(f"Sorry, {quote(line)} could not be handled "
                             f"({type(exc).__name__}: {exc}). Type 'help' for the commands.")
                except _FLOW:
                    raise
                except Exception:   # pragma: no cover - even the message failed
                    pass

    # ================================================================== driving
    def run(self) -> int:
        """Play until the match is over, the game limit is reached, ``quit``
        or the end of input.  Returns the exit status: 0, 130 when interrupted (Ctrl-C;
        what was played is saved), 1 after an internal error."""
        try:
            self._banner()
            while not self._session_over():
                self._play_game()
            self.say(final_line(self.match, stopped=False))
        except Quit:
            self._last_word(final_line(self.match, stopped=True))
        except KeyboardInterrupt:
            self._last_word("\nInterrupted.")
            return 130
        except Exception as exc:   # a bug outside any input line: say so, do not dump a traceback
            self.error = exc
            self._last_word(f"\nInternal error: {type(exc).__name__}: {exc}. The session ends; "
                            "please report this with the dice seed above.")
            return 1
        finally:
            self.finished = True
            self.prompt_kind = None
        return 0

    @property
    def score(self) -> list[int]:
        """Points so far: ``[engine, you]``."""
        return self.match.score

    @property
    def games_played(self) -> int:
        return self.match.games

    def _session_over(self) -> bool:
        if self.match_length:
            return self.match.over
        return (self.games_limit is not None
                and self.games_played - self._games_at_start >= self.games_limit)

    def _banner(self) -> None:
        self._say_lines(banner_lines(self.match_length, self.jacoby, self.level, self.engine_name,
                                     self.seed, self.notes))
        if self.resume is not None:
            e, h = self.match.score
            self.say(f"Continuing {self.resume.path} at game {self.match.games + 1} "
                     f"(you {h}, engine {e}).")
        if self.recorder is not None:
            self.say(f"Saving to {self.recorder.path} after every move; go on later with "
                     f"'bgengine play --continue {self.recorder.path}'.")

    def _record(self, *actions: Action) -> None:
        """``actions`` happened in the game in progress: into the saved file, if any."""
        if self.recorder is not None:
            self.recorder.act(self.g, *actions)

    def _last_word(self, text: str) -> None:
        """Say ``text`` if the output is still there."""
        try:
            self.say(text)
        except _FLOW:
            pass

    # ================================================================== state views
    def match_state(self, *, double_offered: bool = False, turn: int | None = None) -> MatchState:
        """The gnubg match state of the moment (player 0 = engine, 1 = you)."""
        if self._double_pending and turn is None:      # the other side answers a double
            double_offered, turn = True, 1 - (self.g.turn if self.g is not None else HUMAN)
        return table_match_state(self.g, self.match, self.jacoby, double_offered=double_offered,
                                 turn=turn)

    def _state_for(self, side: int, **kw) -> MatchState:
        """The match state with ``side`` on roll (for the cube engine)."""
        kw.setdefault("turn", side)
        return dataclasses.replace(self.match_state(), player_on_roll=side, **kw)

    def _board_for(self, side: int) -> np.ndarray:
        """The board with ``side`` in row 1."""
        return self.g.board_for(side)

    def board_text(self) -> str:
        """The board from your side, with pips, cube, score, Position ID and Match ID."""
        if self.g is None:
            return "(no game in progress)"
        try:
            mid = match_id(self.match_state())
        except ValueError:   # pragma: no cover - a state gnubg cannot encode
            mid = "-"
        return board_text(self.g, self.match, mid)

    def show(self) -> None:
        self.say(self.board_text())

    # ================================================================== commands
    def _common(self, text: str, kind: str) -> bool:
        """Carry out ``text`` if it is a command valid at every prompt; False when it is
        not one (the prompt's own handler reads it then)."""
        try:
            command = read_command(text)
        except CommandError as exc:
            self.say(str(exc))
            return True
        if command is None:
            return False
        name = command.name
        if name == "help":
            self.say(HELP)
        elif name == "quit":
            self.say("Leaving the game.")
            raise Quit("quit")
        elif name == "show":
            self.show()
        elif name == "score":
            self._say_score()
        elif name == "hint":
            self._hint(kind, command.arg)
        elif name == "undo":
            self._undo()
        elif name == "resign":
            self._resign(command.arg)
        elif name == "moves":
            if kind == "move" and self.legal:
                self._list_moves()
            else:
                self.say("You have no roll to play now; 'moves' lists the legal plays of your roll.")
        return True

    def _reply(self, reply: Reply) -> str | None:
        """Say ``reply``'s message, if any; its answer (``None``: ask again)."""
        if reply.message is not None:
            self.say(reply.message)
        return reply.answer

    def _say_score(self) -> None:
        self.say(score_line(self.match, bool(self.g and self.g.crawford)))

    def _list_moves(self) -> None:
        d1, d2 = self.g.dice
        self.say(f"The {len(self.legal)} legal plays of {d1}-{d2}:")
        for i, m in enumerate(self.legal, 1):
            self.say(f"  {i:3d}. {m.notation}")

    # ------------------------------------------------------------------ hint
    def _hint(self, kind: str, n: int) -> None:
        """What ``bgengine hint`` says of the moment: the plays of your roll, or the cube
        action before you roll or when the engine has doubled."""
        if self.g is None or kind not in ("move", "preroll", "take"):
            self.say("No game in progress." if self.g is None else "No hint now.")
            return
        if self._hint_engine is None and self.network is not None:
            self._hint_engine = hint_engine(self.network, self.hint_plies)
        engine = self._hint_engine
        if kind == "take":      # the doubler (the engine) on roll, the double offered
            self._say_lines(take_hint(engine, GameState(Position(self._board_for(ENGINE)),
                                                        self.match_state())))
            return
        state = GameState(Position(self._board_for(HUMAN)), self._state_for(HUMAN))
        if kind == "move":
            self._say_lines(play_hint(engine, self.side, state, self.legal, n, self._engine_seed()))
        else:
            self._say_lines(cube_hint(engine, state, self._double_refusal(HUMAN)))

    # ------------------------------------------------------------------ undo
    def _snapshot(self) -> None:
        g = dataclasses.replace(self.g)
        mark = self.recorder.mark() if self.recorder is not None else (0, 0)
        self._snapshots.append((g, self.dice.getstate(), mark))

    def _undo(self) -> None:
        if not self._snapshots:
            self.say("Nothing to undo: you have not made a move in this game yet.")
            return
        g, dstate, mark = self._snapshots.pop()
        self.g = dataclasses.replace(g)
        self.dice.setstate(dstate)
        if self.recorder is not None:
            self.recorder.rewind(mark, self.g)
        d1, d2 = g.dice
        self.say(f"Your last move is taken back: you are to play {d1}-{d2} again.")
        self.show()
        raise _Undo()

    # ================================================================== the game
    # The game is played here move by move rather than by bgengine.matches.game.game_decisions:
    # undo takes a move back together with the dice rolled since (the generator cannot
    # be rewound), and a game may start from any position with the human on roll.
    def _new_game(self) -> TableGame:
        number = self.games_played + 1
        crawford = self.match.start_game()
        self.say("")
        self.say(f"=== Game {number}" + (" (Crawford game: no doubling)" if crawford else "") + " ===")
        if self._start_position is not None:
            start, self._start_position = self._start_position, None
            self.say(f"Starting from position {start.position_id}, you on roll.")
            return TableGame(number=number, board=start, turn=HUMAN, dice=None, crawford=crawford)
        # the first die is the human's (seat 0 of the opening roll), the second the engine's
        if self._opening is not None:       # a saved session's opening roll
            (first, d1, d2), self._opening = self._opening, None
            h, e = (d1, d2) if first == HUMAN else (d2, d1)
        else:
            seat, (h, e) = match_opening(self.dice, on_tie=lambda h, e: self.say(
                f"Opening roll: you {h}, engine {e}: a tie, roll again."))
            first = HUMAN if seat == 0 else ENGINE
        self.say(f"Opening roll: you {h}, engine {e}: "
                 + ("you go first with " if first == HUMAN else "the engine goes first with ")
                 + f"{max(h, e)}-{min(h, e)}.")
        g = TableGame(number=number, board=Position.initial(), turn=first,
                      dice=(max(h, e), min(h, e)), crawford=crawford)
        if self.recorder is not None:
            self.recorder.game_started(g, self.match.score)
        return g

    def _play_game(self) -> None:
        resumed, self._resumed = self._resumed, None
        self.g = resumed or self._new_game()
        self._snapshots = []
        try:
            if resumed is not None and resumed.dice is not None:
                self.show()
            if self._pending_double != -1:        # a saved session stopped at a double
                doubler, self._pending_double = self._pending_double, -1
                self.say(("The engine" if doubler == ENGINE else "You") + " doubled.")
                if doubler == ENGINE:
                    self._human_answers()
                else:
                    self._engine_answers()
            while True:
                try:
                    if self.g.turn == HUMAN:
                        self._human_turn()
                    else:
                        self._engine_turn()
                except _Undo:
                    continue
        except GameEnd as end:
            self._finish_game(end)

    def _check_over(self) -> None:
        r = self.g.board.result()
        if r:
            winner = HUMAN if r > 0 else ENGINE
            how = LEVEL_NAMES[abs(r)]
            pts = self._points(abs(r))
            if pts < abs(r) * self.g.cube:
                how += " (counted single: Jacoby rule, the cube was never turned)"
            raise GameEnd(winner, pts, how)

    def _finish_game(self, end: GameEnd) -> None:
        g = self.g
        self.prompt_kind = None
        self.legal = []
        self.match.record(end.winner, end.points)
        self.g = None
        self._record(Win(end.winner, end.points))
        self._say_lines(game_over_lines(self.match, end.winner, g.number, end.how, end.points))
        self._snapshots = []

    def _apply(self, side: int, move: Move) -> None:
        """Play ``move`` (chosen from ``side``'s legal plays) and pass the turn."""
        g = self.g
        dice = g.dice
        g.board = move.position.swap() if side == HUMAN else move.position
        g.turn = 1 - side
        g.dice = None
        g.plays += 1
        self._record(Play(side, dice, move.steps))
        self._check_over()

    # ------------------------------------------------------------------ human
    def _human_turn(self) -> None:
        g = self.g
        if g.dice is None:
            prompted = self._human_cube_useful()
            if prompted:
                self.show()
                if self.ask("preroll", "Your turn: roll or double? ", self._preroll_line) == "double":
                    self._human_doubles()     # returns only when the engine takes
            g.dice = high_first(self.dice.roll())
            if self.recorder is not None:
                self.recorder.rolled(g)
            if prompted:
                self.say(f"You roll {g.dice[0]}-{g.dice[1]}.")
            else:
                self.show()
        d1, d2 = g.dice
        board = self._board_for(HUMAN)
        self.legal = Position(board).legal_moves(d1, d2)
        if self.legal[0].is_pass:
            self.say(f"You rolled {d1}-{d2}: no legal play. Your turn passes.")
            self._apply(HUMAN, self.legal[0])
            return
        if len(self.legal) == 1:
            self.say(f"You rolled {d1}-{d2}: only one legal play, {self.legal[0].notation}; "
                     "played for you.")
            self._apply(HUMAN, self.legal[0])
            return
        move = self.ask("move", f"Your move ({d1}-{d2}): ", self._move_line)
        self.say(f"You play {move.notation}.")
        self._snapshot()          # for undo: the state before this move
        self.legal = []
        self._apply(HUMAN, move)

    def _preroll_line(self, text: str) -> str | None:
        return self._reply(read_preroll(text, self._double_refusal(HUMAN)))

    def _move_line(self, text: str) -> Move | None:
        d1, d2 = self.g.dice
        message = read_move_word(text, d1, d2, self._double_refusal(HUMAN), self.legal[0].notation)
        if message is not None:
            self.say(message)
            return None
        if text.isascii() and text.isdigit():      # its number in 'moves' (bgengine moves')
            if 1 <= int(text) <= len(self.legal):
                return self.legal[int(text) - 1]
            self.say(f"No play {text}: there are {len(self.legal)} legal plays of {d1}-{d2}; "
                     "type 'moves' to list them with their numbers.")
            return None
        try:
            return Position(self._board_for(HUMAN)).parse_move(text, d1, d2)
        except ValueError as exc:
            if suggest_command(text) is not None:     # a mistyped command, not a move
                self.say(not_understood(text, str(exc)))
                return None
            self.say(f"Ambiguous move: {exc}." if "ambiguous" in str(exc) else f"Illegal move: {exc}.")
            self.say(f"Type 'moves' to list the {len(self.legal)} legal plays of {d1}-{d2}.")
            return None

    # ------------------------------------------------------------------ engine
    def _engine_seed(self) -> int:
        """The seed of the engine's next play (for a player with randomness)."""
        return game_seed(self.seed, 0, self.g.number, self.g.plays)

    def _engine_turn(self) -> None:
        g = self.g
        if g.dice is None:
            self._engine_resigns()
            self._engine_doubles()
            g.dice = high_first(self.dice.roll())
        d1, d2 = g.dice
        board = self._board_for(ENGINE)
        legal = Position(board).legal_moves(d1, d2)
        if legal[0].is_pass:
            self.say(f"The engine rolls {d1}-{d2}: no legal play.")
            self._apply(ENGINE, legal[0])
            return
        if len(legal) == 1:
            k = 0
        else:
            try:
                k = self.side.choose(board, d1, d2, self._engine_seed(), self._state_for(ENGINE))
                if not 0 <= k < len(legal):
                    raise ValueError(f"play index {k} out of range")
            except Exception as exc:   # an engine failure must not end the session
                self.say(f"(engine error: {type(exc).__name__}: {exc}; it plays its first legal play)")
                k = 0
        self.say(f"The engine rolls {d1}-{d2} and plays {legal[k].notation}"
                 + (" (its only legal play)." if len(legal) == 1 else "."))
        self._apply(ENGINE, legal[k])
