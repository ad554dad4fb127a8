"""The driver script's line protocol: what a gnubg process is asked (:class:`GnubgSettings`,
one request per decision) and how its reply is read back into one of our legal plays or
a cube action.

Requests (the process puts the kind and an ID in front; ``bgengine/data/gnubg_driver.py``
documents the protocol in full): ``m`` a cubeless money play, ``p`` a play with the cube
at a given cube and score (:meth:`GnubgSettings.play_request`), ``d`` the double
decision before a roll (:meth:`GnubgSettings.double_request`) and ``t`` the reply to a
double (:meth:`GnubgSettings.take_request`).  The cube and score go as ``CUBE OWNER
LENGTH SCORE0 SCORE1 CRAWFORD JACOBY`` with the side on roll as gnubg's player 1
(:func:`state_fields`)."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from bgengine._checks import is_int
from bgengine.matches.game import Decision
from bgengine.notation.ids import MatchState
from bgengine.notation.moves import format_steps_plain, match_move

__all__ = ["MAX_PLIES", "GnubgSettings", "parse_gnubg_spec", "BadReply", "reply_index",
           "cube_reply", "state_fields", "driver_path"]

#: Deepest lookahead offered (gnubg's normal move filters are defined to 4 plies).
MAX_PLIES = 4


def driver_path() -> Path:
    """The driver script that runs inside each gnubg process."""
    return Path(str(resources.files("bgengine").joinpath("data", "gnubg_driver.py")))


# ====================================================================== requests

@dataclass(frozen=True)
class GnubgSettings:
    """How gnubg chooses its plays.

    ``plies``: lookahead, 0 (gnubg's static evaluation, its "expert" level)
    to ``MAX_PLIES``.  ``prune``: gnubg's pruning nets inside the lookahead;
    ``None`` means on for plies > 0 (as gnubg's "world class" 2-ply uses
    them) and off at 0-ply, where they do nothing.  Evaluations are always
    cubeless, deterministic and without noise.
    """

    plies: int = 0
    prune: bool | None = None

    def __post_init__(self) -> None:
        if not is_int(self.plies) or not 0 <= self.plies <= MAX_PLIES:
            raise ValueError(f"gnubg plies must be an integer 0..{MAX_PLIES}, got {self.plies!r}")
        object.__setattr__(self, "plies", int(self.plies))      # a numpy integer too
        if self.prune is None:
            object.__setattr__(self, "prune", self.plies > 0)

    def request(self, board: np.ndarray, d1: int, d2: int) -> str:
        """The body of the driver's request for ``board`` (mover in row 1) and
        the roll (the process puts ``m ID`` in front)."""
        return (f"{self.plies} {int(bool(self.prune))} {d1} {d2} "
                + " ".join(map(str, board.ravel().tolist())))

    def play_request(self, board: np.ndarray, d1: int, d2: int, state: MatchState) -> str:
        """The body of a ``p`` request: the play for ``board`` (mover in row 1, the
        side ``state.player_on_roll``) and the roll, chosen cubefully at the cube
        and score of ``state``."""
        return (f"{self.plies} {int(bool(self.prune))} {d1} {d2} {state_fields(state)} "
                + " ".join(map(str, board.ravel().tolist())))

    def double_request(self, board: np.ndarray, state: MatchState) -> str:
        """The body of a ``d`` request: does the side on roll (row 1 of ``board``,
        ``state.player_on_roll``) double before it rolls?"""
        return (f"{self.plies} {int(bool(self.prune))} {state_fields(state)} "
                + " ".join(map(str, board.ravel().tolist())))

    def take_request(self, board: np.ndarray, state: MatchState) -> str:
        """The body of a ``t`` request: the side on roll (row 1 of ``board``,
        ``state.player_on_roll``) doubles from ``state.cube``; does the other
        side take?"""
        return self.double_request(board, state)


def state_fields(state: MatchState) -> str:
    """``CUBE OWNER LENGTH SCORE0 SCORE1 CRAWFORD JACOBY`` of ``state`` for the driver,
    gnubg's player 1 being the side on roll (``state.player_on_roll``) and player 0 the
    other: OWNER -1 centred, 1 the side on roll, 0 the other.  The Jacoby rule is sent
    in money play only."""
    me = state.player_on_roll
    owner = -1 if state.cube_owner == -1 else int(state.cube_owner == me)
    money = state.match_length == 0
    return (f"{state.cube} {owner} {state.match_length} {state.score[1 - me]} {state.score[me]} "
            f"{int(bool(state.crawford) and not money)} {int(bool(state.jacoby) and money)}")


def parse_gnubg_spec(text: str) -> GnubgSettings | None:
    """``"gnubg"`` -> 0-ply, ``"gnubg:N"`` -> N-ply; ``None`` for other specs."""
    if text == "gnubg":
        return GnubgSettings(0)
    if text.startswith("gnubg:"):
        rest = text[len("gnubg:"):]
        if not rest.isdigit() or int(rest) > MAX_PLIES:
            raise ValueError(f"player {text!r}: gnubg:N needs plies N in 0..{MAX_PLIES}")
        return GnubgSettings(int(rest))
    return None


class BadReply(ValueError):
    """A reply that is not a legal play (or no reply but an error message)."""


def reply_index(decision: Decision, reply: str) -> int:
    """The index of the play a driver reply (``@@ok F1 T1 ...``) names among
    ``decision``'s legal plays; :class:`BadReply` if it is none of them."""
    if reply.startswith("@@error"):
        raise BadReply(f"gnubg answered {reply[2:].strip()!r}")
    if not reply.startswith("@@ok"):
        raise BadReply(f"unexpected reply {reply!r}")
    try:
        nums = [int(x) for x in reply[4:].split()]
        if len(nums) % 2 or len(nums) > 8:
            raise ValueError(f"{len(nums)} numbers are not up to four (from, to) steps")
        text = format_steps_plain(zip(nums[::2], nums[1::2]))
        return match_move(decision.board, decision.d1, decision.d2, text)
    except ValueError as exc:
        raise BadReply(f"{reply[2:].strip()!r} is not a legal play with {decision.d1}-"
                       f"{decision.d2} ({exc})") from None


#: The cube actions a reply may name, by question: (word for True, word for False).
_CUBE_WORDS = {"double": ("double", "roll"), "take": ("take", "pass")}


def cube_reply(kind: str, reply: str) -> bool:
    """A driver reply to a cube question ``kind`` (``"double"``: ``@@ok double`` or
    ``@@ok roll``; ``"take"``: ``@@ok take`` or ``@@ok pass``) as True (double, take)
    or False; :class:`BadReply` for anything else (an error, another action, a beaver:
    beavers are off)."""
    if reply.startswith("@@error"):
        raise BadReply(f"gnubg answered {reply[2:].strip()!r}")
    yes, no = _CUBE_WORDS[kind]
    words = reply.split()
    if words[:1] != ["@@ok"]:
        raise BadReply(f"unexpected reply {reply!r}")
    if words[1:] == [yes]:
        return True
    if words[1:] == [no]:
        return False
    raise BadReply(f"{reply[2:].strip()!r} is not a cube action allowed here "
                   f"({'double or roll' if kind == 'double' else 'take or pass'})")
