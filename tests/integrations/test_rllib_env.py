"""The RLlib adapter without a Ray cluster: spaces, turns, own-seat rewards (PettingZoo
issue 1147), the league's policy mapping, and the export of an RLlib module to the
project's ActorCritic (the same action on 1,000 states)."""

from __future__ import annotations

import random
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

import torch  # noqa: E402

from choco_envs.core.errors import ConfigError  # noqa: E402
from choco_envs.integrations.rllib import MASK_KEY, OBS_KEY, ChocoMultiAgentEnv  # noqa: E402
from choco_envs.integrations.rllib.league import MAIN, League, bot_spec  # noqa: E402
from choco_envs.registry import list_envs  # noqa: E402

ENVS = [
    ("chocolates_v0", {"num_players": 3}),
    ("le_chocolat_v0", {}),
    ("le_chocolat_v0", {"observation": "planes"}),
    ("chocolatiers_v1", {"num_players": 2, "edition": "classic"}),
    ("chocolate_factory_v2", {"num_players": 2}),
]


def make(env_id: str, options: dict) -> ChocoMultiAgentEnv:
    return ChocoMultiAgentEnv({"env_id": env_id, "options": options})


def play(env: ChocoMultiAgentEnv, rng: random.Random, seed: int) -> tuple[dict, list]:
    """A game with random legal actions: (each agent's summed reward, the decisions)."""
    obs, _ = env.reset(seed=seed)
    totals: dict[str, float] = {}
    decisions = []
    while True:
        ((agent, o),) = obs.items()
        assert o[MASK_KEY].any(), "the agent to act has a legal action"
        decisions.append((agent, o))
        action = rng.choice(np.flatnonzero(o[MASK_KEY]).tolist())
        obs, rewards, terms, truncs, _ = env.step({agent: action})
        for a, r in rewards.items():
            totals[a] = totals.get(a, 0.0) + r
        if terms["__all__"]:
            assert set(obs) == set(rewards), "every agent that acted gets its last step"
            return totals, decisions
        assert len(obs) == 1 and not truncs["__all__"]


@pytest.mark.parametrize("env_id", list_envs())
def test_rllib_env_checker_passes(env_id: str) -> None:
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    env = make(env_id, {})
    check_multiagent_environments(env)
    space = env.observation_spaces["player_0"]
    assert set(space.spaces) == {OBS_KEY, MASK_KEY}
    assert space[MASK_KEY].shape == (env.num_actions,)


@pytest.mark.parametrize(("env_id", "options"), ENVS)
def test_each_agent_gets_its_own_seat_reward(env_id: str, options: dict) -> None:
    """PettingZoo issue 1147: a seat is never trained on another seat's reward. Every
    agent's rewards over a game sum to its own seat's final reward in the AEC env, the
    winner +1, with bots in some seats and in none."""
    env = make(env_id, options)
    rng = random.Random(0)
    for game in range(6):
        if game % 2:
            env.set_bots({"player_1": "random"})
        totals, decisions = play(env, rng, seed=game)
        aec = env.aec
        for agent, total in totals.items():
            assert total == pytest.approx(aec.rewards[agent]), agent
            assert total == env.last_rewards[agent]
        returns = aec.game.returns(aec.state_)
        for agent in totals:
            assert totals[agent] == pytest.approx(returns[aec.agent_name_mapping[agent]])
        if game % 2:
            assert "player_1" not in {a for a, _ in decisions}, "a bot seat is never seen"
        assert env.last_game_steps >= len(decisions)


def test_observation_is_the_aec_observation_flattened() -> None:
    env = make("le_chocolat_v0", {"observation": "planes"})
    obs, _ = env.reset(seed=3)
    ((agent, o),) = obs.items()
    aec = env.aec.observe(agent)
    np.testing.assert_array_equal(o[OBS_KEY], aec["observation"].reshape(-1))
    np.testing.assert_array_equal(o[MASK_KEY], aec["action_mask"].astype(np.float32))
    assert o[OBS_KEY].dtype == np.float32 and o[MASK_KEY].dtype == np.float32


def test_illegal_action_ends_the_game_with_minus_one_for_the_offender() -> None:
    env = make("chocolates_v0", {"num_players": 2})
    obs, _ = env.reset(seed=1)
    ((agent, o),) = obs.items()
    while o[MASK_KEY].all():  # play legal moves until some action is forbidden
        obs, *_ = env.step({agent: int(np.flatnonzero(o[MASK_KEY])[0])})
        ((agent, o),) = obs.items()
    illegal = int(np.flatnonzero(o[MASK_KEY] == 0)[0])
    obs, rewards, terms, _, _ = env.step({agent: illegal})
    assert terms["__all__"] and rewards[agent] == -1.0
    assert all(r == 0.0 for a, r in rewards.items() if a != agent)
    with pytest.raises(RuntimeError):
        env.step({agent: 0})


def test_set_bots_is_checked() -> None:
    env = make("chocolates_v0", {"num_players": 2})
    with pytest.raises(ConfigError):
        env.set_bots({"player_7": "random"})
    with pytest.raises(ConfigError):
        env.set_bots({"player_0": "random", "player_1": "random"})
    with pytest.raises(ConfigError):
        make("chocolates_v0", {"illegal_action": "raise"})


# ---------------------------------------------------------------------- league


def episode(i: int) -> SimpleNamespace:
    return SimpleNamespace(id_=f"episode-{i}")


def test_league_maps_every_seat_of_a_game_consistently() -> None:
    league = League(
        4,
        self_play=0.2,
        past=0.4,
        bots={"random": 1, "greedy": 3},
        snapshots=("main_v1", "main_v2"),
    )
    kinds: dict[str, int] = {}
    for i in range(2000):
        seats = league.seats(f"episode-{i}")
        assert seats == [league(f"player_{s}", episode(i)) for s in range(4)]
        assert MAIN in seats, "one seat of every game is the learner"
        for m in seats:
            kind = "bot" if bot_spec(m) else ("past" if m.startswith("main_v") else "main")
            kinds[kind] = kinds.get(kind, 0) + 1
    others = 2000 * 3
    # a non-learner seat: main 0.2, a snapshot 0.4, a bot 0.4
    assert kinds["past"] / others == pytest.approx(0.4, abs=0.03)
    assert kinds["bot"] / others == pytest.approx(0.4, abs=0.03)
    greedy = sum(s.count("bot_greedy") for s in (league.seats(f"e{i}") for i in range(2000)))
    assert greedy / (others * 0.4) == pytest.approx(0.75, abs=0.05)


def test_league_past_is_self_play_until_a_snapshot_exists() -> None:
    league = League(2, self_play=0.0, past=1.0, bots={})
    assert all(league.seats(f"e{i}") == [MAIN, MAIN] for i in range(50))
    league = league.with_snapshots(("main_v1",))
    assert all(sorted(league.seats(f"e{i}")) == [MAIN, "main_v1"] for i in range(50))


@pytest.mark.parametrize(
    "kwargs",
    [dict(self_play=1.5), dict(self_play=0.7, past=0.7), dict(self_play=0.5, past=0.0, bots={})],
)
def test_league_settings_are_checked(kwargs: dict) -> None:
    with pytest.raises(ConfigError):
        League(2, **kwargs)


# ---------------------------------------------------------------------- export


def decision_states(
    env_id: str, options: dict, count: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """``count`` decision points of random games: (observations, masks)."""
    env = make(env_id, options)
    rng = random.Random(seed)
    obs, masks = [], []
    game = 0
    while len(obs) < count:
        _, decisions = play(env, rng, seed=seed + game)
        game += 1
        for _, o in decisions:
            obs.append(o[OBS_KEY])
            masks.append(o[MASK_KEY])
    return np.stack(obs[:count]), np.stack(masks[:count])


def randomized_module(env: ChocoMultiAgentEnv, hidden: tuple[int, ...], seed: int):
    """An RLlib masking module of the trainer's spec, with weights far from their
    initialisation (so that logits differ clearly between actions)."""
    from choco_envs.integrations.rllib.module import module_spec

    torch.manual_seed(seed)
    module = module_spec(
        hidden, env.observation_spaces["player_0"], env.action_spaces["player_0"]
    ).build()
    with torch.no_grad():
        for p in module.parameters():
            p.normal_(0.0, 0.3)
    return module


@pytest.mark.parametrize(("env_id", "options"), ENVS)
def test_exported_actor_critic_chooses_the_modules_action_on_1000_states(
    env_id: str, options: dict
) -> None:
    from choco_envs.integrations.checkpoint import game_facts
    from choco_envs.integrations.rllib.module import module_logits, to_actor_critic

    env = make(env_id, options)
    hidden = (64, 32)
    module = randomized_module(env, hidden, seed=1)
    encoder = options.get("observation", "flat")
    rule_options = {k: v for k, v in options.items() if k != "observation"}
    facts = game_facts(env_id, rule_options, encoder)
    model = to_actor_critic(
        module.state_dict(), tuple(facts["observation_shape"]), facts["num_actions"], hidden
    )
    obs, masks = decision_states(env_id, options, 1000, seed=5)
    obs_t, mask_t = torch.from_numpy(obs), torch.from_numpy(masks)
    rllib_logits = module_logits(module, obs_t, mask_t)
    with torch.no_grad():
        own_logits, _ = model(obs_t.reshape(len(obs), *facts["observation_shape"]), mask_t.bool())
    assert torch.equal(rllib_logits.argmax(-1), own_logits.argmax(-1))
    legal = mask_t.bool()
    torch.testing.assert_close(rllib_logits[legal], own_logits[legal], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(
        rllib_logits.softmax(-1), own_logits.softmax(-1), rtol=1e-5, atol=1e-6
    )
    # values too: the critic is RLlib's value head
    with torch.no_grad():
        batch = {"obs": {OBS_KEY: obs_t[:50], MASK_KEY: mask_t[:50]}}
        values = module.compute_values(batch)
        _, own_values = model(
            obs_t[:50].reshape(50, *facts["observation_shape"]), mask_t[:50].bool()
        )
    torch.testing.assert_close(values, own_values, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("action", [0.5, "3", [1, 2], None])
def test_an_action_that_is_not_an_integer_is_illegal(action) -> None:
    env = make("chocolates_v0", {"num_players": 2})
    obs, _ = env.reset(seed=1)
    ((agent, _),) = obs.items()
    _, rewards, terms, _, _ = env.step({agent: action})
    assert terms["__all__"] and rewards[agent] == -1.0


def test_numpy_integer_actions_are_taken() -> None:
    env = make("chocolates_v0", {"num_players": 2})
    obs, _ = env.reset(seed=1)
    ((agent, o),) = obs.items()
    legal = int(np.flatnonzero(o[MASK_KEY])[0])
    _, _, terms, _, _ = env.step({agent: np.int64(legal)})
    assert not terms["__all__"] and env.aec.actions_taken == [legal]
