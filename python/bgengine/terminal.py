"""A person plays the engine in the terminal (``bgengine play``).

The board is drawn in text from the human's side (you are ``X``, moving from
your 24-point at the top right round to your 1-point at the bottom right),
with pip counts, the cube, the score, the GNU Backgammon Position ID and
Match ID.  Moves are typed in any notation the notation parser accepts
(``24/18 13/11``, ``8/5(2)``, ``bar/22*``, ``13/7*/5``, ``6/off``...).

Commands (at any prompt; ``help`` lists them)::

    roll                roll the dice (Enter also rolls)
    double              offer the cube (before rolling)
    take / drop         answer the engine's double
    hint                the engine's best plays with equities (or cube advice)
    moves               list every legal play of the roll
    undo                take back your last move
    resign [single|gammon|backgammon]   offer to resign; the engine accepts or declines
    show                redraw the board
    score               the score
    help, quit

When you have exactly one legal play, or none, it is played for you (and
said so).  When you cannot usefully double (the engine owns the cube, the
Crawford game, a dead cube) your dice are rolled for you.

Difficulty (``--level``): ``easy`` = the network at 0-ply with a random play
20% of the time, ``medium`` = the network at 0-ply, ``hard`` = 2-ply
lookahead (:class:`bgengine.search.Searcher`).  ``--player SPEC`` plays any
:func:`bgengine.players.make_player` spec instead.  Without a network (none
shipped yet and no ``--net FILE``) the engine plays pubeval and hints are
unavailable.

Cube decisions (the engine's doubles, takes and its answer to a
resignation) come from :class:`bgengine.engine.Engine`; see its
``cube_decision`` for the rule used and its match equity table.

Everything runs through an ``input`` / ``output`` stream pair
(:class:`PlaySession`), so a game can be driven from a script; no input line
ever crashes it (every line is handled inside its own ``try``), and end of
input ends the session cleanly.  With the same ``--seed`` and the same input
lines a session is replayed exactly.
"""

from __future__ import annotations

import dataclasses
import os
import secrets
import sys
from dataclasses import dataclass
from typing import Callable, TextIO

import numpy as np

from bgengine._checks import is_int
from bgengine.agents import Player
from bgengine.dice import Dice
from bgengine.engine import Engine, RankedPlay, rank_plays
from bgengine.game import MatchScore, game_seed, points_scored
from bgengine.ids import GAME_OVER, GAME_PLAYING, MAX_MATCH_LENGTH, MatchState, match_id
from bgengine.network import equity_of, flip_outputs
from bgengine.players import default_network_path, load_default_network, load_network, make_player
from bgengine.position import Move, Position
from bgengine.search import Searcher
from bgengine.types import five_outputs

__all__ = ["PlaySession", "LEVELS", "HELP", "ENGINE", "HUMAN"]

#: gnubg's player numbers: the engine is player 0 (O, drawn at the top),
#: the human player 1 (X, at the bottom), as in gnubg's own board window.
ENGINE, HUMAN = 0, 1

#: Difficulty levels: (epsilon noise, plies).
LEVELS = {"easy": (0.2, 0), "medium": (0.0, 0), "hard": (0.0, 2)}

#: Longest input line we look at; longer lines are refused.
MAX_INPUT = 400
#: Highest cube value (gnubg's Match ID stores log2(cube) in 4 bits).
MAX_CUBE = 1 << 15

RESIGN_NAMES = {1: "a single game", 2: "a gammon", 3: "a backgammon"}
_RESIGN_WORDS = {"": 1, "1": 1, "s": 1, "single": 1, "n": 1, "normal": 1, "simple": 1,
                 "2": 2, "g": 2, "gammon": 2, "3": 3, "b": 3, "bg": 3, "backgammon": 3}
_WIN_NAMES = {1: "a single game", 2: "a gammon", 3: "a backgammon"}

HELP = """\
Commands:
  <move>        your play in standard notation, e.g. 24/18 13/11, 8/5(2), bar/22*, 6/off
  roll          roll the dice (pressing Enter also rolls)
  double        offer the cube to the engine (before you roll)
  take, drop    answer the engine's double (also: accept / pass, yes / no)
  hint          the engine's best plays with equities; before rolling or when
                doubled: its cube advice (hint N: the best N plays)
  moves         list all legal plays of your roll
  undo          take back your last move (the dice stay the same)
  resign [single|gammon|backgammon]
                offer to resign (default single); the engine accepts or declines
  show          draw the board again        score   show the score
  help          this text                   quit    leave (end of input also leaves)"""


class _Flow(Exception):
    """Control flow out of a prompt (never shown to the user)."""


class _Quit(_Flow):
    pass


class _Undo(_Flow):
    pass


class _GameEnd(_Flow):
    def __init__(self, winner: int, points: int, how: str) -> None:
        super().__init__(how)
        self.winner, self.points, self.how = winner, points, how


@dataclass
class _Game:
    """Everything about the game in progress (copied whole for ``undo``)."""

    number: int
    board: Position                  # always from the human's side (row 1 = human)
    turn: int                        # ENGINE or HUMAN: whose turn it is
    dice: tuple[int, int] | None     # rolled and not yet played, else None
    cube: int = 1
    cube_owner: int = -1             # -1 centred, else ENGINE or HUMAN
    crawford: bool = False
    plays: int = 0                   # plays made so far (seeds the engine's noise)
    dice_state: dict | None = None   # the dice generator's state (for undo)


def _quote(text: str, limit: int = 60) -> str:
    """``text`` for a message: shortened and with unprintable characters escaped."""
    if len(text) > limit:
        text = text[:limit] + "..."
    return repr(text)


def _probs_text(out: np.ndarray) -> str:
    """``win 52.1% (g 14.0% bg 0.6%)  lose ... `` for 5 outputs; win only otherwise."""
    k = np.shape(out)[-1]
    w, wg, wbg, lg, lbg = five_outputs(out)
    if k == 5:
        return (f"win {100 * w:5.1f}% (g {100 * wg:4.1f}% bg {100 * wbg:4.1f}%)  "
                f"lose {100 * (1 - w):5.1f}% (g {100 * lg:4.1f}% bg {100 * lbg:4.1f}%)")
    if k == 4:
        return f"win {100 * w:5.1f}% (g {100 * wg:4.1f}%)  lose {100 * (1 - w):5.1f}% (g {100 * lg:4.1f}%)"
    return f"win {100 * w:5.1f}%"


class PlaySession:
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
        A :func:`bgengine.players.make_player` spec (or a player object with
        ``choose(board, d1, d2, seed)``) that chooses the engine's plays
        instead of the level's network play.
    network : Network or str or path, optional
        The network for the engine's plays, hints and cube decisions.
        Default: the shipped network if installed, else none (pubeval plays).
    games : int, optional
        Money play: stop after this many games (default: play until quit).
    jacoby : bool
        Money play with the Jacoby rule (gammons count only once the cube
        has been turned).
    hint_plies : int
        Lookahead of ``hint`` for its best candidates (default 2).
    echo : bool
        Write every input line back (useful when the input is a file).
    engine : bgengine.engine.Engine, optional
        The cube brain (default: ``Engine(network=...)``).
    position : Position or str, optional
        Start the first game from this position (a Position or a Position
        ID), you on roll, instead of the opening position.
    dice : optional
        The dice (an object with ``roll()``, ``getstate()``, ``setstate()``
        like :class:`bgengine.dice.Dice`); default ``Dice(seed)``.
    """

    #: Returned by a line handler: the line was dealt with, prompt again.
    _AGAIN = object()

    def __init__(self, input: TextIO | None = None, output: TextIO | None = None, *,
                 seed: int | None = None, match_length: int = 0, level: str = "medium",
                 player=None, network=None, games: int | None = None, jacoby: bool = False,
                 hint_plies: int = 2, echo: bool = False, engine=None, position=None,
                 dice=None) -> None:
        self.input = input if input is not None else sys.stdin
        self.output = output if output is not None else sys.stdout
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
        if isinstance(position, str):
            position = Position.from_id(position.strip())
        if position is not None:
            if not isinstance(position, Position):
                position = Position(position)
            if position.is_game_over():
                raise ValueError(f"the start position {position.position_id} is already finished")
        self._start_position = position
        self.match_length = match_length
        self.level = level
        self.games_limit = games
        self.jacoby = bool(jacoby) and match_length == 0
        self.hint_plies = hint_plies
        self.echo = echo
        self.notes: list[str] = []

        # ---- the network (hints, cube, level play)
        if isinstance(network, str) or hasattr(network, "__fspath__"):
            path = network
            if not os.path.isfile(path):
                raise ValueError(f"no such network file: {os.fspath(path)}")
            try:
                network = load_network(path)
            except OSError as exc:
                raise ValueError(f"cannot read the network file {os.fspath(path)}: {exc}") from None
        if network is None:
            if default_network_path().exists():
                network = load_default_network()
        self.network = network
        self.searcher = None
        if network is not None:
            self.searcher = Searcher(network)

        # ---- who plays for the engine
        eps, plies = LEVELS[level]
        self.plies = plies
        self._player = None
        if player is not None:
            if isinstance(player, str):
                player = make_player(player)
            if not callable(getattr(player, "choose", None)):
                raise ValueError(f"player must be a spec string or have choose(), got {player!r}")
            self._player = player
            self.engine_name = getattr(player, "name", None) or str(player)
        elif network is None:
            self._player = Player("pubeval", None, 0.0, name="pubeval")
            self.engine_name = "pubeval"
            self.notes.append("No network is installed (python/bgengine/data/default.npz) and "
                              "none was given (--net FILE): the engine plays pubeval, and hints "
                              "and cube decisions use a pip-count estimate.")
        elif eps > 0:
            self._player = Player("net", network, eps, name=f"net@{eps:g}")
            self.engine_name = f"network, 0-ply with {eps:.0%} random plays"
        else:
            self.engine_name = f"network, {plies}-ply"
        self.engine = engine if engine is not None else Engine(player="pubeval", network=network)

        # ---- match state
        self.match = MatchScore(match_length)       # seats: ENGINE, HUMAN
        self.g: _Game | None = None
        self._snapshots: list[tuple[_Game, dict]] = []
        # what is being asked (for scripts and tests): None, "preroll", "move", "take"
        self.prompt_kind: str | None = None
        self.legal: list[Move] = []
        self.lines_read = 0
        self.finished = False
        self.error: Exception | None = None     # set when run() stopped on an internal error
        self._double_pending = False

    # ================================================================== I/O
    def say(self, text: str = "") -> None:
        """Write a line (text that the output's encoding cannot hold is escaped)."""
        self._write(text + "\n")

    def _write(self, text: str) -> None:
        try:
            try:
                self.output.write(text)
            except UnicodeEncodeError:
                enc = getattr(self.output, "encoding", None) or "ascii"
                self.output.write(text.encode(enc, "backslashreplace").decode(enc, "replace"))
            self.output.flush()
        except (BrokenPipeError, ValueError, OSError):
            # the output is gone (closed pipe, closed file): nothing more to say
            raise _Quit("output closed") from None

    def _readline(self, prompt: str) -> str:
        """The next input line, cleaned; ``_Quit`` at end of input."""
        self._write(prompt)
        bad = 0
        while True:
            try:
                line = self.input.readline()
                break
            except UnicodeDecodeError as exc:
                bad += 1
                self.say(f"\nThat line could not be decoded ({exc.reason}); ignored.")
                if bad >= 50:
                    raise _Quit("undecodable input") from None
                self._write(prompt)
            except (OSError, ValueError) as exc:     # closed or broken input
                self.say(f"\nInput closed ({exc}).")
                raise _Quit("input error") from None
        if isinstance(line, bytes):
            line = line.decode("utf-8", "replace")
        if not line:
            self.say("\nEnd of input: leaving the game.")
            raise _Quit("end of input")
        self.lines_read += 1
        line = line.rstrip("\r\n")
        if self.echo:
            self.say(line if line.isprintable() and len(line) <= 200 else _quote(line, 200))
        return line

    def ask(self, kind: str, prompt: str, handler: Callable[[str], object]) -> object:
        """Read lines until ``handler`` returns something other than ``None``.

        Every line is handled inside its own ``try``: whatever the line, an
        unexpected error is reported and the prompt comes back.
        """
        while True:
            self.prompt_kind = kind
            line = self._readline(prompt)
            try:
                text = "".join(ch if ch.isprintable() else " " for ch in line).strip()
                if len(text) > MAX_INPUT:
                    self.say(f"That line is too long ({len(text)} characters); ignored.")
                    continue
                result = self._common(text, kind)
                if result is None:
                    result = handler(text)
                if result is None or result is PlaySession._AGAIN:
                    continue
                self.prompt_kind = None
                return result
            except _Flow:
                self.prompt_kind = None
                raise
            except KeyboardInterrupt:
                raise
            except Exception as exc:  # never crash on an input line
                try:
                    self.say(f"Sorry, {_quote(line)} could not be handled "
                             f"({type(exc).__name__}: {exc}). Type 'help' for the commands.")
                except _Flow:
                    raise
                except Exception:   # pragma: no cover - even the message failed
                    pass

    # ================================================================== driving
    def run(self) -> int:
        """Play until the match is over, the game limit is reached, ``quit``
        or the end of input.  Returns 0."""
        try:
            self._banner()
            while not self._session_over():
                self._play_game()
            self._final_summary()
        except _Quit:
            try:
                self._final_summary(stopped=True)
            except _Flow:
                pass
        except KeyboardInterrupt:
            try:
                self.say("\nInterrupted.")
            except _Flow:
                pass
        except Exception as exc:   # a bug outside any input line: say so, do not dump a traceback
            self.error = exc
            try:
                self.say(f"\nInternal error: {type(exc).__name__}: {exc}. The session ends; "
                         "please report this with the dice seed above.")
            except _Flow:
                pass
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
        return self.games_limit is not None and self.games_played >= self.games_limit

    def _banner(self) -> None:
        kind = f"a match to {self.match_length} points" if self.match_length else "money play"
        if self.jacoby:
            kind += " (Jacoby rule)"
        self.say(f"bgengine play: {kind} against the engine ({self.level}: {self.engine_name}).")
        self.say(f"Dice seed {self.seed} (replay this session with --seed {self.seed}).")
        for note in self.notes:
            self.say(note)
        self.say("You are X and move from your 24-point (top right) to your 1-point (bottom right).")
        self.say("Type moves like 24/18 13/11; 'help' lists the commands.")

    def _final_summary(self, stopped: bool = False) -> None:
        if self.match_length:
            e, h = self.score
            if h >= self.match_length:
                self.say(f"You win the match {h}-{e}. Congratulations!")
            elif e >= self.match_length:
                self.say(f"The engine wins the match {e}-{h}.")
            else:
                self.say(f"Match to {self.match_length} stopped at you {h}, engine {e}.")
        else:
            e, h = self.score
            n = self.games_played
            self.say(f"Money play{' stopped' if stopped else ''} after {n} game{'s' * (n != 1)}: "
                     f"you {h} points, engine {e} points (net {h - e:+d} for you).")

    # ================================================================== state views
    def match_state(self, *, double_offered: bool = False, turn: int | None = None) -> MatchState:
        """The gnubg match state of the moment (player 0 = engine, 1 = you)."""
        g = self.g
        on_roll = g.turn if g is not None else HUMAN
        if self._double_pending and turn is None:      # the other side answers a double
            double_offered, turn = True, 1 - on_roll
        dice = g.dice if g is not None and g.dice else (0, 0)
        return MatchState(
            match_length=self.match_length, score=(self.score[ENGINE], self.score[HUMAN]),
            cube=g.cube if g else 1, cube_owner=g.cube_owner if g else -1,
            player_on_roll=on_roll, turn=on_roll if turn is None else turn,
            crawford=bool(g and g.crawford), game_state=GAME_PLAYING if g else GAME_OVER,
            double_offered=double_offered, dice=dice,
            jacoby=self.jacoby if self.match_length == 0 else False)

    def _state_for(self, side: int, **kw) -> MatchState:
        """The match state with ``side`` on roll (for the cube engine)."""
        kw.setdefault("turn", side)
        return dataclasses.replace(self.match_state(), player_on_roll=side, **kw)

    def _board_for(self, side: int) -> np.ndarray:
        """The board with ``side`` in row 1."""
        b = self.g.board
        return (b if side == HUMAN else b.swap()).board

    def board_text(self) -> str:
        """The board from your side, with pips, cube, score, Position ID and Match ID."""
        g = self.g
        if g is None:
            return "(no game in progress)"
        lines = g.board.to_text("X", "O").splitlines()[:-2]
        h_pips, e_pips = g.board.pips()
        h_off, e_off = g.board.borne_off()
        head = f" Game {g.number}"
        if self.match_length:
            head += (f" - match to {self.match_length}: you {self.score[HUMAN]}, "
                     f"engine {self.score[ENGINE]}")
            if g.crawford:
                head += " (Crawford game: no doubling)"
        else:
            head += f" - money play: you {self.score[HUMAN]}, engine {self.score[ENGINE]}"
        owner = {-1: "centred", ENGINE: "owned by the engine", HUMAN: "yours"}[g.cube_owner]
        who = "you" if g.turn == HUMAN else "engine"
        dice = f"{g.dice[0]}-{g.dice[1]}" if g.dice else "not rolled"
        on_roll_pos = g.board if g.turn == HUMAN else g.board.swap()
        try:
            mid = match_id(self.match_state())
        except ValueError:   # pragma: no cover - a state gnubg cannot encode
            mid = "-"
        out = [head] + lines + [
            f" X you:    pips {h_pips:3d}, off {h_off:2d}     O engine: pips {e_pips:3d}, off {e_off:2d}",
            f" Cube {g.cube} ({owner}).  On roll: {who}, dice {dice}.",
            f" Position ID: {on_roll_pos.position_id}   Match ID: {mid}",
        ]
        return "\n".join(out)

    def show(self) -> None:
        self.say(self.board_text())

    # ================================================================== commands
    def _common(self, text: str, kind: str) -> object:
        """Commands valid at every prompt; ``None`` when ``text`` is not one of them."""
        words = text.split()
        if not words:
            return None
        cmd, rest = words[0].lower(), words[1:]
        if cmd in ("help", "?", "h"):
            self.say(HELP)
            return self._again()
        if cmd in ("quit", "exit", "q", "bye"):
            self.say("Leaving the game.")
            raise _Quit("quit")
        if cmd in ("show", "board", "redraw", "b"):
            self.show()
            return self._again()
        if cmd in ("score",):
            self._say_score()
            return self._again()
        if cmd in ("hint", "advice"):
            n = 5
            if rest:
                try:
                    n = max(1, min(int(rest[0]), 100))
                except ValueError:
                    self.say(f"hint takes a number of plays to show, e.g. 'hint 10'; got {_quote(rest[0])}")
                    return self._again()
            self._hint(kind, n)
            return self._again()
        if cmd in ("undo", "takeback", "u"):
            self._undo()
            return self._again()
        if cmd in ("resign", "giveup"):
            word = " ".join(rest).lower()
            level = _RESIGN_WORDS.get(word)
            if level is None:
                self.say(f"resign what? Say 'resign', 'resign gammon' or 'resign backgammon' "
                         f"(not {_quote(word)}).")
                return self._again()
            self._resign(level)
            return self._again()
        if cmd in ("moves", "list", "legal"):
            if kind == "move" and self.legal:
                self._list_moves()
            else:
                self.say("You have no roll to play now; 'moves' lists the legal plays of your roll.")
            return self._again()
        return None

    def _again(self):
        """Marker: the line was a command; prompt again."""
        return PlaySession._AGAIN

    def _say_score(self) -> None:
        e, h = self.score
        if self.match_length:
            extra = " (Crawford game)" if self.g and self.g.crawford else ""
            self.say(f"Match to {self.match_length}: you {h}, engine {e}{extra}.")
        else:
            self.say(f"Money play, {self.games_played} game(s) finished: you {h} points, "
                     f"engine {e} points.")

    def _list_moves(self) -> None:
        d1, d2 = self.g.dice
        self.say(f"The {len(self.legal)} legal plays of {d1}-{d2}:")
        for i, m in enumerate(self.legal, 1):
            self.say(f"  {i:3d}. {m.notation}")

    # ------------------------------------------------------------------ hint
    def _hint(self, kind: str, n: int) -> None:
        g = self.g
        if g is None:
            self.say("No game in progress.")
            return
        if kind == "move":
            self._hint_moves(n)
        elif kind == "preroll":
            self._hint_cube()
        elif kind == "take":
            self._hint_take()
        else:
            self.say("No hint now.")

    def rank_plays(self, board: np.ndarray, d1: int, d2: int, n: int = 5,
                   plies: int | None = None) -> list[RankedPlay]:
        """The engine's best ``n`` plays, best first (:func:`bgengine.engine.rank_plays`
        at ``plies``, default ``hint_plies``); ``[]`` without a network."""
        if self.searcher is None:
            return []
        return rank_plays(self.searcher, board, d1, d2, n, self.hint_plies if plies is None else plies)

    def _hint_moves(self, n: int) -> None:
        d1, d2 = self.g.dice
        if self.searcher is None:
            k = self._engine_choice(self._board_for(HUMAN), d1, d2)
            self.say(f"No network loaded, so no equities; the engine ({self.engine_name}) "
                     f"would play {self.legal[k].notation}.")
            return
        rows = self.rank_plays(self._board_for(HUMAN), d1, d2, n)
        best = rows[0][2]
        self.say(f"The engine's best plays for {d1}-{d2} (cubeless equity for you):")
        for rank, (i, out, eq, pl) in enumerate(rows, 1):
            diff = "" if rank == 1 else f" ({eq - best:+.3f})"
            self.say(f"  {rank:2d}. {self.legal[i].notation:<24} {pl}-ply  {eq:+.3f}{diff}")
            if rank == 1:
                self.say(f"      {_probs_text(out)}")

    def _hint_cube(self) -> None:
        state = self._state_for(HUMAN)
        board = self._board_for(HUMAN)
        probs = self.engine.evaluate(board)
        self.say(f"Before rolling: {_probs_text(probs)}; cubeless equity {equity_of(probs):+.3f}.")
        reason = self._double_refusal(HUMAN)
        if reason:
            self.say(f"You cannot double: {reason}. Roll.")
            return
        try:
            double = self.engine.cube_decision(board, state, self.jacoby)
        except Exception as exc:   # pragma: no cover - a cube engine bug
            self.say(f"No cube advice ({exc}).")
            return
        self.say("The engine would double." if double else "The engine would not double: roll.")

    def _hint_take(self) -> None:
        board = self._board_for(ENGINE)
        take = self.engine.take_decision(board, self._state_for(ENGINE))
        probs = flip_outputs(self.engine.evaluate(board))
        self.say(f"Your chances: {_probs_text(probs)}.")
        self.say("The engine would take in your place." if take
                 else "The engine would drop in your place.")

    # ------------------------------------------------------------------ undo
    def _snapshot(self) -> None:
        g = dataclasses.replace(self.g)
        self._snapshots.append((g, self.dice.getstate()))

    def _undo(self) -> None:
        if not self._snapshots:
            self.say("Nothing to undo: you have not made a move in this game yet.")
            return
        g, dstate = self._snapshots.pop()
        self.g = dataclasses.replace(g)
        self.dice.setstate(dstate)
        d1, d2 = g.dice
        self.say(f"Your last move is taken back: you are to play {d1}-{d2} again.")
        self.show()
        raise _Undo()

    # ------------------------------------------------------------------ resign
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
            self.say(f"You resign {RESIGN_NAMES[level]}; the engine accepts.")
            raise _GameEnd(ENGINE, pts, f"you resigned {RESIGN_NAMES[level]}")
        self.say(f"You offer to resign {RESIGN_NAMES[level]} ({pts} point{'s' * (pts != 1)}); "
                 "the engine declines: play on.")

    # ------------------------------------------------------------------ cube
    def _double_refusal(self, side: int) -> str | None:
        """Why ``side`` may not double now, or ``None``."""
        g = self.g
        if g.crawford:
            return "there is no doubling in the Crawford game"
        if g.cube_owner not in (-1, side):
            return "the engine owns the cube" if side == HUMAN else "you own the cube"
        if g.cube >= MAX_CUBE:
            return f"the cube is at its maximum ({g.cube})"
        return None

    def _human_cube_useful(self) -> bool:
        """Offer the roll/double prompt: the human may double and it can matter."""
        if self._double_refusal(HUMAN):
            return False
        if self.match_length:
            return self.match_length - self.score[HUMAN] > self.g.cube   # live cube
        return True

    def _human_doubles(self) -> None:
        g = self.g
        new = 2 * g.cube
        self.say(f"You double to {new}.")
        board = self._board_for(HUMAN)
        state = self._state_for(HUMAN, double_offered=True, turn=ENGINE)
        try:
            take = self.engine.take_decision(board, state)
        except Exception as exc:   # pragma: no cover - a cube engine bug
            self.say(f"(cube engine error: {exc}; the engine takes)")
            take = True
        if take:
            g.cube, g.cube_owner = new, ENGINE
            self.say(f"The engine takes. The cube is at {new}, owned by the engine.")
            return
        self.say("The engine drops.")
        raise _GameEnd(HUMAN, g.cube, "the engine dropped your double")

    def _engine_doubles(self) -> bool:
        """The engine's cube decision before it rolls; True if it doubled (and you took)."""
        g = self.g
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
        new = 2 * g.cube
        self.say(f"The engine doubles to {new}.")
        self._double_pending = True
        try:
            self.show()
            a = self.ask("take", f"The engine doubles to {new}: take or drop? ", self._take_line)
        finally:
            self._double_pending = False
        if a == "take":
            g.cube, g.cube_owner = new, HUMAN
            self.say(f"You take. The cube is at {new}, yours.")
            return True
        self.say("You drop.")
        raise _GameEnd(ENGINE, g.cube, "you dropped the engine's double")

    def _take_line(self, text: str):
        w = text.lower()
        if w in ("take", "t", "accept", "yes", "y"):
            return "take"
        if w in ("drop", "pass", "p", "reject", "no", "n", "decline"):
            return "drop"
        if w in ("roll", "double", "r", "beaver", "redouble"):
            self.say("The engine has doubled: answer 'take' or 'drop' first.")
            return self._again()
        self.say(f"Answer the double with 'take' or 'drop' (not {_quote(text)}).")
        return self._again()

    # ================================================================== the game
    def _new_game(self) -> _Game:
        number = self.games_played + 1
        crawford = self.match.start_game()
        self.say("")
        self.say(f"=== Game {number}" + (" (Crawford game: no doubling)" if crawford else "") + " ===")
        if self._start_position is not None:
            start, self._start_position = self._start_position, None
            self.say(f"Starting from position {start.position_id}, you on roll.")
            return _Game(number=number, board=start, turn=HUMAN, dice=None, crawford=crawford)
        while True:
            h, e = self.dice.roll()
            if h != e:
                break
            self.say(f"Opening roll: you {h}, engine {e}: a tie, roll again.")
        first = HUMAN if h > e else ENGINE
        self.say(f"Opening roll: you {h}, engine {e}: "
                 + ("you go first with " if first == HUMAN else "the engine goes first with ")
                 + f"{max(h, e)}-{min(h, e)}.")
        return _Game(number=number, board=Position.initial(), turn=first,
                     dice=(max(h, e), min(h, e)), crawford=crawford)

    def _play_game(self) -> None:
        self.g = self._new_game()
        self._snapshots = []
        try:
            while True:
                try:
                    if self.g.turn == HUMAN:
                        self._human_turn()
                    else:
                        self._engine_turn()
                except _Undo:
                    continue
        except _GameEnd as end:
            self._finish_game(end)

    def _check_over(self) -> None:
        r = self.g.board.result()
        if r:
            winner = HUMAN if r > 0 else ENGINE
            how = _WIN_NAMES[abs(r)]
            pts = self._points(abs(r))
            if pts < abs(r) * self.g.cube:
                how += " (counted single: Jacoby rule, the cube was never turned)"
            raise _GameEnd(winner, pts, how)

    def _finish_game(self, end: _GameEnd) -> None:
        g = self.g
        self.prompt_kind = None
        self.legal = []
        self.match.record(end.winner, end.points)
        who = "You win" if end.winner == HUMAN else "The engine wins"
        pts = f"{end.points} point{'s' * (end.points != 1)}"
        self.say(f"{who} game {g.number}: {end.how}, {pts}.")
        if self.match_length:
            L = self.match_length
            self.say(f"Score (match to {L}): you {self.score[HUMAN]}, engine {self.score[ENGINE]}.")
            if self.match.crawford_next():
                self.say("The next game is the Crawford game: no doubling.")
        else:
            self.say(f"Money play: you {self.score[HUMAN]}, engine {self.score[ENGINE]}.")
        self.g = None
        self._snapshots = []

    def _apply(self, side: int, move: Move) -> None:
        """Play ``move`` (chosen from ``side``'s legal plays) and pass the turn."""
        g = self.g
        g.board = move.position.swap() if side == HUMAN else move.position
        g.turn = 1 - side
        g.dice = None
        g.plays += 1
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
            g.dice = self.dice.roll()
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

    def _preroll_line(self, text: str):
        w = text.lower()
        if w in ("", "roll", "r"):
            return "roll"
        if w in ("double", "d", "dbl"):
            reason = self._double_refusal(HUMAN)
            if reason:
                self.say(f"You cannot double: {reason}.")
                return self._again()
            return "double"
        if w in ("take", "drop", "accept", "pass"):
            self.say("There is no double to answer.")
            return self._again()
        if any(ch.isdigit() for ch in w) or "/" in w or w.startswith("bar"):
            self.say("Roll first: type 'roll' (or press Enter), or 'double'.")
            return self._again()
        self.say(f"Unknown command {_quote(text)}: type 'roll', 'double' or 'help'.")
        return self._again()

    def _move_line(self, text: str):
        g = self.g
        d1, d2 = g.dice
        w = text.lower()
        if w in ("roll", "r"):
            self.say(f"You have already rolled {d1}-{d2}: type your move.")
            return self._again()
        if w in ("double", "d", "dbl"):
            reason = self._double_refusal(HUMAN)
            self.say(f"You cannot double: {reason}." if reason
                     else "You can only double before you roll.")
            return self._again()
        if w in ("take", "drop", "accept", "pass"):
            self.say("There is no double to answer: type your move.")
            return self._again()
        if not text:
            self.say(f"Type your move for {d1}-{d2} (e.g. {self.legal[0].notation}), "
                     "'moves' for the list, or 'hint'.")
            return self._again()
        try:
            move = Position(self._board_for(HUMAN)).parse_move(text, d1, d2)
        except ValueError as exc:
            msg = str(exc)
            if "ambiguous" in msg:
                self.say(f"Ambiguous move: {msg}.")
            else:
                self.say(f"Illegal move: {msg}.")
            self.say(f"Type 'moves' to list the {len(self.legal)} legal plays of {d1}-{d2}.")
            return self._again()
        return move

    # ------------------------------------------------------------------ engine
    def _engine_choice(self, board: np.ndarray, d1: int, d2: int) -> int:
        """Index, in the legal plays, of the engine's play (``board``: mover in row 1)."""
        g = self.g
        if self._player is not None:
            return int(self._player.choose(board, d1, d2, game_seed(self.seed, 0, g.number, g.plays)))
        return int(self.searcher.best_move(board, d1, d2, self.plies)[0])

    def _engine_turn(self) -> None:
        g = self.g
        if g.dice is None:
            self._engine_doubles()
            g.dice = self.dice.roll()
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
                k = self._engine_choice(board, d1, d2)
                if not 0 <= k < len(legal):
                    raise ValueError(f"play index {k} out of range")
            except Exception as exc:   # an engine failure must not end the session
                self.say(f"(engine error: {type(exc).__name__}: {exc}; it plays its first legal play)")
                k = 0
        self.say(f"The engine rolls {d1}-{d2} and plays {legal[k].notation}"
                 + (" (its only legal play)." if len(legal) == 1 else "."))
        self._apply(ENGINE, legal[k])
