"""A sensible beginner for Chocolatiers, written from the rules.

It boxes the best tile it can afford (points less the cards it costs), takes the card
that brings a good tile closest to affordable, pays singly where it can and otherwise
with its most plentiful cards, places a tile where it grows its largest groups, places
a wild only where it grows a group by 2 or more (a wild kept is worth 1 point), and
discards its most plentiful type. It reads only its own hand and public information (and
receives a determinized state anyway).
"""

from __future__ import annotations

import random

from choco_envs.games.chocolatiers.derived import cards_needed as derived_cards_needed
from choco_envs.games.chocolatiers.derived import placement_score, wild_gains
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
    ChocolatiersGame,
    State,
)


def greedy_action(game: ChocolatiersGame, state: State, rng: random.Random) -> int:
    """The greedy choice of the seat to act in ``state``."""
    legal = game.legal_actions(state)
    if len(legal) == 1:
        return legal[0]
    phase = state.phase
    if phase == CHOOSE:
        return _choose(game, state, legal, rng)
    if phase == TAKE_MORE:
        return _best_take(game, state, legal)
    if phase == PAY:
        return _best_payment(state, legal)
    if phase == PLACE_TILE:
        return _best_placement(game, state, legal)
    if phase == DISCARD_DOWN:
        return _most_plentiful(state, legal, DISCARD)
    return rng.choice(legal)


def cards_needed(hand: list[int], base: int, cost: list[int]) -> tuple[int, int]:
    """(cards a cheapest payment uses, cards still missing to afford it), for the hand
    at ``hand[base:base + 6]`` (``derived.cards_needed``, shared with the observation)."""
    return derived_cards_needed(tuple(hand[base : base + NT]), cost)


def _tile_value(game: ChocolatiersGame, tile: int, used: int) -> float:
    return game.tile_points[tile] - 0.4 * used


def _choose(game: ChocolatiersGame, s: State, legal: list[int], rng: random.Random) -> int:
    p, base = s.player, s.player * NT
    boxes = [a for a in legal if BOX <= a <= BOX_RESERVED]
    if boxes:

        def box_value(a: int) -> float:
            tile = s.reserved[p] if a == BOX_RESERVED else s.display[a - BOX]
            return _tile_value(game, tile, cards_needed(s.hand, base, game.tile_cost[tile])[0])

        return max(boxes, key=box_value)
    wild, gain = _best_wild(s, legal)
    late = s.first >= 0 or s.ntiles[p] >= 5
    if wild >= 0 and (gain >= 2 or (late and gain >= 1)):
        return wild
    takes = [a for a in legal if a < GIVE]
    if takes:
        return _best_take(game, s, takes)
    if PASS in legal and len(legal) > 1 and game.classic:
        return PASS  # classic bonus phase: skip rather than waste a wild
    others = [a for a in legal if a != PASS]
    return rng.choice(others) if others else PASS


def _targets(s: State) -> list[int]:
    tiles = [t for t in s.display if t >= 0]
    if s.reserved[s.player] >= 0:
        tiles.append(s.reserved[s.player])
    return tiles


def _best_take(game: ChocolatiersGame, s: State, legal: list[int]) -> int:
    """The card that brings the best tile closest to affordable."""
    base = s.player * NT
    hand = s.hand
    best, best_value = legal[0], float("-inf")
    for a in legal:
        if a >= GIVE:
            continue
        hand[base + a] += 1
        value = float("-inf")
        for tile in _targets(s):
            used, missing = cards_needed(hand, base, game.tile_cost[tile])
            value = max(value, _tile_value(game, tile, used) - 2.5 * missing)
        hand[base + a] -= 1
        if value > best_value:
            best, best_value = a, value
    return best


def _best_payment(s: State, legal: list[int]) -> int:
    if PAY_ONE in legal:
        return PAY_ONE
    return _most_plentiful(s, legal, PAY_TWO)


def _most_plentiful(s: State, legal: list[int], offset: int) -> int:
    base = s.player * NT
    return max(legal, key=lambda a: s.hand[base + a - offset])


def _best_placement(game: ChocolatiersGame, s: State, legal: list[int]) -> int:
    """Where the tile grows the largest groups most (sum of squared group sizes)."""
    cells = s.cells[s.player * 36 : s.player * 36 + 36]
    best, best_value = legal[0], -1
    for a in legal:
        value = placement_score(game, cells, s.pending, a - PLACE)
        if value > best_value:
            best, best_value = a, value
    return best


def _best_wild(s: State, legal: list[int]) -> tuple[int, int]:
    """(wild action, growth of the most-grown group), or (-1, 0)."""
    wilds = [a for a in legal if PLACE_WILD <= a < PLACE_WILD + 36]
    if not wilds:
        return -1, 0
    gains = wild_gains(s.cells[s.player * 36 : s.player * 36 + 36])
    best, best_gain = -1, 0
    for a in wilds:
        gain = gains[a - PLACE_WILD]
        if gain > best_gain:
            best, best_gain = a, gain
    return best, best_gain
