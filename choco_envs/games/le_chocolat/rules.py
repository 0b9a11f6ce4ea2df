"""Le Chocolat (seed 002): the rules, as a State and pure functions of it.

Two players split a 7x5 grid of two-sided chocolate tiles. A turn is one split of one
chunk along a full straight line (while any chunk has 2 or more tiles), then the
compulsory claim of exactly one chunk of 3 or fewer tiles if there is one. Claimed tiles
are secretly peeked at; at the end blank/blank tiles are discarded and the scoring card
decides. See docs/games/le_chocolat.md for the rulings and the action table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from choco_envs.core.errors import ConfigError
from choco_envs.core.game import Game, Rng
from choco_envs.core.spec import GameSpec, Option
from choco_envs.games.le_chocolat import grid
from choco_envs.games.le_chocolat.components import (
    Components,
    ScoringCard,
    check_components_option,
    load_components,
)

SPLIT, CLAIM, OVER = 0, 1, 2
PHASE_NAMES = ("split", "claim", "over")
#: split actions: top-left cell * 10 + cut line
NUM_SPLIT_ACTIONS = grid.CELLS * grid.LINES
#: claim actions: NUM_SPLIT_ACTIONS + top-left cell
NUM_ACTIONS = NUM_SPLIT_ACTIONS + grid.CELLS
#: at most 34 splits (each adds a chunk, up to 35 single tiles) and 35 claims
MAX_STEPS = (grid.CELLS - 1) + grid.CELLS
#: the legal split actions of each rectangle when it is a chunk
SPLIT_ACTIONS = [
    [grid.TOP_LEFT[r] * grid.LINES + line for line in grid.CUT_LINES[r]]
    for r in range(len(grid.RECTS))
]
#: per rectangle, 10 bytes: 1 for each line that cuts it
SPLIT_LINE_BYTES = [
    bytes(int(line in grid.CUT_LINES[r]) for line in range(grid.LINES))
    for r in range(len(grid.RECTS))
]
CLAIM_LIMIT = 3


class LeChocolatState:
    """Everything about one game. Per cell (``row * 7 + col``): ``flavor`` of the tile
    that was dealt there (-1 for blank/blank), ``up`` (its flavor side is face up),
    ``owner`` (-1 on the table, else the seat that claimed it); ``chunk_at[cell]`` is the
    rectangle id of the chunk whose top-left cell it is, else -1."""

    __slots__ = (
        "chunk_at",
        "flavor",
        "up",
        "owner",
        "box_flavor",
        "box_up",
        "card",
        "player",
        "phase",
        "claimed",
        "tiles_left",
    )

    chunk_at: list[int]
    flavor: list[int]
    up: list[bool]
    owner: list[int]
    box_flavor: int
    box_up: bool
    card: int
    player: int
    phase: int
    claimed: list[int]
    tiles_left: int

    def copy(self) -> LeChocolatState:
        t = LeChocolatState.__new__(LeChocolatState)
        t.chunk_at = self.chunk_at[:]
        t.flavor = self.flavor[:]
        t.up = self.up[:]
        t.owner = self.owner[:]
        t.box_flavor = self.box_flavor
        t.box_up = self.box_up
        t.card = self.card
        t.player = self.player
        t.phase = self.phase
        t.claimed = self.claimed[:]
        t.tiles_left = self.tiles_left
        return t

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LeChocolatState):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    __hash__ = None  # type: ignore[assignment]

    def claimable_cells(self) -> list[int]:
        """Top-left cells of the chunks of 3 or fewer tiles on the table."""
        size = grid.SIZE
        return [c for c, r in enumerate(self.chunk_at) if r >= 0 and size[r] <= CLAIM_LIMIT]

    def can_split(self) -> bool:
        """Whether some chunk has 2 or more tiles."""
        size = grid.SIZE
        return any(r >= 0 and size[r] > 1 for r in self.chunk_at)

    def knows(self, cell: int, player: int | None) -> bool:
        """Whether ``player`` (None: a spectator) knows the tile at ``cell`` fully: its
        flavor side is up, it is their own claimed tile, or the game is over (all claimed
        tiles are flipped for scoring)."""
        return (
            self.up[cell]
            or self.phase == OVER
            or (player is not None and self.owner[cell] == player)
        )


def _check_scoring_card_option(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return "allowed: None (drawn at random), a card index 0..9, or a card name"
    return None


class LeChocolatGame(Game[LeChocolatState]):
    """Le Chocolat for exactly 2 players."""

    spec: ClassVar[GameSpec] = GameSpec(
        env_id="le_chocolat_v0",
        name="Le Chocolat",
        version=0,
        min_players=2,
        max_players=2,
        hidden_information=True,
        seed_file="002_e5c725799e43845d.txt",
        options=(
            Option(
                "scoring_card",
                None,
                "the face-up scoring card: None draws one at random at setup; an index "
                "0..9 or a card name fixes it",
                check=_check_scoring_card_option,
                rule=False,
            ),
            Option(
                "components",
                None,
                "tile set and scoring cards: None (the authored set), a dict or a JSON path",
                check=check_components_option,
                rule=False,
            ),
        ),
    )

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.components: Components = load_components(self.config["components"])
        self.fixed_card: int | None = self._resolve_card(self.config["scoring_card"])
        self.num_actions = NUM_ACTIONS
        self.max_steps = MAX_STEPS
        self.flavor_totals = list(self.components.flavor_counts)
        from choco_envs.games.le_chocolat.encoding import make_encoders

        self.encoders = make_encoders(self)

    def _resolve_card(self, choice: Any) -> int | None:
        names = self.components.card_names
        if choice is None:
            return None
        if isinstance(choice, str):
            if choice not in names:
                raise ConfigError(
                    f"option scoring_card={choice!r} is not allowed; allowed: None, "
                    f"0..{len(names) - 1}, or one of {', '.join(map(repr, names))}"
                )
            return names.index(choice)
        if not 0 <= choice < len(names):
            raise ConfigError(
                f"option scoring_card={choice!r} is not allowed; allowed: None, "
                f"0..{len(names) - 1}, or one of {', '.join(map(repr, names))}"
            )
        return int(choice)

    def card(self, s: LeChocolatState) -> ScoringCard:
        return self.components.cards[s.card]

    # ------------------------------------------------------------------ setup
    def new_state(self, rng: Rng) -> LeChocolatState:
        """Setup: every tile shows a random side; a random tile goes back to the box; the
        other 35 are arranged at random in the 7x5 grid; a scoring card is drawn."""
        tiles = self.components.tile_flavors()
        rng.shuffle(tiles)
        up = [f >= 0 and rng.random() < 0.5 for f in tiles]
        s = LeChocolatState.__new__(LeChocolatState)
        s.flavor = tiles[: grid.CELLS]
        s.up = up[: grid.CELLS]
        s.box_flavor, s.box_up = tiles[grid.CELLS], up[grid.CELLS]
        s.owner = [-1] * grid.CELLS
        s.chunk_at = [-1] * grid.CELLS
        s.chunk_at[0] = grid.FULL
        s.card = (
            self.fixed_card
            if self.fixed_card is not None
            else rng.randrange(len(self.components.cards))
        )
        s.player, s.phase = 0, SPLIT
        s.claimed = [0, 0]
        s.tiles_left = grid.CELLS
        return s

    # ------------------------------------------------------------------ queries
    def current_player(self, s: LeChocolatState) -> int:
        return s.player

    def is_over(self, s: LeChocolatState) -> bool:
        return s.phase == OVER

    def legal_actions(self, s: LeChocolatState) -> list[int]:
        if s.phase == SPLIT:
            return [a for r in s.chunk_at if r >= 0 for a in SPLIT_ACTIONS[r]]
        if s.phase == CLAIM:
            return [NUM_SPLIT_ACTIONS + c for c in s.claimable_cells()]
        return []

    def legal_mask(self, s: LeChocolatState) -> np.ndarray:
        """Built in a bytearray: a chunk's split actions are the 10 ids of its top-left cell."""
        mask = bytearray(NUM_ACTIONS)
        if s.phase == SPLIT:
            for cell, r in enumerate(s.chunk_at):
                if r >= 0:
                    start = cell * grid.LINES
                    mask[start : start + grid.LINES] = SPLIT_LINE_BYTES[r]
        elif s.phase == CLAIM:
            for cell in s.claimable_cells():
                mask[NUM_SPLIT_ACTIONS + cell] = 1
        return np.frombuffer(mask, dtype=np.bool_)

    # ------------------------------------------------------------------ moves
    def apply(self, s: LeChocolatState, action: int, rng: Rng) -> None:
        a = self.check_action_range(s, action)
        if s.phase == OVER:
            raise self.illegal(s, a, "the game is over")
        if a < NUM_SPLIT_ACTIONS:
            self._split(s, a)
        else:
            self._claim_action(s, a)

    def _split(self, s: LeChocolatState, a: int) -> None:
        cell, line = divmod(a, grid.LINES)
        if s.phase != SPLIT:
            raise self.illegal(s, a, "the split is done; now claim one chunk of 3 or fewer tiles")
        rect = s.chunk_at[cell]
        if rect < 0:
            raise self.illegal(s, a, f"no chunk has its top-left tile at {grid.cell_name(cell)}")
        parts = grid.CUT[rect][line]
        if parts is None:
            raise self.illegal(s, a, f"the {grid.line_name(line)} does not cut that chunk")
        first, second = parts
        s.chunk_at[cell] = first
        s.chunk_at[grid.TOP_LEFT[second]] = second
        claimable = s.claimable_cells()
        if len(claimable) > 1:
            s.phase = CLAIM  # the player chooses which one
            return
        if claimable:
            self._claim(s, claimable[0])  # the only chunk they may claim: claimed at once
        self._next_turn(s)

    def _claim_action(self, s: LeChocolatState, a: int) -> None:
        cell = a - NUM_SPLIT_ACTIONS
        if s.phase != CLAIM:
            raise self.illegal(s, a, "a turn starts with a split while a chunk has 2+ tiles")
        rect = s.chunk_at[cell]
        if rect < 0:
            raise self.illegal(s, a, f"no chunk has its top-left tile at {grid.cell_name(cell)}")
        if grid.SIZE[rect] > CLAIM_LIMIT:
            raise self.illegal(s, a, f"that chunk has {grid.SIZE[rect]} tiles; only 3 or fewer")
        self._claim(s, cell)
        self._next_turn(s)

    def _claim(self, s: LeChocolatState, cell: int) -> None:
        rect = s.chunk_at[cell]
        for c in grid.RECT_CELLS[rect]:
            s.owner[c] = s.player
        s.chunk_at[cell] = -1
        s.claimed[s.player] += grid.SIZE[rect]
        s.tiles_left -= grid.SIZE[rect]

    def _next_turn(self, s: LeChocolatState) -> None:
        """Pass the turn; a turn with no split possible is only the claim, made at once
        when a single tile is left."""
        while True:
            if s.tiles_left == 0:
                s.player, s.phase = -1, OVER
                return
            s.player = 1 - s.player
            if s.can_split():
                s.phase = SPLIT
                return
            claimable = s.claimable_cells()
            if len(claimable) > 1:
                s.phase = CLAIM
                return
            self._claim(s, claimable[0])

    # ------------------------------------------------------------------ scoring
    def hand_counts(self, s: LeChocolatState, player: int) -> list[int]:
        """Tiles of each flavor ``player`` claimed (blank/blank tiles are discarded)."""
        counts = [0] * len(self.components.flavors)
        for c in range(grid.CELLS):
            if s.owner[c] == player and s.flavor[c] >= 0:
                counts[s.flavor[c]] += 1
        return counts

    def score_breakdown(self, s: LeChocolatState) -> dict[str, list[float]]:
        hands = [self.hand_counts(s, 0), self.hand_counts(s, 1)]
        parts = [score_hand(self.card(s), hands[p], hands[1 - p]) for p in (0, 1)]
        return {k: [float(parts[0][k]), float(parts[1][k])] for k in ("each", "sets", "majority")}

    def scores(self, s: LeChocolatState) -> list[float]:
        parts = self.score_breakdown(s)
        return [sum(v[p] for v in parts.values()) for p in (0, 1)]

    def ranking_key(self, s: LeChocolatState, player: int) -> tuple[float, ...]:
        """Points, then tiles claimed (counted before the blank/blank discard)."""
        return (self.scores(s)[player], float(s.claimed[player]))

    # ------------------------------------------------------------------ search
    def copy(self, s: LeChocolatState) -> LeChocolatState:
        return s.copy()

    def unseen_tiles(self, s: LeChocolatState, player: int) -> list[int]:
        """The cells whose tile ``player`` does not know (blank side up, not theirs)."""
        return [c for c in range(grid.CELLS) if not s.knows(c, player)]

    def determinize(self, s: LeChocolatState, player: int, rng: Rng) -> LeChocolatState:
        """Resample every tile ``player`` has not seen (blank side up on the table, in the
        opponent's hand, or in the box): any tile of the rest of the set fits a blank face,
        and every arrangement of them is equally likely. The pool is sorted before the
        shuffle, so the sample depends only on public knowledge and the rng."""
        d = s.copy()
        cells = self.unseen_tiles(s, player)
        pool = [s.flavor[c] for c in cells]
        box_hidden = not s.box_up
        if box_hidden:
            pool.append(s.box_flavor)
        # sort first: the sample then depends only on what the seat has seen and the rng,
        # never on the true arrangement (tests/bots/test_bots_hidden_info.py)
        pool.sort()
        rng.shuffle(pool)
        for c, f in zip(cells, pool, strict=False):
            d.flavor[c] = f
        if box_hidden:
            d.box_flavor = pool[-1]
        return d

    # ------------------------------------------------------------------ records and text
    def to_json(self, s: LeChocolatState) -> dict[str, Any]:
        from choco_envs.games.le_chocolat.records import state_to_json

        return state_to_json(self, s)

    def from_json(self, d: Mapping[str, Any]) -> LeChocolatState:
        from choco_envs.games.le_chocolat.records import state_from_json

        return state_from_json(self, d)

    def action_to_string(self, s: LeChocolatState, action: int) -> str:
        from choco_envs.games.le_chocolat.render import describe_action

        return describe_action(s, action)

    def state_to_string(self, s: LeChocolatState, player: int | None) -> str:
        from choco_envs.games.le_chocolat.render import render_state

        return render_state(self, s, player)


def score_hand(card: ScoringCard, mine: list[int], theirs: list[int]) -> dict[str, int]:
    """VP of a hand (tiles per flavor, blank/blank already discarded) against the
    opponent's: per-tile values, complete chained sets, and strict majorities."""
    each = sum(vp * n for vp, n in zip(card.each, mine, strict=True))
    sets = sum(vp * min(mine[f] for f in members) for members, vp in card.sets)
    majority = sum(vp for f, vp in card.majority if mine[f] > theirs[f])
    return {"each": each, "sets": sets, "majority": majority}
