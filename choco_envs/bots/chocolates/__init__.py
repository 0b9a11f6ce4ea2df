"""The bots of Chocolates, listed in ``BOTS`` (see choco_envs.bots.game_kinds):

* ``greedy`` (:mod:`.greedy`): the beginner baseline, with its settings
  (``greedy:min_confidence=0.8,...``);
* ``plan`` (:mod:`.plan`): the adaptive plan, patient against a reckless opponent and
  quick against a careful one (no settings; it keeps its estimates per bot instance).

Both read the beliefs sampler of :mod:`.beliefs` and the rules' helpers
(``choco_envs.games.chocolates.rules``); neither copies a rule.
"""

from __future__ import annotations

from choco_envs.bots.base import BotKind
from choco_envs.bots.chocolates import greedy, plan

BOTS = {
    "greedy": BotKind(
        "greedy",
        "the beginner heuristic: takes a card only when at least 85% sure of its side",
        policy=greedy.greedy_action,
        options=greedy.OPTIONS,
    ),
    "plan": BotKind(
        "plan",
        "the adaptive plan: patient against a reckless seat, quick against a careful one",
        make=plan.make_plan_bot,
    ),
}
