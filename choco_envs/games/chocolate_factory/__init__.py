"""Chocolate Factory (seed 001): dice drafting with stations, machines, shared packages and
a shift clock. See docs/games/chocolate_factory.md.

``ChocolateFactoryGame`` assembles the rules (``rules.py``) with the observation encoder
(``encoding.py``); rules.py imports no encoder."""

from __future__ import annotations

from typing import Any

from choco_envs.games.chocolate_factory.encoding import flat_encoder
from choco_envs.games.chocolate_factory.rules import ChocolateFactoryRules, FactoryState


class ChocolateFactoryGame(ChocolateFactoryRules):
    """Chocolate Factory for one configuration, with its encoders."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.encoders = {"flat": flat_encoder(self)}


__all__ = ["ChocolateFactoryGame", "ChocolateFactoryRules", "FactoryState"]
