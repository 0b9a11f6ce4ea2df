"""Every env, registered by one line: env id -> the module path of its Game class."""

from __future__ import annotations

import importlib
from typing import Any

from choco_envs.core.errors import ConfigError

#: env id -> "module:GameClass". Adding a game is adding a line here.
REGISTRY: dict[str, str] = {
    "chocolates_v0": "choco_envs.games.chocolates:ChocolatesGame",
    "le_chocolat_v0": "choco_envs.games.le_chocolat:LeChocolatGame",
    "chocolatiers_v1": "choco_envs.games.chocolatiers:ChocolatiersGame",
    "chocolate_factory_v2": "choco_envs.games.chocolate_factory:ChocolateFactoryGame",
}


def available(env_id: str) -> bool:
    """Whether the game module of ``env_id`` can be imported (it is being built)."""
    try:
        game_class(env_id)
    except (ImportError, AttributeError):
        return False
    return True


def list_envs() -> list[str]:
    """The ids of every registered env whose game is present."""
    return [e for e in REGISTRY if available(e)]


def game_class(env_id: str) -> Any:
    if env_id not in REGISTRY:
        raise ConfigError(f"unknown env {env_id!r}; known envs: {', '.join(REGISTRY)}")
    module_name, cls_name = REGISTRY[env_id].split(":")
    return getattr(importlib.import_module(module_name), cls_name)


def make_game(env_id: str, **options: Any) -> Any:
    """The rules object alone (for search and benchmarks), options validated."""
    return game_class(env_id)(**options)


def make_raw(env_id: str, **options: Any) -> Any:
    from choco_envs.core.env import ChocoAECEnv

    return ChocoAECEnv(game_class(env_id), **options)


def make(env_id: str, **options: Any) -> Any:
    """``choco_envs.make("chocolates_v0", num_players=3)``: the AEC env (the adapter
    enforces call order and handles illegal actions itself, so no wrapper is needed)."""
    return make_raw(env_id, **options)
