"""Connect Four from Python: positions by their moves, the exact solver, the reference players
by name, matches, and the 60 concept positions.

>>> from bgengine.games import connect4
>>> p = connect4.Position.from_moves("4453")
>>> connect4.make_player("mm4")            # minimax to 4 plies, 20% random moves
>>> connect4.match("mm4", "random", games=1000, seed=0)["a_wins"]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Callable

from bgengine.core.connect4 import Board
from bgengine.core.connect4_players import (GAME, N_INPUTS, PLAYERS, STUDY_EPSILON, Player,
                                       play_match)
from bgengine.core.connect4_solver import Solver, plies_to_end
from bgengine.core.dice import Dice

if TYPE_CHECKING:
    from bgengine.games.network import GameNetwork

__all__ = ["Position", "Concept", "make_player", "match", "load_concepts", "concept_rates",
           "line_kinds", "classify_concept", "random_positions", "solver_agreement", "moves_of", "network_chooser", "SPEC_HELP", "STUDY_EPSILON",
           "GAME", "PLAYERS", "N_INPUTS"]


SPEC_HELP = ("random | mm1..mm8 (minimax to N plies on line counts, 20% random moves) | "
             "mmN-greedy (no random moves) | simN (N random playouts a move, spread evenly) | "
             "perfect (the exact solver; slow before ~12 stones); add @EPS for a random move "
             "with probability EPS | net:PATH (a Connect Four network, greedy; its opponent "
             "one of random, mm1..mm4, mm1-greedy..mm4-greedy, simulation or a network)")

_SPEC = re.compile(r"^(random|perfect|mm(\d+)(-greedy)?|sim(\d+))(?:@([0-9.]+))?$")


def make_player(spec: str, solver: Solver | None = None) -> Player:
    """A reference player by name (see SPEC_HELP); ``solver`` is the perfect player's."""
    m = _SPEC.match(spec.strip().lower())
    if m is None:
        raise ValueError(f"unknown Connect Four player {spec!r}; expected {SPEC_HELP}")
    name, depth, greedy, playouts, eps = m.groups()
    epsilon = float(eps) if eps is not None else None
    if name == "random":
        return Player("random")
    if name == "perfect":
        return Player("perfect", epsilon=epsilon or 0.0, solver=solver)
    if depth is not None:
        default = 0.0 if greedy else STUDY_EPSILON
        return Player("minimax", depth=int(depth), epsilon=default if epsilon is None else epsilon)
    return Player("simulation", playouts=int(playouts), epsilon=epsilon or 0.0)


def match(a: str | Player, b: str | Player, games: int, seed: int = 0,
          start: str = "") -> dict[str, int]:
    """``games`` games of ``a`` against ``b`` (specs or players), each moving first in every
    other game, from the moves ``start``; the counts of :func:`play_match`."""
    if _is_network(a) or _is_network(b):
        if start:
            raise ValueError("a network's match starts from the empty board")
        return _network_match(a, b, games, seed)
    pa = make_player(a) if isinstance(a, str) else a
    pb = make_player(b) if isinstance(b, str) else b
    return play_match(pa, pb, games, Dice(seed), Board.from_moves(start))


def _is_network(spec: object) -> bool:
    return isinstance(spec, str) and spec.strip().lower().startswith("net:") or \
        type(spec).__name__ == "GameNetwork"


def _learner_player(spec: str | GameNetwork) -> str | GameNetwork:
    """A player of the compiled learners' match loop: a network (``net:PATH`` or loaded), or
    one of their reference players (:data:`PLAYERS`, ``simulation``)."""
    from bgengine.games.network import GameNetwork
    if isinstance(spec, GameNetwork):
        net = spec
    elif spec.strip().lower().startswith("net:"):
        net = GameNetwork.load(spec.strip()[4:])
    elif spec.strip().lower() in (*PLAYERS, "simulation"):
        return spec.strip().lower()
    else:
        raise ValueError(f"a Connect Four network plays against {', '.join(PLAYERS)}, "
                         f"simulation or another network; got {spec!r}")
    if net.game != "connect4":
        raise ValueError(f"a {net.game} network cannot play Connect Four")
    return net


def _network_match(a: str | GameNetwork, b: str | GameNetwork, games: int,
                   seed: int) -> dict[str, int]:
    """A match with a network on one side at least, by the compiled learners' match loop:
    ``a`` first in ``(games + 1) // 2`` games, ``b`` in the others (game ``g`` of each half
    draws from stream ``g`` of ``seed``); the counts of :func:`match`."""
    from bgengine.games.learners import match as seat_alternating_match
    return seat_alternating_match("connect4", _learner_player(a), _learner_player(b), games,
                                  seed=seed)


@dataclass(frozen=True)
class Position:
    """A Connect Four position by the columns played (1-based, ``"4453"``), with its board."""
    moves: str

    def __post_init__(self) -> None:
        Board.from_moves(self.moves)        # refuses what no game reaches

    @classmethod
    def from_moves(cls, moves: str) -> Position:
        return cls(moves)

    @property
    def board(self) -> Board:
        """A fresh :class:`Board` (the caller may play on it)."""
        return Board.from_moves(self.moves)

    def play(self, col: int) -> Position:
        """The position after the side to move drops a stone in 0-based ``col``."""
        board = self.board
        board.play(col)
        return Position(self.moves + str(col + 1))

    def legal_moves(self) -> list[int]:
        return self.board.legal_moves()

    def result(self) -> int:
        """1 the last mover won, 0 a draw, -1 the game goes on."""
        return self.board.result()

    def solve(self, solver: Solver | None = None) -> dict[str, object]:
        """The game-theoretic value for the side to move: ``score`` (see
        :mod:`bgengine.core.connect4_solver`), ``outcome`` ("win", "draw", "loss"), ``plies`` to
        the end under perfect play (None for a draw), and the ``best`` 0-based columns."""
        solver = solver or Solver()
        board = self.board
        scores = solver.move_scores(board)
        score = max(v for v in scores if v is not None)
        return {"score": score,
                "outcome": "win" if score > 0 else "loss" if score < 0 else "draw",
                "plies": plies_to_end(score, board.moves),
                "best": [c for c, v in enumerate(scores) if v == score]}

    def __str__(self) -> str:
        return str(self.board)


def moves_of(board: Board) -> str | None:
    """A sequence of columns (1-based) whose play reaches ``board``, or None if none does;
    found by taking back top stones, last mover first (depth-first, failures remembered)."""
    dead: set[int] = set()

    def back(own: int, mask: int) -> str | None:
        if mask == 0:
            return ""
        key = own + mask
        if key in dead:
            return None
        last = own ^ mask                       # the stones of the side that moved last
        for col in range(7):
            column = mask >> (col * 7) & 0x3F
            if not column:
                continue
            top = 1 << (col * 7 + column.bit_length() - 1)
            if last & top:
                rest = back(last ^ top, mask ^ top)
                if rest is not None:
                    return rest + str(col + 1)
        dead.add(key)
        return None

    return back(board.own, board.mask)


def network_chooser(net: "GameNetwork") -> Callable[[Board], int]:
    """A Connect Four network's greedy move as a chooser (a board -> 0-based column), for
    :func:`concept_rates` and :func:`solver_agreement`."""
    from bgengine.games.learners import best_move

    def choose(board: Board) -> int:
        seq = moves_of(board)
        if seq is None:
            raise ValueError(f"no game reaches {board!r}")
        return best_move(net, [int(ch) - 1 for ch in seq])
    return choose


# --- agreement with the solver ----------------------------------------------------------

def random_positions(n: int, seed: int = 0, min_stones: int = 14,
                     player: str = "random", max_stones: int | None = None) -> list[str]:
    """``n`` positions (move sequences) where the game goes on, each from its own game of
    ``player`` against itself, stopped at a uniformly random stone count from ``min_stones``
    on (the solver answers quickly there), up to ``max_stones`` if given."""
    dice, chooser, out = Dice(seed), make_player(player), []
    while len(out) < n:
        board, seq, seen = Board(), "", []
        while board.legal_moves():
            if board.moves >= min_stones and (max_stones is None or board.moves <= max_stones):
                seen.append(seq)
            col = chooser.move(board, dice)
            board.play(col)
            seq += str(col + 1)
        if seen:
            out.append(seen[dice.next_uint32() % len(seen)])
    return out


def solver_agreement(choose: Callable[[Board], int], positions: list[str],
                     solver: Solver | None = None) -> dict[str, float]:
    """How often ``choose`` (a board -> 0-based column) plays a move the exact solver rates
    best: ``exact`` (the best score: fastest win, slowest loss) and ``outcome`` (a move keeping
    the best win/draw/loss)."""
    solver = solver or Solver()
    exact = outcome = 0
    for seq in positions:
        board = Board.from_moves(seq)
        col = choose(board.copy())
        scores = solver.move_scores(board)
        best = max(v for v in scores if v is not None)
        exact += scores[col] == best
        outcome += _sign(scores[col]) == _sign(best)
    n = max(len(positions), 1)
    return {"exact": exact / n, "outcome": outcome / n}


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


# --- the concept positions ---------------------------------------------------------------

#: bitboard shifts of each line direction: vertical 1, row 7 (one column), diagonals 6 and 8
_DIRECTIONS = (("column", (1,)), ("row", (7,)), ("diagonal", (6, 8)))


def line_kinds(stones: int, col: int, row: int) -> set[str]:
    """The kinds of four-in-a-line ("row", "column", "diagonal") that the stones (a bitboard,
    bit ``col * 7 + row``) hold through the cell at ``col``, ``row``."""
    bit = col * 7 + row
    kinds = set()
    for kind, shifts in _DIRECTIONS:
        for d in shifts:
            run = 1
            for sign in (1, -1):
                k = bit + sign * d
                while 0 <= k < 49 and k % 7 != 6 and stones >> k & 1:
                    run += 1
                    k += sign * d
            if run >= 4:
                kinds.add(kind)
    return kinds


@dataclass(frozen=True)
class Concept:
    """A concept position: ``kind`` "attack" (the side to move wins at once) or "defence"
    (the only good move blocks the opponent's immediate win), the ``line`` that move makes or
    blocks ("row", "column", "diagonal"), and the one correct 0-based column ``answer``."""
    moves: str
    kind: str
    line: str
    answer: int


def _landing_row(board: Board, col: int) -> int:
    return sum(board.cell(col, r) != 0 for r in range(6))


def classify_concept(moves: str, solver: Solver) -> Concept | None:
    """The concept position ``moves`` is, or None: "attack" when exactly one move makes four at
    once, by one kind of line, and no other move wins at all; "defence" when the side to move
    cannot win at once, the opponent threatens four at exactly one playable cell, by one kind
    of line, and blocking there is the only move that does not lose.  Outcomes (win, draw,
    loss) are the solver's."""
    board = Board.from_moves(moves)
    legal = board.legal_moves()
    if not legal:
        return None
    wins = board.winning_moves()
    if wins:
        stones, kind = board.own, "attack"
        targets = wins
    else:
        stones, kind = board.own ^ board.mask, "defence"
        targets = [c for c in legal
                   if line_kinds(stones | 1 << (c * 7 + _landing_row(board, c)), c,
                                 _landing_row(board, c))]
    if len(targets) != 1:
        return None
    col = targets[0]
    row = _landing_row(board, col)
    kinds = line_kinds(stones | 1 << (col * 7 + row), col, row)
    if len(kinds) != 1:
        return None
    scores = solver.move_scores(board, weak=True)
    best = max(v for v in scores if v is not None)
    if [c for c, v in enumerate(scores) if v == best] != [col]:
        return None
    return Concept(moves, kind, kinds.pop(), col)


CONCEPTS_FILE = "connect4_concepts.txt"


def load_concepts() -> list[Concept]:
    """The 60 concept positions shipped in bgengine/data (made by lab/connect4_concepts.py):
    30 attack, 10 each by column, diagonal and row, then the same 30 inverted (the same stones,
    the other side to move: defence), in the same order."""
    text = resources.files("bgengine").joinpath("data", CONCEPTS_FILE).read_text()
    out = []
    for line in text.splitlines():
        if line and not line.startswith("#"):
            moves, kind, kind_line, answer = line.split()
            out.append(Concept(moves, kind, kind_line, int(answer) - 1))
    return out


def concept_rates(choose: Callable[[Board], int],
                  concepts: list[Concept] | None = None) -> dict[str, float]:
    """The share of concept positions where ``choose`` (a board -> 0-based column) plays the
    correct move: ``all``, by kind (``attack``, ``defence``), by line (``row``, ``column``,
    ``diagonal``) and by both (``attack_row``, ...)."""
    concepts = load_concepts() if concepts is None else concepts
    hits: dict[str, list[int]] = {}
    for c in concepts:
        ok = int(choose(Board.from_moves(c.moves)) == c.answer)
        for key in ("all", c.kind, c.line, f"{c.kind}_{c.line}"):
            hits.setdefault(key, []).append(ok)
    return {k: sum(v) / len(v) for k, v in hits.items()}

