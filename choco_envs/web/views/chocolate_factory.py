"""Chocolate Factory as the page draws it: the roll (the dice left, grouped by kind, and
who rolled them), each player's four stations (variety, tier, each ingredient's progress,
the machines the recipe needs and those placed, the special ingredient), applications and
the master, finished bars and storage, the packages and the supply, the shift time left,
and the varieties a freed station may take.

Everything in this game is public (``determinize`` is a copy): every seat and the
spectator see the same view. Names and action ids are the rules' own (``rules.py``,
``decode_station_action``; the components' names).
"""

from __future__ import annotations

from typing import Any

from choco_envs.games.chocolate_factory import components as cp
from choco_envs.games.chocolate_factory.rules import (
    CHOOSE,
    CLOSED,
    DI,
    DM,
    DQ,
    DS,
    EMPTY,
    PACK,
    PASS,
    PHASE_NAMES,
    REROLL,
    STATIONS,
    ChocolateFactoryRules,
    FactoryState,
    decode_station_action,
)


def variety(game: ChocolateFactoryRules, v: int) -> dict[str, Any]:
    var = game.varieties[v]
    return {
        "index": v,
        "name": var.name,
        "german": var.german,
        "tier": cp.TIERS[var.tier],
        "points": var.points,
        "special": cp.SPECIALS[var.special],
        "recipe": {cp.INGREDIENTS[i]: q for i, q in enumerate(var.quantities) if q},
        "machines": [cp.MACHINES[m] for m in range(6) if game.machine_mask[v] >> m & 1],
    }


def station(game: ChocolateFactoryRules, s: FactoryState, p: int, st: int) -> dict[str, Any]:
    k = p * 4 + st
    v = s.variety[k]
    if v < 0:
        return {"station": st, "variety": None}
    var = game.varieties[v]
    return {
        "station": st,
        "variety": var.name,
        "tier": cp.TIERS[var.tier],
        "points": var.points,
        "ingredients": [
            {
                "ingredient": cp.INGREDIENTS[i],
                "needed": var.quantities[i],
                "missing": s.missing[k * 6 + i],
            }
            for i in range(6)
            if var.quantities[i]
        ],
        "machines": [
            {
                "machine": cp.MACHINES[m],
                "ingredient": cp.INGREDIENTS[m],
                "placed": bool(s.placed[k] >> m & 1),
            }
            for m in range(6)
            if game.machine_mask[v] >> m & 1
        ],
        "special": cp.SPECIALS[var.special],
        "special_placed": bool(s.special[k]),
    }


def dice(s: FactoryState) -> dict[str, list[dict[str, Any]]]:
    """The dice left in the roll, per kind: each face showing and how many show it."""
    d = s.dice
    return {
        "quantity": [
            {"face": cp.QUANTITY_FACES[q], "count": d[DQ + q]} for q in range(6) if d[DQ + q]
        ],
        "ingredient": [
            {"face": cp.INGREDIENTS[i], "count": d[DI + i]} for i in range(6) if d[DI + i]
        ],
        "machine": [{"face": cp.MACHINES[m], "count": d[DM + m]} for m in range(6) if d[DM + m]],
        "special": [{"face": cp.SPECIALS[x], "count": d[DS + x]} for x in range(6) if d[DS + x]],
    }


def package(game: ChocolateFactoryRules, s: FactoryState, k: int) -> dict[str, Any]:
    n = game.num_players
    v = s.pkg_variety[k]
    state = "closed" if v == CLOSED else "empty" if v == EMPTY else "open"
    return {
        "slot": k,
        "state": state,
        "variety": game.varieties[v].name if v >= 0 else None,
        "tier": cp.TIERS[game.tier[v]] if v >= 0 else None,
        "fill": s.pkg_fill[k],
        "owners": [s.pkg_owners[k * n + p] for p in range(n)],
    }


def view(game: ChocolateFactoryRules, state: FactoryState, seat: int | None) -> dict[str, Any]:
    s = state
    n = game.num_players
    over = game.is_over(s)
    scores = game.scores(s)
    players = []
    for p in range(n):
        players.append(
            {
                "seat": p,
                "score": scores[p],
                "variety_points": s.variety_points[p],
                "refine_points": s.refine_points[p],
                "bonus_points": s.bonus_points[p],
                "finished": s.finished[p],
                "storage": s.storage[p],
                "apps": s.apps[p],
                "masters": s.masters[p],
                "stations": [station(game, s, p, st) for st in range(STATIONS)],
            }
        )
    out: dict[str, Any] = {
        "board": "chocolate_factory",
        "env_id": game.spec.env_id,
        "viewer": seat,
        "num_players": n,
        "over": over,
        "to_act": None if over else game.current_player(s),
        "phase": PHASE_NAMES[s.phase],
        "roller": s.roller,
        "time_left": s.time_left,
        "total_rolls": game.total_rolls,
        "max_apps": game.max_apps,
        "dice": dice(s),
        "players": players,
        "packages_on": game.packages_on,
        "packages": [package(game, s, k) for k in range(game.slots)] if game.packages_on else [],
        "supply_left": s.supply_left,
        "packages_filled": s.packages_filled,
        "package_size": cp.PACKAGE_SIZE,
        "package_bonus": dict(zip(cp.TIERS, cp.PACKAGE_BONUS, strict=True)),
        "refine_bonus": cp.REFINE_BONUS,
        "varieties": [variety(game, v) for v in range(len(game.varieties))],
    }
    if s.pending_variety >= 0:
        out["pending"] = {
            "variety": game.varieties[s.pending_variety].name,
            "station": s.pending_station,
        }
    return out


def target(game: ChocolateFactoryRules, state: FactoryState, action: int) -> dict[str, Any] | None:
    """Where a legal move is made: a die pair (quantity face, ingredient) or a machine or
    special die, then a station; the master as a machine of a station; a package; a
    variety; the pass and reroll buttons."""
    a = int(action)
    if a == PASS:
        return {"kind": "pass"}
    if a == REROLL:
        return {"kind": "reroll"}
    if a >= CHOOSE:
        return {"kind": "variety", "variety": game.varieties[a - CHOOSE].name}
    if a >= PACK:
        return {"kind": "pack", "package": a - PACK}
    kind, st, face = decode_station_action(a)
    if kind == "pair":
        ingredient, q = divmod(face, 6)
        return {
            "kind": "pair",
            "station": st,
            "quantity": cp.QUANTITY_FACES[q],
            "ingredient": cp.INGREDIENTS[ingredient],
        }
    if kind == "special":
        return {"kind": "special", "station": st, "special": cp.SPECIALS[face]}
    return {"kind": kind, "station": st, "machine": cp.MACHINES[face]}
