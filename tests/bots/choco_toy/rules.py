"""Rules of Secret race (see the package docstring)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import numpy as np

from choco_envs.core.encoding import Encoder, Layout
from choco_envs.core.game import Game
from choco_envs.core.spec import GameSpec, Option

ADD_ONE, ADD_TWO, ADD_THREE, GAMBLE = 0, 1, 2, 3
ACTION_NAMES = ("+1", "+2", "+3", "gamble (0..4)")
DECK = (0, 0, 1, 1, 2, 2)


class ToyState:
    __slots__ = ("totals", "bonus", "deck", "turn")

    def __init__(self, totals: list[int], bonus: list[int], deck: list[int], turn: int) -> None:
        self.totals = totals
        self.bonus = bonus
        self.deck = deck
        self.turn = turn


class ToyRaceGame(Game[ToyState]):
    spec = GameSpec(
        env_id="toy_race_v0",
        name="Secret race",
        version=0,
        min_players=2,
        max_players=4,
        hidden_information=True,
        seed_file="(test game)",
        options=(Option("rounds", 3, "rounds played", allowed=(1, 2, 3, 4)),),
    )

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.rounds: int = self.config["rounds"]
        self.num_actions = 4
        self.max_steps = self.rounds * self.num_players
        layout = Layout()
        layout.add("own_total", 1, "own total / 20", high=1.0)
        layout.add("own_bonus", 3, "own bonus one-hot")
        layout.add("other_totals", self.num_players - 1, "others' totals / 20")
        layout.add("turn", 1, "turns played / max")
        self.encoders = {"flat": Encoder("flat", (layout.size,), layout, self._fill)}

    def _fill(self, s: ToyState, p: int, out: np.ndarray) -> None:
        n = self.num_players
        out[0] = s.totals[p] / 20
        out[1 + s.bonus[p]] = 1.0
        for k in range(1, n):
            out[3 + k] = s.totals[(p + k) % n] / 20
        out[3 + n] = s.turn / self.max_steps

    def new_state(self, rng: random.Random) -> ToyState:
        deck = list(DECK)
        rng.shuffle(deck)
        n = self.num_players
        return ToyState([0] * n, deck[:n], deck[n:], 0)

    def current_player(self, s: ToyState) -> int:
        return -1 if self.is_over(s) else s.turn % self.num_players

    def legal_mask(self, s: ToyState) -> np.ndarray:
        return np.full(self.num_actions, not self.is_over(s), dtype=bool)

    def apply(self, s: ToyState, action: int, rng: random.Random) -> None:
        a = self.check_action_range(s, action)
        if self.is_over(s):
            raise self.illegal(s, a, "the game is over")
        gain = rng.randrange(5) if a == GAMBLE else a + 1
        s.totals[s.turn % self.num_players] += gain
        s.turn += 1

    def is_over(self, s: ToyState) -> bool:
        return s.turn >= self.max_steps

    def scores(self, s: ToyState) -> list[float]:
        return [float(t + b) for t, b in zip(s.totals, s.bonus, strict=True)]

    def copy(self, s: ToyState) -> ToyState:
        return ToyState(list(s.totals), list(s.bonus), list(s.deck), s.turn)

    def determinize(self, s: ToyState, player: int, rng: random.Random) -> ToyState:
        unseen = sorted(s.deck + [b for i, b in enumerate(s.bonus) if i != player])
        rng.shuffle(unseen)
        bonus = [s.bonus[player] if i == player else unseen.pop() for i in range(len(s.bonus))]
        return ToyState(list(s.totals), bonus, unseen, s.turn)

    def to_json(self, s: ToyState) -> dict[str, Any]:
        return {"totals": s.totals, "bonus": s.bonus, "deck": s.deck, "turn": s.turn}

    def from_json(self, d: Mapping[str, Any]) -> ToyState:
        return ToyState(list(d["totals"]), list(d["bonus"]), list(d["deck"]), int(d["turn"]))

    def action_to_string(self, s: ToyState, action: int) -> str:
        return ACTION_NAMES[action]

    def state_to_string(self, s: ToyState, player: int | None, ended: str | None = None) -> str:
        lines = [f"Secret race, turn {s.turn + 1} of {self.max_steps}"]
        for i, total in enumerate(s.totals):
            bonus = str(s.bonus[i]) if i == player else "?"
            lines.append(f"player_{i}: total {total}, bonus {bonus}")
        return "\n".join(lines)
