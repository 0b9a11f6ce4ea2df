"""Where a PPO run's network starts: a fresh one, a checkpoint to continue
(``resume``: its weights and step count), or another file's weights (``init_from``),
moved into this run's network so that it starts by playing as that file did: the same
network as it is; a file of one table size into a seat-padded network; a seat-padded
file without mode marks into the same network with them; a file without features into
a network whose per-action head alone reads them; a file on one feature function into a
network on a wider one.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from choco_envs.core.errors import ConfigError

if TYPE_CHECKING:
    from choco_envs.train.ppo import Args, Setup


def start_model(args: Args, setup: Setup) -> tuple[Any, int]:
    """(The run's network in training mode, the env steps it was trained already):
    ``resume``'s file, or a fresh network of ``setup.net`` (``init_from``'s weights in
    it)."""
    from choco_envs.policy.checkpoint import load_policy
    from choco_envs.policy.net import ActorCritic

    if args.resume:
        model, meta = load_policy(args.resume, args.env_id, args.options)
        model.train()
        return model, int(meta["steps_trained"])
    model = ActorCritic(setup.net)
    if args.init_from:
        start_from(model, args)
    return model, 0


def start_from(model: Any, args: Args) -> None:
    """Load ``args.init_from``'s weights into ``model``: the same network as they are, or
    a file of one table size into a seat-padded MLP (its first layer's columns placed at
    the padded positions of its inputs, the rest zero: it plays as before), or a
    seat-padded file without mode marks into the same network with them (the marks'
    columns zero)."""
    from choco_envs.policy.checkpoint import load_policy
    from choco_envs.policy.seats import add_mode_marks, widen_first_layer

    old, meta = load_policy(args.init_from, args.env_id)
    stored = (meta.get("features") or {}).get("name", "")
    if not stored and args.feature and model.config.facts_head_only:
        return start_with_a_fact_head(model, old, meta, args)
    if meta["encoder"] == args.encoder and stored and args.feature and stored != args.feature:
        return start_from_other_features(model, old, meta, args)
    if (meta["encoder"], stored) != (args.encoder, args.feature):
        raise ConfigError(
            f"init_from: {args.init_from!r} reads encoder {meta['encoder']!r} and feature "
            f"{stored!r}; set encoder and feature to those"
        )
    if old.config == model.config:
        model.load_state_dict(old.state_dict())
        return
    new_maps = {
        name: False
        for name in ("facts_context", "facts_pool")
        if getattr(model.config, name) and not getattr(old.config, name)
    }
    if new_maps and old.config == replace(model.config, **new_maps):
        return start_with_context(model, old, args)
    seats = meta.get("seats")
    if seats is not None and args.mode_marks and not seats.get("mode_marks"):
        if seats.get("max_players") == args.max_players:
            marks = sum(len(v) for v in args.mode_marks.values())
            add_mode_marks(model, old, marks)
            return
    if seats is not None or not args.max_players:
        raise ConfigError(
            f"init_from: {args.init_from!r} holds another network ({old.config}) than this "
            f"run's ({model.config})"
        )
    from choco_envs.policy.features import PolicyInputs
    from choco_envs.registry import make_game

    table = make_game(args.env_id, **meta["options"])
    padded = PolicyInputs(table, args.encoder, args.feature, args.max_players, args.mode_marks)
    assert padded.padding is not None
    widen_first_layer(model, old, padded.padding)


def start_with_a_fact_head(model: Any, old: Any, meta: dict[str, Any], args: Args) -> None:
    """``start_from`` for a file without features into the same network plus a head that
    alone reads the new per-action facts (``action_head_only``): the torso's weights load
    as they are and the head's output starts at 0, so the network plays as before."""
    same = replace(
        model.config,
        extra_inputs=0,
        action_facts=(),
        facts_head_only=False,
        facts_context=False,
        facts_pool=False,
    )
    if meta["encoder"] != args.encoder or old.config != same:
        raise ConfigError(
            f"init_from: {args.init_from!r} holds another network ({old.config}) than this "
            f"run's torso ({same})"
        )
    missing, unexpected = model.load_state_dict(old.state_dict(), strict=False)
    heads = (
        "fact_head.", "fact_context.", "fact_heads.", "fact_contexts.", "fact_pools.",
        "fact_pool_values.",
    )  # fmt: skip
    if unexpected or any(not k.startswith(heads) for k in missing):
        raise ConfigError(
            f"init_from: {args.init_from!r}: weights {missing + unexpected} do not fit"
        )


def start_with_context(model: Any, old: Any, args: Args) -> None:
    """``start_from`` for a file whose fact head reads no context (or no pooled summary of
    the actions) into the same network whose head also reads the torso
    (``action_head_context``) or the pool (``action_head_pool``): every weight loads, the
    new maps stay at 0, so the network plays as before."""
    missing, unexpected = model.load_state_dict(old.state_dict(), strict=False)
    maps = ("fact_context.", "fact_contexts.", "fact_pools.", "fact_pool_values.")
    contexts = [k for k in model.state_dict() if k.startswith(maps) and k not in old.state_dict()]
    if unexpected or sorted(missing) != sorted(contexts):
        raise ConfigError(
            f"init_from: {args.init_from!r}: weights {missing + unexpected} do not fit"
        )


def start_from_other_features(model: Any, old: Any, meta: dict[str, Any], args: Args) -> None:
    """``start_from`` for a file of the same encoder and tables whose feature function's
    outputs are fields (by name) of this run's: each old input's first-layer column moved
    to that input's place, the new inputs' columns zero, so the network plays as before
    and learns to use them (and a new per-action head starts at 0)."""
    from choco_envs.policy.features import PolicyInputs
    from choco_envs.policy.seats import _layout_index, place_first_layer
    from choco_envs.registry import make_game

    seats = meta.get("seats") or {}
    if seats.get("max_players", 0) != args.max_players or bool(seats.get("mode_marks")) != bool(
        args.mode_marks
    ):
        raise ConfigError(
            f"init_from: {args.init_from!r} reads another table layout (seats {seats}) than "
            f"this run (max_players {args.max_players}, mode marks {args.mode_marks})"
        )
    n = args.max_players or meta["options"].get("num_players", 2)
    table = make_game(args.env_id, **{**args.options, "num_players": n})
    before = PolicyInputs.of_checkpoint(table, meta)
    after = PolicyInputs(table, args.encoder, args.feature, args.max_players, args.mode_marks)
    if before.obs_size != after.obs_size or before.features is None or after.features is None:
        raise ConfigError(f"init_from: {args.init_from!r} reads another observation")
    old_layout, new_layout = before.features.layout, after.features.layout
    if old_layout is None or new_layout is None:
        raise ConfigError(
            f"init_from: {args.init_from!r}: feature functions {meta['features']['name']!r} "
            f"and {args.feature!r} name no layouts to place their outputs by"
        )
    where = f"init_from {args.init_from!r} into feature {args.feature!r}"
    moved = _layout_index(old_layout, new_layout, where)
    rest = before.size - before.obs_size - before.feature_size  # seat and mode marks
    columns = np.concatenate(
        [
            np.arange(before.obs_size),
            after.obs_size + moved,
            after.obs_size + after.feature_size + np.arange(rest),
        ]
    )
    place_first_layer(model, old, columns)
