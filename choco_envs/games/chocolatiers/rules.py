"""Chocolatiers rules, both editions in one module (seeds 000 and 003, RULINGS.md).

The Sampler, wild chocolates, paying with substitutions, Score tiles and final scoring
are written once. The editions differ only in data: the component set, what a step of
the turn may do (standard: 2 actions from take/exchange/box/wild/reserve; classic: an
action phase take/exchange, then an optional bonus phase box/wild), when the tray is
refilled, and where a box tile's replacement comes from (one hidden stack feeding a line
of 5, or 5 stacks whose top tiles are face up).

Geometry: a 3x3 frame of tile slots (slot = 3*row + col) with the first tile in the
centre holds every legal Sampler; the tiles' spaces form a 6x6 grid (space = 6*row +
col). A tile's spaces are read top-left, top-right, bottom-left, bottom-right; rotation
``r`` turns it ``r`` quarter turns clockwise.

A cell of the grid is NO_TILE (-2), EMPTY (-1, a tile space without a chocolate), a
type 0..5, or WILD (6: a wild chocolate lies there; it no longer counts as what it covers).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from choco_envs.core.errors import ConfigError, RecordError
from choco_envs.core.game import Game, require
from choco_envs.core.spec import GameSpec, Option
from choco_envs.games.chocolatiers.components import (
    EDITIONS,
    PLAYER_RANGE,
    TYPE_LETTERS,
    TYPES,
    Components,
    components_to_dict,
    default_components,
    load_components,
)

NT = len(TYPES)  # 6 chocolate types
NO_TILE, EMPTY, WILD = -2, -1, 6
HAND_LIMIT = 6
TRAY_SIZE = 6
LINE_SIZE = 5
MAX_TILES = 6
WILDS_EACH = 3
ROUND_CAP = 40
CLASSIC_STACK_SIZE = {2: 3, 3: 4, 4: 5}

# ---------------------------------------------------------------- action ids
TAKE = 0  # +type: take one card of that type from the tray
GIVE = 6  # +type: exchange: give that card (standard: discard, classic: onto tray), take 2
BOX = 12  # +line slot: box the tile at that line position / top of that stack
BOX_RESERVED = 17  # box the reserved tile (standard)
RESERVE = 18  # +line slot: reserve that tile (standard)
PLACE_WILD = 23  # +space 0..35: place a wild chocolate on that Sampler space
PAY_ONE = 59  # pay the current chocolate with one matching card
PAY_TWO = 60  # +type: pay the current chocolate with two cards of that type
PLACE = 66  # +4*slot+rotation: put the tile being boxed into that frame slot
DISCARD = 102  # +type: discard one card of that type (hand limit)
PASS = 108  # nothing else is legal (or classic: skip the optional bonus phase)
NUM_ACTIONS = 109

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


# ---------------------------------------------------------------- geometry tables
def _slot_spaces(slot: int) -> tuple[int, int, int, int]:
    sr, sc = divmod(slot, 3)
    return tuple((2 * sr + k // 2) * 6 + 2 * sc + k % 2 for k in range(4))  # type: ignore[return-value]


SLOT_SPACES = tuple(_slot_spaces(s) for s in range(9))
NEIGHBORS = tuple(
    tuple(
        (r + dr) * 6 + c + dc
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
        if 0 <= r + dr < 6 and 0 <= c + dc < 6
    )
    for r, c in (divmod(i, 6) for i in range(36))
)
SLOT_NEIGHBORS = tuple(
    tuple(
        (r + dr) * 3 + c + dc
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
        if 0 <= r + dr < 3 and 0 <= c + dc < 3
    )
    for r, c in (divmod(s, 3) for s in range(9))
)


def _fits_3x2(mask: int) -> bool:
    rows = {s // 3 for s in range(9) if mask >> s & 1}
    cols = {s % 3 for s in range(9) if mask >> s & 1}
    height, width = max(rows) - min(rows) + 1, max(cols) - min(cols) + 1
    return min(height, width) <= 2 and max(height, width) <= 3


def _legal_slots(mask: int) -> tuple[int, ...]:
    if mask == 0:
        return (4,)
    return tuple(
        s
        for s in range(9)
        if not mask >> s & 1
        and any(mask >> n & 1 for n in SLOT_NEIGHBORS[s])
        and _fits_3x2(mask | 1 << s)
    )


#: frame slots where the next tile may go, by occupancy bitmask of the 9 slots
LEGAL_SLOTS = tuple(_legal_slots(m) for m in range(512))


def rotate(spaces: tuple[int, ...], quarter_turns: int) -> tuple[int, ...]:
    """Spaces (TL, TR, BL, BR) after ``quarter_turns`` clockwise quarter turns."""
    for _ in range(quarter_turns % 4):
        tl, tr, bl, br = spaces
        spaces = (bl, tl, br, tr)
    return spaces


def largest_groups(cells: list[int], base: int = 0) -> list[int]:
    """Size of the largest connected group of each type in the 36 cells from ``base``.

    A group of type t is a connected set of cells showing t or a wild (RULINGS: a wild
    counts as every type orthogonally adjacent to it, through chains of adjacent wilds,
    and counts in the size of the groups it joins); it must contain at least one t."""
    best = [0] * NT
    for t in range(NT):
        seen = 0
        for start in range(36):
            if cells[base + start] != t or seen >> start & 1:
                continue
            seen |= 1 << start
            stack = [start]
            size = 0
            while stack:
                i = stack.pop()
                size += 1
                for j in NEIGHBORS[i]:
                    if not seen >> j & 1:
                        v = cells[base + j]
                        if v == t or v == WILD:
                            seen |= 1 << j
                            stack.append(j)
            if size > best[t]:
                best[t] = size
    return best


def payable(hand: list[int], base: int, need: list[int]) -> bool:
    """Whether ``need`` (chocolates by type) can be paid from hand[base:base+6]: each
    with one matching card or two cards of one type. Paying singly is never worse, so
    pay every chocolate singly where possible and check the rest with pairs."""
    pairs = 0
    missing = 0
    for t in range(NT):
        have, want = hand[base + t], need[t]
        if have >= want:
            pairs += (have - want) >> 1
        else:
            missing += want - have
    return pairs >= missing


class State:
    """Everything about a game in progress; per-seat data in flat lists (seat-major)."""

    __slots__ = (
        "hand", "known", "unknown", "cells", "slots", "rots", "occ", "ntiles", "points",
        "n34", "wilds", "reserved", "groups", "deck", "reshuffled", "discard", "tray",
        "display", "stacks", "unused", "first", "player", "phase", "actions_left",
        "takes_left", "pending", "to_pay", "turn", "over",
    )  # fmt: skip

    hand: list[int]  # n*6 cards by type
    known: list[int]  # n*6 cards everyone knows each seat holds
    unknown: list[int]  # n: dealt cards not yet seen (hidden from the others)
    cells: list[int]  # n*36 Sampler grid
    slots: list[int]  # n*9 tile id in each frame slot, or -1
    rots: list[int]  # n*9 rotation of that tile
    occ: list[int]  # n: bitmask of occupied frame slots
    ntiles: list[int]
    points: list[int]  # n: points of the boxed tiles
    n34: list[int]  # n: boxed tiles worth 3 or 4
    wilds: list[int]  # n: wilds in supply (neither placed nor locked on a reserved tile)
    reserved: list[int]  # n: reserved tile id or -1
    groups: list[int]  # n*6 largest connected group by type (cache)
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
    to_pay: list[int]  # 6 chocolates still to pay by type
    turn: int  # turns completed
    over: bool

    def copy(self) -> State:
        c = State.__new__(State)
        c.hand = self.hand[:]
        c.known = self.known[:]
        c.unknown = self.unknown[:]
        c.cells = self.cells[:]
        c.slots = self.slots[:]
        c.rots = self.rots[:]
        c.occ = self.occ[:]
        c.ntiles = self.ntiles[:]
        c.points = self.points[:]
        c.n34 = self.n34[:]
        c.wilds = self.wilds[:]
        c.reserved = self.reserved[:]
        c.groups = self.groups[:]
        c.deck = self.deck[:]
        c.reshuffled = self.reshuffled
        c.discard = self.discard[:]
        c.tray = self.tray[:]
        c.display = self.display[:]
        c.stacks = [st[:] for st in self.stacks]
        c.unused = self.unused[:]
        c.first = self.first
        c.player = self.player
        c.phase = self.phase
        c.actions_left = self.actions_left
        c.takes_left = self.takes_left
        c.pending = self.pending
        c.to_pay = self.to_pay[:]
        c.turn = self.turn
        c.over = self.over
        return c


def _check_components_option(value: Any) -> str | None:
    if value is None or isinstance(value, (str, dict)):
        return None
    return "expected None (the authored set), a JSON file path or a dict"


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
        ),
    ),
)


class ChocolatiersGame(Game[State]):
    """Chocolatiers for one configuration: ``edition`` and ``num_players``."""

    spec: ClassVar[GameSpec] = SPEC

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        edition = self.config["edition"]
        low, high = PLAYER_RANGE[edition]
        if not low <= self.num_players <= high:
            raise ConfigError(
                f"option num_players={self.num_players} is not allowed for the {edition} "
                f"edition; allowed values: {', '.join(map(str, range(low, high + 1)))}"
            )
        source = self.config["components"]
        self.comp: Components = (
            default_components(edition) if source is None else load_components(source, edition)
        )
        self.edition = edition
        self.classic = edition == "classic"
        self.step_kinds = STEP_KINDS[edition]
        self.tile_text = tuple(t.text() for t in self.comp.tiles)
        self.tile_points = tuple(t.points for t in self.comp.tiles)
        self.tile_cost = tuple(list(t.cost) for t in self.comp.tiles)
        self.rotated = tuple(tuple(rotate(t.spaces, r) for r in range(4)) for t in self.comp.tiles)
        self.type_score = tuple(pts for _, pts in self.comp.score_tiles[:NT])
        extras = dict(self.comp.score_tiles[NT:])
        self.first_score = extras["first"]
        self.majority_score = extras.get("three_or_four")  # None in the classic edition
        self.exchange_min_tray = 1 if self.classic else 2
        per_turn = 10 if self.classic else 14
        self.max_steps = ROUND_CAP * self.num_players * per_turn
        self.num_actions = NUM_ACTIONS
        from choco_envs.games.chocolatiers.encoding import make_encoders

        self.encoders = make_encoders(self)

    # ================================================================ setup
    def new_state(self, rng: random.Random) -> State:
        n = self.num_players
        s = State.__new__(State)
        deck = [t for t in range(NT) for _ in range(self.comp.card_counts[t])]
        rng.shuffle(deck)
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
        tiles = list(range(len(self.comp.tiles)))
        rng.shuffle(tiles)
        if self.classic:
            size = CLASSIC_STACK_SIZE[n]
            piles = [tiles[i * size : (i + 1) * size] for i in range(LINE_SIZE)]
            s.display = [pile.pop() for pile in piles]
            s.stacks, s.unused = piles, tiles[LINE_SIZE * size :]
        else:
            s.display = [tiles.pop() for _ in range(LINE_SIZE)]
            s.stacks, s.unused = [tiles], []
        s.cells = [NO_TILE] * (n * 36)
        s.slots, s.rots = [-1] * (n * 9), [0] * (n * 9)
        s.occ, s.ntiles, s.points, s.n34 = [0] * n, [0] * n, [0] * n, [0] * n
        s.wilds, s.reserved, s.groups = [WILDS_EACH] * n, [-1] * n, [0] * (n * NT)
        s.first, s.player, s.phase, s.actions_left, s.takes_left = -1, 0, CHOOSE, 2, 0
        s.pending, s.to_pay, s.turn, s.over = -1, [0] * NT, 0, False
        return s

    # ================================================================ queries
    def current_player(self, s: State) -> int:
        return -1 if s.over else s.player

    def is_over(self, s: State) -> bool:
        return s.over

    def copy(self, s: State) -> State:
        return s.copy()

    def legal_mask(self, s: State) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        if not s.over:
            mask[self.legal_actions(s)] = True
        return mask

    def legal_actions(self, s: State) -> list[int]:
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
            return [PLACE + 4 * slot + r for slot in LEGAL_SLOTS[s.occ[p]] for r in range(4)]
        base = p * NT
        return [DISCARD + t for t in range(NT) if s.hand[base + t]]

    def _choices(self, s: State) -> list[int]:
        kinds = self.step_kinds[s.actions_left]
        p, base = s.player, s.player * NT
        hand, tray = s.hand, s.tray
        acts: list[int] = []
        if K_TAKE in kinds:
            acts = [t for t in range(NT) if tray[t]]
        if K_EXCHANGE in kinds and sum(tray) >= self.exchange_min_tray:
            acts += [GIVE + t for t in range(NT) if hand[base + t]]
        if K_BOX in kinds and s.ntiles[p] < MAX_TILES:
            cost = self.tile_cost
            acts += [
                BOX + i
                for i, tile in enumerate(s.display)
                if tile >= 0 and payable(hand, base, cost[tile])
            ]
            if s.reserved[p] >= 0 and payable(hand, base, cost[s.reserved[p]]):
                acts.append(BOX_RESERVED)
        if K_RESERVE in kinds and s.reserved[p] < 0 and s.wilds[p] > 0:
            acts += [RESERVE + i for i, tile in enumerate(s.display) if tile >= 0]
        if K_WILD in kinds and s.wilds[p] > 0 and s.ntiles[p]:
            cells = s.cells[p * 36 : p * 36 + 36]
            acts += [PLACE_WILD + i for i, v in enumerate(cells) if EMPTY <= v < WILD]
        if K_SKIP in kinds or not acts:
            acts.append(PASS)
        return acts

    def _payments(self, s: State) -> list[int]:
        """Ways to pay the current chocolate that still let the rest be paid."""
        hand, base, need = s.hand, s.player * NT, s.to_pay
        c = self._current_chocolate(s)
        rest = need[:]
        rest[c] -= 1
        acts = []
        if hand[base + c]:
            hand[base + c] -= 1
            if payable(hand, base, rest):
                acts.append(PAY_ONE)
            hand[base + c] += 1
        for t in range(NT):
            if hand[base + t] >= 2:
                hand[base + t] -= 2
                if payable(hand, base, rest):
                    acts.append(PAY_TWO + t)
                hand[base + t] += 2
        return acts

    @staticmethod
    def _current_chocolate(s: State) -> int:
        """The chocolate being paid: the first type still owed."""
        need = s.to_pay
        for t in range(NT):
            if need[t]:
                return t
        return -1

    # ================================================================ apply
    def apply(self, s: State, action: int, rng: random.Random) -> None:
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
            self._place(s, a - PLACE)
            self._finish_action(s, rng)
        else:
            self._spend(s, a - DISCARD)
            if sum(s.hand[s.player * NT : s.player * NT + NT]) <= HAND_LIMIT:
                self._end_turn(s, rng)

    def _why_illegal(self, s: State, a: int) -> str | None:
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
            if not PLACE <= a < PLACE + 36:
                return "a tile is being boxed: choose its frame slot and rotation"
            slot = (a - PLACE) // 4
            legal = LEGAL_SLOTS[s.occ[p]]
            return None if slot in legal else f"slot {slot} is not one of {list(legal)}"
        if not DISCARD <= a < DISCARD + NT:
            return "the hand is over the limit of 6: discard a card"
        return None if s.hand[base + a - DISCARD] else f"no {TYPES[a - DISCARD]} in hand"

    def _why_illegal_choice(self, s: State, a: int) -> str | None:
        kinds = self.step_kinds[s.actions_left]
        p, base = s.player, s.player * NT
        if a == PASS:
            if K_SKIP in kinds or self._choices(s) == [PASS]:
                return None
            return "passing is legal only when no other action is"
        kind, arg = _kind_of(a)
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
        v = s.cells[p * 36 + arg]
        return None if EMPTY <= v < WILD else "that space has no tile or holds a wild already"

    def _apply_choice(self, s: State, a: int, rng: random.Random) -> None:
        p = s.player
        if a == PASS:
            s.actions_left = s.actions_left - 1 if self.classic else 0
            self._after_step(s, rng)
            return
        kind, arg = _kind_of(a)
        if kind == K_TAKE:
            self._take(s, arg)
            self._finish_take(s, rng)
        elif kind == K_EXCHANGE:
            self._spend(s, arg, onto_tray=self.classic)
            s.phase, s.takes_left = TAKE_MORE, 2
        elif kind == K_BOX:
            if a == BOX_RESERVED:
                s.pending, s.reserved[p] = s.reserved[p], -1
                s.wilds[p] += 1  # the locked wild returns to its owner's supply
            else:
                s.pending = self._take_tile(s, arg)
            s.to_pay = self.tile_cost[s.pending][:]
            s.phase = PAY
        elif kind == K_RESERVE:
            s.reserved[p] = self._take_tile(s, arg)
            s.wilds[p] -= 1
            self._finish_action(s, rng)
        else:
            s.cells[p * 36 + arg] = WILD
            s.wilds[p] -= 1
            s.groups[p * NT : p * NT + NT] = largest_groups(s.cells, p * 36)
            self._finish_action(s, rng)

    # ---------------------------------------------------------------- cards
    def _take(self, s: State, t: int) -> None:
        """Take one card of type t from the face-up tray (everyone sees it)."""
        i = s.player * NT + t
        s.tray[t] -= 1
        s.hand[i] += 1
        s.known[i] += 1

    def _spend(self, s: State, t: int, onto_tray: bool = False, count: int = 1) -> None:
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

    def _refill_tray(self, s: State, rng: random.Random) -> None:
        """Refill the tray to 6 from the deck, reshuffling the discards when it runs
        out; if both are empty the tray stays short."""
        tray, deck = s.tray, s.deck
        while sum(tray) < TRAY_SIZE:
            if not deck:
                if not any(s.discard):
                    return
                deck.extend(t for t in range(NT) for _ in range(s.discard[t]))
                rng.shuffle(deck)
                s.discard = [0] * NT
                s.reshuffled = True
            tray[deck.pop()] += 1

    def _finish_take(self, s: State, rng: random.Random) -> None:
        if not self.classic:  # standard: refill after the take action, not between takes
            self._refill_tray(s, rng)
        self._finish_action(s, rng)

    # ---------------------------------------------------------------- tiles
    def _take_tile(self, s: State, i: int) -> int:
        """Take the face-up tile at line slot / stack i and reveal its replacement."""
        tile = s.display[i]
        source = s.stacks[i if self.classic else 0]
        s.display[i] = source.pop() if source else -1
        return tile

    def _pay(self, s: State, a: int) -> None:
        c = self._current_chocolate(s)
        if a == PAY_ONE:
            self._spend(s, c)
        else:
            self._spend(s, a - PAY_TWO, count=2)
        s.to_pay[c] -= 1
        if not any(s.to_pay):
            s.phase = PLACE_TILE

    def _place(self, s: State, code: int) -> None:
        """Put the pending tile into frame slot code//4 with rotation code%4."""
        p, tile = s.player, s.pending
        slot, rot = divmod(code, 4)
        s.slots[p * 9 + slot], s.rots[p * 9 + slot] = tile, rot
        s.occ[p] |= 1 << slot
        base = p * 36
        for space, v in zip(SLOT_SPACES[slot], self.rotated[tile][rot], strict=True):
            s.cells[base + space] = v
        s.ntiles[p] += 1
        pts = self.tile_points[tile]
        s.points[p] += pts
        s.n34[p] += pts in (3, 4)
        s.groups[p * NT : p * NT + NT] = largest_groups(s.cells, base)
        s.pending = -1
        if s.ntiles[p] == MAX_TILES and s.first < 0:
            s.first = p  # the 6th tile triggers the end; only the first takes "First"

    # ---------------------------------------------------------------- turn flow
    def _finish_action(self, s: State, rng: random.Random) -> None:
        s.actions_left -= 1
        self._after_step(s, rng)

    def _after_step(self, s: State, rng: random.Random) -> None:
        if s.actions_left > 0:
            s.phase = CHOOSE
        elif sum(s.hand[s.player * NT : s.player * NT + NT]) > HAND_LIMIT:
            s.phase = DISCARD_DOWN
        else:
            self._end_turn(s, rng)

    def _end_turn(self, s: State, rng: random.Random) -> None:
        """End of turn: (classic: refill the tray), then the end checks, then the next
        seat. The game ends after the seat before the First holder has played, or at
        the end of round 40 (the declared maximum length)."""
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
    def score_tile_winners(self, s: State) -> dict[str, int]:
        """Holder of every Score tile now (-1: nobody; a tie for most means nobody)."""
        n = self.num_players
        out = {}
        for t in range(NT):
            out[TYPES[t]] = single_best([s.groups[q * NT + t] for q in range(n)])
        out["first"] = s.first
        if self.majority_score is not None:
            out["three_or_four"] = single_best(s.n34)
        return out

    def score_breakdown(self, s: State) -> dict[str, list[float]]:
        n = self.num_players
        awards = [0.0] * n
        count = [0.0] * n
        values = dict(self.comp.score_tiles)
        for name, seat in self.score_tile_winners(s).items():
            if seat >= 0:
                awards[seat] += values[name]
                count[seat] += 1
        tiles = [float(x) for x in s.points]
        wilds = [float(x) for x in s.wilds]
        total = [tiles[q] + awards[q] + wilds[q] for q in range(n)]
        return {
            "box_tiles": tiles,
            "score_tiles": awards,
            "wilds": wilds,
            "total": total,
            "score_tile_count": count,
        }

    def provisional_scores(self, s: State) -> list[int]:
        """Totals as if the game ended now (the same sum as ``score_breakdown``, fast)."""
        n = self.num_players
        total = [s.points[q] + s.wilds[q] for q in range(n)]
        groups = s.groups
        for t in range(NT):
            col = groups[t::NT]
            top = max(col)
            if top > 0 and col.count(top) == 1:
                total[col.index(top)] += self.type_score[t]
        if s.first >= 0:
            total[s.first] += self.first_score
        if self.majority_score is not None:
            seat = single_best(s.n34)
            if seat >= 0:
                total[seat] += self.majority_score
        return total

    def scores(self, s: State) -> list[float]:
        return self.score_breakdown(s)["total"]

    def ranking_key(self, s: State, player: int) -> tuple[float, ...]:
        b = self.score_breakdown(s)
        return (b["total"][player], b["score_tile_count"][player])

    # ================================================================ hidden information
    def determinize(self, s: State, player: int, rng: random.Random) -> State:
        """Resample what ``player`` cannot see: the other seats' unseen dealt cards (the
        deck before its first reshuffle shares their pool; after it, the deck's content
        is public and only its order is resampled), the deck order, and the hidden tiles
        (standard stack; classic tiles under the tops and those back in the box).

        Every pool is put in a canonical order before it is shuffled, so the result
        depends only on what ``player`` sees and on ``rng``. A seat in the middle of
        paying is known to afford its tile: its unseen cards are drawn among those that
        let it finish paying, weighted by how many ways the pool deals them."""
        d = s.copy()
        n = self.num_players
        others = [q for q in range(n) if q != player and s.unknown[q]]
        pool = [0] * NT  # counts of the cards hidden from ``player``
        for q in others:
            for t in range(NT):
                pool[t] += s.hand[q * NT + t] - s.known[q * NT + t]
        if not s.reshuffled:
            for t in s.deck:
                pool[t] += 1
        for q in others:
            d.hand[q * NT : q * NT + NT] = s.known[q * NT : q * NT + NT]
        paying = s.player if s.phase == PAY and s.player in others else -1
        if paying >= 0:
            drawn = self._draw_able_to_pay(d, paying, s.unknown[paying], pool, rng)
            for t in range(NT):
                d.hand[paying * NT + t] += drawn[t]
                pool[t] -= drawn[t]
        cards = [t for t in range(NT) for _ in range(pool[t])]
        rng.shuffle(cards)
        for q in others:
            if q != paying:
                for _ in range(s.unknown[q]):
                    d.hand[q * NT + cards.pop()] += 1
        if s.reshuffled:
            cards = sorted(s.deck)
            rng.shuffle(cards)
        d.deck = cards
        self._resample_tiles(d, rng)
        return d

    def _draw_able_to_pay(
        self, d: State, seat: int, count: int, pool: list[int], rng: random.Random
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

    def _resample_tiles(self, d: State, rng: random.Random) -> None:
        pool = sorted([t for st in d.stacks for t in st] + d.unused)
        rng.shuffle(pool)
        for st in d.stacks:
            for i in range(len(st)):
                st[i] = pool.pop()
        d.unused = pool

    # ================================================================ records
    def to_json(self, s: State) -> dict[str, Any]:
        return {name: _plain(getattr(s, name)) for name in State.__slots__} | {
            "edition": self.edition,
            "components": components_to_dict(self.comp),
        }

    def from_json(self, d: Mapping[str, Any]) -> State:
        where = "chocolatiers state"
        if require(d, "edition", str, where) != self.edition:
            raise RecordError(f"{where}: edition {d['edition']!r} is not {self.edition!r}")
        if d.get("components", components_to_dict(self.comp)) != components_to_dict(self.comp):
            raise RecordError(f"{where}: the record was played with other component data")
        n = self.num_players
        s = State.__new__(State)
        sizes = {
            "hand": n * NT, "known": n * NT, "unknown": n, "cells": n * 36, "slots": n * 9,
            "rots": n * 9, "occ": n, "ntiles": n, "points": n, "n34": n, "wilds": n,
            "reserved": n, "groups": n * NT, "discard": NT, "tray": NT,
            "display": LINE_SIZE, "to_pay": NT, "deck": None, "unused": None,
        }  # fmt: skip
        for name, size in sizes.items():
            value = require(d, name, list, where)
            if size is not None and len(value) != size:
                raise RecordError(f"{where}.{name}: expected {size} entries, got {len(value)}")
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                raise RecordError(f"{where}.{name}: expected ints, got {value!r}")
            setattr(s, name, list(value))
        stacks = require(d, "stacks", list, where)
        if len(stacks) != (LINE_SIZE if self.classic else 1) or not all(
            isinstance(st, list) and all(isinstance(v, int) for v in st) for st in stacks
        ):
            raise RecordError(f"{where}.stacks: malformed {stacks!r}")
        s.stacks = [list(st) for st in stacks]
        for name in ("first", "player", "phase", "actions_left", "takes_left", "pending", "turn"):
            setattr(s, name, require(d, name, int, where))
        s.reshuffled = require(d, "reshuffled", bool, where)
        s.over = require(d, "over", bool, where)
        if not 0 <= s.player < n or not 0 <= s.phase < len(PHASE_NAMES):
            raise RecordError(f"{where}: player {s.player} or phase {s.phase} out of range")
        return s

    # ================================================================ text
    def action_to_string(self, s: State, action: int) -> str:
        a = int(action)
        if a == PASS:
            if self.classic and s.actions_left == 1 and s.phase == CHOOSE:
                return "skip the bonus phase"
            return "pass"
        if PAY_ONE <= a < PAY_TWO + NT:
            c = self._current_chocolate(s)
            what = TYPES[c] if c >= 0 else "the current chocolate"
            if a == PAY_ONE:
                return f"pay {what} with 1 {what}"
            return f"pay {what} with 2 {TYPES[a - PAY_TWO]}"
        if PLACE <= a < PLACE + 36:
            slot, rot = divmod(a - PLACE, 4)
            return f"place tile in slot (row {slot // 3}, col {slot % 3}) rotated {90 * rot}"
        if DISCARD <= a < DISCARD + NT:
            return f"discard {TYPES[a - DISCARD]} (hand limit)"
        kind, arg = _kind_of(a)
        if kind == K_TAKE:
            return f"take {TYPES[arg]}"
        if kind == K_EXCHANGE:
            where = "onto the tray" if self.classic else "to the discard pile"
            return f"exchange: put {TYPES[arg]} {where}, then take 2"
        if kind == K_BOX:
            tile = s.reserved[s.player] if a == BOX_RESERVED else s.display[arg]
            src = "reserved tile" if a == BOX_RESERVED else f"tile at line {arg}"
            return f"box {src} [{self._tile_name(tile)}]"
        if kind == K_RESERVE:
            return f"reserve tile at line {arg} [{self._tile_name(s.display[arg])}]"
        return f"place a wild on space (row {arg // 6}, col {arg % 6})"

    def _tile_name(self, tile: int) -> str:
        return "none" if tile < 0 else f"#{tile} {self.tile_text[tile]}"

    def state_to_string(self, s: State, player: int | None) -> str:
        from choco_envs.games.chocolatiers.render import render_state

        return render_state(self, s, player)


def _kind_of(a: int) -> tuple[int, int]:
    """(kind, argument) of an action chosen at the start of a step."""
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


def single_best(values: list[int]) -> int:
    """The seat with the strictly largest positive value, else -1 (ties: nobody)."""
    top = max(values)
    if top <= 0 or values.count(top) > 1:
        return -1
    return values.index(top)


def _plain(value: Any) -> Any:
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def cell_letter(v: int) -> str:
    """One character for a Sampler cell: a type letter, '*' wild, '.' empty, ' ' none."""
    if v == NO_TILE:
        return " "
    if v == EMPTY:
        return "."
    if v == WILD:
        return "*"
    return TYPE_LETTERS[v]
