"""A plain-Python Connect Four, written for clarity, as the oracle of the compiled rules and
solver: a grid of columns, every line scanned, and a brute-force minimax."""

from __future__ import annotations

from dataclasses import dataclass, field

WIDTH, HEIGHT = 7, 6
#: every line of four cells as (col, row) tuples, with its kind
LINES: list[tuple[str, tuple[tuple[int, int], ...]]] = []
for _c in range(WIDTH):
    for _r in range(HEIGHT):
        for _kind, (_dc, _dr) in (("row", (1, 0)), ("column", (0, 1)),
                                  ("diagonal", (1, 1)), ("diagonal", (1, -1))):
            _cells = tuple((_c + k * _dc, _r + k * _dr) for k in range(4))
            if all(0 <= c < WIDTH and 0 <= r < HEIGHT for c, r in _cells):
                LINES.append((_kind, _cells))


@dataclass
class Grid:
    """``columns[c]`` lists the players (0 first, 1 second) of column c's stones, bottom up."""
    columns: list[list[int]] = field(default_factory=lambda: [[] for _ in range(WIDTH)])

    @property
    def moves(self) -> int:
        return sum(len(c) for c in self.columns)

    @property
    def to_move(self) -> int:
        return self.moves % 2

    def at(self, col: int, row: int) -> int | None:
        column = self.columns[col]
        return column[row] if row < len(column) else None

    def winner(self) -> int | None:
        for _, cells in LINES:
            owners = {self.at(c, r) for c, r in cells}
            if len(owners) == 1 and None not in owners:
                return owners.pop()
        return None

    def over(self) -> bool:
        return self.winner() is not None or self.moves == WIDTH * HEIGHT

    def legal(self) -> list[int]:
        if self.over():
            return []
        return [c for c in range(WIDTH) if len(self.columns[c]) < HEIGHT]

    def play(self, col: int) -> Grid:
        columns = [list(c) for c in self.columns]
        columns[col].append(self.to_move)
        return Grid(columns)


def minimax(grid: Grid) -> int:
    """The score of a position where the game goes on, from the side to move, by full search
    (Connect Four's usual scale: 22 - the winner's stone count, negative for a loss)."""
    best = None
    for col in grid.legal():
        child = grid.play(col)
        if child.winner() is not None:
            value = 22 - (child.moves + 1) // 2
        elif child.moves == WIDTH * HEIGHT:
            value = 0
        else:
            value = -minimax(child)
        best = value if best is None else max(best, value)
    assert best is not None
    return best
