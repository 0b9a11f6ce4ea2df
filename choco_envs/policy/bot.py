"""A trained checkpoint as a bot: ``PolicyBot(path)``, or ``bots.make("policy:PATH")``;
``shipped_checkpoint(env_id, options)`` finds the shipped one (the short name ``"ppo"``).

Inference runs on CPU, one decision at a time; the action is the most likely legal one
(``sample=False``) or drawn from the masked policy with the bot's own seeded generator.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from choco_envs.bots.base import AgentView, Bot
from choco_envs.policy.checkpoint import check_compatible, load_policy, shipped_checkpoint

__all__ = ["PolicyBot", "shipped_checkpoint"]


class PolicyBot(Bot):
    """Plays a checkpoint. ``env_id`` (optional) is checked against the checkpoint at
    once; every view is checked against it too (env, version, sizes)."""

    name = "policy"

    def __init__(
        self,
        path: str | Path,
        env_id: str | None = None,
        sample: bool = False,
        seed: int | None = None,
    ) -> None:
        import torch

        super().__init__(seed)
        self.path = Path(path)
        self.model, self.meta = load_policy(self.path, env_id)
        self.sample = sample
        self.name = f"policy:{self.path.name}"
        self._torch = torch
        self._checked: set[tuple[str, int, int]] = set()
        self.encoder_name: str = self.meta["encoder"]

    def _check(self, view: AgentView) -> None:
        game = view.game
        key = (game.spec.env_id, id(game), game.num_players)
        if key in self._checked:
            return
        options = {k: v for k, v in game.config.items()}
        check_compatible(self.meta, self.path, game.spec.env_id, options)
        self._checked.add(key)

    def _observation(self, view: AgentView) -> np.ndarray:
        shape = tuple(self.meta["observation_shape"])
        if view.observation.shape == shape and self.encoder_name == "flat":
            return view.observation
        state = view.determinize(self.rng)  # the seat's own view: same observation
        return view.game.encoder(self.encoder_name).encode(state, view.seat)

    def act_view(self, view: AgentView) -> int:
        self._check(view)
        torch = self._torch
        obs = torch.from_numpy(np.asarray(self._observation(view), dtype=np.float32))[None]
        mask = torch.from_numpy(np.asarray(view.mask, dtype=bool))[None]
        with torch.no_grad():
            logits, _ = self.model(obs, mask)
        logits = logits[0].double().numpy()
        if not self.sample:
            return int(np.argmax(logits))
        legal = np.flatnonzero(view.mask)
        p = np.exp(logits[legal] - logits[legal].max())
        return int(self.rng.choices(legal.tolist(), weights=p.tolist())[0])
