"""A toy game for the training tests (see rules.py), registered on the fly."""

from choco_envs.bots.base import BotKind
from choco_envs.bots.game_kinds import register_game_bots
from tests.training.toy_nim.greedy import greedy_action
from tests.training.toy_nim.rules import ENV_ID, REGISTRY_ENTRY, ToyNim

register_game_bots(
    ENV_ID, {"greedy": BotKind("greedy", "leave a multiple of 4", policy=greedy_action)}
)

__all__ = ["ENV_ID", "REGISTRY_ENTRY", "ToyNim"]
