"""Tianshou: a masked Q-learning policy through Tianshou's ``PettingZooEnv`` (any env).

    pip install -e ".[tianshou]"
    python examples/tianshou_dqn.py --env-id chocolates_v0 --games 300
    python examples/tianshou_dqn.py --env-id chocolate_factory_v2 --options num_players=3

The env is Tianshou's ``PettingZooEnv`` around the unmodified AEC env: each observation
is ``{"agent_id", "obs", "mask"}``. The policy is Tianshou's ``DiscreteQLearningPolicy``
over a Tianshou ``Net``: it reads ``obs.mask`` and never picks (nor explores into) an
illegal action. All seats share it (self-play); each decision's Q-value is fitted to the
final reward of the seat that took it (Monte-Carlo targets, gamma = 1).

Rewards: ``PettingZooEnv.step`` returns every seat's reward as one list (the same list
object, updated in place, at every step), and a game's rewards arrive on its last move,
whoever made it. ``play_game`` copies that list at the end and credits each seat's
decisions with its own entry. Tianshou's ``MultiAgentPolicyManager`` instead gives a
transition the reward at the acting seat's index on that step, so a final reward that
arrives on another seat's move (a loss, mostly) never reaches the seat it belongs to:
the family of PettingZoo issue 1147. That is why this recipe collects its own games.
"""

from __future__ import annotations

import argparse
import random

import numpy as np
import torch
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.data import Batch
from tianshou.env import PettingZooEnv
from tianshou.utils.net.common import Net

import choco_envs


def make_policy(env: PettingZooEnv, hidden: int, eps: float) -> DiscreteQLearningPolicy:
    space = env.observation_space["observation"]
    net = Net(
        state_shape=space.shape,
        action_shape=env.action_space.n,
        hidden_sizes=[hidden, hidden],
    )
    return DiscreteQLearningPolicy(
        model=net, action_space=env.action_space, observation_space=space, eps_training=eps
    )


def act(policy: DiscreteQLearningPolicy, obs: dict, explore: bool) -> int:
    """The policy's action for one ``PettingZooEnv`` observation (masked)."""
    batch = Batch(obs=Batch(obs=obs["obs"][None], mask=np.asarray(obs["mask"])[None]), info={})
    with torch.no_grad():
        action = policy(batch).act
    if explore:
        action = policy.add_exploration_noise(action, batch)
    return int(action[0])


def play_game(env: PettingZooEnv, choose, seed: int) -> tuple[list, list[float]]:
    """One game: the decisions ``(seat, obs, mask, action)`` and every seat's final
    reward (copied: ``PettingZooEnv`` reuses its reward list)."""
    obs, _ = env.reset(seed=seed)
    decisions = []
    while True:
        seat = env.agent_idx[obs["agent_id"]]
        action = choose(seat, obs)
        decisions.append((seat, obs["obs"], np.asarray(obs["mask"]), action))
        obs, rewards, term, trunc, _ = env.step(action)
        if term or trunc:
            return decisions, list(rewards)


def credited(decisions: list, final: list[float]) -> list[tuple]:
    """Each decision with its own seat's final reward (never another seat's)."""
    return [(obs, mask, action, final[seat]) for seat, obs, mask, action in decisions]


def fit(policy: DiscreteQLearningPolicy, optim, rows: list[tuple], epochs: int = 2) -> float:
    """Q(s, a) -> the seat's final reward, by mean squared error."""
    obs = torch.as_tensor(np.stack([r[0] for r in rows]), dtype=torch.float32)
    action = torch.as_tensor([r[2] for r in rows], dtype=torch.long)
    target = torch.as_tensor([r[3] for r in rows], dtype=torch.float32)
    loss = torch.zeros(())
    for _ in range(epochs):
        q, _ = policy.model(obs)
        loss = ((q.gather(1, action[:, None]).squeeze(1) - target) ** 2).mean()
        optim.zero_grad()
        loss.backward()
        optim.step()
    return loss.item()


def win_rate_vs_random(policy, env_id: str, options: dict, games: int, seed: int) -> float:
    from choco_envs.bots import make

    wins = 0.0
    for g in range(games):
        aec = choco_envs.make(env_id, **options)
        env = PettingZooEnv(aec)
        bot = make("random", env_id=env_id, seed=seed + g)
        me = g % len(env.agents)

        def choose(seat: int, obs: dict, me: int = me, bot=bot, aec=aec) -> int:
            return act(policy, obs, False) if seat == me else bot.act(aec)

        _, final = play_game(env, choose, seed + g)
        wins += final[me] > 0
    return wins / games


def main(argv: list[str] | None = None) -> float:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--env-id", default="chocolates_v0")
    p.add_argument("--options", nargs="*", default=[], help="game options key=value")
    p.add_argument("--games", type=int, default=300, help="self-play games to train on")
    p.add_argument("--games-per-update", type=int, default=10)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--eps", type=float, default=0.1, help="exploration (masked random moves)")
    p.add_argument("--eval-games", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    # Tianshou's exploration draws from numpy's global generator
    np.random.seed(args.seed)  # noqa: NPY002
    options = {k: _value(v) for k, v in (o.split("=", 1) for o in args.options)}
    env = PettingZooEnv(choco_envs.make(args.env_id, **options))
    policy = make_policy(env, args.hidden, args.eps)
    policy.is_within_training_step = True  # exploration on while collecting
    optim = torch.optim.Adam(policy.model.parameters(), lr=1e-3)
    rows: list[tuple] = []
    rng = random.Random(args.seed)
    for game in range(1, args.games + 1):
        decisions, final = play_game(
            env, lambda seat, obs: act(policy, obs, True), rng.randrange(2**31)
        )
        rows += credited(decisions, final)
        if game % args.games_per_update == 0 or game == args.games:
            print(f"{game} games: {len(rows)} decisions, loss {fit(policy, optim, rows):.3f}")
            rows = []
    policy.is_within_training_step = False
    rate = win_rate_vs_random(policy, args.env_id, options, args.eval_games, args.seed + 1000)
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
