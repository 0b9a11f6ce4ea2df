"""The masked actor-critic network: an MLP over the flat observation, or a small conv
stack over ``"planes"`` observations (C, H, W) followed by the same MLP.

With ``action_channels`` (conv nets only), a 1x1 convolution over the last conv layer
also scores every action that has a place on the board (the encoder's ``ActionPlanes``):
those logits are added to the MLP's, so a move is judged from the board around it, the
same way wherever it lies.

With ``action_features`` (flat observations), entries of the observation that belong to
one action each (the encoder's ``action_fields``, e.g. Chocolatiers' per-placement gains)
are also added straight to their actions' logits, one learned weight per field (0 at
first, so a network given them plays as before): a move's own measure reaches its logit
without the MLP having to route 36 inputs to 36 outputs one by one.

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
#: each per-action field's weight is used times this: Adam moves a parameter by about the
#: learning rate a step, and a field's measure needs a weight of tens to decide a move
ACTION_FEATURE_GAIN = 25.0


@dataclass(frozen=True)
class NetConfig:
    """Everything needed to rebuild the network (stored in every checkpoint)."""

    obs_shape: tuple[int, ...]
    num_actions: int
    hidden: tuple[int, ...] = (256, 256)
    conv_channels: tuple[int, ...] = field(default_factory=tuple)
    #: channels of the board action head (0: none), and each action's flat position on it
    #: (``ActionPlanes.index``; -1 for an action off the board)
    action_channels: int = 0
    action_index: tuple[int, ...] = field(default_factory=tuple)
    #: (observation start, first action, size) per field added straight to the logits
    action_features: tuple[tuple[int, int, int], ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in asdict(self).items():
            out[k] = (
                [list(x) if isinstance(x, tuple) else x for x in v] if isinstance(v, tuple) else v
            )
        if not self.action_features:
            del out["action_features"]  # files without it read as before
        return out

    @classmethod
    def from_json(cls, d: Any) -> NetConfig:
        """Inverse of ``to_json``; raise CheckpointError naming what is malformed."""
        try:
            return cls(
                obs_shape=tuple(int(x) for x in d["obs_shape"]),
                num_actions=int(d["num_actions"]),
                hidden=tuple(int(x) for x in d["hidden"]),
                conv_channels=tuple(int(x) for x in d.get("conv_channels", ())),
                action_channels=int(d.get("action_channels", 0)),
                action_index=tuple(int(x) for x in d.get("action_index", ())),
                action_features=tuple(
                    (int(a), int(b), int(c)) for a, b, c in d.get("action_features", ())
                ),
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

    action_index: torch.Tensor | None
    feature_obs: torch.Tensor
    feature_act: torch.Tensor
    feature_which: torch.Tensor

    def __init__(self, config: NetConfig) -> None:
        super().__init__()
        self.config = config
        layers: list[nn.Module] = []
        self.action_conv: nn.Module | None = None
        self.register_buffer("action_index", None, persistent=False)
        if config.action_channels:
            _check_action_head(config)
        if config.conv_channels:
            if len(config.obs_shape) != 3:
                raise ValueError(
                    f"conv_channels needs (C, H, W) observations, got shape {config.obs_shape}"
                )
            c_in, h, w = config.obs_shape
            for c_out in config.conv_channels:
                layers += [_layer(nn.Conv2d(c_in, c_out, 3, padding=1)), nn.ReLU()]
                c_in = c_out
            if config.action_channels:
                self.action_conv = _layer(nn.Conv2d(c_in, config.action_channels, 1), std=0.01)
                # index into the flattened board logits, with -1 (off the board) sent to
                # an appended 0 column
                board = config.action_channels * h * w
                index = [board if i < 0 else i for i in config.action_index]
                self.register_buffer("action_index", torch.tensor(index), persistent=False)
            layers.append(nn.Flatten())
            width = c_in * h * w
        else:
            layers.append(nn.Flatten())
            width = int(np.prod(config.obs_shape))
        for size in config.hidden:
            layers += [_layer(nn.Linear(width, size)), nn.Tanh()]
            width = size
        self.torso = nn.Sequential(*layers)
        self.num_conv = 2 * len(config.conv_channels)  # conv + ReLU modules at the front
        self.actor = _layer(nn.Linear(width, config.num_actions), std=0.01)
        self.critic = _layer(nn.Linear(width, 1), std=1.0)
        self.action_feature_weight: nn.Parameter | None = None
        if config.action_features:
            obs_index, act_index, which = _action_feature_index(config)
            self.action_feature_weight = nn.Parameter(torch.zeros(len(config.action_features)))
            self.register_buffer("feature_obs", torch.tensor(obs_index), persistent=False)
            self.register_buffer("feature_act", torch.tensor(act_index), persistent=False)
            self.register_buffer("feature_which", torch.tensor(which), persistent=False)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits (B, A) and values (B,)."""
        if self.action_conv is None:
            h = self.torso(obs)
            logits = self.actor(h)
        else:
            board = self.torso[: self.num_conv](obs)
            h = self.torso[self.num_conv :](board)
            spatial = self.action_conv(board).flatten(1)
            spatial = torch.cat([spatial, spatial.new_zeros(spatial.shape[0], 1)], dim=1)
            assert self.action_index is not None
            logits = self.actor(h) + spatial[:, self.action_index]
        if self.action_feature_weight is not None:
            weight = ACTION_FEATURE_GAIN * self.action_feature_weight[self.feature_which]
            extra = obs[:, self.feature_obs] * weight
            logits = logits.index_add(1, self.feature_act, extra)
        logits = logits.masked_fill(~mask, MASKED_LOGIT)
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


def _check_action_head(config: NetConfig) -> None:
    """ValueError unless the board action head fits the network and its input."""
    if not config.conv_channels or len(config.obs_shape) != 3:
        raise ValueError(
            "action_channels needs a conv network over (C, H, W) observations "
            f"(conv_channels={list(config.conv_channels)}, obs_shape={list(config.obs_shape)})"
        )
    if len(config.action_index) != config.num_actions:
        raise ValueError(
            f"action_index has {len(config.action_index)} entries, "
            f"not one per action ({config.num_actions})"
        )
    board = config.action_channels * config.obs_shape[1] * config.obs_shape[2]
    bad = [i for i in config.action_index if not -1 <= i < board]
    if bad:
        raise ValueError(f"action_index entries {bad[:5]} are off the {board}-logit board")


def _action_feature_index(config: NetConfig) -> tuple[list[int], list[int], list[int]]:
    """(observation entries, their actions, their field number) of ``action_features``;
    ValueError unless each field lies inside a flat observation and the actions."""
    if len(config.obs_shape) != 1 or config.conv_channels:
        raise ValueError(
            f"action_features needs a flat observation and no conv layers "
            f"(obs_shape={list(config.obs_shape)}, conv_channels={list(config.conv_channels)})"
        )
    obs_index: list[int] = []
    act_index: list[int] = []
    which: list[int] = []
    for k, (start, first, size) in enumerate(config.action_features):
        if size < 1 or start < 0 or first < 0:
            raise ValueError(f"action_features entry {[start, first, size]} is malformed")
        if start + size > config.obs_shape[0] or first + size > config.num_actions:
            raise ValueError(
                f"action_features entry {[start, first, size]} runs past the observation "
                f"({config.obs_shape[0]}) or the actions ({config.num_actions})"
            )
        obs_index += range(start, start + size)
        act_index += range(first, first + size)
        which += [k] * size
    return obs_index, act_index, which


def action_features_of(encoder: Any) -> tuple[tuple[int, int, int], ...]:
    """``NetConfig.action_features`` for a flat encoder's ``action_fields``."""
    fields = {f.name: f for f in encoder.layout.fields}
    return tuple(
        (fields[name].start, first, fields[name].stop - fields[name].start)
        for name, first in encoder.action_fields.items()
    )


def count_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
