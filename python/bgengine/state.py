"""A game state: a position with its context (cube, score, match, dice, side on roll).

:class:`GameState` joins a :class:`~bgengine.position.Position` (row 1 = the side on roll)
and a :class:`~bgengine.notation.ids.MatchState` (gnubg's Match ID fields), plus the two fields only
an XGID has, and reads and writes the text forms players exchange
(:mod:`bgengine.notation.state_text`): gnubg's Position ID (the rest of the state is then money play,
cube 1 centred, gnubg's player 1 on roll, no dice), gnubg's combined ``PositionID:MatchID``
(``show board`` prints the two, ``set gnubgid`` reads them) and eXtreme Gammon's XGID.
gnubg's player 1 (drawn at the bottom, X) is XG's bottom player, player 0 the top one.

The golden data in ``tests/data/gnubg/game_states.jsonl.gz`` (made by
``lab/make_state_golden.py`` inside gnubg) check all three forms against gnubg.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from bgengine._checks import is_int
from bgengine.notation.ids import GAME_PLAYING, MatchState, match_id
from bgengine.position import Position
from bgengine.notation.state_text import (DEFAULT_JACOBY, DEFAULT_MAX_CUBE, MAX_CUBE_LOG2, format_gnubgid,
                                format_xgid, parse_gnubgid, parse_state, parse_xgid)

__all__ = ["GameState"]


@dataclass(frozen=True)
class GameState:
    """A position with everything around it.

    Attributes
    ----------
    position : Position
        The checkers, row 1 = the side on roll, which is gnubg's
        ``match.player_on_roll`` (the doubler while a double is pending).
    match : MatchState
        Cube value and owner, score, match length (0 = money), Crawford,
        Jacoby, dice, double or resignation pending, game state, as a gnubg
        Match ID holds them (players 0 and 1 are gnubg's; 1 is XG's bottom).
        Default: the start of a money game, gnubg's player 1 on roll, no Jacoby rule
        (:data:`bgengine.notation.state_text.DEFAULT_JACOBY`).
    beavers : bool
        Money play with beavers allowed (XGID only; a Match ID has no field).
    max_cube : int
        XGID's highest cube (a power of two, default 1024); gnubg ignores it.
    """

    position: Position = field(default_factory=Position.initial)
    match: MatchState = field(default_factory=lambda: MatchState(player_on_roll=1,
                                                                 jacoby=DEFAULT_JACOBY))
    beavers: bool = False
    max_cube: int = DEFAULT_MAX_CUBE

    def __post_init__(self) -> None:
        if not isinstance(self.position, Position):
            object.__setattr__(self, "position", Position(self.position))
        if not isinstance(self.match, MatchState):
            raise ValueError(f"GameState.match must be a MatchState, got {type(self.match).__name__}")
        if not isinstance(self.beavers, (bool, np.bool_)) and self.beavers not in (0, 1):
            raise ValueError(f"GameState.beavers must be True/False, got {self.beavers!r}")
        object.__setattr__(self, "beavers", bool(self.beavers))
        if self.beavers and self.match.match_length:
            raise ValueError("GameState.beavers: beavers are a money-play rule, not a match rule")
        m = self.max_cube
        if not is_int(m) or m < 1 or m > 1 << MAX_CUBE_LOG2 or m & (m - 1):
            raise ValueError(f"GameState.max_cube must be a power of two from 1 to "
                             f"{1 << MAX_CUBE_LOG2}, got {m!r}")
        object.__setattr__(self, "max_cube", int(m))

    # ------------------------------------------------------------ views
    @property
    def board(self) -> np.ndarray:
        """The (2, 25) ``uint8`` board, row 1 = the side on roll."""
        return self.position.board

    @property
    def dice(self) -> tuple[int, int]:
        """The roll, ``(0, 0)`` before rolling."""
        return self.match.dice

    @property
    def is_money(self) -> bool:
        return self.match.match_length == 0

    def with_dice(self, d1: int, d2: int) -> GameState:
        """The same state with the side on roll having rolled ``d1``-``d2``."""
        return replace(self, match=replace(self.match, dice=(d1, d2)))

    def without_dice(self) -> GameState:
        """The same state before the roll."""
        return replace(self, match=replace(self.match, dice=(0, 0)))

    # ------------------------------------------------------------ reading
    @classmethod
    def from_string(cls, text: str) -> GameState:
        """A state from any of its text forms: an XGID (``XGID=...``, the prefix optional),
        gnubg's ``PositionID:MatchID`` (or the two IDs separated by blanks, gnubg's labels
        optional), or a Position ID alone (money, cube 1 centred, gnubg's player 1 on roll, no
        dice, no Jacoby rule).

        Raises ``ValueError`` naming the form, the field and the problem.
        """
        return cls._from_fields(parse_state(text))

    @classmethod
    def from_gnubgid(cls, text: str) -> GameState:
        """From gnubg's combined ``PositionID:MatchID``."""
        return cls._from_fields(parse_gnubgid(text))

    @classmethod
    def from_xgid(cls, text: str) -> GameState:
        """From an eXtreme Gammon XGID (fields: :mod:`bgengine.notation.state_text`)."""
        return cls._from_fields(parse_xgid(text))

    @classmethod
    def _from_fields(cls, f) -> GameState:
        return cls(Position(f.board), f.match, beavers=f.beavers, max_cube=f.max_cube)

    # ------------------------------------------------------------ writing
    @property
    def position_id(self) -> str:
        return self.position.position_id

    @property
    def match_id(self) -> str:
        return match_id(self.match)

    def to_gnubgid(self) -> str:
        """gnubg's combined ``PositionID:MatchID``."""
        return format_gnubgid(self.board, self.match)

    def to_xgid(self) -> str:
        """The XGID of this state.

        Raises ``ValueError`` for what an XGID cannot carry: a resignation pending, a game
        not in progress, the Jacoby rule in a match.
        """
        return format_xgid(self.board, self.match, self.beavers, self.max_cube)

    def summary(self) -> str:
        """One line on the context, from the side on roll's view: game or match and score,
        cube, and what happens next (roll, play the dice, answer a double or resignation)."""
        m = self.match
        me, opp = m.player_on_roll, 1 - m.player_on_roll
        if m.match_length:
            game = (f"{m.match_length}-point match, score {m.score[me]}-{m.score[opp]} "
                    f"(side on roll first)")
            if m.crawford:
                game += ", Crawford game"
            elif m.match_length - 1 in m.score and m.match_length > 1:
                game += ", post-Crawford"
        else:
            rules = [r for r, on in (("Jacoby rule", m.jacoby), ("beavers", self.beavers)) if on]
            game = "money game" + (f" ({', '.join(rules)})" if rules else "")
        owner = {-1: "centred", me: "owned by the side on roll", opp: "owned by the opponent"}
        cube = f"cube {m.cube} {owner[m.cube_owner]}"
        if m.game_state != GAME_PLAYING:
            now = f"game {m.game_state_name}"
        elif m.double_offered:
            now = f"doubled to {2 * m.cube}: the opponent takes or passes"
        elif m.resignation:
            level = ("a single game", "a gammon", "a backgammon")[m.resignation - 1]
            who = "the side on roll" if m.turn == me else "the opponent"
            now = f"{level} resigned: {who} accepts or rejects"
        elif m.dice != (0, 0):
            now = f"rolled {m.dice[0]}-{m.dice[1]}"
        else:
            now = "to roll (or double)"
        return f"{game}; {cube}; {now}"

    def __str__(self) -> str:
        return self.to_gnubgid()
