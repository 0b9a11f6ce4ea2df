"""After ``import choco_envs``, PettingZoo's own registry makes every env, with each env's
options (issue 20: ``pettingzoo.make("aec", "choco/chocolates-v0", num_players=3)``)."""

from __future__ import annotations

import pettingzoo
import pytest

import choco_envs
from choco_envs.core.errors import ConfigError

from .conftest import CONFIG_IDS, CONFIGS, ENV_IDS


def test_the_ids_follow_pettingzoos_form() -> None:
    assert choco_envs.pettingzoo_id("chocolates_v0") == "choco/chocolates-v0"
    assert choco_envs.pettingzoo_id("chocolate_factory_v2") == "choco/chocolate_factory-v2"


@pytest.mark.parametrize("configuration", CONFIGS, ids=CONFIG_IDS)
def test_pettingzoo_make_builds_every_configuration(configuration: tuple[str, dict]) -> None:
    env_id, config = configuration
    env = pettingzoo.make("aec", choco_envs.pettingzoo_id(env_id), **config)
    assert isinstance(env, pettingzoo.AECEnv)
    assert env.unwrapped.game.config == choco_envs.make(env_id, **config).unwrapped.game.config
    env.reset(seed=3)
    twin = choco_envs.make(env_id, **config)
    twin.reset(seed=3)
    assert env.unwrapped.save() == twin.unwrapped.save()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_pettingzoo_make_passes_env_options_and_refuses_bad_ones(env_id: str) -> None:
    env = pettingzoo.make("aec", choco_envs.pettingzoo_id(env_id), observation="flat")
    assert env.unwrapped.observation_name == "flat"
    with pytest.raises(ConfigError, match="known options"):
        pettingzoo.make("aec", choco_envs.pettingzoo_id(env_id), no_such_option=1)
