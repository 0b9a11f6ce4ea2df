"""A sensible beginner for Chocolatiers, written from the rules (and calling them).

It boxes the best tile it can afford (points less the cards a cheapest payment uses),
takes the card that brings a good tile closest to affordable, pays singly where it can and
otherwise with its most plentiful cards, places a tile where it grows its largest groups,
places a wild only where it grows a group by 2 or more (a wild kept is worth 1 point), and
discards its most plentiful type. It reads only its own hand and public information (and
receives a determinized state anyway).

Settings (``OPTIONS``; ``greedy:key=value`` in a bot spec; plain ``greedy`` is the baseline
above): ``used_cost`` and ``missing_cost`` are the points a card used and a card missing
cost when valuing a tile (0.4 and 2.5); ``contest`` and ``wild_contest`` weigh, when
choosing where a tile or a wild goes, how the placement changes the Score tiles the seat
would win or lose against the other Samplers (0: ignored, as in the baseline);
``exchange`` lets it exchange (give a card, take two: the rulebooks' other way to take)
instead of taking one card, when the exchange, its two takes made as it takes, is worth
more than its best take less ``exchange`` points (``off``: never, as in the baseline).
The tuned settings (``TUNED``) are the ``tuned`` bot kind; ``EXPERT`` (tuned, a missing
card at 4 points, ``exchange=1``) is the ``expert`` kind.

Every rule it needs is the rules' own: ``cheapest_payment`` (paying), ``placed_cells``
(placing a tile), ``largest_groups`` / ``groups_with_a_wild`` (groups through wilds),
``single_best`` (the Score tile award).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from choco_envs.games.chocolatiers.rules import (
    BOX,
    BOX_RESERVED,
    CHOOSE,
    DISCARD,
    DISCARD_DOWN,
    GIVE,
    NT,
    PASS,
    PAY,
    PAY_ONE,
    PAY_TWO,
    PLACE,
    PLACE_TILE,
    PLACE_WILD,
    TAKE_MORE,
    ChocolatiersRules,
    ChocolatiersState,
    cheapest_payment,
    groups_with_a_wild,
    largest_groups,
    placed_cells,
    single_best,
)

#: the baseline's weights: a card used costs 0.4 points, a card missing 2.5
USED_COST = 0.4
MISSING_COST = 2.5
BASELINE: dict[str, float | None] = {
    "used_cost": USED_COST,
    "missing_cost": MISSING_COST,
    "contest": 0.0,
    "wild_contest": 0.0,
    "exchange": None,
}
#: the tuned settings (docs/games/chocolatiers.md, "Bots"): the ``tuned`` kind
TUNED = {"used_cost": 1.2, "missing_cost": 2.5, "contest": 10.0, "wild_contest": 1.0}


#: the expert settings: ``TUNED`` with a missing card at 4 points, exchanging (give one
#: card, take two) when that is worth at most 1 point less than the best take (the
#: ``expert`` kind; docs/games/chocolatiers.md, "Bots")
EXPERT: dict[str, float] = {**TUNED, "missing_cost": 4.0, "exchange": 1.0}


def weight(text: str) -> float:
    """A setting's value: a finite number >= 0 (ValueError naming what is allowed)."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number; allowed: a number >= 0") from None
    if not value >= 0.0 or value == float("inf"):
        raise ValueError(f"{text!r} is not allowed; allowed: a finite number >= 0")
    return value


def exchange_setting(text: str) -> float | None:
    """The ``exchange`` setting: ``off`` (never exchange, the baseline) or a finite number
    >= 0 (ValueError naming what is allowed)."""
    if text.strip().lower() == "off":
        return None
    try:
        return weight(text)
    except ValueError:
        raise ValueError(f"{text!r} is not allowed; allowed: off or a finite number >= 0") from None


OPTIONS = {
    "used_cost": "points a card used costs when valuing a tile, a number >= 0 (baseline 0.4)",
    "missing_cost": "points a card still missing costs, a number >= 0 (baseline 2.5)",
    "contest": "weight of the Score tiles won or lost where a tile goes, a number >= 0 (baseline 0)",
    "wild_contest": "weight of the Score tiles won or lost where a wild goes, a number >= 0 (baseline 0)",
    "exchange": "exchange (give a card, take two) when that is worth at most this many points "
    "less than the best take; off or a number >= 0 (baseline off)",
}


@dataclass(frozen=True)
class Weights:
    used: float = USED_COST
    missing: float = MISSING_COST
    contest: float = 0.0
    wild_contest: float = 0.0
    exchange: float | None = None


def greedy_action(
    game: ChocolatiersRules,
    state: ChocolatiersState,
    rng: random.Random,
    used_cost: float = USED_COST,
    missing_cost: float = MISSING_COST,
    contest: float = 0.0,
    wild_contest: float = 0.0,
    exchange: float | None = None,
) -> int:
    """The greedy choice of the seat to act in ``state`` (settings: the module doc)."""
    for name, value in (
        ("used_cost", used_cost),
        ("missing_cost", missing_cost),
        ("contest", contest),
        ("wild_contest", wild_contest),
        ("exchange", 0.0 if exchange is None else exchange),
    ):
        if not 0.0 <= value < float("inf"):
            raise ValueError(f"{name}={value!r} is not allowed; allowed: a finite number >= 0")
    if state.over:
        raise ValueError("greedy_action: the game is over, nobody is to act")
    legal = game.legal_actions(state)
    if len(legal) == 1:
        return legal[0]
    w = Weights(used_cost, missing_cost, contest, wild_contest, exchange)
    phase = state.phase
    if phase == CHOOSE:
        return _choose(game, state, legal, rng, w)
    if phase == TAKE_MORE:
        return best_take(game, state, legal, w)
    if phase == PAY:
        return _best_payment(state, legal)
    if phase == PLACE_TILE:
        return best_placement(game, state, legal, w)
    if phase == DISCARD_DOWN:
        return _most_plentiful(state, legal, DISCARD)
    return rng.choice(legal)


def tuned_action(game: ChocolatiersRules, state: ChocolatiersState, rng: random.Random) -> int:
    """The greedy choice with the tuned settings (``TUNED``)."""
    return greedy_action(game, state, rng, **TUNED)


def expert_action(game: ChocolatiersRules, state: ChocolatiersState, rng: random.Random) -> int:
    """The greedy choice with the expert settings (``EXPERT``)."""
    return greedy_action(game, state, rng, **EXPERT)


def cards_used(game: ChocolatiersRules, s: ChocolatiersState, tile: int) -> int:
    """Cards a cheapest payment of ``tile`` from the hand of the seat to act uses."""
    return cheapest_payment(s.hand, s.player * NT, game.tile_cost[tile])[0]


def score_tile_lead(
    game: ChocolatiersRules, s: ChocolatiersState, seat: int, groups: Sequence[int]
) -> float:
    """Points of the type Score tiles ``seat`` would win, less those a single other seat
    would win, if its largest groups were ``groups`` and the others' stayed as they are
    (the award is the rules' ``single_best``)."""
    n = game.num_players
    lead = 0.0
    for t in range(NT):
        values = [groups[t] if q == seat else s.groups[q * NT + t] for q in range(n)]
        winner = single_best(values)
        if winner == seat:
            lead += game.type_score[t]
        elif winner >= 0:
            lead -= game.type_score[t]
    return lead


def _choose(
    game: ChocolatiersRules, s: ChocolatiersState, legal: list[int], rng: random.Random, w: Weights
) -> int:
    p = s.player
    boxes = [a for a in legal if BOX <= a <= BOX_RESERVED]
    if boxes:

        def box_value(a: int) -> float:
            tile = s.reserved[p] if a == BOX_RESERVED else s.display[a - BOX]
            return game.tile_points[tile] - w.used * cards_used(game, s, tile)

        return max(boxes, key=box_value)
    wild, gain = best_wild(game, s, legal, w)
    late = s.first >= 0 or s.ntiles[p] >= 5
    if wild >= 0 and (gain >= 2 or (late and gain >= 1)):
        return wild
    takes = [a for a in legal if a < GIVE]
    if takes:
        take = best_take(game, s, takes, w)
        if w.exchange is not None:
            give = best_exchange(game, s, legal, rng, w, take)
            if give >= 0:
                return give
        return take
    if PASS in legal and len(legal) > 1 and game.classic:
        return PASS  # classic bonus phase: skip rather than waste a wild
    others = [a for a in legal if a != PASS]
    return rng.choice(others) if others else PASS


def _targets(s: ChocolatiersState) -> list[int]:
    tiles = [t for t in s.display if t >= 0]
    if s.reserved[s.player] >= 0:
        tiles.append(s.reserved[s.player])
    return tiles


def best_take(
    game: ChocolatiersRules, s: ChocolatiersState, legal: list[int], w: Weights = Weights()
) -> int:
    """The card that brings the best tile closest to affordable: the most "points -
    used x cards used - missing x cards missing" over the tiles on offer (and its own
    reserved one) once that card is in hand."""
    base = s.player * NT
    hand = s.hand[base : base + NT]
    best, best_value = legal[0], float("-inf")
    for a in legal:
        if a >= GIVE:
            continue
        hand[a] += 1
        value = hand_value(game, s, hand, w)
        hand[a] -= 1
        if value > best_value:
            best, best_value = a, value
    return best


def hand_value(
    game: ChocolatiersRules, s: ChocolatiersState, hand: Sequence[int], w: Weights
) -> float:
    """The most "points - used x cards used - missing x cards missing" over the tiles on
    offer (and the seat's reserved one) for ``hand`` (a count per type)."""
    value = float("-inf")
    for tile in _targets(s):
        used, missing = cheapest_payment(hand, 0, game.tile_cost[tile])
        value = max(value, game.tile_points[tile] - w.used * used - w.missing * missing)
    return value


def value_after_takes(
    game: ChocolatiersRules, s: ChocolatiersState, hand: list[int], tray: list[int], takes: int,
    w: Weights,
) -> float:  # fmt: skip
    """``hand_value`` once ``takes`` cards come from ``tray`` one at a time, each the one
    ``best_take`` would choose (the first type of the best value)."""
    hand, tray = hand[:], tray[:]
    for _ in range(takes):
        best, best_value = -1, float("-inf")
        for t in range(NT):
            if tray[t]:
                hand[t] += 1
                value = hand_value(game, s, hand, w)
                hand[t] -= 1
                if value > best_value:
                    best, best_value = t, value
        if best < 0:
            break
        hand[best] += 1
        tray[best] -= 1
    return hand_value(game, s, hand, w)


def best_exchange(
    game: ChocolatiersRules, s: ChocolatiersState, legal: list[int], rng: random.Random,
    w: Weights, take: int,
) -> int:  # fmt: skip
    """The exchange (give a card, take two) worth most once its two takes are made as
    ``best_take`` makes them, when that is worth more than the take ``take`` less
    ``w.exchange`` points; else -1. The card given leaves as the rules move it (a copy of
    the state, the rules' ``apply``: discarded in standard, laid on the tray in classic)."""
    assert w.exchange is not None
    base = s.player * NT
    hand = s.hand[base : base + NT]
    hand[take] += 1
    bar = hand_value(game, s, hand, w) - w.exchange
    hand[take] -= 1
    best = -1
    for a in legal:
        if not GIVE <= a < GIVE + NT:
            continue
        after = game.copy(s)
        game.apply(after, a, rng)
        value = value_after_takes(game, after, after.hand[base : base + NT], list(after.tray), 2, w)
        if value > bar:
            best, bar = a, value
    return best


def _best_payment(s: ChocolatiersState, legal: list[int]) -> int:
    if PAY_ONE in legal:
        return PAY_ONE
    return _most_plentiful(s, legal, PAY_TWO)


def _most_plentiful(s: ChocolatiersState, legal: list[int], offset: int) -> int:
    base = s.player * NT
    return max(legal, key=lambda a: s.hand[base + a - offset])


def groups_after_placing(game: ChocolatiersRules, s: ChocolatiersState, action: int) -> list[int]:
    """The placing seat's largest groups once the pending tile is put by ``action``."""
    p = s.player
    position, rot = divmod(action - PLACE, 4)
    cells, _ = placed_cells(
        s.cells[p * 36 : p * 36 + 36], s.occ[p], game.rotated[s.pending][rot], position
    )
    return largest_groups(cells)


def best_placement(
    game: ChocolatiersRules, s: ChocolatiersState, legal: list[int], w: Weights = Weights()
) -> int:
    """Where the tile grows the largest groups most (sum of squared group sizes), plus
    ``contest`` x the Score tiles that placement wins or loses."""
    p = s.player
    best, best_value = legal[0], float("-inf")
    for a in legal:
        groups = groups_after_placing(game, s, a)
        value = float(sum(g * g for g in groups))
        if w.contest:
            value += w.contest * score_tile_lead(game, s, p, groups)
        if value > best_value:
            best, best_value = a, value
    return best


def best_wild(
    game: ChocolatiersRules, s: ChocolatiersState, legal: list[int], w: Weights = Weights()
) -> tuple[int, int]:
    """(wild action, growth of the most-grown group), or (-1, 0). Among the spaces that
    grow a group, the most growth plus ``wild_contest`` x the Score tiles it changes."""
    wilds = [a for a in legal if PLACE_WILD <= a < PLACE_WILD + 36]
    if not wilds:
        return -1, 0
    p = s.player
    now = s.groups[p * NT : p * NT + NT]
    after = groups_with_a_wild(s.cells[p * 36 : p * 36 + 36])
    lead_now = score_tile_lead(game, s, p, now) if w.wild_contest else 0.0
    best, best_gain, best_value = -1, 0, 0.0
    for a in wilds:
        groups = after[a - PLACE_WILD]
        gain = max(g - n for g, n in zip(groups, now, strict=True))
        if gain <= 0:
            continue
        value = float(gain)
        if w.wild_contest:
            value += w.wild_contest * (score_tile_lead(game, s, p, groups) - lead_now)
        if best < 0 or value > best_value:
            best, best_gain, best_value = a, gain, value
    return best, best_gain
