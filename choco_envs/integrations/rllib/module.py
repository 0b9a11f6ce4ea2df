"""The RLModule the trainer uses, and its export to the project's ActorCritic.

The module is RLlib's own action-masking PPO module (``ActionMaskingTorchRLModule``,
shipped in ``ray.rllib.examples.rl_modules.classes.action_masking_rlm``) with a model
config chosen so that its network IS the project's ``ActorCritic`` MLP, layer for layer:
a shared torso (``vf_share_layers``) of Linear + Tanh per hidden size, a single Linear
policy head (``head_fcnet_hiddens=[]``) and a single Linear value head. Export therefore
copies weights, converting nothing; masking differs only in the constant added to an
illegal logit (RLlib: log(0) clamped to FLOAT_MIN; ActorCritic: -1e8), so every legal
logit, the argmax and the probabilities agree (``tests/integrations`` checks 1,000 states).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

from choco_envs.integrations.checkpoint import actor_critic


def model_config(hidden: tuple[int, ...]) -> DefaultModelConfig:
    """RLlib's model config whose network is ActorCritic's MLP with these hidden sizes."""
    return DefaultModelConfig(
        fcnet_hiddens=list(hidden),
        fcnet_activation="tanh",
        vf_share_layers=True,
        head_fcnet_hiddens=[],
    )


def module_spec(
    hidden: tuple[int, ...],
    observation_space: gym.Space | None = None,
    action_space: gym.Space | None = None,
) -> RLModuleSpec:
    """The spec of one masked PPO module (the learner and every frozen snapshot)."""
    return RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        observation_space=observation_space,
        action_space=action_space,
        model_config=model_config(hidden),
    )


def to_actor_critic(
    state: dict[str, Any], obs_shape: tuple[int, ...], num_actions: int, hidden: tuple[int, ...]
) -> Any:
    """The ActorCritic holding the weights of an RLlib module's ``state`` (its
    ``get_state()`` or ``state_dict()``: name -> array or tensor)."""
    from torch import nn

    model = actor_critic(obs_shape, num_actions, hidden)
    # ActorCritic's hidden Linear layers in order (whatever its module names), then its
    # policy and value heads; RLlib's encoder MLP holds Linear/Tanh pairs from index 0.
    hidden_layers = [
        name
        for name, layer in model.named_modules()
        if isinstance(layer, nn.Linear) and name not in ("actor", "critic")
    ]
    if len(hidden_layers) != len(hidden):
        raise ValueError(f"ActorCritic has {len(hidden_layers)} hidden layers, not {len(hidden)}")
    weights: dict[str, torch.Tensor] = {}
    for i, name in enumerate(hidden_layers):
        for kind in ("weight", "bias"):
            weights[f"{name}.{kind}"] = _tensor(state[f"encoder.encoder.net.mlp.{2 * i}.{kind}"])
    for kind in ("weight", "bias"):
        weights[f"actor.{kind}"] = _tensor(state[f"pi.net.mlp.0.{kind}"])
        weights[f"critic.{kind}"] = _tensor(state[f"vf.net.mlp.0.{kind}"])
    model.load_state_dict(weights, strict=True)
    model.eval()
    return model


def _tensor(value: Any) -> torch.Tensor:
    return torch.as_tensor(value).detach().cpu().float().clone()


def module_logits(module: Any, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The masked logits an RLlib masking module gives (its inference forward pass)."""
    batch = {"obs": {"observations": obs.reshape(obs.shape[0], -1), "action_mask": mask.float()}}
    with torch.no_grad():
        out = module.forward_inference(batch)
    return out["action_dist_inputs"]
