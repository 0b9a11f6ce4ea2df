"""Le Chocolat state records: complete, human-readable JSON, validated on load."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from choco_envs.core.errors import RecordError
from choco_envs.core.game import require
from choco_envs.games.le_chocolat import grid
from choco_envs.games.le_chocolat.components import BLANK

if TYPE_CHECKING:
    from choco_envs.games.le_chocolat.rules import LeChocolatGame, LeChocolatState

FACES = ("blank", "flavor")
CELL_NAMES = [grid.cell_name(c) for c in range(grid.CELLS)]


def state_to_json(game: LeChocolatGame, s: LeChocolatState) -> dict[str, Any]:
    """The whole state, hidden sides included (a record is for the referee, not a seat)."""
    from choco_envs.games.le_chocolat.rules import PHASE_NAMES

    names = game.components.flavors

    def tile(flavor: int, up: bool, owner: int | None) -> dict[str, Any]:
        row: dict[str, Any] = {
            "flavor": names[flavor] if flavor >= 0 else BLANK,
            "face_up": FACES[int(up)],
        }
        if owner is not None:
            row["owner"] = owner
        return row

    chunks = []
    for c, r in enumerate(s.chunk_at):
        if r >= 0:
            _, _, h, w = grid.RECTS[r]
            chunks.append({"top_left": CELL_NAMES[c], "rows": h, "cols": w})
    return {
        "card": game.components.cards[s.card].name,
        "phase": PHASE_NAMES[s.phase],
        "player": s.player,
        "chunks": chunks,
        "tiles": [tile(s.flavor[c], s.up[c], s.owner[c]) for c in range(grid.CELLS)],
        "box": tile(s.box_flavor, s.box_up, None),
    }


def state_from_json(game: LeChocolatGame, d: Mapping[str, Any]) -> LeChocolatState:
    """Inverse of :func:`state_to_json`; raise RecordError naming the bad field."""
    from choco_envs.games.le_chocolat.rules import OVER, PHASE_NAMES, LeChocolatState

    where = "le_chocolat state"
    names = game.components.card_names
    card = require(d, "card", str, where)
    if card not in names:
        raise RecordError(f"{where}.card = {card!r}; allowed: {', '.join(map(repr, names))}")
    phase_name = require(d, "phase", str, where)
    if phase_name not in PHASE_NAMES:
        raise RecordError(f"{where}.phase = {phase_name!r}; allowed: {', '.join(PHASE_NAMES)}")
    player = require(d, "player", int, where)
    tiles = require(d, "tiles", list, where)
    if len(tiles) != grid.CELLS:
        raise RecordError(f"{where}.tiles: expected {grid.CELLS} tiles, got {len(tiles)}")
    s = LeChocolatState.__new__(LeChocolatState)
    s.card = names.index(card)
    s.phase = PHASE_NAMES.index(phase_name)
    s.player = player
    cells = [_tile_from_json(game, t, f"{where}.tiles[{i}]", True) for i, t in enumerate(tiles)]
    s.flavor = [t[0] for t in cells]
    s.up = [t[1] for t in cells]
    s.owner = [t[2] for t in cells]
    s.box_flavor, s.box_up, _ = _tile_from_json(
        game, require(d, "box", dict, where), f"{where}.box", False
    )
    s.chunk_at = _chunks_from_json(require(d, "chunks", list, where), s.owner, where)
    s.claimed = [s.owner.count(0), s.owner.count(1)]
    s.tiles_left = s.owner.count(-1)
    _check_tile_set(game, s, where)
    _check_turn(s, where, OVER)
    return s


def _tile_from_json(
    game: LeChocolatGame, t: Any, where: str, on_grid: bool
) -> tuple[int, bool, int]:
    flavors = game.components.flavors
    name = require(t, "flavor", str, where)
    if name != BLANK and name not in flavors:
        raise RecordError(f"{where}.flavor = {name!r}; allowed: {', '.join(flavors)}, {BLANK}")
    face = require(t, "face_up", str, where)
    if face not in FACES:
        raise RecordError(f"{where}.face_up = {face!r}; allowed: {', '.join(FACES)}")
    flavor = flavors.index(name) if name != BLANK else -1
    if flavor < 0 and face == "flavor":
        raise RecordError(f"{where}: a blank/blank tile has no flavor side to show")
    owner = require(t, "owner", int, where) if on_grid else -1
    if owner not in (-1, 0, 1):
        raise RecordError(f"{where}.owner = {owner!r}; allowed: -1 (on the table), 0, 1")
    return flavor, face == "flavor", owner


def _chunks_from_json(chunks: list[Any], owner: list[int], where: str) -> list[int]:
    chunk_at = [-1] * grid.CELLS
    covered: list[int] = []
    for i, chunk in enumerate(chunks):
        at = f"{where}.chunks[{i}]"
        name = require(chunk, "top_left", str, at)
        if name not in CELL_NAMES:
            raise RecordError(f"{at}.top_left = {name!r}; allowed: a1..g5")
        cell = CELL_NAMES.index(name)
        key = (
            cell // grid.WIDTH,
            cell % grid.WIDTH,
            require(chunk, "rows", int, at),
            require(chunk, "cols", int, at),
        )
        if key not in grid.RECT_ID:
            raise RecordError(f"{at}: a {key[2]}x{key[3]} chunk at {name} does not fit the grid")
        rect = grid.RECT_ID[key]
        chunk_at[cell] = rect
        covered.extend(grid.RECT_CELLS[rect])
    table = [c for c in range(grid.CELLS) if owner[c] == -1]
    if sorted(covered) != table:
        raise RecordError(
            f"{where}.chunks must cover exactly the unclaimed tiles, each once "
            f"(unclaimed: {[CELL_NAMES[c] for c in table]})"
        )
    return chunk_at


def _check_tile_set(game: LeChocolatGame, s: LeChocolatState, where: str) -> None:
    have = Counter(s.flavor + [s.box_flavor])
    want = Counter(game.components.tile_flavors())
    if have != want:
        raise RecordError(f"{where}: the tiles and the box tile are not the game's tile set")


def _check_turn(s: LeChocolatState, where: str, over: int) -> None:
    if s.phase == over:
        if s.tiles_left or s.player != -1:
            raise RecordError(f"{where}: phase 'over' needs no tile on the table and player -1")
        return
    if s.player not in (0, 1) or not s.tiles_left:
        raise RecordError(
            f"{where}.player = {s.player!r}; a live game needs player 0 or 1 and tiles"
        )
    if s.phase == 0 and not s.can_split():
        raise RecordError(f"{where}: phase 'split' but no chunk has 2 or more tiles")
    if s.phase == 1 and len(s.claimable_cells()) < 2:
        raise RecordError(f"{where}: phase 'claim' needs 2 or more chunks of 3 or fewer tiles")
