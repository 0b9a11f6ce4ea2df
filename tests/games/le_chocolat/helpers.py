"""Positions for the Le Chocolat rule tests, built the way a player would lay them out."""

from __future__ import annotations

import random

from choco_envs.games.le_chocolat import LeChocolatGame, LeChocolatState, grid
from choco_envs.games.le_chocolat.rules import OVER, SPLIT

CELL = {grid.cell_name(c): c for c in range(grid.CELLS)}


def split(cell: str, line: int) -> int:
    """The split action of the chunk whose top-left tile is ``cell``, along ``line``."""
    return CELL[cell] * grid.LINES + line


def claim(cell: str) -> int:
    return grid.CELLS * grid.LINES + CELL[cell]


def vertical(left_column: str) -> int:
    """The cut line just right of column ``left_column`` (``"c"``: between c and d)."""
    return grid.COLUMN_NAMES.index(left_column)


def horizontal(upper_row: int) -> int:
    """The cut line just below row ``upper_row`` (1-based: 2 cuts between rows 2 and 3)."""
    return grid.VERTICAL_LINES + upper_row - 1


def fresh(game: LeChocolatGame, seed: int = 0) -> LeChocolatState:
    return game.new_state(random.Random(seed))


def play(game: LeChocolatGame, s: LeChocolatState, *actions: int) -> LeChocolatState:
    for a in actions:
        game.apply(s, a, random.Random(0))
    return s


def finished(
    game: LeChocolatGame, hand0: list[str], box: str = "blank", box_up: bool = False
) -> LeChocolatState:
    """A game over: seat 0 claimed ``hand0`` (flavor names, ``"blank"`` for blank/blank),
    the boxed tile is ``box``, seat 1 claimed every other tile."""
    names = game.components.flavors
    pool = game.components.tile_flavors()

    def take(name: str) -> int:
        f = names.index(name) if name != "blank" else -1
        pool.remove(f)
        return f

    mine = [take(n) for n in hand0]
    box_flavor = take(box)
    s = fresh(game)
    s.flavor = mine + pool
    s.up = [False] * grid.CELLS
    s.owner = [0] * len(mine) + [1] * len(pool)
    s.box_flavor, s.box_up = box_flavor, box_up
    s.chunk_at = [-1] * grid.CELLS
    s.claimed = [len(mine), len(pool)]
    s.tiles_left, s.player, s.phase = 0, -1, OVER
    return s


def table(
    game: LeChocolatGame, chunks: list[tuple[str, int, int]], player: int = 0
) -> LeChocolatState:
    """A position where only the given chunks (top-left, rows, cols) are on the table,
    seat ``player`` to split; every other tile was claimed, alternately by the two seats."""
    s = fresh(game)
    s.chunk_at = [-1] * grid.CELLS
    on_table: set[int] = set()
    for name, rows, cols in chunks:
        cell = CELL[name]
        rect = grid.RECT_ID[(cell // grid.WIDTH, cell % grid.WIDTH, rows, cols)]
        s.chunk_at[cell] = rect
        on_table.update(grid.RECT_CELLS[rect])
    off = [c for c in range(grid.CELLS) if c not in on_table]
    s.owner = [-1] * grid.CELLS
    for i, c in enumerate(off):
        s.owner[c] = i % 2
    s.claimed = [s.owner.count(0), s.owner.count(1)]
    s.tiles_left = len(on_table)
    s.player, s.phase = player, SPLIT
    return s


def place_face_up(game: LeChocolatGame, s: LeChocolatState, tiles: dict[str, str]) -> None:
    """Put a face-up tile of the named flavor at each named cell, swapping it with a tile
    from a cell not named (the tile set stays the same)."""
    names = game.components.flavors
    targets = {CELL[c] for c in tiles}
    for cell_name, flavor_name in tiles.items():
        cell, f = CELL[cell_name], names.index(flavor_name)
        source = next(c for c in range(grid.CELLS) if c not in targets and s.flavor[c] == f)
        s.flavor[cell], s.flavor[source] = s.flavor[source], s.flavor[cell]
        s.up[source] = s.up[cell] and s.flavor[source] >= 0
        s.up[cell] = True
