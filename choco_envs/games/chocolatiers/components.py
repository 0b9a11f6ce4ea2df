"""Component data of Chocolatiers, both editions, validated on load.

The rulebooks give the counts (standard, seed 000: 51 cards, 36 box tiles, 8 Score tiles,
15 wilds; classic, seed 003: 39 cards, 30 box tiles, 7 Score cards, 12 wilds) but print
no faces. **Everything below that is not a count is authored by this project**
(the rulings in docs/games/chocolatiers.md, Chocolatiers):

* cards: the six types as even as the total allows (9/9/9/8/8/8 and 7/7/7/6/6/6);
* box tiles: 2x2 spaces, each a chocolate or empty, 3 or 4 chocolates per tile; points
  follow the cost and its variety: 3 chocolates of 1/2/3 types score 2/3/4, 4 chocolates
  of 1/2/3/4 types score 4/5/6/7 (so the points run 2..7, about 8 at most, and 14 of the
  36 standard tiles are worth 3 or 4);
* Score tiles: nut cluster 5, mint 4, violet 3 (as the rulebook's final scoring example
  requires), truffle 3, raspberry 4, blueberry 5, First 3 and (standard) most 3-or-4
  tiles 3.

A tile is written as four letters (top-left, top-right, bottom-left, bottom-right;
``T`` truffle, ``N`` nut cluster, ``R`` raspberry, ``M`` mint, ``B`` blueberry, ``V``
violet, ``.`` empty) and its points, e.g. ``"TV.V 4"``.

Owners of the physical game can pass their own data with the ``components=`` option: a
path to a JSON file or a dict of the shape returned by :func:`components_to_dict`
(``card_counts`` by type name, ``tiles`` as strings like above, ``score_tiles`` by name).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from choco_envs.core.errors import ConfigError, shown
from choco_envs.core.files import MAX_COMPONENTS_BYTES, read_json_file

#: the six chocolate types, in the order used everywhere (observations, actions)
TYPES: tuple[str, ...] = ("truffle", "nut_cluster", "raspberry", "mint", "blueberry", "violet")
#: one letter per type, for tiles and text renders
TYPE_LETTERS = "TNRMBV"
EDITIONS: tuple[str, ...] = ("standard", "classic")

#: counts printed by each rulebook
CARD_TOTAL = {"standard": 51, "classic": 39}
TILE_TOTAL = {"standard": 36, "classic": 30}
WILD_TOTAL = {"standard": 15, "classic": 12}
PLAYER_RANGE = {"standard": (2, 5), "classic": (2, 4)}
#: Score tiles each edition has, besides the six chocolate types
EXTRA_SCORE_TILES = {"standard": ("first", "three_or_four"), "classic": ("first",)}
MIN_POINTS, MAX_POINTS = 2, 8

STANDARD_TILES: tuple[str, ...] = (
    "MM.M 2", "NN.N 2", "T.RR 3", "B.VV 3", "BT.T 3", "VVR. 3",
    "MM.B 3", "RBT. 4", "BN.V 4", ".TNR 4", ".RNM 4", "TV.B 4",
    "RRRR 4", "MMMM 4", "BBBB 4", "VVVV 4", "TNTN 5", "TNNN 5",
    "TVTV 5", "RBRB 5", "NNNM 5", "MTTM 5", "VRRV 5", "BBTB 5",
    "RTMM 6", "NNMV 6", "VTBT 6", "MRNN 6", "BRRV 6", "MTVM 6",
    "VTBV 6", "NBRR 6", "BTMN 7", "RBNM 7", "RTVN 7", "MBTV 7",
)  # fmt: skip

CLASSIC_TILES: tuple[str, ...] = (
    "MM.M 2", "NN.N 2", "T.RR 3", "B.VV 3", "BT.T 3", "VVR. 3",
    "MNB. 4", "RTB. 4", "VN.M 4", ".TBR 4", "NNNN 4", "TTTT 4",
    "BBBB 4", "VRVR 5", "RRMR 5", "MVVM 5", "VMMV 5", "BBTB 5",
    "NTNT 5", "MRMR 5", "MNVV 6", "RNTR 6", "TBTV 6", "BMNB 6",
    "RNRV 6", "NMMB 6", "TNNV 6", "MTRB 7", "MVTR 7", "RVNB 7",
)  # fmt: skip

TYPE_SCORES = {
    "truffle": 3,
    "nut_cluster": 5,
    "raspberry": 4,
    "mint": 4,
    "blueberry": 5,
    "violet": 3,
}
DEFAULT_SCORE_TILES = {
    "standard": {**TYPE_SCORES, "first": 3, "three_or_four": 3},
    "classic": {**TYPE_SCORES, "first": 3},
}


@dataclass(frozen=True)
class BoxTile:
    """One box tile: ``spaces`` are 4 type indices or -1 (empty), read top-left,
    top-right, bottom-left, bottom-right; ``points`` are printed in its centre."""

    spaces: tuple[int, int, int, int]
    points: int

    @property
    def cost(self) -> tuple[int, ...]:
        """How many chocolates of each type the tile shows (what it costs)."""
        return tuple(self.spaces.count(t) for t in range(len(TYPES)))

    def text(self) -> str:
        return "".join(TYPE_LETTERS[v] if v >= 0 else "." for v in self.spaces) + f" {self.points}"


@dataclass(frozen=True)
class Components:
    """Validated component data of one edition."""

    edition: str
    card_counts: tuple[int, ...]
    tiles: tuple[BoxTile, ...]
    #: points of each Score tile: the six types in TYPES order, then "first", then
    #: (standard) "three_or_four"
    score_tiles: tuple[tuple[str, int], ...]


def parse_tile(text: str, where: str = "tile") -> BoxTile:
    """``"TV.V 4"`` -> BoxTile; raise ConfigError naming what is wrong."""
    if not isinstance(text, str):
        raise ConfigError(f"{where}: expected a string like 'TV.V 4', got {text!r}")
    parts = text.split()
    if len(parts) != 2 or len(parts[0]) != 4:
        raise ConfigError(f"{where}: {text!r} is not 4 space letters and points, e.g. 'TV.V 4'")
    letters, pts = parts
    bad = [ch for ch in letters if ch != "." and ch not in TYPE_LETTERS]
    if bad:
        raise ConfigError(
            f"{where}: {text!r} has unknown space letter(s) {bad}; allowed: "
            f"{', '.join(TYPE_LETTERS)} or '.' (empty)"
        )
    spaces = tuple(TYPE_LETTERS.index(ch) if ch != "." else -1 for ch in letters)
    shown = sum(1 for v in spaces if v >= 0)
    if shown not in (3, 4):
        raise ConfigError(f"{where}: {text!r} shows {shown} chocolates; a tile shows 3 or 4")
    if not pts.isdigit() or not MIN_POINTS <= int(pts) <= MAX_POINTS:
        raise ConfigError(
            f"{where}: {text!r} has points {pts!r}; allowed: {MIN_POINTS}..{MAX_POINTS}"
        )
    return BoxTile(spaces, int(pts))  # type: ignore[arg-type]


def default_components(edition: str) -> Components:
    """The authored data of ``edition`` ("standard" or "classic")."""
    _check_edition(edition)
    tiles = STANDARD_TILES if edition == "standard" else CLASSIC_TILES
    data = {
        "edition": edition,
        "card_counts": dict(zip(TYPES, _even_split(CARD_TOTAL[edition]), strict=True)),
        "tiles": list(tiles),
        "score_tiles": DEFAULT_SCORE_TILES[edition],
    }
    return load_components(data, edition)


def load_components(source: str | Path | Mapping[str, Any], edition: str) -> Components:
    """Read and validate component data (a JSON file path or a dict) for ``edition``."""
    _check_edition(edition)
    if isinstance(source, (str, Path)):
        data = read_json_file(source, "components file", MAX_COMPONENTS_BYTES, ConfigError)
    else:
        data = source
    if not isinstance(data, Mapping):
        raise ConfigError(f"components: expected an object, got {type(data).__name__}")
    known = {"edition", "card_counts", "tiles", "score_tiles"}
    unknown = [shown(k) for k in [k for k in data if k not in known][:5]]
    if unknown:
        raise ConfigError(f"components: unknown field(s) {unknown}; known: {sorted(known)}")
    if data.get("edition", edition) != edition:
        raise ConfigError(
            f"components: edition {data.get('edition')!r} does not match the game's "
            f"edition {edition!r}"
        )
    return Components(
        edition=edition,
        card_counts=_check_cards(data.get("card_counts"), edition),
        tiles=_check_tiles(data.get("tiles"), edition),
        score_tiles=_check_score_tiles(data.get("score_tiles"), edition),
    )


def components_to_dict(comp: Components) -> dict[str, Any]:
    """The JSON-ready form that :func:`load_components` reads back."""
    return {
        "edition": comp.edition,
        "card_counts": dict(zip(TYPES, comp.card_counts, strict=True)),
        "tiles": [t.text() for t in comp.tiles],
        "score_tiles": dict(comp.score_tiles),
    }


def _check_edition(edition: str) -> None:
    if edition not in EDITIONS:
        raise ConfigError(f"edition {edition!r} is not allowed; allowed values: {EDITIONS}")


def _even_split(total: int) -> list[int]:
    base, extra = divmod(total, len(TYPES))
    return [base + (1 if i < extra else 0) for i in range(len(TYPES))]


def _check_cards(counts: Any, edition: str) -> tuple[int, ...]:
    if not isinstance(counts, Mapping) or sorted(counts) != sorted(TYPES):
        raise ConfigError(f"components.card_counts: expected one count for each of {TYPES}")
    values = [counts[t] for t in TYPES]
    if any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in values):
        raise ConfigError(f"components.card_counts: {values} must be positive ints")
    if sum(values) != CARD_TOTAL[edition]:
        raise ConfigError(
            f"components.card_counts: {sum(values)} cards; the {edition} edition has "
            f"{CARD_TOTAL[edition]}"
        )
    return tuple(values)


def _check_tiles(tiles: Any, edition: str) -> tuple[BoxTile, ...]:
    if not isinstance(tiles, (list, tuple)) or len(tiles) != TILE_TOTAL[edition]:
        got = len(tiles) if isinstance(tiles, (list, tuple)) else tiles
        raise ConfigError(
            f"components.tiles: got {got!r}; the {edition} edition has "
            f"{TILE_TOTAL[edition]} box tiles"
        )
    return tuple(parse_tile(t, f"components.tiles[{i}]") for i, t in enumerate(tiles))


def _check_score_tiles(scores: Any, edition: str) -> tuple[tuple[str, int], ...]:
    names = TYPES + EXTRA_SCORE_TILES[edition]
    if not isinstance(scores, Mapping) or sorted(scores) != sorted(names):
        raise ConfigError(f"components.score_tiles: expected points for exactly {names}")
    for name in names:
        v = scores[name]
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 10:
            raise ConfigError(f"components.score_tiles.{name}: {v!r}; allowed: ints 1..10")
    return tuple((name, scores[name]) for name in names)
