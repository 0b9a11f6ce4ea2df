"""The game protocol, the generic AEC adapter, encoders, errors and records."""

from choco_envs.core.encoding import ActionPlanes, Encoder, Field, Layout
from choco_envs.core.errors import (
    CheckpointError,
    ChocoError,
    ConfigError,
    IllegalActionError,
    RecordError,
)
from choco_envs.core.game import Game, Rng, rank_returns
from choco_envs.core.spec import GameSpec, Option

__all__ = [
    "ActionPlanes",
    "CheckpointError",
    "ChocoError",
    "ConfigError",
    "Encoder",
    "Field",
    "Game",
    "GameSpec",
    "IllegalActionError",
    "Layout",
    "Option",
    "RecordError",
    "Rng",
    "rank_returns",
]
