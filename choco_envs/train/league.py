"""The PPO trainer's league: who plays the seats that are not the learner's.

In every game one seat is the learner; each other seat is the learner too
(``league_self_play``, its moves trained on as well), a frozen past snapshot of the
learner (``league_past``; :class:`SnapshotPool`, a snapshot every ``pool_every``
updates, ``pool_size`` kept), or a baseline bot drawn by ``league_bots`` weight (all of a
game's other seats one bot with ``league_whole_table``). The vector games draw each
seat's role (``choco_envs.train.games.LeagueRoles``) and play the bots themselves;
:class:`League` plays the past snapshots, picks a snapshot for each new game, and keeps
the learner's returns by the kind of opposition (``charts/mean_return_vs_*``).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np


class SnapshotPool:
    """Frozen past versions of the learner, the league's ``PAST`` opponents."""

    def __init__(self, size: int, seed: int) -> None:
        self.size = size
        self.models: list[Any] = []
        self.rng = random.Random(seed)

    def add(self, model: Any) -> None:
        from choco_envs.policy.net import ActorCritic

        frozen = ActorCritic(model.config)
        frozen.load_state_dict(model.state_dict())
        frozen.eval()
        self.models.append(frozen)
        if len(self.models) > self.size:
            self.models.pop(0)

    def pick(self) -> int:
        """A random snapshot index (-1 when the pool is empty)."""
        return self.rng.randrange(len(self.models)) if self.models else -1


class League:
    """The past snapshots' seats of ``num_envs`` games: each game's snapshot (a past seat
    is the network itself while the pool is empty), their moves, the learner's returns."""

    def __init__(self, num_envs: int, pool_size: int, pool_every: int, seed: int) -> None:
        self.pool = SnapshotPool(pool_size, seed)
        self.pool_every = pool_every
        self.picks = [self.pool.pick() for _ in range(num_envs)]  # each game's snapshot
        self.outcomes: dict[str, list[float]] = {}

    def network_rows(self, dec: Any) -> np.ndarray:
        """The rows of ``dec`` (the waiting decisions) that the learning network plays:
        its own seats, and past seats while the pool is empty."""
        from choco_envs.train.games import LEARNER, PAST

        own = (dec.role == LEARNER) | ((dec.role == PAST) & (np.array(self.picks) < 0))
        return np.flatnonzero(own)

    def past_actions(self, dec: Any, actions: np.ndarray) -> None:
        """Fill ``actions`` at the rows of ``dec`` that a past snapshot plays (sampled
        from it; call under ``torch.inference_mode``)."""
        import torch

        from choco_envs.train.games import PAST

        obs_t, mask_t = torch.from_numpy(dec.obs), torch.from_numpy(dec.mask)
        past_rows = np.flatnonzero((dec.role == PAST) & (np.array(self.picks) >= 0))
        for k in {self.picks[i] for i in past_rows}:
            rows = np.array([i for i in past_rows if self.picks[i] == k])
            actions[rows] = (
                self.pool.models[k].get_action_and_value(obs_t[rows], mask_t[rows])[0].numpy()
            )

    def game_ended(self, env: int, returns: Any, seat_roles: Any) -> None:
        """Game ``env`` ended with ``returns``: a snapshot for its next game, and the
        learner's mean return filed under ``self``, ``past`` or ``bots``."""
        from choco_envs.train.games import LEARNER, PAST

        self.picks[env] = self.pool.pick()
        learner = [p for p, role in enumerate(seat_roles) if role == LEARNER]
        others = {role for role in seat_roles if role != LEARNER}
        kind = "self" if not others else ("past" if others == {PAST} else "bots")
        self.outcomes.setdefault(kind, []).append(float(np.mean([returns[p] for p in learner])))

    def returns(self) -> dict[str, float]:
        """``charts/mean_return_vs_<kind>`` over the games ended since the last call."""
        stats = {f"charts/mean_return_vs_{k}": float(np.mean(v)) for k, v in self.outcomes.items()}
        self.outcomes = {}
        return stats

    def after_update(self, model: Any, update: int) -> None:
        """Every ``pool_every`` updates, a frozen copy of ``model`` joins the pool."""
        if self.pool_every and update % self.pool_every == 0:
            self.pool.add(model)
