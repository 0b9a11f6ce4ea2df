"""Ray RLlib for choco_envs (``pip install -e ".[rllib]"``): every env as an RLlib
``MultiAgentEnv`` with ``{"observations", "action_mask"}`` observations, and a masked PPO
self-play trainer with a league, exported to the project's checkpoint format.

    python -m choco_envs.integrations.rllib train --config configs/chocolates_v0/rllib.yaml
    python -m choco_envs.integrations.rllib export --checkpoint runs/RUN/rllib --out policy.safetensors
    choco eval --env chocolates_v0 --bots policy:policy.safetensors greedy

``docs/scale.md`` runs it on a cluster (``--address``) and gives its speed.
"""

from __future__ import annotations

try:
    import ray.rllib  # noqa: F401
except ImportError as err:  # pragma: no cover - depends on the install
    raise ImportError(
        'choco_envs.integrations.rllib needs Ray RLlib: pip install -e ".[rllib]" '
        f"(import failed: {err})"
    ) from err

from choco_envs.integrations.rllib.env import (  # noqa: E402
    MASK_KEY,
    OBS_KEY,
    ChocoMultiAgentEnv,
    register_envs,
    rllib_env_name,
)

__all__ = ["MASK_KEY", "OBS_KEY", "ChocoMultiAgentEnv", "register_envs", "rllib_env_name"]
