"""``chocolate_factory_v2``: see docs/games/chocolate_factory.md and ``choco_envs.games.chocolate_factory``."""

from choco_envs.core.env import make_env_functions
from choco_envs.games.chocolate_factory import ChocolateFactoryGame

env, raw_env = make_env_functions(ChocolateFactoryGame)

__all__ = ["env", "raw_env"]
