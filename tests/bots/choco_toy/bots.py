"""Bots with a known result in Secret race: MaxBot always beats MinBot."""

from __future__ import annotations

from choco_envs.bots.base import AgentView, Bot

from .rules import ADD_ONE, ADD_THREE


class MaxBot(Bot):
    """Always +3."""

    name = "max"

    def act_view(self, view: AgentView) -> int:
        return ADD_THREE


class MinBot(Bot):
    """Always +1."""

    name = "min"

    def act_view(self, view: AgentView) -> int:
        return ADD_ONE


def make_max(seed: int | None = None) -> Bot:
    return MaxBot(seed)


def make_min(seed: int | None = None) -> Bot:
    return MinBot(seed)
