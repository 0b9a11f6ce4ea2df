"""Le Chocolat observation encoders and action codec.

Actions (385 in all; cells are ``row * 7 + col``, named ``a1``..``g5``, see ``grid``):

| ids | meaning |
|---|---|
| 0..349 | split: ``cell * 10 + line``; the chunk whose top-left tile is ``cell``, cut along ``line`` (0..5: vertical line between columns ``line`` and ``line+1``; 6..9: horizontal line between rows ``line-6`` and ``line-5``). Legal only when such a chunk exists and the line passes through it. |
| 350..384 | claim: ``350 + cell``; claim the chunk whose top-left tile is ``cell`` (3 or fewer tiles). |

Both encoders show the same facts, relative to the observer (own first): the grid as planes
(what the observer knows of every tile, the chunks, who claimed what) and the scalars (the
scoring card, hands, unseen tiles). ``"flat"`` is one vector (grid planes, cell-major
inside each, then the scalars); ``"planes"`` is (channels, 5, 7) with every scalar as a
constant plane.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Sequence
from operator import mul, sub

import numpy as np

from choco_envs.core.encoding import ActionPlanes, Encoder, Layout
from choco_envs.games.le_chocolat import grid
from choco_envs.games.le_chocolat.components import MAX_EACH_VP, MAX_MAJORITY_VP, MAX_SET_VP
from choco_envs.games.le_chocolat.rules import (
    CLAIM,
    CLAIM_LIMIT,
    NUM_ACTIONS,
    OVER,
    LeChocolatRules,
    LeChocolatState,
    decode_action,
)

N = grid.CELLS


def grid_channels(flavors: tuple[str, ...]) -> list[tuple[str, str, float, float]]:
    """(name, meaning, low, high) of every grid plane."""
    rows = [
        (f"flavor_{f}", f"1 where the observer knows the tile is {f}", 0.0, 1.0) for f in flavors
    ]
    return rows + [
        ("blank_blank", "1 where the observer knows the tile is blank on both sides", 0.0, 1.0),
        (
            "blank_unknown",
            "1 where a blank side is up and the observer does not know the back",
            0.0,
            1.0,
        ),
        ("chunk_size", "tiles in the chunk holding the cell / 35 (0 once claimed)", 0.0, 1.0),
        (
            "chunk_top_left",
            "1 at the top-left tile of each chunk (the cell actions name)",
            0.0,
            1.0,
        ),
        ("claimable", "1 on chunks of 3 or fewer tiles", 0.0, 1.0),
        ("claimed_by_me", "1 where the observer claimed the tile", 0.0, 1.0),
        ("claimed_by_opponent", "1 where the opponent claimed the tile", 0.0, 1.0),
    ]


def scalar_fields(flavors: tuple[str, ...]) -> list[tuple[str, int, str, float, float]]:
    """(name, size, meaning, low, high) of every scalar part."""
    n = len(flavors)
    sets = max(1, n // 2)
    return [
        ("phase", 2, "one-hot: the acting seat must split / must claim (zeros when over)", 0, 1),
        ("card_each", n, f"VP per tile of each flavor / {MAX_EACH_VP}", -1, 1),
        ("card_set_vp", n, f"VP per complete set the flavor belongs to / {MAX_SET_VP}", 0, 1),
        ("card_set_id", n * sets, f"flavor x set: 1 if the flavor is in set k (k < {sets})", 0, 1),
        ("card_majority", n, f"VP for the majority of each flavor / {MAX_MAJORITY_VP}", 0, 1),
        ("own_flavors", n, "own claimed tiles per flavor (backs known) / tiles of it", 0, 1),
        ("own_blank_blank", 1, "own claimed blank/blank tiles / blank/blank tiles", 0, 1),
        ("own_claimed", 1, "own claimed tiles / 35", 0, 1),
        ("opp_flavors", n, "opponent's claimed tiles known per flavor / tiles of it", 0, 1),
        ("opp_claimed", 1, "opponent's claimed tiles / 35", 0, 1),
        (
            "opp_unknown",
            1,
            "opponent's claimed tiles whose back the observer has not seen / 35",
            0,
            1,
        ),
        ("unseen_flavors", n, "tiles of each flavor the observer has not seen / tiles of it", 0, 1),
        (
            "unseen_blank_blank",
            1,
            "blank/blank tiles the observer cannot place / blank/blank",
            0,
            1,
        ),
        ("box_face", n + 1, "one-hot: the face up of the boxed tile (flavors, then blank)", 0, 1),
        ("tiles_left", 1, "tiles on the table / 35", 0, 1),
    ]


def card_vectors(game: LeChocolatRules) -> list[np.ndarray]:
    """The card fields (card_each .. card_majority) of every scoring card, precomputed."""
    n = len(game.components.flavors)
    sets = max(1, n // 2)
    out = []
    for card in game.components.cards:
        each = np.array(card.each, dtype=np.float32) / MAX_EACH_VP
        set_vp = np.zeros(n, dtype=np.float32)
        set_id = np.zeros((n, sets), dtype=np.float32)
        majority = np.zeros(n, dtype=np.float32)
        for k, (members, vp) in enumerate(card.sets):
            for f in members:
                set_vp[f] = vp / MAX_SET_VP
                set_id[f, k] = 1.0
        for f, vp in card.majority:
            majority[f] = vp / MAX_MAJORITY_VP
        out.append(np.concatenate([each, set_vp, set_id.ravel(), majority]))
    return out


@functools.cache
def _chunk_stamps() -> tuple[int, ...]:
    """Per rectangle, what it writes as a chunk into the three consecutive planes
    chunk_size (its size, a count, on its cells), chunk_top_left and claimable, as one
    integer of 3 * 35 little-endian bytes: chunks never overlap, so the planes of the
    chunks on the table are the sum of their stamps (no byte carries into the next)."""
    stamps = []
    for r, cells in enumerate(grid.RECT_CELLS):
        planes = bytearray(3 * N)
        for cell in cells:
            planes[cell] = grid.SIZE[r]
            planes[2 * N + cell] = grid.SIZE[r] <= CLAIM_LIMIT
        planes[N + grid.TOP_LEFT[r]] = 1
        stamps.append(int.from_bytes(planes, "little"))
    return tuple(stamps)


class ObservationWriter:
    """Writes the flat observation; the planes encoder reshapes the same numbers."""

    def __init__(self, game: LeChocolatRules) -> None:
        self.flavors = game.components.flavors
        self.n = len(self.flavors)
        self.totals = list(game.components.flavor_counts)
        self.inverse_totals = [1.0 / max(1, k) for k in self.totals]
        self.blanks = game.components.blank_blank
        self.channels = grid_channels(self.flavors)
        self.grid_size = len(self.channels) * N
        self.scalars = scalar_fields(self.flavors)
        self.scalar_size = sum(f[1] for f in self.scalars)
        self.size = self.grid_size + self.scalar_size
        self.cards = card_vectors(game)
        self.card_size = len(self.cards[0])
        n = self.n
        self.ch_blank_blank, self.ch_blank_unknown = n * N, (n + 1) * N
        self.ch_size, self.ch_top_left, self.ch_claimable = (n + 2) * N, (n + 3) * N, (n + 4) * N
        self.ch_mine, self.ch_theirs = (n + 5) * N, (n + 6) * N
        self.chunk_stamps = _chunk_stamps()
        if (self.ch_top_left, self.ch_claimable) != (self.ch_size + N, self.ch_size + 2 * N):
            raise AssertionError("grid planes: chunk_size, chunk_top_left, claimable in a row")
        # the scalars' first parts as Python floats: the phase one-hot by phase (zeros
        # once over) and the card fields by card
        self.phase_rows = ([1.0, 0.0], [0.0, 1.0], [0.0, 0.0])  # SPLIT, CLAIM, OVER
        self.card_lists = [card.tolist() for card in self.cards]
        # tables of the batch form (``fill_flat_batch``)
        self.row = struct.Struct(f"{4 * N + 7}h")
        # each rectangle's cells, one after another, and what a chunk shows on them (its
        # size, whether it may be claimed; the last entry: no chunk), for the batch form
        # of ``chunk_planes``
        self.rect_cells = np.concatenate([np.array(cells) for cells in grid.RECT_CELLS])
        self.rect_len = np.array([len(cells) for cells in grid.RECT_CELLS])
        self.rect_start = np.cumsum(self.rect_len) - self.rect_len
        self.cover_size = np.array([*grid.SIZE, 0], dtype=np.float32) / N
        self.cover_claimable = np.array([size <= CLAIM_LIMIT for size in grid.SIZE] + [False])
        self.codes = np.arange(n + 2)[:, None]
        self.inverse_totals_array = np.array(self.inverse_totals)
        self.totals_array = np.array(self.totals)
        self.card_matrix = np.stack(self.cards)
        self.phase_matrix = np.array(self.phase_rows)

    def fill_flat(self, s: LeChocolatState, p: int, out: np.ndarray) -> None:
        """Grid planes into a bytearray (chunk sizes as counts), then the scalars."""
        n, over = self.n, s.phase == OVER
        planes = bytearray(self.grid_size)
        own, opp, seen = [0] * n, [0] * n, [0] * n
        own_bb = seen_bb = opp_unknown = 0
        flavor, up, owner = s.flavor, s.up, s.owner
        mine, theirs = self.ch_mine, self.ch_theirs
        for c in range(N):
            f, ow = flavor[c], owner[c]
            if up[c] or over or ow == p:  # s.knows(c, p), inlined for speed
                if f >= 0:
                    planes[f * N + c] = 1
                    seen[f] += 1
                else:
                    planes[self.ch_blank_blank + c] = 1
                    seen_bb += 1
                if ow == p:
                    planes[mine + c] = 1
                    if f >= 0:
                        own[f] += 1
                    else:
                        own_bb += 1
                elif ow >= 0:
                    planes[theirs + c] = 1
                    if f >= 0:
                        opp[f] += 1
            else:
                planes[self.ch_blank_unknown + c] = 1
                if ow >= 0:
                    planes[theirs + c] = 1
                    opp_unknown += 1
        size_at = self.ch_size
        planes[size_at : size_at + 3 * N] = self.chunk_planes(s)
        out[: self.grid_size] = np.frombuffer(planes, dtype=np.uint8)
        out[size_at : size_at + N] *= 1.0 / N
        if s.box_up:
            seen[s.box_flavor] += 1
        self._fill_scalars(s, p, out, own, opp, seen, own_bb, seen_bb, opp_unknown)

    def chunk_planes(self, s: LeChocolatState) -> bytes:
        """The planes chunk_size (as counts), chunk_top_left and claimable of ``s``, one
        byte a cell: the sum of the stamps of the chunks on the table."""
        stamps = self.chunk_stamps
        return sum([stamps[r] for r in s.chunk_at if r >= 0]).to_bytes(3 * N, "little")

    def _fill_scalars(
        self,
        s: LeChocolatState,
        p: int,
        out: np.ndarray,
        own: list[int],
        opp: list[int],
        seen: list[int],
        own_bb: int,
        seen_bb: int,
        opp_unknown: int,
    ) -> None:
        n, inv = self.n, self.inverse_totals
        inv_blanks = 1.0 / max(1, self.blanks)
        box = [0.0] * (n + 1)
        box[s.box_flavor if s.box_up else n] = 1.0
        out[self.grid_size :] = [
            *self.phase_rows[s.phase],
            *self.card_lists[s.card],
            *map(mul, own, inv),
            own_bb * inv_blanks,
            s.claimed[p] / N,
            *map(mul, opp, inv),
            s.claimed[1 - p] / N,
            opp_unknown / N,
            *map(mul, map(sub, self.totals, seen), inv),
            (self.blanks - seen_bb) * inv_blanks,
            *box,
            s.tiles_left / N,
        ]

    def fill_flat_batch(
        self, states: Sequence[LeChocolatState], players: Sequence[int], out: np.ndarray
    ) -> None:
        """``fill_flat`` for many states at once into (B, size) ``out``, every entry."""
        self.fill_batch(states, players, out[:, : self.grid_size], out[:, self.grid_size :])

    def fill_batch(
        self,
        states: Sequence[LeChocolatState],
        players: Sequence[int],
        grid_out: np.ndarray,
        scalars_out: np.ndarray,
    ) -> None:
        """The flat observations of many states at once into two views, the grid planes
        (B, grid_size) and the scalars (B, size - grid_size), every entry written (the
        encoders need no zeroed array: ``batch_writes_all``): each state's fields as
        bytes, then numpy (the same counts, the same float math)."""
        count, n = len(states), self.n
        pack = self.row.pack
        rows = [
            pack(*s.flavor, *s.up, *s.owner, *s.chunk_at, s.box_flavor, s.box_up, s.card,
                 s.phase, *s.claimed, s.tiles_left)
            for s in states
        ]  # fmt: skip
        # int16 as packed (no wider copy: fewer temporaries, which keeps the allocator
        # from handing memory back and faulting it in again on the next batch)
        ints = np.frombuffer(b"".join(rows), dtype=np.int16).reshape(count, -1)
        flavor, up, owner, chunk_at = (ints[:, k * N : (k + 1) * N] for k in range(4))
        box_flavor, box_up, card, phase, claimed0, claimed1, tiles_left = ints[:, 4 * N :].T
        p = np.asarray(players, dtype=np.intp)[:, None]
        mine = owner == p
        knows = (up != 0) | (phase == OVER)[:, None] | mine
        # what the observer knows of each tile: its flavor, n (blank/blank) or n + 1 (a
        # blank face up, back unknown): the first n + 2 planes are its one-hot
        code = np.where(knows, np.where(flavor < 0, n, flavor), n + 1)  # (B, N)
        planes = grid_out.reshape(count, -1, N)
        planes[:, : n + 2] = code[:, None, :] == self.codes
        # chunk_size, chunk_top_left, claimable (``chunk_planes``): each chunk's top-left
        # cell is where ``chunk_at`` names it; its size and whether it may be claimed go
        # on every cell it covers (chunks never overlap: one chunk at most a cell)
        at_state, at_cell = np.nonzero(chunk_at >= 0)
        rect = chunk_at[at_state, at_cell]
        length = self.rect_len[rect]
        first = np.cumsum(length) - length  # where each chunk's cells start in the list
        within = np.arange(int(length.sum())) - np.repeat(first, length)
        cells = self.rect_cells[np.repeat(self.rect_start[rect], length) + within]
        covers = np.full(count * N, len(grid.RECTS))  # by cell, the chunk covering it
        covers[np.repeat(at_state * N, length) + cells] = np.repeat(rect, length)
        cover = covers.reshape(count, N)
        planes[:, n + 2] = self.cover_size[cover]
        planes[:, n + 3] = chunk_at >= 0
        planes[:, n + 4] = self.cover_claimable[cover]
        # whose tile: 0 the observer's, 1 the opponent's, 2 on the table
        whose = np.where(mine, 0, np.where(owner >= 0, 1, 2))
        planes[:, n + 5] = whose == 0
        planes[:, n + 6] = whose == 1
        # tiles by whose and what the observer knows: (B, 3, n + 2)
        key = (np.arange(count)[:, None] * 3 + whose) * (n + 2) + code
        counts = np.bincount(key.ravel(), minlength=count * 3 * (n + 2)).reshape(count, 3, n + 2)
        known = counts.sum(axis=1)
        seen = known[:, :n] + ((box_up != 0)[:, None] & (box_flavor[:, None] == self.codes[:n, 0]))
        own, own_bb = counts[:, 0, :n], counts[:, 0, n]
        opp, opp_unknown = counts[:, 1, :n], counts[:, 1, n + 1]
        seen_bb = known[:, n]
        scalars_out[:, :2] = self.phase_matrix[phase]  # every entry written: no zeroing
        start = 2
        scalars_out[:, start : start + self.card_size] = self.card_matrix[card]
        start += self.card_size
        inv = self.inverse_totals_array
        inv_blanks = 1.0 / max(1, self.blanks)
        mine_claimed = np.where(p[:, 0] == 0, claimed0, claimed1)
        their_claimed = np.where(p[:, 0] == 0, claimed1, claimed0)
        box = np.zeros((count, n + 1))
        box[np.arange(count), np.where(box_up != 0, box_flavor, n)] = 1.0
        rest = np.concatenate(
            [
                own * inv,
                (own_bb * inv_blanks)[:, None],
                (mine_claimed / N)[:, None],
                opp * inv,
                (their_claimed / N)[:, None],
                (opp_unknown / N)[:, None],
                (self.totals_array - seen) * inv,
                ((self.blanks - seen_bb) * inv_blanks)[:, None],
                box,
                (tiles_left / N)[:, None],
            ],
            axis=1,
        )
        scalars_out[:, start:] = rest

    def flat_layout(self) -> Layout:
        layout = Layout()
        for name, meaning, low, high in self.channels:
            layout.add(name, N, f"grid plane, entry row*7+col: {meaning}", low, high)
        for name, size, meaning, low, high in self.scalars:
            layout.add(name, size, meaning, low, high)
        return layout

    def planes_layout(self) -> Layout:
        layout = Layout()
        for name, meaning, low, high in self.channels:
            layout.add(name, 1, meaning, low, high)
        for name, size, meaning, low, high in self.scalars:
            layout.add(name, size, f"constant planes: {meaning}", low, high)
        return layout


def action_planes() -> ActionPlanes:
    """Where the ``planes`` encoder puts each action on the 5x7 board (for convolutional
    policy heads): a cut is scored at a cell of the chunk it cuts, beside the cut line,
    so the same cut of the same chunk shape scores the same wherever it lies.

    * split along vertical line ``k`` (between columns ``k`` and ``k+1``) of the chunk
      whose top-left tile is at (row ``r``, column ``c``): channel 0 at (``r``, ``k``), the
      chunk's top-row tile just left of the line;
    * split along horizontal line ``6 + k`` (between rows ``k`` and ``k+1``): channel 1 at
      (``k``, ``c``), the chunk's left-column tile just above the line;
    * claim the chunk whose top-left tile is ``cell``: channel 2 at ``cell``.

    Chunks never overlap, so two legal actions never share a position.
    """
    index = []
    for action in range(NUM_ACTIONS):
        kind, cell, line = decode_action(action)
        r, c = divmod(cell, grid.WIDTH)
        if kind == CLAIM:
            index.append(2 * N + cell)
        elif line < grid.VERTICAL_LINES:
            index.append(r * grid.WIDTH + line)
        else:
            index.append(N + (line - grid.VERTICAL_LINES) * grid.WIDTH + c)
    return ActionPlanes(
        ("cut_right_of_cell", "cut_below_cell", "claim_chunk_at_cell"), tuple(index)
    )


def build_encoders(game: LeChocolatRules) -> dict[str, Encoder[LeChocolatState]]:
    """The ``"flat"`` and ``"planes"`` encoders of a game (their sizes follow its flavors)."""
    writer = ObservationWriter(game)
    channels = len(writer.channels) + writer.scalar_size

    def fill_planes(s: LeChocolatState, p: int, out: np.ndarray) -> None:
        flat = np.zeros(writer.size, dtype=np.float32)
        writer.fill_flat(s, p, flat)
        out.reshape(-1)[: writer.grid_size] = flat[: writer.grid_size]
        out[len(writer.channels) :] = flat[writer.grid_size :, None, None]

    def fill_planes_batch(
        states: Sequence[LeChocolatState], players: Sequence[int], out: np.ndarray
    ) -> None:
        count = len(states)
        scalars = np.empty((count, writer.scalar_size), dtype=np.float32)
        writer.fill_batch(states, players, out.reshape(count, -1)[:, : writer.grid_size], scalars)
        out[:, len(writer.channels) :] = scalars[:, :, None, None]

    flat = Encoder(
        "flat",
        (writer.size,),
        writer.flat_layout(),
        writer.fill_flat,
        "grid planes (35 entries each) then scalars, relative to the observer",
        fill_batch=writer.fill_flat_batch,
        batch_writes_all=True,
    )
    planes = Encoder(
        "planes",
        (channels, grid.HEIGHT, grid.WIDTH),
        writer.planes_layout(),
        fill_planes,
        "grid planes, then every scalar as a constant plane, relative to the observer",
        action_planes(),
        fill_batch=fill_planes_batch,
        batch_writes_all=True,
    )
    return {"flat": flat, "planes": planes}
