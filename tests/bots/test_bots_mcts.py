"""The MCTS bot: budgets, seeding, and that it plays well where the answer is known."""

from __future__ import annotations

import time

from choco_envs import bots
from choco_envs.arena import Entrant, run_arena
from choco_envs.bots.mcts import MCTSBot
from tests.bots.choco_toy import ToyRaceGame
from tests.bots.choco_toy.bots import make_min
from tests.bots.choco_toy.rules import ADD_THREE
from tests.bots.helpers import new_env, random_positions


def test_simulation_budget_is_exact():
    env = new_env(ToyRaceGame, seed=1)
    bot = bots.make("mcts:simulations=37", seed=0)
    bot.act(env)
    assert bot.last_iterations == 37


def test_time_budget_is_kept():
    env = new_env(ToyRaceGame, seed=1, rounds=4)
    bot = bots.make("mcts:time=0.05", seed=0)
    started = time.perf_counter()
    bot.act(env)
    assert time.perf_counter() - started < 0.5
    assert bot.last_iterations > 1


def test_same_seed_same_choices():
    for env in random_positions(ToyRaceGame, seed=3, every=1):
        first = bots.make("mcts:simulations=30,c=2", seed=5).act(env)
        assert first == bots.make("mcts:simulations=30,c=2", seed=5).act(env)


def test_finds_the_dominant_first_move():
    """Opening Secret race, +3 is worth more than every other choice."""
    env = new_env(ToyRaceGame, seed=2, rounds=4)
    assert MCTSBot(simulations=600, seed=1).act(env) == ADD_THREE


def test_beats_a_bot_that_always_takes_the_least():
    report = run_arena(
        ToyRaceGame,
        ["mcts:simulations=100", Entrant("min", make_min)],
        games=8,
        seed=4,
        progress=False,
    )
    assert report["bots"][0]["win_rate"] == 1.0


def test_greedy_rollouts_play_legal_games():
    env = new_env(ToyRaceGame, seed=2, num_players=3)
    bot = bots.make("mcts:simulations=20,rollout=greedy,epsilon=0.5", seed=1)
    while not all(env.terminations.values()):
        env.step(bot.act(env))
    assert env.game.is_over(env.state_)


def test_margin_values_stay_in_the_unit_interval():
    """With ``margin`` the playout value blends win/loss and the squashed score margin."""
    env = new_env(ToyRaceGame, seed=2, rounds=4)
    bot = MCTSBot(simulations=200, margin=0.5, seed=1)
    for _ in range(3):
        state = env.game.determinize(env.state_, 0, bot.rng)
        while not env.game.is_over(state):
            env.game.apply(state, 2, bot.rng)
        values = bot._values(env.game, state)
        assert all(0.0 <= v <= 1.0 for v in values)
    assert bot.act(env) == ADD_THREE
