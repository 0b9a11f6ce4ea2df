"""``le_chocolat_v0``: see docs/games/le_chocolat.md and ``choco_envs.games.le_chocolat``."""

from choco_envs.core.env import make_env_functions
from choco_envs.games.le_chocolat import LeChocolatGame

env, raw_env = make_env_functions(LeChocolatGame)

__all__ = ["env", "raw_env"]
