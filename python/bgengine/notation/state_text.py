"""The text forms of a game state: gnubg's ``PositionID:MatchID`` and eXtreme Gammon's XGID.

Both read to, and write from, a board (a (2, 25) array, row 1 = the side on roll), a
:class:`~bgengine.notation.ids.MatchState` and the two fields only an XGID has (beavers, max cube);
:class:`bgengine.state.GameState` wraps them, and :meth:`bgengine.position.Position.from_id`
takes the board.

eXtreme Gammon's **XGID** (``XGID=`` and ten fields separated by colons),
laid out as gnubg 1.07 reads it (``SetXGID`` in gnubg's ``set.c``):

====  ===================  ==================================================
#     field                meaning
====  ===================  ==================================================
1     position             26 characters, seen from the *bottom* player:
                           character 0 is the top player's bar, 1..24 the
                           bottom player's points 1..24, 25 the bottom
                           player's bar; ``-`` empty, ``A``..``P`` 1..16
                           bottom checkers, ``a``..``p`` top checkers
2     cube                 log2 of the cube value (before a pending double)
3     cube owner           1 bottom, -1 top, 0 centred
4     turn                 1 bottom, -1 top: the side on roll (the doubler
                           while a double is pending)
5     dice                 ``00`` not rolled, two digits 1..6 the roll, ``D``
                           a double offered (``B``/``R`` beaver/raccoon: not
                           read, gnubg does not either)
6, 7  scores               bottom player, top player
8     rules                match: 1 = this is the Crawford game; money:
                           1 = Jacoby rule, + 2 = beavers allowed
9     match length         0 = money
10    max cube             log2 of the highest cube (money); gnubg ignores it
====  ===================  ==================================================

Cubes up to 2**15 (a Match ID's limit) are read and written; gnubg 1.07's ``set xgid``
reads cubes up to 4096 and 4 characters a field (so money session scores up to 9999).

gnubg's player 1 (drawn at the bottom, X) is XG's bottom player, player 0
the top one.

Every form is parsed strictly: an error names the form, the field and what is wrong, and
whatever parses re-serialises to the same text, apart from blanks around it, the letter case
of ``XGID=`` (or its absence), gnubg's labels before its IDs and, as for the Match ID alone,
a roll given with the lower die first in a gnubg ID.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from bgengine.core.board import validate_board
from bgengine.notation.ids import (GAME_PLAYING, MAX_MATCH_LENGTH, MatchState, board_from_position_id,
                          match_id, match_state_from_id, position_id)

__all__ = ["StateFields", "parse_state", "parse_gnubgid", "parse_xgid", "format_gnubgid",
           "format_xgid", "XGID_PREFIX", "DEFAULT_MAX_CUBE", "MAX_CUBE_LOG2", "DEFAULT_JACOBY"]

#: The prefix eXtreme Gammon writes before the fields.
XGID_PREFIX = "XGID="
#: XGID's max-cube field when none is given: 2**10, what eXtreme Gammon writes.
DEFAULT_MAX_CUBE = 1 << 10
#: log2 of the largest cube a Match ID (and so a state) can hold.
MAX_CUBE_LOG2 = 15

_XGID_FIELDS = ("position", "cube", "cube owner", "turn", "dice", "bottom score",
                "top score", "rules", "match length", "max cube")
_XGID_CHECKERS = re.compile(r"[-A-Pa-p]{26}")
_INTEGER = re.compile(r"0|-?[1-9][0-9]*")      # no leading zeros: one text per value
_GNUBG_ID = re.compile(r"([A-Za-z0-9+/]{14})[:\s]+([A-Za-z0-9+/]{12})")
#: The labels gnubg writes before its IDs: ``GNUbg ID: P:M`` (Copy GNUbg ID), ``gnubgid P:M``
#: (UBGI, ``set gnubgid``), ``GNU Backgammon  Position ID: P`` and ``Match ID   : M`` (the
#: lines above the board).
_GNUBG_LABEL = re.compile(r"(?<![A-Za-z0-9+/])(?:GNU\s*Backgammon\s+)?"
                          r"(?:GNU\s*bg\s+ID\s*[:=]|gnubgid(?:\s*[:=]|\s)|Position\s+ID\s*:|"
                          r"Match\s+ID\s*:)", re.IGNORECASE)
#: Jacoby rule of a state its text does not give it to (a Position ID alone): off, the one
#: default of every command and protocol (see ``bgengine --help``).
DEFAULT_JACOBY = False


class StateFields(NamedTuple):
    """A state read from text: ``board`` ((2, 25) ``uint8``, row 1 = ``match.player_on_roll``),
    ``match``, and XGID's ``beavers`` and ``max_cube`` (defaults for the other forms)."""

    board: np.ndarray
    match: MatchState
    beavers: bool = False
    max_cube: int = DEFAULT_MAX_CUBE


def parse_state(text: str) -> StateFields:
    """Any text form of a state: an XGID (``XGID=...``, the prefix optional), gnubg's
    ``PositionID:MatchID`` (or the two IDs separated by blanks; gnubg's labels before them,
    ``GNUbg ID:``, ``gnubgid``, ``Position ID:`` and ``Match ID:``, optional), or a Position
    ID alone (money, cube 1 centred, gnubg's player 1 on roll, no dice, no Jacoby rule:
    :data:`DEFAULT_JACOBY`).

    Raises ``ValueError`` naming the form, the field and the problem.
    """
    if not isinstance(text, str):
        raise ValueError(f"a game state is a string (XGID, PositionID:MatchID or Position ID), "
                         f"got {type(text).__name__}")
    t = text.strip()
    if t.upper().startswith(XGID_PREFIX) or t.count(":") >= 9:
        return parse_xgid(t)
    t = " ".join(_GNUBG_LABEL.sub(" ", t).split())
    if ":" in t or len(t.split()) == 2:
        return parse_gnubgid(t)
    if len(t) == 14:
        return StateFields(board_from_position_id(t),
                           MatchState(player_on_roll=1, jacoby=DEFAULT_JACOBY))
    raise ValueError(f"not a game state: {text!r} (expected an XGID 'XGID=...', gnubg's "
                     f"'PositionID:MatchID' (14 + 12 characters) or a 14-character Position ID)")


def parse_gnubgid(text: str) -> StateFields:
    """gnubg's combined ``PositionID:MatchID`` (as ``show board`` prints the two and
    ``set gnubgid`` reads them)."""
    t = text.strip()
    m = _GNUBG_ID.fullmatch(t)
    if not m:
        parts = re.split(r"[:\s]+", t)
        if len(parts) != 2:
            raise ValueError(f"gnubg ID {text!r}: expected 'PositionID:MatchID', "
                             f"{len(parts)} part(s) found")
        # let the two decoders say what is wrong with each part
        board_from_position_id(parts[0])
        match_state_from_id(parts[1])
        raise AssertionError("unreachable")  # pragma: no cover
    return StateFields(board_from_position_id(m.group(1)), match_state_from_id(m.group(2)))


def format_gnubgid(board, match: MatchState) -> str:
    """gnubg's combined ``PositionID:MatchID``."""
    return f"{position_id(board)}:{match_id(match)}"


def parse_xgid(text: str) -> StateFields:
    """An eXtreme Gammon XGID (see the module docstring for the fields)."""
    t = text.strip()
    body = t[len(XGID_PREFIX):] if t.upper().startswith(XGID_PREFIX) else t
    fields = body.split(":")
    if len(fields) != len(_XGID_FIELDS):
        raise ValueError(f"XGID {text!r}: expected {len(_XGID_FIELDS)} fields separated by ':' "
                         f"({', '.join(_XGID_FIELDS)}), got {len(fields)}")

    def bad(i: int, why: str) -> ValueError:
        return ValueError(f"XGID {text!r}: field {i + 1} ({_XGID_FIELDS[i]}) "
                          f"{fields[i]!r}: {why}")

    def integer(i: int, lo: int, hi: int) -> int:
        if not _INTEGER.fullmatch(fields[i]):
            raise bad(i, "not a whole number (digits, no leading zeros)")
        v = int(fields[i])
        if not lo <= v <= hi:
            raise bad(i, f"must be in {lo}..{hi}")
        return v

    if not _XGID_CHECKERS.fullmatch(fields[0]):
        raise bad(0, "must be 26 characters, each '-', A-P (bottom player) or a-p (top player)")
    cube_log2 = integer(1, 0, MAX_CUBE_LOG2)
    owner = integer(2, -1, 1)
    turn = integer(3, -1, 1)
    if turn == 0:
        raise bad(3, "must be 1 (bottom player on roll) or -1 (top player)")
    on_roll = 1 if turn == 1 else 0
    dice_text = fields[4]
    doubled = dice_text == "D"
    if doubled:
        dice = (0, 0)
    elif dice_text in ("B", "R"):
        raise bad(4, "a pending beaver or raccoon cannot be represented (gnubg reads neither)")
    elif re.fullmatch(r"00|[1-6][1-6]", dice_text):
        dice = (int(dice_text[0]), int(dice_text[1]))
    else:
        raise bad(4, "must be 00 (not rolled), two dice 1..6 such as 52, or D (double offered)")
    bottom_score = integer(5, 0, 0x7FFF)
    top_score = integer(6, 0, 0x7FFF)
    rules = integer(7, 0, 3)
    length = integer(8, 0, MAX_MATCH_LENGTH)
    max_cube_log2 = integer(9, 0, MAX_CUBE_LOG2)
    for i, score in ((5, bottom_score), (6, top_score)):
        if length and score > length:
            raise bad(i, f"past the match length {length}")
    if length and rules > 1:
        raise bad(7, "in a match it must be 0 or 1 (1 = the Crawford game)")
    try:
        board = validate_board(_board_from_xg(fields[0], on_roll))
    except ValueError as exc:
        raise bad(0, str(exc)) from None
    try:
        state = MatchState(
            match_length=length, score=(top_score, bottom_score), cube=1 << cube_log2,
            cube_owner={0: -1, 1: 1, -1: 0}[owner], player_on_roll=on_roll,
            turn=1 - on_roll if doubled else on_roll, crawford=bool(length and rules),
            game_state=GAME_PLAYING, double_offered=doubled, dice=dice,
            jacoby=bool(not length and rules & 1))
    except ValueError as exc:
        raise ValueError(f"XGID {text!r}: {exc}") from None
    return StateFields(board, state, beavers=bool(not length and rules & 2),
                       max_cube=1 << max_cube_log2)



def format_xgid(board, match: MatchState, beavers: bool = False,
                max_cube: int = DEFAULT_MAX_CUBE) -> str:
    """The XGID of a state (``board`` row 1 = ``match.player_on_roll``).

    Raises ``ValueError`` for what an XGID cannot carry: a resignation pending, a game not
    in progress, the Jacoby rule in a match, a decision other than a double's pending.
    """
    m = match
    if m.resignation:
        raise ValueError("an XGID cannot hold a pending resignation")
    if m.game_state != GAME_PLAYING:
        raise ValueError(f"an XGID holds a game in progress, not one in state "
                         f"{m.game_state_name!r}")
    if m.match_length and m.jacoby:
        raise ValueError("an XGID cannot hold the Jacoby rule in a match")
    if m.double_offered:
        if m.turn == m.player_on_roll or m.dice != (0, 0):
            raise ValueError("a double is offered by the side on roll before it rolls: "
                             f"turn {m.turn}, on roll {m.player_on_roll}, dice {m.dice}")
        dice = "D"
    elif m.turn != m.player_on_roll:
        raise ValueError(f"an XGID cannot hold a decision of player {m.turn} while player "
                         f"{m.player_on_roll} is on roll without a double")
    else:
        dice = f"{m.dice[0]}{m.dice[1]}"
    if m.match_length:
        rules = int(m.crawford)
    else:
        rules = int(m.jacoby) + 2 * int(beavers)
    owner = {-1: 0, 1: 1, 0: -1}[m.cube_owner]
    fields = (_xg_checkers(validate_board(board), m.player_on_roll), m.cube.bit_length() - 1, owner,
              1 if m.player_on_roll == 1 else -1, dice, m.score[1], m.score[0], rules,
              m.match_length, max_cube.bit_length() - 1)
    return XGID_PREFIX + ":".join(str(f) for f in fields)


def _bottom_top(board: np.ndarray, on_roll: int) -> tuple[np.ndarray, np.ndarray]:
    """(bottom player's row, top player's row): gnubg's player 1 is XG's bottom player."""
    return (board[1], board[0]) if on_roll == 1 else (board[0], board[1])


def _xg_checkers(board: np.ndarray, on_roll: int) -> str:
    """XGID's 26-character position field of ``board`` (row 1 = ``on_roll``)."""
    bottom, top = _bottom_top(board, on_roll)
    chars = ["-"] * 26
    chars[0] = _xg_char(int(top[24]), "a")
    chars[25] = _xg_char(int(bottom[24]), "A")
    for p in range(1, 25):          # the bottom player's point p is the top player's 25 - p
        n_bottom, n_top = int(bottom[p - 1]), int(top[24 - p])
        chars[p] = _xg_char(n_bottom, "A") if n_bottom else _xg_char(n_top, "a")
    return "".join(chars)


def _xg_char(n: int, one: str) -> str:
    return chr(ord(one) + n - 1) if n else "-"


def _board_from_xg(text: str, on_roll: int) -> np.ndarray:
    """The (2, 25) board (row 1 = ``on_roll``) of XGID's position field (already
    checked to be 26 of ``-``, A-P, a-p)."""
    bottom = np.zeros(25, dtype=np.int64)
    top = np.zeros(25, dtype=np.int64)
    for i, ch in enumerate(text):
        if ch == "-":
            continue
        is_bottom = ch.isupper()
        n = ord(ch.lower()) - ord("a") + 1
        if i in (0, 25) and is_bottom != (i == 25):
            owner = "bottom" if is_bottom else "top"
            raise ValueError(f"XGID position {text!r}: character {i + 1} is the "
                             f"{'top' if i == 0 else 'bottom'} player's bar, but {ch!r} "
                             f"means {n} {owner} checker(s)")
        if i == 0:
            top[24] = n
        elif i == 25:
            bottom[24] = n
        elif is_bottom:
            bottom[i - 1] = n
        else:
            top[24 - i] = n
    return np.stack([top, bottom]) if on_roll == 1 else np.stack([bottom, top])
