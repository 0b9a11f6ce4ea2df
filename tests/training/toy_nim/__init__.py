"""A toy game for the training tests (see rules.py), registered on the fly: the registry's
line for it is :data:`REGISTRY_ENTRY` (this package, which holds its ``MANIFEST``)."""

from choco_envs.bots.base import BotKind
from choco_envs.core.manifest import GameManifest
from tests.training.toy_nim.greedy import greedy_action
from tests.training.toy_nim.rules import ENV_ID, ToyNim

#: the toy's own bot kinds (its manifest names this module)
BOTS = {"greedy": BotKind("greedy", "leave a multiple of 4", policy=greedy_action)}
MANIFEST = GameManifest(game=ToyNim, encoders=("flat",), bots=__name__)
REGISTRY_ENTRY = __name__

__all__ = ["BOTS", "ENV_ID", "MANIFEST", "REGISTRY_ENTRY", "ToyNim"]
