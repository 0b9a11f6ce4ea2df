"""Le Chocolat components: the authored tile set and scoring cards, validated on load."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from choco_envs.core.errors import ConfigError
from choco_envs.games.le_chocolat import LeChocolatGame
from choco_envs.games.le_chocolat.components import DEFAULT_COMPONENTS, load_components


def test_authored_set_has_36_tiles_and_10_cards() -> None:
    """Rulebook, Components: "36 Chocolate Tiles", "10 Scoring Cards". the rulings in docs/games/le_chocolat.md: six
    flavors on 30 tiles in uneven numbers (at least 7 raspberries) and 6 blank-blank tiles."""
    c = load_components()
    assert c.flavors == ("almond", "cashew", "pistachio", "orange", "macadamia", "raspberry")
    assert sum(c.flavor_counts) == 30 and c.blank_blank == 6
    assert c.flavor_counts[c.flavors.index("raspberry")] == 7
    assert len(set(c.flavor_counts)) > 1, "uneven numbers"
    assert len(c.tile_flavors()) == 36
    assert len(c.cards) == 10


def test_rulebook_example_card_is_card_0() -> None:
    """Rulebook, Example: "1 VP per almond, 2 VP per cashew, -2 VP per pistachio, 3 VP per
    pair of 1 orange and 1 macademia, 5 VP if you have the most raspberries"."""
    c = load_components()
    card, f = c.cards[0], c.flavors.index
    assert card.name == "rulebook example"
    assert card.each[f("almond")] == 1 and card.each[f("cashew")] == 2
    assert card.each[f("pistachio")] == -2
    assert card.sets == (((f("orange"), f("macadamia")), 3),)
    assert card.majority == ((f("raspberry"), 5),)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda d: d["tiles"].update(almond=7), "37"),
        (lambda d: d["tiles"].update(almond=-1), "-1"),
        (lambda d: d["cards"][0]["each"].update(walnut=1), "walnut"),
        (lambda d: d["cards"][0]["each"].update(raspberry=1), "raspberry"),
        (lambda d: d["cards"][0]["each"].pop("almond"), "almond"),
        (lambda d: d["cards"][0]["sets"][0].update(flavors=["orange"]), "orange"),
        (lambda d: d["cards"][0]["majority"].update(raspberry=0), "0"),
        (lambda d: d["cards"][1].update(name="rulebook example"), "rulebook example"),
        (lambda d: d.pop("cards"), "cards"),
    ],
)
def test_bad_component_data_is_refused_naming_the_value(change, named: str) -> None:
    """the rulings in docs/games/le_chocolat.md: component data is "replaceable by a user"; house rule: bad data raises
    an error naming the bad value and what is allowed."""
    data = copy.deepcopy(DEFAULT_COMPONENTS)
    change(data)
    with pytest.raises(ConfigError, match=named):
        load_components(data)
    with pytest.raises(ConfigError):
        LeChocolatGame(components=data)


def test_user_components_from_a_json_file(tmp_path: Path) -> None:
    """A player who owns the game passes their own data file with ``components=``."""
    data = copy.deepcopy(DEFAULT_COMPONENTS)
    data["cards"][3]["name"] = "my own card"
    path = tmp_path / "le_chocolat.json"
    path.write_text(json.dumps(data))
    game = LeChocolatGame(components=str(path), scoring_card="my own card")
    assert game.fixed_card == 3
    with pytest.raises(ConfigError, match="cannot be read"):
        LeChocolatGame(components=str(tmp_path / "missing.json"))


def test_scoring_card_option_names_the_allowed_values() -> None:
    """Setup 5: "Place 1 random scoring card faceup"; the scoring_card option fixes it by
    index or name, and a bad value is refused naming the allowed ones."""
    assert LeChocolatGame(scoring_card=0).fixed_card == 0
    assert LeChocolatGame(scoring_card="pairs").fixed_card == 5
    for bad in (10, "walnut card", -1, 1.5, True):
        with pytest.raises(ConfigError, match="scoring_card"):
            LeChocolatGame(scoring_card=bad)
