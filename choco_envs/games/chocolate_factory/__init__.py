"""Chocolate Factory (seed 001): dice drafting with stations, machines, shared packages and
a shift clock. See docs/games/chocolate_factory.md.

``ChocolateFactoryGame`` assembles the rules (``rules.py``) with the observation encoder
(``encoding.py``) and the records with their strict loader (``records.py``); rules.py
imports neither."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from choco_envs.games.chocolate_factory import records
from choco_envs.games.chocolate_factory.encoding import flat_encoder
from choco_envs.games.chocolate_factory.rules import ChocolateFactoryRules, FactoryState


class ChocolateFactoryGame(ChocolateFactoryRules):
    """Chocolate Factory for one configuration, with its encoders and records."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.encoders = {"flat": flat_encoder(self)}

    def to_json(self, s: FactoryState) -> dict[str, Any]:
        return records.state_to_json(self, s)

    def from_json(self, d: Mapping[str, Any]) -> FactoryState:
        return records.state_from_json(self, d)


__all__ = ["ChocolateFactoryGame", "ChocolateFactoryRules", "FactoryState"]
