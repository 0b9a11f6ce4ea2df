"""The AEC adapter over every registered configuration: PettingZoo's own api_test and
seed_test, and what RL libraries need beyond them."""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import choco_envs
from choco_envs.core.env import INFO_KEYS
from choco_envs.core.errors import ConfigError, IllegalActionError, RecordError
from choco_envs.records import replay

from .conftest import ENCODER_CONFIGS, ENCODER_IDS, ENV_IDS


def random_policy_game(env: Any, seed: int, max_steps: int = 100_000) -> list[int]:
    """Play one game with uniformly random legal actions; return the actions taken."""
    rng = random.Random(seed)
    taken = []
    for _agent in env.agent_iter(max_steps):
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        taken.append(action)
        env.step(action)
    return taken


def test_pettingzoo_api_test(configuration: tuple[str, dict]) -> None:
    env_id, config = configuration
    api_test(choco_envs.make(env_id, **config), num_cycles=300)


@pytest.mark.parametrize("encoder_config", ENCODER_CONFIGS, ids=ENCODER_IDS)
def test_pettingzoo_api_test_every_encoder(encoder_config: tuple[str, dict]) -> None:
    env_id, config = encoder_config
    api_test(choco_envs.make(env_id, **config), num_cycles=200)


def test_pettingzoo_seed_test(configuration: tuple[str, dict]) -> None:
    env_id, config = configuration
    seed_test(lambda: choco_envs.make(env_id, **config), num_cycles=300)


def test_same_seed_same_game_and_global_rngs_untouched(configuration: tuple[str, dict]) -> None:
    """Every random draw flows from reset(seed=...): two envs with one seed play the same
    game, and neither the global `random` nor `np.random` state is used or disturbed."""
    env_id, config = configuration
    py_state, np_state = random.getstate(), np.random.get_state()  # noqa: NPY002
    runs = []
    for _ in range(2):
        env = choco_envs.make(env_id, **config)
        env.reset(seed=123)
        actions = random_policy_game(env, seed=9)
        runs.append((actions, env.unwrapped.scores()))
    assert runs[0] == runs[1]
    assert random.getstate() == py_state
    after = np.random.get_state()  # noqa: NPY002
    assert (
        after[0] == np_state[0]
        and np.array_equal(after[1], np_state[1])
        and after[2:] == np_state[2:]
    )


def test_all_agents_end_together_with_returns_and_fixed_infos(
    configuration: tuple[str, dict],
) -> None:
    """All agents terminate at the same step; the final rewards are the game's returns
    (rank-based) and add up with the scores; infos hold the same numeric keys at every step
    and never the mask."""
    env_id, config = configuration
    env = choco_envs.make(env_id, **config)
    env.reset(seed=5)
    raw = env.unwrapped
    totals = {a: 0.0 for a in env.possible_agents}
    rng = random.Random(1)
    while not any(raw.terminations.values()):
        for a in env.possible_agents:
            assert tuple(raw.infos[a]) == INFO_KEYS
            assert all(isinstance(v, (int, float)) for v in raw.infos[a].values())
        agent = env.agent_selection
        obs = env.observe(agent)
        for other in env.possible_agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        for a in env.possible_agents:
            totals[a] += raw.rewards[a]
    assert all(raw.terminations.values()), "agents must all end together"
    expected = raw.game.returns(raw.state_)
    assert [raw.rewards[a] for a in env.possible_agents] == pytest.approx(expected)
    assert [totals[a] for a in env.possible_agents] == pytest.approx(expected)
    scores = raw.scores()
    for i, a in enumerate(env.possible_agents):
        assert raw.infos[a]["final_score"] == pytest.approx(scores[i])
        assert raw.infos[a]["game_over"] == 1


def test_score_reward_mode_gives_margins(configuration: tuple[str, dict]) -> None:
    """reward_mode="score": each seat's reward is its score minus the best other score."""
    env_id, config = configuration
    env = choco_envs.make(env_id, reward_mode="score", **config)
    env.reset(seed=11)
    raw = env.unwrapped
    rng = random.Random(2)
    while not any(raw.terminations.values()):
        env.step(rng.choice(raw.legal_actions()))
    scores = raw.scores()
    for i, a in enumerate(env.possible_agents):
        best_other = max(s for j, s in enumerate(scores) if j != i)
        assert raw.rewards[a] == pytest.approx(scores[i] - best_other)


def test_illegal_action_terminates_with_penalty_by_default(configuration: tuple[str, dict]) -> None:
    """By default an illegal action ends the game: -1 for the offender, 0 for the others,
    and a warning (PettingZoo's TerminateIllegalWrapper convention)."""
    env_id, config = configuration
    env = choco_envs.make(env_id, **config)
    env.reset(seed=3)
    mask = env.unwrapped.action_masks()
    illegal = int(np.flatnonzero(~mask)[0]) if (~mask).any() else env.unwrapped.game.num_actions
    offender = env.agent_selection
    with pytest.warns(RuntimeWarning, match=str(illegal)):
        env.step(illegal)
    raw = env.unwrapped
    assert all(raw.terminations.values())
    for a in env.possible_agents:
        assert raw._cumulative_rewards[a] == (-1.0 if a == offender else 0.0)
        assert raw.infos[a]["illegal_action"] == int(a == offender)


def test_illegal_action_raise_mode_changes_nothing(configuration: tuple[str, dict]) -> None:
    """illegal_action="raise": IllegalActionError (a ValueError) naming the action and the
    legal ones; the state and the agent to act are unchanged."""
    env_id, config = configuration
    env = choco_envs.make(env_id, illegal_action="raise", **config)
    env.reset(seed=4)
    raw = env.unwrapped
    before = json.dumps(raw.save(), sort_keys=True)
    agent = env.agent_selection
    mask = raw.action_masks()
    for bad in [raw.game.num_actions, -3, "x"] + np.flatnonzero(~mask)[:3].tolist():
        with pytest.raises(IllegalActionError, match="Legal actions") as err:
            env.step(bad)
        assert isinstance(err.value, ValueError)
        assert repr(bad) in str(err.value) or str(bad) in str(err.value)
    assert env.agent_selection == agent
    assert json.dumps(raw.save(), sort_keys=True) == before


def test_save_and_continue_and_replay(configuration: tuple[str, dict]) -> None:
    """A saved game continues exactly as the original (reset(options={"state": ...})), and
    a game record (options, seed, actions) replays to the identical end."""
    env_id, config = configuration
    env = choco_envs.make(env_id, **config)
    env.reset(seed=21)
    rng = random.Random(0)
    for _ in range(7):
        if any(env.unwrapped.terminations.values()):
            break
        env.step(rng.choice(env.unwrapped.legal_actions()))
    record = json.loads(json.dumps(env.unwrapped.save()))
    copy = choco_envs.make(env_id, **config)
    copy.reset(options={"state": record})
    rest_a = random_policy_game(env, seed=8)
    rest_b = random_policy_game(copy, seed=8)
    assert rest_a == rest_b
    assert env.unwrapped.scores() == copy.unwrapped.scores()
    final = env.unwrapped.save()
    replayed = replay(final)
    assert json.dumps(replayed.save()["state"], sort_keys=True) == json.dumps(
        final["state"], sort_keys=True
    )


def test_mismatched_saved_game_is_refused(configuration: tuple[str, dict]) -> None:
    env_id, config = configuration
    env = choco_envs.make(env_id, **config)
    env.reset(seed=1)
    record = env.unwrapped.save()
    for broken in (
        {**record, "env_id": "other_v9"},
        {**record, "version": record["version"] + 1},
        {**record, "format": "zip"},
        {k: v for k, v in record.items() if k != "state"},
        "not a record",
    ):
        with pytest.raises(RecordError):
            env.reset(options={"state": broken})


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_unknown_options_and_values_are_refused(env_id: str) -> None:
    """An unknown option or value is refused with the allowed values named."""
    with pytest.raises(ConfigError, match="known options"):
        choco_envs.make(env_id, no_such_option=1)
    with pytest.raises(ConfigError, match="allowed values"):
        choco_envs.make(env_id, num_players=7)
    with pytest.raises(ConfigError, match="allowed values"):
        choco_envs.make(env_id, illegal_action="ignore")
    with pytest.raises(ConfigError, match="allowed values"):
        choco_envs.make(env_id, observation="pixels")
    with pytest.raises(ConfigError):
        choco_envs.make(env_id, render_player=99)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_public_surface_and_render(env_id: str) -> None:
    """`from choco_envs import <env_id>` gives env and raw_env; ansi render returns text of
    the spectator's view; the layout names every observation entry."""
    module = getattr(choco_envs, env_id)
    env = module.env(render_mode="ansi")
    env.reset(seed=0)
    assert isinstance(env.render(), str) and env.render()
    raw = module.raw_env()
    raw.reset(seed=0)
    layout = raw.observation_layout()
    covered = sum(s.stop - s.start for _, s, _ in layout)
    assert covered == raw.encoder.shape[0]
    assert env_id in choco_envs.list_envs()
