"""Le Chocolat as text: the grid as one seat (or a spectator) sees it (action names are
the rules' own, ``LeChocolatRules.action_to_string``).

Each cell shows the face the viewer knows: a flavor's short name in capitals when it is
face up, in lower case when it is the viewer's own tile whose flavor side is down (or any
tile at the end), ``..`` for a blank face whose back the viewer does not know, ``--`` for a
known blank/blank tile; claimed tiles are marked with ``0``/``1`` (the claiming seat) and
chunks are separated by ``|`` and ``-``.
"""

from __future__ import annotations

from choco_envs.games.le_chocolat import grid
from choco_envs.games.le_chocolat.components import ScoringCard
from choco_envs.games.le_chocolat.rules import CLAIM, OVER, LeChocolatRules, LeChocolatState


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


def state_to_string(game: LeChocolatRules, s: LeChocolatState, viewer: int | None) -> str:
    """What ``viewer`` (None: a spectator) may see."""
    names = game.components.flavors
    view = "spectator" if viewer is None else f"player_{viewer}"
    lines = [f"Le Chocolat ({view}'s view) - {card_text(game, s)}"]
    box = names[s.box_flavor] if s.box_up else "a blank face"
    lines.append(f"boxed tile shows {box}")
    lines += grid_lines(game, s, viewer)
    lines += [hand_text(game, s, seat, viewer) for seat in (0, 1)]
    if s.phase == OVER:
        scores = game.scores(s)
        lines.append(
            f"game over: scores {scores[0]:g} - {scores[1]:g}, tiles claimed "
            f"{s.claimed[0]} - {s.claimed[1]}"
        )
    else:
        step = "claim a chunk of 3 or fewer tiles" if s.phase == CLAIM else "split a chunk"
        lines.append(f"player_{s.player} to {step}")
    return "\n".join(lines)
