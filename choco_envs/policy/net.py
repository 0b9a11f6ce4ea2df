"""The masked actor-critic network: an MLP over the flat observation, or a small conv
stack over ``"planes"`` observations (C, H, W) followed by the same MLP.

Illegal actions get a logit of ``MASKED_LOGIT``, so they are never sampled nor chosen
greedily, and they add nothing to the entropy.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn

from choco_envs.core.errors import CheckpointError

MASKED_LOGIT = -1e8


@dataclass(frozen=True)
class NetConfig:
    """Everything needed to rebuild the network (stored in every checkpoint)."""

    obs_shape: tuple[int, ...]
    num_actions: int
    hidden: tuple[int, ...] = (256, 256)
    conv_channels: tuple[int, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_json(cls, d: Any) -> NetConfig:
        """Inverse of ``to_json``; raise CheckpointError naming what is malformed."""
        try:
            return cls(
                obs_shape=tuple(int(x) for x in d["obs_shape"]),
                num_actions=int(d["num_actions"]),
                hidden=tuple(int(x) for x in d["hidden"]),
                conv_channels=tuple(int(x) for x in d.get("conv_channels", ())),
            )
        except (KeyError, TypeError, ValueError) as err:
            raise CheckpointError(f"checkpoint metadata: malformed 'network' ({err!r})") from err


def _layer(layer: nn.Module, std: float = float(np.sqrt(2)), bias: float = 0.0) -> nn.Module:
    """Orthogonal initialisation, as in CleanRL."""
    if isinstance(layer, (nn.Linear, nn.Conv2d)):
        nn.init.orthogonal_(layer.weight, std)
        if layer.bias is not None:
            nn.init.constant_(layer.bias, bias)
    return layer


class ActorCritic(nn.Module):
    """Shared torso, a policy head (logits over every action) and a value head."""

    def __init__(self, config: NetConfig) -> None:
        super().__init__()
        self.config = config
        layers: list[nn.Module] = []
        if config.conv_channels:
            if len(config.obs_shape) != 3:
                raise ValueError(
                    f"conv_channels needs (C, H, W) observations, got shape {config.obs_shape}"
                )
            c_in, h, w = config.obs_shape
            for c_out in config.conv_channels:
                layers += [_layer(nn.Conv2d(c_in, c_out, 3, padding=1)), nn.ReLU()]
                c_in = c_out
            layers.append(nn.Flatten())
            width = c_in * h * w
        else:
            layers.append(nn.Flatten())
            width = int(np.prod(config.obs_shape))
        for size in config.hidden:
            layers += [_layer(nn.Linear(width, size)), nn.Tanh()]
            width = size
        self.torso = nn.Sequential(*layers)
        self.actor = _layer(nn.Linear(width, config.num_actions), std=0.01)
        self.critic = _layer(nn.Linear(width, 1), std=1.0)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits (B, A) and values (B,)."""
        h = self.torso(obs)
        logits = self.actor(h).masked_fill(~mask, MASKED_LOGIT)
        return logits, self.critic(h).squeeze(-1)

    def get_value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(self.torso(obs)).squeeze(-1)

    def get_action_and_value(
        self,
        obs: torch.Tensor,
        mask: torch.Tensor,
        action: torch.Tensor | None = None,
        greedy: bool = False,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """(action, log-prob, entropy, value); samples unless ``action`` is given or
        ``greedy`` picks the most likely legal action."""
        logits, value = self(obs, mask)
        # The Categorical distribution of the masked logits, computed directly (the same
        # numbers as torch.distributions.Categorical, without its per-call bookkeeping):
        # illegal actions have probability 0 and add 0 to the entropy.
        logp_all = logits.log_softmax(-1)
        probs = logp_all.exp()
        if action is None:
            action = logits.argmax(-1) if greedy else torch.multinomial(probs, 1).squeeze(-1)
        logp = logp_all.gather(-1, action.unsqueeze(-1)).squeeze(-1)
        entropy = -(probs * logp_all).sum(-1)
        return action, logp, entropy, value


def count_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
