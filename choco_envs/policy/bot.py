"""A trained checkpoint as a bot: ``PolicyBot(path)``, or ``bots.make("policy:PATH")``;
``shipped_checkpoint(env_id, options)`` finds the shipped one (the short name ``"ppo"``).

The bot reads what the checkpoint was trained on, the same way the trainer did
(``PolicyInputs``: its encoder's observation of the seat, then its feature function's
inputs). Inference runs on CPU, one decision at a time; the action is the most likely
legal one (``sample=False``) or drawn from the masked policy with the bot's own seeded
generator.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from choco_envs.core.agent import AgentView, Bot
from choco_envs.policy.checkpoint import check_compatible, load_policy, shipped_checkpoint
from choco_envs.policy.features import PolicyInputs

__all__ = ["PolicyBot", "shipped_checkpoint"]


class PolicyBot(Bot):
    """Plays a checkpoint. ``env_id`` (optional) is checked against the checkpoint at
    once; every game it meets is checked against it too (env, version, sizes)."""

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
        self._game: object = None  # the game last played, and its policy inputs
        self._inputs: PolicyInputs | None = None
        self.encoder_name: str = self.meta["encoder"]
        self.feature: str = (self.meta.get("features") or {}).get("name", "")

    def _inputs_for(self, view: AgentView) -> PolicyInputs:
        """The policy inputs for the game of ``view``, the checkpoint checked against
        that game (env, version, options' sizes) the first time it is met."""
        game = view.game
        if self._game is not game:
            options = {k: v for k, v in game.config.items()}
            check_compatible(self.meta, self.path, game.spec.env_id, options)
            self._game, self._inputs = game, PolicyInputs.of_checkpoint(game, self.meta)
        assert self._inputs is not None
        return self._inputs

    def _observation(self, view: AgentView, inputs: PolicyInputs) -> np.ndarray:
        if view.observation.shape == inputs.encoder_shape and self.encoder_name == "flat":
            return view.observation
        state = view.determinize(self.rng)  # the seat's own view: same observation
        return inputs.encoder.encode(state, view.seat)

    def act_view(self, view: AgentView) -> int:
        inputs = self._inputs_for(view)
        torch = self._torch
        x = inputs.from_observations(self._observation(view, inputs)[None])
        mask = torch.from_numpy(np.asarray(view.mask, dtype=bool))[None]
        with torch.no_grad():
            logits, _ = self.model(torch.from_numpy(x), mask)
        logits = logits[0].double().numpy()
        if not self.sample:
            return int(np.argmax(logits))
        legal = np.flatnonzero(view.mask)
        p = np.exp(logits[legal] - logits[legal].max())
        return int(self.rng.choices(legal.tolist(), weights=p.tolist())[0])
