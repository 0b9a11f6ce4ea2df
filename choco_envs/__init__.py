"""choco_envs: PettingZoo AEC environments for five chocolate-themed tabletop games.

    from choco_envs import chocolates_v0
    env = chocolates_v0.env(num_players=3, render_mode="ansi")

or ``choco_envs.make("chocolates_v0", num_players=3)``; ``choco_envs.list_envs()``; or,
through PettingZoo's registry once ``choco_envs`` is imported,
``pettingzoo.make("aec", "choco/chocolates-v0", num_players=3)``.
"""

from __future__ import annotations

from typing import Any

from choco_envs.core.errors import (
    CheckpointError,
    ChocoError,
    ConfigError,
    IllegalActionError,
    RecordError,
)
from choco_envs.registry import REGISTRY, list_envs, make, make_game, make_raw

__version__ = "0.27.0"


def pettingzoo_id(env_id: str) -> str:
    """The id of ``env_id`` in PettingZoo's registry: ``chocolates_v0`` ->
    ``choco/chocolates-v0``."""
    name, _, version = env_id.rpartition("_v")
    return f"choco/{name}-v{version}"


def _register_with_pettingzoo() -> None:
    """Every env in PettingZoo's AEC registry (PettingZoo >= 1.27), made lazily."""
    import pettingzoo

    register = getattr(pettingzoo, "register", None)
    if register is None:  # an older PettingZoo has no registry
        return
    registered = getattr(pettingzoo, "aec_registry", {})
    for env_id in REGISTRY:
        if pettingzoo_id(env_id) not in registered:
            register("aec", pettingzoo_id(env_id), entry_point=f"choco_envs.envs.{env_id}:env")


_register_with_pettingzoo()

__all__ = [
    "CheckpointError",
    "ChocoError",
    "ConfigError",
    "IllegalActionError",
    "RecordError",
    "list_envs",
    "make",
    "make_game",
    "make_raw",
    "pettingzoo_id",
]


def __getattr__(name: str) -> Any:
    # `from choco_envs import chocolates_v0` imports the env module lazily, so that the
    # package imports fast and a game never loads another's rules.
    if name in REGISTRY:
        from choco_envs.envs import env_module

        return env_module(name)
    raise AttributeError(f"module 'choco_envs' has no attribute {name!r}")
