"""Le Chocolat through the AEC env."""

from __future__ import annotations

import numpy as np
import pytest

import choco_envs
from choco_envs.core.errors import ConfigError
from choco_envs.games.le_chocolat import LeChocolatGame

from .helpers import claim, split, vertical


def test_env_claim_is_a_second_step_by_the_same_agent() -> None:
    """Issue 4: "a split is one action ... and the claim is a second step by the same agent
    when there is a choice"; the other agent's mask is all zeros."""
    env = choco_envs.make("le_chocolat_v0", scoring_card=0)
    env.reset(seed=0)
    env.step(split("a1", vertical("f")))
    assert env.agent_selection == "player_1"
    env.step(split("g1", 7))  # g1: 2 tiles, g3: 3 tiles
    assert env.agent_selection == "player_1"
    mask = env.observe("player_1")["action_mask"]
    assert np.flatnonzero(mask).tolist() == [claim("g1"), claim("g3")]
    assert not env.observe("player_0")["action_mask"].any()
    env.step(claim("g3"))
    assert env.agent_selection == "player_0"


@pytest.mark.parametrize("name", ["derived", "search", "plan"])
def test_only_game_information_encoders_exist(name: str) -> None:
    """Issue 21: "Observations are game information": ``flat`` and ``planes`` only; the
    bot-computed ``derived`` (greedy values) and ``search`` (alpha-beta values) encoders
    are gone, and asking for one is a ConfigError naming the allowed ones."""
    assert list(LeChocolatGame().encoders) == ["flat", "planes"]
    with pytest.raises(
        ConfigError, match=rf"observation='{name}'.*allowed values: 'flat', 'planes'"
    ):
        choco_envs.make("le_chocolat_v0", observation=name)
