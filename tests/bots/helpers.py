"""Shared helpers of the bot tests: envs for every registered game plus the toy game,
and positions reached by random play."""

from __future__ import annotations

import random
from typing import Any

import choco_envs
from choco_envs.core.env import ChocoAECEnv
from choco_envs.registry import game_class
from tests.bots.choco_toy import ToyRaceGame

#: every game the bots must serve: the registered games present, and the toy game
GAMES: list[Any] = [*(game_class(e) for e in choco_envs.list_envs()), ToyRaceGame]


def game_id(game_cls: Any) -> str:
    return str(game_cls.spec.env_id)


def new_env(game_cls: Any, seed: int, **options: Any) -> ChocoAECEnv:
    """A raw env of ``game_cls``, reset with ``seed``, raising on illegal actions."""
    env = ChocoAECEnv(game_cls, illegal_action="raise", **options)
    env.reset(seed=seed)
    return env


def restored(env: ChocoAECEnv, state: Any | None = None) -> ChocoAECEnv:
    """A new env continuing ``env``'s game from its record, with ``state`` (a rules
    state of the same game) in place of the current one when given: then a position set
    up by hand, without the history (seed null, no actions) that would not lead to it."""
    record = env.save()
    if state is not None:
        record.update(state=env.game.to_json(state), seed=None, actions=[])
    other = ChocoAECEnv(type(env.game), illegal_action="raise", **env.game.config)
    other.reset(options={"state": record})
    return other


def random_positions(game_cls: Any, seed: int, every: int, games: int = 2) -> list[ChocoAECEnv]:
    """Live copies of the positions every ``every`` steps of random games."""
    rng = random.Random(seed)
    snapshots = []
    for game in range(games):
        env = new_env(game_cls, seed=seed + game)
        step = 0
        while not all(env.terminations.values()):
            if step % every == 0:
                snapshots.append(restored(env))
            legal = env.legal_actions()
            env.step(legal[rng.randrange(len(legal))])
            step += 1
    return snapshots
