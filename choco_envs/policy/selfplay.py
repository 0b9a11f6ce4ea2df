"""Library code of ``training/ppo_selfplay.py``: per-seat trajectories, the snapshot pool
and evaluation against bots.

Per-seat trajectories (:class:`SeatRollout`). Every network decision of a learner seat is
one transition of *that seat's* trajectory: its own observation, mask, action, log-prob
and value. The transition that follows it is the same seat's next decision in the same
game, however many steps the other seats (or the seat itself, in a multi-step turn) took
in between. Rewards come only at the end: when a game ends, the last transition of every
learner seat gets that seat's own return and ``done``. A seat's last transition whose
successor is not known yet when a rollout ends is carried over into the next rollout
(its advantage is computed once its successor exists), so nothing is lost or guessed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from choco_envs.policy.net import ActorCritic
from choco_envs.policy.vec import LEARNER, GameVec


class SeatRollout:
    """Transitions of every learner seat of every env, linked seat by seat."""

    def __init__(self, capacity: int, obs_shape: Sequence[int], num_actions: int) -> None:
        self.capacity = capacity
        self.obs = np.zeros((capacity, *obs_shape), dtype=np.float32)
        self.mask = np.zeros((capacity, num_actions), dtype=bool)
        self.action = np.zeros(capacity, dtype=np.int64)
        self.logprob = np.zeros(capacity, dtype=np.float32)
        self.value = np.zeros(capacity, dtype=np.float32)
        self.reward = np.zeros(capacity, dtype=np.float32)
        self.done = np.zeros(capacity, dtype=bool)
        self.next = np.full(capacity, -1, dtype=np.int64)
        self.size = 0
        self.pending: dict[tuple[int, int], int] = {}  # (env, seat) -> its last transition

    def add(
        self,
        envs: np.ndarray,
        seats: np.ndarray,
        obs: np.ndarray,
        mask: np.ndarray,
        action: np.ndarray,
        logprob: np.ndarray,
        value: np.ndarray,
    ) -> None:
        """Append one decision per row; link each to its seat's previous transition."""
        k0, n = self.size, len(envs)
        if k0 + n > self.capacity:
            raise RuntimeError(f"SeatRollout is full ({self.capacity} transitions)")
        sl = slice(k0, k0 + n)
        self.obs[sl], self.mask[sl], self.action[sl] = obs, mask, action
        self.logprob[sl], self.value[sl] = logprob, value
        self.reward[sl], self.done[sl], self.next[sl] = 0.0, False, -1
        for j, (e, p) in enumerate(zip(envs.tolist(), seats.tolist(), strict=True)):
            prev = self.pending.get((e, p))
            if prev is not None:
                self.next[prev] = k0 + j
            self.pending[(e, p)] = k0 + j
        self.size += n

    def end_game(self, env: int, returns: Sequence[float]) -> None:
        """Give every learner seat of ``env`` its own final return."""
        for seat, ret in enumerate(returns):
            k = self.pending.pop((env, seat), None)
            if k is not None:
                self.reward[k] = ret
                self.done[k] = True

    def advantages(self, gamma: float, gae_lambda: float) -> tuple[np.ndarray, np.ndarray]:
        """(indices of complete transitions, their GAE advantages); returns = adv + value."""
        n = self.size
        adv = np.zeros(n + 1, dtype=np.float32)
        is_pending = np.zeros(n, dtype=bool)
        is_pending[list(self.pending.values())] = True
        nxt, done, value, reward = self.next, self.done, self.value, self.reward
        for k in range(n - 1, -1, -1):
            if is_pending[k]:
                continue
            if done[k]:
                adv[k] = reward[k] - value[k]
            else:
                j = nxt[k]
                delta = reward[k] + gamma * value[j] - value[k]
                adv[k] = delta + gamma * gae_lambda * adv[j]
        idx = np.flatnonzero(~is_pending)
        return idx, adv[idx]

    def carry_over(self) -> None:
        """Keep only the pending transitions, moved to the front, for the next rollout."""
        keys = list(self.pending)
        old = np.array([self.pending[k] for k in keys], dtype=np.int64)
        m = len(old)
        for arr in (self.obs, self.mask, self.action, self.logprob, self.value):
            arr[:m] = arr[old]
        self.reward[:m], self.done[:m], self.next[:m] = 0.0, False, -1
        self.pending = {key: i for i, key in enumerate(keys)}
        self.size = m


class SnapshotPool:
    """Frozen past versions of the learner, the league's ``PAST`` opponents."""

    def __init__(self, size: int, seed: int) -> None:
        self.size = size
        self.models: list[ActorCritic] = []
        self.rng = random.Random(seed)

    def add(self, model: ActorCritic) -> None:
        frozen = ActorCritic(model.config)
        frozen.load_state_dict(model.state_dict())
        frozen.eval()
        self.models.append(frozen)
        if len(self.models) > self.size:
            self.models.pop(0)

    def pick(self) -> int:
        """A random snapshot index (-1 when the pool is empty)."""
        return self.rng.randrange(len(self.models)) if self.models else -1


@torch.no_grad()
def greedy_actions(model: ActorCritic, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    logits, _ = model(torch.from_numpy(obs), torch.from_numpy(mask))
    return logits.argmax(-1).numpy()


def evaluate(
    model: ActorCritic,
    env_id: str,
    options: dict[str, Any],
    encoder: str,
    opponent: str,
    games: int,
    seed: int,
    act: Callable[[ActorCritic, np.ndarray, np.ndarray], np.ndarray] = greedy_actions,
) -> dict[str, float]:
    """Play ``games`` games of the (greedy) policy against ``opponent`` in every other
    seat, with duplicate deals: each deal is played once with the policy in every seat.
    Returns win/draw/loss rates (a win is a sole first place), the mean return, and the
    number of games."""
    from choco_envs.registry import make_game

    n = make_game(env_id, **options).num_players
    games = max(n, games - games % n)
    deal_seeds = [seed + g // n for g in range(games)]
    seat_of = [g % n for g in range(games)]
    order = iter(range(games))

    def roles(num_players: int, rng: random.Random) -> list[int]:
        g = next(order, 0)
        return [LEARNER if p == seat_of[g] else 0 for p in range(num_players)]

    vec = GameVec(env_id, options, encoder, games, seed, roles, [opponent], deal_seeds)
    dec = vec.reset()
    results: dict[int, float] = {}
    while len(results) < games:
        dec = vec.step(act(model, dec.obs, dec.mask))
        for i, ret, _ in dec.finished:
            results.setdefault(i, ret[seat_of[i]])
    values = np.array([results[i] for i in range(games)])
    return {
        "win_rate": float(np.mean(values >= 1.0 - 1e-9)),
        "draw_rate": float(np.mean(np.abs(values) < 1e-9)) if n == 2 else 0.0,
        "loss_rate": float(np.mean(values <= -1.0 + 1e-9)),
        "mean_return": float(values.mean()),
        "games": float(games),
    }
