"""Le Chocolat (seed 002): two players split a 7x5 grid of two-sided chocolate tiles.

``LeChocolatGame`` assembles the rules (``rules``) with their observation encoders
(``encoding``), records (``records``) and text (``render``); the bots live in
``choco_envs.bots.le_chocolat``. See docs/games/le_chocolat.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from choco_envs.core.manifest import BenchCase, GameManifest
from choco_envs.games.le_chocolat import records, render
from choco_envs.games.le_chocolat.encoding import build_encoders
from choco_envs.games.le_chocolat.features import PIECES
from choco_envs.games.le_chocolat.rules import LeChocolatRules, LeChocolatState


class LeChocolatGame(LeChocolatRules):
    """Le Chocolat for exactly 2 players: the rules, their ``flat`` and ``planes``
    observations, JSON records and text."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.encoders = build_encoders(self)

    def to_json(self, s: LeChocolatState) -> dict[str, Any]:
        return records.state_to_json(self, s)

    def from_json(self, d: Mapping[str, Any]) -> LeChocolatState:
        return records.state_from_json(self, d)

    def legend(self) -> str:
        return render.HELP

    def state_to_string(
        self, s: LeChocolatState, player: int | None, ended: str | None = None
    ) -> str:
        return render.state_to_string(self, s, player, ended)


#: what the rest of the project reads of this game (see ``choco_envs.core.manifest``)
MANIFEST = GameManifest(
    game=LeChocolatGame,
    encoders=("flat", "planes"),
    bots="choco_envs.bots.le_chocolat",
    records=records,
    text=render,
    view=render,
    page="docs/games/le_chocolat.md",
    features=(PIECES,),
    bench=(BenchCase({"num_players": 2}, aec=2.0, raw=10.0),),
)


__all__ = ["MANIFEST", "LeChocolatGame", "LeChocolatRules", "LeChocolatState"]
