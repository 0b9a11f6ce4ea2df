"""Train sb3-contrib's MaskablePPO on one seat of a choco_envs game, through
``choco_envs.wrappers.SingleAgentEnv`` (the other seats are played by bots).

    python training/sb3_maskable_ppo.py --env-id chocolates_v0 --opponents greedy random \
        --total-timesteps 200000 --save-path runs/chocolates_sb3.zip

The result is an SB3 model (a zip, SB3's own format: load it only from sources you
trust); evaluate it with ``--eval-games``. For checkpoints served as bots, use
`choco train` (``choco_envs.train.ppo``).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Args:
    env_id: str = "chocolates_v0"
    """the env to train on"""
    options: dict[str, Any] = field(default_factory=lambda: {"num_players": 2})
    """game options (num_players and rule options)"""
    opponents: tuple[str, ...] = ("random", "greedy")
    """bot specs for the other seats (each seat draws one per episode)"""
    seed: int = 1
    """seed of the envs and of torch"""
    total_timesteps: int = 100_000
    """learner steps to train for"""
    num_envs: int = 8
    """envs in a DummyVecEnv"""
    n_steps: int = 256
    """steps per env per rollout"""
    n_epochs: int = 4
    """epochs over each rollout"""
    batch_size: int = 0
    """minibatch size (0: a quarter of each rollout)"""
    learning_rate: float = 2.5e-4
    """Adam learning rate"""
    hidden: tuple[int, ...] = (256, 256)
    """sizes of the MLP hidden layers (policy and value)"""
    eval_games: int = 100
    """games against each opponent after training (0: none)"""
    save_path: str = ""
    """where to save the SB3 model zip ('' : do not save)"""
    verbose: int = 0
    """SB3 verbosity"""

    def check(self) -> None:
        """ConfigError naming the first field out of range."""
        from choco_envs.core.errors import ConfigError

        for name, ok, allowed in (
            ("total_timesteps", self.total_timesteps >= 1, ">= 1"),
            ("num_envs", self.num_envs >= 1, ">= 1"),
            ("n_steps", self.n_steps >= 2, ">= 2"),
            ("n_epochs", self.n_epochs >= 1, ">= 1"),
            ("batch_size", self.batch_size >= 0, ">= 0"),
            ("learning_rate", self.learning_rate > 0, "> 0"),
            ("hidden", all(h >= 1 for h in self.hidden), "sizes >= 1"),
            ("eval_games", self.eval_games >= 0, ">= 0"),
        ):
            if not ok:
                raise ConfigError(
                    f"{name}={getattr(self, name)!r} is not allowed; allowed: {allowed}"
                )


def make_model(args: Args) -> Any:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from choco_envs.wrappers import SingleAgentEnv

    torch.set_num_threads(1)

    def factory(rank: int) -> Any:
        def make() -> Any:
            env = SingleAgentEnv(args.env_id, opponents=list(args.opponents), **args.options)
            env.reset(seed=args.seed * 1000 + rank)
            return env

        return make

    venv = DummyVecEnv([factory(i) for i in range(args.num_envs)])
    policy_kwargs = {"net_arch": list(args.hidden)}
    return MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=args.n_steps,
        batch_size=args.batch_size or max(64, args.n_steps * args.num_envs // 4),
        learning_rate=args.learning_rate,
        n_epochs=args.n_epochs,
        gamma=1.0,
        seed=args.seed,
        policy_kwargs=policy_kwargs,
        verbose=args.verbose,
        device="cpu",
    )


def evaluate(model: Any, args: Args, opponent: str, games: int) -> float:
    """Win rate of the (deterministic) model against ``opponent``, seats alternating."""
    from choco_envs.wrappers import SingleAgentEnv

    n = args.options.get("num_players", 2)
    wins = 0
    for g in range(games):
        env = SingleAgentEnv(args.env_id, opponents=opponent, learner_seat=g % n, **args.options)
        obs, _ = env.reset(seed=args.seed + 50_000 + g // n)
        done, reward = False, 0.0
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, reward, done, _, _ = env.step(int(action))
        wins += reward >= 1.0 - 1e-9
    return wins / games


def main(argv: list[str] | None = None) -> int:
    from choco_envs.core.errors import ChocoError
    from choco_envs.train.config import add_flags, build, load_yaml

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--config", default=None, help="YAML file of Args overrides")
    add_flags(parser, Args)
    ns = parser.parse_args(argv)
    try:
        args = build(Args, load_yaml(ns.config) if ns.config else {}, ns)
        model = make_model(args)
    except ChocoError as err:
        print(f"sb3_maskable_ppo.py: error: {err}", file=sys.stderr)
        return 2
    start = time.time()
    model.learn(total_timesteps=args.total_timesteps)
    elapsed = time.time() - start
    print(
        f"trained {model.num_timesteps} learner steps in {elapsed:.1f}s ({model.num_timesteps / elapsed:.0f}/s)"
    )
    if args.save_path:
        model.save(args.save_path)
        print(f"saved {args.save_path}")
    for opponent in ("random", "greedy") if args.eval_games else ():
        rate = evaluate(model, args, opponent, args.eval_games)
        print(f"eval vs {opponent}: win rate {rate:.3f} over {args.eval_games} games")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
