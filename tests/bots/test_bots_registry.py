"""Bots made by name: specs, options, and the errors for bad ones."""

from __future__ import annotations

import pytest

from choco_envs import bots
from choco_envs.bots.base import HeuristicBot
from choco_envs.bots.human import HumanBot
from choco_envs.bots.mcts import MCTSBot
from choco_envs.bots.random_bot import RandomBot
from choco_envs.core.errors import ConfigError


def test_kinds_make_their_bots():
    assert isinstance(bots.make("random"), RandomBot)
    assert isinstance(bots.make("greedy", env_id="chocolates_v0"), HeuristicBot)
    assert isinstance(bots.make("human"), HumanBot)
    assert isinstance(bots.make("mcts"), MCTSBot)


def test_mcts_options_are_read():
    spec = "mcts:time=1.5,simulations=100000,c=1.2,rollout=greedy,epsilon=0.1,margin=0.5"
    bot = bots.make(spec)
    assert isinstance(bot, MCTSBot)
    assert (bot.seconds, bot.simulations, bot.c) == (1.5, 100000, 1.2)
    assert (bot.rollout, bot.epsilon, bot.margin) == ("greedy", 0.1, 0.5)


def test_mcts_budget_defaults():
    """No budget: 400 simulations; a time alone: no simulation limit."""
    assert bots.make("mcts").simulations == 400
    timed = bots.make("mcts:time=0.5")
    assert (timed.simulations, timed.seconds) == (None, 0.5)


@pytest.mark.parametrize(
    ("spec", "named"),
    [
        ("alphazero", "allowed kinds: random, mcts, policy, ppo, az, human, greedy"),
        ("", "allowed kinds"),
        ("mcts:depth=3", "allowed options: simulations, time, c, rollout, epsilon, margin"),
        ("mcts:margin=1.5", "float in [0, 1]"),
        ("mcts:simulations=0", "int in [1, inf]"),
        ("mcts:simulations=many", "simulations='many'"),
        ("mcts:time=-1", "float in (0, inf]"),
        ("mcts:rollout=smart", "allowed values: random, greedy"),
        ("mcts:epsilon=2", "float in [0, 1]"),
        ("mcts:simulations", "not of the form key=value"),
        ("random:fast=1", "allowed options: none"),
        ("policy:", "needs a checkpoint path"),
        ("ppo", "needs an env_id"),
    ],
)
def test_bad_specs_raise_config_error_naming_the_allowed(spec, named):
    with pytest.raises(ConfigError) as err:
        bots.make(spec)
    assert named in str(err.value)


def test_ppo_without_a_shipped_checkpoint_says_so():
    with pytest.raises(ConfigError, match="no_such_env_v0"):
        bots.make("ppo", env_id="no_such_env_v0")
