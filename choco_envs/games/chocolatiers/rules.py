"""Chocolatiers rules, both editions in one module (seeds 000 and 003, the rulings in docs/games/chocolatiers.md).

The Sampler, wild chocolates, paying with substitutions, Score tiles and final scoring
are written once. The editions differ only in data: the component set, what a step of
the turn may do (standard: 2 actions from take/exchange/box/wild/reserve; classic: an
action phase take/exchange, then an optional bonus phase box/wild), when the tray is
refilled, and where a box tile's replacement comes from (one hidden stack feeding a line
of 5, or 5 stacks whose top tiles are face up).

The Sampler (its anchored geometry, placing a tile, groups through wilds) and paying a
cost are in :mod:`.sampler`, re-exported here: :func:`cheapest_payment` / :func:`payable`
(paying), :func:`placed_cells` (placing a tile), :func:`type_components`,
:func:`largest_groups` and the vectorised :func:`groups_with_a_wild` (groups through
wilds). The rules add :func:`single_best` (the Score tile award) and :func:`action_kind`
(decoding a choice).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping, Sequence
from operator import sub
from typing import Any, ClassVar

import numpy as np

from choco_envs.core.game import Game, draw, draw_into, shuffle
from choco_envs.core.spec import GameSpec, Option
from choco_envs.games.chocolatiers.components import (
    EDITIONS,
    PLAYER_RANGE,
    TYPES,
    Components,
    default_components,
    load_components,
)
from choco_envs.games.chocolatiers.fast import Affordable
from choco_envs.games.chocolatiers.sampler import (
    EMPTY as EMPTY,
)
from choco_envs.games.chocolatiers.sampler import (
    LEGAL_POSITIONS as LEGAL_POSITIONS,
)
from choco_envs.games.chocolatiers.sampler import (
    NO_TILE as NO_TILE,
)
from choco_envs.games.chocolatiers.sampler import (
    NT as NT,
)
from choco_envs.games.chocolatiers.sampler import (
    PLACEMENTS as PLACEMENTS,
)
from choco_envs.games.chocolatiers.sampler import (
    POSITIONS as POSITIONS,
)
from choco_envs.games.chocolatiers.sampler import (
    REACHABLE_OCCUPANCIES as REACHABLE_OCCUPANCIES,
)
from choco_envs.games.chocolatiers.sampler import (
    SLOT_SPACES as SLOT_SPACES,
)
from choco_envs.games.chocolatiers.sampler import (
    WILD as WILD,
)
from choco_envs.games.chocolatiers.sampler import (
    cards_of as cards_of,
)
from choco_envs.games.chocolatiers.sampler import (
    cheapest_payment as cheapest_payment,
)
from choco_envs.games.chocolatiers.sampler import (
    groups_with_a_wild as groups_with_a_wild,
)
from choco_envs.games.chocolatiers.sampler import (
    largest_groups as largest_groups,
)
from choco_envs.games.chocolatiers.sampler import (
    payable as payable,
)
from choco_envs.games.chocolatiers.sampler import (
    placed_cells as placed_cells,
)
from choco_envs.games.chocolatiers.sampler import (
    position_of as position_of,
)
from choco_envs.games.chocolatiers.sampler import (
    position_row_col as position_row_col,
)
from choco_envs.games.chocolatiers.sampler import (
    rotate as rotate,
)
from choco_envs.games.chocolatiers.sampler import (
    shift_slots as shift_slots,
)
from choco_envs.games.chocolatiers.sampler import (
    spliced as spliced,
)
from choco_envs.games.chocolatiers.sampler import (
    type_components as type_components,
)
from choco_envs.games.chocolatiers.sampler import (
    wild_spaces as wild_spaces,
)

HAND_LIMIT = 6
TRAY_SIZE = 6
LINE_SIZE = 5
MAX_TILES = 6
WILDS_EACH = 3
ROUND_CAP = 40
CLASSIC_STACK_SIZE = {2: 3, 3: 4, 4: 5}
#: ``box_from`` of a tile being boxed from its owner's reserve
FROM_RESERVE = LINE_SIZE

# ---------------------------------------------------------------- action ids
TAKE = 0  # +type: take one card of that type from the tray
GIVE = 6  # +type: exchange: give that card (standard: discard, classic: onto tray), take 2
BOX = 12  # +line slot: box the tile at that line position / top of that stack
BOX_RESERVED = 17  # box the reserved tile (standard)
RESERVE = 18  # +line slot: reserve that tile (standard)
PLACE_WILD = 23  # +space 0..35: place a wild chocolate on that Sampler space
PAY_ONE = 59  # pay the current chocolate with one matching card
PAY_TWO = 60  # +type: pay the current chocolate with two cards of that type
PLACE = 66  # +4*position+rotation: put the tile being boxed at that position
DISCARD = PLACE + 4 * POSITIONS  # 130 +type: discard one card of that type (hand limit)
PASS = DISCARD + NT  # 136: nothing else is legal (or classic: skip the optional bonus phase)
NUM_ACTIONS = PASS + 1  # 137

# ---------------------------------------------------------------- phases
CHOOSE, TAKE_MORE, PAY, PLACE_TILE, DISCARD_DOWN = range(5)
PHASE_NAMES = ("choose", "take", "pay", "place", "discard")
K_TAKE, K_EXCHANGE, K_BOX, K_WILD, K_RESERVE, K_SKIP = range(6)
#: what a step of the turn may do, by edition and by ``actions_left`` (2 = first step)
STEP_KINDS = {
    "standard": {
        2: frozenset({K_TAKE, K_EXCHANGE, K_BOX, K_WILD, K_RESERVE}),
        1: frozenset({K_TAKE, K_EXCHANGE, K_BOX, K_WILD, K_RESERVE}),
    },
    "classic": {2: frozenset({K_TAKE, K_EXCHANGE}), 1: frozenset({K_BOX, K_WILD, K_SKIP})},
}


# ---------------------------------------------------------------- Score tiles
#: per occupancy, the legal place actions (every legal position, every rotation)
PLACE_ACTIONS = tuple(
    tuple(PLACE + 4 * pos + r for pos in positions for r in range(4))
    for positions in LEGAL_POSITIONS
)


def single_best(values: Sequence[int]) -> int:
    """The seat with the strictly largest value, else -1: a Score tile goes "to the
    single player with the largest" (a tie for the largest means nobody). With 2 or more
    seats a largest value of 0 is always a tie, so a Score tile every player would win
    with 0 goes to nobody (the rulings)."""
    top = max(values)
    if values.count(top) > 1:
        return -1
    return values.index(top)


def sole_largest(values: np.ndarray) -> np.ndarray:
    """:func:`single_best` of every column of ``values`` (seats first), a mask over seats."""
    at_top = values == values.max(axis=0)
    return at_top & (at_top.sum(axis=0) == 1)


def single_best_batch(values: np.ndarray) -> np.ndarray:
    """:func:`single_best` of every row of ``values`` (..., seats) at once (a test ties
    the two): the seat with the strictly largest value, else -1."""
    won = sole_largest(np.moveaxis(values, -1, 0))
    return np.where(won.any(axis=0), won.argmax(axis=0), -1)


def action_kind(a: int) -> tuple[int, int]:
    """(kind, argument) of an action chosen at the start of a step (K_TAKE and the type,
    K_EXCHANGE and the type given, K_BOX and the line position (LINE_SIZE: the reserved
    tile), K_RESERVE and the line position, K_WILD and the space); (-1, -1) otherwise."""
    if a < GIVE:
        return K_TAKE, a
    if a < BOX:
        return K_EXCHANGE, a - GIVE
    if a <= BOX_RESERVED:
        return K_BOX, a - BOX
    if a < PLACE_WILD:
        return K_RESERVE, a - RESERVE
    if a < PAY_ONE:
        return K_WILD, a - PLACE_WILD
    return -1, -1


def current_chocolate(to_pay: Sequence[int]) -> int:
    """The chocolate being paid: the first type still owed (-1: none)."""
    for t in range(NT):
        if to_pay[t]:
            return t
    return -1


class ChocolatiersState:
    """Everything about a game in progress; per-seat data in flat lists (seat-major).
    ``cells``, ``occ``, ``ntiles``, ``points``, ``n34`` and ``groups`` follow from the
    Sampler (``slots``, ``rots`` and the wilds in ``cells``); the loader recomputes them.
    These eight change only when a seat places: tuples, replaced whole (``spliced``),
    so a copy shares them."""

    __slots__ = (
        "hand", "known", "unknown", "cells", "slots", "rots", "occ", "ntiles", "points",
        "n34", "wilds", "reserved", "groups", "deck", "reshuffled", "discard", "tray",
        "display", "stacks", "unused", "first", "player", "phase", "actions_left",
        "takes_left", "pending", "box_from", "to_pay", "turn", "over", "unordered",
    )  # fmt: skip

    hand: list[int]  # n*6 cards by type
    known: list[int]  # n*6 cards everyone knows each seat holds
    unknown: list[int]  # n: dealt cards not yet seen (hidden from the others)
    cells: tuple[int, ...]  # n*36 Sampler grid, anchored
    slots: tuple[int, ...]  # n*9 tile id in each frame slot, or -1
    rots: tuple[int, ...]  # n*9 rotation of that tile
    occ: tuple[int, ...]  # n: bitmask of occupied frame slots
    ntiles: tuple[int, ...]
    points: tuple[int, ...]  # n: points of the boxed tiles
    n34: tuple[int, ...]  # n: boxed tiles worth 3 or 4
    wilds: list[int]  # n: wilds in supply (neither placed nor locked on a reserved tile)
    reserved: list[int]  # n: reserved tile id or -1
    groups: tuple[int, ...]  # n*6 largest connected group by type (cache)
    deck: list[int]  # card types, drawn from the end (order hidden)
    reshuffled: bool  # the deck is made of reshuffled discards (public composition)
    discard: list[int]  # 6 counts
    tray: list[int]  # 6 counts
    display: list[int]  # 5 face-up tiles (line / stack tops), -1 where none
    stacks: list[list[int]]  # standard: [hidden stack]; classic: hidden tiles under each top
    unused: list[int]  # classic: tiles returned to the box unseen
    first: int  # seat holding the First tile, or -1
    player: int
    phase: int
    actions_left: int  # standard: actions left; classic: 2 action phase, 1 bonus phase
    takes_left: int  # cards still to take in an exchange
    pending: int  # tile being boxed, or -1
    box_from: int  # where it came from: line position / stack 0..4, FROM_RESERVE, or -1
    to_pay: list[int]  # 6 chocolates still to pay by type
    turn: int  # turns completed
    over: bool
    unordered: bool  # a determinized copy: deck and hidden tiles drawn at random (draw)

    def copy(self, hidden: bool = True) -> ChocolatiersState:
        """Every list copied, the Sampler's tuples shared (search copies states all the
        time: list.copy, not deepcopy); ``hidden=False`` leaves the deck and the hidden
        tiles shared, for ``determinize``, which replaces them."""
        c = object.__new__(ChocolatiersState)
        c.hand = self.hand.copy()
        c.known = self.known.copy()
        c.unknown = self.unknown.copy()
        c.cells = self.cells
        c.slots = self.slots
        c.rots = self.rots
        c.occ = self.occ
        c.ntiles = self.ntiles
        c.points = self.points
        c.n34 = self.n34
        c.wilds = self.wilds.copy()
        c.reserved = self.reserved.copy()
        c.groups = self.groups
        c.deck = self.deck.copy() if hidden else self.deck
        c.reshuffled = self.reshuffled
        c.discard = self.discard.copy()
        c.tray = self.tray.copy()
        c.display = self.display.copy()
        c.stacks = list(map(list.copy, self.stacks)) if hidden else self.stacks
        c.unused = self.unused.copy() if hidden else self.unused
        c.first = self.first
        c.player = self.player
        c.phase = self.phase
        c.actions_left = self.actions_left
        c.takes_left = self.takes_left
        c.pending = self.pending
        c.box_from = self.box_from
        c.to_pay = self.to_pay.copy()
        c.turn = self.turn
        c.over = self.over
        c.unordered = self.unordered
        return c


def _check_components_option(value: Any) -> str | None:
    if value is None or isinstance(value, (str, dict)):
        return None
    return "expected None (the authored set), a JSON file path or a dict"


def players_for(options: Mapping[str, Any]) -> tuple[int, int]:
    """Rulings: "Players: standard 2 to 5 (15 wilds, 3 each), classic 2 to 4 (12 wilds)"."""
    return PLAYER_RANGE[options["edition"]]


SPEC = GameSpec(
    env_id="chocolatiers_v1",
    name="Chocolatiers",
    version=1,
    min_players=2,
    max_players=5,
    hidden_information=True,
    seed_file="000_6c4191f065970a4a.txt (standard), 003_a79c1a7bf16c3468.txt (classic)",
    options=(
        Option(
            "edition", "standard", "rulebook edition: standard (000) or classic (003)", EDITIONS
        ),
        Option(
            "components",
            None,
            "component data: None for the authored set, or a JSON path / dict",
            check=_check_components_option,
            rule=False,
            json_file=True,
        ),
    ),
    players_for=players_for,
)


class ChocolatiersRules(Game[ChocolatiersState]):
    """The rules of Chocolatiers for one configuration: ``edition`` and ``num_players``
    (records, text and observations are added by ``ChocolatiersGame``)."""

    spec: ClassVar[GameSpec] = SPEC

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        edition = self.config["edition"]
        source = self.config["components"]
        self.components: Components = (
            default_components(edition) if source is None else load_components(source, edition)
        )
        comp = self.components
        self.edition = edition
        self.classic = edition == "classic"
        self.step_kinds = STEP_KINDS[edition]
        self.num_tiles = len(comp.tiles)
        self.tile_text = tuple(t.text() for t in comp.tiles)
        self.tile_points = tuple(t.points for t in comp.tiles)
        self.tile_cost = tuple(list(t.cost) for t in comp.tiles)
        #: ``affordable(hand, base)``: the tiles that hand pays, a bitmask (remembered)
        self.affordable = Affordable(self.tile_cost)
        self.rotated = tuple(tuple(rotate(t.spaces, r) for r in range(4)) for t in comp.tiles)
        self.score_names = tuple(name for name, _ in comp.score_tiles)
        self.score_values = tuple(pts for _, pts in comp.score_tiles)
        self.type_score = self.score_values[:NT]
        extras = dict(comp.score_tiles[NT:])
        self.first_score = extras["first"]
        self.majority_score = extras.get("three_or_four")  # None in the classic edition
        self.exchange_min_tray = 1 if self.classic else 2
        self.gives_onto_tray = self.classic  # an exchange's card: classic tray, else discard
        self.stack_size = CLASSIC_STACK_SIZE[self.num_players] if self.classic else 0
        self.max_steps = ROUND_CAP * self.num_players * (10 if self.classic else 14)
        self.num_actions = NUM_ACTIONS

    # ================================================================ setup
    def new_state(self, rng: random.Random) -> ChocolatiersState:
        n = self.num_players
        s = ChocolatiersState.__new__(ChocolatiersState)
        deck = cards_of(self.components.card_counts)
        shuffle(rng, deck)
        s.hand = [0] * (n * NT)
        for p in range(n):
            for _ in range(3):
                s.hand[p * NT + deck.pop()] += 1
        s.known = [0] * (n * NT)
        s.unknown = [3] * n
        s.tray = [0] * NT
        for _ in range(TRAY_SIZE):
            s.tray[deck.pop()] += 1
        s.deck, s.reshuffled, s.discard = deck, False, [0] * NT
        tiles = list(range(self.num_tiles))
        shuffle(rng, tiles)
        if self.classic:
            size = self.stack_size
            piles = [tiles[i * size : (i + 1) * size] for i in range(LINE_SIZE)]
            s.display = [pile.pop() for pile in piles]
            s.stacks, s.unused = piles, tiles[LINE_SIZE * size :]
        else:
            s.display = [tiles.pop() for _ in range(LINE_SIZE)]
            s.stacks, s.unused = [tiles], []
        s.cells = (NO_TILE,) * (n * 36)
        s.slots, s.rots = (-1,) * (n * 9), (0,) * (n * 9)
        s.occ = s.ntiles = s.points = s.n34 = (0,) * n
        s.wilds, s.reserved, s.groups = [WILDS_EACH] * n, [-1] * n, (0,) * (n * NT)
        s.first, s.player, s.phase, s.actions_left, s.takes_left = -1, 0, CHOOSE, 2, 0
        s.pending, s.box_from, s.to_pay, s.turn, s.over = -1, -1, [0] * NT, 0, False
        s.unordered = False
        return s

    # ================================================================ queries
    def current_player(self, s: ChocolatiersState) -> int:
        return -1 if s.over else s.player

    def is_over(self, s: ChocolatiersState) -> bool:
        return s.over

    def copy(self, s: ChocolatiersState) -> ChocolatiersState:
        return s.copy()

    def legal_mask(self, s: ChocolatiersState) -> np.ndarray:
        """``legal_actions`` as a mask, built in a bytearray and viewed without a copy."""
        mask = bytearray(NUM_ACTIONS)
        for a in self.legal_actions(s):
            mask[a] = 1
        return np.frombuffer(mask, dtype=bool)

    def legal_actions(self, s: ChocolatiersState) -> list[int]:
        if s.over:
            return []
        phase = s.phase
        if phase == CHOOSE:
            return self._choices(s)
        p = s.player
        if phase == TAKE_MORE:
            return [t for t in range(NT) if s.tray[t]]
        if phase == PAY:
            return self._payments(s)
        if phase == PLACE_TILE:
            return list(PLACE_ACTIONS[s.occ[p]])
        base = p * NT
        return [DISCARD + t for t in range(NT) if s.hand[base + t]]

    def _choices(self, s: ChocolatiersState) -> list[int]:
        kinds = self.step_kinds[s.actions_left]
        p, base = s.player, s.player * NT
        hand, tray = s.hand, s.tray
        acts: list[int] = []
        if K_TAKE in kinds:
            acts = [t for t in range(NT) if tray[t]]
        if K_EXCHANGE in kinds and sum(tray) >= self.exchange_min_tray:
            acts += [GIVE + t for t in range(NT) if hand[base + t]]
        if K_BOX in kinds and s.ntiles[p] < MAX_TILES:
            able = self.affordable(hand, base)
            acts += [BOX + i for i, tile in enumerate(s.display) if tile >= 0 and able >> tile & 1]
            if s.reserved[p] >= 0 and able >> s.reserved[p] & 1:
                acts.append(BOX_RESERVED)
        if K_RESERVE in kinds and s.reserved[p] < 0 and s.wilds[p] > 0:
            acts += [RESERVE + i for i, tile in enumerate(s.display) if tile >= 0]
        if K_WILD in kinds and s.wilds[p] > 0 and s.ntiles[p]:
            acts += [PLACE_WILD + i for i in wild_spaces(s.cells, p * 36)]
        if K_SKIP in kinds or not acts:
            acts.append(PASS)
        return acts

    def _payments(self, s: ChocolatiersState) -> list[int]:
        """Ways to pay the current chocolate that still let the rest be paid."""
        hand, base, need = s.hand, s.player * NT, s.to_pay
        c = current_chocolate(need)
        rest = need[:]
        rest[c] -= 1
        # paying singly is never worse (``cheapest_payment``): it never strands the rest
        acts = [PAY_ONE] if hand[base + c] else []
        for t in range(NT):
            if hand[base + t] >= 2:
                hand[base + t] -= 2
                if payable(hand, base, rest):
                    acts.append(PAY_TWO + t)
                hand[base + t] += 2
        return acts

    # ================================================================ apply
    def apply(self, s: ChocolatiersState, action: int, rng: random.Random) -> None:
        a = self.check_action_range(s, action)
        problem = self._why_illegal(s, a)
        if problem:
            raise self.illegal(s, a, problem)
        phase = s.phase
        if phase == CHOOSE:
            self._apply_choice(s, a, rng)
        elif phase == TAKE_MORE:
            self._take(s, a)
            s.takes_left -= 1
            if s.takes_left == 0:
                self._finish_take(s, rng)
        elif phase == PAY:
            self._pay(s, a)
        elif phase == PLACE_TILE:
            self._place(s, a - PLACE, rng)
            self._finish_action(s, rng)
        else:
            self._spend(s, a - DISCARD)
            if sum(s.hand[s.player * NT : s.player * NT + NT]) <= HAND_LIMIT:
                self._end_turn(s, rng)

    def _why_illegal(self, s: ChocolatiersState, a: int) -> str | None:
        """Why the rules refuse ``a`` now, or None. Checked from the rules themselves."""
        if s.over:
            return "the game is over"
        phase, p, base = s.phase, s.player, s.player * NT
        if phase == CHOOSE:
            return self._why_illegal_choice(s, a)
        if phase == TAKE_MORE:
            if a >= NT:
                return "an exchange is under way: take a card from the tray"
            return None if s.tray[a] else f"the tray has no {TYPES[a]}"
        if phase == PAY:
            if not PAY_ONE <= a < PAY_ONE + 1 + NT:
                return "a tile is being paid: choose how to pay the current chocolate"
            return None if a in self._payments(s) else "that payment leaves the tile unpayable"
        if phase == PLACE_TILE:
            if not PLACE <= a < DISCARD:
                return "a tile is being boxed: choose its position and rotation"
            legal = LEGAL_POSITIONS[s.occ[p]]
            position = (a - PLACE) // 4
            if position in PLACEMENTS[s.occ[p]]:
                return None
            return f"position {position_row_col(position)} is not one of " + str(
                [position_row_col(x) for x in legal]
            )
        if not DISCARD <= a < DISCARD + NT:
            return "the hand is over the limit of 6: discard a card"
        return None if s.hand[base + a - DISCARD] else f"no {TYPES[a - DISCARD]} in hand"

    def _why_illegal_choice(self, s: ChocolatiersState, a: int) -> str | None:
        kinds = self.step_kinds[s.actions_left]
        p, base = s.player, s.player * NT
        if a == PASS:
            if K_SKIP in kinds or self._choices(s) == [PASS]:
                return None
            return "passing is legal only when no other action is"
        kind, arg = action_kind(a)
        if kind not in kinds:
            return "that kind of action is not allowed in this step of the turn"
        if kind == K_TAKE:
            return None if s.tray[arg] else f"the tray has no {TYPES[arg]}"
        if kind == K_EXCHANGE:
            if sum(s.tray) < self.exchange_min_tray:
                return f"an exchange needs {self.exchange_min_tray} card(s) on the tray"
            return None if s.hand[base + arg] else f"no {TYPES[arg]} in hand"
        if kind == K_BOX:
            if s.ntiles[p] >= MAX_TILES:
                return "the Sampler is full"
            tile = s.reserved[p] if a == BOX_RESERVED else s.display[arg]
            if tile < 0:
                return "there is no tile there"
            return None if payable(s.hand, base, self.tile_cost[tile]) else "cannot pay it"
        if kind == K_RESERVE:
            if s.reserved[p] >= 0 or s.wilds[p] == 0:
                return "reserving needs a free wild and no reserved tile"
            return None if s.display[arg] >= 0 else "there is no tile there"
        if s.wilds[p] == 0:
            return "no wild chocolate left in supply"
        if not s.ntiles[p]:
            return "there is no box tile in the Sampler yet"
        v = s.cells[p * 36 + arg]
        return None if EMPTY <= v < WILD else "that space has no tile or holds a wild already"

    def _apply_choice(self, s: ChocolatiersState, a: int, rng: random.Random) -> None:
        p = s.player
        if a == PASS:
            s.actions_left = s.actions_left - 1 if self.classic else 0
            self._after_step(s, rng)
            return
        kind, arg = action_kind(a)
        if kind == K_TAKE:
            self._take(s, arg)
            self._finish_take(s, rng)
        elif kind == K_EXCHANGE:
            self._spend(s, arg, onto_tray=self.gives_onto_tray)
            s.phase, s.takes_left = TAKE_MORE, 2
        elif kind == K_BOX:
            # the tile is committed; its replacement is revealed only once it is placed
            if a == BOX_RESERVED:
                s.pending, s.reserved[p] = s.reserved[p], -1
                s.wilds[p] += 1  # the locked wild returns to its owner's supply
                s.box_from = FROM_RESERVE
            else:
                s.pending, s.display[arg] = s.display[arg], -1
                s.box_from = arg
            s.to_pay = self.tile_cost[s.pending][:]
            s.phase = PAY
        elif kind == K_RESERVE:
            s.reserved[p], s.display[arg] = s.display[arg], -1
            self._refill_line(s, arg, rng)
            s.wilds[p] -= 1
            self._finish_action(s, rng)
        else:
            s.cells = spliced(s.cells, p * 36 + arg, (WILD,))
            s.wilds[p] -= 1
            s.groups = spliced(s.groups, p * NT, largest_groups(s.cells, p * 36))
            self._finish_action(s, rng)

    # ---------------------------------------------------------------- cards
    def _take(self, s: ChocolatiersState, t: int) -> None:
        """Take one card of type t from the face-up tray (everyone sees it)."""
        i = s.player * NT + t
        s.tray[t] -= 1
        s.hand[i] += 1
        s.known[i] += 1

    def _spend(self, s: ChocolatiersState, t: int, onto_tray: bool = False, count: int = 1) -> None:
        """Cards leave the hand face up (paid, discarded, or laid on the classic tray).
        Everyone sees them: a known card of that type goes first, else a dealt one."""
        p = s.player
        i = p * NT + t
        s.hand[i] -= count
        for _ in range(count):
            if s.known[i]:
                s.known[i] -= 1
            else:
                s.unknown[p] -= 1
        if onto_tray:
            s.tray[t] += count
        else:
            s.discard[t] += count

    def _refill_tray(self, s: ChocolatiersState, rng: random.Random) -> None:
        """Refill the tray to 6 from the deck, reshuffling the discards when it runs
        out; if both are empty the tray stays short."""
        tray, deck = s.tray, s.deck
        while sum(tray) < TRAY_SIZE:
            if not deck:
                if not any(s.discard):
                    return
                deck.extend(cards_of(s.discard))
                shuffle(rng, deck)
                s.discard = [0] * NT
                s.reshuffled = True
            tray[draw(rng, deck, s.unordered)] += 1

    def _finish_take(self, s: ChocolatiersState, rng: random.Random) -> None:
        if not self.classic:  # standard: refill after the take action, not between takes
            self._refill_tray(s, rng)
        self._finish_action(s, rng)

    # ---------------------------------------------------------------- tiles
    def _refill_line(self, s: ChocolatiersState, i: int, rng: random.Random) -> None:
        """Refill line position / stack ``i``: the standard line from the hidden stack,
        a classic stack by turning up the tile under its top; none left: it stays empty
        (``unordered``: a random hidden tile, classic ones under any top or in the box)."""
        k, stacks = i if self.classic else 0, s.stacks
        if not stacks[k]:
            s.display[i] = -1
        else:
            s.display[i] = (
                draw_into(rng, [*stacks, s.unused], k) if s.unordered else stacks[k].pop()
            )

    def _pay(self, s: ChocolatiersState, a: int) -> None:
        c = current_chocolate(s.to_pay)
        if a == PAY_ONE:
            self._spend(s, c)
        else:
            self._spend(s, a - PAY_TWO, count=2)
        s.to_pay[c] -= 1
        if not any(s.to_pay):
            s.phase = PLACE_TILE

    def _place(self, s: ChocolatiersState, code: int, rng: random.Random) -> None:
        """Put the pending tile at position code // 4 with rotation code % 4, then reveal
        its replacement in the line (rulebook 000: "take the Box tile and place it in your
        Sampler. ... Refill the line back to 5 Box tiles")."""
        p, tile = s.player, s.pending
        position, rot = divmod(code, 4)
        occ = s.occ[p]
        base = p * 36
        cells, new_occ = placed_cells(
            s.cells[base : base + 36], occ, self.rotated[tile][rot], position
        )
        s.cells = spliced(s.cells, base, cells)
        _, dr, dc = PLACEMENTS[occ][position]
        if dr or dc:
            s.slots = spliced(s.slots, p * 9, shift_slots(s.slots[p * 9 : p * 9 + 9], dr, dc, -1))
            s.rots = spliced(s.rots, p * 9, shift_slots(s.rots[p * 9 : p * 9 + 9], dr, dc, 0))
        row, col = position_row_col(position)
        slot = p * 9 + 3 * (row + dr) + col + dc
        s.slots, s.rots = spliced(s.slots, slot, (tile,)), spliced(s.rots, slot, (rot,))
        s.occ = spliced(s.occ, p, (new_occ,))
        s.ntiles = spliced(s.ntiles, p, (s.ntiles[p] + 1,))
        pts = self.tile_points[tile]
        s.points = spliced(s.points, p, (s.points[p] + pts,))
        s.n34 = spliced(s.n34, p, (s.n34[p] + (pts in (3, 4)),))
        s.groups = spliced(s.groups, p * NT, largest_groups(s.cells, base))
        if s.box_from < LINE_SIZE:
            self._refill_line(s, s.box_from, rng)
        s.pending, s.box_from = -1, -1
        if s.ntiles[p] == MAX_TILES and s.first < 0:
            s.first = p  # the 6th tile triggers the end; only the first takes "First"

    # ---------------------------------------------------------------- turn flow
    def _finish_action(self, s: ChocolatiersState, rng: random.Random) -> None:
        s.actions_left -= 1
        self._after_step(s, rng)

    def _after_step(self, s: ChocolatiersState, rng: random.Random) -> None:
        if s.actions_left > 0:
            s.phase = CHOOSE
        elif sum(s.hand[s.player * NT : s.player * NT + NT]) > HAND_LIMIT:
            s.phase = DISCARD_DOWN
        else:
            self._end_turn(s, rng)

    def _end_turn(self, s: ChocolatiersState, rng: random.Random) -> None:
        """End of turn, after the hand-limit discards: (classic: refill the tray), then
        the end checks, then the next seat. The game ends after the seat before the First
        holder has played, or at the end of round 40 (the declared maximum length)."""
        if self.classic:
            self._refill_tray(s, rng)
        s.turn += 1
        nxt = (s.player + 1) % self.num_players
        if (s.first >= 0 and nxt == s.first) or s.turn >= ROUND_CAP * self.num_players:
            s.over = True
            s.phase = CHOOSE
            return
        s.player, s.phase, s.actions_left, s.takes_left = nxt, CHOOSE, 2, 0

    # ================================================================ scoring
    def award(self, s: ChocolatiersState) -> list[int]:
        """The seat each Score tile goes to now (-1: nobody), in ``score_names`` order:
        the six types (:func:`single_best` of the largest groups), First, and (standard)
        most tiles worth 3 or 4 (:func:`single_best` again)."""
        groups = s.groups
        out = [single_best(groups[t::NT]) for t in range(NT)]
        out.append(s.first)
        if self.majority_score is not None:
            out.append(single_best(s.n34))
        return out

    def score_tile_winners(self, s: ChocolatiersState) -> dict[str, int]:
        """Holder of every Score tile now, by name (-1: nobody)."""
        return dict(zip(self.score_names, self.award(s), strict=True))

    def totals(self, s: ChocolatiersState) -> list[int]:
        """Each seat's score if the game ended now: box tile points + Score tiles + 1 per
        wild neither placed nor locked on a reserved tile."""
        total = [s.points[q] + s.wilds[q] for q in range(self.num_players)]
        for seat, value in zip(self.award(s), self.score_values, strict=True):
            if seat >= 0:
                total[seat] += value
        return total

    def totals_batch(
        self,
        groups: np.ndarray,
        points: np.ndarray,
        wilds: np.ndarray,
        n34: np.ndarray,
        first: np.ndarray,
    ) -> np.ndarray:
        """:meth:`totals` of many states at once (a test ties the two), from their fields
        stacked: ``groups`` (B, n * 6), ``points``, ``wilds``, ``n34`` (B, n), ``first``
        (B,). The Score tiles go as in :meth:`award`."""
        n = self.num_players
        by_seat = groups.reshape(-1, n, NT).transpose(1, 0, 2)  # (seat, state, type)
        values = self.type_score
        if self.majority_score is not None:  # the tiles worth 3 or 4: one more "type"
            by_seat, values = np.dstack([by_seat, n34.T]), (*values, self.majority_score)
        won = sole_largest(np.ascontiguousarray(by_seat)) @ np.asarray(values)  # (seat, state)
        return points + wilds + won.T + self.first_score * (first[:, None] == np.arange(n))

    @property
    def scores_public(self) -> bool:
        """Scores read only the Samplers, the wilds and the Score tiles, all face up (the
        hidden hands and stacks never count), so the env shows them mid-game."""
        return True

    def score_breakdown(self, s: ChocolatiersState) -> dict[str, list[float]]:
        n = self.num_players
        awards = [0.0] * n
        count = [0.0] * n
        for seat, value in zip(self.award(s), self.score_values, strict=True):
            if seat >= 0:
                awards[seat] += value
                count[seat] += 1
        tiles = [float(x) for x in s.points]
        wilds = [float(x) for x in s.wilds]
        return {
            "box_tiles": tiles,
            "score_tiles": awards,
            "wilds": wilds,
            "total": [float(x) for x in self.totals(s)],
            "score_tile_count": count,
        }

    def scores(self, s: ChocolatiersState) -> list[float]:
        return [float(x) for x in self.totals(s)]

    def ranking_key(self, s: ChocolatiersState, player: int) -> tuple[float, ...]:
        b = self.score_breakdown(s)
        return (b["total"][player], b["score_tile_count"][player])

    # ================================================================ hidden information
    def determinize(
        self, s: ChocolatiersState, player: int, rng: random.Random
    ) -> ChocolatiersState:
        """Resample the other seats' unseen dealt cards (the deck before its first
        reshuffle shares their pool; after it, its content is public), and leave to the
        draws what nobody has seen: the copy is ``unordered``, its deck and hidden tiles
        (the standard stack; classic: under the tops and in the box, one pool) sorted,
        each card or tile drawn from them a random one (``core.game.draw``,
        ``draw_into``): a full reshuffle's distribution, paid for only when drawn.
        Pools are sorted first, so the result depends only on what ``player`` sees and
        ``rng``. A seat in the middle of paying is known to afford its tile: its unseen
        cards are drawn among those that let it finish paying, weighted by their deals."""
        d = s.copy(hidden=False)
        d.unordered = True
        unknown = s.unknown
        if not s.reshuffled or sum(unknown) > unknown[player]:  # others hold unseen cards
            others = [q for q in range(self.num_players) if q != player and unknown[q]]
            d.deck = self._deal_unseen_cards(s, d, others, rng)
        if s.reshuffled:
            d.deck = sorted(s.deck)
        if self.classic:  # the tiles under the tops and back in the box: one unseen pool
            pool = sorted(itertools.chain(*s.stacks, s.unused))
            d.stacks, at = [], 0
            for st in s.stacks:  # as many in each place, any tile in any (drawn at random)
                d.stacks.append(pool[at : at + len(st)])
                at += len(st)
            d.unused = pool[at:]
        else:  # the standard stack: its tiles are known, not their order
            d.stacks, d.unused = [sorted(s.stacks[0])], s.unused.copy()
        return d

    def _deal_unseen_cards(
        self, s: ChocolatiersState, d: ChocolatiersState, others: list[int], rng: random.Random
    ) -> list[int]:
        """Deal the cards hidden from the seat determinizing (the unseen cards of
        ``others``, and the deck before its first reshuffle) anew into ``d``: the hands of
        ``others`` keep their known cards and get as many random unseen ones as before;
        the rest is returned, in no dealt order (the deck before a reshuffle)."""
        hidden = [] if s.reshuffled else s.deck[:]
        hand, known = s.hand, s.known
        for q in others:
            at = q * NT
            hidden += cards_of(map(sub, hand[at : at + NT], known[at : at + NT]))
            d.hand[at : at + NT] = known[at : at + NT]
        hidden.sort()
        paying = s.player if s.phase == PAY and s.player in others else -1
        if paying >= 0:
            pool = [hidden.count(t) for t in range(NT)]
            drawn = self._draw_able_to_pay(d, paying, s.unknown[paying], pool, rng)
            for t in range(NT):
                d.hand[paying * NT + t] += drawn[t]
                pool[t] -= drawn[t]
            hidden = cards_of(pool)
        for q in others:
            if q != paying:
                for _ in range(s.unknown[q]):
                    d.hand[q * NT + draw(rng, hidden, True)] += 1
        return hidden

    def _draw_able_to_pay(
        self, d: ChocolatiersState, seat: int, count: int, pool: list[int], rng: random.Random
    ) -> list[int]:
        """``count`` cards from ``pool`` (counts by type) with which ``seat`` can still
        pay ``d.to_pay``, each multiset weighted by its number of deals."""
        options: list[list[int]] = []
        weights: list[int] = []
        base = seat * NT
        for combo in itertools.combinations_with_replacement(range(NT), count):
            drawn = [combo.count(t) for t in range(NT)]
            if any(drawn[t] > pool[t] for t in range(NT)):
                continue
            hand = [d.hand[base + t] + drawn[t] for t in range(NT)]
            if payable(hand, 0, d.to_pay):
                options.append(drawn)
                weights.append(math.prod(math.comb(pool[t], drawn[t]) for t in range(NT)))
        return rng.choices(options, weights)[0]

    # ================================================================ text
    def action_to_string(self, s: ChocolatiersState, action: int) -> str:
        a = int(action)
        if a == PASS:
            if self.classic and s.actions_left == 1 and s.phase == CHOOSE:
                return "skip the bonus phase"
            return "pass"
        if PAY_ONE <= a < PAY_TWO + NT:
            c = current_chocolate(s.to_pay)
            what = TYPES[c] if c >= 0 else "the current chocolate"
            if a == PAY_ONE:
                return f"pay {what} with 1 {what}"
            return f"pay {what} with 2 {TYPES[a - PAY_TWO]}"
        if PLACE <= a < DISCARD:
            position, rot = divmod(a - PLACE, 4)
            row, col = position_row_col(position)
            if s.occ[s.player] == 0 and (row, col) == (0, 0):
                return f"start the Sampler with the tile rotated {90 * rot}"
            return f"place the tile at (row {row}, col {col}) of the Sampler rotated {90 * rot}"
        if DISCARD <= a < DISCARD + NT:
            return f"discard {TYPES[a - DISCARD]} (hand limit)"
        kind, arg = action_kind(a)
        if kind == K_TAKE:
            return f"take {TYPES[arg]}"
        if kind == K_EXCHANGE:
            where = "onto the tray" if self.classic else "to the discard pile"
            return f"exchange: put {TYPES[arg]} {where}, then take 2"
        if kind == K_BOX:
            tile = s.reserved[s.player] if a == BOX_RESERVED else s.display[arg]
            src = "reserved tile" if a == BOX_RESERVED else f"tile at line {arg}"
            return f"box {src} [{self.tile_name(tile)}]"
        if kind == K_RESERVE:
            return f"reserve tile at line {arg} [{self.tile_name(s.display[arg])}]"
        return f"place a wild on space (row {arg // 6}, col {arg % 6})"

    def tile_name(self, tile: int) -> str:
        return "none" if tile < 0 else f"#{tile} {self.tile_text[tile]}"
