"""The table and the 29 prediction cards of Chocolates: the grid's geometry (its areas,
lines and neighbours, as the rulings read them) and what each card says about a complete
layout, one predicate per printed card and all 29 vectorised over many layouts. Pure
helpers, written once and read by the rules (scoring), encoders, bots and feature
functions; a leaf module of the game (it imports only the component data).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from choco_envs.games.chocolates.components import (
    GRID_CELLS,
    NUM_CHOCOLATES,
    NUM_SHAPES,
    NUM_TYPES,
)

DARK, BROWN, WHITE, GREEN, PINK, GOLD = range(NUM_TYPES)
ROUND, TRIANGULAR, HEXAGONAL = range(NUM_SHAPES)

# ---------------------------------------------------------------------- geometry
# the rulings in docs/games/chocolates.md, "Chocolates (seed 004)": the outer area is the 12 edge cells; the left side
# is the two left columns, the right side the two right columns, as seen from the
# display; adjacent means orthogonally adjacent; "connected in a diagonal line" is
# diagonal neighbours for 2 chocolates and one of the two main diagonals for 4.
CELLS = range(GRID_CELLS)
OUTER: tuple[int, ...] = tuple(i for i in CELLS if i // 4 in (0, 3) or i % 4 in (0, 3))
LEFT: tuple[int, ...] = tuple(i for i in CELLS if i % 4 < 2)
RIGHT: tuple[int, ...] = tuple(i for i in CELLS if i % 4 >= 2)
CORNERS: tuple[int, ...] = (0, 3, 12, 15)
MAIN_DIAGONALS: tuple[tuple[int, ...], ...] = ((0, 5, 10, 15), (3, 6, 9, 12))
ROWS: tuple[tuple[int, ...], ...] = tuple(tuple(r * 4 + c for c in range(4)) for r in range(4))
COLUMNS: tuple[tuple[int, ...], ...] = tuple(tuple(r * 4 + c for r in range(4)) for c in range(4))
LINES = ROWS + COLUMNS
#: orthogonal neighbour pairs (i < j): the same row and next columns, or the same column
#: and next rows
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


# ---------------------------------------------------------------------- the 29 cards
# One predicate per printed card, on a complete layout split into ``t`` and ``s``, the
# types and shapes of the 16 grid cells, and ``b``, the types of the 5 chocolates beside
# the grid. Wording (the rulings in docs/games/chocolates.md): "in one of the rows or columns" is within a single row or
# column, not necessarily adjacent; "exact same number" includes 0 = 0; "more" is strict;
# "in the grid" never counts the 5 beside it, and "next to the grid" means only those.
Predicate = Callable[[Sequence[int], Sequence[int], Sequence[int]], bool]


def count(values: Sequence[int], value: int, cells: Sequence[int] = CELLS) -> int:
    """How many of ``cells`` hold ``value``."""
    return sum(1 for i in cells if values[i] == value)


def largest_group(values: Sequence[int], value: int) -> int:
    """Size of the largest orthogonally connected group of cells holding ``value`` (a
    group of 3 or more need not be in a straight line)."""
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
    return any(max(held.count(v) for v in held) >= 3 for held in line_values(values))


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


def split_layout(layout: Sequence[int]) -> tuple[list[int], list[int], list[int]]:
    """(grid types, grid shapes, types beside) of a complete layout of 21 kind codes
    (16 grid cells row-major, then the 5 beside)."""
    grid = layout[:GRID_CELLS]
    beside = layout[GRID_CELLS:NUM_CHOCOLATES]
    return [k // 3 for k in grid], [k % 3 for k in grid], [k // 3 for k in beside]


def card_truth(card: int, layout: Sequence[int]) -> bool:
    """Whether prediction ``card`` is true on a complete layout of 21 kind codes."""
    return PREDICATES[card](*split_layout(layout))


def card_truths(layout: Sequence[int]) -> list[bool]:
    """The truth of every card, by card id, on a complete layout."""
    types, shapes, beside = split_layout(layout)
    return [p(types, shapes, beside) for p in PREDICATES]


# ---------------------------------------------------------------------- vectorised
# The same 29 predictions for many layouts at once (``card_truth_matrix``), written as bit
# operations on 16-bit masks of the grid (bit = cell index): one mask per type and per
# shape and layout. Tied to the predicates above by a test over random layouts.
def _bits(cells: Sequence[int]) -> int:
    return sum(1 << c for c in cells)


_CELL_BITS = np.array([1 << c for c in CELLS], dtype=np.int64)
_CELL_BITS.flags.writeable = False
_FULL = _bits(CELLS)
_NOT_COLUMN_0 = _bits([c for c in CELLS if c % 4 != 0])
_NOT_COLUMN_3 = _bits([c for c in CELLS if c % 4 != 3])
_OUTER, _LEFT, _RIGHT, _CORNERS = (_bits(c) for c in (OUTER, LEFT, RIGHT, CORNERS))
_DIAGONALS = tuple(_bits(d) for d in MAIN_DIAGONALS)
_LINES = np.array([_bits(line) for line in LINES], dtype=np.int64)
_LINES.flags.writeable = False


def popcount(x: Any) -> Any:
    """The number of set bits of 16-bit masks (an int or an int array)."""
    x = x - ((x >> 1) & 0x5555)
    x = (x & 0x3333) + ((x >> 2) & 0x3333)
    x = (x + (x >> 4)) & 0x0F0F
    return (x + (x >> 8)) & 0x1F


#: popcount of every 16-bit mask, looked up by ``card_truth_matrix`` (one gather instead
#: of popcount's ten array operations)
_POPCOUNT = popcount(np.arange(1 << GRID_CELLS, dtype=np.int64)).astype(np.int8)
_POPCOUNT.flags.writeable = False


def _next_to(m: Any) -> tuple[Any, Any, Any, Any]:
    """The cells whose neighbour below, above, to the right, to the left is in ``m``."""
    return m >> 4, (m << 4) & _FULL, (m >> 1) & _NOT_COLUMN_3, (m << 1) & _NOT_COLUMN_0


def _touching(m: Any) -> Any:
    """The cells orthogonally next to some cell of ``m``."""
    below, above, right, left = _next_to(m)
    return below | above | right | left


def _group_of_three(m: Any) -> Any:
    """``m`` holds 3 orthogonally connected cells: some cell of it has 2 neighbours in
    it (the middle of a connected three)."""
    a, b, c, d = _next_to(m)
    return (m & ((a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d))) != 0


def _group_of_four(m: Any) -> Any:
    """``m`` holds 4 orthogonally connected cells: some cell of it has 3 neighbours in
    it (a T), or two neighbouring cells of it have 2 each (the middle of a connected
    path of four; the grid has no triangles, so the path's ends differ)."""
    a, b, c, d = _next_to(m)
    three = m & ((a & b & c) | (a & b & d) | (a & c & d) | (b & c & d))
    two = m & ((a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d))
    return (three | (two & _touching(two))) != 0


def card_truth_matrix(layouts: Any) -> np.ndarray:
    """(N, 29) booleans: the truth of every prediction card (by card id) on each row of
    ``layouts``, an (N, 21) array of kind codes (complete layouts); row for row the
    same as :func:`card_truths`."""
    layouts = np.asarray(layouts)
    if layouts.ndim != 2 or layouts.shape[1] != NUM_CHOCOLATES:
        raise ValueError(f"layouts of shape {layouts.shape}; expected (N, {NUM_CHOCOLATES})")
    grid = layouts[:, :GRID_CELLS]
    types, shapes = grid // NUM_SHAPES, grid % NUM_SHAPES
    beside = layouts[:, GRID_CELLS:] // NUM_SHAPES
    t = [((types == k) * _CELL_BITS).sum(axis=1) for k in range(NUM_TYPES)]
    s = [((shapes == k) * _CELL_BITS).sum(axis=1) for k in range(NUM_SHAPES)]
    pc = _POPCOUNT.take

    def in_lines(mask: np.ndarray) -> np.ndarray:
        """(N, 8): how many cells of ``mask`` each row and column holds."""
        return pc(mask[:, None] & _LINES)

    def one_of_each_type(region: int) -> np.ndarray:
        return np.all([pc(m & region) <= 1 for m in t], axis=0)

    dark = t[DARK]
    diagonal_dark = (dark & (dark >> 5) & _NOT_COLUMN_3) | (dark & (dark >> 3) & _NOT_COLUMN_0)
    lines_with = [(t[k][:, None] & _LINES) != 0 for k in (WHITE, GREEN, PINK)]
    beside_types = np.sum([(beside == k).any(axis=1) for k in range(NUM_TYPES)], axis=0)
    columns = [
        pc(t[GOLD]) == 1,
        pc(t[GREEN]) == 2,
        pc(t[WHITE]) == 3,
        pc(t[PINK] & _OUTER) == 2,
        pc(t[DARK] & _OUTER) == 3,
        pc(s[ROUND] & _OUTER) == 4,
        pc(s[TRIANGULAR] & _OUTER) == pc(s[HEXAGONAL] & _OUTER),
        pc(t[BROWN] & _LEFT) == pc(t[BROWN] & _RIGHT),
        pc(t[DARK] & _LEFT) > pc(t[DARK] & _RIGHT),
        pc(s[TRIANGULAR] & _LEFT) > pc(s[TRIANGULAR] & _RIGHT),
        pc(s[ROUND]) > pc(s[TRIANGULAR]),
        pc(t[BROWN] & _LEFT) > pc(t[WHITE] & _LEFT),
        pc(t[GREEN] & _RIGHT) > pc(t[PINK] & _RIGHT),
        (_touching(t[PINK]) & t[GREEN]) != 0,
        (_touching(t[BROWN]) & t[BROWN]) != 0,
        _group_of_three(t[DARK]),
        _group_of_four(s[ROUND]),
        _group_of_four(s[TRIANGULAR]),
        _group_of_four(s[HEXAGONAL]),
        (in_lines(s[HEXAGONAL]) >= 3).any(axis=1),
        np.any([(in_lines(m) >= 3).any(axis=1) for m in t], axis=0),
        (lines_with[0] & lines_with[1] & lines_with[2]).any(axis=1),
        (_touching(t[WHITE]) & t[WHITE]) != 0,
        diagonal_dark != 0,
        one_of_each_type(_DIAGONALS[0]) | one_of_each_type(_DIAGONALS[1]),
        pc(s[TRIANGULAR] & _CORNERS) >= 2,
        pc(s[ROUND] & _CORNERS) >= 2,
        one_of_each_type(_CORNERS),
        beside_types >= 4,
    ]
    return np.stack(columns, axis=1)
