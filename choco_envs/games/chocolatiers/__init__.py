"""Chocolatiers, standard (seed 000) and classic (seed 003) editions: see
docs/games/chocolatiers.md.

``ChocolatiersGame`` assembles the rules (``rules.py``) with the observation encoders
(``encoding.py``), the records (``records.py``) and the text view (``render.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from choco_envs.core.manifest import BenchCase, GameManifest
from choco_envs.games.chocolatiers import records, render
from choco_envs.games.chocolatiers.encoding import build_encoders
from choco_envs.games.chocolatiers.features import (
    AFFORDABLE,
    EXCHANGES,
    PLACEMENTS,
    TAKES,
    TRADES,
)
from choco_envs.games.chocolatiers.rules import ChocolatiersRules, ChocolatiersState


class ChocolatiersGame(ChocolatiersRules):
    """Chocolatiers for one configuration (``edition``, ``num_players``, ``components``),
    with its encoders, records and text."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.encoders = build_encoders(self)

    def to_json(self, s: ChocolatiersState) -> dict[str, Any]:
        return records.state_to_json(self, s)

    def from_json(self, d: Mapping[str, Any]) -> ChocolatiersState:
        return records.state_from_json(self, d)

    def legend(self) -> str:
        return render.HELP

    def state_to_string(
        self, s: ChocolatiersState, player: int | None, ended: str | None = None
    ) -> str:
        return render.state_to_string(self, s, player, ended)


#: what the rest of the project reads of this game (see ``choco_envs.core.manifest``)
MANIFEST = GameManifest(
    game=ChocolatiersGame,
    encoders=("flat", "planes"),
    bots="choco_envs.bots.chocolatiers",
    records=records,
    text=render,
    view=None,
    page="docs/games/chocolatiers.md",
    features=(AFFORDABLE, TAKES, PLACEMENTS, EXCHANGES, TRADES),
    bench=(
        BenchCase({"num_players": 4, "edition": "standard"}, aec=2.0, raw=10.0),
        BenchCase({"num_players": 4, "edition": "classic"}, aec=2.0, raw=10.0),
    ),
    # the az bot on the PPO networks: on the files that imitate expert (0.17.0 on), the
    # search's values at a small weight: 0.03 beat tuned 59.0% over 400 games where 0.3
    # won 50.6% (docs/games/chocolatiers.md); 256 simulations beat 64 against tuned on the
    # files before 0.9.0
    search_c_scale=0.03,
    search_simulations=256,
)


__all__ = ["MANIFEST", "ChocolatiersGame", "ChocolatiersRules", "ChocolatiersState"]
