"""The text of Chocolate Factory: what every seat sees (all of it is public) and the
legend of its codes. The Factory's board is not drawn on the web page: the page shows
this text, cut into labelled blocks."""

from __future__ import annotations

from choco_envs.games.chocolate_factory import components as cp
from choco_envs.games.chocolate_factory.rules import (
    CLOSED,
    DI,
    DM,
    DS,
    EMPTY,
    PHASE_NAMES,
    STATIONS,
    ChocolateFactoryRules,
    FactoryState,
)

HELP = """Chocolate Factory board codes:
  phase        pick (take dice), pack (fill a package), variety (choose a new recipe)
  roller       the seat who rolled this round's dice; 'shift time left' counts the rolls left
  dice         each die face with (xN) the number showing it, by die colour: quantity,
               ingredient, machine, special
  station k    one of a player's 4 stations: its variety (tier), 'missing' ingredient/needed,
               machines (+ placed, - still needed), the special die placed or open
  applications master applications held / the maximum; 'masters hired' counts hires
  packages      the shared packages: variety fill/4 and who put how many chocolates in
"""


def state_to_string(
    game: ChocolateFactoryRules, s: FactoryState, player: int | None, ended: str | None = None
) -> str:
    """Everything is public, so every seat sees the same text. ``ended`` (an illegal-move
    ending, from the env) is said in place of who is to act; so is the natural end."""
    n = game.num_players
    d = s.dice
    if ended is not None:
        status = f"game over: {ended}"
    elif game.is_over(s):
        status = "game over"
    else:
        status = f"to act: player_{game.current_player(s)}"
    lines = [
        f"Chocolate Factory, {n} players, phase {PHASE_NAMES[s.phase]}, roller "
        f"player_{s.roller}, {status}, shift time left {s.time_left} rolls",
        "dice: quantity "
        + " ".join(f"{cp.QUANTITY_FACES[q]}(x{d[q]})" for q in range(6) if d[q])
        + " | ingredient "
        + " ".join(f"{cp.INGREDIENTS[i]}(x{d[DI + i]})" for i in range(6) if d[DI + i])
        + " | machine "
        + " ".join(f"{cp.MACHINES[m]}(x{d[DM + m]})" for m in range(6) if d[DM + m])
        + " | special "
        + " ".join(f"{cp.SPECIALS[x]}(x{d[DS + x]})" for x in range(6) if d[DS + x]),
    ]
    for p in range(n):
        score = game.scores(s)[p]
        lines.append(
            f"player_{p}: {score:g} points, {s.finished[p]} finished, applications "
            f"{s.apps[p]}/{game.max_apps}, masters hired {s.masters[p]}, storage "
            f"{s.storage[p]}"
        )
        for st in range(STATIONS):
            lines.append("  " + _station_text(game, s, p * 4 + st, st))
    if game.packages_on:
        lines.append(f"packages: {s.supply_left} in supply, {s.packages_filled} filled")
        for k in range(game.slots):
            lines.append("  " + _package_text(game, s, k))
    return "\n".join(lines)


def _station_text(game: ChocolateFactoryRules, s: FactoryState, k: int, st: int) -> str:
    v = s.variety[k]
    if v < 0:
        return f"station {st}: free (variety to choose)"
    var = game.varieties[v]
    missing = ", ".join(
        f"{cp.INGREDIENTS[i]} {s.missing[k * 6 + i]}/{var.quantities[i]}"
        for i in range(6)
        if var.quantities[i]
    )
    machines = " ".join(
        cp.MACHINES[m] + ("+" if s.placed[k] >> m & 1 else "-")
        for m in range(6)
        if game.machine_mask[v] >> m & 1
    )
    special = cp.SPECIALS[var.special] + (" placed" if s.special[k] else " open")
    return (
        f"station {st}: {var.name} ({cp.TIERS[var.tier]}) missing {missing}; "
        f"machines {machines or 'none'}; special {special}"
    )


def _package_text(game: ChocolateFactoryRules, s: FactoryState, k: int) -> str:
    v = s.pkg_variety[k]
    if v == CLOSED:
        return f"package {k}: full, none left to open"
    if v == EMPTY:
        return f"package {k}: empty"
    n = game.num_players
    owners = ", ".join(
        f"player_{p} x{s.pkg_owners[k * n + p]}" for p in range(n) if s.pkg_owners[k * n + p]
    )
    return f"package {k}: {game.varieties[v].name} {s.pkg_fill[k]}/4 ({owners})"
