"""Chocolatiers as the page draws it (both editions): the tray of chocolate cards, the
line of box tiles (classic: the five stack tops and how many tiles lie under each), the
seat's own hand (the others' as known cards and a count of unseen ones), wilds, reserved
tiles, the Score tiles with who holds each now, the First tile, and every player's
Sampler as a grid; the tile being boxed with what is still to pay.

Built only from what the seat may see: a seat's own hand; for the others only the cards
everyone saw them take (``known``) and how many dealt cards nobody else has seen; the
deck, the hidden stack(s) and the tiles back in the box as counts (the deck's content
once it is rebuilt from the public discards). The rules' own names and helpers are used
for everything (``rules.py``): action ids, placement positions, rotations.
"""

from __future__ import annotations

from typing import Any

from choco_envs.games.chocolatiers.components import TYPES
from choco_envs.games.chocolatiers.rules import (
    BOX,
    BOX_RESERVED,
    DISCARD,
    EMPTY,
    FROM_RESERVE,
    GIVE,
    LINE_SIZE,
    MAX_TILES,
    NO_TILE,
    NT,
    PASS,
    PAY_ONE,
    PAY_TWO,
    PHASE_NAMES,
    PLACE,
    PLACE_WILD,
    RESERVE,
    ROUND_CAP,
    TAKE_MORE,
    WILD,
    ChocolatiersRules,
    ChocolatiersState,
    action_kind,
    current_chocolate,
    position_row_col,
)

#: how a Sampler cell is sent: a type name, "wild", "empty" (a tile space without a
#: chocolate) or None (no tile there)
CELL_NAMES = {NO_TILE: None, EMPTY: "empty", WILD: "wild"}


def cell_name(v: int) -> str | None:
    return CELL_NAMES[v] if v in CELL_NAMES else TYPES[v]


def counts(values: list[int]) -> dict[str, int]:
    """Cards by type name (every type, zeros included)."""
    return {TYPES[t]: int(values[t]) for t in range(NT)}


def tile(game: ChocolatiersRules, tile_id: int) -> dict[str, Any] | None:
    """A box tile face up: its four spaces (top-left, top-right, bottom-left,
    bottom-right; None for an empty space), its cost by type and its points."""
    if tile_id < 0:
        return None
    t = game.components.tiles[tile_id]
    return {
        "id": tile_id,
        "text": game.tile_text[tile_id],
        "spaces": [cell_name(v) if v != EMPTY else None for v in t.spaces],
        "cost": {TYPES[k]: n for k, n in enumerate(game.tile_cost[tile_id]) if n},
        "points": game.tile_points[tile_id],
    }


def sampler(game: ChocolatiersRules, s: ChocolatiersState, q: int) -> dict[str, Any]:
    """A player's Sampler: the anchored 6x6 grid and the tiles in its 3x3 frame slots."""
    cells = s.cells[q * 36 : q * 36 + 36]
    slots = []
    for k in range(9):
        tile_id = s.slots[q * 9 + k]
        if tile_id >= 0:
            rot = s.rots[q * 9 + k]
            slots.append({"slot": k, "row": k // 3, "col": k % 3, "tile": tile_id, "rotation": rot})
    return {"cells": [cell_name(v) for v in cells], "tiles": slots}


def player(
    game: ChocolatiersRules, s: ChocolatiersState, q: int, seat: int | None, award: list[int]
) -> dict[str, Any]:
    b = q * NT
    out: dict[str, Any] = {
        "seat": q,
        "wilds": s.wilds[q],
        "tiles": s.ntiles[q],
        "points": s.points[q],
        "first": s.first == q,
        "reserved": tile(game, s.reserved[q]),
        "sampler": sampler(game, s, q),
        "score_tiles": [game.score_names[i] for i, who in enumerate(award) if who == q],
    }
    if q == seat:
        out["hand"] = counts(s.hand[b : b + NT])
        out["cards"] = sum(s.hand[b : b + NT])
    else:
        out["known"] = counts(s.known[b : b + NT])
        out["unseen"] = s.unknown[q]
        out["cards"] = sum(s.known[b : b + NT]) + s.unknown[q]
    return out


def view(game: ChocolatiersRules, state: ChocolatiersState, seat: int | None) -> dict[str, Any]:
    s = state
    n = game.num_players
    award = game.award(s)
    out: dict[str, Any] = {
        "board": "chocolatiers",
        "env_id": game.spec.env_id,
        "viewer": seat,
        "num_players": n,
        "edition": game.edition,
        "over": s.over,
        "to_act": None if s.over else s.player,
        "phase": PHASE_NAMES[s.phase],
        "actions_left": s.actions_left,
        "takes_left": s.takes_left,
        "round": min(s.turn // n + 1, ROUND_CAP),
        "rounds": ROUND_CAP,
        "max_tiles": MAX_TILES,
        "types": list(TYPES),
        "tray": counts(s.tray),
        "deck": len(s.deck),
        "discard": counts(s.discard),
        "line": [tile(game, t) for t in s.display],
        "players": [player(game, s, q, seat, award) for q in range(n)],
        "score_tiles": [
            {"name": name, "points": pts, "holder": who}
            for name, pts, who in zip(game.score_names, game.score_values, award, strict=True)
        ],
        "first_points": game.first_score,
    }
    if s.reshuffled:  # rebuilt from the discards, which everyone saw: its content is public
        out["deck_content"] = counts([s.deck.count(t) for t in range(NT)])
    if game.classic:
        out["stacks"] = [len(st) for st in s.stacks]  # tiles under each top, face down
    else:
        out["stack"] = len(s.stacks[0])
    if s.pending >= 0:
        c = current_chocolate(s.to_pay)
        out["boxing"] = {
            "tile": tile(game, s.pending),
            "from": "reserved" if s.box_from == FROM_RESERVE else "line",
            "line": s.box_from if s.box_from < LINE_SIZE else None,
            "to_pay": counts(s.to_pay),
            "paying": TYPES[c] if c >= 0 else None,
            "rotations": [
                [cell_name(v) if v != EMPTY else None for v in spaces]
                for spaces in game.rotated[s.pending]
            ],
        }
    return out


def target(game: ChocolatiersRules, state: ChocolatiersState, action: int) -> dict[str, Any] | None:
    """Where a legal move is made on the board: a card type of the tray (take), of the
    hand (exchange, pay, discard), a tile of the line or the reserved one (box, reserve),
    a Sampler space (wild), a placement position and rotation (place), or the pass
    button."""
    s, a = state, int(action)
    if a == PASS:
        label = game.action_to_string(s, a)
        return {"kind": "pass", "label": label}
    if PAY_ONE <= a < PAY_TWO + NT:
        c = current_chocolate(s.to_pay)
        if c < 0:
            return None
        if a == PAY_ONE:
            return {"kind": "pay", "type": TYPES[c], "cards": 1, "paying": TYPES[c]}
        return {"kind": "pay", "type": TYPES[a - PAY_TWO], "cards": 2, "paying": TYPES[c]}
    if PLACE <= a < DISCARD:
        position, rot = divmod(a - PLACE, 4)
        row, col = position_row_col(position)
        return {"kind": "place", "position": position, "row": row, "col": col, "rotation": rot}
    if DISCARD <= a < DISCARD + NT:
        return {"kind": "discard", "type": TYPES[a - DISCARD]}
    if s.phase == TAKE_MORE:  # the second and third card of an exchange
        return {"kind": "take", "type": TYPES[a]} if a < NT else None
    kind, arg = action_kind(a)
    if a < GIVE:
        return {"kind": "take", "type": TYPES[arg]}
    if a < BOX:
        return {"kind": "exchange", "type": TYPES[arg]}
    if a == BOX_RESERVED:
        return {"kind": "box", "where": "reserved"}
    if a < BOX_RESERVED:
        return {"kind": "box", "where": "line", "line": arg}
    if a < PLACE_WILD:
        return {"kind": "reserve", "line": a - RESERVE}
    if kind >= 0:
        return {"kind": "wild", "space": arg, "row": arg // 6, "col": arg % 6}
    return None
