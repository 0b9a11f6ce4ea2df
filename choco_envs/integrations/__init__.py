"""Adapters for RL libraries outside the core package, each behind an optional extra.

* :mod:`choco_envs.integrations.rllib` (``pip install -e ".[rllib]"``): every env as an
  RLlib ``MultiAgentEnv`` with ``{"observations", "action_mask"}`` observations, and a
  masked PPO self-play trainer with a league (``python -m choco_envs.integrations.rllib
  train --config ...``) whose result is exported to this project's checkpoint format.
* :mod:`choco_envs.integrations.checkpoint`: the one place where the integrations and the
  ``examples/`` write the project's checkpoints (``policy:PATH`` plays them).

Nothing here is imported by ``import choco_envs``; each module imports its library when
it is imported itself.
"""
