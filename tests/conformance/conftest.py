"""Parametrization of the conformance suite: every registered env, every player count,
every enumerable rule option. Adding a game to the registry adds it here."""

from __future__ import annotations

import os
from typing import Any

import pytest

from choco_envs.core.errors import ConfigError
from choco_envs.registry import game_class, list_envs

#: random games per configuration (raw rules API); CHOCO_CONFORMANCE_GAMES overrides,
#: the `slow` marker runs ten times as many.
RANDOM_GAMES = int(os.environ.get("CHOCO_CONFORMANCE_GAMES", "200"))
#: games per configuration in which every action is tried on a copy at every step
EXACT_MASK_GAMES = int(os.environ.get("CHOCO_EXACT_MASK_GAMES", "3"))


def config_id(env_id: str, config: dict[str, Any]) -> str:
    parts = [env_id] + [f"{k}={v}" for k, v in config.items()]
    return "-".join(parts)


def all_configurations() -> list[tuple[str, dict[str, Any]]]:
    """(env_id, options) for every configuration a game accepts."""
    out = []
    for env_id in list_envs():
        cls = game_class(env_id)
        for config in cls.spec.configurations():
            try:
                cls(**config)
            except ConfigError:
                continue  # e.g. classic Chocolatiers refuses 5 players
            out.append((env_id, config))
    return out


def encoder_configurations() -> list[tuple[str, dict[str, Any]]]:
    """One configuration per env and encoder (default options otherwise)."""
    out = []
    for env_id in list_envs():
        game = game_class(env_id)()
        for name in game.encoders:
            out.append((env_id, {"observation": name}))
    return out


CONFIGS = all_configurations()
CONFIG_IDS = [config_id(e, c) for e, c in CONFIGS]
ENCODER_CONFIGS = encoder_configurations()
ENCODER_IDS = [config_id(e, c) for e, c in ENCODER_CONFIGS]
ENV_IDS = list_envs()


@pytest.fixture(params=CONFIGS, ids=CONFIG_IDS)
def configuration(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any]]:
    return request.param
