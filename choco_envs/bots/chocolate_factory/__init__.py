"""The bots of chocolate_factory: its kinds, listed in ``BOTS`` (see choco_envs.bots.game_kinds).

Transitional: the heuristic still lives in choco_envs.games.chocolate_factory.greedy and moves here."""

from __future__ import annotations

from choco_envs.bots.base import BotKind, BotOption
from choco_envs.games.chocolate_factory import greedy as _greedy

BOTS = {
    "greedy": BotKind(
        "greedy",
        "the beginner heuristic",
        policy=_greedy.greedy_action,
        options={
            name: BotOption(name, parse, doc)
            for name, (parse, doc) in getattr(_greedy, "OPTIONS", {}).items()
        },
        check=getattr(_greedy, "check_settings", None),
    )
}
