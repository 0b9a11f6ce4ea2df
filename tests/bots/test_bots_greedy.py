"""The greedy bot dispatches to ``greedy_action`` of the game's own package."""

from __future__ import annotations

import pytest

from choco_envs import bots
from choco_envs.bots.greedy import game_package
from choco_envs.core.errors import ConfigError
from tests.bots.choco_toy import ToyRaceGame
from tests.bots.choco_toy.rules import ADD_THREE
from tests.bots.helpers import new_env


class GameWithoutGreedy(ToyRaceGame):
    """Secret race declared in a package that ships no greedy module."""


def test_greedy_uses_the_games_greedy_module():
    env = new_env(ToyRaceGame, seed=1)
    assert bots.make("greedy", seed=0).act(env) == ADD_THREE


def test_game_package_is_where_the_game_class_lives():
    assert game_package(ToyRaceGame) == "tests.bots.choco_toy"


def test_a_game_without_greedy_module_raises_config_error():
    env = new_env(GameWithoutGreedy, seed=1)
    with pytest.raises(ConfigError, match=r"tests\.bots\.greedy' is missing"):
        bots.make("greedy", seed=0).act(env)


def test_greedy_settings_are_the_games_own_and_checked() -> None:
    """``greedy:key=value`` passes the settings a game's greedy module declares in
    ``OPTIONS`` to its ``greedy_action``; a setting the game does not declare, a bad value
    or a spec without an env is refused naming what is allowed."""
    bot = bots.make("greedy:min_confidence=0.8,final_confidence=0.5", env_id="chocolates_v0")
    assert bot.options == {"min_confidence": 0.8, "final_confidence": 0.5}
    assert bots.make("greedy", env_id="chocolates_v0").options == {}
    with pytest.raises(
        ConfigError, match="unknown option 'depth'.*allowed options: min_confidence"
    ):
        bots.make("greedy:depth=2", env_id="chocolates_v0")
    with pytest.raises(ConfigError, match=r"min_confidence='1\.5' is not allowed.*\[0, 1\]"):
        bots.make("greedy:min_confidence=1.5", env_id="chocolates_v0")
    with pytest.raises(ConfigError, match="allowed options: none"):
        bots.make("greedy:min_confidence=0.8", env_id="chocolate_factory_v0")
    with pytest.raises(
        ConfigError, match="unknown option 'min_confidence'.*allowed options: depth"
    ):
        bots.make("greedy:min_confidence=0.8", env_id="le_chocolat_v0")
    with pytest.raises(ConfigError, match="need an env_id"):
        bots.make("greedy:min_confidence=0.8")


def test_greedy_settings_reach_the_heuristic() -> None:
    """At the first turn, when no chocolate is known, a Chocolates greedy bot that needs
    no confidence always takes a display card, one that needs certainty never does, and
    the baseline (0.85) takes only where a card is that likely a priori."""
    from choco_envs import chocolates_v0
    from choco_envs.games.chocolates.rules import REVEAL_BASE

    taken = {"bold": 0, "baseline": 0, "certain": 0}
    specs = {"bold": "greedy:min_confidence=0", "baseline": "greedy"}
    specs["certain"] = "greedy:min_confidence=1"
    for seed in range(10):
        for name, spec in specs.items():
            env = chocolates_v0.env()
            env.reset(seed=seed)
            action = bots.make(spec, env_id="chocolates_v0", seed=seed).act(env)
            taken[name] += action < REVEAL_BASE
    assert taken["bold"] == 10 and taken["certain"] == 0 and 0 < taken["baseline"] < 10
