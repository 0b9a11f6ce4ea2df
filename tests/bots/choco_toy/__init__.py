"""A tiny hidden-information game for testing bots and the arena: Secret race.

Each of 2 to 4 players is dealt one face-down bonus card (0, 1 or 2) from a shuffled deck of
six; the rest stay face down. For ``rounds`` rounds every player in seat order adds +1, +2,
+3 or a gamble (a die of 0..4) to a public total. Score: total + own bonus. A player who
always takes +3 beats one who always takes +1 whatever the deal (the bonus differs by at
most 2, the totals by 2 a round): the arena's statistics have a known answer.
"""

from __future__ import annotations

from choco_envs.bots.base import BotKind
from choco_envs.bots.game_kinds import register_game_bots

from .greedy import greedy_action
from .rules import ToyRaceGame

register_game_bots(
    ToyRaceGame.spec.env_id, {"greedy": BotKind("greedy", "always +3", policy=greedy_action)}
)

__all__ = ["ToyRaceGame"]
