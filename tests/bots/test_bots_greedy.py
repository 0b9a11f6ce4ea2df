"""A game's own bot kinds: listed in its ``BOTS``, made by name, settings checked."""

from __future__ import annotations

import pytest

from choco_envs import bots
from choco_envs.bots.base import BotKind, HeuristicBot
from choco_envs.bots.game_kinds import game_bots, register_game_bots
from choco_envs.core.errors import ConfigError
from choco_envs.registry import REGISTRY
from tests.bots.choco_toy import ToyRaceGame
from tests.bots.choco_toy.rules import ADD_THREE
from tests.bots.helpers import new_env


class GameWithoutBots(ToyRaceGame):
    """Secret race under an env id that registered no bots."""

    spec = ToyRaceGame.spec.__class__(**{**ToyRaceGame.spec.__dict__, "env_id": "no_bots_v0"})


def test_every_registered_game_lists_its_bots_and_a_greedy_baseline():
    for env_id in REGISTRY:
        kinds = game_bots(env_id)
        assert "greedy" in kinds, env_id
        assert all(isinstance(k, BotKind) and k.name == name for name, k in kinds.items())


def test_greedy_is_the_games_registered_policy():
    env = new_env(ToyRaceGame, seed=1)
    bot = bots.make("greedy", env_id="toy_race_v0", seed=0)
    assert isinstance(bot, HeuristicBot)
    assert bot.act(env) == ADD_THREE
    assert bots.make("greedy", seed=0).act(env) == ADD_THREE  # resolved on its first move


def test_a_game_without_that_kind_raises_config_error_naming_the_kinds():
    env = new_env(GameWithoutBots, seed=1)
    with pytest.raises(ConfigError, match=r"unknown bot kind 'greedy'.*no_bots_v0: random"):
        bots.make("greedy", seed=0).act(env)
    with pytest.raises(ConfigError, match="allowed kinds for toy_race_v0: random, mcts"):
        bots.make("plan", env_id="toy_race_v0")


def test_a_builtin_game_cannot_be_registered_again_nor_shadow_a_common_kind():
    with pytest.raises(ConfigError, match="lists its bots in"):
        register_game_bots("chocolates_v0", {})
    kind = BotKind("mcts", "a clash", policy=lambda g, s, r: 0)
    with pytest.raises(ConfigError, match="every env's own"):
        register_game_bots("other_v0", {"mcts": kind})


def test_a_kind_needs_exactly_one_of_policy_and_make():
    with pytest.raises(ValueError, match="exactly one of policy and make"):
        BotKind("x", "neither")
