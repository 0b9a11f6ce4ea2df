"""The bots of Chocolatiers, listed in ``BOTS`` (see choco_envs.bots.game_kinds).

| kind | what it is |
|---|---|
| ``greedy`` | the beginner baseline (``greedy.py``), with settings ``used_cost``, ``missing_cost``, ``contest``, ``wild_contest``, ``exchange`` |
| ``tuned`` | the greedy heuristic with the tuned settings ``greedy.TUNED`` (used_cost=1.2, contest=10, wild_contest=1) |
| ``expert`` | the greedy heuristic with the expert settings ``greedy.EXPERT`` (tuned, missing_cost=4, exchange=1): it also exchanges |
"""

from __future__ import annotations

from choco_envs.bots.base import BotKind, BotOption
from choco_envs.bots.chocolatiers import greedy

BOTS = {
    "greedy": BotKind(
        "greedy",
        "the beginner heuristic: boxes the best affordable tile, takes toward the best "
        "tile, places tiles and wilds to grow its largest groups",
        policy=greedy.greedy_action,
        options={
            name: BotOption(
                name, greedy.exchange_setting if name == "exchange" else greedy.weight, doc
            )
            for name, doc in greedy.OPTIONS.items()
        },
    ),
    "tuned": BotKind(
        "tuned",
        "the greedy heuristic with its tuned settings (used_cost=1.2, contest=10, "
        "wild_contest=1): weighs the cards a tile uses more, and the Score tiles each "
        "tile and wild wins or loses against the other Samplers",
        policy=greedy.tuned_action,
    ),
    "expert": BotKind(
        "expert",
        "the tuned heuristic that also exchanges (gives a card to take two) when that "
        "leaves its hand at most 1 point worse than its best take, and values a missing "
        "card at 4 points (greedy.EXPERT)",
        policy=greedy.expert_action,
    ),
}
