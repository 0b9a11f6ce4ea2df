"""Chocolate Factory (seed 001): dice drafting with stations, machines, shared packages and
a shift clock. See docs/games/chocolate_factory.md.

``ChocolateFactoryGame`` assembles the rules (``rules.py``) with the observation encoder
(``encoding.py``), the records with their strict loader (``records.py``) and the text
(``render.py``); rules.py imports none of them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from choco_envs.core.manifest import BenchCase, GameManifest
from choco_envs.games.chocolate_factory import records, render
from choco_envs.games.chocolate_factory.encoding import build_encoders
from choco_envs.games.chocolate_factory.rules import ChocolateFactoryRules, FactoryState


class ChocolateFactoryGame(ChocolateFactoryRules):
    """Chocolate Factory for one configuration, with its encoders and records."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.encoders = build_encoders(self)

    def to_json(self, s: FactoryState) -> dict[str, Any]:
        return records.state_to_json(self, s)

    def from_json(self, d: Mapping[str, Any]) -> FactoryState:
        return records.state_from_json(self, d)

    def legend(self) -> str:
        return render.HELP

    def state_to_string(self, s: FactoryState, player: int | None, ended: str | None = None) -> str:
        return render.state_to_string(self, s, player, ended)


#: what the rest of the project reads of this game (see ``choco_envs.core.manifest``)
MANIFEST = GameManifest(
    game=ChocolateFactoryGame,
    encoders=("flat",),
    bots="choco_envs.bots.chocolate_factory",
    records=records,
    text=render,
    view=None,
    page="docs/games/chocolate_factory.md",
    features=(),
    bench=(BenchCase({"num_players": 4}, aec=2.0, raw=10.0),),
)


__all__ = ["MANIFEST", "ChocolateFactoryGame", "ChocolateFactoryRules", "FactoryState"]
