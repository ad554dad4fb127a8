"""The driver script's line protocol: what a gnubg process is asked (:class:`GnubgSettings`,
one request per decision) and how its reply is read back into one of our legal plays."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from bgengine._checks import is_int
from bgengine.game import Decision
from bgengine.notation import format_steps_plain, match_move

__all__ = ["MAX_PLIES", "GnubgSettings", "parse_gnubg_spec", "BadReply", "reply_index", "driver_path"]

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
