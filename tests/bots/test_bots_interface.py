"""The bot interface on every env: each bot returns a legal action for the agent to act."""

from __future__ import annotations

import pytest

import choco_envs
from choco_envs import bots
from choco_envs.bots.base import Bot
from tests.bots.helpers import GAMES, game_id, new_env

#: small budgets: this checks the interface, not strength
SPECS = ("random", "greedy", "mcts:simulations=8")


def play_out(env, seats: list[Bot]) -> int:
    """Play to the end, asserting every chosen action is in the mask; return the steps."""
    steps = 0
    while not all(env.terminations.values()):
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"]
        action = seats[env.agent_name_mapping[agent]].act(env)
        assert isinstance(action, int)
        assert mask[action] == 1, f"{action} is not legal"
        env.step(action)
        steps += 1
    return steps


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("game_cls", GAMES, ids=game_id)
def test_every_bot_plays_legal_actions_to_the_end(game_cls, spec):
    """Each bot, in every seat against random bots, chooses only legal actions."""
    for game in range(2):
        players = game_cls.spec.min_players + game % 2
        players = min(players, game_cls.spec.max_players)
        env = new_env(game_cls, seed=game, num_players=players)
        seats = [bots.make("random", seed=s) for s in range(players)]
        seats[game % players] = bots.make(spec, seed=game)
        assert play_out(env, seats) > 0


@pytest.mark.parametrize("env_id", choco_envs.list_envs())
def test_act_works_on_the_wrapped_env_from_make(env_id):
    """``bot.act(env)`` serves ``env.agent_selection`` of the order-enforced env too."""
    env = choco_envs.make(env_id)
    env.reset(seed=3)
    bot = bots.make("mcts:simulations=4", env_id=env_id, seed=1)
    for _ in range(5):
        if all(env.unwrapped.terminations.values()):
            break
        action = bot.act(env)
        assert env.unwrapped.legal_mask()[action]
        env.step(action)


def test_bot_names_are_their_specs():
    assert bots.make("mcts:simulations=8").name == "mcts:simulations=8"
    assert repr(bots.make("random")) == "<RandomBot random>"
