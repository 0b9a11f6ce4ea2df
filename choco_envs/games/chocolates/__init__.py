"""Chocolates (seed 004): predict what the face-down chocolates will show.

See docs/games/chocolates.md. The rules are in :mod:`.rules`, the component data in
:mod:`.components`, the card predicates in :mod:`.predictions`, the encoders in
:mod:`.encoding` and a beginner bot in :mod:`.greedy`.
"""

from choco_envs.games.chocolates.rules import ChocolatesGame, ChocolatesState

__all__ = ["ChocolatesGame", "ChocolatesState"]
