"""``chocolates_v0``: see docs/games/chocolates.md and ``choco_envs.games.chocolates``."""

from choco_envs.core.env import make_env_functions
from choco_envs.games.chocolates import ChocolatesGame

env, raw_env = make_env_functions(ChocolatesGame)

__all__ = ["env", "raw_env"]
