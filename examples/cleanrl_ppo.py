"""A CleanRL-style masked PPO self-play trainer in one file, on the plain AEC API (any env).

    pip install -e ".[train]"
    python examples/cleanrl_ppo.py --env-id chocolates_v0 --total-steps 50000 --save-path runs/cleanrl.safetensors
    choco eval --env chocolates_v0 --bots policy:runs/cleanrl.safetensors greedy random --games 20

Every seat is played by the one network (the project's ``ActorCritic``, so the result is
a checkpoint that ``policy:PATH``, ``choco eval`` and ``choco play`` use). Each seat's
trajectory is its own decisions; when the game ends every seat's decisions get that
seat's own final reward (``env.rewards[agent]``), whichever seat made the last move: the
bug of PettingZoo issue 1147 (a seat trained on the reward of the seat that moved next)
cannot happen. The project's full trainer (league, vector games, evaluation, resume) is
``choco train``.
"""

from __future__ import annotations

import argparse
import random

import numpy as np
import torch

import choco_envs
from choco_envs.integrations.checkpoint import actor_critic, game_facts, save_policy


def play_game(env, model, seed: int) -> list[tuple]:
    """One self-play game: (obs, mask, action, log-prob, value, own final reward, agent)
    for every decision, each credited with its own seat's reward."""
    env.reset(seed=seed)
    decisions: dict[str, list] = {a: [] for a in env.possible_agents}
    while not all(env.terminations.values()):
        agent = env.agent_selection
        o = env.observe(agent)
        obs = torch.from_numpy(o["observation"])[None]
        mask = torch.from_numpy(o["action_mask"].astype(bool))[None]
        with torch.no_grad():
            action, logp, _, value = model.get_action_and_value(obs, mask)
        decisions[agent].append((obs[0], mask[0], int(action), float(logp), float(value)))
        env.step(int(action))
    return [(*d, float(env.rewards[agent]), agent) for agent, ds in decisions.items() for d in ds]


def ppo_update(model, optim, rows: list[tuple], epochs: int = 4, minibatch: int = 256) -> float:
    obs = torch.stack([r[0] for r in rows])
    mask = torch.stack([r[1] for r in rows])
    act = torch.tensor([r[2] for r in rows])
    old_logp = torch.tensor([r[3] for r in rows])
    ret = torch.tensor([r[5] for r in rows], dtype=torch.float32)
    adv = ret - torch.tensor([r[4] for r in rows])  # gamma = 1: the return is the reward
    loss = torch.zeros(())
    for _ in range(epochs):
        for mb in torch.randperm(len(rows)).split(minibatch):
            _, logp, entropy, value = model.get_action_and_value(obs[mb], mask[mb], act[mb])
            a = (adv[mb] - adv[mb].mean()) / (adv[mb].std() + 1e-8) if len(mb) > 1 else adv[mb]
            ratio = (logp - old_logp[mb]).exp()
            pg = -torch.min(ratio * a, ratio.clamp(0.8, 1.2) * a).mean()
            loss = pg + 0.5 * ((value - ret[mb]) ** 2).mean() - 0.01 * entropy.mean()
            optim.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            optim.step()
    return loss.item()


def main(argv: list[str] | None = None) -> str:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--env-id", default="chocolates_v0")
    p.add_argument("--options", nargs="*", default=[], help="game options key=value")
    p.add_argument("--total-steps", type=int, default=50_000, help="env steps (all seats)")
    p.add_argument("--steps-per-update", type=int, default=2048)
    p.add_argument("--hidden", default="128,128")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--save-path", default="runs/cleanrl_ppo.safetensors")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    options = {k: _value(v) for k, v in (o.split("=", 1) for o in args.options)}
    facts = game_facts(args.env_id, options, "flat")
    hidden = tuple(int(h) for h in args.hidden.split(","))
    model = actor_critic(tuple(facts["observation_shape"]), facts["num_actions"], hidden)
    optim = torch.optim.Adam(model.parameters(), lr=2.5e-4, eps=1e-5)
    env = choco_envs.make(args.env_id, **options)
    rng = random.Random(args.seed)
    steps, rows = 0, []
    while steps < args.total_steps:
        game = play_game(env, model, rng.randrange(2**31))
        rows += game
        steps += len(game)
        if len(rows) >= args.steps_per_update or steps >= args.total_steps:
            mean = np.mean([r[5] for r in rows])
            print(
                f"{steps} steps: update on {len(rows)} decisions (mean reward {mean:+.2f}), "
                f"loss {ppo_update(model, optim, rows):.3f}"
            )
            rows = []
    model.eval()
    path = save_policy(
        args.save_path,
        model,
        args.env_id,
        options,
        "flat",
        steps,
        training={"engine": "examples/cleanrl_ppo.py", "argv": argv},
    )
    print(f"saved {path}")
    return str(path)


def _value(text: str):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


if __name__ == "__main__":
    main()
