"""The masked actor-critic network.

The network reads one flat float32 vector per decision, its *policy input*
(``choco_envs.policy.features.PolicyInputs``): the encoder's observation, flattened, then
the extra inputs of the policy's feature function (none by default). For a ``planes``
observation (C, H, W) the first C*H*W entries go through a small stack of 3x3 conv layers
(``conv_channels``); the extra inputs join the flattened result before the MLP.

With ``action_channels`` (conv nets only), a 1x1 convolution over the last conv layer
also scores every action that has a place on the board (the encoder's ``ActionPlanes``):
those logits are added to the MLP's, so a move is judged from the board around it, the
same way wherever it lies.

Illegal actions get a logit of ``MASKED_LOGIT``, so they are never sampled nor chosen
greedily, and they add nothing to the entropy.

:func:`parameter_shapes` gives every tensor's name and shape from a :class:`NetConfig`
by arithmetic alone, so a checkpoint's header can be checked before anything is built.
"""

from __future__ import annotations

import math
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
    #: channels of the board action head (0: none), and each action's flat position on it
    #: (``ActionPlanes.index``; -1 for an action off the board)
    action_channels: int = 0
    action_index: tuple[int, ...] = field(default_factory=tuple)
    #: inputs after the observation: the feature function's (0: none)
    extra_inputs: int = 0
    #: outputs of the value head: 1 (the acting seat's value, PPO) or one per seat in the
    #: observation's seat order, own seat first (the search-and-learn engine, ``az``)
    value_outputs: int = 1
    #: a head that scores actions from facts of their own (``()``: none): (first action,
    #: count, start, block, width): the ``count`` consecutive actions from the first each
    #: have ``block`` facts in the policy input, one block after the other from ``start``;
    #: one small MLP (``block`` -> ``width`` -> 1) shared by those actions adds its score to
    #: each one's logit (its output layer starts at 0, so a file widened into it plays as
    #: before). Facts are what the feature function computes (``Features.action_facts``).
    #: Several groups of actions (takes, placements, ...) each have a head of their own:
    #: their 5 numbers follow one another (5 x groups in all)
    action_facts: tuple[int, ...] = field(default_factory=tuple)
    #: with ``action_facts``: the facts go to their head only, not into the shared torso
    #: (facts for hundreds of actions would be most of its first layer's weights)
    facts_head_only: bool = False
    #: with ``action_facts``: the head also reads the torso's last hidden layer (one
    #: linear map of it, shared by the actions, added to the head's first layer), so an
    #: action's facts are weighed against the whole position; the map starts at 0, so a
    #: file widened into it plays as before
    facts_context: bool = False
    #: with ``action_facts``: each head also reads what its group's legal actions offer
    #: together (the largest, over those actions, of each of its first layer's squashed
    #: units: a fact's best value this turn, e.g. the best claim on the table), one map of
    #: it added to every action's first layer and one to the values; both maps start at
    #: 0, so a file widened into it plays as before
    facts_pool: bool = False

    @property
    def obs_size(self) -> int:
        return int(np.prod(self.obs_shape))

    @property
    def input_size(self) -> int:
        """Length of the policy input vector: observation entries, then extra inputs."""
        return self.obs_size + self.extra_inputs

    def to_json(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_json(cls, d: Any) -> NetConfig:
        """Inverse of ``to_json``; CheckpointError naming what is malformed."""
        if not isinstance(d, dict):
            raise CheckpointError(f"checkpoint metadata: 'network' is not an object: {d!r:.80}")
        unknown = sorted(set(d) - {f for f in cls.__dataclass_fields__})
        if unknown:
            raise CheckpointError(f"checkpoint metadata: 'network' has unknown fields {unknown}")
        try:
            return cls(
                obs_shape=_ints(d["obs_shape"], "obs_shape"),
                num_actions=_int(d["num_actions"], "num_actions"),
                hidden=_ints(d["hidden"], "hidden"),
                conv_channels=_ints(d.get("conv_channels", []), "conv_channels"),
                action_channels=_int(d.get("action_channels", 0), "action_channels"),
                action_index=_ints(d.get("action_index", []), "action_index"),
                extra_inputs=_int(d.get("extra_inputs", 0), "extra_inputs"),
                value_outputs=_int(d.get("value_outputs", 1), "value_outputs"),
                action_facts=_ints(d.get("action_facts", []), "action_facts"),
                facts_head_only=_bool(d.get("facts_head_only", False), "facts_head_only"),
                facts_context=_bool(d.get("facts_context", False), "facts_context"),
                facts_pool=_bool(d.get("facts_pool", False), "facts_pool"),
            )
        except KeyError as err:
            raise CheckpointError(f"checkpoint metadata: 'network' lacks field {err}") from None


def _int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise CheckpointError(f"checkpoint metadata: network.{name} is not an int: {value!r:.80}")
    return value


def _bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise CheckpointError(f"checkpoint metadata: network.{name} is not a bool: {value!r:.80}")
    return value


def _ints(value: Any, name: str) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) > 100_000:
        raise CheckpointError(f"checkpoint metadata: network.{name} is not a list of ints")
    return tuple(_int(v, name) for v in value)


#: what a network may declare: bounds that keep building one quick and small
LIMITS = {
    "layers": 8,  # hidden layers, and conv layers
    "width": 8192,  # units of a hidden layer
    "channels": 1024,  # channels of a conv layer
    "inputs": 1_000_000,  # observation entries + extra inputs
    "actions": 100_000,
    "action_channels": 64,
    "parameters": 25_000_000,  # 100 MB of float32
}


def check_config(config: NetConfig) -> None:
    """ValueError naming the first declared size that is out of bounds (``LIMITS``) or
    does not fit the rest; nothing is allocated."""

    def need(ok: bool, what: str) -> None:
        if not ok:
            raise ValueError(what)

    shape = config.obs_shape
    need(len(shape) in (1, 3), f"obs_shape {list(shape)} is not (N,) or (C, H, W)")
    need(all(1 <= s <= LIMITS["inputs"] for s in shape), f"obs_shape {list(shape)}: sizes >= 1")
    need(
        0 <= config.extra_inputs and config.input_size <= LIMITS["inputs"],
        f"obs_shape {list(shape)} with {config.extra_inputs} extra inputs: at most "
        f"{LIMITS['inputs']:,} inputs",
    )
    need(1 <= config.num_actions <= LIMITS["actions"], f"num_actions {config.num_actions}")
    need(1 <= config.value_outputs <= 16, f"value_outputs {config.value_outputs}: 1..16")
    need(len(config.hidden) <= LIMITS["layers"], f"hidden {list(config.hidden)}: too many layers")
    need(
        all(1 <= h <= LIMITS["width"] for h in config.hidden),
        f"hidden {list(config.hidden)}: sizes in 1..{LIMITS['width']}",
    )
    conv = config.conv_channels
    need(len(conv) <= LIMITS["layers"], f"conv_channels {list(conv)}: too many layers")
    need(
        all(1 <= c <= LIMITS["channels"] for c in conv),
        f"conv_channels {list(conv)}: channels in 1..{LIMITS['channels']}",
    )
    need(not conv or len(shape) == 3, f"conv_channels need (C, H, W) observations, not {shape}")
    if config.action_channels or config.action_index:
        need(
            bool(conv) and 1 <= config.action_channels <= LIMITS["action_channels"],
            "action_channels needs a conv network over (C, H, W) observations "
            f"(conv_channels={list(conv)}, obs_shape={list(shape)}) and 1..64 channels",
        )
        need(
            len(config.action_index) == config.num_actions,
            f"action_index has {len(config.action_index)} entries, "
            f"not one per action ({config.num_actions})",
        )
        board = config.action_channels * shape[1] * shape[2]
        bad = [i for i in config.action_index if not -1 <= i < board]
        need(not bad, f"action_index entries {bad[:5]} are off the {board}-logit board")
    if config.action_facts:
        need(
            len(config.action_facts) % 5 == 0,
            f"action_facts {list(config.action_facts)}: (first action, count, start, block, "
            "width) per group of actions",
        )
        spans: list[tuple[int, int]] = []
        for first, count, start, block, width in fact_groups(config):
            need(
                0 <= first and count >= 1 and first + count <= config.num_actions,
                f"action_facts: actions {first}..{first + count - 1} are not within the "
                f"{config.num_actions} actions",
            )
            need(
                0 <= start and block >= 1 and start + count * block <= config.input_size,
                f"action_facts: inputs {start}..{start + count * block - 1} are not within "
                f"the {config.input_size} inputs",
            )
            need(
                1 <= width <= LIMITS["width"],
                f"action_facts: width {width} not in 1..{LIMITS['width']}",
            )
            spans.append((first, first + count))
        spans.sort()
        need(
            all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False)),
            f"action_facts: groups of actions {spans} overlap",
        )
    need(
        not config.facts_head_only or bool(config.action_facts),
        "facts_head_only needs action_facts (a head to read the facts)",
    )
    need(
        not config.facts_context or bool(config.action_facts),
        "facts_context needs action_facts (a head to read the torso)",
    )
    need(
        not config.facts_pool or bool(config.action_facts),
        "facts_pool needs action_facts (a head whose actions are pooled)",
    )
    total = sum(math.prod(s) for s in parameter_shapes(config).values())
    need(
        total <= LIMITS["parameters"],
        f"{total:,} parameters; at most {LIMITS['parameters']:,}",
    )


def fact_groups(config: NetConfig) -> list[tuple[int, int, int, int, int]]:
    """``action_facts`` as its groups: (first action, count, start, block, width) each."""
    f = config.action_facts
    return [(f[i], f[i + 1], f[i + 2], f[i + 3], f[i + 4]) for i in range(0, len(f) - 4, 5)]


def fact_inputs(config: NetConfig) -> int:
    """How many policy inputs only the action heads read (``facts_head_only``)."""
    if not (config.facts_head_only and config.action_facts):
        return 0
    return sum(count * block for _, count, _, block, _ in fact_groups(config))


def _head_names(g: int) -> tuple[str, str]:
    """State-dict prefixes of group ``g``'s head and context map (group 0 keeps the
    names files had before there were several)."""
    return (
        ("fact_head", "fact_context")
        if g == 0
        else (f"fact_heads.{g - 1}", f"fact_contexts.{g - 1}")
    )


def parameter_shapes(config: NetConfig) -> dict[str, tuple[int, ...]]:
    """The name and shape of every tensor of ``ActorCritic(config)``'s state dict,
    computed without building it."""
    shapes: dict[str, tuple[int, ...]] = {}
    if config.conv_channels:
        c_in, h, w = config.obs_shape
        for i, c_out in enumerate(config.conv_channels):
            shapes[f"conv.{2 * i}.weight"] = (c_out, c_in, 3, 3)
            shapes[f"conv.{2 * i}.bias"] = (c_out,)
            c_in = c_out
        if config.action_channels:
            shapes["action_conv.weight"] = (config.action_channels, c_in, 1, 1)
            shapes["action_conv.bias"] = (config.action_channels,)
        width = c_in * h * w + config.extra_inputs
    else:
        width = config.input_size
    width -= fact_inputs(config)
    for j, size in enumerate(config.hidden):
        shapes[f"mlp.{2 * j}.weight"] = (size, width)
        shapes[f"mlp.{2 * j}.bias"] = (size,)
        width = size
    shapes["actor.weight"] = (config.num_actions, width)
    shapes["actor.bias"] = (config.num_actions,)
    shapes["critic.weight"] = (config.value_outputs, width)
    shapes["critic.bias"] = (config.value_outputs,)
    torso = width
    for g, (_, _, _, block, fact_width) in enumerate(fact_groups(config)):
        head, context = _head_names(g)
        shapes[f"{head}.0.weight"] = (fact_width, block)
        shapes[f"{head}.0.bias"] = (fact_width,)
        shapes[f"{head}.2.weight"] = (1, fact_width)
        shapes[f"{head}.2.bias"] = (1,)
        if config.facts_context:
            shapes[f"{context}.weight"] = (fact_width, torso)
        if config.facts_pool:
            shapes[f"fact_pools.{g}.weight"] = (fact_width, fact_width)
            shapes[f"fact_pool_values.{g}.weight"] = (config.value_outputs, fact_width)
    return shapes


def _legal_max(units: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """The largest of ``units`` (B, actions, width) over each row's legal actions (B, width),
    0 where a row has none. (Illegal actions are pushed far down by one broadcast add, a
    fraction of the time of a masked fill over the whole block.)"""
    shut = (~legal).to(units.dtype).unsqueeze(-1) * -1e9
    best = (units + shut).amax(dim=1)
    return torch.where(legal.any(dim=1, keepdim=True), best, torch.zeros_like(best))


def _as_is(layer: nn.Module, std: float = 0.0, bias: float = 0.0) -> nn.Module:
    return layer


def _orthogonal(layer: nn.Module, std: float = float(np.sqrt(2)), bias: float = 0.0) -> nn.Module:
    """Orthogonal initialisation, as in CleanRL."""
    if isinstance(layer, (nn.Linear, nn.Conv2d)):
        nn.init.orthogonal_(layer.weight, std)
        if layer.bias is not None:
            nn.init.constant_(layer.bias, bias)
    return layer


class ActorCritic(nn.Module):
    """Shared torso, a policy head (logits over every action) and a value head."""

    action_index: torch.Tensor | None

    def __init__(self, config: NetConfig, initialise: bool = True) -> None:
        """``initialise=False`` skips the orthogonal initialisation (a QR decomposition per
        layer, most of the time a big network takes to build) for a network whose weights
        are loaded next."""
        super().__init__()
        check_config(config)
        self.config = config
        _layer = _orthogonal if initialise else _as_is
        self.conv = nn.Sequential()
        self.action_conv: nn.Module | None = None
        self.register_buffer("action_index", None, persistent=False)
        width = config.input_size
        if config.conv_channels:
            c_in, h, w = config.obs_shape
            for c_out in config.conv_channels:
                self.conv.extend([_layer(nn.Conv2d(c_in, c_out, 3, padding=1)), nn.ReLU()])
                c_in = c_out
            if config.action_channels:
                self.action_conv = _layer(nn.Conv2d(c_in, config.action_channels, 1), std=0.01)
                # index into the flattened board logits, with -1 (off the board) sent to
                # an appended 0 column
                board = config.action_channels * h * w
                index = [board if i < 0 else i for i in config.action_index]
                self.register_buffer("action_index", torch.tensor(index), persistent=False)
            width = c_in * h * w + config.extra_inputs
        width -= fact_inputs(config)
        layers: list[nn.Module] = []
        for size in config.hidden:
            layers += [_layer(nn.Linear(width, size)), nn.Tanh()]
            width = size
        self.mlp = nn.Sequential(*layers)
        self.actor = _layer(nn.Linear(width, config.num_actions), std=0.01)
        self.critic = _layer(nn.Linear(width, config.value_outputs), std=1.0)
        # one head per group of actions with facts (group 0's under the names files had
        # before there were several: fact_head, fact_context; the others in lists)
        heads: list[nn.Sequential] = []
        contexts: list[nn.Linear] = []
        self.fact_pools = nn.ModuleList()
        self.fact_pool_values = nn.ModuleList()
        for _, _, _, block, fact_width in fact_groups(config):
            heads.append(
                nn.Sequential(
                    _layer(nn.Linear(block, fact_width)),
                    nn.Tanh(),
                    _layer(nn.Linear(fact_width, 1), std=0.0),
                )
            )
            if config.facts_context:
                contexts.append(nn.Linear(width, fact_width, bias=False))
                nn.init.zeros_(contexts[-1].weight)
            if config.facts_pool:
                pool = nn.Linear(fact_width, fact_width, bias=False)
                pool_value = nn.Linear(fact_width, config.value_outputs, bias=False)
                nn.init.zeros_(pool.weight)
                nn.init.zeros_(pool_value.weight)
                self.fact_pools.append(pool)
                self.fact_pool_values.append(pool_value)
        self.fact_head: nn.Sequential | None = heads[0] if heads else None
        self.fact_context: nn.Linear | None = contexts[0] if contexts else None
        self.fact_heads = nn.ModuleList(heads[1:])
        self.fact_contexts = nn.ModuleList(contexts[1:])

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits (B, A) and values (B,) of policy inputs ``x`` (B, input_size);
        without extra inputs, observations (B, *obs_shape) are taken as they come. With
        ``value_outputs`` > 1 the values are (B, value_outputs), one per seat."""
        config = self.config
        if x.dim() > 2:
            x = x.flatten(1)
        torso = x
        groups = fact_groups(config)
        if config.facts_head_only:  # the torso reads every input but the facts
            keep, at = [], 0
            for _, count, start, block, _ in sorted(groups, key=lambda g: g[2]):
                keep.append(x[:, at:start])
                at = max(at, start + count * block)
            torso = torch.cat([*keep, x[:, at:]], dim=1)
        if not config.conv_channels:
            h = self.mlp(torso)
            logits = self.actor(h)
        else:
            board = self.conv(x[:, : config.obs_size].reshape(-1, *config.obs_shape))
            h = self.mlp(torch.cat([board.flatten(1), torso[:, config.obs_size :]], dim=1))
            logits = self.actor(h)
            if self.action_conv is not None:
                spatial = self.action_conv(board).flatten(1)
                spatial = torch.cat([spatial, spatial.new_zeros(spatial.shape[0], 1)], dim=1)
                assert self.action_index is not None
                logits = logits + spatial[:, self.action_index]
        pooled_values = []
        if groups:
            heads = [self.fact_head, *self.fact_heads]
            contexts = [self.fact_context, *self.fact_contexts]
            for g, ((first, count, start, block, _), head, context) in enumerate(
                zip(
                    groups,
                    heads,
                    contexts if config.facts_context else [None] * len(groups),
                    strict=True,
                )
            ):
                assert head is not None
                facts = x[:, start : start + count * block].reshape(-1, count, block)
                if context is None and not config.facts_pool:
                    scores = head(facts).squeeze(-1)
                else:
                    first_layer, squash, out = head
                    own = first_layer(facts)
                    pre = own
                    if context is not None:  # the position (h, the torso's last layer)
                        pre = pre + context(h).unsqueeze(1)
                    if config.facts_pool:  # what the group's legal actions offer together
                        # the largest squashed unit is the squash of the largest (tanh rises)
                        pooled = squash(_legal_max(own, mask[:, first : first + count]))
                        pre = pre + self.fact_pools[g](pooled).unsqueeze(1)
                        pooled_values.append(self.fact_pool_values[g](pooled))
                    scores = out(squash(pre)).squeeze(-1)
                logits = torch.cat(
                    [logits[:, :first], logits[:, first : first + count] + scores,
                     logits[:, first + count :]],
                    dim=1,
                )  # fmt: skip
        logits = logits.masked_fill(~mask, MASKED_LOGIT)
        value = self.critic(h)
        for extra in pooled_values:
            value = value + extra
        return logits, value.squeeze(-1) if config.value_outputs == 1 else value

    def get_action_and_value(
        self,
        x: torch.Tensor,
        mask: torch.Tensor,
        action: torch.Tensor | None = None,
        greedy: bool = False,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """(action, log-prob, entropy, value); samples unless ``action`` is given or
        ``greedy`` picks the most likely legal action."""
        logits, value = self(x, mask)
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
