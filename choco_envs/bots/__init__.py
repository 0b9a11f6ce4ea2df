"""Bots: random, greedy, determinized MCTS, policy checkpoints, human; made by name.

from choco_envs import bots
bot = bots.make("mcts:simulations=400", env_id="chocolates_v0", seed=1)
action = bot.act(env)  # for env.agent_selection of a live AEC env
"""

from __future__ import annotations

from choco_envs.bots.base import AgentView, Bot, view_of
from choco_envs.bots.registry import KINDS, make

__all__ = ["KINDS", "AgentView", "Bot", "make", "view_of"]
