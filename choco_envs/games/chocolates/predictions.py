"""One predicate per printed prediction card, evaluated on a complete layout.

A predicate receives ``types`` and ``shapes`` of the 16 grid cells (row-major, row 0 next
to the display, column 0 on the left as seen from the display) and ``beside``, the types
of the 5 chocolates next to the grid, and says whether the card's prediction is true.

Geometry (RULINGS.md, "Chocolates (seed 004)"): the outer area is the 12 edge cells; the
left side is columns 0-1, the right side columns 2-3; adjacent means orthogonally
adjacent, and a group of 3 or more adjacent chocolates need not be in a straight line;
"connected in a diagonal line" is diagonal neighbours for 2 chocolates and one of the two
main diagonals for 4; "in one of the rows or columns" means within a single row or
column; "in the grid" never counts the 5 beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from choco_envs.games.chocolates.components import NUM_CARDS

DARK, BROWN, WHITE, GREEN, PINK, GOLD = range(6)
ROUND, TRIANGULAR, HEXAGONAL = range(3)

Predicate = Callable[[Sequence[int], Sequence[int], Sequence[int]], bool]

CELLS = range(16)
OUTER: tuple[int, ...] = tuple(i for i in CELLS if i not in (5, 6, 9, 10))
LEFT: tuple[int, ...] = tuple(i for i in CELLS if i % 4 < 2)
RIGHT: tuple[int, ...] = tuple(i for i in CELLS if i % 4 >= 2)
CORNERS: tuple[int, ...] = (0, 3, 12, 15)
MAIN_DIAGONALS: tuple[tuple[int, ...], ...] = ((0, 5, 10, 15), (3, 6, 9, 12))
LINES: tuple[tuple[int, ...], ...] = tuple(
    tuple(r * 4 + c for c in range(4)) for r in range(4)
) + tuple(tuple(r * 4 + c for r in range(4)) for c in range(4))
#: orthogonal neighbour pairs (i < j)
ORTHOGONAL_PAIRS: tuple[tuple[int, int], ...] = tuple(
    (i, j) for i in CELLS for j in (i + 1, i + 4) if j < 16 and (j == i + 4 or i % 4 < 3)
)
#: diagonal neighbour pairs (i < j)
DIAGONAL_PAIRS: tuple[tuple[int, int], ...] = tuple(
    (i, i + 4 + d) for i in range(12) for d in (-1, 1) if 0 <= i % 4 + d < 4
)
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(j for pair in ORTHOGONAL_PAIRS if i in pair for j in pair if j != i) for i in CELLS
)


def count(values: Sequence[int], value: int, cells: Sequence[int] = CELLS) -> int:
    """How many of ``cells`` hold ``value``."""
    return sum(1 for i in cells if values[i] == value)


def largest_group(values: Sequence[int], value: int) -> int:
    """Size of the largest orthogonally connected group of cells holding ``value``."""
    seen = [False] * 16
    best = 0
    for start in CELLS:
        if seen[start] or values[start] != value:
            continue
        seen[start] = True
        stack, size = [start], 0
        while stack:
            cell = stack.pop()
            size += 1
            for nb in NEIGHBOURS[cell]:
                if not seen[nb] and values[nb] == value:
                    seen[nb] = True
                    stack.append(nb)
        best = max(best, size)
    return best


def adjacent_pair(values: Sequence[int], a: int, b: int) -> bool:
    """Some orthogonally adjacent pair holds ``a`` and ``b`` (either way round)."""
    return any(
        (values[i] == a and values[j] == b) or (values[i] == b and values[j] == a)
        for i, j in ORTHOGONAL_PAIRS
    )


def line_values(values: Sequence[int]) -> list[list[int]]:
    """The values of each of the 4 rows and 4 columns."""
    return [[values[i] for i in line] for line in LINES]


def three_in_one_line(values: Sequence[int], value: int) -> bool:
    """Some single row or column holds ``value`` at least 3 times (adjacent or not)."""
    return any(held.count(value) >= 3 for held in line_values(values))


def three_alike_in_one_line(values: Sequence[int]) -> bool:
    """Some single row or column holds 3 or 4 equal values."""
    for a, b, c, d in line_values(values):
        if (a == b and (a == c or a == d)) or (c == d and (c == a or c == b)):
            return True
    return False


def all_in_one_line(values: Sequence[int], needed: set[int]) -> bool:
    """Some single row or column holds every value of ``needed``."""
    return any(needed <= set(held) for held in line_values(values))


def all_different(values: Sequence[int], cells: Sequence[int]) -> bool:
    return len({values[i] for i in cells}) == len(cells)


PREDICATES: tuple[Predicate, ...] = (
    # 0 Exactly 1 golden chocolate in the grid.
    lambda t, s, b: count(t, GOLD) == 1,
    # 1 Exactly 2 green chocolates in the grid.
    lambda t, s, b: count(t, GREEN) == 2,
    # 2 Exactly 3 white chocolates in the grid.
    lambda t, s, b: count(t, WHITE) == 3,
    # 3 Exactly 2 pink chocolates in the outer area of the grid.
    lambda t, s, b: count(t, PINK, OUTER) == 2,
    # 4 Exactly 3 dark chocolates in the outer area of the grid.
    lambda t, s, b: count(t, DARK, OUTER) == 3,
    # 5 Exactly 4 round chocolates in the outer area of the grid.
    lambda t, s, b: count(s, ROUND, OUTER) == 4,
    # 6 The exact same number of triangular as hexagonal chocolates in the outer area.
    lambda t, s, b: count(s, TRIANGULAR, OUTER) == count(s, HEXAGONAL, OUTER),
    # 7 The exact same number of brown chocolates in the left and right sides.
    lambda t, s, b: count(t, BROWN, LEFT) == count(t, BROWN, RIGHT),
    # 8 More dark chocolates in the left side of the grid than the right side.
    lambda t, s, b: count(t, DARK, LEFT) > count(t, DARK, RIGHT),
    # 9 More triangular chocolates in the left side of the grid than the right side.
    lambda t, s, b: count(s, TRIANGULAR, LEFT) > count(s, TRIANGULAR, RIGHT),
    # 10 More round than triangular chocolates in the grid.
    lambda t, s, b: count(s, ROUND) > count(s, TRIANGULAR),
    # 11 More brown than white chocolates in the left side of the grid.
    lambda t, s, b: count(t, BROWN, LEFT) > count(t, WHITE, LEFT),
    # 12 More green than pink chocolates in the right side of the grid.
    lambda t, s, b: count(t, GREEN, RIGHT) > count(t, PINK, RIGHT),
    # 13 At least 1 instance of adjacent pink and green chocolates in the grid.
    lambda t, s, b: adjacent_pair(t, PINK, GREEN),
    # 14 At least 2 adjacent brown chocolates in the grid.
    lambda t, s, b: adjacent_pair(t, BROWN, BROWN),
    # 15 At least 3 adjacent dark chocolates in the grid.
    lambda t, s, b: largest_group(t, DARK) >= 3,
    # 16 At least 4 adjacent round chocolates in the grid.
    lambda t, s, b: largest_group(s, ROUND) >= 4,
    # 17 At least 4 adjacent triangular chocolates in the grid.
    lambda t, s, b: largest_group(s, TRIANGULAR) >= 4,
    # 18 At least 4 adjacent hexagonal chocolates in the grid.
    lambda t, s, b: largest_group(s, HEXAGONAL) >= 4,
    # 19 At least 3 hexagonal chocolates in one of the rows or columns in the grid.
    lambda t, s, b: three_in_one_line(s, HEXAGONAL),
    # 20 At least 3 chocolates of the same type in one of the rows or columns.
    lambda t, s, b: three_alike_in_one_line(t),
    # 21 At least 1 white, 1 green, and 1 pink chocolate in one of the rows or columns.
    lambda t, s, b: all_in_one_line(t, {WHITE, GREEN, PINK}),
    # 22 At least 2 adjacent white chocolates in one of the rows or columns.
    lambda t, s, b: adjacent_pair(t, WHITE, WHITE),
    # 23 At least 2 dark chocolates connected in a diagonal line in the grid.
    lambda t, s, b: any(t[i] == DARK and t[j] == DARK for i, j in DIAGONAL_PAIRS),
    # 24 Exactly 4 chocolates of 4 different types connected in a diagonal line.
    lambda t, s, b: any(all_different(t, diagonal) for diagonal in MAIN_DIAGONALS),
    # 25 At least 2 triangular chocolates in the four corners of the grid.
    lambda t, s, b: count(s, TRIANGULAR, CORNERS) >= 2,
    # 26 At least 2 round chocolates in the four corners of the grid.
    lambda t, s, b: count(s, ROUND, CORNERS) >= 2,
    # 27 Exactly 4 chocolates of 4 different types in the four corners of the grid.
    lambda t, s, b: all_different(t, CORNERS),
    # 28 At least 4 different types of chocolates next to the grid.
    lambda t, s, b: len(set(b)) >= 4,
)

assert len(PREDICATES) == NUM_CARDS, "one predicate per printed prediction card"


def split_layout(layout: Sequence[int]) -> tuple[list[int], list[int], list[int]]:
    """(grid types, grid shapes, types beside) of a complete layout of 21 kind codes
    (16 grid cells row-major, then the 5 beside)."""
    grid = layout[:16]
    return [k // 3 for k in grid], [k % 3 for k in grid], [k // 3 for k in layout[16:21]]


def evaluate(card: int, layout: Sequence[int]) -> bool:
    """Whether prediction ``card`` is true for a complete layout of 21 kind codes."""
    return PREDICATES[card](*split_layout(layout))


def evaluate_all(layout: Sequence[int]) -> list[bool]:
    """The truth of every card, by card id, for a complete layout."""
    types, shapes, beside = split_layout(layout)
    return [p(types, shapes, beside) for p in PREDICATES]
