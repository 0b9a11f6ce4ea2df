"""Chocolates (seed 004): the State and the rules.

Actions (27): ``0..5`` take display slot ``a // 2`` with the true side (even) or the false
side (odd) face up; ``6..26`` reveal position ``a - 6``: 0..15 the grid cells row-major as
seen from the display (row 0 next to it, column 0 on the left), 16..20 the five chocolates
next to the grid. A turn is an optional take followed by exactly one reveal, by the same
seat.
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import not_
from typing import Any

import numpy as np

from choco_envs.core.game import Game, Rng
from choco_envs.core.spec import GameSpec, Option
from choco_envs.games.chocolates.components import (
    BESIDE_CELLS,
    GRID_CELLS,
    NOUGAT_SUPPLY,
    NUM_CARDS,
    NUM_CHOCOLATES,
    NUM_SHAPES,
    PREDICTION_CARDS,
    check_components_option,
    kind_name,
    load_components,
)
from choco_envs.games.chocolates.predictions import PREDICATES, split_layout

NUM_TAKE_ACTIONS = 6
REVEAL_BASE = NUM_TAKE_ACTIONS
NUM_ACTIONS = REVEAL_BASE + NUM_CHOCOLATES
DISPLAY_SIZE = 3
#: a player holding this many cards triggers the end, by player count
CARD_LIMIT = {2: 4, 3: 4, 4: 3}
SIDE_NAMES = ("true", "false")

TYPE_CODES = ("Dk", "Br", "Wh", "Gn", "Pk", "Au")
SHAPE_CODES = ("o", "^", "#")


class ChocolatesState:
    """Everything about one game, in plain lists and ints (cheap to copy).

    ``layout[pos]`` is the kind (``type * 3 + shape``) at position ``pos`` (0..15 grid,
    16..20 beside), hidden while ``revealed[pos]`` is False. ``pile`` is the face-down
    prediction pile, top at the end. ``display[i]`` is a card id or -1 (pile ran out).
    ``cards[seat]`` holds ``card * 2 + side`` (side 0: true face up, 1: false face up).
    ``final_turns`` is -1 until the end is triggered, then the number of turns still to
    play after the current one.
    """

    __slots__ = (
        "layout",
        "revealed",
        "grid_hidden",
        "pile",
        "display",
        "display_nougats",
        "supply",
        "cards",
        "nougats",
        "current",
        "took_card",
        "final_turns",
        "over",
    )

    def __init__(
        self,
        layout: list[int],
        pile: list[int],
        display: list[int],
        num_players: int,
    ) -> None:
        self.layout = layout
        self.revealed = [False] * NUM_CHOCOLATES
        self.grid_hidden = GRID_CELLS
        self.pile = pile
        self.display = display
        self.display_nougats = [0] * DISPLAY_SIZE
        self.supply = NOUGAT_SUPPLY
        self.cards: list[list[int]] = [[] for _ in range(num_players)]
        self.nougats = [0] * num_players
        self.current = 0
        self.took_card = False
        self.final_turns = -1
        self.over = False

    def copy(self) -> ChocolatesState:
        new = ChocolatesState.__new__(ChocolatesState)
        new.layout = self.layout[:]
        new.revealed = self.revealed[:]
        new.grid_hidden = self.grid_hidden
        new.pile = self.pile[:]
        new.display = self.display[:]
        new.display_nougats = self.display_nougats[:]
        new.supply = self.supply
        new.cards = [c[:] for c in self.cards]
        new.nougats = self.nougats[:]
        new.current = self.current
        new.took_card = self.took_card
        new.final_turns = self.final_turns
        new.over = self.over
        return new

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ChocolatesState):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ChocolatesState(current={self.current}, over={self.over})"


SPEC = GameSpec(
    env_id="chocolates_v0",
    name="Chocolates",
    version=0,
    min_players=2,
    max_players=4,
    hidden_information=True,
    seed_file="004_6f6c182010addd80.txt",
    options=(
        Option(
            "components",
            None,
            "the 21 chocolates: None (the shipped, authored type x shape crossing), a dict "
            "{'chocolates': {type: {shape: count}}} or the path of a JSON file holding one; "
            "counts must match the printed totals",
            check=check_components_option,
            rule=False,
        ),
    ),
)


class ChocolatesGame(Game[ChocolatesState]):
    """Chocolates for 2 to 4 players; see docs/games/chocolates.md."""

    spec = SPEC

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        from choco_envs.games.chocolates.encoding import build_encoders

        self.chocolates: list[int] = load_components(self.config["components"])
        self.card_limit = CARD_LIMIT[self.num_players]
        self.num_actions = NUM_ACTIONS
        # every turn reveals one chocolate; the 16th grid reveal ends it, so at most 21
        # turns; every take is a step too and nobody holds more than the card limit
        self.max_steps = NUM_CHOCOLATES + min(NUM_CHOCOLATES, self.num_players * self.card_limit)
        # mask bytes of the two take actions of a display slot, by card id (-1: empty slot)
        self._take_template = [b"\x01\x01"] * NUM_CARDS + [b"\x00\x00"]
        self.encoders = build_encoders(self)

    # ------------------------------------------------------------------ setup
    def new_state(self, rng: Rng) -> ChocolatesState:
        """Shuffle the chocolates into the grid and beside it, shuffle the prediction
        pile and draw the display of 3."""
        layout = self.chocolates[:]
        rng.shuffle(layout)
        pile = list(range(NUM_CARDS))
        rng.shuffle(pile)
        display = [pile.pop() for _ in range(DISPLAY_SIZE)]
        return ChocolatesState(layout, pile, display, self.num_players)

    # ------------------------------------------------------------------ queries
    def current_player(self, s: ChocolatesState) -> int:
        return -1 if s.over else s.current

    def is_over(self, s: ChocolatesState) -> bool:
        return s.over

    def can_take(self, s: ChocolatesState) -> bool:
        """Taking is possible: not yet this turn, and below the card limit."""
        return not s.took_card and len(s.cards[s.current]) < self.card_limit

    def legal_actions(self, s: ChocolatesState) -> list[int]:
        if s.over:
            return []
        actions: list[int] = []
        if self.can_take(s):
            for slot, card in enumerate(s.display):
                if card >= 0:
                    actions += (2 * slot, 2 * slot + 1)
        revealed = s.revealed
        actions += [REVEAL_BASE + pos for pos in range(NUM_CHOCOLATES) if not revealed[pos]]
        return actions

    def legal_mask(self, s: ChocolatesState) -> np.ndarray:
        """Built as bytes (one per action) and viewed as a bool array, without a copy."""
        if s.over:
            return np.zeros(NUM_ACTIONS, dtype=bool)
        if self.can_take(s):
            take = self._take_template
            d0, d1, d2 = s.display
            mask = bytearray(take[d0] + take[d1] + take[d2])
        else:
            mask = bytearray(NUM_TAKE_ACTIONS)
        mask += bytes(map(not_, s.revealed))
        return np.frombuffer(mask, dtype=bool)

    # ------------------------------------------------------------------ apply
    def apply(self, s: ChocolatesState, action: int, rng: Rng) -> None:
        """Take a display card (0..5) or reveal a chocolate (6..26); see the module doc."""
        a = self.check_action_range(s, action)
        if s.over:
            raise self.illegal(s, a, "the game is over")
        if a < REVEAL_BASE:
            self._take(s, a)
        else:
            self._reveal(s, a)

    def _take(self, s: ChocolatesState, a: int) -> None:
        slot, side = divmod(a, 2)
        player = s.current
        if s.took_card:
            raise self.illegal(s, a, "a card was already taken this turn; reveal a chocolate")
        if len(s.cards[player]) >= self.card_limit:
            raise self.illegal(s, a, f"player holds the limit of {self.card_limit} cards")
        card = s.display[slot]
        if card < 0:
            raise self.illegal(s, a, f"display slot {slot} is empty (the pile ran out)")
        s.cards[player].append(2 * card + side)
        s.nougats[player] += s.display_nougats[slot]
        s.display_nougats[slot] = 0
        for other in range(DISPLAY_SIZE):
            if other != slot and s.display[other] >= 0 and s.supply > 0:
                s.supply -= 1
                s.display_nougats[other] += 1
        s.display[slot] = s.pile.pop() if s.pile else -1
        s.took_card = True
        if len(s.cards[player]) >= self.card_limit and s.final_turns < 0:
            s.final_turns = self.num_players - 1

    def _reveal(self, s: ChocolatesState, a: int) -> None:
        pos = a - REVEAL_BASE
        if s.revealed[pos]:
            raise self.illegal(s, a, f"{position_name(pos)} is already face up")
        s.revealed[pos] = True
        s.took_card = False
        if pos < GRID_CELLS:
            s.grid_hidden -= 1
            if s.grid_hidden == 0:
                self._end(s)
                return
        if s.final_turns == 0:
            self._end(s)
            return
        if s.final_turns > 0:
            s.final_turns -= 1
        s.current = (s.current + 1) % self.num_players

    @staticmethod
    def _end(s: ChocolatesState) -> None:
        """Game over: "Flip all remaining chocolates face up" for the scoring."""
        s.over = True
        s.current = -1
        s.revealed = [True] * NUM_CHOCOLATES
        s.grid_hidden = 0

    # ------------------------------------------------------------------ scores
    def prediction_points(self, s: ChocolatesState) -> list[int]:
        """Each seat's points from predictions, on the complete layout (all chocolates
        flipped, as at the end of the game)."""
        types, shapes, beside = split_layout(s.layout)
        points = []
        for held in s.cards:
            total = 0
            for code in held:
                card, side = divmod(code, 2)
                value = PREDICTION_CARDS[card].points(side)
                right = PREDICATES[card](types, shapes, beside) != bool(side)
                total += value if right else -value
            points.append(total)
        return points

    def scores(self, s: ChocolatesState) -> list[float]:
        """Predictions (+ the chosen side's points if right, - if wrong) + 1 per nougat.
        Before the end this reads the face-down chocolates: it is the score "if the game
        ended now", and is only shown to players once the game is over."""
        return [float(p + n) for p, n in zip(self.prediction_points(s), s.nougats, strict=True)]

    def score_breakdown(self, s: ChocolatesState) -> dict[str, list[float]]:
        return {
            "predictions": [float(p) for p in self.prediction_points(s)],
            "nougats": [float(n) for n in s.nougats],
        }

    # ------------------------------------------------------------------ search
    def copy(self, s: ChocolatesState) -> ChocolatesState:
        return s.copy()

    def determinize(self, s: ChocolatesState, player: int, rng: Rng) -> ChocolatesState:
        """Reshuffle the face-down chocolates among the face-down positions and the
        prediction pile. Nothing is private, so every seat gets the same kind of sample."""
        if isinstance(player, bool) or player not in range(self.num_players):
            raise ValueError(f"player {player!r} is not a seat; allowed: 0..{self.num_players - 1}")
        new = s.copy()
        hidden = [pos for pos in range(NUM_CHOCOLATES) if not s.revealed[pos]]
        # sorted first, so that the sample depends only on what is public (which kinds
        # and cards are still unseen) and on rng, never on their true order
        kinds = sorted(s.layout[pos] for pos in hidden)
        rng.shuffle(kinds)
        for pos, kind in zip(hidden, kinds, strict=True):
            new.layout[pos] = kind
        new.pile.sort()
        rng.shuffle(new.pile)
        return new

    # ------------------------------------------------------------------ records
    def to_json(self, s: ChocolatesState) -> dict[str, Any]:
        return {
            "game": SPEC.env_id,
            "layout": [kind_name(k) for k in s.layout],
            "revealed": list(s.revealed),
            "pile": list(s.pile),
            "display": [c if c >= 0 else None for c in s.display],
            "display_nougats": list(s.display_nougats),
            "supply": s.supply,
            "players": [
                {
                    "cards": [{"card": code // 2, "side": SIDE_NAMES[code % 2]} for code in held],
                    "nougats": n,
                }
                for held, n in zip(s.cards, s.nougats, strict=True)
            ],
            "current": s.current,
            "took_card": s.took_card,
            "final_turns": s.final_turns,
            "over": s.over,
        }

    def from_json(self, d: Mapping[str, Any]) -> ChocolatesState:
        from choco_envs.games.chocolates.records import state_from_json

        return state_from_json(self, d)

    # ------------------------------------------------------------------ text
    def action_to_string(self, s: ChocolatesState, action: int) -> str:
        if action < REVEAL_BASE:
            slot, side = divmod(action, 2)
            card = s.display[slot]
            if card < 0:
                return f"take slot {slot} (empty) {SIDE_NAMES[side]} side"
            c = PREDICTION_CARDS[card]
            return f"take #{card} {SIDE_NAMES[side]} side ({c.points(side)} pts): {c.text}"
        return f"reveal {position_name(action - REVEAL_BASE)}"

    def state_to_string(self, s: ChocolatesState, player: int | None) -> str:
        from choco_envs.games.chocolates.records import render

        return render(self, s, player)


def position_name(pos: int) -> str:
    """``grid r1c3`` (1-based row/column as seen from the display) or ``beside 2``."""
    if pos < GRID_CELLS:
        return f"grid r{pos // 4 + 1}c{pos % 4 + 1}"
    return f"beside {pos - GRID_CELLS + 1}"


def kind_code(kind: int) -> str:
    """Three-letter cell text: type code + shape mark, e.g. ``Dk^``."""
    return TYPE_CODES[kind // NUM_SHAPES] + SHAPE_CODES[kind % NUM_SHAPES]


def layout_from_text(text: str) -> list[int]:
    """A complete layout of 21 kinds from a drawing: 4 rows of 4 cell codes (row 0 next
    to the display) then one row of the 5 beside, e.g. ``Dko Br^ Wh# Au#``. Type codes:
    Dk dark, Br brown, Wh white, Gn green, Pk pink, Au gold; shapes: o round, ^ triangular,
    # hexagonal."""
    rows = [line.split() for line in text.strip().splitlines() if line.strip()]
    sizes = [len(r) for r in rows]
    if sizes != [4, 4, 4, 4, BESIDE_CELLS]:
        raise ValueError(f"a layout drawing has rows of 4,4,4,4,5 cells, got {sizes}")
    return [parse_kind(cell) for row in rows for cell in row]


def parse_kind(cell: str) -> int:
    """The kind of a cell code such as ``Gn^``."""
    if len(cell) != 3 or cell[:2] not in TYPE_CODES or cell[2] not in SHAPE_CODES:
        raise ValueError(
            f"cell {cell!r} is not a chocolate; allowed: a type code of {TYPE_CODES} "
            f"followed by a shape mark of {SHAPE_CODES}"
        )
    return TYPE_CODES.index(cell[:2]) * NUM_SHAPES + SHAPE_CODES.index(cell[2])


__all__ = [
    "CARD_LIMIT",
    "NUM_ACTIONS",
    "ChocolatesGame",
    "ChocolatesState",
    "kind_code",
    "layout_from_text",
    "position_name",
]
