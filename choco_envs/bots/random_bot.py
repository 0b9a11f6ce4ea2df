"""The random bot: a uniformly random legal action, from the mask alone."""

from __future__ import annotations

from choco_envs.bots.base import AgentView, Bot


class RandomBot(Bot):
    """Chooses uniformly among the legal actions with its own seeded stream."""

    name = "random"

    def act_view(self, view: AgentView) -> int:
        legal = view.legal_actions
        return legal[self.rng.randrange(len(legal))]
