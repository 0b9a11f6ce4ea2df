"""The bots each game offers: its manifest's ``bots`` names the module whose ``BOTS``
(name -> :class:`~choco_envs.bots.base.BotKind`) are that game's own kinds. Used by the
registry (``choco_envs.bots.make``) and by MCTS rollouts (``game_policy``)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from choco_envs.bots.base import BotKind, StatePolicy
from choco_envs.core.errors import ConfigError
from choco_envs.registry import REGISTRY, manifest, manifests

#: the kinds every env has (made by ``choco_envs.bots.registry``)
COMMON_KINDS = ("random", "mcts", "policy", "ppo", "az", "human")
#: kinds registered at run time for games made outside the package (tests, plug-ins)
_REGISTERED: dict[str, dict[str, BotKind]] = {}


def register_game_bots(env_id: str, game_kinds: Mapping[str, BotKind]) -> None:
    """Make ``game_kinds`` (name -> BotKind, ``greedy`` among them) the bots of
    ``env_id``, a game made outside the registry (a registered game names its bots in
    its manifest)."""
    if env_id in REGISTRY:
        raise ConfigError(f"{env_id!r} lists its bots in {manifest(env_id).bots}.BOTS")
    clash = sorted(set(game_kinds) & set(COMMON_KINDS))
    if clash:
        raise ConfigError(f"bot kinds {clash} are every env's own; choose other names")
    _REGISTERED[env_id] = dict(game_kinds)


def game_bots(env_id: str) -> dict[str, BotKind]:
    """The kinds of bot that ``env_id``'s game offers (name -> BotKind); empty if none."""
    if env_id in _REGISTERED:
        return dict(_REGISTERED[env_id])
    if env_id not in REGISTRY:
        return {}
    return dict(importlib.import_module(manifest(env_id).bots).BOTS)


def game_policy(env_id: str, name: str = "greedy") -> StatePolicy:
    """The state policy of one of a game's bot kinds (MCTS rollouts use ``greedy``'s)."""
    kind = game_bots(env_id).get(name)
    if kind is None or kind.policy is None:
        raise ConfigError(
            f"bot {name!r} is not available for {env_id}: its game lists no such kind with "
            f"a state policy (kinds: {', '.join(game_bots(env_id))})"
        )
    return kind.policy


def all_game_kinds() -> list[str]:
    """The names of every game's kinds, each once, in the order first listed."""
    names: dict[str, None] = {}
    for env_id in [*(m.env_id for m in manifests()), *_REGISTERED]:
        names.update(dict.fromkeys(game_bots(env_id)))
    return list(names)
