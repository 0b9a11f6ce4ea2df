"""SingleAgentEnv: the learner's own rewards, opponents, illegal actions, check_env."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from choco_envs.core.errors import ChocoError, ConfigError
from choco_envs.wrappers import SingleAgentEnv
from tests.training.toy_nim import ENV_ID

TAKE_1, TAKE_2, TAKE_3 = 0, 1, 2


def take_most(env: Any) -> int:
    """A scripted opponent: takes as many stones as it may (up to 3)."""
    return int(np.flatnonzero(env.unwrapped.legal_mask())[-1])


def play(env: SingleAgentEnv, actions: list[int]) -> list[tuple[float, bool]]:
    out = []
    for a in actions:
        _, reward, terminated, truncated, _ = env.step(a)
        assert not truncated
        out.append((reward, terminated))
    return out


def test_winning_move_gets_plus_one_only_at_the_end() -> None:
    """5 stones: learner takes 1 (4 left), the opponent takes 3 (1 left), learner takes
    the last one and wins."""
    env = SingleAgentEnv(ENV_ID, opponents=take_most, learner_seat=0, stones=5)
    env.reset(seed=0)
    assert play(env, [TAKE_1, TAKE_1]) == [(0.0, False), (1.0, True)]


def test_loser_gets_its_final_reward_when_the_opponent_ends_the_game() -> None:
    """5 stones: learner takes 2 (3 left), the opponent takes all 3 and wins: the
    learner's own step returns -1 and ends the episode."""
    env = SingleAgentEnv(ENV_ID, opponents=take_most, learner_seat=0, stones=5)
    env.reset(seed=0)
    assert play(env, [TAKE_2]) == [(-1.0, True)]
    assert not env.action_masks().any()


def test_learner_in_second_seat_waits_for_the_opponent() -> None:
    """10 stones, learner seat 1: the opponent takes 3 first, so 7 are left; the learner
    takes 3 (4 left), the opponent 3 (1 left), the learner takes the last and wins."""
    env = SingleAgentEnv(ENV_ID, opponents=take_most, learner_seat=1, stones=10)
    obs, info = env.reset(seed=0)
    assert info["learner_seat"] == 1 and obs[7] == 1.0 and obs[25] == 1.0
    assert play(env, [TAKE_3, TAKE_1]) == [(0.0, False), (1.0, True)]


def test_multi_step_turn_keeps_the_learner_moving() -> None:
    """Two moves per turn, 10 stones: learner takes 1 and 1 (8 left), the opponent takes
    3 and 3 (2 left), the learner takes 2 and wins."""
    env = SingleAgentEnv(ENV_ID, opponents=take_most, learner_seat=0, stones=10, moves_per_turn=2)
    env.reset(seed=0)
    assert play(env, [TAKE_1, TAKE_1, TAKE_2]) == [(0.0, False), (0.0, False), (1.0, True)]
    assert env.env_steps == 5


def test_illegal_action_ends_the_episode_with_the_penalty() -> None:
    env = SingleAgentEnv(ENV_ID, opponents="random", learner_seat=0, stones=3, illegal_penalty=-2.0)
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(TAKE_3 + 5)
    assert (reward, terminated, info["illegal_action"]) == (-2.0, True, 1)
    with pytest.raises(ChocoError, match="call reset"):
        env.step(TAKE_1)


def test_random_seat_and_opponent_list_vary_per_episode() -> None:
    env = SingleAgentEnv(ENV_ID, opponents=["random", "greedy"], stones=10)
    seats = {env.reset(seed=s)[1]["learner_seat"] for s in range(20)}
    assert seats == {0, 1}
    names = set()
    for s in range(20):
        env.reset(seed=s)
        names.add(type(env._seat_players[1 - env.learner_seat]).__name__)
    assert names == {"RandomBot", "HeuristicBot"}


def test_reset_with_a_seed_replays_the_same_episode() -> None:
    env = SingleAgentEnv(ENV_ID, opponents="random", stones=13)
    first = [env.reset(seed=4)[0].tolist(), env.step(TAKE_1)[0].tolist()]
    again = [env.reset(seed=4)[0].tolist(), env.step(TAKE_1)[0].tolist()]
    assert first == again


def test_bad_options_name_what_is_allowed() -> None:
    with pytest.raises(ConfigError, match="learner_seat=5 is not allowed"):
        SingleAgentEnv(ENV_ID, learner_seat=5)
    with pytest.raises(ConfigError, match="opponent 3 is not allowed"):
        SingleAgentEnv(ENV_ID, opponents=3)  # type: ignore[arg-type]


def test_sb3_check_env_passes() -> None:
    from stable_baselines3.common.env_checker import check_env

    env = SingleAgentEnv(ENV_ID, opponents=["random", "greedy"], stones=13)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env, warn=True)


@pytest.mark.parametrize("bad", [0.7, 1.0, "1", None, np.float32(1), np.array([0.5]), True])
def test_an_action_that_is_not_an_int_is_refused_and_changes_nothing(bad: object) -> None:
    from choco_envs.core.errors import IllegalActionError

    env = SingleAgentEnv(ENV_ID, opponents="random", stones=10)
    env.reset(seed=1)
    before = env.aec.save()
    with pytest.raises(IllegalActionError, match="actions are ints"):
        env.step(bad)
    assert env.aec.save() == before
    obs, reward, done, _, _ = env.step(np.array(TAKE_1))  # a 0-d int array is an action
    assert not (done and reward == env.illegal_penalty)
