"""Chocolates (seed 004): predict what the face-down chocolates will show.

See docs/games/chocolates.md. The rules and the pure helpers bots and policies read are in
:mod:`.rules`, the component data in :mod:`.components`, the observation encoders in
:mod:`.encoding`, saved states in :mod:`.records` and the text in :mod:`.render`. The bots
live in :mod:`choco_envs.bots.chocolates`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from choco_envs.core.manifest import BenchCase, GameManifest
from choco_envs.games.chocolates import records, render
from choco_envs.games.chocolates.encoding import build_encoders
from choco_envs.games.chocolates.features import TRUTH
from choco_envs.games.chocolates.rules import ChocolatesRules, ChocolatesState


class ChocolatesGame(ChocolatesRules):
    """Chocolates for 2 to 4 players: the rules with their encoders, records and text."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.encoders = build_encoders(self)

    def to_json(self, s: ChocolatesState) -> dict[str, Any]:
        return records.state_to_json(self, s)

    def from_json(self, d: Mapping[str, Any]) -> ChocolatesState:
        return records.state_from_json(self, d)

    def legend(self) -> str:
        return render.HELP

    def state_to_string(
        self, s: ChocolatesState, player: int | None, ended: str | None = None
    ) -> str:
        return render.state_to_string(self, s, player, ended)


#: what the rest of the project reads of this game (see ``choco_envs.core.manifest``)
MANIFEST = GameManifest(
    game=ChocolatesGame,
    encoders=("flat", "planes"),
    bots="choco_envs.bots.chocolates",
    records=records,
    text=render,
    view=render,
    page="docs/games/chocolates.md",
    features=(TRUTH,),
    bench=(
        BenchCase({"num_players": 2}, aec=2.0, raw=10.0),
        BenchCase({"num_players": 4}, aec=2.0, raw=10.0),
    ),
)


__all__ = ["MANIFEST", "ChocolatesGame", "ChocolatesRules", "ChocolatesState"]
