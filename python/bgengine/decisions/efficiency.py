"""Cube efficiency: how much of the fully-live cube's value a position keeps.

Janowski's model (:mod:`bgengine.decisions.cube`) blends the dead-cube and the fully-live
values with a cube efficiency ``x``.  gnubg uses two fixed rules: 0.68 in every contact
position, and in a race ``0.55 + 0.00125 * pips`` of the side on roll, clipped to 0.6..0.7.
:class:`CubeEfficiency` keeps one ``x`` per contact class of
:mod:`bgengine.labelling.classes` (contact, holding, back game, crashed), fitted on cubeful
rollouts by ``bgengine data cube-fit`` and carried in an evaluator file's metadata; races keep
gnubg's rule.  The compiled cubeful rollouts (:mod:`bgengine.core.cuberollout`) classify
positions with a C port of the same classifier.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bgengine.core.board import validate_boards

__all__ = ["CubeEfficiency", "GNUBG_EFFICIENCY", "CONTACT_EFFICIENCY", "cube_efficiency",
           "cube_efficiencies"]

#: Cube efficiency in contact positions (gnubg's default).
CONTACT_EFFICIENCY = 0.68


@dataclass(frozen=True)
class CubeEfficiency:
    """Cube efficiency ``x`` by position class (:mod:`bgengine.labelling.classes`): how
    much of the fully-live cube's value a position of each class keeps.

    ``contact``, ``holding``, ``back_game``, ``crashed``: ``x`` of positions of those
    classes, in 0..1; races always use gnubg's rule (``0.55 + 0.00125 * pips`` of the
    side on roll within 0.6..0.7).  The default is gnubg's: 0.68 in every contact class.
    An evaluator file may carry its own, fitted on cubeful rollouts
    (``bgengine data cube-fit``), under the metadata key ``cube_efficiency``
    (:meth:`of_evaluator`).
    """

    contact: float = CONTACT_EFFICIENCY
    holding: float = CONTACT_EFFICIENCY
    back_game: float = CONTACT_EFFICIENCY
    crashed: float = CONTACT_EFFICIENCY

    #: The classes in order (the class names of :data:`POSITION_CLASSES`, races aside).
    classes = ("contact", "holding", "back game", "crashed")
    #: The evaluator metadata key.
    METADATA_KEY = "cube_efficiency"

    def __post_init__(self) -> None:
        for name, x in zip(self.classes, self.values):
            if isinstance(x, bool) or not isinstance(x, (int, float)) or not 0.0 <= x <= 1.0:
                raise ValueError(f"cube efficiency of {name} positions must be a number in "
                                 f"0..1, got {x!r}")

    @property
    def values(self) -> tuple[float, float, float, float]:
        """``(contact, holding, back game, crashed)``, as :func:`rollout_cube` takes them."""
        return (self.contact, self.holding, self.back_game, self.crashed)

    def as_dict(self) -> dict[str, float]:
        """``{class name: x}``, the form the metadata keeps."""
        return {name: float(x) for name, x in zip(self.classes, self.values)}

    @classmethod
    def from_dict(cls, values: dict) -> CubeEfficiency:
        """From ``{class name: x}``; classes left out keep gnubg's 0.68; ``ValueError`` for
        an unknown class or a value out of range."""
        if not isinstance(values, dict):
            raise ValueError(f"cube efficiencies must be a mapping of class names, got {values!r}")
        unknown = set(values) - set(cls.classes)
        if unknown:
            raise ValueError(f"unknown position classes {sorted(unknown)}; expected "
                             f"{', '.join(cls.classes)}")
        return cls(*(values.get(name, CONTACT_EFFICIENCY) for name in cls.classes))

    @classmethod
    def of_evaluator(cls, model) -> CubeEfficiency:
        """The efficiencies an evaluator (or network) file carries in its metadata; gnubg's
        where it carries none."""
        meta = getattr(model, "metadata", None) or {}
        values = meta.get(cls.METADATA_KEY)
        return cls() if values is None else cls.from_dict(values)

    def of_boards(self, boards) -> np.ndarray:
        """``x`` of a batch of positions ``(N, 2, 25)`` (row 1 on roll): float64 ``(N,)``."""
        from bgengine.labelling.classes import RACE, classify_positions

        b = validate_boards(boards)
        classes = classify_positions(b)
        x = np.array(self.values + (0.0,))[classes]
        race = classes == RACE
        pips = b[:, 1].astype(np.int64) @ np.arange(1, 26)
        return np.where(race, np.minimum(0.7, np.maximum(0.6, 0.55 + 0.00125 * pips)), x)

    def of_board(self, board) -> float:
        """``x`` of one position (row 1 on roll)."""
        return float(self.of_boards(np.asarray(board)[None])[0])


#: gnubg's cube efficiencies: 0.68 in contact, the pip rule in races.
GNUBG_EFFICIENCY = CubeEfficiency()


def cube_efficiency(board) -> float:
    """gnubg's cube efficiency ``x`` for a position (row 1 = the side on roll)."""
    return GNUBG_EFFICIENCY.of_board(board)


def cube_efficiencies(boards) -> np.ndarray:
    """:func:`cube_efficiency` of a batch of positions ``(N, 2, 25)``: float64 ``(N,)``.

    Contact: :data:`CONTACT_EFFICIENCY`; race: ``0.55 + 0.00125 * pips`` of the
    side on roll, clamped to 0.6..0.7.
    """
    return GNUBG_EFFICIENCY.of_boards(boards)
