"""The bots of Chocolate Factory (``chocolate_factory_v2``), listed in ``BOTS`` (see
choco_envs.bots.game_kinds):

| kind | bot |
|---|---|
| ``greedy`` | the beginner heuristic (``greedy.py``) |
| ``tier[:tier=bronze|silver|gold]`` | the same heuristic refilling a freed station only with a variety of one tier (the fixed-tier strategies of the balance check, ``balance.py``) |
"""

from __future__ import annotations

import random

from choco_envs.bots.base import BotKind, BotOption, choice_parser
from choco_envs.games.chocolate_factory.rules import ChocolateFactoryRules, FactoryState

from .greedy import greedy_action

TIERS = ("bronze", "silver", "gold")


def tier_action(
    game: ChocolateFactoryRules, state: FactoryState, rng: random.Random, tier: str = "bronze"
) -> int:
    """The greedy action, choosing new varieties of one tier only."""
    return greedy_action(game, state, rng, tier=TIERS.index(tier))


BOTS = {
    "greedy": BotKind("greedy", "the beginner heuristic", policy=greedy_action),
    "tier": BotKind(
        "tier",
        "the greedy heuristic that refills a freed station only with one tier (tier=bronze, "
        "silver or gold; default bronze)",
        policy=tier_action,
        options={"tier": BotOption("tier", choice_parser(TIERS), "bronze, silver or gold")},
    ),
}
