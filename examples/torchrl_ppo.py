"""TorchRL: masked PPO self-play through TorchRL's ``PettingZooWrapper`` (any env).

    pip install -e ".[torchrl]"
    python examples/torchrl_ppo.py --env-id chocolates_v0 --total-steps 20000
    python examples/torchrl_ppo.py --env-id chocolatiers_v1 --options num_players=3

The env is TorchRL's ``PettingZooWrapper`` around the unmodified AEC env (``use_mask=True``:
``("agents", "mask")`` says which seat acts, ``("agents", "action_mask")`` its legal
actions); the policy is a ``ProbabilisticActor`` with TorchRL's ``MaskedCategorical``, so
an illegal action is never sampled. All seats share the policy (self-play).

Rewards: TorchRL reports every seat's reward at every step, and a game's rewards arrive
on its last step, whoever made it. Each seat's decisions are credited with that seat's
own final reward (``seat_decisions``), never with the reward of the step they were taken
on or of the seat that moved last (PettingZoo issue 1147); with gamma = 1 it is the
return of every decision of the seat.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np
import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import MarlGroupMapType
from torchrl.modules import MaskedCategorical, ProbabilisticActor

import choco_envs

GROUP = "agents"
OBS = (GROUP, "observation", "observation")
MASK = (GROUP, "action_mask")
ACTING = (GROUP, "mask")
ACTION = (GROUP, "action")
LOGP = (GROUP, "action_log_prob")


def make_env(env_id: str, options: dict, seed: int) -> PettingZooWrapper:
    return PettingZooWrapper(
        choco_envs.make(env_id, **options),
        use_mask=True,
        categorical_actions=True,
        group_map=MarlGroupMapType.ALL_IN_ONE_GROUP,
        seed=seed,
    )


def make_actor(env: PettingZooWrapper, hidden: int) -> tuple[ProbabilisticActor, nn.Module]:
    obs_size = env.observation_spec[OBS].shape[-1]
    num_actions = env.full_action_spec[ACTION].space.n
    net = nn.Sequential(
        nn.Linear(obs_size, hidden),
        nn.Tanh(),
        nn.Linear(hidden, hidden),
        nn.Tanh(),
        nn.Linear(hidden, num_actions),
    )
    logits = TensorDictModule(net, in_keys=[OBS], out_keys=[(GROUP, "logits")])
    actor = ProbabilisticActor(
        logits,
        in_keys={"logits": (GROUP, "logits"), "mask": MASK},
        out_keys=[ACTION],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=LOGP,
    )
    return actor, net


@dataclass
class Decisions:
    """The decisions of finished games, one row each: the acting seat's observation,
    mask, action, log-probability and its own final reward."""

    obs: torch.Tensor
    mask: torch.Tensor
    action: torch.Tensor
    logp: torch.Tensor
    ret: torch.Tensor


def seat_decisions(rollout) -> Decisions:
    """Each decision of a rollout with its seat's own final reward (unfinished games at
    the end of the rollout are dropped)."""
    acting = rollout[ACTING].numpy()  # (T, seats)
    done = rollout["next", "done"].reshape(len(acting)).numpy()
    final = rollout["next", GROUP, "reward"].reshape(acting.shape).numpy()
    rows, returns, start = [], [], 0
    for t in np.flatnonzero(done):
        for step in range(start, t + 1):
            seat = int(np.flatnonzero(acting[step])[0])
            rows.append((step, seat))
            returns.append(float(final[t, seat]))  # this seat's reward, at the game's end
        start = t + 1
    steps = torch.tensor([r[0] for r in rows], dtype=torch.long)
    seats = torch.tensor([r[1] for r in rows], dtype=torch.long)
    return Decisions(
        obs=rollout[OBS][steps, seats],
        mask=rollout[MASK][steps, seats],
        action=rollout[ACTION][steps, seats],
        logp=rollout[LOGP][steps, seats].detach(),
        ret=torch.tensor(returns, dtype=torch.float32),
    )


def ppo_update(net: nn.Module, critic: nn.Module, optim, d: Decisions, epochs: int = 4) -> float:
    """Clipped PPO on complete games (advantage = own final reward - value)."""
    loss = torch.zeros(())
    for _ in range(epochs):
        dist = MaskedCategorical(logits=net(d.obs), mask=d.mask)
        value = critic(d.obs).squeeze(-1)
        adv = (d.ret - value).detach()
        adv = (adv - adv.mean()) / (adv.std() + 1e-8) if len(adv) > 1 else adv
        ratio = (dist.log_prob(d.action) - d.logp).exp()
        pg = -torch.min(ratio * adv, ratio.clamp(0.8, 1.2) * adv).mean()
        loss = pg + 0.5 * ((value - d.ret) ** 2).mean() - 0.01 * dist.entropy().mean()
        optim.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_([*net.parameters(), *critic.parameters()], 0.5)
        optim.step()
    return loss.item()


def win_rate_vs_random(net: nn.Module, env_id: str, options: dict, games: int, seed: int) -> float:
    """The policy's most likely legal move in seat g % n, random bots in the others."""
    from choco_envs.bots import make

    wins = 0.0
    for g in range(games):
        env = choco_envs.make(env_id, **options)
        env.reset(seed=seed + g)
        bot = make("random", env_id=env_id, seed=seed + g)
        me = env.possible_agents[g % len(env.possible_agents)]
        while not all(env.terminations.values()):
            if env.agent_selection == me:
                o = env.observe(me)
                with torch.no_grad():
                    logits = net(torch.from_numpy(o["observation"]))
                logits[torch.from_numpy(o["action_mask"] == 0)] = -torch.inf
                env.step(int(logits.argmax()))
            else:
                env.step(bot.act(env))
        wins += env.rewards[me] > 0
    return wins / games


def main(argv: list[str] | None = None) -> float:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--env-id", default="chocolates_v0")
    p.add_argument("--options", nargs="*", default=[], help="game options key=value (ints as ints)")
    p.add_argument("--total-steps", type=int, default=20_000, help="env steps (all seats)")
    p.add_argument("--rollout-steps", type=int, default=1000, help="env steps per update")
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--eval-games", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    options = {k: _value(v) for k, v in (o.split("=", 1) for o in args.options)}
    torch.set_num_threads(1)  # tiny tensors: more threads only wait on each other
    torch.manual_seed(args.seed)
    env = make_env(args.env_id, options, args.seed)
    actor, net = make_actor(env, args.hidden)
    critic = nn.Sequential(
        nn.Linear(net[0].in_features, args.hidden), nn.Tanh(), nn.Linear(args.hidden, 1)
    )
    optim = torch.optim.Adam([*net.parameters(), *critic.parameters()], lr=3e-4)
    done_steps = 0
    while done_steps < args.total_steps:
        with torch.no_grad():
            rollout = env.rollout(args.rollout_steps, actor, break_when_any_done=False)
        done_steps += len(rollout)
        decisions = seat_decisions(rollout)
        if len(decisions.ret):
            loss = ppo_update(net, critic, optim, decisions)
            print(
                f"{done_steps} steps: {len(decisions.ret)} decisions of finished games, loss {loss:.3f}"
            )
    rate = win_rate_vs_random(net, args.env_id, options, args.eval_games, args.seed + 1000)
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
