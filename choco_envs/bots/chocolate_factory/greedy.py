"""A greedy beginner for Chocolate Factory, written from the rules.

It takes the pair that delivers (completes) the most, finishing a variety first; places
machines (and hires the master) where a station needs them; takes a special where it
refines a variety; rerolls as the roller only when nothing helps; passes when nothing
helps. It packs into the fullest package of the bar's variety and refills a freed station
with the variety of best points per estimated pick. Everything is public, so the state it
receives (a determinized copy) is all it needs.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from choco_envs.games.chocolate_factory import components as cp
from choco_envs.games.chocolate_factory.rules import (
    CHOOSE,
    CHOOSE_VARIETY,
    JOKER,
    MASTER,
    PACK,
    PACK_BAR,
    PASS,
    REROLL,
    SPECIAL,
    ChocolateFactoryRules,
    FactoryState,
    decode_pair,
    decode_station_action,
    delivered,
)

#: machine dice are scarce (one to three a roll): a machine is counted as this many picks
MACHINE_PICKS = 1.5
#: rolls a station waits, on average, for each pick it gets (see finish_chance)
ROLLS_PER_PICK = 2.5


def greedy_action(
    game: ChocolateFactoryRules, state: FactoryState, rng: random.Random, tier: int | None = None
) -> int:
    """The greedy action of the seat to act. ``tier`` (0..2) restricts new varieties to one
    tier (used to check that no tier dominates); None chooses freely."""
    legal = game.legal_actions(state)
    if len(legal) == 1:
        return legal[0]
    player = game.current_player(state)
    masters = [a for a in legal if MASTER <= a < PASS]
    if masters:  # the master is worth more than any pick: hired at once, at any step
        return _best(masters, lambda a: _pick_value(game, state, player, a), rng)
    if state.phase == PACK_BAR:
        return _best(legal, lambda a: state.pkg_fill[a - PACK], rng)
    if state.phase == CHOOSE_VARIETY:
        allowed = [a for a in legal if tier is None or game.tier[a - CHOOSE] == tier]
        return _best(allowed, lambda a: variety_value(game, state, a - CHOOSE), rng)
    return _best(legal, lambda a: _pick_value(game, state, player, a), rng)


def _best(actions: list[int], value: Callable[[int], float], rng: random.Random) -> int:
    scored = [(value(a), a) for a in actions]
    top = max(v for v, _ in scored)
    best = [a for v, a in scored if v == top]
    return best[int(rng.random() * len(best))]


def _pair_picks(most: int = 6) -> tuple[float, ...]:
    """Expected pairs to deliver q of one ingredient (index q), when a pair's quantity must
    fit what is missing: the faces that fit (1..min(q, 5) and the joker, which fills up
    to 6) are taken as they come, each equally likely."""
    table = [0.0]
    for q in range(1, most + 1):
        fits = [q - f for f in range(1, min(q, 5) + 1)] + [max(q - cp.JOKER_FILL, 0)]
        table.append(1.0 + sum(table[r] for r in fits) / len(fits))
    return tuple(table)


#: expected pairs per quantity 0..6 (1.0, 1.33, 1.58, 1.78, 1.95, 2.28 for 1..6)
PAIR_PICKS = _pair_picks()


def estimated_picks(game: ChocolateFactoryRules, variety: int) -> float:
    """Picks a variety needs on average: pairs per ingredient plus its machines."""
    pairs = sum(PAIR_PICKS[q] for q in game.quantities[variety])
    machines = bin(game.machine_mask[variety]).count("1")
    return pairs + MACHINE_PICKS * machines


def variety_value(game: ChocolateFactoryRules, state: FactoryState, variety: int) -> float:
    """Points (with the package bonus) per estimated pick, a little more when an open
    package of that variety already waits for bars, and less for a variety unlikely to be
    finished in the shift time left (it scores nothing unfinished)."""
    tier = game.tier[variety]
    points: float = game.points[variety]
    if game.packages_on:
        points += cp.PACKAGE_BONUS[tier] * 0.5
        if variety in state.pkg_variety:
            points += cp.PACKAGE_BONUS[tier] * 0.5
    picks = estimated_picks(game, variety)
    return points / picks * finish_chance(picks, state.time_left)


def finish_chance(picks: float, rolls_left: int) -> float:
    """A rough chance that a new variety needing ``picks`` is done in ``rolls_left`` rolls:
    a station gets about one pick in ``ROLLS_PER_PICK`` rolls (the seat shares its pick
    among its stations and the dice it needs are not always there)."""
    needed = ROLLS_PER_PICK * picks
    return 1.0 if rolls_left >= needed else (rolls_left / needed) ** 2


def _pick_value(game: ChocolateFactoryRules, s: FactoryState, player: int, a: int) -> float:
    if a == PASS:
        return 0.5 if s.apps[player] < game.max_apps else 0.1
    if a == REROLL:  # the roller rerolls when nothing helps, keeping one application
        return 0.6 if s.apps[player] >= 2 else 0.3
    kind, st, face = decode_station_action(a)
    k = player * 4 + st
    remaining, open_machines = game.left_to_finish(s, k)
    near = 1.0 / (1 + remaining + 2 * open_machines)  # prefer stations close to done
    if kind == "pair":
        ingredient, q = decode_pair(face)
        got = delivered(q, s.missing[k * 6 + ingredient])
        waste = 6 - got if q == JOKER else 0
        finishes = got == remaining and open_machines == 0
        return 2.0 + got - 0.3 * waste + near + (10.0 if finishes else 0.0)
    if a < SPECIAL:
        finishes = remaining == 0 and open_machines == 1
        return 5.0 + near + (10.0 if finishes else 0.0)
    if a < MASTER:
        return 2.5 + near
    finishes = remaining == 0 and open_machines == 1
    return 20.0 + near + (10.0 if finishes else 0.0)


__all__ = ["estimated_picks", "finish_chance", "greedy_action", "variety_value"]
