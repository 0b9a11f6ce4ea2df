"""sb3-contrib: MaskablePPO on one seat of any env, through ``SingleAgentEnv``.

    pip install -e ".[sb3]"
    python examples/sb3_maskable_ppo.py --env-id chocolates_v0 --total-timesteps 20000
    python examples/sb3_maskable_ppo.py --env-id le_chocolat_v0 --opponents greedy

``choco_envs.wrappers.SingleAgentEnv`` seats the learner (a random seat each episode)
among bots and plays their moves inside ``step``; ``action_masks()`` is what
MaskablePPO calls, so the learner never samples an illegal action. Each step returns
the learner's own reward: 0 until the game ends, then the learner's final reward, also
when an opponent's move ended the game (PettingZoo's SB3 tutorial returned the next
agent's reward instead: PettingZoo issue 1147). The longer script with every setting is
``training/sb3_maskable_ppo.py``.
"""

from __future__ import annotations

import argparse

import torch
from sb3_contrib import MaskablePPO

from choco_envs.wrappers import SingleAgentEnv


def win_rate(model: MaskablePPO, env: SingleAgentEnv, games: int, seed: int) -> float:
    """The model's most likely legal move against ``env``'s opponents."""
    wins = 0
    for g in range(games):
        obs, _ = env.reset(seed=seed + g)
        done, reward = False, 0.0
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, reward, done, _, _ = env.step(int(action))
        wins += reward > 0
    return wins / games


def main(argv: list[str] | None = None) -> float:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--env-id", default="chocolates_v0")
    p.add_argument("--options", nargs="*", default=[], help="game options key=value")
    p.add_argument("--opponents", nargs="+", default=["random", "greedy"])
    p.add_argument("--total-timesteps", type=int, default=20_000, help="learner steps")
    p.add_argument("--n-steps", type=int, default=512)
    p.add_argument("--eval-games", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    options = {k: _value(v) for k, v in (o.split("=", 1) for o in args.options)}
    env = SingleAgentEnv(args.env_id, opponents=args.opponents, **options)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=min(64, args.n_steps),
        gamma=1.0,
        seed=args.seed,
        verbose=0,
    )
    model.learn(total_timesteps=args.total_timesteps)
    rate = win_rate(
        model,
        SingleAgentEnv(args.env_id, opponents="random", **options),
        args.eval_games,
        args.seed + 1000,
    )
    print(f"win rate vs random: {rate:.3f} over {args.eval_games} games")
    return rate


def _value(text: str):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


if __name__ == "__main__":
    main()
