"""Geometry of the 7x5 grid, precomputed once: every rectangle (chunk), its cells, and what
each cut line makes of it, so that the rules never search the board. A leaf module (it
imports nothing), read by the rules, the encoders, records, render and the bots; its
tables are tuples, never changed after import.

Cells are numbered ``row * 7 + col`` (row 0..4 from the top, col 0..6 from the left) and
named like a chess board turned on its side: column letter ``a..g``, row number ``1..5``
(``a1`` is the top-left cell). A chunk is always a rectangle (the rulings in docs/games/le_chocolat.md) and is named by
its top-left cell.

Cut lines are absolute positions on the grid: line ``k`` in 0..5 is the vertical line
between columns ``k`` and ``k+1``; line ``6 + k`` in 6..9 is the horizontal line between
rows ``k`` and ``k+1``. A line cuts a chunk when it passes strictly through it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

WIDTH = 7
HEIGHT = 5
CELLS = WIDTH * HEIGHT
VERTICAL_LINES = WIDTH - 1
LINES = VERTICAL_LINES + HEIGHT - 1
COLUMN_NAMES = "abcdefg"


def cell_name(cell: int) -> str:
    """``a1`` for the top-left cell."""
    return f"{COLUMN_NAMES[cell % WIDTH]}{cell // WIDTH + 1}"


def line_name(line: int) -> str:
    """A cut line in words."""
    if line < VERTICAL_LINES:
        return f"vertical line between columns {COLUMN_NAMES[line]} and {COLUMN_NAMES[line + 1]}"
    row = line - VERTICAL_LINES
    return f"horizontal line between rows {row + 1} and {row + 2}"


def _build() -> tuple[
    tuple[tuple[int, int, int, int], ...], Mapping[tuple[int, int, int, int], int]
]:
    rects = tuple(
        (r0, c0, h, w)
        for r0 in range(HEIGHT)
        for c0 in range(WIDTH)
        for h in range(1, HEIGHT - r0 + 1)
        for w in range(1, WIDTH - c0 + 1)
    )
    return rects, MappingProxyType({r: i for i, r in enumerate(rects)})


#: every rectangle as (top row, left column, height, width)
RECTS, RECT_ID = _build()
#: the whole grid, the one chunk at the start
FULL = RECT_ID[(0, 0, HEIGHT, WIDTH)]
SIZE = tuple(h * w for (_, _, h, w) in RECTS)
TOP_LEFT = tuple(r0 * WIDTH + c0 for (r0, c0, _, _) in RECTS)
RECT_CELLS = tuple(
    tuple((r0 + dr) * WIDTH + c0 + dc for dr in range(h) for dc in range(w))
    for (r0, c0, h, w) in RECTS
)


def _cut(rect: int, line: int) -> tuple[int, int] | None:
    r0, c0, h, w = RECTS[rect]
    if line < VERTICAL_LINES:
        x = line + 1  # the cut runs left of column x
        if not c0 < x < c0 + w:
            return None
        return RECT_ID[(r0, c0, h, x - c0)], RECT_ID[(r0, x, h, c0 + w - x)]
    y = line - VERTICAL_LINES + 1
    if not r0 < y < r0 + h:
        return None
    return RECT_ID[(r0, c0, y - r0, w)], RECT_ID[(y, c0, r0 + h - y, w)]


#: CUT[rect][line] = (first part, second part), the first holding the top-left cell, or
#: None when the line does not pass through the rectangle
CUT = tuple(tuple(_cut(r, line) for line in range(LINES)) for r in range(len(RECTS)))
#: lines that cut each rectangle, increasing
CUT_LINES = tuple(
    tuple(line for line in range(LINES) if CUT[r][line] is not None) for r in range(len(RECTS))
)
