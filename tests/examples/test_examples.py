"""Every recipe in examples/ runs on every env with a tiny budget, and credits each seat
with its own final reward (PettingZoo issue 1147: never the reward of the seat that moved
last, nor that of the step a decision was taken on). A recipe whose library is not
installed is skipped (`pip install -e ".[rllib,torchrl,tianshou,sb3]"`)."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from choco_envs.registry import list_envs

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ENVS = list_envs()


def load(name: str, *needs: str) -> ModuleType:
    for module in needs:
        pytest.importorskip(module)
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------- each runs


@pytest.mark.parametrize("env_id", ENVS)
def test_torchrl_example_runs(env_id: str) -> None:
    m = load("torchrl_ppo", "torchrl", "tensordict")
    rate = m.main(
        [
            "--env-id",
            env_id,
            "--total-steps",
            "150",
            "--rollout-steps",
            "150",
            "--hidden",
            "32",
            "--eval-games",
            "1",
        ]
    )
    assert 0.0 <= rate <= 1.0


@pytest.mark.parametrize("env_id", ENVS)
def test_tianshou_example_runs(env_id: str) -> None:
    m = load("tianshou_dqn", "tianshou")
    rate = m.main(
        [
            "--env-id",
            env_id,
            "--games",
            "2",
            "--games-per-update",
            "1",
            "--hidden",
            "32",
            "--eval-games",
            "1",
        ]
    )
    assert 0.0 <= rate <= 1.0


@pytest.mark.parametrize("env_id", ENVS)
def test_sb3_example_runs(env_id: str) -> None:
    m = load("sb3_maskable_ppo", "sb3_contrib")
    rate = m.main(
        ["--env-id", env_id, "--total-timesteps", "64", "--n-steps", "64", "--eval-games", "1"]
    )
    assert 0.0 <= rate <= 1.0


@pytest.mark.parametrize("env_id", ENVS)
def test_cleanrl_example_runs_and_its_file_plays_in_the_arena(env_id: str, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from choco_envs.arena import run_arena

    m = load("cleanrl_ppo")
    path = m.main(
        [
            "--env-id",
            env_id,
            "--total-steps",
            "100",
            "--steps-per-update",
            "100",
            "--hidden",
            "32",
            "--save-path",
            str(tmp_path / "p.safetensors"),
        ]
    )
    report = run_arena(env_id, [f"policy:{path}", "random"], games=1, seed=1, progress=False)
    assert report["games_played"] >= 1


@pytest.mark.parametrize("env_id", ["chocolatiers_v1", "chocolate_factory_v2"])
def test_rllib_example_runs(env_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The other two envs train in tests/integrations/test_rllib_train.py."""
    pytest.importorskip("ray.rllib")
    import ray

    from choco_envs.integrations.checkpoint import load_policy

    m = load("rllib_selfplay")
    monkeypatch.chdir(tmp_path)
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        path = m.main(
            [
                "--env-id",
                env_id,
                "--iterations",
                "1",
                "--train-batch-size",
                "200",
                "--minibatch-size",
                "100",
                "--update-epochs",
                "1",
                "--hidden",
                "32",
                "--final-eval-games",
                "1",
                "--arena-games",
                "1",
                "--rllib-checkpoint",
                "false",
                "--track",
                "false",
            ]
        )
    finally:
        if started:
            ray.shutdown()
    _, meta = load_policy(path, env_id)
    assert meta["training"]["reward_mismatches"] == 0


# ---------------------------------------------------------------- own rewards


def test_torchrl_credits_each_seat_with_its_own_final_reward() -> None:
    m = load("torchrl_ppo", "torchrl", "tensordict")
    import torch

    torch.manual_seed(0)
    env = m.make_env("chocolates_v0", {"num_players": 2}, seed=3)
    actor, _ = m.make_actor(env, 16)
    with torch.no_grad():
        rollout = env.rollout(400, actor, break_when_any_done=False)
    d = m.seat_decisions(rollout)
    acting = rollout[m.ACTING].numpy()
    done = rollout["next", "done"].reshape(-1).numpy()
    final = rollout["next", m.GROUP, "reward"].reshape(acting.shape).numpy()
    row, start, decided = 0, 0, 0
    for t in np.flatnonzero(done):
        seats = [int(np.flatnonzero(acting[s])[0]) for s in range(start, t + 1)]
        got = d.ret[row : row + len(seats)].numpy()
        assert list(got) == [final[t, s] for s in seats]
        assert (got != 0).all() or (final[t] == 0).all(), "not the reward of the step taken"
        if final[t].tolist() in ([1.0, -1.0], [-1.0, 1.0]):
            decided += 1
            assert {float(g) for g in got} == {1.0, -1.0}, "winner and loser each their own"
        row, start = row + len(seats), t + 1
    assert row == len(d.ret) and decided >= 3


def test_tianshou_credits_each_seat_with_its_own_final_reward() -> None:
    m = load("tianshou_dqn", "tianshou")
    from tianshou.env import PettingZooEnv

    import choco_envs

    env = PettingZooEnv(choco_envs.make("le_chocolat_v0"))
    rng = random.Random(0)
    other_seat_lost = 0
    for game in range(10):

        def choose(seat, obs):
            return rng.choice(np.flatnonzero(obs["mask"]).tolist())

        decisions, final = m.play_game(env, choose, seed=game)
        aec = env.env
        assert final == [aec.rewards[a] for a in aec.possible_agents]
        rows = m.credited(decisions, final)
        for (seat, *_), (*_, reward) in zip(decisions, rows, strict=True):
            assert reward == final[seat]
        other_seat_lost += final[decisions[-1][0]] > 0  # the other seat lost on this move
        env.reset(seed=1000 + game)
        kept = list(final)
        env.step(rng.choice(np.flatnonzero(aec.legal_mask()).tolist()))
        assert final == kept, "the credited rewards are a copy, not PettingZooEnv's live list"
    assert other_seat_lost >= 1, "some games end on the winner's move: the loser is still -1"


def test_sb3_learner_gets_its_own_reward_when_an_opponent_ends_the_game() -> None:
    from choco_envs.wrappers import SingleAgentEnv

    env = SingleAgentEnv("chocolates_v0", opponents="random", num_players=2)
    rng = random.Random(0)
    endings = {"learner": 0, "opponent": 0}
    for game in range(40):
        env.reset(seed=game)
        done, reward = False, 0.0
        while not done:
            steps_before = env.env_steps
            _, reward, done, _, _ = env.step(
                rng.choice(np.flatnonzero(env.action_masks()).tolist())
            )
        aec = env.aec
        assert reward == aec.rewards[env.learner_agent]
        endings["learner" if env.env_steps == steps_before + 1 else "opponent"] += 1
    assert endings["learner"] and endings["opponent"], endings


def test_cleanrl_credits_each_seat_with_its_own_final_reward() -> None:
    pytest.importorskip("torch")
    import choco_envs
    from choco_envs.integrations.checkpoint import actor_critic, game_facts

    m = load("cleanrl_ppo")
    facts = game_facts("chocolates_v0", {"num_players": 3}, "flat")
    model = actor_critic(tuple(facts["observation_shape"]), facts["num_actions"], (16,))
    env = choco_envs.make("chocolates_v0", num_players=3)
    for game in range(5):
        rows = m.play_game(env, model, seed=game)
        for row in rows:
            assert row[5] == env.rewards[row[6]]
        assert {row[6] for row in rows} == set(env.possible_agents)
        assert len(rows) == len(env.unwrapped.actions_taken)
