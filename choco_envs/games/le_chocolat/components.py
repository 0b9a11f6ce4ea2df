"""Le Chocolat component data: the 36 two-sided chocolate tiles and the 10 scoring cards.

The rulebook (seed 002) prints neither the tile faces nor the cards, so **everything here is
authored by the project** (the rulings, docs/games/le_chocolat.md, "Le Chocolat"): six flavors on 30 tiles in
uneven numbers (raspberry 7, almond 6, cashew 5, pistachio 4, orange 4, macadamia 4), each
with a blank back, and 6 tiles blank on both sides. Card 0 is the rulebook's example card.

A player who owns the physical game passes their own data with the ``components=`` option:
a dict (or the path of a JSON file holding one) of the same shape as :data:`DEFAULT_COMPONENTS`::

    {"tiles": {"almond": 6, ..., "blank": 6},
     "cards": [{"name": "...", "each": {"almond": 1}, "sets": [{"flavors": ["orange",
                "macadamia"], "vp": 3}], "majority": {"raspberry": 5}}, ...]}

``tiles`` maps each flavor to the number of flavor/blank tiles and ``"blank"`` to the number
of blank/blank tiles (36 in all). On every card each flavor appears exactly once: under
``each`` (VP per tile, may be negative), in one set of ``sets`` (VP per complete set of one
tile of each linked flavor) or under ``majority`` (VP for strictly the most tiles).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from choco_envs.core.errors import ConfigError
from choco_envs.core.files import MAX_COMPONENTS_BYTES, read_json_file

#: tiles in the box; one goes back unseen and 35 fill the grid
TOTAL_TILES = 36
#: the name of blank/blank tiles in a ``tiles`` table
BLANK = "blank"
MAX_FLAVORS = 8
#: bounds of card values (they scale the observation)
MAX_EACH_VP = 10
MAX_SET_VP = 20
MAX_MAJORITY_VP = 20

DEFAULT_COMPONENTS: dict[str, Any] = {
    "tiles": {
        "almond": 6,
        "cashew": 5,
        "pistachio": 4,
        "orange": 4,
        "macadamia": 4,
        "raspberry": 7,
        BLANK: 6,
    },
    "cards": [
        {
            "name": "rulebook example",
            "each": {"almond": 1, "cashew": 2, "pistachio": -2},
            "sets": [{"flavors": ["orange", "macadamia"], "vp": 3}],
            "majority": {"raspberry": 5},
        },
        {
            "name": "nut lover",
            "each": {"almond": 2, "cashew": 2, "pistachio": 1, "orange": -1, "macadamia": -1},
            "sets": [],
            "majority": {"raspberry": 4},
        },
        {
            "name": "fruit basket",
            "each": {"almond": 1, "macadamia": -2},
            "sets": [{"flavors": ["orange", "raspberry"], "vp": 4}],
            "majority": {"cashew": 4, "pistachio": 4},
        },
        {
            "name": "trio",
            "each": {"orange": 1, "macadamia": 1, "raspberry": -1},
            "sets": [{"flavors": ["almond", "cashew", "pistachio"], "vp": 6}],
            "majority": {},
        },
        {
            "name": "majorities",
            "each": {"raspberry": 1},
            "sets": [],
            "majority": {"almond": 3, "cashew": 3, "pistachio": 4, "orange": 4, "macadamia": 4},
        },
        {
            "name": "pairs",
            "each": {},
            "sets": [
                {"flavors": ["almond", "cashew"], "vp": 3},
                {"flavors": ["pistachio", "orange"], "vp": 4},
                {"flavors": ["macadamia", "raspberry"], "vp": 4},
            ],
            "majority": {},
        },
        {
            "name": "bitter raspberry",
            "each": {"raspberry": -2, "almond": 1, "cashew": 1, "pistachio": 2},
            "sets": [{"flavors": ["orange", "macadamia"], "vp": 5}],
            "majority": {},
        },
        {
            "name": "sweet tooth",
            "each": {"raspberry": 2, "orange": 2, "almond": -1},
            "sets": [{"flavors": ["pistachio", "macadamia"], "vp": 3}],
            "majority": {"cashew": 5},
        },
        {
            "name": "mixed bag",
            "each": {"cashew": 1, "pistachio": -1, "raspberry": 1},
            "sets": [{"flavors": ["almond", "orange"], "vp": 3}],
            "majority": {"macadamia": 5},
        },
        {
            "name": "connoisseur",
            "each": {"almond": 3, "cashew": -1, "pistachio": -1},
            "sets": [{"flavors": ["orange", "macadamia", "raspberry"], "vp": 7}],
            "majority": {},
        },
    ],
}


@dataclass(frozen=True)
class ScoringCard:
    """One scoring card, compiled to flavor indices.

    ``each[f]`` is the VP per tile of flavor ``f`` (0 when ``f`` scores otherwise);
    ``sets`` are (flavor indices, VP per complete set); ``majority`` are (flavor, VP).
    ``per_tile`` repeats the nonzero entries of ``each`` as (flavor, VP), the terms
    scoring sums (search bots score hands hundreds of thousands of times a game).
    """

    name: str
    each: tuple[int, ...]
    sets: tuple[tuple[tuple[int, ...], int], ...]
    majority: tuple[tuple[int, int], ...]
    per_tile: tuple[tuple[int, int], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        nonzero = tuple((f, vp) for f, vp in enumerate(self.each) if vp)
        object.__setattr__(self, "per_tile", nonzero)


@dataclass(frozen=True)
class Components:
    """The validated tile set and scoring cards."""

    flavors: tuple[str, ...]
    #: number of flavor/blank tiles per flavor
    flavor_counts: tuple[int, ...]
    #: number of blank/blank tiles
    blank_blank: int
    cards: tuple[ScoringCard, ...]

    @property
    def card_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.cards)

    def tile_flavors(self) -> list[int]:
        """The 36 tiles as flavor indices, -1 for blank/blank, in a fixed order."""
        tiles = [f for f, n in enumerate(self.flavor_counts) for _ in range(n)]
        return tiles + [-1] * self.blank_blank


def load_components(source: Any = None) -> Components:
    """Validate and compile component data: None (the authored set), a dict, or the path
    of a JSON file. Raises ConfigError naming the bad value and what is allowed."""
    if source is None:
        data: Any = DEFAULT_COMPONENTS
    elif isinstance(source, (str, Path)):
        data = read_json_file(source, "components file", MAX_COMPONENTS_BYTES, ConfigError)
    else:
        data = source
    if not isinstance(data, Mapping) or set(data) != {"tiles", "cards"}:
        keys = sorted(data) if isinstance(data, Mapping) else type(data).__name__
        raise ConfigError(f"components must be an object with keys 'tiles' and 'cards', got {keys}")
    flavors, counts, blanks = _load_tiles(data["tiles"])
    cards = data["cards"]
    if not isinstance(cards, list) or not cards:
        raise ConfigError(f"components 'cards' must be a non-empty list, got {cards!r}")
    compiled = tuple(_load_card(c, i, flavors) for i, c in enumerate(cards))
    names = [c.name for c in compiled]
    if len(set(names)) != len(names):
        raise ConfigError(f"components 'cards': card names must differ, got {names}")
    return Components(flavors, counts, blanks, compiled)


def _load_tiles(tiles: Any) -> tuple[tuple[str, ...], tuple[int, ...], int]:
    if not isinstance(tiles, Mapping) or BLANK not in tiles:
        raise ConfigError(
            f"components 'tiles' must map flavor names and {BLANK!r} to counts, got {tiles!r}"
        )
    for name, n in tiles.items():
        if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z_]*", name):
            raise ConfigError(f"components 'tiles': flavor name {name!r} must be lowercase letters")
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ConfigError(f"components 'tiles'[{name!r}] = {n!r}; allowed: an int >= 0")
    flavors = tuple(k for k in tiles if k != BLANK)
    if not 1 <= len(flavors) <= MAX_FLAVORS:
        raise ConfigError(
            f"components 'tiles' names {len(flavors)} flavors; allowed: 1..{MAX_FLAVORS}"
        )
    total = sum(tiles.values())
    if total != TOTAL_TILES:
        raise ConfigError(
            f"components 'tiles' count {total} tiles; the game has exactly {TOTAL_TILES}"
        )
    return flavors, tuple(tiles[f] for f in flavors), tiles[BLANK]


def _load_card(card: Any, index: int, flavors: tuple[str, ...]) -> ScoringCard:
    where = f"components 'cards'[{index}]"
    if not isinstance(card, Mapping) or set(card) != {"name", "each", "sets", "majority"}:
        raise ConfigError(f"{where} must have keys name, each, sets, majority; got {card!r}")
    name = card["name"]
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"{where}.name = {name!r}; allowed: a non-empty string")
    seen: list[str] = []
    each = [0] * len(flavors)
    for flavor, vp in _flavor_values(
        card["each"], f"{where}.each", flavors, -MAX_EACH_VP, MAX_EACH_VP
    ):
        each[flavors.index(flavor)] = vp
        seen.append(flavor)
    sets = []
    if not isinstance(card["sets"], list):
        raise ConfigError(f"{where}.sets = {card['sets']!r}; allowed: a list of sets")
    for j, chained in enumerate(card["sets"]):
        members, vp = _load_set(chained, f"{where}.sets[{j}]", flavors)
        sets.append((tuple(flavors.index(f) for f in members), vp))
        seen.extend(members)
    majority = []
    for flavor, vp in _flavor_values(
        card["majority"], f"{where}.majority", flavors, 1, MAX_MAJORITY_VP
    ):
        majority.append((flavors.index(flavor), vp))
        seen.append(flavor)
    if sorted(seen) != sorted(flavors):
        missing = sorted(set(flavors) - set(seen))
        twice = sorted({f for f in seen if seen.count(f) > 1})
        raise ConfigError(
            f"{where} ({name!r}) must score every flavor exactly once; missing {missing}, "
            f"more than once {twice}"
        )
    return ScoringCard(name, tuple(each), tuple(sets), tuple(majority))


def _flavor_values(
    table: Any, where: str, flavors: tuple[str, ...], low: int, high: int
) -> list[tuple[str, int]]:
    if not isinstance(table, Mapping):
        raise ConfigError(f"{where} = {table!r}; allowed: an object flavor -> VP")
    out = []
    for flavor, vp in table.items():
        if flavor not in flavors:
            raise ConfigError(f"{where}: unknown flavor {flavor!r}; allowed: {', '.join(flavors)}")
        if isinstance(vp, bool) or not isinstance(vp, int) or not low <= vp <= high:
            raise ConfigError(f"{where}[{flavor!r}] = {vp!r}; allowed: an int in {low}..{high}")
        out.append((flavor, vp))
    return out


def _load_set(chained: Any, where: str, flavors: tuple[str, ...]) -> tuple[list[str], int]:
    if not isinstance(chained, Mapping) or set(chained) != {"flavors", "vp"}:
        raise ConfigError(f"{where} must have keys flavors, vp; got {chained!r}")
    members, vp = chained["flavors"], chained["vp"]
    if not isinstance(members, list) or len(members) < 2 or len(set(members)) != len(members):
        raise ConfigError(f"{where}.flavors = {members!r}; allowed: 2 or more different flavors")
    for flavor in members:
        if flavor not in flavors:
            raise ConfigError(f"{where}: unknown flavor {flavor!r}; allowed: {', '.join(flavors)}")
    if isinstance(vp, bool) or not isinstance(vp, int) or not 1 <= vp <= MAX_SET_VP:
        raise ConfigError(f"{where}.vp = {vp!r}; allowed: an int in 1..{MAX_SET_VP}")
    return list(members), vp


def check_components_option(value: Any) -> str | None:
    """The ``components`` option's check: None, or data that loads."""
    try:
        load_components(value)
    except ConfigError as err:
        return str(err)
    return None
