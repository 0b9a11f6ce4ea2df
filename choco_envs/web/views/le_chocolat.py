"""Le Chocolat as the page draws it: the 7x5 grid of two-sided tiles, the chunks
outlined, the scoring card, the boxed tile and each player's claimed tiles.

A tile shows its face-up side to everyone. Its other side (``back``) is in the view only
when the viewer knows it: its flavor side is up (the back is blank), it is the viewer's own
claimed tile ("you may secretly look at the hidden side of your tiles"), or the game is
over (every tile is flipped for scoring; the boxed tile too).
"""

from __future__ import annotations

from typing import Any

from choco_envs.games.le_chocolat import grid
from choco_envs.games.le_chocolat.rules import (
    CLAIM_LIMIT,
    NUM_SPLIT_ACTIONS,
    OVER,
    PHASE_NAMES,
    LeChocolatGame,
    LeChocolatState,
)

BLANK = "blank"


def flavor_name(game: LeChocolatGame, flavor: int) -> str:
    return game.components.flavors[flavor] if flavor >= 0 else BLANK


def tile(game: LeChocolatGame, s: LeChocolatState, cell: int, viewer: int | None) -> dict[str, Any]:
    """One tile: its face-up side, and its back when ``viewer`` knows it."""
    up = s.up[cell]
    out: dict[str, Any] = {
        "cell": grid.cell_name(cell),
        "row": cell // grid.WIDTH,
        "col": cell % grid.WIDTH,
        "face": flavor_name(game, s.flavor[cell]) if up else BLANK,
        "owner": s.owner[cell],
    }
    if up:
        out["back"] = BLANK
    elif s.knows(cell, viewer):
        out["back"] = flavor_name(game, s.flavor[cell])
    return out


def chunk(cell: int, rect: int) -> dict[str, Any]:
    r0, c0, h, w = grid.RECTS[rect]
    return {
        "top_left": grid.cell_name(cell),
        "row": r0,
        "col": c0,
        "rows": h,
        "cols": w,
        "size": h * w,
        "small": h * w <= CLAIM_LIMIT,
    }


def scoring_card(game: LeChocolatGame, s: LeChocolatState) -> dict[str, Any]:
    card = game.card(s)
    names = game.components.flavors
    linked = {f for members, _ in card.sets for f in members} | {f for f, _ in card.majority}
    return {
        "name": card.name,
        "each": [
            {"flavor": names[f], "vp": vp} for f, vp in enumerate(card.each) if f not in linked
        ],
        "sets": [{"flavors": [names[f] for f in members], "vp": vp} for members, vp in card.sets],
        "majority": [{"flavor": names[f], "vp": vp} for f, vp in card.majority],
    }


def hand(game: LeChocolatGame, s: LeChocolatState, seat: int, viewer: int | None) -> dict[str, Any]:
    """What ``viewer`` knows of the tiles ``seat`` claimed."""
    known: dict[str, int] = {}
    unknown = 0
    for c in range(grid.CELLS):
        if s.owner[c] != seat:
            continue
        if s.up[c] or s.knows(c, viewer):
            name = flavor_name(game, s.flavor[c])
            known[name] = known.get(name, 0) + 1
        else:
            unknown += 1
    return {"seat": seat, "claimed": s.claimed[seat], "known": known, "unknown": unknown}


def view(game: LeChocolatGame, state: LeChocolatState, seat: int | None) -> dict[str, Any]:
    s = state
    over = s.phase == OVER
    box: dict[str, Any] = {"face": flavor_name(game, s.box_flavor) if s.box_up else BLANK}
    if s.box_up:
        box["back"] = BLANK
    elif over:
        box["back"] = flavor_name(game, s.box_flavor)
    return {
        "board": "le_chocolat",
        "env_id": game.spec.env_id,
        "viewer": seat,
        "num_players": 2,
        "over": over,
        "phase": PHASE_NAMES[s.phase],
        "to_act": None if over else s.player,
        "width": grid.WIDTH,
        "height": grid.HEIGHT,
        "columns": grid.COLUMN_NAMES,
        "flavors": list(game.components.flavors),
        "tiles": [tile(game, s, c, seat) for c in range(grid.CELLS)],
        "chunks": [chunk(c, r) for c, r in enumerate(s.chunk_at) if r >= 0],
        "card": scoring_card(game, s),
        "box": box,
        "players": [hand(game, s, p, seat) for p in (0, 1)],
        "tiles_left": s.tiles_left,
    }


def target(game: LeChocolatGame, state: LeChocolatState, action: int) -> dict[str, Any] | None:
    """Split: the chunk and the cut line through it (``vertical`` at column boundary
    ``at``, i.e. left of column ``at``; ``horizontal`` above row ``at``); claim: the chunk."""
    if action < NUM_SPLIT_ACTIONS:
        cell, line = divmod(action, grid.LINES)
        rect = state.chunk_at[cell]
        if rect < 0:
            return None
        if line < grid.VERTICAL_LINES:
            orientation, at = "vertical", line + 1
        else:
            orientation, at = "horizontal", line - grid.VERTICAL_LINES + 1
        return {"kind": "split", "chunk": chunk(cell, rect), "orientation": orientation, "at": at}
    cell = action - NUM_SPLIT_ACTIONS
    rect = state.chunk_at[cell]
    if rect < 0:
        return None
    return {"kind": "claim", "chunk": chunk(cell, rect)}
