"""The UBGI engine protocol (Universal Backgammon Interface, v0.2) without processes.

:class:`UbgiSession` takes the controller's lines one at a time and returns the
engine's reply lines; ``bgengine ubgi`` (:mod:`bgengine.cli.ubgi`) puts it on
stdin/stdout.  Decisions come from :class:`bgengine.decisions.engine.Engine`, positions
from :mod:`bgengine.notation.ids`.  The client side (playing a UBGI engine as a player)
is :mod:`bgengine.opponents.ubgi`.

Commands (case-sensitive, one a line; blank lines are ignored):

* ``ubgi`` -> ``id name ...``, ``id author ...``, ``proto 0.2``, one ``key`` line
  per option, ``ubgiok``; ``isready`` -> ``readyok``; ``quit`` ends the session.
* ``newgame``: forget the position and the dice.
* ``position gnubgid POSITION_ID`` (also ``POSITION_ID:MATCH_ID``: the Match ID
  gives the cube, score and match length of ``go cube`` and ``go turn``, and its
  dice, if rolled, become the dice); ``position xgid XGID=...`` is read
  as the same state's gnubg ID.
* ``dice D1 D2``.
* ``go`` / ``go chequer`` -> ``info depth N time_ms T`` and ``bestmove PAYLOAD``;
  ``go cube`` -> ``bestcube double|nodouble`` (before rolling: the dice are not
  needed); ``go turn`` -> ``bestturn cube=double|nodouble move=PAYLOAD`` (the
  cube action, then the play of the given dice).  UBGI v0.1's ``go role X``
  is accepted as ``go X``.  bgengine's extension ``go resign`` -> ``bestresign
  none|single|gammon|backgammon``: the resignation the side on roll should offer before
  rolling (:meth:`bgengine.decisions.engine.Engine.resign_offer`).
* ``set KEY VALUE`` (silent when accepted), ``get KEY`` -> ``value KEY VALUE``,
  ``keys`` -> the ``key`` lines; v0.1's ``setoption name KEY value VALUE`` is
  ``set``.

A payload is the play's single-die steps in the mover's numbering, highest
source first: ``24/18 13/12``, ``bar/20 6/off``; ``pass`` when there is no
legal play.  Errors are one line, ``error CODE DETAIL``, CODE one of
:data:`ERROR_CODES`; the session then carries on.

IDs: no reply carries one.  The position after a play is, as everywhere in bgengine and
in gnubg, the position with the opponent on roll (``bgengine moves`` prints it): the
ID to send with ``position gnubgid`` for the opponent's turn.  The Jacoby rule is off
unless a Match ID says otherwise or ``game.jacoby`` is set (``bgengine --help``).

Ply numbering: UBGI's ``engine.ply`` counts the root (1 = every legal play
valued by the network, no lookahead), gnubg and bgengine do not: ``engine.ply``
N is gnubg's and ``bgengine serve --plies``'s N - 1.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

import bgengine
from bgengine.core.agents import Player
from bgengine.decisions.engine import Engine, EngineError
from bgengine.notation.ids import MatchState, board_from_position_id, match_state_from_id
from bgengine.notation.moves import format_steps_plain
from bgengine.matches.players import make_player
from bgengine.types import Board, Step

__all__ = ["UbgiSession", "ERROR_CODES", "PROTOCOL_VERSION", "KeySpec", "parse_gnubgid",
           "format_payload", "NO_PLAY"]

log = logging.getLogger(__name__)

PROTOCOL_VERSION = "0.2"
#: The four standard error codes of UBGI v0.2 (spec §5).
ERROR_CODES = ("bad_command", "bad_value", "bad_state", "unsupported")
#: The payload of a roll with no legal play.
NO_PLAY = "pass"
#: The highest ``engine.ply``: bgengine searches 0-3 plies (gnubg numbering).
MAX_UBGI_PLY = Engine.max_plies + 1
#: Variants UBGI names that bgengine does not play (anything else is a bad value).
OTHER_VARIANTS = ("nackgammon", "hypergammon")
#: The players ``engine.player`` takes: bgengine's compiled ones.
PLAYER_CHOICES = "net, net:PATH, pubeval, random, simple1..3 (@EPS: a random play with probability EPS)"


class _Refusal(Exception):
    """One ``error CODE DETAIL`` line."""

    def __init__(self, code: str, detail: str) -> None:
        assert code in ERROR_CODES
        super().__init__(detail)
        self.code = code

    @property
    def line(self) -> str:
        return f"error {self.code} {self}"


def _shown(text: str, limit: int = 40) -> str:
    """Controller text echoed in an error: printable ASCII, at most ``limit`` characters."""
    clean = "".join(ch if ch.isprintable() and ord(ch) < 127 else "?" for ch in text[:limit])
    return clean + ("..." if len(text) > limit else "")


# ====================================================================== wire formats

def parse_gnubgid(text: str) -> tuple[Board, MatchState | None]:
    """``POSITION_ID`` or ``POSITION_ID:MATCH_ID`` -> ``(board, match state or None)``.

    The board is ``(2, 25)`` ``uint8``, row 1 the side on roll (whose decision
    it is).  Raises ``ValueError`` naming what is wrong.
    """
    pid, sep, mid = text.partition(":")
    board = board_from_position_id(pid)
    return board, (match_state_from_id(mid) if sep else None)


def format_payload(steps: tuple[Step, ...]) -> str:
    """A play's single-die steps ``(from, to)`` (25 = bar, 0 = off) as a UBGI
    payload: ``bar/20 6/off``, highest source first; ``pass`` for no steps."""
    return format_steps_plain(steps, words=True) or NO_PLAY


@dataclass(frozen=True)
class KeySpec:
    """One option as ``keys`` announces it: ``kind`` int, bool, enum or string;
    ``domain`` ``"1..4"`` (int), ``"a|b"`` (enum), ``"*"`` (string) or ``""`` (bool)."""

    name: str
    kind: str
    domain: str
    description: str

    def line(self, default: str) -> str:
        domain = f" {self.domain}" if self.domain else ""
        return f"key {self.name} {self.kind}{domain} {default} {self.description}"


KEYS = (
    KeySpec("engine.ply", "int", f"1..{MAX_UBGI_PLY}",
            "root-inclusive checker-play depth: 1 = the network alone (gnubg 0-ply), "
            "2 = gnubg 1-ply, ..."),
    KeySpec("engine.player", "string", "*",
            f"who chooses the plays: {PLAYER_CHOICES}"),
    KeySpec("game.jacoby", "bool", "", "money games without a Match ID: the Jacoby rule"),
    KeySpec("game.variant", "enum", "backgammon", "the game played"),
)
_KEYS = {k.name: k for k in KEYS}


# ====================================================================== the session

class UbgiSession:
    """The state of one UBGI conversation: options, position and dice.

    Parameters
    ----------
    player : str or bgengine.core.agents.Player, optional
        Who chooses the plays (``engine.player``): a compiled player or its
        :func:`bgengine.matches.players.make_player` spec; default as
        :class:`bgengine.decisions.engine.Engine` (the shipped network, else pubeval).
    plies : int
        Lookahead in gnubg's numbering, 0-3 (``engine.ply`` = ``plies + 1``).
    jacoby : bool
        ``game.jacoby``: the Jacoby rule in money games when no Match ID says.
    clock : callable
        Seconds, for the ``time_ms`` of ``info`` lines.

    Notes
    -----
    :meth:`handle` answers one line; :attr:`closed` turns true on ``quit``.
    """

    def __init__(self, player: str | Player | None = None, plies: int = 0, *,
                 jacoby: bool = False, clock: Callable[[], float] = time.perf_counter) -> None:
        self._player = self._compiled(Engine(player).player)
        self.engine = Engine(self._player, plies=plies)
        self.jacoby = bool(jacoby)
        self.closed = False
        self.board: Board | None = None
        self.match: MatchState | None = None
        self.dice: tuple[int, int] | None = None
        self._clock = clock

    # ------------------------------------------------------------ options
    @staticmethod
    def _compiled(player) -> Player:
        if not isinstance(player, Player):
            raise ValueError(f"must be one of bgengine's own players ({PLAYER_CHOICES}), "
                             f"not {getattr(player, 'name', player)!r}")
        return player

    def values(self) -> dict[str, str]:
        """Every option's current value, as ``get`` shows it."""
        return {"engine.ply": str(self.engine.plies + 1), "engine.player": self._player.name,
                "game.jacoby": "true" if self.jacoby else "false", "game.variant": "backgammon"}

    def _set(self, key: str, value: str) -> None:
        if key not in _KEYS:
            raise _Refusal("unsupported", f"key {_shown(key)}")
        if key == "engine.ply":
            if value not in [str(n) for n in range(1, MAX_UBGI_PLY + 1)]:
                raise _Refusal("bad_value", f"engine.ply must_be 1..{MAX_UBGI_PLY}")
            self.engine = self._engine(self._player, int(value) - 1)
        elif key == "engine.player":
            try:
                player = self._compiled(make_player(value))
            except ValueError as exc:
                raise _Refusal("bad_value", f"engine.player {exc}") from None
            self.engine = self._engine(player, self.engine.plies)
            self._player = player
        elif key == "game.jacoby":
            if value not in ("true", "false"):
                raise _Refusal("bad_value", "game.jacoby must_be true|false")
            self.jacoby = value == "true"
        elif value != "backgammon":
            code = "unsupported" if value in OTHER_VARIANTS else "bad_value"
            raise _Refusal(code, f"game.variant {_shown(value)} (only backgammon)")

    @staticmethod
    def _engine(player: Player, plies: int) -> Engine:
        if plies and player.kind != "net":
            raise _Refusal("bad_value", f"engine.ply {plies + 1} needs a network player "
                                        f"(net or net:PATH), not {player.name}")
        return Engine(player, plies=plies)

    # ------------------------------------------------------------ lines
    def handle(self, line: str) -> list[str]:
        """The reply lines to one controller line (no newlines).  Never raises."""
        words = line.split()
        if not words or self.closed:
            return []
        try:
            return self._dispatch(words[0], words[1:], line)
        except _Refusal as refusal:
            return [refusal.line]
        except Exception as exc:    # last resort: a line never ends the session
            log.exception("internal error answering %r", line[:80])
            return [f"error bad_state internal error ({type(exc).__name__}: {_shown(str(exc), 80)})"]

    def _dispatch(self, word: str, args: list[str], line: str) -> list[str]:
        if word in ("ubgi", "isready", "newgame", "quit", "keys"):
            if args:
                raise _Refusal("bad_command", f"expected: {word}")
            return self._simple(word)
        if word == "position":
            return self._position(args)
        if word == "dice":
            return self._dice(args)
        if word == "go":
            return self._go(args)
        if word == "set":
            parts = line.split(None, 2)
            if len(parts) < 3:
                raise _Refusal("bad_command", "expected: set <key> <value>")
            self._set(parts[1], parts[2].strip())
            return []
        if word == "setoption":     # UBGI v0.1: setoption name KEY value VALUE
            rest = line.split(None, 1)[1] if args else ""
            name, sep, value = rest.partition(" value ")
            if not (name.startswith("name ") and sep and name[5:].strip() and value.strip()):
                raise _Refusal("bad_command", "expected: setoption name <key> value <value>")
            self._set(name[5:].strip(), value.strip())
            return []
        if word == "get":
            if len(args) != 1:
                raise _Refusal("bad_command", "expected: get <key>")
            if args[0] not in _KEYS:
                raise _Refusal("unsupported", f"key {_shown(args[0])}")
            return [f"value {args[0]} {self.values()[args[0]]}"]
        raise _Refusal("bad_command", f"unknown command {_shown(word)}")

    def _simple(self, word: str) -> list[str]:
        if word == "ubgi":
            return [f"id name bgengine {bgengine.__version__}", "id author the bgengine authors",
                    f"proto {PROTOCOL_VERSION}", *self._key_lines(), "ubgiok"]
        if word == "isready":
            return ["readyok"]
        if word == "keys":
            return self._key_lines()
        if word == "newgame":
            self.board = self.match = self.dice = None
        else:
            self.closed = True
        return []

    def _key_lines(self) -> list[str]:
        defaults = self.values()
        return [k.line(defaults[k.name]) for k in KEYS]

    def _position(self, args: list[str]) -> list[str]:
        if args[:1] == ["xgid"] and len(args) == 2:
            # through the gnubg ID, so both forms mean exactly the same to the session
            from bgengine.state import GameState

            self.board = self.match = None
            try:
                args = ["gnubgid", GameState.from_xgid(args[1]).to_gnubgid()]
            except ValueError as exc:
                raise _Refusal("bad_value", f"xgid {exc}") from None
        if args[:1] != ["gnubgid"]:
            if len(args) == 2:
                raise _Refusal("unsupported", f"position format {_shown(args[0])}")
            raise _Refusal("bad_command", "expected: position gnubgid <GNU_POSITION_ID>")
        if len(args) != 2:
            raise _Refusal("bad_command", "expected: position gnubgid <GNU_POSITION_ID>")
        self.board = self.match = None      # a bad ID leaves no stale position behind
        try:
            board, match = parse_gnubgid(args[1])
        except ValueError as exc:
            raise _Refusal("bad_value", f"gnubgid {exc}") from None
        self.board, self.match = board, match
        if match is not None and match.dice != (0, 0):
            self.dice = match.dice
        return []

    def _dice(self, args: list[str]) -> list[str]:
        if len(args) != 2:
            raise _Refusal("bad_command", "expected: dice <d1> <d2>")
        self.dice = None
        if not all(a in ("1", "2", "3", "4", "5", "6") for a in args):
            raise _Refusal("bad_value", "dice must_be 1..6")
        self.dice = (int(args[0]), int(args[1]))
        return []

    # ------------------------------------------------------------ decisions
    def _go(self, args: list[str]) -> list[str]:
        if args[:1] == ["role"] and len(args) == 2:     # UBGI v0.1: go role chequer|cube|turn
            args = args[1:]
        kind = args[0] if len(args) == 1 else "chequer" if not args else ""
        if kind not in ("chequer", "cube", "turn", "resign"):
            raise _Refusal("bad_command", "expected: go [chequer|cube|turn|resign]")
        if self.board is None:
            raise _Refusal("bad_state", "missing position")
        if not (self.board.sum(axis=1) > 0).all():
            raise _Refusal("bad_state", "game over: a side has borne off all its checkers")
        if kind not in ("cube", "resign") and self.dice is None:
            raise _Refusal("bad_state", "missing dice")
        try:
            if kind == "chequer":
                start = self._clock()
                payload = self._play()
                ms = round(1000 * (self._clock() - start))
                return [f"info depth {self.engine.plies + 1} time_ms {ms}", f"bestmove {payload}"]
            if kind == "resign":
                level = self.engine.resign_offer(np.asarray(self.board), self._preroll_state(),
                                                 jacoby=self._preroll_state().jacoby)
                return [f"bestresign {('none', 'single', 'gammon', 'backgammon')[level]}"]
            cube = "double" if self._doubles() else "nodouble"
            if kind == "cube":
                return [f"bestcube {cube}"]
            return [f"bestturn cube={cube} move={self._play()}"]
        except EngineError as exc:
            raise _Refusal("unsupported", str(exc)) from None

    def _play(self) -> str:
        assert self.board is not None and self.dice is not None
        if self.match is None:      # a position without a Match ID: money play
            return format_payload(self.engine.choose_move(self.board, *self.dice))
        return format_payload(self.engine.choose_move_at(self.board, *self.dice, self.match))

    def _preroll_state(self) -> MatchState:
        """The state of a decision before the roll: no dice yet, nothing pending."""
        if self.match is None:
            return MatchState(player_on_roll=1, jacoby=self.jacoby)
        return replace(self.match, dice=(0, 0), double_offered=False, resignation=0,
                       turn=self.match.player_on_roll)

    def _doubles(self) -> bool:
        """The side on roll doubles now, before rolling (Janowski cube model)."""
        assert self.board is not None
        state = self._preroll_state()
        return self.engine.cube_decision(np.asarray(self.board), state, jacoby=state.jacoby)
