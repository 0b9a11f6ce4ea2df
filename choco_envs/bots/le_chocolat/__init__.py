"""The bots of Le Chocolat (``le_chocolat_v0``), listed in ``BOTS`` (see
choco_envs.bots.game_kinds):

| kind | bot |
|---|---|
| ``greedy`` | the beginner baseline: one ply of lookahead by the scoring card (``greedy.py``) |
| ``alphabeta[:depth=N]`` | alpha-beta over N whole turns (1..4, default 3), valued as greedy values (``alphabeta.py``) |
"""

from __future__ import annotations

from choco_envs.bots.base import BotKind, BotOption

from .alphabeta import (
    DEFAULT_DEPTH,
    DEFAULT_TEMPERATURE,
    MAX_DEPTH,
    make_alphabeta,
    parse_depth,
    parse_temperature,
)
from .greedy import greedy_action

BOTS = {
    "greedy": BotKind(
        "greedy",
        "the beginner baseline: claims and splits by one ply of lookahead on the card",
        policy=greedy_action,
    ),
    "alphabeta": BotKind(
        "alphabeta",
        f"alpha-beta search over whole turns (depth=N, 1..{MAX_DEPTH}, default {DEFAULT_DEPTH})",
        options={
            "depth": BotOption(
                "depth",
                parse_depth,
                f"whole turns searched, an integer 1..{MAX_DEPTH} (default {DEFAULT_DEPTH})",
            ),
            "temperature": BotOption(
                "temperature",
                parse_temperature,
                "as a teacher (soft imitation): the VP scale of the policy it teaches, "
                "softmax of its action values over the actions within 2 VP of the best "
                f"(> 0, <= 10; default {DEFAULT_TEMPERATURE}); its play is unchanged",
            ),
        },
        make=make_alphabeta,
    ),
}
