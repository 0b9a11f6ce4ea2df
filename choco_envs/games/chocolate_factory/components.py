"""Component data of Chocolate Factory (seed 001): varieties, dice, package supply.

The rulebook names the nine varieties, their tiers and tier point ranges (Bronze 3-4,
Silver 7-8, Gold 14-15), the ingredient counts per tier (2-3, 3-4, 4-5), the six
ingredients with their machines and the six special ingredients. It prints no recipe, no
quantities, no special per variety and no package supply table: those are **authored** by
this project (see ``DEFAULT_COMPONENTS`` and docs/games/chocolate_factory.md) and can be
replaced by a player's own data with the ``components=`` option (a dict of the same shape,
or the path of a JSON file holding one), validated by :func:`load_components`.

Authored choices: more ingredients earn the higher value of the tier (the rulings in docs/games/chocolate_factory.md);
quantities are set so that points per pick are comparable across tiers (checked with bots,
numbers in the docs).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from choco_envs.core.errors import ConfigError
from choco_envs.core.files import MAX_COMPONENTS_BYTES, read_json_file

#: ingredients, in die-face order; machine i processes ingredient i
INGREDIENTS = ("cocoa", "milk", "sugar", "nuts", "butter", "fruit")
INGREDIENTS_DE = ("Kakaobohnen", "Milch", "Zucker", "Nüsse", "Kakaobutter", "Früchte")
MACHINES = ("roaster", "kettle", "sugar_mill", "nutcracker", "tempering", "drying_oven")
MACHINES_DE = (
    "Röstofen",
    "Rührkessel",
    "Zuckermühle",
    "Nussknacker",
    "Temperiermaschine",
    "Dörrofen",
)
SPECIALS = ("vanilla", "chili", "sea_salt", "caramel", "mint", "coffee")
#: quantity die faces: 1..5 and the star joker (face index 5)
QUANTITY_FACES = ("1", "2", "3", "4", "5", "joker")
JOKER_FILL = 6
TIERS = ("bronze", "silver", "gold")
TIER_POINTS = ((3, 4), (7, 8), (14, 15))
TIER_INGREDIENTS = ((2, 3), (3, 4), (4, 5))
#: bonus per own bar in a full package, by tier (+2 Bronze, +3 Silver, +4 Gold)
PACKAGE_BONUS = (2, 3, 4)
REFINE_BONUS = 2
PACKAGE_SIZE = 4
#: variety names in the rulebook's order (the observation and action tables use it)
VARIETY_NAMES = (
    "milk",
    "strawberry_milk",
    "dark",
    "white_hazelnut",
    "truffle",
    "nougat",
    "fruit_pralines",
    "chocolate_cake",
    "gold_bar",
)
VARIETY_TIERS = (0, 0, 0, 0, 1, 1, 1, 2, 2)
LENGTHS = ("short", "long")
LENGTH_ROLLS = {"short": 48, "long": 72}
MIN_PLAYERS, MAX_PLAYERS = 2, 6

#: The authored set. Quantities 1-6; specials from SPECIALS.
DEFAULT_COMPONENTS: dict[str, Any] = {
    "varieties": [
        {"name": "milk", "german": "Vollmilch", "tier": "bronze", "points": 3,
         "special": "vanilla", "recipe": {"cocoa": 6, "milk": 6}},
        {"name": "strawberry_milk", "german": "Erdbeer-Milch", "tier": "bronze", "points": 4,
         "special": "mint", "recipe": {"milk": 5, "fruit": 5, "sugar": 5}},
        {"name": "dark", "german": "Zartbitter", "tier": "bronze", "points": 3,
         "special": "chili", "recipe": {"cocoa": 6, "sugar": 6}},
        {"name": "white_hazelnut", "german": "Weiße Haselnuss", "tier": "bronze", "points": 4,
         "special": "caramel", "recipe": {"butter": 5, "milk": 5, "nuts": 5}},
        {"name": "truffle", "german": "Trüffel", "tier": "silver", "points": 7,
         "special": "coffee", "recipe": {"cocoa": 2, "butter": 2, "milk": 2}},
        {"name": "nougat", "german": "Nougat", "tier": "silver", "points": 8,
         "special": "vanilla", "recipe": {"nuts": 2, "sugar": 2, "cocoa": 2, "milk": 1}},
        {"name": "fruit_pralines", "german": "Fruchtpralinen", "tier": "silver", "points": 7,
         "special": "sea_salt", "recipe": {"fruit": 2, "cocoa": 2, "sugar": 2}},
        {"name": "chocolate_cake", "german": "Schokoladentorte", "tier": "gold", "points": 14,
         "special": "coffee", "recipe": {"cocoa": 5, "milk": 5, "sugar": 4, "butter": 4}},
        {"name": "gold_bar", "german": "Schoko-Goldbarren", "tier": "gold", "points": 15,
         "special": "sea_salt",
         "recipe": {"cocoa": 4, "butter": 4, "sugar": 4, "nuts": 4, "milk": 4}},
    ],
    # packages in the whole game (the players + 2 open at the start included)
    "packages": {
        "short": {"2": 5, "3": 6, "4": 7, "5": 8, "6": 9},
        "long": {"2": 6, "3": 8, "4": 9, "5": 11, "6": 12},
    },
}  # fmt: skip


@dataclass(frozen=True)
class Variety:
    """One chocolate variety: its recipe as quantities per ingredient (0 = not used)."""

    index: int
    name: str
    german: str
    tier: int
    points: int
    special: int
    quantities: tuple[int, ...]

    @property
    def ingredient_mask(self) -> int:
        """Bit i set when ingredient i is in the recipe."""
        return sum(1 << i for i, q in enumerate(self.quantities) if q)

    @property
    def machine_mask(self) -> int:
        """Bits of the machines the variety needs (none for Bronze)."""
        return self.ingredient_mask if self.tier > 0 else 0


@dataclass(frozen=True)
class Components:
    """Validated component data."""

    varieties: tuple[Variety, ...]
    packages: dict[str, dict[int, int]]

    def package_total(self, length: str, num_players: int) -> int:
        return self.packages[length][num_players]


def _fail(where: str, value: Any, allowed: str) -> ConfigError:
    return ConfigError(f"components: {where}={value!r} is not allowed; allowed: {allowed}")


def _parse_variety(index: int, d: Any) -> Variety:
    where = f"varieties[{index}]"
    if not isinstance(d, Mapping):
        raise _fail(where, d, "an object with name, tier, points, special, recipe")
    name = d.get("name")
    if name != VARIETY_NAMES[index]:
        raise _fail(f"{where}.name", name, f"{VARIETY_NAMES[index]!r} (the rulebook's order)")
    tier_name = d.get("tier")
    tier = VARIETY_TIERS[index]
    if tier_name != TIERS[tier]:
        raise _fail(f"{where}.tier", tier_name, repr(TIERS[tier]))
    recipe = d.get("recipe")
    if not isinstance(recipe, Mapping):
        raise _fail(f"{where}.recipe", recipe, "an object ingredient -> quantity")
    quantities = [0] * len(INGREDIENTS)
    for ingredient, qty in recipe.items():
        if ingredient not in INGREDIENTS:
            raise _fail(f"{where}.recipe ingredient", ingredient, ", ".join(INGREDIENTS))
        if isinstance(qty, bool) or not isinstance(qty, int) or not 1 <= qty <= 6:
            raise _fail(f"{where}.recipe[{ingredient!r}]", qty, "an int 1..6")
        quantities[INGREDIENTS.index(ingredient)] = qty
    lo, hi = TIER_INGREDIENTS[tier]
    if not lo <= len(recipe) <= hi:
        raise _fail(
            f"{where}.recipe size", len(recipe), f"{lo}..{hi} ingredients for {TIERS[tier]}"
        )
    points = d.get("points")
    plo, phi = TIER_POINTS[tier]
    if isinstance(points, bool) or not isinstance(points, int) or not plo <= points <= phi:
        raise _fail(f"{where}.points", points, f"an int {plo}..{phi} for {TIERS[tier]}")
    special = d.get("special")
    if special not in SPECIALS:
        raise _fail(f"{where}.special", special, ", ".join(SPECIALS))
    german = d.get("german", name)
    if not isinstance(german, str):
        raise _fail(f"{where}.german", german, "a string")
    return Variety(index, name, german, tier, points, SPECIALS.index(special), tuple(quantities))


def _parse_packages(d: Any) -> dict[str, dict[int, int]]:
    if not isinstance(d, Mapping) or set(d) != set(LENGTHS):
        raise _fail("packages", d, "an object with keys 'short' and 'long'")
    table: dict[str, dict[int, int]] = {}
    for length in LENGTHS:
        row = d[length]
        keys = {str(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
        if not isinstance(row, Mapping) or {str(k) for k in row} != keys:
            raise _fail(f"packages.{length}", row, f"an object with keys {sorted(keys)}")
        table[length] = {}
        for key, count in row.items():
            n = int(key)
            if isinstance(count, bool) or not isinstance(count, int) or count < n + 2:
                raise _fail(f"packages.{length}[{key}]", count, f"an int >= {n + 2} (players + 2)")
            table[length][n] = count
    return table


def load_components(source: str | Path | Mapping[str, Any] | None = None) -> Components:
    """Validate component data: None (the authored set), a dict, or a JSON file path."""
    if source is None:
        source = DEFAULT_COMPONENTS
    if isinstance(source, (str, Path)):
        source = read_json_file(source, "components file", MAX_COMPONENTS_BYTES, ConfigError)
    if not isinstance(source, Mapping):
        raise _fail("components", source, "None, a dict or a JSON file path")
    unknown = set(source) - {"varieties", "packages"}
    if unknown:
        raise _fail("key", sorted(unknown)[0], "'varieties', 'packages'")
    varieties = source.get("varieties")
    if not isinstance(varieties, list) or len(varieties) != len(VARIETY_NAMES):
        raise _fail("varieties", varieties, f"a list of the {len(VARIETY_NAMES)} varieties")
    parsed = tuple(_parse_variety(i, v) for i, v in enumerate(varieties))
    return Components(parsed, _parse_packages(source.get("packages")))


def check_components(value: Any) -> str | None:
    """For the ``components`` option: an error text, or None when the data is valid."""
    try:
        load_components(value)
    except ConfigError as err:
        return str(err)
    return None
