"""Chocolate Factory component data: the authored set follows the rulebook's counts and
ranges; a user's data is validated with errors naming the bad value."""

from __future__ import annotations

import copy
import json

import pytest

from choco_envs.core.errors import ConfigError
from choco_envs.games.chocolate_factory import ChocolateFactoryGame
from choco_envs.games.chocolate_factory import components as cp


def test_authored_set_follows_the_rulebook() -> None:
    """'Bronze 3–4, Silber 7–8, Gold 14–15'; 'Bronze (Vollmilch, Erdbeer-Milch, Zartbitter,
    Weiße Haselnuss), Silber (Trüffel, Nougat, Fruchtpralinen), Gold (Schokoladentorte,
    Schoko-Goldbarren)'; 'Bronze-Sorte ... 2–3 Zutaten ... Silber (3–4 Zutaten) und Gold
    (4–5)'. Rulings: 'every quantity is 1 to 6'; 'more ingredients earn the higher value
    of the tier'."""
    comps = cp.load_components()
    germans = [v.german for v in comps.varieties]
    assert germans == ["Vollmilch", "Erdbeer-Milch", "Zartbitter", "Weiße Haselnuss",
                       "Trüffel", "Nougat", "Fruchtpralinen", "Schokoladentorte",
                       "Schoko-Goldbarren"]  # fmt: skip
    for v in comps.varieties:
        used = [q for q in v.quantities if q]
        lo, hi = cp.TIER_INGREDIENTS[v.tier]
        assert lo <= len(used) <= hi and all(1 <= q <= 6 for q in used)
        assert v.points == cp.TIER_POINTS[v.tier][len(used) - lo]
    assert {v.special for v in comps.varieties} == set(range(6))


def test_package_table_has_every_player_count_and_length() -> None:
    """'Jede Partie hat eine feste Zahl an Paketen (je nach Länge und Mitspielern, sie
    steht über den Paketen).' Rulings: 'The game's package count includes the players + 2
    open at the start.'"""
    comps = cp.load_components()
    for n in range(cp.MIN_PLAYERS, cp.MAX_PLAYERS + 1):  # every player count, both checks
        for length in cp.LENGTHS:
            assert comps.package_total(length, n) > n + 2
        assert comps.package_total("long", n) >= comps.package_total("short", n)


@pytest.mark.parametrize(
    "change,needle",
    [
        (lambda d: d["varieties"][0]["recipe"].update(cocoa=7), "recipe['cocoa']=7"),
        (lambda d: d["varieties"][4].update(points=9), "points=9"),
        (lambda d: d["varieties"][1].update(tier="gold"), "tier='gold'"),
        (lambda d: d["varieties"][2].update(special="pepper"), "special='pepper'"),
        (lambda d: d["varieties"][3]["recipe"].update(salt=1), "ingredient='salt'"),
        (lambda d: d["varieties"][7]["recipe"].pop("cocoa"), "recipe size=3"),
        (lambda d: d["packages"]["short"].update({"4": 5}), "packages.short[4]=5"),
        (lambda d: d["varieties"].pop(), "varieties="),
    ],
)
def test_bad_components_are_refused_naming_the_value(change, needle: str) -> None:
    """Component data is validated on load; the error names the bad value and what is
    allowed (house rule), and no game is made."""
    data = copy.deepcopy(cp.DEFAULT_COMPONENTS)
    change(data)
    with pytest.raises(ConfigError, match="allowed") as err:
        ChocolateFactoryGame(num_players=4, components=data)
    assert needle in str(err.value)


def test_user_components_replace_the_authored_set(tmp_path) -> None:
    """Rulings: component data 'replaceable by a user who owns the physical game (a
    components= option or a data file they can pass)'."""
    data = copy.deepcopy(cp.DEFAULT_COMPONENTS)
    data["varieties"][0]["recipe"] = {"cocoa": 1, "milk": 1}
    data["packages"]["short"]["2"] = 9
    path = tmp_path / "factory.json"
    path.write_text(json.dumps(data))
    for source in (data, str(path)):
        game = ChocolateFactoryGame(num_players=2, components=source)
        assert game.quantities[0] == (1, 1, 0, 0, 0, 0) and game.package_total == 9


def test_unreadable_components_file_is_refused(tmp_path) -> None:
    with pytest.raises(ConfigError, match="cannot be read: no such file"):
        ChocolateFactoryGame(components=str(tmp_path / "missing.json"))


@pytest.mark.parametrize("option,value", [("length", "medium"), ("packages", "yes")])
def test_bad_options_are_refused(option: str, value: object) -> None:
    with pytest.raises(ConfigError, match="allowed values"):
        ChocolateFactoryGame(**{option: value})
