"""Chocolates encoders: ``"flat"`` (one vector) and ``"planes"`` (C, 4, 4), both game
information only: what every seat sees on the table.

Action codec (27 actions):

| id | meaning |
|---|---|
| 0, 1 | take display slot 0 with the true / false side face up |
| 2, 3 | take display slot 1, true / false |
| 4, 5 | take display slot 2, true / false |
| 6..21 | reveal grid cell ``id - 6`` (row-major, row 0 next to the display, column 0 left) |
| 22..26 | reveal chocolate ``id - 22`` of the five next to the grid |

Every value is normalised into [0, 1]. Seats are relative: index 0 is the observing seat,
then the others in seat order after it. Only face-up chocolates are shown (the face-down
ones and the pile order are unknown to everyone).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from itertools import chain, compress
from operator import attrgetter, mul

import numpy as np

from choco_envs.core.encoding import Encoder, Layout
from choco_envs.games.chocolates.components import (
    GRID_CELLS,
    NOUGAT_SUPPLY,
    NUM_CARDS,
    NUM_CHOCOLATES,
    NUM_KINDS,
    NUM_SHAPES,
    NUM_TYPES,
    PREDICTION_CARDS,
)
from choco_envs.games.chocolates.rules import (
    CORNERS,
    DISPLAY_SIZE,
    LEFT,
    MAIN_DIAGONALS,
    OUTER,
    RIGHT,
    ChocolatesRules,
    ChocolatesState,
)

CELL_FEATURES = NUM_TYPES + NUM_SHAPES + 1  # type one-hot, shape one-hot, face-up flag
PILE_SIZE = NUM_CARDS - DISPLAY_SIZE
INV_SUPPLY = 1.0 / NOUGAT_SUPPLY
INV_PILE = 1.0 / PILE_SIZE
INV_GRID = 1.0 / GRID_CELLS
_FLAGS_OF, _CARDS_OF = attrgetter("revealed"), attrgetter("cards")
REGIONS = (
    ("outer", OUTER),
    ("left", LEFT),
    ("right", RIGHT),
    ("corners", CORNERS),
    ("diagonals", MAIN_DIAGONALS[0] + MAIN_DIAGONALS[1]),
)


def flat_layout(num_players: int) -> Layout:
    """The named slices of the ``flat`` observation."""
    n = num_players
    lay = Layout()
    cell = "type one-hot (dark, brown, white, green, pink, gold), shape one-hot (round, "
    cell += "triangular, hexagonal), face-up flag; all 0 while face down"
    lay.add("grid", GRID_CELLS * CELL_FEATURES, f"16 grid cells row-major x 10: {cell}")
    lay.add("beside", 5 * CELL_FEATURES, f"the 5 chocolates next to the grid x 10: {cell}")
    lay.add("display_cards", DISPLAY_SIZE * NUM_CARDS, "3 display slots x card id one-hot (29)")
    lay.add(
        "seat_cards",
        n * NUM_CARDS * 2,
        "per seat (own first) x card x (true up, false up)",
        shape=(n, NUM_CARDS * 2),
    )
    lay.add("display_points", DISPLAY_SIZE * 2, "3 slots x (true points, false points) / 10")
    lay.add("display_nougats", DISPLAY_SIZE, "nougat cubes on each display card / 24")
    lay.add("seat_card_count", n, "cards held per seat / card limit", shape=(n,))
    lay.add("seat_nougats", n, "nougat cubes per seat / 24", shape=(n,))
    lay.add("acting_seat", n, "one-hot of the seat to act (relative)", shape=(n,))
    lay.add("supply", 1, "nougat cubes left in the supply / 24")
    lay.add("pile", 1, "prediction cards left in the pile / 26")
    lay.add(
        "unseen_kinds",
        NUM_KINDS,
        "face-down chocolates by type x shape (dark round, dark triangular, ..., gold "
        "hexagonal) / that kind's total (0 if the set has none)",
    )
    lay.add("grid_hidden", 1, "face-down grid chocolates / 16")
    lay.add("took_card", 1, "1 if the seat to act took a card this turn (must reveal now)")
    lay.add("end_triggered", 1, "1 once a player reached the card limit")
    lay.add("final_turns_left", 1, "turns still to play after the current one / (players - 1)")
    return lay


class ChocolatesEncoders:
    """Precomputed index tables and the two fill functions.

    The flat layout puts every one-hot field first (``grid`` .. ``seat_cards``) and every
    other value after them (``display_points`` .. ``final_turns_left``), so that a fill is
    two numpy writes: ``put`` of the one-hot indices and one slice of values.
    """

    def __init__(self, game: ChocolatesRules) -> None:
        self.n = n = game.num_players
        self.layout = lay = flat_layout(n)
        self.size = lay.size
        grid0 = lay["grid"].start
        # hot[pos * 18 + kind] = the three indices set to 1 for a face-up chocolate
        self.hot = [
            (
                grid0 + pos * CELL_FEATURES + kind // NUM_SHAPES,
                grid0 + pos * CELL_FEATURES + NUM_TYPES + kind % NUM_SHAPES,
                grid0 + pos * CELL_FEATURES + CELL_FEATURES - 1,
            )
            for pos in range(NUM_CHOCOLATES)
            for kind in range(NUM_KINDS)
        ]
        self.positions = range(NUM_CHOCOLATES)
        display0 = lay["display_cards"].start
        self.display_starts = tuple(display0 + slot * NUM_CARDS for slot in range(DISPLAY_SIZE))
        # card_points[-1] (an empty slot) is the appended (0, 0)
        self.card_points = [(c.true_points / 10, c.false_points / 10) for c in PREDICTION_CARDS]
        self.card_points.append((0.0, 0.0))
        self.seat_cards0 = lay["seat_cards"].start
        self.values0 = lay["display_points"].start
        if lay["seat_cards"].stop != self.values0 or lay["final_turns_left"].stop != lay.size:
            raise AssertionError("flat layout: one-hot fields first, then the values")
        self.inv_limit = 1.0 / game.card_limit
        self.inv_others = 1.0 / (n - 1)
        totals = game.components.kind_totals()
        self.kind_totals = totals
        self.inv_kind = [1.0 / t if t else 0.0 for t in totals]
        # tables of the batch form (``fill_batch``)
        self.rest0 = lay["beside"].start  # planes: everything after the grid
        self.rest = self.size - self.rest0
        if grid0 != 0 or self.rest0 != GRID_CELLS * CELL_FEATURES:
            raise AssertionError("flat layout: the grid first, then the beside chocolates")
        # cell_rows[kind]: the 10 values of a face-up chocolate of that kind (its ``hot``
        # entries at position 0); the extra last row, zeros, is a face-down chocolate
        self.cell_rows = np.zeros((NUM_KINDS + 1, CELL_FEATURES), dtype=np.float32)
        for kind in range(NUM_KINDS):
            self.cell_rows[kind, list(self.hot[kind])] = 1.0
        # card_rows[card]: a display slot's one-hot; the extra last row, zeros, is card -1
        self.card_rows = np.eye(NUM_CARDS + 1, NUM_CARDS, dtype=np.float32)
        self.kind_totals_array = np.array(totals)
        self.inv_kind_array = np.array(self.inv_kind)
        self.card_points_array = np.array(self.card_points)
        self.seats_all = np.array([[(p + r) % n for r in range(n)] for p in range(n)])
        # ``fill_batch``'s packed fields: layout, display and its nougats, each seat's
        # nougats and card count, six numbers
        self.row = struct.Struct(f"{NUM_CHOCOLATES + 2 * DISPLAY_SIZE + 2 * n + 6}b")
        self.feature_planes = -(-self.rest // GRID_CELLS)
        self.regions = np.zeros((len(REGIONS), 4, 4), dtype=np.float32)
        for i, (_, cells) in enumerate(REGIONS):
            for c in cells:
                self.regions[i, c // 4, c % 4] = 1.0

    # ------------------------------------------------------------------ flat
    def fill_flat(self, s: ChocolatesState, player: int, out: np.ndarray) -> None:
        """Write the ``flat`` observation of ``player`` into the zeroed ``out``."""
        ones: list[int] = []
        unseen = self.kind_totals[:]
        hot, layout = self.hot, s.layout
        for pos in compress(self.positions, s.revealed):
            kind = layout[pos]
            ones += hot[pos * NUM_KINDS + kind]
            unseen[kind] -= 1
        d0, d1, d2 = s.display
        for slot_start, card in zip(self.display_starts, s.display, strict=True):
            if card >= 0:
                ones.append(slot_start + card)
        n = self.n
        seats = [(player + rel) % n for rel in range(n)] if player else range(n)
        base = self.seat_cards0
        for seat in seats:
            ones += [base + code for code in s.cards[seat]]
            base += 2 * NUM_CARDS
        acting = [0.0] * n
        if s.current >= 0:
            acting[(s.current - player) % n] = 1.0
        points = self.card_points
        triggered = s.final_turns >= 0
        n0, n1, n2 = s.display_nougats
        values = [
            *points[d0],
            *points[d1],
            *points[d2],
            n0 * INV_SUPPLY,
            n1 * INV_SUPPLY,
            n2 * INV_SUPPLY,
            *[len(s.cards[p]) * self.inv_limit for p in seats],
            *[s.nougats[p] * INV_SUPPLY for p in seats],
            *acting,
            s.supply * INV_SUPPLY,
            len(s.pile) * INV_PILE,
            *map(mul, unseen, self.inv_kind),
            s.grid_hidden * INV_GRID,
            float(s.took_card),
            float(triggered),
            s.final_turns * self.inv_others if triggered else 0.0,
        ]
        out.put(ones, 1.0)
        out[self.values0 :] = values

    # ------------------------------------------------------------------ many at once
    def fill_flat_batch(
        self, states: Sequence[ChocolatesState], players: Sequence[int], out: np.ndarray
    ) -> None:
        """``fill_flat`` for many states at once into the zeroed (B, size) ``out``."""
        grid = out[:, : self.rest0].reshape(len(states), GRID_CELLS, CELL_FEATURES)
        self.fill_batch(states, players, grid, out[:, self.rest0 :])

    def fill_planes_batch(
        self, states: Sequence[ChocolatesState], players: Sequence[int], out: np.ndarray
    ) -> None:
        """``fill_planes`` for many states at once: the flat fields written straight into
        their planes (the grid's through a transposed view)."""
        count = len(states)
        rows = out.reshape(count, -1)
        grid = rows[:, : CELL_FEATURES * GRID_CELLS].reshape(count, CELL_FEATURES, GRID_CELLS)
        out[:, CELL_FEATURES : CELL_FEATURES + len(REGIONS)] = self.regions
        first = (CELL_FEATURES + len(REGIONS)) * GRID_CELLS
        rest = rows[:, first : first + self.rest]
        self.fill_batch(states, players, grid.transpose(0, 2, 1), rest)

    def fill_batch(
        self,
        states: Sequence[ChocolatesState],
        players: Sequence[int],
        grid: np.ndarray,
        rest: np.ndarray,
    ) -> None:
        """The ``flat`` observations of many states at once, into two zeroed views: the
        16 grid cells into ``grid`` (B, 16, 10), every field from ``beside`` on into
        ``rest`` (B, size - 160). As bytes, then numpy: every state's face-up flags (a
        bytearray each, joined), each state's other fields packed (with how many cards
        each seat holds), and every held card in one run (state by state, seat by seat)."""
        n, count = self.n, len(states)
        pack = self.row.pack
        rows = [
            pack(*s.layout, *s.display, *s.display_nougats, *s.nougats, *map(len, s.cards),
                 s.current, s.supply, len(s.pile), s.grid_hidden, s.took_card, s.final_turns)
            for s in states
        ]  # fmt: skip
        ints = np.frombuffer(b"".join(rows), dtype=np.int8)
        ints = ints.reshape(count, -1).astype(np.intp)
        flags = b"".join(map(_FLAGS_OF, states))
        revealed = np.frombuffer(flags, dtype=np.bool_).reshape(count, NUM_CHOCOLATES)
        codes = bytes(chain.from_iterable(chain.from_iterable(map(_CARDS_OF, states))))
        who = np.asarray(players, dtype=np.intp)
        at = 0

        def take(k: int) -> np.ndarray:
            nonlocal at
            at += k
            return ints[:, at - k : at]

        kinds, display = take(NUM_CHOCOLATES), take(DISPLAY_SIZE)
        display_nougats, nougats, counts = take(DISPLAY_SIZE), take(n), take(n)  # by seat
        current, supply, pile, grid_hidden, took, final_turns = take(6).T
        r0 = self.rest0  # ``rest`` starts at this flat index
        # face-up chocolates: type, shape and face-up flag (face down: the zero row);
        # table rows by ``take`` (a gather of whole rows, faster than fancy indexing)
        shown = np.where(revealed, kinds, NUM_KINDS)  # (B, 21)
        cells = self.cell_rows.take(shown, axis=0)  # (B, 21, 10)
        grid[:] = cells[:, :GRID_CELLS]
        beside = cells[:, GRID_CELLS:].reshape(count, -1)  # ``rest`` starts with them
        rest[:, : beside.shape[1]] = beside
        seen = np.bincount(
            (np.arange(count)[:, None] * (NUM_KINDS + 1) + shown).ravel(),
            minlength=count * (NUM_KINDS + 1),
        )
        unseen = self.kind_totals_array - seen.reshape(count, NUM_KINDS + 1)[:, :NUM_KINDS]
        d0 = self.display_starts[0] - r0
        rest[:, d0 : d0 + DISPLAY_SIZE * NUM_CARDS] = self.card_rows.take(display, axis=0).reshape(
            count, -1
        )
        seats = self.seats_all.take(who, axis=0)  # (B, n): absolute seat of each relative one
        # every held card: its state and absolute seat, then the seat relative to the viewer
        owner = np.repeat(np.arange(count * n), counts.ravel())
        row, seat = np.divmod(owner, n)
        relative = (seat - who[row]) % n
        card_at = self.seat_cards0 - r0 + 2 * NUM_CARDS * relative
        rest[row, card_at + np.frombuffer(codes, dtype=np.uint8)] = 1.0
        v = self.values0 - r0
        rest[:, v : v + 2 * DISPLAY_SIZE] = self.card_points_array.take(display, axis=0).reshape(
            count, -1
        )
        v += 2 * DISPLAY_SIZE
        rest[:, v : v + DISPLAY_SIZE] = display_nougats * INV_SUPPLY
        v += DISPLAY_SIZE
        rest[:, v : v + n] = np.take_along_axis(counts, seats, axis=1) * self.inv_limit
        rest[:, v + n : v + 2 * n] = np.take_along_axis(nougats, seats, axis=1) * INV_SUPPLY
        v += 2 * n
        active = np.flatnonzero(current >= 0)
        rest[active, v + (current[active] - who[active]) % n] = 1.0
        v += n
        rest[:, v] = supply * INV_SUPPLY
        rest[:, v + 1] = pile * INV_PILE
        v += 2
        rest[:, v : v + NUM_KINDS] = unseen * self.inv_kind_array
        v += NUM_KINDS
        triggered = final_turns >= 0
        rest[:, v] = grid_hidden * INV_GRID
        rest[:, v + 1] = took
        rest[:, v + 2] = triggered
        rest[:, v + 3] = np.where(triggered, final_turns * self.inv_others, 0.0)

    # ------------------------------------------------------------------ planes
    def planes_layout(self) -> Layout:
        lay = Layout()
        lay.add("grid_type", NUM_TYPES, "type one-hot of face-up grid chocolates")
        lay.add("grid_shape", NUM_SHAPES, "shape one-hot of face-up grid chocolates")
        lay.add("grid_face_up", 1, "1 where the grid chocolate is face up")
        names = ", ".join(name for name, _ in REGIONS)
        lay.add("regions", len(REGIONS), f"constant masks of the card areas: {names}")
        lay.add(
            "features",
            self.feature_planes,
            f"the flat fields from `beside` on ({self.rest} values), 16 per plane row-major, "
            "zero padded",
        )
        return lay

    def fill_planes(self, s: ChocolatesState, player: int, out: np.ndarray) -> None:
        """Write the ``planes`` observation of ``player`` into the zeroed ``out``."""
        flat = np.zeros(self.size, dtype=np.float32)
        self.fill_flat(s, player, flat)
        grid = flat[: self.rest0].reshape(GRID_CELLS, CELL_FEATURES).T.reshape(-1, 4, 4)
        out[:CELL_FEATURES] = grid
        out[CELL_FEATURES : CELL_FEATURES + len(REGIONS)] = self.regions
        first = (CELL_FEATURES + len(REGIONS)) * GRID_CELLS
        out.reshape(-1)[first : first + self.rest] = flat[self.rest0 :]


def build_encoders(game: ChocolatesRules) -> dict[str, Encoder[ChocolatesState]]:
    """The ``flat`` and ``planes`` encoders for one configuration of ``game``."""
    enc = ChocolatesEncoders(game)
    planes = enc.planes_layout()
    return {
        "flat": Encoder(
            "flat",
            (enc.size,),
            enc.layout,
            enc.fill_flat,
            "face-up chocolates, display, every seat's cards and nougats, public counts",
            fill_batch=enc.fill_flat_batch,
        ),
        "planes": Encoder(
            "planes",
            (planes.size, 4, 4),
            planes,
            enc.fill_planes,
            "grid one-hots and region masks as 4x4 planes, the other features packed",
            fill_batch=enc.fill_planes_batch,
        ),
    }
