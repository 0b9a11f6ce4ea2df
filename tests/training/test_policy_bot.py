"""PolicyBot: a checkpoint served as a bot, greedy or sampled, refused for another env."""

from __future__ import annotations

from pathlib import Path

import pytest

from choco_envs import bots
from choco_envs.core.errors import CheckpointError
from choco_envs.policy.bot import PolicyBot
from choco_envs.registry import make
from tests.training.toy_nim import ENV_ID


def play_out(env, players) -> list[int]:  # type: ignore[no-untyped-def]
    actions = []
    while not all(env.terminations.values()):
        seat = env.unwrapped.agent_name_mapping[env.agent_selection]
        action = players[seat].act(env)
        assert env.unwrapped.legal_mask()[action]
        actions.append(action)
        env.step(action)
    return actions


def test_greedy_policy_bot_plays_legal_moves_deterministically(toy_checkpoint: Path) -> None:
    bot = PolicyBot(toy_checkpoint, env_id=ENV_ID)
    runs = []
    for _ in range(2):
        env = make(ENV_ID, stones=13)
        env.reset(seed=1)
        runs.append(play_out(env, [bot, bot]))
    assert runs[0] == runs[1] and len(runs[0]) >= 5


def test_sampled_policy_bot_follows_its_seed(toy_checkpoint: Path) -> None:
    def run(seed: int) -> list[int]:
        bot = PolicyBot(toy_checkpoint, sample=True, seed=seed)
        out = []
        for game in range(5):
            env = make(ENV_ID, stones=21)
            env.reset(seed=game)
            out += play_out(env, [bot, bot])
        return out

    assert run(3) == run(3)
    assert len(set(run(3))) > 1  # an untrained policy samples every action


def test_bots_registry_serves_policy_specs(toy_checkpoint: Path) -> None:
    bot = bots.make(f"policy:{toy_checkpoint},sample=true", env_id=ENV_ID, seed=0)
    assert isinstance(bot, PolicyBot) and bot.sample
    env = make(ENV_ID)
    env.reset(seed=0)
    assert env.unwrapped.legal_mask()[bot.act(env)]


def test_policy_bot_refuses_another_player_count_at_the_table(toy_checkpoint: Path) -> None:
    bot = PolicyBot(toy_checkpoint)
    env = make(ENV_ID, num_players=3)
    env.reset(seed=0)
    with pytest.raises(CheckpointError, match="3 players|shape"):
        bot.act(env)


def test_policy_bot_refuses_another_env(toy_checkpoint: Path) -> None:
    with pytest.raises(CheckpointError, match="not 'chocolates_v0'"):
        PolicyBot(toy_checkpoint, env_id="chocolates_v0")


def test_policy_bot_imports_no_torch_until_built() -> None:
    import subprocess
    import sys

    code = (
        "import sys, choco_envs, choco_envs.policy, choco_envs.policy.bot, "
        "choco_envs.policy.features, choco_envs.train, choco_envs.cli.train, "
        "choco_envs.train.ship, choco_envs.cli.ship, choco_envs.wrappers; print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_policy_bot_plays_on_worker_processes(tmp_path: Path) -> None:
    """`choco eval --workers 2` with a checkpoint bot finishes (forked workers play on one
    torch thread each; a child cannot use the thread pool the parent started). A tiny
    Factory checkpoint made here: the test does not depend on a shipped file."""
    import subprocess
    import sys

    import torch

    from choco_envs.policy.checkpoint import save_checkpoint
    from choco_envs.policy.net import ActorCritic, NetConfig
    from choco_envs.registry import make_game

    game = make_game("chocolate_factory_v2")
    shape = game.encoder("flat").shape
    torch.manual_seed(0)
    meta = {"env_id": "chocolate_factory_v2", "version": game.spec.version,
            "options": {k: v for k, v in game.config.items() if v is not None},
            "encoder": "flat", "observation_shape": list(shape),
            "num_actions": game.num_actions, "steps_trained": 0, "arena": {},
            "training": {"command": "test"}}  # fmt: skip
    path = save_checkpoint(
        tmp_path / "f.safetensors", ActorCritic(NetConfig(shape, game.num_actions, (8,))), meta
    )
    command = [sys.executable, "-m", "choco_envs.cli", "eval", "--env", "chocolate_factory_v2",
               "--bots", f"policy:{path}", "random", "--games", "4", "--workers", "2", "--quiet"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "policy:" in done.stdout and "random" in done.stdout
