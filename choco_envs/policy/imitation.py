"""Imitation warm start for PPO: behaviour cloning with DAgger rounds.

A policy learns to play like a *teacher* bot (``"greedy"`` by default) before PPO takes
over. Round 0 lets the teacher play every recorded decision; each later round lets the
student play its own seat (argmax) while the teacher labels every decision the student
meets (DAgger: Ross, Gordon and Bagnell, 2011), so the student learns to recover from its
own mistakes. Every round's data is kept and the network is refitted on all of it.

The teacher is a bot like any other: it sees an ``AgentView`` of its seat (the seat's
observation, mask and a view that can only be determinized), so imitation learns nothing
a seat may not know. The value head is fitted at the same time on the final return of
the recorded seat (``vec.shaped_returns``: rank return plus ``margin_coef`` times the
score margin, as in ``GameVec``), so that PPO starts with a critic that already knows who is winning.

Used by ``training/ppo_selfplay.py`` (``imitate: greedy`` in a config).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from choco_envs.bots.base import AgentView
from choco_envs.policy.net import ActorCritic
from choco_envs.policy.vec import shaped_returns


@dataclass
class Demos:
    """Recorded decisions: observation, mask, the teacher's action, the seat's return."""

    obs: np.ndarray
    mask: np.ndarray
    action: np.ndarray
    ret: np.ndarray

    def __len__(self) -> int:
        return len(self.action)

    @staticmethod
    def concat(parts: Sequence[Demos]) -> Demos:
        return Demos(
            np.concatenate([p.obs for p in parts]),
            np.concatenate([p.mask for p in parts]),
            np.concatenate([p.action for p in parts]),
            np.concatenate([p.ret for p in parts]),
        )


def collect(
    env_id: str,
    options: dict[str, Any],
    encoder: str,
    teacher: str,
    games: int,
    seed: int,
    student: ActorCritic | None = None,
    opponents: dict[str, float] | None = None,
    margin_coef: float = 0.0,
    progress: Callable[[int], None] | None = None,
) -> Demos:
    """Play ``games`` games and record the teacher's label at every decision of the
    recorded seats.

    In every game one seat (rotating) is the *student seat*: the student network plays it
    (argmax) when ``student`` is given, else the teacher does. Every other seat is an
    opponent drawn from ``opponents`` (bot spec -> weight; default the teacher itself).
    Recorded: every decision of the student seat, and every decision of an opponent seat
    played by the teacher (the teacher's own play is a demonstration too)."""
    from choco_envs.bots import make
    from choco_envs.registry import make_game

    game = make_game(env_id, **options)
    enc = game.encoder(encoder)
    opponents = opponents or {teacher: 1.0}
    specs = [k for k, w in opponents.items() if w > 0]
    weights = [opponents[k] for k in specs]
    teacher_bot = make(teacher, env_id=env_id, seed=seed)
    opp_bots = {k: make(k, env_id=env_id, seed=seed + 7919 * (i + 1)) for i, k in enumerate(specs)}
    rng = random.Random(seed)
    role_rng = random.Random(seed + 1)
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    acts: list[int] = []
    rets: list[float] = []
    n = game.num_players
    for g in range(games):
        s = game.new_state(rng)
        me = g % n
        roles = ["" if p == me else role_rng.choices(specs, weights)[0] for p in range(n)]
        start = len(acts)
        seats: list[int] = []
        while not game.is_over(s):
            p = game.current_player(s)
            m = game.legal_mask(s)
            if roles[p] and roles[p] != teacher:
                # an opponent gets the env's default observation (a policy bot encodes its
                # own); the student's encoder may be slow (Le Chocolat's "search")
                o = game.observe(s, p)
                a = opp_bots[roles[p]].act_view(AgentView(game, s, p, o, m))
            else:
                o = enc.encode(s, p)
                label = teacher_bot.act_view(AgentView(game, s, p, o, m))
                obs.append(o)
                masks.append(m)
                acts.append(label)
                seats.append(p)
                a = label
                if student is not None and p == me:
                    with torch.no_grad():
                        logits, _ = student(
                            torch.from_numpy(o[None].astype(np.float32)), torch.from_numpy(m[None])
                        )
                    a = int(logits.argmax(-1).item())
            game.apply(s, a, rng)
        final = shaped_returns(game, s, margin_coef)
        rets.extend(final[p] for p in seats)
        assert len(rets) == len(acts) == start + len(seats)
        if progress is not None:
            progress(g + 1)
    return Demos(
        np.asarray(obs, dtype=np.float32).reshape(len(acts), *enc.shape),
        np.asarray(masks, dtype=bool).reshape(len(acts), game.num_actions),
        np.asarray(acts, dtype=np.int64),
        np.asarray(rets, dtype=np.float32),
    )


def fit(
    model: ActorCritic,
    demos: Demos,
    epochs: int,
    seed: int,
    learning_rate: float = 1e-3,
    batch_size: int = 512,
    vf_coef: float = 0.5,
    holdout: float = 0.05,
    progress: Callable[[int], None] | None = None,
) -> dict[str, float]:
    """Cross-entropy on the teacher's actions (masked logits) plus ``vf_coef`` times the
    squared error of the value on the seat's return. Returns the losses and the
    held-out accuracy (argmax == teacher's action) after the last epoch. ``progress`` is
    called with the number of epochs done after each one."""
    gen = torch.Generator().manual_seed(seed)
    n = len(demos)
    perm = torch.randperm(n, generator=gen)
    n_val = max(1, int(n * holdout)) if n > 20 else 0
    val, tr = perm[:n_val], perm[n_val:]
    obs, mask = torch.from_numpy(demos.obs), torch.from_numpy(demos.mask)
    act, ret = torch.from_numpy(demos.action), torch.from_numpy(demos.ret)
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
    ce = nn.CrossEntropyLoss()
    model.train()
    stats: dict[str, float] = {}
    for epoch in range(epochs):
        order = tr[torch.randperm(len(tr), generator=gen)]
        lr = learning_rate * (1.0 - epoch / max(1, epochs))
        optimizer.param_groups[0]["lr"] = lr
        total_pi = total_v = 0.0
        for start in range(0, len(order), batch_size):
            mb = order[start : start + batch_size]
            logits, value = model(obs[mb], mask[mb])
            pi_loss = ce(logits, act[mb])
            v_loss = ((value - ret[mb]) ** 2).mean()
            loss = pi_loss + vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            total_pi += pi_loss.item() * len(mb)
            total_v += v_loss.item() * len(mb)
        stats = {
            "imitation/policy_loss": total_pi / max(1, len(order)),
            "imitation/value_loss": total_v / max(1, len(order)),
        }
        if progress is not None:
            progress(epoch + 1)
    model.eval()
    if n_val:
        with torch.no_grad():
            logits, _ = model(obs[val], mask[val])
            stats["imitation/holdout_accuracy"] = float(
                (logits.argmax(-1) == act[val]).float().mean()
            )
    return stats
