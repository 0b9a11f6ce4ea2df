"""The one bot interface, declared in core so that every layer that plays (bots, the policy
bot, the trainer, the arena) reads it without importing another: a bot chooses the action
of the agent to act in a live AEC env, seeing only that agent's information: its
observation and mask, and (for bots that search or reason about the rules) a determinized
copy of the state from that agent's view, never the true hidden state.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from choco_envs.core.game import Game

__all__ = ["AgentView", "Bot", "view_of"]


class AgentView:
    """What one seat may know, taken from a live env at its decision point.

    ``observation`` and ``mask`` are the agent's own; ``determinize(rng)`` returns a full
    state consistent with everything the seat has seen, with every hidden thing resampled.
    The true state is kept private and never returned.
    """

    __slots__ = ("game", "seat", "observation", "mask", "_state")

    def __init__(
        self, game: Game[Any], state: Any, seat: int, observation: np.ndarray, mask: np.ndarray
    ) -> None:
        self.game = game
        self.seat = seat
        self.observation = observation
        self.mask = mask
        self._state = state

    def determinize(self, rng: random.Random) -> Any:
        """A state this seat cannot tell from the real one (a fresh copy every call)."""
        return self.game.determinize(self._state, self.seat, rng)

    @property
    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self.mask).tolist()

    def text(self) -> str:
        """The game as this seat may see it (``state_to_string`` for this seat)."""
        return self.game.state_to_string(self._state, self.seat)

    def action_name(self, action: int) -> str:
        """What a legal ``action`` of this seat means, in words."""
        return self.game.action_to_string(self._state, action)


def view_of(env: Any) -> AgentView:
    """The view of ``env.agent_selection`` in a live (wrapped or raw) choco_envs AEC env."""
    raw = env.unwrapped
    agent = raw.agent_selection
    seat = raw.agent_name_mapping[agent]
    obs = raw.observe(agent)
    mask = obs["action_mask"].astype(bool)
    return AgentView(raw.game, raw.state_, seat, obs["observation"], mask)


class Bot(ABC):
    """A player. ``act(env)`` returns a legal action for ``env.agent_selection``."""

    name: str = "bot"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        """Called at the start of a game; reseeds the bot's own random stream."""
        self.rng = random.Random(seed)

    def act(self, env: Any) -> int:
        return self.act_view(view_of(env))

    @abstractmethod
    def act_view(self, view: AgentView) -> int:
        """Choose from ``view`` alone."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
