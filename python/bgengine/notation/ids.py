"""GNU Backgammon Position IDs and Match IDs.

Both follow gnubg (``positionid.c``, ``matchid.c``) bit for bit:

* **Position ID** (14 characters): an 80-bit key, written LSB first within
  each byte.  For row 0 and then row 1 of the board (in our layout row 1 is
  the side on roll, exactly like gnubg's ``TanBoard``), for each of the 25
  slots (points 1..24 of that side, then its bar): one ``1`` bit per checker
  followed by a ``0``.  The 10 bytes are base64-encoded without padding; the
  last character carries only 2 bits, the rest of it is zero.
* **Match ID** (12 characters): a 66-bit key in 9 bytes (LSB first): cube
  log2 (4 bits), cube owner (2: 0, 1, or 3 = centred), player on roll / dice
  owner (1), Crawford (1), game state (3), turn (1), double offered (1),
  resignation (2), higher die (3), lower die (3), match length (15), score of
  player 0 (15), score of player 1 (15), and (gnubg 1.07) bit 66 = *not*
  Jacoby: gnubg sets it for matches and for money play with the Jacoby rule
  off, so its match IDs usually end in ``E``.  Bits 67..71 are unused.

Decoding is strict: every ID that decodes without an error re-encodes to the
same text (except that, like gnubg, an ID with the lower die first decodes
with that order and re-encodes with the higher die first), and the error
message names what is wrong.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

import numpy as np

from bgengine._checks import is_int
from bgengine.core.board import validate_board

__all__ = [
    "position_id", "board_from_position_id", "position_key",
    "MatchState", "match_id", "match_state_from_id",
    "GAME_NONE", "GAME_PLAYING", "GAME_OVER", "GAME_RESIGNED", "GAME_DROP",
    "MAX_MATCH_LENGTH",
]

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_INDEX = {ch: i for i, ch in enumerate(_B64)}
_B64_RE = re.compile(r"[A-Za-z0-9+/]*")

#: gnubg's ``gamestate`` enumeration.
GAME_NONE, GAME_PLAYING, GAME_OVER, GAME_RESIGNED, GAME_DROP = range(5)
_GAME_STATE_NAMES = ("none", "playing", "over", "resigned", "dropped")

#: gnubg's MAXSCORE: the longest match its Match IDs are accepted for.
MAX_MATCH_LENGTH = 64


def _bad_character(text: str, what: str) -> ValueError:
    for i, ch in enumerate(text):
        if ch not in _B64_INDEX:
            return ValueError(f"{what} {text!r}: invalid character {ch!r} at position {i + 1} "
                              "(only A-Z a-z 0-9 + / are used)")
    raise AssertionError("unreachable")  # pragma: no cover


# ---------------------------------------------------------------- Position ID

def position_key(board) -> bytes:
    """gnubg's 10-byte position key of a (2, 25) board (row 0 first)."""
    rows = np.asarray(board)
    if rows.shape != (2, 25):
        raise ValueError(f"board must have shape (2, 25), got {rows.shape}")
    key = 0
    bit = 0
    for n in rows.ravel().tolist():
        n = int(n)
        if n < 0:
            raise ValueError(f"negative checker count {n}")
        if n:
            key |= ((1 << n) - 1) << bit
            bit += n + 1
        else:
            bit += 1
    if bit > 80:
        raise ValueError("board holds more than 30 checkers; it has no Position ID")
    return key.to_bytes(10, "little")


def position_id(board) -> str:
    """The 14-character GNU Backgammon Position ID of ``board``.

    ``board`` is a (2, 25) array in gnubg's layout (row 1 = side on roll).
    It is validated first (``ValueError`` for an illegal board).

    >>> position_id(np.array([[0]*5 + [5, 0, 3] + [0]*4 + [5] + [0]*10 + [2, 0]] * 2))
    '4HPwATDgc/ABMA'
    """
    arr = validate_board(board)
    return base64.b64encode(position_key(arr)).decode("ascii")[:14]


def board_from_position_id(pid: str) -> np.ndarray:
    """Decode a Position ID into a (2, 25) ``uint8`` board (row 1 = side on roll).

    Raises ``ValueError`` naming the problem: not a string, wrong length,
    characters outside the base64 alphabet, unused bits set in the last
    character, more than 30 checkers encoded, bits set after the end of the
    position, or a position :func:`bgengine.core.board.validate_board` rejects: more
    than 15 checkers for a side, both sides on one point, both sides borne off,
    or both sides on the bar against closed boards (which gnubg also rejects).
    """
    if not isinstance(pid, str):
        raise ValueError(f"a Position ID is a 14-character string, got {type(pid).__name__}")
    if len(pid) != 14:
        raise ValueError(f"Position ID {pid!r} must be 14 characters long, got {len(pid)}")
    if not _B64_RE.fullmatch(pid):
        raise _bad_character(pid, "Position ID")
    if _B64_INDEX[pid[13]] & 0x0F:
        raise ValueError(f"Position ID {pid!r}: the last character {pid[13]!r} has unused bits set "
                         "(it must be one of A, Q, g, w)")
    key = int.from_bytes(base64.b64decode(pid + "=="), "little")
    # bits LSB first; runs of ones separated by zeros are the 50 slot counts
    runs = format(key, "080b")[::-1].split("0")
    if len(runs) < 51:
        raise ValueError(f"Position ID {pid!r} encodes more than 30 checkers "
                         f"({key.bit_count()} one-bits)")
    if any(runs[50:]):
        raise ValueError(f"Position ID {pid!r} has bits set after the end of the position")
    counts = [len(r) for r in runs[:50]]
    try:        # the one definition of a valid position
        return validate_board(np.array(counts, dtype=np.int64).reshape(2, 25))
    except ValueError as exc:
        raise ValueError(f"Position ID {pid!r}: {exc}") from None


# ---------------------------------------------------------------- Match ID

@dataclass(frozen=True)
class MatchState:
    """The match and game state a gnubg Match ID holds (``matchid.c``).

    Players are gnubg's player 0 and player 1 (on gnubg's board, player 1 is
    X, drawn at the bottom).

    Attributes
    ----------
    match_length : int
        0 for money play, else the match length (1..64).
    score : (int, int)
        Points of player 0 and player 1.
    cube : int
        Cube value, a power of two (1, 2, 4, ... 2**15).
    cube_owner : int
        -1 centred, else the player (0 or 1) who owns the cube.
    player_on_roll : int
        gnubg's ``fMove``: the player whose turn it is, who owns the dice.
    turn : int
        gnubg's ``fTurn``: the player who must make the next decision (differs
        from ``player_on_roll`` while a double or resignation is answered).
        ``None`` (the default) means ``player_on_roll``.
    crawford : bool
        This game is the Crawford game.
    game_state : int
        ``GAME_NONE`` (0), ``GAME_PLAYING`` (1), ``GAME_OVER`` (2),
        ``GAME_RESIGNED`` (3) or ``GAME_DROP`` (4).
    double_offered : bool
        A double is pending.
    resignation : int
        0 none, else the offered resignation: 1 single, 2 gammon, 3 backgammon.
    dice : (int, int)
        The dice rolled, ``(0, 0)`` if not rolled yet.  The Match ID stores the
        higher die first; the order given here is kept in the object.
    jacoby : bool
        gnubg's ``fJacoby`` (stored inverted in bit 66).  ``None`` (the
        default) means what gnubg does by default: on for money play, off in
        a match.
    """

    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    cube: int = 1
    cube_owner: int = -1
    player_on_roll: int = 0
    turn: int | None = None
    crawford: bool = False
    game_state: int = GAME_PLAYING
    double_offered: bool = False
    resignation: int = 0
    dice: tuple[int, int] = (0, 0)
    jacoby: bool | None = None

    def __post_init__(self) -> None:
        def whole(name, value, lo, hi):
            if not is_int(value):
                raise ValueError(f"MatchState.{name} must be an integer, got {value!r}")
            if not lo <= value <= hi:
                raise ValueError(f"MatchState.{name} must be in {lo}..{hi}, got {value}")
            return int(value)

        def flag(name, value):
            if value in (0, 1) and not isinstance(value, float):
                return bool(value)
            raise ValueError(f"MatchState.{name} must be True/False (or 0/1), got {value!r}")

        def pair(name, value):
            try:
                a, b = value
            except (TypeError, ValueError):
                raise ValueError(f"MatchState.{name} must be a pair of integers, got {value!r}") from None
            return a, b

        set_ = object.__setattr__
        set_(self, "match_length", whole("match_length", self.match_length, 0, MAX_MATCH_LENGTH))
        s0, s1 = pair("score", self.score)
        # a finished game may leave the winner past the length (see match_state_from_id)
        ended = self.game_state in (GAME_OVER, GAME_RESIGNED, GAME_DROP)
        top = self.match_length if self.match_length and not ended else 0x7FFF
        set_(self, "score", (whole("score[0]", s0, 0, top), whole("score[1]", s1, 0, top)))
        cube = self.cube
        if (not is_int(cube) or cube < 1
                or cube > 1 << 15 or cube & (cube - 1)):
            raise ValueError(f"MatchState.cube must be a power of two from 1 to 32768, got {cube!r}")
        set_(self, "cube", int(cube))
        set_(self, "cube_owner", whole("cube_owner", self.cube_owner, -1, 1))
        set_(self, "player_on_roll", whole("player_on_roll", self.player_on_roll, 0, 1))
        turn = self.player_on_roll if self.turn is None else self.turn
        set_(self, "turn", whole("turn", turn, 0, 1))
        set_(self, "crawford", flag("crawford", self.crawford))
        if self.crawford and not self.match_length:
            raise ValueError("MatchState.crawford: there is no Crawford game in money play")
        set_(self, "game_state", whole("game_state", self.game_state, 0, 4))
        set_(self, "double_offered", flag("double_offered", self.double_offered))
        set_(self, "resignation", whole("resignation", self.resignation, 0, 3))
        d0, d1 = pair("dice", self.dice)
        d0, d1 = whole("dice[0]", d0, 0, 6), whole("dice[1]", d1, 0, 6)
        if (d0 == 0) != (d1 == 0):
            raise ValueError(f"MatchState.dice must be two dice 1..6 or (0, 0), got {(d0, d1)}")
        set_(self, "dice", (d0, d1))
        jacoby = self.match_length == 0 if self.jacoby is None else self.jacoby
        set_(self, "jacoby", flag("jacoby", jacoby))

    @property
    def dice_owner(self) -> int:
        """Alias of ``player_on_roll`` (gnubg's ``fMove``)."""
        return self.player_on_roll

    @property
    def is_money(self) -> bool:
        return self.match_length == 0

    @property
    def game_state_name(self) -> str:
        return _GAME_STATE_NAMES[self.game_state]

    @property
    def match_id(self) -> str:
        return match_id(self)


def _log2_cube(cube: int) -> int:
    return cube.bit_length() - 1


def match_id(state: MatchState) -> str:
    """The 12-character GNU Backgammon Match ID of ``state``.

    >>> match_id(MatchState(match_length=9, score=(2, 4), cube=2, cube_owner=0,
    ...                     player_on_roll=1, dice=(5, 2), jacoby=True))
    'QYkqASAAIAAA'
    """
    if not isinstance(state, MatchState):
        raise ValueError(f"match_id needs a MatchState, got {type(state).__name__}")
    s = state
    fields = (
        (0, _log2_cube(s.cube)), (4, s.cube_owner & 3), (6, s.player_on_roll),
        (7, int(s.crawford)), (8, s.game_state), (11, s.turn), (12, int(s.double_offered)),
        (13, s.resignation), (15, max(s.dice)), (18, min(s.dice)), (21, s.match_length),
        (36, s.score[0]), (51, s.score[1]), (66, int(not s.jacoby)),
    )
    key = 0
    for pos, value in fields:
        key |= value << pos
    return base64.b64encode(key.to_bytes(9, "little")).decode("ascii")


def match_state_from_id(mid: str) -> MatchState:
    """Decode a 12-character Match ID.

    Raises ``ValueError`` naming the problem: wrong length, bad characters,
    unused bits set, an invalid cube owner, game state, die or score, a
    Crawford game in money play, a match longer than 64.
    """
    if not isinstance(mid, str):
        raise ValueError(f"a Match ID is a 12-character string, got {type(mid).__name__}")
    if len(mid) != 12:
        raise ValueError(f"Match ID {mid!r} must be 12 characters long, got {len(mid)}")
    if not _B64_RE.fullmatch(mid):
        raise _bad_character(mid, "Match ID")
    try:
        key = int.from_bytes(base64.b64decode(mid), "little")
    except binascii.Error as exc:  # pragma: no cover - the regex already filters
        raise ValueError(f"Match ID {mid!r}: {exc}") from None

    def bits(pos, n):
        return (key >> pos) & ((1 << n) - 1)

    if key >> 67:
        raise ValueError(f"Match ID {mid!r} has unused bits set (key bits 67..71; the last "
                         "character must be one of A-H)")
    owner = bits(4, 2)
    if owner == 2:
        raise ValueError(f"Match ID {mid!r}: invalid cube owner code 2 (0, 1 or 3 = centred)")
    gs = bits(8, 3)
    if gs > GAME_DROP:
        raise ValueError(f"Match ID {mid!r}: invalid game state {gs} (0..4)")
    d0, d1 = bits(15, 3), bits(18, 3)
    if d0 > 6 or d1 > 6:
        raise ValueError(f"Match ID {mid!r}: invalid die {max(d0, d1)} (dice are 1..6)")
    if (d0 == 0) != (d1 == 0):
        raise ValueError(f"Match ID {mid!r}: only one die rolled ({d0}, {d1})")
    length = bits(21, 15)
    if length > MAX_MATCH_LENGTH:
        raise ValueError(f"Match ID {mid!r}: match length {length} is longer than "
                         f"{MAX_MATCH_LENGTH}")
    s0, s1 = bits(36, 15), bits(51, 15)
    # once a game has ended, the winner's score may pass the length (2-0 in a
    # 1-point match after a gammon): gnubg writes such IDs; in play it cannot
    over = gs in (GAME_OVER, GAME_RESIGNED, GAME_DROP)
    if length and (s0 > length or s1 > length) and not over:
        raise ValueError(f"Match ID {mid!r}: score {s0}-{s1} is past the match length {length}")
    crawford = bits(7, 1)
    if crawford and not length:
        raise ValueError(f"Match ID {mid!r}: Crawford game flagged in money play")
    return MatchState(
        match_length=length, score=(s0, s1), cube=1 << bits(0, 4),
        cube_owner=-1 if owner == 3 else owner, player_on_roll=bits(6, 1),
        turn=bits(11, 1), crawford=bool(crawford), game_state=gs,
        double_offered=bool(bits(12, 1)), resignation=bits(13, 2), dice=(d0, d1),
        jacoby=not bits(66, 1),
    )
