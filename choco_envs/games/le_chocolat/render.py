"""Le Chocolat as text: the grid as one seat (or a spectator) sees it (action names are
the rules' own, ``LeChocolatRules.action_to_string``).

Each cell shows the face the viewer knows: a flavor's short name in capitals when it is
face up, in lower case when it is the viewer's own tile whose flavor side is down (or any
tile at the end), ``..`` for a blank face whose back the viewer does not know, ``--`` for a
known blank/blank tile; claimed tiles are marked with ``0``/``1`` (the claiming seat) and
chunks are separated by ``|`` and ``-``.
"""

from __future__ import annotations

from typing import Any

from choco_envs.games.le_chocolat import grid
from choco_envs.games.le_chocolat.components import ScoringCard
from choco_envs.games.le_chocolat.rules import (
    CLAIM,
    CLAIM_LIMIT,
    NUM_SPLIT_ACTIONS,
    OVER,
    PHASE_NAMES,
    LeChocolatRules,
    LeChocolatState,
)

#: the key shown by `?` at the terminal prompt
HELP = """Le Chocolat board codes
  columns a-g, rows 1-5; a cell shows the tile's face as its viewer knows it:
    AL almond  CA cashew  PI pistachio  OR orange  MA macadamia  RA raspberry
    capitals    the flavour side is face up (everyone sees it)
    lower case  your own claimed tile whose flavour side is face down (only you know it),
                or any tile once the game is over
    ..          a blank face up; its other side is unknown to you
    --          a tile you know is blank on both sides
  a digit after a cell (0 or 1): the player who claimed it
  | and ---    the edges between chunks (a split cuts one chunk along a full line)"""


def short_names(flavors: tuple[str, ...]) -> list[str]:
    """Two-letter names, unique: ``AL`` for almond, ``CA`` for cashew..."""
    out: list[str] = []
    for f in flavors:
        name = f[:2].upper()
        while name in out:
            name = f"{name[0]}{len(out)}"
        out.append(name)
    return out


def cell_text(game: LeChocolatRules, s: LeChocolatState, c: int, viewer: int | None) -> str:
    shorts = short_names(game.components.flavors)
    f = s.flavor[c]
    if s.up[c]:
        face = shorts[f]
    elif s.knows(c, viewer):
        face = shorts[f].lower() if f >= 0 else "--"
    else:
        face = ".."
    mark = " " if s.owner[c] < 0 else str(s.owner[c])
    return f"{face}{mark}"


def chunk_of_cells(s: LeChocolatState) -> list[int]:
    """For every cell the top-left cell of its chunk; -1 or -2 once seat 0 or 1 claimed it."""
    out = [-1 - o for o in s.owner]
    for c, r in enumerate(s.chunk_at):
        if r >= 0:
            for cell in grid.RECT_CELLS[r]:
                out[cell] = c
    return out


def grid_lines(game: LeChocolatRules, s: LeChocolatState, viewer: int | None) -> list[str]:
    chunk = chunk_of_cells(s)
    lines = ["    " + "".join(f" {grid.COLUMN_NAMES[c]}  " for c in range(grid.WIDTH))]
    for row in range(grid.HEIGHT):
        text = f"{row + 1:>2}  "
        under = "    "
        for col in range(grid.WIDTH):
            c = row * grid.WIDTH + col
            text += cell_text(game, s, c, viewer)
            right = col + 1 < grid.WIDTH and chunk[c] != chunk[c + 1]
            text += "|" if right else " "
            below = row + 1 < grid.HEIGHT and chunk[c] != chunk[c + grid.WIDTH]
            under += "--- " if below else "    "
        lines.append(text.rstrip())
        if row + 1 < grid.HEIGHT and under.strip():
            lines.append(under.rstrip())
    return lines


def card_text(game: LeChocolatRules, s: LeChocolatState) -> str:
    card = game.card(s)
    names = game.components.flavors
    parts = [f"{names[f]} {vp:+d} each" for f, vp in enumerate(card.each) if _scores_each(card, f)]
    parts += [f"set of {'+'.join(names[f] for f in members)} {vp:+d}" for members, vp in card.sets]
    parts += [f"majority of {names[f]} {vp:+d}" for f, vp in card.majority]
    return f"scoring card {card.name!r}: " + "; ".join(parts)


def _scores_each(card: ScoringCard, f: int) -> bool:
    in_set = any(f in members for members, _ in card.sets)
    in_majority = any(f == g for g, _ in card.majority)
    return not in_set and not in_majority


def hand_text(game: LeChocolatRules, s: LeChocolatState, seat: int, viewer: int | None) -> str:
    names = game.components.flavors
    known: list[str] = []
    unknown = 0
    for c in range(grid.CELLS):
        if s.owner[c] != seat:
            continue
        if not s.knows(c, viewer):
            unknown += 1
        elif s.flavor[c] >= 0:
            known.append(names[s.flavor[c]] + ("" if s.up[c] else " (back)"))
        else:
            known.append("blank/blank")
    text = f"player_{seat} claimed {s.claimed[seat]}: " + (", ".join(sorted(known)) or "-")
    return text + (f"; {unknown} blank face(s) up, back unknown" if unknown else "")


def state_to_string(
    game: LeChocolatRules, s: LeChocolatState, viewer: int | None, ended: str | None = None
) -> str:
    """What ``viewer`` (None: a spectator) may see; ``ended`` (an illegal move ended the
    game) is said in place of who is to act."""
    names = game.components.flavors
    view = "spectator" if viewer is None else f"player_{viewer}"
    lines = [f"Le Chocolat ({view}'s view) - {card_text(game, s)}"]
    box = names[s.box_flavor] if s.box_up else "a blank face"
    lines.append(f"boxed tile shows {box}")
    lines += grid_lines(game, s, viewer)
    lines += [hand_text(game, s, seat, viewer) for seat in (0, 1)]
    if ended:
        lines.append(f"game over: {ended}")
    elif s.phase == OVER:
        scores = game.scores(s)
        lines.append(
            f"game over: scores {scores[0]:g} - {scores[1]:g}, tiles claimed "
            f"{s.claimed[0]} - {s.claimed[1]}"
        )
    else:
        step = "claim a chunk of 3 or fewer tiles" if s.phase == CLAIM else "split a chunk"
        lines.append(f"player_{s.player} to {step}")
    return "\n".join(lines)


# ---------------------------------------------------------------- the view (web page)
# Le Chocolat as the page draws it: the 7x5 grid of two-sided tiles, the chunks
# outlined, the scoring card, the boxed tile and each player's claimed tiles.
#
# A tile shows its face-up side to everyone. Its other side (``back``) is in the view only
# when the viewer knows it: its flavor side is up (the back is blank), it is the viewer's own
# claimed tile ("you may secretly look at the hidden side of your tiles"), or the game is
# over (every tile is flipped for scoring; the boxed tile too).

BLANK = "blank"


def flavor_name(game: LeChocolatRules, flavor: int) -> str:
    return game.components.flavors[flavor] if flavor >= 0 else BLANK


def tile(
    game: LeChocolatRules, s: LeChocolatState, cell: int, viewer: int | None
) -> dict[str, Any]:
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


def scoring_card(game: LeChocolatRules, s: LeChocolatState) -> dict[str, Any]:
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


def hand(
    game: LeChocolatRules, s: LeChocolatState, seat: int, viewer: int | None
) -> dict[str, Any]:
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


def view(game: LeChocolatRules, state: LeChocolatState, seat: int | None) -> dict[str, Any]:
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


def target(game: LeChocolatRules, state: LeChocolatState, action: int) -> dict[str, Any] | None:
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
