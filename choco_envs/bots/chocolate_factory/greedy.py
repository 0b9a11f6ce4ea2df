"""A greedy beginner for Chocolate Factory, written from the rules.

It takes the pair that delivers (completes) the most, finishing a variety first; places
machines (and hires the master) where a station needs them; takes a special where it
refines a variety; rerolls as the roller only when nothing helps; passes when nothing
helps. It packs into the fullest package of the bar's variety and refills a freed station
with the variety of best points per estimated pick. Everything is public, so the state it
receives (a determinized copy) is all it needs.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from choco_envs.games.chocolate_factory import components as cp
from choco_envs.games.chocolate_factory.rules import (
    CHOOSE,
    CHOOSE_VARIETY,
    MACHINE,
    MASTER,
    PACK,
    PACK_BAR,
    PASS,
    REROLL,
    SPECIAL,
    ChocolateFactoryRules,
    FactoryState,
)

#: expected amount delivered by one pair (faces 1..5 and a joker worth up to 6)
MEAN_PAIR = 3.5
#: machine dice are scarce: a machine is counted as this many picks when estimating
MACHINE_PICKS = 2.0


def greedy_action(
    game: ChocolateFactoryRules, state: FactoryState, rng: random.Random, tier: int | None = None
) -> int:
    """The greedy action of the seat to act. ``tier`` (0..2) restricts new varieties to one
    tier (used to check that no tier dominates); None chooses freely."""
    legal = game.legal_actions(state)
    if len(legal) == 1:
        return legal[0]
    if state.phase == PACK_BAR:
        return _best(legal, lambda a: state.pkg_fill[a - PACK], rng)
    if state.phase == CHOOSE_VARIETY:
        allowed = [a for a in legal if tier is None or game.tier[a - CHOOSE] == tier]
        return _best(allowed, lambda a: variety_value(game, state, a - CHOOSE), rng)
    player = game.current_player(state)
    return _best(legal, lambda a: _pick_value(game, state, player, a), rng)


def _best(actions: list[int], value: Callable[[int], float], rng: random.Random) -> int:
    scored = [(value(a), a) for a in actions]
    top = max(v for v, _ in scored)
    best = [a for v, a in scored if v == top]
    return best[int(rng.random() * len(best))]


def estimated_picks(game: ChocolateFactoryRules, variety: int) -> float:
    """Picks a variety needs on average: pairs per ingredient plus its machines."""
    quantities = game.quantities[variety]
    pairs = sum(math.ceil(q / MEAN_PAIR) for q in quantities if q)
    machines = bin(game.machine_mask[variety]).count("1")
    return pairs + MACHINE_PICKS * machines


def variety_value(game: ChocolateFactoryRules, state: FactoryState, variety: int) -> float:
    """Points (with the package bonus) per estimated pick, a little more when an open
    package of that variety already waits for bars."""
    tier = game.tier[variety]
    points: float = game.points[variety]
    if game.packages_on:
        points += cp.PACKAGE_BONUS[tier] * 0.5
        if variety in state.pkg_variety:
            points += cp.PACKAGE_BONUS[tier] * 0.5
    return points / estimated_picks(game, variety)


def _pick_value(game: ChocolateFactoryRules, s: FactoryState, player: int, a: int) -> float:
    if a == PASS:
        return 0.5 if s.apps[player] < game.max_apps else 0.1
    if a == REROLL:  # the roller rerolls when nothing helps, keeping one application
        return 0.6 if s.apps[player] >= 2 else 0.3
    st = (a // 36) if a < MACHINE else ((a - MACHINE) % 24) // 6
    k = player * 4 + st
    remaining = sum(s.missing[k * 6 : k * 6 + 6])
    open_machines = bin(game.machine_mask[s.variety[k]] & ~s.placed[k]).count("1")
    near = 1.0 / (1 + remaining + 2 * open_machines)  # prefer stations close to done
    if a < MACHINE:
        ingredient, q = divmod(a % 36, 6)
        miss = s.missing[k * 6 + ingredient]
        delivered = min(cp.JOKER_FILL, miss) if q == 5 else q + 1
        waste = 6 - delivered if q == 5 else 0
        finishes = delivered == remaining and open_machines == 0
        return 2.0 + delivered - 0.3 * waste + near + (10.0 if finishes else 0.0)
    if a < SPECIAL:
        finishes = remaining == 0 and open_machines == 1
        return 5.0 + near + (10.0 if finishes else 0.0)
    if a < MASTER:
        return 2.5 + near
    finishes = remaining == 0 and open_machines == 1
    return 20.0 + near + (10.0 if finishes else 0.0)


__all__ = ["estimated_picks", "greedy_action", "variety_value"]
