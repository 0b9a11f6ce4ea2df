"""Chocolates (seed 004): the State, the rules, and the pure helpers that bots and
policies read (what each prediction card says about a layout, scalar and vectorised; how
the held cards score; which chocolates are still face down).

Actions (27): ``0..5`` take display slot ``a // 2`` with the true side (even) or the false
side (odd) face up; ``6..26`` reveal position ``a - 6``: 0..15 the grid cells row-major as
seen from the display (row 0 next to it, column 0 on the left), 16..20 the five chocolates
next to the grid. A turn is an optional take followed by exactly one reveal, by the same
seat.

This module imports only the core and the component data.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from operator import not_
from typing import Any

import numpy as np

from choco_envs.core.game import Game, Rng, shuffle
from choco_envs.core.spec import GameSpec, Option
from choco_envs.games.chocolates.components import (
    GRID_CELLS,
    NOUGAT_SUPPLY,
    NUM_CARDS,
    NUM_CHOCOLATES,
    NUM_SHAPES,
    NUM_TYPES,
    PREDICTION_CARDS,
    Components,
    check_components_option,
    load_components,
)

NUM_TAKE_ACTIONS = 6
REVEAL_BASE = NUM_TAKE_ACTIONS
NUM_ACTIONS = REVEAL_BASE + NUM_CHOCOLATES
DISPLAY_SIZE = 3
#: a player holding this many cards triggers the end, by player count
CARD_LIMIT = {2: 4, 3: 4, 4: 3}
SIDE_NAMES = ("true", "false")

DARK, BROWN, WHITE, GREEN, PINK, GOLD = range(NUM_TYPES)
ROUND, TRIANGULAR, HEXAGONAL = range(NUM_SHAPES)

# ---------------------------------------------------------------------- geometry
# RULINGS.md, "Chocolates (seed 004)": the outer area is the 12 edge cells; the left side
# is the two left columns, the right side the two right columns, as seen from the
# display; adjacent means orthogonally adjacent; "connected in a diagonal line" is
# diagonal neighbours for 2 chocolates and one of the two main diagonals for 4.
CELLS = range(GRID_CELLS)
OUTER: tuple[int, ...] = tuple(i for i in CELLS if i // 4 in (0, 3) or i % 4 in (0, 3))
LEFT: tuple[int, ...] = tuple(i for i in CELLS if i % 4 < 2)
RIGHT: tuple[int, ...] = tuple(i for i in CELLS if i % 4 >= 2)
CORNERS: tuple[int, ...] = (0, 3, 12, 15)
MAIN_DIAGONALS: tuple[tuple[int, ...], ...] = ((0, 5, 10, 15), (3, 6, 9, 12))
ROWS: tuple[tuple[int, ...], ...] = tuple(tuple(r * 4 + c for c in range(4)) for r in range(4))
COLUMNS: tuple[tuple[int, ...], ...] = tuple(tuple(r * 4 + c for r in range(4)) for c in range(4))
LINES = ROWS + COLUMNS
#: orthogonal neighbour pairs (i < j): the same row and next columns, or the same column
#: and next rows
ORTHOGONAL_PAIRS: tuple[tuple[int, int], ...] = tuple(
    (i, j) for i in CELLS for j in (i + 1, i + 4) if j < 16 and (j == i + 4 or i % 4 < 3)
)
#: diagonal neighbour pairs (i < j)
DIAGONAL_PAIRS: tuple[tuple[int, int], ...] = tuple(
    (i, i + 4 + d) for i in range(12) for d in (-1, 1) if 0 <= i % 4 + d < 4
)
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(j for pair in ORTHOGONAL_PAIRS if i in pair for j in pair if j != i) for i in CELLS
)


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


class ChocolatesRules(Game[ChocolatesState]):
    """The rules of Chocolates for 2 to 4 players; see docs/games/chocolates.md. The
    assembled game (encoders, records, text) is ``choco_envs.games.chocolates.ChocolatesGame``."""

    spec = SPEC

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.components: Components = load_components(self.config["components"])
        self.card_limit = CARD_LIMIT[self.num_players]
        self.num_actions = NUM_ACTIONS
        # every turn reveals one chocolate; the 16th grid reveal ends it, so at most 21
        # turns; every take is a step too and nobody holds more than the card limit
        self.max_steps = NUM_CHOCOLATES + min(NUM_CHOCOLATES, self.num_players * self.card_limit)
        # mask bytes of the two take actions of a display slot, by card id (-1: empty slot)
        self._take_template = [b"\x01\x01"] * NUM_CARDS + [b"\x00\x00"]

    # ------------------------------------------------------------------ setup
    def new_state(self, rng: Rng) -> ChocolatesState:
        """Shuffle the chocolates into the grid and beside it, shuffle the prediction
        pile and draw the display of 3."""
        layout = list(self.components.chocolates)
        shuffle(rng, layout)
        pile = list(range(NUM_CARDS))
        shuffle(rng, pile)
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
        truths = _layout_truths(tuple(s.layout))
        return [int(held_points(held, truths)) for held in s.cards]

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

    def ranking_key(self, s: ChocolatesState, player: int) -> tuple[float, ...]:
        """Points alone: "In case of a tie, the players share the victory"."""
        return (self.scores(s)[player],)

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
        shuffle(rng, kinds)
        for pos, kind in zip(hidden, kinds, strict=True):
            new.layout[pos] = kind
        new.pile.sort()
        shuffle(rng, new.pile)
        return new

    def unseen_kinds(self, s: ChocolatesState) -> list[int]:
        """The chocolates still face down, as a sorted multiset of kinds: the game's set
        minus the face-up ones. Public: every seat knows it (it is the ``unseen_kinds``
        field of the ``flat`` observation, as counts)."""
        unseen = list(self.components.chocolates)
        for pos in range(NUM_CHOCOLATES):
            if s.revealed[pos]:
                unseen.remove(s.layout[pos])
        return unseen

    def deal_layouts(
        self, s: ChocolatesState, count: int, generator: np.random.Generator
    ) -> np.ndarray:
        """(count, 21) complete layouts, the vectorised form of ``determinize``'s
        resampling of the chocolates: each row keeps the face-up chocolates where they
        lie and deals :meth:`unseen_kinds` onto the face-down places in a uniformly random
        order (drawn from ``generator``). Reads nothing of the face-down places."""
        unseen = self.unseen_kinds(s)
        hidden = [pos for pos in range(NUM_CHOCOLATES) if not s.revealed[pos]]
        base = np.array([s.layout[p] if s.revealed[p] else 0 for p in range(NUM_CHOCOLATES)])
        layouts = np.tile(base, (count, 1))
        if hidden:
            order = generator.random((count, len(hidden))).argsort(axis=1)
            layouts[:, hidden] = np.array(unseen)[order]
        return layouts

    # ------------------------------------------------------------------ text
    def action_to_string(self, s: ChocolatesState, action: int) -> str:
        """``take #25 true side (6 pts): <card text>`` or ``reveal grid r4c2``."""
        if action < REVEAL_BASE:
            slot, side = divmod(action, 2)
            card = s.display[slot]
            if card < 0:
                return f"take slot {slot} (empty) {SIDE_NAMES[side]} side"
            c = PREDICTION_CARDS[card]
            return f"take #{card} {SIDE_NAMES[side]} side ({c.points(side)} pts): {c.text}"
        return f"reveal {position_name(action - REVEAL_BASE)}"


def position_name(pos: int) -> str:
    """``grid r1c3`` (1-based row/column as seen from the display) or ``beside 2``."""
    if pos < GRID_CELLS:
        return f"grid r{pos // 4 + 1}c{pos % 4 + 1}"
    return f"beside {pos - GRID_CELLS + 1}"


# ---------------------------------------------------------------------- scoring
def held_points(codes: Sequence[int], truths: Any) -> Any:
    """The prediction points of the held cards ``codes`` (``card * 2 + side``): "For each
    correct Prediction you receive the points indicated on the card ... For each
    incorrect Prediction you deduct the points indicated on the card", the points being
    those of the side face up.

    ``truths[card]`` says whether each card's prediction is true: one bool per card (one
    layout, :func:`card_truths`: an int comes back) or one bool array per card (many
    layouts at once, ``card_truth_matrix(layouts).T``: an array of points per layout)."""
    total: Any = 0
    for code in codes:
        card, side = divmod(code, 2)
        right = truths[card] != bool(side)
        total = total + PREDICTION_CARDS[card].points(side) * (2 * right - 1)
    return total


# ---------------------------------------------------------------------- the 29 cards
# One predicate per printed card, on a complete layout split into ``t`` and ``s``, the
# types and shapes of the 16 grid cells, and ``b``, the types of the 5 chocolates beside
# the grid. Wording (RULINGS.md): "in one of the rows or columns" is within a single row or
# column, not necessarily adjacent; "exact same number" includes 0 = 0; "more" is strict;
# "in the grid" never counts the 5 beside it, and "next to the grid" means only those.
Predicate = Callable[[Sequence[int], Sequence[int], Sequence[int]], bool]


def count(values: Sequence[int], value: int, cells: Sequence[int] = CELLS) -> int:
    """How many of ``cells`` hold ``value``."""
    return sum(1 for i in cells if values[i] == value)


def largest_group(values: Sequence[int], value: int) -> int:
    """Size of the largest orthogonally connected group of cells holding ``value`` (a
    group of 3 or more need not be in a straight line)."""
    seen = [False] * 16
    best = 0
    for start in CELLS:
        if seen[start] or values[start] != value:
            continue
        seen[start] = True
        stack, size = [start], 0
        while stack:
            cell = stack.pop()
            size += 1
            for nb in NEIGHBOURS[cell]:
                if not seen[nb] and values[nb] == value:
                    seen[nb] = True
                    stack.append(nb)
        best = max(best, size)
    return best


def adjacent_pair(values: Sequence[int], a: int, b: int) -> bool:
    """Some orthogonally adjacent pair holds ``a`` and ``b`` (either way round)."""
    return any(
        (values[i] == a and values[j] == b) or (values[i] == b and values[j] == a)
        for i, j in ORTHOGONAL_PAIRS
    )


def line_values(values: Sequence[int]) -> list[list[int]]:
    """The values of each of the 4 rows and 4 columns."""
    return [[values[i] for i in line] for line in LINES]


def three_in_one_line(values: Sequence[int], value: int) -> bool:
    """Some single row or column holds ``value`` at least 3 times (adjacent or not)."""
    return any(held.count(value) >= 3 for held in line_values(values))


def three_alike_in_one_line(values: Sequence[int]) -> bool:
    """Some single row or column holds 3 or 4 equal values."""
    return any(max(held.count(v) for v in held) >= 3 for held in line_values(values))


def all_in_one_line(values: Sequence[int], needed: set[int]) -> bool:
    """Some single row or column holds every value of ``needed``."""
    return any(needed <= set(held) for held in line_values(values))


def all_different(values: Sequence[int], cells: Sequence[int]) -> bool:
    return len({values[i] for i in cells}) == len(cells)


PREDICATES: tuple[Predicate, ...] = (
    # 0 Exactly 1 golden chocolate in the grid.
    lambda t, s, b: count(t, GOLD) == 1,
    # 1 Exactly 2 green chocolates in the grid.
    lambda t, s, b: count(t, GREEN) == 2,
    # 2 Exactly 3 white chocolates in the grid.
    lambda t, s, b: count(t, WHITE) == 3,
    # 3 Exactly 2 pink chocolates in the outer area of the grid.
    lambda t, s, b: count(t, PINK, OUTER) == 2,
    # 4 Exactly 3 dark chocolates in the outer area of the grid.
    lambda t, s, b: count(t, DARK, OUTER) == 3,
    # 5 Exactly 4 round chocolates in the outer area of the grid.
    lambda t, s, b: count(s, ROUND, OUTER) == 4,
    # 6 The exact same number of triangular as hexagonal chocolates in the outer area.
    lambda t, s, b: count(s, TRIANGULAR, OUTER) == count(s, HEXAGONAL, OUTER),
    # 7 The exact same number of brown chocolates in the left and right sides.
    lambda t, s, b: count(t, BROWN, LEFT) == count(t, BROWN, RIGHT),
    # 8 More dark chocolates in the left side of the grid than the right side.
    lambda t, s, b: count(t, DARK, LEFT) > count(t, DARK, RIGHT),
    # 9 More triangular chocolates in the left side of the grid than the right side.
    lambda t, s, b: count(s, TRIANGULAR, LEFT) > count(s, TRIANGULAR, RIGHT),
    # 10 More round than triangular chocolates in the grid.
    lambda t, s, b: count(s, ROUND) > count(s, TRIANGULAR),
    # 11 More brown than white chocolates in the left side of the grid.
    lambda t, s, b: count(t, BROWN, LEFT) > count(t, WHITE, LEFT),
    # 12 More green than pink chocolates in the right side of the grid.
    lambda t, s, b: count(t, GREEN, RIGHT) > count(t, PINK, RIGHT),
    # 13 At least 1 instance of adjacent pink and green chocolates in the grid.
    lambda t, s, b: adjacent_pair(t, PINK, GREEN),
    # 14 At least 2 adjacent brown chocolates in the grid.
    lambda t, s, b: adjacent_pair(t, BROWN, BROWN),
    # 15 At least 3 adjacent dark chocolates in the grid.
    lambda t, s, b: largest_group(t, DARK) >= 3,
    # 16 At least 4 adjacent round chocolates in the grid.
    lambda t, s, b: largest_group(s, ROUND) >= 4,
    # 17 At least 4 adjacent triangular chocolates in the grid.
    lambda t, s, b: largest_group(s, TRIANGULAR) >= 4,
    # 18 At least 4 adjacent hexagonal chocolates in the grid.
    lambda t, s, b: largest_group(s, HEXAGONAL) >= 4,
    # 19 At least 3 hexagonal chocolates in one of the rows or columns in the grid.
    lambda t, s, b: three_in_one_line(s, HEXAGONAL),
    # 20 At least 3 chocolates of the same type in one of the rows or columns.
    lambda t, s, b: three_alike_in_one_line(t),
    # 21 At least 1 white, 1 green, and 1 pink chocolate in one of the rows or columns.
    lambda t, s, b: all_in_one_line(t, {WHITE, GREEN, PINK}),
    # 22 At least 2 adjacent white chocolates in one of the rows or columns.
    lambda t, s, b: adjacent_pair(t, WHITE, WHITE),
    # 23 At least 2 dark chocolates connected in a diagonal line in the grid.
    lambda t, s, b: any(t[i] == DARK and t[j] == DARK for i, j in DIAGONAL_PAIRS),
    # 24 Exactly 4 chocolates of 4 different types connected in a diagonal line.
    lambda t, s, b: any(all_different(t, diagonal) for diagonal in MAIN_DIAGONALS),
    # 25 At least 2 triangular chocolates in the four corners of the grid.
    lambda t, s, b: count(s, TRIANGULAR, CORNERS) >= 2,
    # 26 At least 2 round chocolates in the four corners of the grid.
    lambda t, s, b: count(s, ROUND, CORNERS) >= 2,
    # 27 Exactly 4 chocolates of 4 different types in the four corners of the grid.
    lambda t, s, b: all_different(t, CORNERS),
    # 28 At least 4 different types of chocolates next to the grid.
    lambda t, s, b: len(set(b)) >= 4,
)


def split_layout(layout: Sequence[int]) -> tuple[list[int], list[int], list[int]]:
    """(grid types, grid shapes, types beside) of a complete layout of 21 kind codes
    (16 grid cells row-major, then the 5 beside)."""
    grid = layout[:GRID_CELLS]
    beside = layout[GRID_CELLS:NUM_CHOCOLATES]
    return [k // 3 for k in grid], [k % 3 for k in grid], [k // 3 for k in beside]


def card_truth(card: int, layout: Sequence[int]) -> bool:
    """Whether prediction ``card`` is true on a complete layout of 21 kind codes."""
    return PREDICATES[card](*split_layout(layout))


def card_truths(layout: Sequence[int]) -> list[bool]:
    """The truth of every card, by card id, on a complete layout."""
    types, shapes, beside = split_layout(layout)
    return [p(types, shapes, beside) for p in PREDICATES]


@functools.lru_cache(maxsize=1024)
def _layout_truths(layout: tuple[int, ...]) -> tuple[bool, ...]:
    """:func:`card_truths`, remembered for the last layouts scored: a game's end is scored
    once per seat and once per reward, always on the same layout."""
    return tuple(card_truths(layout))


# ---------------------------------------------------------------------- vectorised
# The same 29 predictions for many layouts at once (``card_truth_matrix``), written as bit
# operations on 16-bit masks of the grid (bit = cell index): one mask per type and per
# shape and layout. Tied to the predicates above by a test over random layouts.
def _bits(cells: Sequence[int]) -> int:
    return sum(1 << c for c in cells)


_CELL_BITS = np.array([1 << c for c in CELLS], dtype=np.int64)
_CELL_BITS.flags.writeable = False
_FULL = _bits(CELLS)
_NOT_COLUMN_0 = _bits([c for c in CELLS if c % 4 != 0])
_NOT_COLUMN_3 = _bits([c for c in CELLS if c % 4 != 3])
_OUTER, _LEFT, _RIGHT, _CORNERS = (_bits(c) for c in (OUTER, LEFT, RIGHT, CORNERS))
_DIAGONALS = tuple(_bits(d) for d in MAIN_DIAGONALS)
_LINES = np.array([_bits(line) for line in LINES], dtype=np.int64)
_LINES.flags.writeable = False


def popcount(x: Any) -> Any:
    """The number of set bits of 16-bit masks (an int or an int array)."""
    x = x - ((x >> 1) & 0x5555)
    x = (x & 0x3333) + ((x >> 2) & 0x3333)
    x = (x + (x >> 4)) & 0x0F0F
    return (x + (x >> 8)) & 0x1F


def _next_to(m: Any) -> tuple[Any, Any, Any, Any]:
    """The cells whose neighbour below, above, to the right, to the left is in ``m``."""
    return m >> 4, (m << 4) & _FULL, (m >> 1) & _NOT_COLUMN_3, (m << 1) & _NOT_COLUMN_0


def _touching(m: Any) -> Any:
    """The cells orthogonally next to some cell of ``m``."""
    below, above, right, left = _next_to(m)
    return below | above | right | left


def _group_of_three(m: Any) -> Any:
    """``m`` holds 3 orthogonally connected cells: some cell of it has 2 neighbours in
    it (the middle of a connected three)."""
    a, b, c, d = _next_to(m)
    return (m & ((a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d))) != 0


def _group_of_four(m: Any) -> Any:
    """``m`` holds 4 orthogonally connected cells: some cell of it has 3 neighbours in
    it (a T), or two neighbouring cells of it have 2 each (the middle of a connected
    path of four; the grid has no triangles, so the path's ends differ)."""
    a, b, c, d = _next_to(m)
    three = m & ((a & b & c) | (a & b & d) | (a & c & d) | (b & c & d))
    two = m & ((a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d))
    return (three | (two & _touching(two))) != 0


def card_truth_matrix(layouts: Any) -> np.ndarray:
    """(N, 29) booleans: the truth of every prediction card (by card id) on each row of
    ``layouts``, an (N, 21) array of kind codes (complete layouts); row for row the
    same as :func:`card_truths`."""
    layouts = np.asarray(layouts)
    if layouts.ndim != 2 or layouts.shape[1] != NUM_CHOCOLATES:
        raise ValueError(f"layouts of shape {layouts.shape}; expected (N, {NUM_CHOCOLATES})")
    grid = layouts[:, :GRID_CELLS]
    types, shapes = grid // NUM_SHAPES, grid % NUM_SHAPES
    beside = layouts[:, GRID_CELLS:] // NUM_SHAPES
    t = [((types == k) * _CELL_BITS).sum(axis=1) for k in range(NUM_TYPES)]
    s = [((shapes == k) * _CELL_BITS).sum(axis=1) for k in range(NUM_SHAPES)]
    pc = popcount

    def in_lines(mask: np.ndarray) -> np.ndarray:
        """(N, 8): how many cells of ``mask`` each row and column holds."""
        return pc(mask[:, None] & _LINES)

    def one_of_each_type(region: int) -> np.ndarray:
        return np.all([pc(m & region) <= 1 for m in t], axis=0)

    dark = t[DARK]
    diagonal_dark = (dark & (dark >> 5) & _NOT_COLUMN_3) | (dark & (dark >> 3) & _NOT_COLUMN_0)
    lines_with = [(t[k][:, None] & _LINES) != 0 for k in (WHITE, GREEN, PINK)]
    beside_types = np.sum([(beside == k).any(axis=1) for k in range(NUM_TYPES)], axis=0)
    columns = [
        pc(t[GOLD]) == 1,
        pc(t[GREEN]) == 2,
        pc(t[WHITE]) == 3,
        pc(t[PINK] & _OUTER) == 2,
        pc(t[DARK] & _OUTER) == 3,
        pc(s[ROUND] & _OUTER) == 4,
        pc(s[TRIANGULAR] & _OUTER) == pc(s[HEXAGONAL] & _OUTER),
        pc(t[BROWN] & _LEFT) == pc(t[BROWN] & _RIGHT),
        pc(t[DARK] & _LEFT) > pc(t[DARK] & _RIGHT),
        pc(s[TRIANGULAR] & _LEFT) > pc(s[TRIANGULAR] & _RIGHT),
        pc(s[ROUND]) > pc(s[TRIANGULAR]),
        pc(t[BROWN] & _LEFT) > pc(t[WHITE] & _LEFT),
        pc(t[GREEN] & _RIGHT) > pc(t[PINK] & _RIGHT),
        (_touching(t[PINK]) & t[GREEN]) != 0,
        (_touching(t[BROWN]) & t[BROWN]) != 0,
        _group_of_three(t[DARK]),
        _group_of_four(s[ROUND]),
        _group_of_four(s[TRIANGULAR]),
        _group_of_four(s[HEXAGONAL]),
        (in_lines(s[HEXAGONAL]) >= 3).any(axis=1),
        np.any([(in_lines(m) >= 3).any(axis=1) for m in t], axis=0),
        (lines_with[0] & lines_with[1] & lines_with[2]).any(axis=1),
        (_touching(t[WHITE]) & t[WHITE]) != 0,
        diagonal_dark != 0,
        one_of_each_type(_DIAGONALS[0]) | one_of_each_type(_DIAGONALS[1]),
        pc(s[TRIANGULAR] & _CORNERS) >= 2,
        pc(s[ROUND] & _CORNERS) >= 2,
        one_of_each_type(_CORNERS),
        beside_types >= 4,
    ]
    return np.stack(columns, axis=1)


__all__ = [
    "CARD_LIMIT",
    "NUM_ACTIONS",
    "PREDICATES",
    "ChocolatesRules",
    "ChocolatesState",
    "card_truth",
    "card_truth_matrix",
    "card_truths",
    "held_points",
    "position_name",
]
