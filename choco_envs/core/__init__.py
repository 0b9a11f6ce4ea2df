"""The game protocol, the generic AEC adapter, encoders, errors and records."""

from choco_envs.core.encoding import ActionPlanes, Encoder, Field, Layout
from choco_envs.core.errors import (
    CheckpointError,
    ChocoError,
    ConfigError,
    IllegalActionError,
    RecordError,
)
from choco_envs.core.game import Game, GameView, Rng
from choco_envs.core.manifest import BenchCase, GameManifest
from choco_envs.core.outcomes import margins, places, rank_returns
from choco_envs.core.spec import GameSpec, Option

__all__ = [
    "ActionPlanes",
    "BenchCase",
    "CheckpointError",
    "ChocoError",
    "ConfigError",
    "Encoder",
    "Field",
    "Game",
    "GameManifest",
    "GameView",
    "GameSpec",
    "IllegalActionError",
    "Layout",
    "Option",
    "RecordError",
    "Rng",
    "margins",
    "places",
    "rank_returns",
]
