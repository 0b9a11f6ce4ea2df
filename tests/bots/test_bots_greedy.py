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
