"""FIBS ``board:`` lines, as GNU Backgammon's external-player interface uses them.

gnubg (``set player N external host:port``) sends one line per decision::

    board:NAME:OPP:<50 integers separated by ':'>

(see ``docs/gnubg-external.md`` §1.4-1.5).  This module parses
such a line into a :class:`FibsBoard`, works out the position from the side on
roll as our ``(2, 25)`` array (row 1 = the side on roll), writes lines the way
gnubg 1.07 writes them (:func:`format_fibs_board`), and formats a play as the
reply an external player sends (:func:`move_reply`).

What gnubg 1.07 puts in the fields (all captured from the installed binary):
the board is always drawn from **player 1**'s side (colour ``1``, direction
``-1``, home ``0``, bar ``25``): ``board[1..24]`` are player 1's points 1..24,
positive for player 1's checkers and negative for player 0's; ``board[0]`` is
player 0's bar (negative), ``board[25]`` player 1's bar.  ``turn`` is ``+1``
when player 1 is on roll, ``-1`` for player 0.  Both dice pairs hold the dice
of the side on roll.  The first name and score belong to player 0, except
while a double is being answered (then player 1 comes first).  ``did
Crawford`` is gnubg's post-Crawford flag and the last field (FIBS:
redoubles) is ``1`` outside the Crawford game and ``0`` in it.  The position
rule of :meth:`FibsBoard.mover_board` is gnubg's own ``ProcessFIBSBoardInfo``
rule, so generic FIBS orientations work too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from bgengine.core.board import validate_board
from bgengine.notation.ids import GAME_PLAYING, MatchState
from bgengine.notation.moves import format_steps_plain

__all__ = ["FibsBoard", "parse_fibs_board", "mover_board", "format_fibs_board", "move_reply",
           "N_FIELDS"]

#: Fields after ``board:``: two names and 50 integers.
N_FIELDS = 52

_INT_NAMES = (
    ["match length", "score", "opponent score", "board[0] (bar)"]
    + [f"board[{i}]" for i in range(1, 25)]
    + ["board[25] (bar)", "turn", "die 1", "die 2", "opponent die 1", "opponent die 2",
       "cube", "may double", "opponent may double", "was doubled", "colour", "direction",
       "home", "bar", "on home", "opponent on home", "on bar", "opponent on bar",
       "can move", "forced move", "did Crawford", "redoubles"]
)
assert len(_INT_NAMES) == 50


@dataclass(frozen=True)
class FibsBoard:
    """Every field of a FIBS ``board:`` line (FIBS "boardstyle 3").

    Names follow the FIBS documentation ("player" is the first-named side,
    "opponent" the second); the comments say what gnubg 1.07 puts there.
    """

    player: str                      # gnubg: player 0 (player 1 while a double is answered)
    opponent: str
    match_length: int                # 0 (gnubg) or 9999 (FIBS) for money play
    player_score: int
    opponent_score: int
    board: tuple[int, ...]           # 26 values: [0] and [25] bars, [1..24] points
    turn: int                        # sign of the side on roll (gnubg: +1 = player 1)
    dice: tuple[int, int]            # (0, 0) = not rolled
    opponent_dice: tuple[int, int]   # gnubg: the same dice again
    cube: int
    may_double: int                  # gnubg: player 1 may double
    opponent_may_double: int         # gnubg: player 0 may double
    was_doubled: int                 # nonzero while a double must be answered
    colour: int                      # gnubg: always 1
    direction: int                   # gnubg: always -1
    home: int                        # gnubg: always 0
    bar: int                         # gnubg: always 25
    on_home: int                     # checkers borne off by the `colour` side
    opponent_on_home: int
    on_bar: int                      # gnubg: always 0
    opponent_on_bar: int             # gnubg: always 0
    can_move: int                    # gnubg: always 0
    forced_move: int                 # gnubg: always 0
    did_crawford: int                # gnubg: post-Crawford game
    redoubles: int                   # gnubg: 1 = not the Crawford game, 0 = Crawford game

    # ------------------------------------------------------------ derived
    @property
    def doubled(self) -> bool:
        """A double is pending (gnubg also infers it when neither side may double)."""
        return bool(self.was_doubled) or (not self.may_double and not self.opponent_may_double)

    @property
    def roll(self) -> tuple[int, int]:
        """The dice of the side on roll: ``dice``, or the opponent's pair if
        ``dice`` is empty (gnubg's rule); ``(0, 0)`` if not rolled."""
        return self.dice if self.dice[0] else self.opponent_dice

    @property
    def decision(self) -> str:
        """``"take"`` (answer a double), ``"move"`` (dice rolled) or ``"cube"``
        (double or roll), docs/gnubg-external.md §1.3."""
        if self.doubled:
            return "take"
        return "move" if self.roll[0] else "cube"

    @property
    def is_money(self) -> bool:
        return self.match_length in (0, 9999)

    def mover_board(self) -> np.ndarray:
        """The position from the side on roll, as our ``(2, 25)`` ``uint8`` array."""
        return mover_board(self)

    def decider_board(self) -> np.ndarray:
        """The position from the side that must decide: the side on roll,
        except while a double is answered (then the other side)."""
        b = mover_board(self)
        return b[::-1].copy() if self.doubled else b

    def match_state(self) -> MatchState:
        """The match state in gnubg's terms, assuming gnubg's layout: player 1
        is the side with positive checkers (``colour``), player 0 the other.

        Scores follow gnubg's naming quirk (the first score is player 0's,
        player 1's while a double is answered).  Crawford is detected as gnubg
        does: a side is 1-away and neither of the last two fields is set.
        """
        on_roll = 1 if self.turn * self.colour > 0 else 0
        doubled = self.doubled
        first, second = self.player_score, self.opponent_score
        score = (second, first) if doubled else (first, second)
        length = 0 if self.is_money else self.match_length
        if self.may_double and not self.opponent_may_double:
            owner = 1
        elif self.opponent_may_double and not self.may_double:
            owner = 0
        else:
            owner = -1
        crawford = bool(length) and (length - max(score) == 1) and not (
            self.did_crawford or self.redoubles)
        return MatchState(
            match_length=length, score=score, cube=self.cube, cube_owner=owner,
            player_on_roll=on_roll, turn=(1 - on_roll) if doubled else on_roll,
            crawford=crawford, game_state=GAME_PLAYING, double_offered=doubled,
            dice=self.roll,
        )

    def to_line(self) -> str:
        """The ``board:`` line (no newline)."""
        ints = [self.match_length, self.player_score, self.opponent_score, *self.board,
                self.turn, *self.dice, *self.opponent_dice, self.cube, self.may_double,
                self.opponent_may_double, self.was_doubled, self.colour, self.direction,
                self.home, self.bar, self.on_home, self.opponent_on_home, self.on_bar,
                self.opponent_on_bar, self.can_move, self.forced_move, self.did_crawford,
                self.redoubles]
        return "board:" + ":".join([_name(self.player), _name(self.opponent)]
                                   + [str(int(v)) for v in ints])

    def __str__(self) -> str:
        return self.to_line()


def _name(name: str) -> str:
    return str(name).replace(":", "_").replace("\n", " ").replace("\0", "")


def _sides(fb_board: Sequence[int], colour: int, direction: int) -> tuple[int, int]:
    """Checkers (on board and bar) of the `colour` side and of the other side."""
    pos = sum(v for v in fb_board[1:25] if v > 0)
    neg = sum(-v for v in fb_board[1:25] if v < 0)
    # the side moving towards point 0 (direction -1) has its bar at 25
    bar_colour = abs(fb_board[25]) if direction < 0 else abs(fb_board[0])
    bar_other = abs(fb_board[0]) if direction < 0 else abs(fb_board[25])
    if colour > 0:
        return pos + bar_colour, neg + bar_other
    return neg + bar_colour, pos + bar_other


def parse_fibs_board(line: str) -> FibsBoard:
    """Parse a FIBS ``board:`` line (surrounding white space and NUL bytes are ignored).

    Raises ``ValueError`` with a clear message for: a missing ``board:``
    prefix, a wrong number of fields, a field that is not an integer, or
    impossible values (more than 15 checkers for a side, borne-off counts that
    do not add up, dice outside 0..6 or only one die, turn/colour/direction
    not +-1, a cube that is not a power of two, a score past the match length).
    """
    if not isinstance(line, str):
        raise ValueError(f"a board line must be a string, got {type(line).__name__}")
    text = line.replace("\0", "").strip()
    if not text.startswith("board:"):
        raise ValueError(f"not a FIBS board line (it must start with 'board:'): {text[:40]!r}")
    parts = text[6:].split(":")
    if len(parts) != N_FIELDS:
        raise ValueError(f"a FIBS board line has {N_FIELDS} fields after 'board:' "
                         f"(2 names and 50 integers), got {len(parts)}")
    player, opponent = parts[0], parts[1]
    values = []
    for k, raw in enumerate(parts[2:]):
        s = raw.strip()
        try:
            if not s or not s.lstrip("+-").isdigit() or not s.isascii():
                raise ValueError
            values.append(int(s))
        except ValueError:
            raise ValueError(f"field {k + 3} ({_INT_NAMES[k]}) is not an integer: {raw!r}") from None
    v = values
    fb = FibsBoard(
        player=player, opponent=opponent, match_length=v[0], player_score=v[1],
        opponent_score=v[2], board=tuple(v[3:29]), turn=v[29], dice=(v[30], v[31]),
        opponent_dice=(v[32], v[33]), cube=v[34], may_double=v[35],
        opponent_may_double=v[36], was_doubled=v[37], colour=v[38], direction=v[39],
        home=v[40], bar=v[41], on_home=v[42], opponent_on_home=v[43], on_bar=v[44],
        opponent_on_bar=v[45], can_move=v[46], forced_move=v[47], did_crawford=v[48],
        redoubles=v[49],
    )
    _check(fb)
    return fb


def _check(fb: FibsBoard) -> None:
    if fb.match_length < 0 or fb.player_score < 0 or fb.opponent_score < 0:
        raise ValueError("match length and scores must not be negative")
    if fb.match_length not in (0, 9999) and max(fb.player_score, fb.opponent_score) >= fb.match_length:
        raise ValueError(f"score {fb.player_score}-{fb.opponent_score} is not below the "
                         f"match length {fb.match_length}")
    for name in ("turn", "colour", "direction"):
        if getattr(fb, name) not in (-1, 1):
            raise ValueError(f"{name} must be 1 or -1, got {getattr(fb, name)}")
    for name in ("dice", "opponent_dice"):
        d = getattr(fb, name)
        if not all(0 <= x <= 6 for x in d) or (d[0] == 0) != (d[1] == 0):
            raise ValueError(f"{name.replace('_', ' ')} must be two dice 1..6 or 0:0, got {d[0]}:{d[1]}")
    if fb.cube < 1 or fb.cube & (fb.cube - 1):
        raise ValueError(f"the cube must be a power of two, got {fb.cube}")
    n_colour, n_other = _sides(fb.board, fb.colour, fb.direction)
    for who, n in (("the colour side", n_colour), ("the other side", n_other)):
        if n > 15:
            raise ValueError(f"impossible board: {who} has {n} checkers on the board and bar")
    for who, on_board, off in (("the colour side", n_colour, fb.on_home),
                               ("the other side", n_other, fb.opponent_on_home)):
        if off < 0 or on_board + off != 15:
            raise ValueError(f"impossible checker counts: {who} has {on_board} checkers in play "
                             f"and {off} borne off (must add up to 15)")


def mover_board(fb: FibsBoard) -> np.ndarray:
    """Our ``(2, 25)`` board from the side on roll (docs/gnubg-external.md §1.5, gnubg's
    ``ProcessFIBSBoardInfo``): the checkers with the sign of ``turn`` are the
    mover's; the mover's point 1 is ``board[1]`` if it moves towards 0, else
    ``board[24]``."""
    b = fb.board
    sign = fb.turn
    mdir = fb.direction if fb.turn == fb.colour else -fb.direction
    out = np.zeros((2, 25), dtype=np.uint8)
    for k in range(1, 25):
        v = (b[k] if mdir < 0 else b[25 - k]) * sign
        if v > 0:
            out[1, k - 1] = v
        elif v < 0:
            out[0, 24 - k] = -v
    out[1, 24] = abs(b[25]) if mdir < 0 else abs(b[0])
    out[0, 24] = abs(b[0]) if mdir < 0 else abs(b[25])
    return out


def format_fibs_board(board, state: MatchState | None = None, *,
                      names: tuple[str, str] = ("player0", "player1"),
                      post_crawford: bool | None = None) -> str:
    """The ``board:`` line gnubg 1.07 would send for this position and state.

    Parameters
    ----------
    board : array-like (2, 25)
        The position, row 1 = the side on roll, which is gnubg's player
        ``state.player_on_roll``.
    state : MatchState
        Match length, scores (player 0, player 1), cube, cube owner, dice,
        double pending, Crawford.  Default: a money game, player 0 on roll,
        dice not rolled.
    names : (str, str)
        The names of player 0 and player 1 (``:`` becomes ``_``).
    post_crawford : bool
        gnubg's post-Crawford flag; by default true in a match when a side is
        1-away and this is not the Crawford game.
    """
    arr = validate_board(board).astype(int)
    st = state if state is not None else MatchState()
    if not isinstance(st, MatchState):
        raise ValueError(f"state must be a MatchState, got {type(st).__name__}")
    # gnubg draws from player 1's side: row 1 = player 1
    tb = arr if st.player_on_roll == 1 else arr[::-1]
    cells = [-int(tb[0, 24])]
    for i in range(24):
        o = int(tb[0, 23 - i])
        cells.append(-o if o else int(tb[1, i]))
    cells.append(int(tb[1, 24]))
    off0, off1 = 15 - int(tb[0].sum()), 15 - int(tb[1].sum())
    first = st.turn ^ st.player_on_roll
    if post_crawford is None:
        post_crawford = (st.match_length > 0 and not st.crawford
                         and st.match_length - max(st.score) == 1)
    d0, d1 = st.dice
    fb = FibsBoard(
        player=_name(names[first]), opponent=_name(names[1 - first]),
        match_length=st.match_length, player_score=st.score[first],
        opponent_score=st.score[1 - first], board=tuple(cells),
        turn=1 if st.player_on_roll == 1 else -1, dice=(d0, d1), opponent_dice=(d0, d1),
        cube=st.cube, may_double=int(st.cube_owner != 0),
        opponent_may_double=int(st.cube_owner != 1), was_doubled=int(st.double_offered),
        colour=1, direction=-1, home=0, bar=25, on_home=off1, opponent_on_home=off0,
        on_bar=0, opponent_on_bar=0, can_move=0, forced_move=0,
        did_crawford=int(bool(post_crawford)), redoubles=int(not st.crawford),
    )
    return fb.to_line()


def move_reply(steps: Iterable[Sequence[int]], board=None) -> str:
    """The reply line (without the newline) an external player sends for a play.

    ``steps`` are single-die steps ``(from, to)`` in the mover's numbering
    (25 = bar, 0 = off), e.g. from ``legal_afterstates``; they are written
    one per die in canonical order (source descending), with ``bar`` and
    ``off`` (docs/gnubg-external.md §1.6: gnubg applies each step directly, so single-die
    steps are always understood).  With ``board`` (before the play, mover in
    row 1) hits get a ``*``, which gnubg ignores.  No steps: ``""`` (the
    answer when there is no legal play).

    >>> move_reply([(25, 24), (13, 9)])
    'bar/24 13/9'
    """
    return format_steps_plain(steps, board, words=True)
