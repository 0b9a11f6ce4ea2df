"""Give a trained MLP policy a longer observation that starts with the one it knows.

An encoder such as Chocolatiers' ``"derived"`` is ``"flat"`` followed by more fields. A
policy trained on ``"flat"`` can keep everything it learned and start using the new fields:
its first layer gets one zero column per new entry, so the widened network computes
exactly what the old one did until training moves those weights. The checkpoint records
what it was widened from.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from choco_envs.core.errors import CheckpointError, ConfigError

FIRST_LAYER = "torso.1.weight"  # Flatten, then the first Linear layer


def widen_checkpoint(source: str | Path, encoder: str, out: str | Path) -> Path:
    """Write to ``out`` the policy of ``source`` for observation ``encoder``, whose first
    fields must be those of the encoder ``source`` was trained on (same names, positions
    and bounds). Refused (ConfigError / CheckpointError) otherwise, or for a conv net."""
    import torch

    from choco_envs.policy.checkpoint import file_sha256, load_policy, save_checkpoint
    from choco_envs.policy.net import ActorCritic, NetConfig
    from choco_envs.registry import make_game

    model, meta = load_policy(source)
    config = model.config
    if config.conv_channels:
        raise ConfigError(
            f"{str(source)!r} is a convolutional policy; only MLP policies on a flat "
            "observation can be widened"
        )
    game = make_game(meta["env_id"], **meta["options"])
    if encoder not in game.encoders:
        raise ConfigError(
            f"encoder {encoder!r} is not an observation of {meta['env_id']}; "
            f"allowed: {', '.join(game.encoders)}"
        )
    old, new = game.encoder(meta["encoder"]), game.encoder(encoder)
    if len(new.shape) != 1:
        raise ConfigError(f"encoder {encoder!r} is not flat (shape {new.shape})")
    shared = [(f.name, f.start, f.stop, f.low, f.high) for f in old.layout.fields]
    head = [(f.name, f.start, f.stop, f.low, f.high) for f in new.layout.fields][: len(shared)]
    if head != shared or new.shape[0] <= old.shape[0]:
        raise ConfigError(
            f"encoder {encoder!r} of {meta['env_id']} does not start with the fields of "
            f"{meta['encoder']!r} that {str(source)!r} was trained on (or adds nothing)"
        )
    widened = ActorCritic(NetConfig(tuple(new.shape), config.num_actions, config.hidden))
    state = model.state_dict()
    weight = state[FIRST_LAYER]
    if weight.shape[1] != old.shape[0]:
        raise CheckpointError(
            f"{str(source)!r}: first layer takes {weight.shape[1]} inputs, not {old.shape[0]}"
        )
    grown = torch.zeros(weight.shape[0], new.shape[0], dtype=weight.dtype)
    grown[:, : old.shape[0]] = weight
    state[FIRST_LAYER] = grown
    widened.load_state_dict(state, strict=True)
    keep: dict[str, Any] = {
        k: v for k, v in meta.items() if k not in ("format", "network", "observation_layout")
    }
    keep["encoder"] = encoder
    keep["observation_shape"] = list(new.shape)
    keep["widened_from"] = {
        "path": str(source),
        "sha256": file_sha256(source),
        "encoder": meta["encoder"],
        "observation_shape": meta["observation_shape"],
    }
    return save_checkpoint(out, widened, keep)
