"""choco_envs: PettingZoo AEC environments for five chocolate-themed tabletop games.

    from choco_envs import chocolates_v0
    env = chocolates_v0.env(num_players=3, render_mode="ansi")

or ``choco_envs.make("chocolates_v0", num_players=3)``; ``choco_envs.list_envs()``.
"""

from __future__ import annotations

import importlib
from typing import Any

from choco_envs.core.errors import (
    CheckpointError,
    ChocoError,
    ConfigError,
    IllegalActionError,
    RecordError,
)
from choco_envs.registry import REGISTRY, list_envs, make, make_game, make_raw

__version__ = "0.1.0"

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
]


def __getattr__(name: str) -> Any:
    # `from choco_envs import chocolates_v0` imports the env module lazily, so that the
    # package imports fast and a game never loads another's rules.
    if name in REGISTRY:
        return importlib.import_module(f"choco_envs.envs.{name}")
    raise AttributeError(f"module 'choco_envs' has no attribute {name!r}")
