"""The one bot interface. A bot chooses the action of the agent to act in a live AEC env,
seeing only that agent's information: its observation and mask, and (for bots that search
or reason about the rules) a determinized copy of the state from that agent's view, never
the true hidden state.
"""

from __future__ import annotations

import math
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from choco_envs.core.game import Game


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


# ---------------------------------------------------------------- game bots
#: a bot's choice on a full state it may see (a determinization of its view):
#: ``policy(game, state, rng, **settings) -> action``
StatePolicy = Callable[..., int]


@dataclass(frozen=True)
class BotOption:
    """One ``key=value`` setting of a bot kind: its parser (``parse(text)`` returns the
    value or raises ValueError saying what is allowed) and what it means."""

    name: str
    parse: Callable[[str], Any]
    doc: str


@dataclass(frozen=True)
class BotKind:
    """A kind of bot that one game offers, made by name (``greedy``, ``plan``, ...).

    A game lists its kinds in ``BOTS`` of its folder under ``choco_envs/bots/`` (every
    game has ``greedy``, its beginner baseline). ``policy(game, state, rng, **settings)``
    chooses on a determinization of the seat's view (never the true hidden state);
    ``options`` are the settings it takes (``kind:key=value,...``); ``check(settings)``
    raises ValueError for settings that do not go together. A kind that keeps state
    between moves (caches, beliefs) gives ``make(settings, seed) -> Bot`` instead, and
    its caches live in the bot, never in a module.
    """

    name: str
    doc: str
    policy: StatePolicy | None = None
    options: Mapping[str, BotOption] = field(default_factory=dict)
    check: Callable[[dict[str, Any]], None] | None = None
    make: Callable[[dict[str, Any], int | None], Bot] | None = None

    def __post_init__(self) -> None:
        if (self.policy is None) == (self.make is None):
            raise ValueError(f"bot kind {self.name!r} needs exactly one of policy and make")

    def build(self, settings: dict[str, Any], seed: int | None) -> Bot:
        if self.make is not None:
            return self.make(dict(settings), seed)
        assert self.policy is not None
        return HeuristicBot(self.policy, settings, seed=seed, name=self.name)


class HeuristicBot(Bot):
    """Plays a :data:`StatePolicy` on a fresh determinization of its view each move."""

    def __init__(
        self,
        policy: StatePolicy,
        settings: dict[str, Any] | None = None,
        seed: int | None = None,
        name: str = "heuristic",
    ) -> None:
        super().__init__(seed)
        self.policy = policy
        self.options = dict(settings or {})
        self.name = name

    def act_view(self, view: AgentView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        state = view.determinize(self.rng)
        action = int(self.policy(view.game, state, self.rng, **self.options))
        if not 0 <= action < len(view.mask) or not view.mask[action]:
            env_id = view.game.spec.env_id
            raise RuntimeError(
                f"bot {self.name!r} of {env_id} chose illegal action {action}; legal: {legal}"
            )
        return action


def number_parser(kind: type, low: float, high: float = math.inf, low_open: bool = False) -> Any:
    """A :class:`BotOption` parser of an int or float in [low, high] (or (low, high])."""

    def parse(text: str) -> Any:
        value = kind(text)
        too_low = value <= low if low_open else value < low
        if too_low or value > high or (isinstance(value, float) and math.isnan(value)):
            bracket = "(" if low_open else "["
            raise ValueError(f"allowed: {kind.__name__} in {bracket}{low:g}, {high:g}]")
        return value

    return parse


def choice_parser(allowed: tuple[str, ...]) -> Callable[[str], str]:
    """A :class:`BotOption` parser of one of ``allowed``."""

    def parse(text: str) -> str:
        if text not in allowed:
            raise ValueError(f"allowed values: {', '.join(allowed)}")
        return text

    return parse
