"""Component data of Chocolates (seed 004): 21 chocolates and 29 prediction cards.

* The **prediction cards** are printed in the rulebook ("Explanation of the Prediction
  Cards") with both point values; :data:`PREDICTION_CARDS` copies them exactly, in the
  rulebook's order (card id = position in that list). What each predicts (its predicate)
  is a rule: :mod:`choco_envs.games.chocolates.rules`.
* The **chocolates** are partly authored: the rulebook prints only the totals (7 round,
  7 triangular, 7 hexagonal; 6 dark, 5 brown, 4 white, 3 green, 2 pink, 1 gold), not which
  type has which shape. The shipped crossing is the one in the rulings in docs/games/chocolates.md:
  dark R2 T2 H2, brown R2 T2 H1, white R1 T1 H2, green R1 T1 H1, pink R1 T1, gold H1.
  A player who owns the physical game passes their own with the ``components=`` option
  (a dict or the path of a JSON file, see :func:`load_components`).

A chocolate is stored as a *kind*: ``type * 3 + shape`` (0..17); chocolates of the same
kind are indistinguishable. A game holds what it loaded as ``game.components``
(:class:`Components`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from choco_envs.core.errors import ConfigError
from choco_envs.core.files import MAX_COMPONENTS_BYTES, read_json_file

TYPES: tuple[str, ...] = ("dark", "brown", "white", "green", "pink", "gold")
SHAPES: tuple[str, ...] = ("round", "triangular", "hexagonal")
NUM_TYPES = len(TYPES)
NUM_SHAPES = len(SHAPES)
NUM_KINDS = NUM_TYPES * NUM_SHAPES

#: printed totals ("Game Contents")
TYPE_COUNTS: dict[str, int] = {
    "dark": 6,
    "brown": 5,
    "white": 4,
    "green": 3,
    "pink": 2,
    "gold": 1,
}
SHAPE_COUNTS: dict[str, int] = {"round": 7, "triangular": 7, "hexagonal": 7}
NUM_CHOCOLATES = 21
GRID_CELLS = 16
BESIDE_CELLS = 5
NOUGAT_SUPPLY = 24

#: the shipped (authored) crossing of type and shape, from the rulings in docs/games/chocolates.md
DEFAULT_CHOCOLATES: dict[str, dict[str, int]] = {
    "dark": {"round": 2, "triangular": 2, "hexagonal": 2},
    "brown": {"round": 2, "triangular": 2, "hexagonal": 1},
    "white": {"round": 1, "triangular": 1, "hexagonal": 2},
    "green": {"round": 1, "triangular": 1, "hexagonal": 1},
    "pink": {"round": 1, "triangular": 1},
    "gold": {"hexagonal": 1},
}


def kind_of(type_name: str, shape_name: str) -> int:
    """The kind code of a chocolate, ``type * 3 + shape``."""
    return TYPES.index(type_name) * NUM_SHAPES + SHAPES.index(shape_name)


def kind_name(kind: int) -> str:
    """``"dark round"`` for kind 0."""
    return f"{TYPES[kind // NUM_SHAPES]} {SHAPES[kind % NUM_SHAPES]}"


@dataclass(frozen=True)
class PredictionCard:
    """One printed prediction card: front ("true", green) and back ("false", red) points.

    The two values always add up to 10 ("The sum of the points on the front and back
    always equals 10!")."""

    id: int
    text: str
    true_points: int
    false_points: int

    def points(self, side_false: int) -> int:
        """Points of the chosen side (0: true side up, 1: false side up)."""
        return self.false_points if side_false else self.true_points


_CARD_LIST: tuple[tuple[str, int, int], ...] = (
    ("Exactly 1 golden chocolate in the grid.", 2, 8),
    ("Exactly 2 green chocolates in the grid.", 5, 5),
    ("Exactly 3 white chocolates in the grid.", 5, 5),
    ("Exactly 2 pink chocolates in the outer area of the grid.", 7, 3),
    ("Exactly 3 dark chocolates in the outer area of the grid.", 7, 3),
    ("Exactly 4 round chocolates in the outer area of the grid.", 6, 4),
    (
        "The exact same number of triangular as hexagonal chocolates in the outer area of "
        "the grid.",
        8,
        2,
    ),
    ("The exact same number of brown chocolates in the left and right sides of the grid.", 8, 2),
    ("More dark chocolates in the left side of the grid than the right side.", 6, 4),
    ("More triangular chocolates in the left side of the grid than the right side.", 6, 4),
    ("More round than triangular chocolates in the grid.", 6, 4),
    ("More brown than white chocolates in the left side of the grid.", 6, 4),
    ("More green than pink chocolates in the right side of the grid.", 6, 4),
    ("At least 1 instance of adjacent pink and green chocolates in the grid.", 4, 6),
    ("At least 2 adjacent brown chocolates in the grid.", 4, 6),
    ("At least 3 adjacent dark chocolates in the grid.", 6, 4),
    ("At least 4 adjacent round chocolates in the grid.", 7, 3),
    ("At least 4 adjacent triangular chocolates in the grid.", 7, 3),
    ("At least 4 adjacent hexagonal chocolates in the grid.", 7, 3),
    ("At least 3 hexagonal chocolates in one of the rows or columns in the grid.", 5, 5),
    ("At least 3 chocolates of the same type in one of the rows or columns in the grid.", 5, 5),
    (
        "At least 1 white, 1 green, and 1 pink chocolate in one of the rows or columns in the "
        "grid.",
        6,
        4,
    ),
    ("At least 2 adjacent white chocolates in one of the rows or columns in the grid.", 5, 5),
    ("At least 2 dark chocolates connected in a diagonal line in the grid.", 4, 6),
    (
        "Exactly 4 chocolates of 4 different types connected in a diagonal line in the grid.",
        6,
        4,
    ),
    ("At least 2 triangular chocolates in the four corners of the grid.", 6, 4),
    ("At least 2 round chocolates in the four corners of the grid.", 6, 4),
    ("Exactly 4 chocolates of 4 different types in the four corners of the grid.", 7, 3),
    ("At least 4 different types of chocolates next to the grid.", 4, 6),
)

#: the 29 printed prediction cards, id = rulebook order
PREDICTION_CARDS: tuple[PredictionCard, ...] = tuple(
    PredictionCard(i, text, t, f) for i, (text, t, f) in enumerate(_CARD_LIST)
)
NUM_CARDS = len(PREDICTION_CARDS)


@dataclass(frozen=True)
class Components:
    """The component data of one game: the 21 chocolates (sorted kind codes) and the 29
    printed prediction cards."""

    chocolates: tuple[int, ...]
    cards: tuple[PredictionCard, ...] = PREDICTION_CARDS

    def kind_totals(self) -> list[int]:
        """How many chocolates of each kind (0..17) the set holds."""
        totals = [0] * NUM_KINDS
        for kind in self.chocolates:
            totals[kind] += 1
        return totals


def default_kinds() -> list[int]:
    """The 21 shipped chocolates as kind codes, sorted."""
    kinds: list[int] = []
    for type_name, shapes in DEFAULT_CHOCOLATES.items():
        for shape_name, count in shapes.items():
            kinds += [kind_of(type_name, shape_name)] * count
    return sorted(kinds)


def load_components(source: str | Path | Mapping[str, Any] | None) -> Components:
    """The component data, with the 21 chocolates from ``source``.

    ``source`` is None (the shipped, authored set), a dict
    ``{"chocolates": {"dark": {"round": 2, ...}, ...}}`` (type -> shape -> count), or the
    path of a JSON file holding that dict. The counts must match the printed totals
    (``TYPE_COUNTS``, ``SHAPE_COUNTS``); anything else raises :class:`ConfigError` naming
    the bad value and what is allowed.
    """
    return Components(tuple(_load_chocolates(source)))


def _load_chocolates(source: str | Path | Mapping[str, Any] | None) -> list[int]:
    """The 21 chocolates of ``source`` (see :func:`load_components`) as sorted kinds."""
    if source is None:
        return default_kinds()
    if isinstance(source, (str, Path)):
        source = _read_json(Path(source))
    if not isinstance(source, Mapping):
        raise ConfigError(
            f"components={source!r} is not allowed; allowed: None, a dict "
            "{'chocolates': {type: {shape: count}}} or the path of a JSON file holding one"
        )
    unknown = sorted(set(source) - {"chocolates"})
    if unknown or "chocolates" not in source:
        raise ConfigError(
            f"components: keys {sorted(source)} are not allowed; the one allowed key is "
            "'chocolates'"
        )
    return _kinds_from_table(source["chocolates"])


def _read_json(path: Path) -> Any:
    return read_json_file(path, "components file", MAX_COMPONENTS_BYTES, ConfigError)


def _kinds_from_table(table: Any) -> list[int]:
    if not isinstance(table, Mapping):
        raise ConfigError(
            f"components: 'chocolates' must map type -> shape -> count, got {table!r}"
        )
    kinds: list[int] = []
    for type_name, shapes in table.items():
        if type_name not in TYPES:
            raise ConfigError(
                f"components: chocolate type {type_name!r} is not allowed; allowed types: "
                f"{', '.join(TYPES)}"
            )
        if not isinstance(shapes, Mapping):
            raise ConfigError(
                f"components: chocolates[{type_name!r}] must map shape -> count, got {shapes!r}"
            )
        for shape_name, count in shapes.items():
            if shape_name not in SHAPES:
                raise ConfigError(
                    f"components: shape {shape_name!r} of {type_name} is not allowed; allowed "
                    f"shapes: {', '.join(SHAPES)}"
                )
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise ConfigError(
                    f"components: count {count!r} of {type_name} {shape_name} is not allowed; "
                    "allowed: an int >= 0"
                )
            kinds += [kind_of(type_name, shape_name)] * count
    _check_totals(kinds)
    return sorted(kinds)


def _check_totals(kinds: list[int]) -> None:
    by_type = Counter(TYPES[k // NUM_SHAPES] for k in kinds)
    by_shape = Counter(SHAPES[k % NUM_SHAPES] for k in kinds)
    for name, printed in TYPE_COUNTS.items():
        if by_type[name] != printed:
            raise ConfigError(
                f"components: {by_type[name]} {name} chocolates is not allowed; the rulebook "
                f"prints {printed} (types: {TYPE_COUNTS})"
            )
    for name, printed in SHAPE_COUNTS.items():
        if by_shape[name] != printed:
            raise ConfigError(
                f"components: {by_shape[name]} {name} chocolates is not allowed; the rulebook "
                f"prints {printed} (shapes: {SHAPE_COUNTS})"
            )


def check_components_option(value: Any) -> str | None:
    """``Option.check`` for ``components``: the error text, or None when valid."""
    try:
        load_components(value)
    except ConfigError as err:
        return str(err)
    return None
