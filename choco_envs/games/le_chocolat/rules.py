"""Le Chocolat (seed 002): the rules, as a State and pure functions of it.

Two players split a 7x5 grid of two-sided chocolate tiles. A turn is one split of one
chunk along a full straight line (while any chunk has 2 or more tiles), then the
compulsory claim of exactly one chunk of 3 or fewer tiles if there is one. Claimed tiles
are secretly peeked at; at the end blank/blank tiles are discarded and the scoring card
decides. See docs/games/le_chocolat.md for the rulings and the action table.

Besides the :class:`LeChocolatRules` methods, this module holds the pure helpers the bots
call instead of copying a rule: :func:`score_hand` (the one scoring function),
:func:`decode_action`, :data:`SMALL_PIECES` (the chunks a claim could take after one more
cut), ``LeChocolatRules.unseen`` (what a seat has not seen) and ``LeChocolatState.knows``.
It imports only the core, the component data and the grid's geometry.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, NamedTuple

import numpy as np

from choco_envs.core.errors import ConfigError, shown
from choco_envs.core.game import Game, Rng, permute, shuffle
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
#: "If there is a chunk of 3 or fewer tiles left at the end of a player's turn, they must
#: claim all tiles in that chunk."
CLAIM_LIMIT = 3
#: the legal split actions of each rectangle when it is a chunk
SPLIT_ACTIONS = tuple(
    tuple(grid.TOP_LEFT[r] * grid.LINES + line for line in grid.CUT_LINES[r])
    for r in range(len(grid.RECTS))
)
#: per rectangle, 10 bytes: 1 for each line that cuts it
SPLIT_LINE_BYTES = tuple(
    bytes(int(line in grid.CUT_LINES[r]) for line in range(grid.LINES))
    for r in range(len(grid.RECTS))
)


def _small_pieces(rect: int) -> tuple[int, ...]:
    """The claimable rectangles (3 or fewer tiles) that ``rect`` is or that one cut of it
    makes, increasing."""
    pieces = {rect} if grid.SIZE[rect] <= CLAIM_LIMIT else set()
    for line in grid.CUT_LINES[rect]:
        parts = grid.CUT[rect][line]
        assert parts is not None
        pieces.update(p for p in parts if grid.SIZE[p] <= CLAIM_LIMIT)
    return tuple(sorted(pieces))


#: per rectangle, what a player could claim from that chunk on their coming turn
SMALL_PIECES = tuple(_small_pieces(r) for r in range(len(grid.RECTS)))


def split_action(cell: int, line: int) -> int:
    """The action that cuts the chunk whose top-left tile is ``cell`` along ``line``."""
    return cell * grid.LINES + line


def claim_action(cell: int) -> int:
    """The action that claims the chunk whose top-left tile is ``cell``."""
    return NUM_SPLIT_ACTIONS + cell


def decode_action(action: int) -> tuple[int, int, int]:
    """(phase the action belongs to, top-left cell, cut line or -1): ``(SPLIT, cell,
    line)`` or ``(CLAIM, cell, -1)``, for an action in 0..NUM_ACTIONS-1."""
    if action < NUM_SPLIT_ACTIONS:
        cell, line = divmod(action, grid.LINES)
        return SPLIT, cell, line
    return CLAIM, action - NUM_SPLIT_ACTIONS, -1


class HandScore(NamedTuple):
    """A hand's VP by the kinds of the scoring card; ``sum(score)`` is its total."""

    each: float
    sets: float
    majority: float


#: the names of the parts of a score, in ``score_breakdown`` and :class:`HandScore`
SCORE_PARTS = HandScore._fields


def score_hand(card: ScoringCard, mine: Sequence[float], theirs: Sequence[float]) -> HandScore:
    """VP of a hand against the opponent's, both as tiles per flavor (blank/blank already
    discarded). Final Scoring: "If a flavor doesn't have any special icons, score VP for
    each tile of that flavor" (``each``, may be negative); "If 2 or more flavors are linked
    by a chain icon, score VP for each complete set of those flavors you collect (1 of
    each)" (``sets``); "If a flavor has a majority icon, the player with the most tiles of
    that flavor scores VP ... In a tie, neither player scores" (``majority``: strictly
    more). The one scoring function: the final score and every bot's valuation use it
    (bots pass expected counts)."""
    each: float = 0
    for f, vp in card.per_tile:
        each += vp * mine[f]
    sets: float = 0
    for members, vp in card.sets:
        sets += vp * min([mine[f] for f in members])
    majority: float = 0
    for f, vp in card.majority:
        if mine[f] > theirs[f]:
            majority += vp
    return HandScore(each, sets, majority)


def score_hands(card: ScoringCard, mine: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """:func:`score_hand`'s total for many hands at once: ``mine`` and ``theirs`` are
    (N, flavors) counts (whole or expected), the result (N,) float64. The same terms as
    the scalar function (per tile, complete sets, strict majority); a test ties the two
    on every card (``tests/games/le_chocolat/test_le_chocolat_scoring.py``)."""
    mine = np.asarray(mine, dtype=np.float64)
    theirs = np.asarray(theirs, dtype=np.float64)
    total = np.zeros(mine.shape[0])
    for f, vp in card.per_tile:
        total += vp * mine[:, f]
    for members, vp in card.sets:
        total += vp * mine[:, list(members)].min(axis=1)
    for f, vp in card.majority:
        total += vp * (mine[:, f] > theirs[:, f])
    return total


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


class LeChocolatRules(Game[LeChocolatState]):
    """Le Chocolat for exactly 2 players: the rules (the encoders, records and text are
    assembled in ``choco_envs.games.le_chocolat.LeChocolatGame``)."""

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
                choices=lambda game: [None, *game.components.card_names],
                drawn=True,
            ),
            Option(
                "components",
                None,
                "tile set and scoring cards: None (the authored set), a dict or a JSON path",
                check=check_components_option,
                rule=False,
                json_file=True,
            ),
        ),
    )

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.components: Components = load_components(self.config["components"])
        self.fixed_card: int | None = self._resolve_card(self.config["scoring_card"])
        self.num_actions = NUM_ACTIONS
        self.max_steps = MAX_STEPS

    def _resolve_card(self, choice: Any) -> int | None:
        names = self.components.card_names
        if choice is None:
            return None
        if isinstance(choice, str):
            if choice not in names:
                raise ConfigError(
                    f"option scoring_card={shown(choice)} is not allowed; allowed: None, "
                    f"0..{len(names) - 1}, or one of {', '.join(map(repr, names))}"
                )
            return names.index(choice)
        if not 0 <= choice < len(names):
            raise ConfigError(
                f"option scoring_card={shown(choice)} is not allowed; allowed: None, "
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
        shuffle(rng, tiles)
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
        _, cell, line = decode_action(a)
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
        _, cell, _ = decode_action(a)
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
        """Each seat's :func:`score_hand` of the tiles it claimed, by part."""
        hands = [self.hand_counts(s, 0), self.hand_counts(s, 1)]
        parts = [score_hand(self.card(s), hands[p], hands[1 - p]) for p in (0, 1)]
        return {k: [float(parts[0][i]), float(parts[1][i])] for i, k in enumerate(SCORE_PARTS)}

    def scores(self, s: LeChocolatState) -> list[float]:
        parts = self.score_breakdown(s)
        return [sum(v[p] for v in parts.values()) for p in (0, 1)]

    def ranking_key(self, s: LeChocolatState, player: int) -> tuple[float, ...]:
        """Points, then tiles claimed (counted before the blank/blank discard)."""
        return (self.scores(s)[player], float(s.claimed[player]))

    # ------------------------------------------------------------------ search
    def copy(self, s: LeChocolatState) -> LeChocolatState:
        return s.copy()

    def unseen(self, s: LeChocolatState, player: int) -> tuple[list[int], list[int]]:
        """What ``player`` has not seen: the cells whose tile it does not know (a blank
        face up, on the table or in the opponent's hand), and the flavors (-1 for
        blank/blank) of every tile it has not seen: those cells' tiles, then the boxed
        tile's when it shows a blank face. A blank face fits any of them."""
        if s.phase == OVER:
            cells = []
        else:  # not s.knows(c, player), cell by cell, in one pass (a test ties the two)
            up, owner = s.up, s.owner
            cells = [c for c in range(grid.CELLS) if not up[c] and owner[c] != player]
        pool = [s.flavor[c] for c in cells]
        if not s.box_up:
            pool.append(s.box_flavor)
        return cells, pool

    def determinize(self, s: LeChocolatState, player: int, rng: Rng) -> LeChocolatState:
        """Resample every tile ``player`` has not seen (blank side up on the table, in the
        opponent's hand, or in the box): any tile of the rest of the set fits a blank face,
        and every arrangement of them is equally likely. The pool is sorted before the
        shuffle, so the sample depends only on public knowledge and the rng. The shuffle is
        ``core.game.permute``: uniform like the rules' ``shuffle``, with fewer draws (only
        the distribution counts here, not the rules' random stream)."""
        d = s.copy()
        cells, pool = self.unseen(s, player)
        # sort first: the sample then depends only on what the seat has seen and the rng,
        # never on the true arrangement (tests/bots/test_bots_hidden_info.py)
        pool.sort()
        permute(rng, pool)
        flavor = d.flavor
        for c, f in zip(cells, pool, strict=False):
            flavor[c] = f
        if not s.box_up:
            d.box_flavor = pool[-1]
        return d

    # ------------------------------------------------------------------ names
    def action_to_string(self, s: LeChocolatState, action: int) -> str:
        """``split chunk a1 (35 tiles: 5 row(s) x 7 col(s)) on the vertical line between
        columns c and d`` / ``claim chunk g3 (3 tiles: 3 row(s) x 1 col(s))``."""
        a = int(action)
        if not 0 <= a < NUM_ACTIONS:
            return f"no action {a}"
        kind, cell, line = decode_action(a)
        rect = s.chunk_at[cell]
        what = f"{grid.cell_name(cell)}"
        if rect >= 0:
            _, _, h, w = grid.RECTS[rect]
            what += f" ({h * w} tile{'s' if h * w > 1 else ''}: {h} row(s) x {w} col(s))"
        if kind == SPLIT:
            return f"split chunk {what} on the {grid.line_name(line)}"
        return f"claim chunk {what}"
