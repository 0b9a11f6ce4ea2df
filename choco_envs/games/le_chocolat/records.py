"""Le Chocolat state records: complete, human-readable JSON, validated on load.

The loader refuses (RecordError naming the field) every record that is not a
reachable-looking state: each value's type and range and no unknown field; the tile set
conserved (each of the 36 tiles exactly once, in the grid or in the box); the chunks
rectangles covering exactly the unclaimed tiles, each once; the card the one the game's
``scoring_card`` option fixes, if it fixes one; and the phase consistent with the table:
``over`` exactly when every tile is claimed (player -1), ``split`` only while a chunk has
2 or more tiles, ``claim`` only with 2 or more chunks of 3 or fewer tiles. So the seat to
act always has a legal action, and an accepted game ends within ``max_steps``. The tile
counts (``claimed``, ``tiles_left``) are not stored: they are counted from the owners.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from choco_envs.core.errors import RecordError, shown
from choco_envs.core.game import require
from choco_envs.games.le_chocolat import grid
from choco_envs.games.le_chocolat.components import BLANK
from choco_envs.games.le_chocolat.rules import (
    CLAIM,
    OVER,
    PHASE_NAMES,
    SPLIT,
    LeChocolatRules,
    LeChocolatState,
)

FACES = ("blank", "flavor")
CELL_NAMES = tuple(grid.cell_name(c) for c in range(grid.CELLS))
STATE_FIELDS = ("card", "phase", "player", "chunks", "tiles", "box")
TILE_FIELDS = ("flavor", "face_up", "owner")
BOX_FIELDS = ("flavor", "face_up")
CHUNK_FIELDS = ("top_left", "rows", "cols")


def state_to_json(game: LeChocolatRules, s: LeChocolatState) -> dict[str, Any]:
    """The whole state, hidden sides included (a record is for the referee, not a seat)."""
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


def state_from_json(game: LeChocolatRules, d: Mapping[str, Any]) -> LeChocolatState:
    """Inverse of :func:`state_to_json`; raise RecordError naming the bad field."""
    where = "le_chocolat state"
    _check_fields(d, STATE_FIELDS, where)
    s = LeChocolatState.__new__(LeChocolatState)
    s.card = _card_from_json(game, require(d, "card", str, where), where)
    phase_name = require(d, "phase", str, where)
    if phase_name not in PHASE_NAMES:
        raise RecordError(f"{where}.phase = {shown(phase_name)}; allowed: {', '.join(PHASE_NAMES)}")
    s.phase = PHASE_NAMES.index(phase_name)
    s.player = require(d, "player", int, where)
    tiles = require(d, "tiles", list, where)
    if len(tiles) != grid.CELLS:
        raise RecordError(f"{where}.tiles: expected {grid.CELLS} tiles, got {len(tiles)}")
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
    _check_turn(s, where)
    return s


def _check_fields(d: Any, allowed: tuple[str, ...], where: str) -> None:
    """Refuse an object with a field the record format does not have (a typo would
    otherwise be dropped without a word)."""
    if not isinstance(d, Mapping):
        raise RecordError(f"{where}: expected an object, got {type(d).__name__}")
    unknown = [k for k in d if k not in allowed]
    if unknown:
        raise RecordError(
            f"{where}: unknown field(s) {', '.join(map(shown, unknown[:5]))}"
            f"{' ...' if len(unknown) > 5 else ''}; allowed: {', '.join(allowed)}"
        )


def _card_from_json(game: LeChocolatRules, card: str, where: str) -> int:
    names = game.components.card_names
    if card not in names:
        raise RecordError(f"{where}.card = {shown(card)}; allowed: {', '.join(map(repr, names))}")
    index = names.index(card)
    if game.fixed_card is not None and index != game.fixed_card:
        raise RecordError(
            f"{where}.card = {shown(card)}; this game's option scoring_card fixes "
            f"{names[game.fixed_card]!r}"
        )
    return index


def _tile_from_json(
    game: LeChocolatRules, t: Any, where: str, on_grid: bool
) -> tuple[int, bool, int]:
    _check_fields(t, TILE_FIELDS if on_grid else BOX_FIELDS, where)
    flavors = game.components.flavors
    name = require(t, "flavor", str, where)
    if name != BLANK and name not in flavors:
        raise RecordError(f"{where}.flavor = {shown(name)}; allowed: {', '.join(flavors)}, {BLANK}")
    face = require(t, "face_up", str, where)
    if face not in FACES:
        raise RecordError(f"{where}.face_up = {shown(face)}; allowed: {', '.join(FACES)}")
    flavor = flavors.index(name) if name != BLANK else -1
    if flavor < 0 and face == "flavor":
        raise RecordError(
            f"{where}.face_up = 'flavor' but the tile is blank/blank: it has no flavor side"
        )
    owner = require(t, "owner", int, where) if on_grid else -1
    if owner not in (-1, 0, 1):
        raise RecordError(f"{where}.owner = {shown(owner)}; allowed: -1 (on the table), 0, 1")
    return flavor, face == "flavor", owner


def _chunks_from_json(chunks: list[Any], owner: list[int], where: str) -> list[int]:
    """The chunks' rectangles; refused by their number first (at most one a cell), and
    checked against the unclaimed tiles in one pass."""
    if len(chunks) > grid.CELLS:
        raise RecordError(
            f"{where}.chunks: {len(chunks):,} chunks; allowed: at most {grid.CELLS} (a chunk "
            "covers one tile or more)"
        )
    chunk_at = [-1] * grid.CELLS
    covered: list[int] = []
    for i, chunk in enumerate(chunks):
        at = f"{where}.chunks[{i}]"
        _check_fields(chunk, CHUNK_FIELDS, at)
        name = require(chunk, "top_left", str, at)
        if name not in CELL_NAMES:
            raise RecordError(f"{at}.top_left = {shown(name)}; allowed: a1..g5")
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
        times = Counter(covered)
        twice = sorted(CELL_NAMES[c] for c, k in times.items() if k > 1)
        claimed = sorted(CELL_NAMES[c] for c in times if owner[c] != -1)
        bare = [CELL_NAMES[c] for c in table if c not in times]
        raise RecordError(
            f"{where}.chunks must cover exactly the unclaimed tiles (owner -1), each once: "
            f"covered twice {twice}, claimed but in a chunk {claimed}, unclaimed but in no "
            f"chunk {bare}"
        )
    return chunk_at


def _check_tile_set(game: LeChocolatRules, s: LeChocolatState, where: str) -> None:
    """Every tile of the set exactly once, in the grid or in the box."""
    have = Counter(s.flavor + [s.box_flavor])
    want = Counter(game.components.tile_flavors())
    if have != want:
        names = [*game.components.flavors, BLANK]  # index -1: blank/blank
        wrong = [
            f"{names[f]} {have[f]} (the set has {want[f]})"
            for f in [*range(len(names) - 1), -1]
            if have[f] != want[f]
        ]
        raise RecordError(
            f"{where}.tiles and {where}.box are not the game's tile set: {', '.join(wrong)}"
        )


def _check_turn(s: LeChocolatState, where: str) -> None:
    """The phase and the player agree with the table, so the seat to act has a move."""
    if s.phase == OVER:
        if s.tiles_left:
            raise RecordError(
                f"{where}.phase = 'over' but {s.tiles_left} tile(s) are unclaimed (owner -1)"
            )
        if s.player != -1:
            raise RecordError(f"{where}.player = {shown(s.player)}; a game over has player -1")
        return
    if s.player not in (0, 1):
        raise RecordError(f"{where}.player = {shown(s.player)}; allowed in a live game: 0, 1")
    if not s.tiles_left:
        raise RecordError(
            f"{where}.phase = {PHASE_NAMES[s.phase]!r} but every tile is claimed: "
            "the game is over (phase 'over', player -1)"
        )
    if s.phase == SPLIT and not s.can_split():
        raise RecordError(f"{where}.phase = 'split' but no chunk in {where}.chunks has 2+ tiles")
    if s.phase == CLAIM and len(s.claimable_cells()) < 2:
        raise RecordError(
            f"{where}.phase = 'claim' needs 2 or more chunks of 3 or fewer tiles in "
            f"{where}.chunks (a single one is claimed with the split); found "
            f"{len(s.claimable_cells())}"
        )
