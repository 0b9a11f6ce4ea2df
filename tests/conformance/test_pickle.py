"""Envs pickle and deep-copy (every configuration, every encoder): a mid-game env round-
tripped through ``pickle`` and ``copy.deepcopy`` plays on exactly as the original (same
observations, masks, rewards and dice or draws), as PettingZoo's own envs do, so that
vector envs that pickle and Ray's object transfer work."""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import numpy as np
import pytest

import choco_envs

from .conftest import CONFIG_IDS, CONFIGS, ENCODER_CONFIGS, ENCODER_IDS

#: random moves played before the copy is made
BEFORE = 15


def play_on(env: Any, actions: random.Random, steps: int) -> list[Any]:
    """What ``env`` shows over ``steps`` more moves chosen by ``actions``."""
    seen = []
    for _ in range(steps):
        if not env.agents:
            break
        obs, reward, term, trunc, _ = env.last()
        seen.append(
            (
                env.agent_selection,
                obs["observation"].tobytes(),
                obs["action_mask"].tobytes(),
                reward,
            )
        )
        env.step(
            None if term or trunc else actions.choice(np.flatnonzero(obs["action_mask"]).tolist())
        )
    seen.append(env.unwrapped.save())
    return seen


def round_trip(env_id: str, options: dict[str, Any]) -> None:
    env = choco_envs.make(env_id, **options)
    env.reset(seed=7)
    play_on(env, random.Random(1), BEFORE)
    pickled = pickle.loads(pickle.dumps(env))
    deep = copy.deepcopy(env)
    assert pickled.game is not env.game and deep.game is not env.game
    expected = play_on(env, random.Random(2), 10_000)
    assert play_on(pickled, random.Random(2), 10_000) == expected
    assert play_on(deep, random.Random(2), 10_000) == expected


@pytest.mark.parametrize("configuration", CONFIGS, ids=CONFIG_IDS)
def test_a_mid_game_env_pickles_and_deep_copies_and_plays_on_identically(
    configuration: tuple[str, dict[str, Any]],
) -> None:
    round_trip(*configuration)


@pytest.mark.parametrize("configuration", ENCODER_CONFIGS, ids=ENCODER_IDS)
def test_every_encoder_survives_the_round_trip(configuration: tuple[str, dict[str, Any]]) -> None:
    round_trip(*configuration)
