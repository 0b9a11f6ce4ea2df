"""Bots: the one interface (:class:`Bot`, :class:`AgentView`, declared in
``choco_envs.core.agent`` and re-exported here), a game's bot kinds (:class:`BotKind`) and
their settings (:class:`BotOption`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from choco_envs.core.agent import AgentView, Bot, view_of

__all__ = [
    "AgentView",
    "Bot",
    "BotKind",
    "BotOption",
    "HeuristicBot",
    "StatePolicy",
    "choice_parser",
    "number_parser",
    "view_of",
]

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
