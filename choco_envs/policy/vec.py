"""Kept only for ``choco_envs.wrappers``, which imports ``make_bot`` from here; once it
calls ``choco_envs.bots.make`` directly, delete this module. The vectorized games of
self-play are in ``choco_envs.train.games``."""

from __future__ import annotations

from choco_envs.bots.base import Bot


def make_bot(spec: str, env_id: str, seed: int | None) -> Bot:
    """A bot from the registry ``choco_envs.bots.make``."""
    from choco_envs.bots import make

    return make(spec, env_id=env_id, seed=seed)
