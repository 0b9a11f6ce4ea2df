"""The PPO trainer's rollout: the vectorized games and the per-seat trajectories.

**Per-seat trajectories** (:class:`SeatRollout`). Every network decision of a learner
seat is one transition of *that seat's* trajectory: its own policy input, mask, action,
log-prob and value. The transition that follows it is the same seat's next decision in
the same game, however many steps the other seats (or the seat itself, in a multi-step
turn) took in between. Rewards come only at the end: when a game ends, the last
transition of every learner seat gets that seat's own return and ``done``. A seat's last
transition whose successor is not known yet when a rollout ends is carried into the next
rollout (its advantage is computed once its successor exists), so nothing is guessed.

**Games** (:func:`make_vec`): ``num_envs`` games on the rules API, in this process
(``num_workers: 0``) or in worker processes (``choco_envs.train.games``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from choco_envs.train.ppo import Args


def make_vec(args: Args, roles: Any) -> Any:
    """The run's ``num_envs`` games (``choco_envs.train.games``): in this process, or
    split over ``num_workers`` worker processes."""
    from choco_envs.train.games import GameVec, ProcVec

    kwargs = dict(
        env_id=args.env_id,
        options=args.env_tables(),
        max_players=args.max_players,
        mode_marks=args.mode_marks,
        encoder=args.encoder,
        roles=roles,
        bot_specs=roles.bot_specs,
        margin_coef=args.margin_coef,
        feature=args.feature,
    )
    if args.num_workers > 0:
        return ProcVec(args.num_workers, args.num_envs, args.seed, **kwargs)
    return GameVec(num_envs=args.num_envs, seed=args.seed, **kwargs)


class SeatRollout:
    """Transitions of every learner seat of every env, linked seat by seat."""

    def __init__(self, capacity: int, input_size: int, num_actions: int) -> None:
        self.capacity = capacity
        self.obs = np.zeros((capacity, input_size), dtype=np.float32)
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

    def add_decisions(
        self, dec: Any, rows: np.ndarray, action: Any, logprob: Any, value: Any
    ) -> None:
        """Store the learner's decisions among the network's ``rows`` of ``dec`` (the
        vector's waiting decisions), with the sampled ``action``, its ``logprob`` and
        the critic's ``value`` (tensors, one per row); the other rows (a past seat the
        network plays while the pool is empty) are not trained on."""
        from choco_envs.train.games import LEARNER

        learner = dec.role[rows] == LEARNER
        r = rows[learner]
        self.add(
            r,
            dec.seat[r],
            dec.obs[r],
            dec.mask[r],
            action.numpy()[learner],
            logprob.numpy()[learner],
            value.numpy()[learner],
        )

    def batch(self, gamma: float, gae_lambda: float) -> dict[str, Any]:
        """The complete transitions as torch tensors (``obs``, ``mask``, ``act``,
        ``logp``, ``val``, ``adv``, ``ret``), their GAE advantages and returns."""
        import torch

        idx, adv = self.advantages(gamma, gae_lambda)
        return {
            "obs": torch.from_numpy(self.obs[idx]),
            "mask": torch.from_numpy(self.mask[idx]),
            "act": torch.from_numpy(self.action[idx]),
            "logp": torch.from_numpy(self.logprob[idx]),
            "val": torch.from_numpy(self.value[idx]),
            "adv": torch.from_numpy(adv),
            "ret": torch.from_numpy(adv + self.value[idx]),
        }

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
