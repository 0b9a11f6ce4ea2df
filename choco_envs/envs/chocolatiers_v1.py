"""``chocolatiers_v1``: see docs/games/chocolatiers.md and ``choco_envs.games.chocolatiers``."""

from choco_envs.core.env import make_env_functions
from choco_envs.games.chocolatiers import ChocolatiersGame

env, raw_env = make_env_functions(ChocolatiersGame)

__all__ = ["env", "raw_env"]
