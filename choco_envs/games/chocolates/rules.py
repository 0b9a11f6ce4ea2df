"""Chocolates (seed 004): the State, the rules, and the pure helpers that bots and
policies read (how the held cards score; which chocolates are still face down). What each
prediction card says about a layout, scalar and vectorised, and the grid's geometry are in
:mod:`.cards` (re-exported here).

Actions (27): ``0..5`` take display slot ``a // 2`` with the true side (even) or the false
side (odd) face up; ``6..26`` reveal position ``a - 6``: 0..15 the grid cells row-major as
seen from the display (row 0 next to it, column 0 on the left), 16..20 the five chocolates
next to the grid. A turn is an optional take followed by exactly one reveal, by the same
seat.

This module imports only the core, the component data and the cards.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from itertools import compress
from operator import itemgetter
from typing import Any

import numpy as np

from choco_envs.core.game import Game, Rng, draw, permute, shuffle
from choco_envs.core.spec import GameSpec, Option
from choco_envs.games.chocolates.cards import (
    CELLS as CELLS,
)
from choco_envs.games.chocolates.cards import (
    CORNERS as CORNERS,
)
from choco_envs.games.chocolates.cards import (
    LEFT as LEFT,
)
from choco_envs.games.chocolates.cards import (
    LINES as LINES,
)
from choco_envs.games.chocolates.cards import (
    MAIN_DIAGONALS as MAIN_DIAGONALS,
)
from choco_envs.games.chocolates.cards import (
    OUTER as OUTER,
)
from choco_envs.games.chocolates.cards import (
    PREDICATES as PREDICATES,
)
from choco_envs.games.chocolates.cards import (
    RIGHT as RIGHT,
)
from choco_envs.games.chocolates.cards import (
    card_truth as card_truth,
)
from choco_envs.games.chocolates.cards import (
    card_truth_matrix as card_truth_matrix,
)
from choco_envs.games.chocolates.cards import (
    card_truths as card_truths,
)
from choco_envs.games.chocolates.cards import (
    split_layout as split_layout,
)
from choco_envs.games.chocolates.components import (
    GRID_CELLS,
    NOUGAT_SUPPLY,
    NUM_CARDS,
    NUM_CHOCOLATES,
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
#: ``ChocolatesState.revealed`` of a finished game
ALL_FACE_UP = b"\x01" * NUM_CHOCOLATES
#: ``bytes.translate`` table: a face-up flag (0/1) to its face-down flag (1/0)
FACE_DOWN_FLAG = bytes([1, 0]) + bytes(254)
#: the reveal action of each position
REVEAL_ACTIONS = range(REVEAL_BASE, NUM_ACTIONS)


class ChocolatesState:
    """Everything about one game, in plain lists, tuples, bytes and ints (cheap to copy:
    what the rules never change in place is a tuple, which copies share).

    ``layout[pos]`` (a tuple) is the kind (``type * 3 + shape``) at position ``pos``
    (0..15 grid, 16..20 beside), hidden while ``revealed[pos]`` is 0. ``revealed`` is a
    bytearray, one 0/1 flag a position (as bytes: copied, masked and encoded whole).
    ``pile`` is the face-down prediction pile, top at the end; ``pile_unordered`` (a
    search's determinized copy only) says its order is not dealt: each draw takes a
    random card of it (``core.game.draw``). ``display[i]`` is a card id or -1 (pile ran
    out). ``cards[seat]`` is a tuple of ``card * 2 + side`` (side 0: true face up, 1:
    false face up), replaced by a take. ``final_turns`` is -1 until the end is
    triggered, then the number of turns still to play after the current one.
    """

    __slots__ = (
        "layout",
        "revealed",
        "grid_hidden",
        "pile",
        "pile_unordered",
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
        layout: Sequence[int],
        pile: list[int],
        display: list[int],
        num_players: int,
    ) -> None:
        self.layout: tuple[int, ...] = tuple(layout)
        self.revealed = bytearray(NUM_CHOCOLATES)
        self.grid_hidden = GRID_CELLS
        self.pile = pile
        self.pile_unordered = False
        self.display = display
        self.display_nougats = [0] * DISPLAY_SIZE
        self.supply = NOUGAT_SUPPLY
        self.cards: list[tuple[int, ...]] = [()] * num_players
        self.nougats = [0] * num_players
        self.current = 0
        self.took_card = False
        self.final_turns = -1
        self.over = False

    def copy(self) -> ChocolatesState:
        new = ChocolatesState.__new__(ChocolatesState)
        new.layout = self.layout
        new.revealed = self.revealed[:]
        new.grid_hidden = self.grid_hidden
        new.pile = self.pile[:]
        new.pile_unordered = self.pile_unordered
        new.display = self.display[:]
        new.display_nougats = self.display_nougats[:]
        new.supply = self.supply
        new.cards = self.cards[:]
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
            json_file=True,
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
        self.seats = range(self.num_players)
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
        actions += compress(REVEAL_ACTIONS, s.revealed.translate(FACE_DOWN_FLAG))
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
        mask += s.revealed.translate(FACE_DOWN_FLAG)
        return np.frombuffer(mask, dtype=bool)

    # ------------------------------------------------------------------ apply
    def apply(self, s: ChocolatesState, action: int, rng: Rng) -> None:
        """Take a display card (0..5) or reveal a chocolate (6..26); see the module doc."""
        a = self.check_action_range(s, action)
        if s.over:
            raise self.illegal(s, a, "the game is over")
        if a < REVEAL_BASE:
            self._take(s, a, rng)
            return
        # a reveal: most steps are one, written here (a call would cost as much as it)
        pos = a - REVEAL_BASE
        if s.revealed[pos]:
            raise self.illegal(s, a, f"{position_name(pos)} is already face up")
        s.revealed[pos] = 1
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

    def _take(self, s: ChocolatesState, a: int, rng: Rng) -> None:
        slot, side = divmod(a, 2)
        player = s.current
        if s.took_card:
            raise self.illegal(s, a, "a card was already taken this turn; reveal a chocolate")
        if len(s.cards[player]) >= self.card_limit:
            raise self.illegal(s, a, f"player holds the limit of {self.card_limit} cards")
        card = s.display[slot]
        if card < 0:
            raise self.illegal(s, a, f"display slot {slot} is empty (the pile ran out)")
        s.cards[player] = (*s.cards[player], 2 * card + side)  # a new tuple: copies share
        s.nougats[player] += s.display_nougats[slot]
        s.display_nougats[slot] = 0
        for other in range(DISPLAY_SIZE):
            if other != slot and s.display[other] >= 0 and s.supply > 0:
                s.supply -= 1
                s.display_nougats[other] += 1
        s.display[slot] = draw(rng, s.pile, s.pile_unordered) if s.pile else -1
        s.took_card = True
        if len(s.cards[player]) >= self.card_limit and s.final_turns < 0:
            s.final_turns = self.num_players - 1

    @staticmethod
    def _end(s: ChocolatesState) -> None:
        """Game over: "Flip all remaining chocolates face up" for the scoring."""
        s.over = True
        s.current = -1
        s.revealed[:] = ALL_FACE_UP
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
        """Reshuffle the face-down chocolates among the face-down positions, and leave the
        prediction pile's order to its draws (sorted, ``pile_unordered``: each card drawn
        is a random one of the rest, as from a reshuffled pile). Both start from the
        unseen kinds and cards sorted (:func:`deal_sources`, remembered per position), so
        the sample depends only on what is public and on ``rng``. Nothing is private, so
        every seat gets the same kind of sample."""
        if player not in self.seats or player is True or player is False:  # a bool is no seat
            raise ValueError(f"player {player!r} is not a seat; allowed: 0..{self.num_players - 1}")
        layout, pattern, pile = s.layout, bytes(s.revealed), s.pile
        found = _SOURCES.get((id(layout), pattern, len(pile)))  # deal_sources' memo, read here
        if found is None or found[0] is not layout or found[1] != pile:
            found = deal_sources(layout, pattern, pile)
        _, _, kinds_sorted, deal, pile_sorted = found
        new = s.copy()
        kinds = [*kinds_sorted]
        permute(rng, kinds)
        new.layout = deal(layout + tuple(kinds))
        new.pile[:] = pile_sorted
        new.pile_unordered = True
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
        hidden = list(hidden_positions(s.revealed)[0])
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


#: patterns of face-up flags whose face-down positions ``hidden_positions`` remembers;
#: past this many it forgets them all (search determinizes the same few positions)
HIDDEN_MEMO = 4096
#: reads a layout's kinds at some positions (:func:`hidden_positions`)
Reader = Callable[[Sequence[int]], Sequence[int]]
#: deals kinds onto a layout's face-down positions (:func:`face_down_dealer`)
Dealer = Callable[[Sequence[int]], tuple[int, ...]]
_HIDDEN: dict[bytes, tuple[tuple[int, ...], Reader]] = {}


def hidden_positions(revealed: Sequence[int]) -> tuple[tuple[int, ...], Reader]:
    """The face-down positions (increasing) of a layout whose face-up flags are
    ``revealed`` (a state's bytearray, or any sequence of flags), and a reader of a layout's
    kinds at those positions (an ``itemgetter``), remembered by pattern."""
    key = bytes(revealed)
    found = _HIDDEN.get(key)
    if found is None:
        hidden = tuple(pos for pos in range(NUM_CHOCOLATES) if not revealed[pos])
        read: Reader = (
            itemgetter(*hidden) if len(hidden) > 1 else lambda layout: [layout[p] for p in hidden]
        )
        if len(_HIDDEN) >= HIDDEN_MEMO:
            _HIDDEN.clear()
        found = _HIDDEN[key] = hidden, read
    return found


#: patterns of face-up flags whose dealer ``face_down_dealer`` remembers (as many as
#: ``hidden_positions``)
_DEALERS: dict[bytes, tuple[Reader, Dealer]] = {}


def face_down_dealer(revealed: Sequence[int]) -> tuple[Reader, Dealer]:
    """The reader of ``hidden_positions`` and a dealer: ``deal(layout + kinds)`` (a
    tuple, or a list, of the 21 kinds then one kind per face-down position) is the
    layout with ``kinds`` put on the face-down positions in increasing order and the
    face-up ones kept, as a tuple (an ``itemgetter``, not a loop), remembered by
    pattern."""
    key = bytes(revealed)
    found = _DEALERS.get(key)
    if found is None:
        hidden, read = hidden_positions(revealed)
        source = {pos: NUM_CHOCOLATES + rank for rank, pos in enumerate(hidden)}
        deal = itemgetter(*[source.get(pos, pos) for pos in range(NUM_CHOCOLATES)])
        if len(_DEALERS) >= HIDDEN_MEMO:
            _DEALERS.clear()
        found = _DEALERS[key] = read, deal
    return found


Sources = tuple[tuple[int, ...], list[int], tuple[int, ...], Dealer, tuple[int, ...]]
#: :func:`deal_sources` of the positions met, by (id of the layout, face-up flags, pile
#: size); past ``HIDDEN_MEMO`` of them it forgets them all
_SOURCES: dict[tuple[int, bytes, int], Sources] = {}


def deal_sources(layout: tuple[int, ...], revealed: bytes, pile: list[int]) -> Sources:
    """What ``determinize`` deals from, for a position with this ``layout``, face-up
    flags ``revealed`` (as bytes) and ``pile``: ``(layout, a copy of pile, the kinds
    face down, their dealer, the pile's cards)``. The kinds and the cards are sorted, so
    that a sample depends only on what is public (which are unseen) and on its rng,
    never on their true order; the dealer is :func:`face_down_dealer`'s.

    Remembered, since a search determinizes the same position over and over: a hit is
    the very same layout (the memo holds it, so its id names no other; a layout is a
    tuple, never changed) with the same flags and an equal pile."""
    read_hidden, deal = face_down_dealer(revealed)
    kinds = sorted(read_hidden(layout))
    cards = sorted(pile)
    if len(_SOURCES) >= HIDDEN_MEMO:
        _SOURCES.clear()
    found = layout, pile[:], tuple(kinds), deal, tuple(cards)
    _SOURCES[id(layout), revealed, len(pile)] = found
    return found


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


def expected_points(card: int, side: int, p_true: float) -> float:
    """What :func:`held_points` gives on average for ``card`` held with ``side`` up (0 true,
    1 false) when its prediction is true with chance ``p_true``: the side's points if
    right, minus them if wrong."""
    c = PREDICTION_CARDS[card]
    if side == 0:
        return c.points(0) * (2 * p_true - 1)
    return c.points(1) * (1 - 2 * p_true)


def expected_side_points(p_true: Any) -> np.ndarray:
    """:func:`expected_points` of every card and side at once, ``p_true[card]`` each
    card's chance: (29, 2) floats, ``[card, side]``."""
    p = np.asarray(p_true, dtype=np.float64)
    return np.stack([_TRUE_POINTS * (2 * p - 1), _FALSE_POINTS * (1 - 2 * p)], axis=1)


_TRUE_POINTS = np.array([c.points(0) for c in PREDICTION_CARDS], dtype=np.float64)
_FALSE_POINTS = np.array([c.points(1) for c in PREDICTION_CARDS], dtype=np.float64)


@functools.lru_cache(maxsize=1024)
def _layout_truths(layout: tuple[int, ...]) -> tuple[bool, ...]:
    """:func:`card_truths`, remembered for the last layouts scored: a game's end is scored
    once per seat and once per reward, always on the same layout."""
    return tuple(card_truths(layout))


__all__ = [
    "CARD_LIMIT",
    "NUM_ACTIONS",
    "PREDICATES",
    "ChocolatesRules",
    "ChocolatesState",
    "card_truth",
    "card_truth_matrix",
    "card_truths",
    "expected_points",
    "expected_side_points",
    "held_points",
    "position_name",
]
