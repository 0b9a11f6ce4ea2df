"""A toy game for the training tests: Nim with multi-step turns, registered on the fly.

A pile of ``stones``; a turn is ``moves_per_turn`` actions by the same seat, each taking
1, 2 or 3 stones (action 0, 1, 2) while that many remain. Whoever takes the last stone
wins (score 1, the others 0). Seat 0 moves first. Perfect play for one move per turn:
leave a multiple of 4.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from choco_envs.core.encoding import Encoder, Layout
from choco_envs.core.game import Game, Rng, require
from choco_envs.core.spec import GameSpec, Option

ENV_ID = "toy_nim_v0"


class NimState:
    __slots__ = ("stones", "player", "moves_left", "winner")

    def __init__(self, stones: int, player: int, moves_left: int, winner: int) -> None:
        self.stones, self.player, self.moves_left, self.winner = stones, player, moves_left, winner


class ToyNim(Game[NimState]):
    spec = GameSpec(
        env_id=ENV_ID,
        name="Toy Nim",
        version=0,
        min_players=2,
        max_players=3,
        hidden_information=False,
        seed_file="",
        options=(
            Option("stones", 10, "stones in the pile", allowed=(3, 5, 10, 13, 21)),
            Option("moves_per_turn", 1, "actions in one turn", allowed=(1, 2)),
        ),
    )

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.num_actions = 3
        self.max_steps = self.config["stones"]
        lay = Layout()
        lay.add("stones", 22, "one-hot of the stones left")
        lay.add("moves_left", 2, "one-hot of the moves left in the turn (1, 2)")
        lay.add("seat", self.num_players, "one-hot of the observing seat")
        self.encoders = {"flat": Encoder("flat", (lay.size,), lay, self._fill)}

    def _fill(self, s: NimState, player: int, out: np.ndarray) -> None:
        out[s.stones] = 1.0
        if s.moves_left:
            out[21 + s.moves_left] = 1.0
        out[24 + player] = 1.0

    def new_state(self, rng: Rng) -> NimState:
        return NimState(self.config["stones"], 0, self.config["moves_per_turn"], -1)

    def current_player(self, s: NimState) -> int:
        return -1 if s.winner >= 0 else s.player

    def legal_mask(self, s: NimState) -> np.ndarray:
        mask = np.zeros(3, dtype=bool)
        if s.winner < 0:
            mask[: min(3, s.stones)] = True
        return mask

    def apply(self, s: NimState, action: int, rng: Rng) -> None:
        a = self.check_action_range(s, action)
        if s.winner >= 0 or a + 1 > s.stones:
            raise self.illegal(s, a, "not that many stones left")
        s.stones -= a + 1
        if s.stones == 0:
            s.winner = s.player
            return
        s.moves_left -= 1
        if s.moves_left == 0:
            s.player = (s.player + 1) % self.num_players
            s.moves_left = self.config["moves_per_turn"]

    def is_over(self, s: NimState) -> bool:
        return s.winner >= 0

    def scores(self, s: NimState) -> list[float]:
        return [1.0 if p == s.winner else 0.0 for p in range(self.num_players)]

    def copy(self, s: NimState) -> NimState:
        return NimState(s.stones, s.player, s.moves_left, s.winner)

    def determinize(self, s: NimState, player: int, rng: Rng) -> NimState:
        return self.copy(s)

    def to_json(self, s: NimState) -> dict[str, Any]:
        return {
            "stones": s.stones,
            "player": s.player,
            "moves_left": s.moves_left,
            "winner": s.winner,
        }

    def from_json(self, d: Mapping[str, Any]) -> NimState:
        return NimState(
            *(require(d, k, int, "state") for k in ("stones", "player", "moves_left", "winner"))
        )

    def action_to_string(self, s: NimState, action: int) -> str:
        return f"take {action + 1}"

    def state_to_string(self, s: NimState, player: int | None, ended: str | None = None) -> str:
        return f"{s.stones} stones, player_{s.player} to move"
