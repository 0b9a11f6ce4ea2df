"""Chocolatiers component data (the rulings in docs/games/chocolatiers.md: authored where the rulebooks print only counts,
replaceable by the owner's own set)."""

from __future__ import annotations

import copy
import json

import pytest

from choco_envs.core.errors import ConfigError
from choco_envs.games.chocolatiers import ChocolatiersGame
from choco_envs.games.chocolatiers.components import (
    STANDARD_TILES,
    components_to_dict,
    default_components,
    load_components,
)


def test_shipped_components_match_the_rulebook_counts_and_example_values() -> None:
    """Rulebook 000 Components: "36 Box Tiles, 51 Chocolate Cards, 8 Score Tiles, 15 Wild
    Chocolates"; 003: "30 azulejos de caja, 39 cartas de chocolate, 7 cartas de
    puntuación, 12 fichas". Rulings: Score values "must agree with the rulebook example
    (nut cluster 5, mint 4, violet 3)"; every tile shows 3 or 4 chocolates; "51 cards
    (types as even as 51 allows)"."""
    std, cls = default_components("standard"), default_components("classic")
    assert (len(std.tiles), sum(std.card_counts), len(std.score_tiles)) == (36, 51, 8)
    assert (len(cls.tiles), sum(cls.card_counts), len(cls.score_tiles)) == (30, 39, 7)
    assert std.card_counts == (9, 9, 9, 8, 8, 8) and cls.card_counts == (7, 7, 7, 6, 6, 6)
    scores = dict(std.score_tiles)
    assert (scores["nut_cluster"], scores["mint"], scores["violet"]) == (5, 4, 3)
    for comp in (std, cls):
        assert all(sum(t.cost) in (3, 4) and 2 <= t.points <= 8 for t in comp.tiles)
    assert sum(t.points in (3, 4) for t in std.tiles) >= 10


def test_no_tile_is_worth_more_with_less_variety_and_the_same_size() -> None:
    """Rulings: "Point values are authored and follow the cost and its variety ... No tile
    is cheaper and worth more than another with the same number of chocolates." """
    for edition in ("standard", "classic"):
        tiles = default_components(edition).tiles
        for a in tiles:
            for b in tiles:
                same_size = sum(a.cost) == sum(b.cost)
                variety_a = sum(1 for c in a.cost if c)
                variety_b = sum(1 for c in b.cost if c)
                if same_size and variety_a < variety_b:
                    assert a.points <= b.points, (a.text(), b.text())


def test_own_components_are_validated_and_used(tmp_path) -> None:
    """Rulings: component data "replaceable by a user who owns the physical game (a
    `components=` option or a data file)"; bad data is refused naming the bad value."""
    data = components_to_dict(default_components("standard"))
    data["tiles"][0] = "RRRR 8"
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(data))
    game = ChocolatiersGame(components=str(path))
    assert game.components.tiles[0].text() == "RRRR 8" and game.tile_points[0] == 8
    bad = copy.deepcopy(data)
    bad["tiles"][3] = "RR.. 3"
    with pytest.raises(ConfigError, match="shows 2 chocolates"):
        load_components(bad, "standard")
    bad = copy.deepcopy(data)
    bad["card_counts"]["mint"] = 1
    with pytest.raises(ConfigError, match="the standard edition has 51"):
        ChocolatiersGame(components=bad)
    bad = copy.deepcopy(data)
    bad["tiles"] = bad["tiles"][:30]
    with pytest.raises(ConfigError, match="36 box tiles"):
        ChocolatiersGame(components=bad)
    with pytest.raises(ConfigError, match="allowed values: 'standard', 'classic'"):
        ChocolatiersGame(edition="deluxe")
    with pytest.raises(ConfigError, match="components"):
        ChocolatiersGame(components=5)
    assert STANDARD_TILES[0] == "MM.M 2"
