"""Give a trained policy a longer observation that starts with the one it knows.

An encoder such as Chocolatiers' ``"derived"`` is ``"flat"`` followed by more fields (Le
Chocolat's ``"derived"``: ``"planes"`` followed by more planes). A policy trained on the
shorter one can keep everything it learned and start using the new fields: its first
layer (a Linear layer, or a conv layer for planes) gets zero weights for every new input,
so the widened network computes exactly what the old one did until training moves those
weights. The checkpoint records what it was widened from.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from choco_envs.core.errors import CheckpointError, ConfigError

FIRST_LINEAR = "torso.1.weight"  # Flatten, then the first Linear layer
FIRST_CONV = "torso.0.weight"  # the first conv layer of a conv net


def widen_checkpoint(
    source: str | Path,
    encoder: str,
    out: str | Path,
    action_features: bool = False,
    feature_weight: float = 0.0,
) -> Path:
    """Write to ``out`` the policy of ``source`` for observation ``encoder``, whose first
    fields (entries, or planes for a conv net) must be those of the encoder ``source`` was
    trained on (same names, positions and bounds), with the same action planes for a board
    action head. Refused with a ConfigError otherwise. With ``action_features`` the
    network also adds the encoder's per-action fields (``Encoder.action_fields``) to their
    actions' logits (``NetConfig.action_features``), with weights ``feature_weight`` at
    first: 0 (the default) leaves the policy unchanged, a large weight makes it follow a
    field that marks one action (Chocolates' ``plan_action``) from the start."""
    import dataclasses
    import math

    import torch

    from choco_envs.policy.checkpoint import file_sha256, load_policy, save_checkpoint
    from choco_envs.policy.net import ActorCritic, action_features_of
    from choco_envs.registry import make_game

    if not math.isfinite(feature_weight) or (feature_weight and not action_features):
        raise ConfigError(
            f"feature_weight={feature_weight!r} is not allowed; allowed: a finite number, "
            "and only with action_features"
        )
    model, meta = load_policy(source)
    config = model.config
    game = make_game(meta["env_id"], **meta["options"])
    if encoder not in game.encoders:
        raise ConfigError(
            f"encoder {encoder!r} is not an observation of {meta['env_id']}; "
            f"allowed: {', '.join(game.encoders)}"
        )
    old, new = game.encoder(meta["encoder"]), game.encoder(encoder)
    if len(new.shape) != len(old.shape) or new.shape[1:] != old.shape[1:]:
        raise ConfigError(
            f"encoder {encoder!r} has shape {new.shape}, not an extension of "
            f"{meta['encoder']!r} {old.shape} that {str(source)!r} was trained on"
        )
    shared = [(f.name, f.start, f.stop, f.low, f.high) for f in old.layout.fields]
    head = [(f.name, f.start, f.stop, f.low, f.high) for f in new.layout.fields][: len(shared)]
    if head != shared or new.shape[0] <= old.shape[0]:
        raise ConfigError(
            f"encoder {encoder!r} of {meta['env_id']} does not start with the fields of "
            f"{meta['encoder']!r} that {str(source)!r} was trained on (or adds nothing)"
        )
    if config.action_channels and new.action_planes != old.action_planes:
        raise ConfigError(
            f"encoder {encoder!r} places actions on the board unlike {meta['encoder']!r}, "
            f"whose board action head {str(source)!r} has"
        )
    first = _first_layer(config)
    features = config.action_features
    if action_features:
        if not new.action_fields or config.conv_channels:
            raise ConfigError(
                f"encoder {encoder!r} of {meta['env_id']} declares no per-action fields for a "
                "flat network (action_fields); allowed only where it does"
            )
        features = action_features_of(new)
    widened = ActorCritic(
        dataclasses.replace(config, obs_shape=tuple(new.shape), action_features=features)
    )
    state = model.state_dict()
    if features and "action_feature_weight" not in state:
        state["action_feature_weight"] = torch.full((len(features),), float(feature_weight))
    weight = state[first]
    if weight.shape[1] != old.shape[0]:
        raise CheckpointError(
            f"{str(source)!r}: first layer takes {weight.shape[1]} inputs, not {old.shape[0]}"
        )
    grown = torch.zeros((weight.shape[0], new.shape[0], *weight.shape[2:]), dtype=weight.dtype)
    grown[:, : old.shape[0]] = weight
    state[first] = grown
    widened.load_state_dict(state, strict=True)
    keep = _carried_meta(meta)
    keep["encoder"] = encoder
    keep["observation_shape"] = list(new.shape)
    keep["widened_from"] = {
        "path": str(source),
        "sha256": file_sha256(source),
        "encoder": meta["encoder"],
        "observation_shape": meta["observation_shape"],
    }
    return save_checkpoint(out, widened, keep)


def move_inputs(source: str | Path, moves: list[tuple[str, str]], out: str | Path) -> Path:
    """Write to ``out`` the policy of ``source`` whose first layer reads observation field
    ``dst`` where it read field ``src``, for each ``(src, dst)`` in ``moves``: the first
    layer's weights of ``src``'s inputs (entries, or planes for a conv net) move to
    ``dst``'s, and ``src``'s become 0. Given an observation whose ``dst`` holds what
    ``src`` held, the new network computes what the old one did.

    Made for a policy just widened to an observation that adds a better version of a
    field it already reads (Le Chocolat's ``search`` planes beside ``derived``'s greedy
    value planes): the policy reads the new one from the start. Refused (ConfigError) for
    an unknown field, fields of different sizes, a field named twice, a field that also
    feeds its actions' logits directly (``NetConfig.action_features``: that path would
    not move), or a ``dst`` whose weights are not all 0 (they would be overwritten)."""
    import torch

    from choco_envs.policy.checkpoint import file_sha256, load_policy, save_checkpoint
    from choco_envs.registry import make_game

    model, meta = load_policy(source)
    config = model.config
    layout = make_game(meta["env_id"], **meta["options"]).encoder(meta["encoder"]).layout
    fields = {f.name: f for f in layout.fields}
    named = [name for pair in moves for name in pair]
    for name in named:
        if name not in fields:
            raise ConfigError(
                f"field {name!r} is not in observation {meta['encoder']!r} of {str(source)!r}; "
                f"allowed: {', '.join(fields)}"
            )
    if not moves or len(set(named)) != len(named):
        raise ConfigError(f"moves {moves!r}: give each field once, at least one move")
    first = _first_layer(config)
    state = model.state_dict()
    weight = state[first].clone()
    for src, dst in moves:
        a, b = fields[src], fields[dst]
        for start, _first_action, size in config.action_features:
            for name, f in ((src, a), (dst, b)):
                if start < f.stop and f.start < start + size:
                    raise ConfigError(
                        f"field {name!r} of {str(source)!r} also feeds its actions' logits "
                        "directly (action_features), which moving its inputs would not "
                        "carry; allowed: fields without per-action logits"
                    )
        if a.stop - a.start != b.stop - b.start:
            raise ConfigError(
                f"fields {src!r} ({a.stop - a.start}) and {dst!r} ({b.stop - b.start}) "
                "differ in size; allowed: fields of one size"
            )
        if torch.count_nonzero(weight[:, b.start : b.stop]):
            raise ConfigError(
                f"the first layer already reads field {dst!r} of {str(source)!r} (nonzero "
                "weights); allowed: a field with zero weights, e.g. one just widened to"
            )
        weight[:, b.start : b.stop] = state[first][:, a.start : a.stop]
        weight[:, a.start : a.stop] = 0
    state[first] = weight
    model.load_state_dict(state, strict=True)
    keep = _carried_meta(meta)
    keep["moved_inputs"] = {
        "path": str(source),
        "sha256": file_sha256(source),
        "moves": [list(pair) for pair in moves],
    }
    return save_checkpoint(out, model, keep)


def _first_layer(config: Any) -> str:
    """The state-dict key of the network's first layer (a conv net's first conv layer)."""
    return FIRST_CONV if config.conv_channels else FIRST_LINEAR


def _carried_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """The metadata a derived checkpoint keeps (the format, network and observation layout
    are written afresh by ``save_checkpoint``)."""
    return {k: v for k, v in meta.items() if k not in ("format", "network", "observation_layout")}
