"""Every env, registered by one line: env id -> the game package whose ``MANIFEST``
(:class:`~choco_envs.core.manifest.GameManifest`) says what the game is.

Adding a game is a package under ``choco_envs/games/`` and a line in :data:`REGISTRY`
(see docs/adding_a_game.md). Everything else that lists games (the env modules, bots,
feature functions, ``choco bench``, the web app) reads the manifests through
:func:`manifest` and :func:`manifests`. A package is imported only when its game is
used, so importing ``choco_envs`` loads no game's rules.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from choco_envs.core.errors import ConfigError
from choco_envs.core.game import Game
from choco_envs.core.manifest import GameManifest

if TYPE_CHECKING:
    from choco_envs.core.env import ChocoAECEnv

#: env id -> the module holding the game's ``MANIFEST`` ("module" or "module:NAME").
#: Adding a game is adding a line here.
REGISTRY: dict[str, str] = {
    "chocolates_v0": "choco_envs.games.chocolates",
    "le_chocolat_v0": "choco_envs.games.le_chocolat",
    "chocolatiers_v1": "choco_envs.games.chocolatiers",
    "chocolate_factory_v2": "choco_envs.games.chocolate_factory",
}


def manifest(env_id: str) -> GameManifest:
    """What the game of ``env_id`` is; ConfigError naming the known envs."""
    if env_id not in REGISTRY:
        raise ConfigError(f"unknown env {env_id!r}; known envs: {', '.join(REGISTRY)}")
    module_name, _, name = REGISTRY[env_id].partition(":")
    found = getattr(importlib.import_module(module_name), name or "MANIFEST")
    if not isinstance(found, GameManifest) or found.env_id != env_id:
        raise ConfigError(
            f"{REGISTRY[env_id]} does not hold the manifest of {env_id} (got {found!r:.80})"
        )
    return found


def manifests() -> list[GameManifest]:
    """The manifest of every registered env whose game is present, in registry order."""
    return [manifest(e) for e in list_envs()]


def available(env_id: str) -> bool:
    """Whether the game module of ``env_id`` can be imported (it is being built)."""
    try:
        manifest(env_id)
    except (ImportError, AttributeError):
        return False
    return True


def list_envs() -> list[str]:
    """The ids of every registered env whose game is present."""
    return [e for e in REGISTRY if available(e)]


def game_class(env_id: str) -> type[Game[Any]]:
    """The Game class of ``env_id`` (its rules, encoders, records and text)."""
    return manifest(env_id).game


def make_game(env_id: str, **options: Any) -> Game[Any]:
    """The rules object alone (for search and benchmarks), options validated."""
    return game_class(env_id)(**options)


def make_raw(env_id: str, **options: Any) -> ChocoAECEnv:
    """The AEC env without PettingZoo's wrappers (a ``ChocoAECEnv``)."""
    from choco_envs.core.env import ChocoAECEnv

    return ChocoAECEnv(game_class(env_id), **options)


def make(env_id: str, **options: Any) -> ChocoAECEnv:
    """``choco_envs.make("chocolates_v0", num_players=3)``: the AEC env (the adapter
    enforces call order and handles illegal actions itself, so no wrapper is needed)."""
    return make_raw(env_id, **options)
