"""The one place where integrations and examples use the project's checkpoint format.

A policy trained by another library is written as a ``choco_envs.policy.net.ActorCritic``
(the network ``policy:PATH``, ``choco eval`` and ``choco play`` load) with the standard
metadata, so nothing downstream knows which library trained it. Only the stable surface
is used: ``NetConfig``, ``ActorCritic``, ``save_checkpoint``, ``load_policy`` and the
metadata writer every engine uses (``choco_envs.train.outputs.checkpoint_meta``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def game_facts(env_id: str, options: dict[str, Any], encoder: str) -> dict[str, Any]:
    """The metadata fields fixed by the env: id, version, options (the game's own
    values, defaults filled in), encoder, observation shape and number of actions (as
    the one metadata writer, ``choco_envs.train.outputs.checkpoint_meta``, states them)."""
    from choco_envs.registry import make_game
    from choco_envs.train.outputs import checkpoint_meta

    meta = checkpoint_meta(make_game(env_id, **options), encoder, steps=0)
    keys = ("env_id", "version", "options", "encoder", "observation_shape", "num_actions")
    return {k: meta[k] for k in keys}


def actor_critic(obs_shape: tuple[int, ...], num_actions: int, hidden: tuple[int, ...]) -> Any:
    """The project's masked MLP actor-critic (Flatten, then Linear + Tanh per hidden
    layer, a policy head and a value head on the shared torso)."""
    from choco_envs.policy.net import ActorCritic, NetConfig

    return ActorCritic(NetConfig(tuple(obs_shape), int(num_actions), tuple(hidden)))


def save_policy(
    path: str | Path,
    model: Any,
    env_id: str,
    options: dict[str, Any],
    encoder: str,
    steps_trained: int,
    arena: dict[str, Any] | None = None,
    training: dict[str, Any] | None = None,
) -> Path:
    """Write ``model`` (an ActorCritic) as a checkpoint of ``env_id`` with these options."""
    from choco_envs.policy.checkpoint import save_checkpoint
    from choco_envs.registry import make_game
    from choco_envs.train.outputs import checkpoint_meta

    game = make_game(env_id, **options)
    meta = checkpoint_meta(game, encoder, steps=steps_trained, arena=arena, training=training)
    return save_checkpoint(path, model, meta)


def load_policy(path: str | Path, env_id: str | None = None) -> tuple[Any, dict[str, Any]]:
    """(ActorCritic in eval mode, metadata) of a checkpoint, refused when incompatible."""
    from choco_envs.policy.checkpoint import load_policy as load

    return load(path, env_id)
