"""A sensible beginner for Chocolatiers, written from the rules.

It boxes the best tile it can afford (points less the cards it costs), takes the card
that brings a good tile closest to affordable, pays singly where it can and otherwise
with its most plentiful cards, places a tile where it grows its largest groups, places
a wild only where it grows a group by 2 or more (a wild kept is worth 1 point), and
discards its most plentiful type. It reads only its own hand and public information (and
receives a determinized state anyway).

Settings (``OPTIONS``; ``greedy:key=value`` in a bot spec; plain ``greedy`` is the baseline
above): ``used_cost`` and ``missing_cost`` are the points a card used and a card missing
cost when valuing a tile (0.4 and 2.5); ``contest`` and ``wild_contest`` weigh, when
choosing where a tile or a wild goes, how the placement changes the Score tiles the seat
would win or lose against the other Samplers (0: ignored, as in the baseline). The
settings found by ``training/chocolatiers_greedy_tuning.py`` are named ``STRONG``.
"""

from __future__ import annotations

import random

from choco_envs.games.chocolatiers.derived import (
    MISSING_COST,
    USED_COST,
    placement_score,
    wild_gains,
)
from choco_envs.games.chocolatiers.derived import cards_needed as derived_cards_needed
from choco_envs.games.chocolatiers.derived import score_tile_lead as derived_score_tile_lead
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
    SLOT_SPACES,
    TAKE_MORE,
    WILD,
    ChocolatiersGame,
    State,
    largest_groups,
)

#: the baseline's weights (also those of the ``derived`` observation)
BASELINE = {
    "used_cost": USED_COST,
    "missing_cost": MISSING_COST,
    "contest": 0.0,
    "wild_contest": 0.0,
}
#: the tuned settings (``training/chocolatiers_greedy_tuning.py``)
STRONG = {"used_cost": 1.2, "missing_cost": 2.5, "contest": 10.0, "wild_contest": 1.0}


def _weight(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number; allowed: a number >= 0") from None
    if not value >= 0.0 or value == float("inf"):
        raise ValueError(f"{text!r} is not allowed; allowed: a finite number >= 0")
    return value


OPTIONS = {
    "used_cost": (
        _weight,
        "points a card used costs when valuing a tile, a number >= 0 (baseline 0.4)",
    ),
    "missing_cost": (_weight, "points a card still missing costs, a number >= 0 (baseline 2.5)"),
    "contest": (
        _weight,
        "weight of the Score tiles won or lost where a tile goes, a number >= 0 (baseline 0)",
    ),
    "wild_contest": (
        _weight,
        "weight of the Score tiles won or lost where a wild goes, a number >= 0 (baseline 0)",
    ),
}


def greedy_action(
    game: ChocolatiersGame,
    state: State,
    rng: random.Random,
    used_cost: float = USED_COST,
    missing_cost: float = MISSING_COST,
    contest: float = 0.0,
    wild_contest: float = 0.0,
) -> int:
    """The greedy choice of the seat to act in ``state`` (settings: the module doc)."""
    for name, value in (
        ("used_cost", used_cost),
        ("missing_cost", missing_cost),
        ("contest", contest),
        ("wild_contest", wild_contest),
    ):
        if not 0.0 <= value < float("inf"):
            raise ValueError(f"{name}={value!r} is not allowed; allowed: a finite number >= 0")
    if state.over:
        raise ValueError("greedy_action: the game is over, nobody is to act")
    legal = game.legal_actions(state)
    if len(legal) == 1:
        return legal[0]
    w = _Weights(used_cost, missing_cost, contest, wild_contest)
    phase = state.phase
    if phase == CHOOSE:
        return _choose(game, state, legal, rng, w)
    if phase == TAKE_MORE:
        return _best_take(game, state, legal, w)
    if phase == PAY:
        return _best_payment(state, legal)
    if phase == PLACE_TILE:
        return _best_placement(game, state, legal, w)
    if phase == DISCARD_DOWN:
        return _most_plentiful(state, legal, DISCARD)
    return rng.choice(legal)


def cards_needed(hand: list[int], base: int, cost: list[int]) -> tuple[int, int]:
    """(cards a cheapest payment uses, cards still missing to afford it), for the hand
    at ``hand[base:base + 6]`` (``derived.cards_needed``, shared with the observation)."""
    return derived_cards_needed(tuple(hand[base : base + NT]), cost)


class _Weights:
    __slots__ = ("used", "missing", "contest", "wild_contest")

    def __init__(self, used: float, missing: float, contest: float, wild_contest: float):
        self.used, self.missing = used, missing
        self.contest, self.wild_contest = contest, wild_contest


_BASELINE_WEIGHTS = _Weights(USED_COST, MISSING_COST, 0.0, 0.0)


def _tile_value(
    game: ChocolatiersGame, tile: int, used: int, w: _Weights = _BASELINE_WEIGHTS
) -> float:
    return game.tile_points[tile] - w.used * used


def score_tile_lead(game: ChocolatiersGame, s: State, seat: int, groups: list[int]) -> float:
    """Points of the type Score tiles ``seat`` would win, less those a single other seat
    would win, if its largest groups were ``groups`` and the others' stayed as they are."""
    n = game.num_players
    others = tuple(tuple(s.groups[q * NT : q * NT + NT]) for q in range(n) if q != seat)
    return derived_score_tile_lead(game.type_score, groups, others)


def _choose(
    game: ChocolatiersGame, s: State, legal: list[int], rng: random.Random, w: _Weights
) -> int:
    p, base = s.player, s.player * NT
    boxes = [a for a in legal if BOX <= a <= BOX_RESERVED]
    if boxes:

        def box_value(a: int) -> float:
            tile = s.reserved[p] if a == BOX_RESERVED else s.display[a - BOX]
            used = cards_needed(s.hand, base, game.tile_cost[tile])[0]
            return _tile_value(game, tile, used, w)

        return max(boxes, key=box_value)
    wild, gain = _best_wild(game, s, legal, w)
    late = s.first >= 0 or s.ntiles[p] >= 5
    if wild >= 0 and (gain >= 2 or (late and gain >= 1)):
        return wild
    takes = [a for a in legal if a < GIVE]
    if takes:
        return _best_take(game, s, takes, w)
    if PASS in legal and len(legal) > 1 and game.classic:
        return PASS  # classic bonus phase: skip rather than waste a wild
    others = [a for a in legal if a != PASS]
    return rng.choice(others) if others else PASS


def _targets(s: State) -> list[int]:
    tiles = [t for t in s.display if t >= 0]
    if s.reserved[s.player] >= 0:
        tiles.append(s.reserved[s.player])
    return tiles


def _best_take(
    game: ChocolatiersGame, s: State, legal: list[int], w: _Weights = _BASELINE_WEIGHTS
) -> int:
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
            value = max(value, _tile_value(game, tile, used, w) - w.missing * missing)
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


def _best_placement(
    game: ChocolatiersGame, s: State, legal: list[int], w: _Weights = _BASELINE_WEIGHTS
) -> int:
    """Where the tile grows the largest groups most (sum of squared group sizes), plus
    ``contest`` x the Score tiles that placement wins or loses."""
    p = s.player
    cells = s.cells[p * 36 : p * 36 + 36]
    best, best_value = legal[0], float("-inf")
    for a in legal:
        if w.contest:
            trial = _with_tile(game, cells, s.pending, a - PLACE)
            groups = largest_groups(trial)
            value = sum(g * g for g in groups) + w.contest * score_tile_lead(game, s, p, groups)
        else:
            value = placement_score(game, cells, s.pending, a - PLACE)
        if value > best_value:
            best, best_value = a, value
    return best


def _with_tile(game: ChocolatiersGame, cells: list[int], tile: int, code: int) -> list[int]:
    slot, rot = divmod(code, 4)
    trial = list(cells)
    for space, v in zip(SLOT_SPACES[slot], game.rotated[tile][rot], strict=True):
        trial[space] = v
    return trial


def _best_wild(
    game: ChocolatiersGame, s: State, legal: list[int], w: _Weights = _BASELINE_WEIGHTS
) -> tuple[int, int]:
    """(wild action, growth of the most-grown group), or (-1, 0). Among the spaces that
    grow a group, the most growth plus ``wild_contest`` x the Score tiles it changes."""
    wilds = [a for a in legal if PLACE_WILD <= a < PLACE_WILD + 36]
    if not wilds:
        return -1, 0
    p = s.player
    cells = s.cells[p * 36 : p * 36 + 36]
    gains = wild_gains(cells)
    now = score_tile_lead(game, s, p, s.groups[p * NT : p * NT + NT]) if w.wild_contest else 0.0
    best, best_gain, best_value = -1, 0, 0.0
    for a in wilds:
        gain = gains[a - PLACE_WILD]
        if gain <= 0:
            continue
        value = float(gain)
        if w.wild_contest:
            trial = list(cells)
            trial[a - PLACE_WILD] = WILD
            value += w.wild_contest * (score_tile_lead(game, s, p, largest_groups(trial)) - now)
        if best < 0 or value > best_value:
            best, best_gain, best_value = a, gain, value
    return best, best_gain
