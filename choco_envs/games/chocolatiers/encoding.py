"""Observation encoders and the action table of Chocolatiers.

Observations are game information only: what the observing seat may see. Everything is
relative to the observer: seat blocks run own seat first, then the others in turn order.
An opponent's hand is what the table knows: the cards seen taken from the face-up tray,
less those seen paid or discarded, plus how many dealt cards are still unseen (the rulings in docs/games/chocolatiers.md:
only the 3 dealt cards are private). Each Sampler is shown anchored to the top-left
corner of a 6x6 space grid, the frame the placement actions are relative to.

Action table (137 actions):

| ids | meaning |
|---|---|
| 0..5 | take a card of type t from the tray (a take action, or one of an exchange's 2 takes) |
| 6..11 | exchange: give a card of type t (standard: discard it; classic: lay it on the tray), then take 2 |
| 12..16 | box the tile at line position / stack i (then pay, then place) |
| 17 | box the reserved tile (standard) |
| 18..22 | reserve the tile at line position i (standard) |
| 23..58 | place a wild chocolate on Sampler space (row, col) = divmod(id-23, 6) of the anchored 6x6 grid |
| 59 | pay the current chocolate with 1 matching card |
| 60..65 | pay the current chocolate with 2 cards of type t |
| 66..129 | place the tile being boxed: position p = (id-66)//4 at tile (row, col) = (p//4 - 1, p%4 - 1) relative to the Sampler's top-left tile (the first tile: (0, 0)), rotation (id-66)%4 quarter turns clockwise |
| 130..135 | discard a card of type t (hand limit of 6 at the end of the turn) |
| 136 | pass (only when nothing else is legal); classic bonus phase: skip it |

Types t: 0 truffle, 1 nut cluster, 2 raspberry, 3 mint, 4 blueberry, 5 violet.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from itertools import starmap
from typing import TYPE_CHECKING

import numpy as np

from choco_envs.core.encoding import Encoder, Layout
from choco_envs.games.chocolatiers.components import TYPES
from choco_envs.games.chocolatiers.rules import (
    CLASSIC_STACK_SIZE,
    EMPTY,
    LINE_SIZE,
    MAX_TILES,
    ROUND_CAP,
    WILD,
    WILDS_EACH,
    ChocolatiersState,
    current_chocolate,
)

if TYPE_CHECKING:
    from choco_envs.games.chocolatiers.rules import ChocolatiersRules

NT = len(TYPES)
TILE_FEATURES = 36  # present, points/8, cost/4 by type, 4 spaces x (6 types + empty)
#: where each part of a tile row sits (one row of ``tile_matrix``, of the ``tiles`` field)
TILE_PRESENT, TILE_POINTS, TILE_COST, TILE_SPACES = 0, 1, 2, 2 + NT
COST_SCALE = 4.0  # a tile's cost of one type, / this
SAMPLER_PLANES = 8  # 6 types, wild, occupied (a tile is there)
PHASES = 5
HAND_SCALE = 8.0  # the most a hand holds: 6 + 2 cards gained in a standard turn
#: the per-seat raw scalars read one to a seat (``raw_sections``), in a seat's block
SEAT_SCALARS = ("unknown", "sizes", "wilds", "ntiles", "points", "n34", "first_flags")
#: the raw scalars ``batch_rows`` works out in numpy rather than packs (``raw_sections``)
DERIVED = ("sizes", "first_flags", "totals", "deck_known", "phase_flags", "paying_flags",
           "first_any")  # fmt: skip


def raw_sections(n: int, stacks: int) -> list[tuple[str, int]]:
    """The sections of ``raw_scalars`` in order, by name and size, for ``n`` seats and
    ``stacks`` stacks: per seat (seat-major) the hand, the known cards, the unseen dealt
    cards, the hand size, wilds, tiles, tile points, 3-or-4 tiles, the First flag, the
    largest groups and the total; then the table."""
    return [
        ("hand", NT * n), ("known", NT * n), ("unknown", n), ("sizes", n), ("wilds", n),
        ("ntiles", n), ("points", n), ("n34", n), ("first_flags", n), ("groups", NT * n),
        ("totals", n), ("tray", NT), ("deck", 1), ("discard", NT), ("reshuffled", 1),
        ("deck_known", NT), ("stacks", stacks), ("phase_flags", PHASES), ("actions_left", 1),
        ("takes_left", 1), ("to_pay", NT), ("paying_flags", NT), ("round", 1), ("first_any", 1),
    ]  # fmt: skip


def count_sections(n: int, stacks: int) -> list[tuple[str, int]]:
    """A state's counts in the order ``batch_rows`` packs them, by name and size (the
    deck's size, rounds completed as ``turn // n``, the First holder + 1: all >= 0)."""
    return [
        ("hand", NT * n), ("known", NT * n), ("unknown", n), ("wilds", n), ("ntiles", n),
        ("points", n), ("n34", n), ("groups", NT * n), ("tray", NT), ("discard", NT),
        ("to_pay", NT), ("deck", 1), ("reshuffled", 1), ("phase", 1), ("actions_left", 1),
        ("takes_left", 1), ("round", 1), ("first", 1), ("stacks", stacks),
    ]  # fmt: skip


def _slices(sections: Sequence[tuple[str, int]]) -> dict[str, slice]:
    """Where each of ``sections`` (name, size), laid end to end, lies."""
    at, start = {}, 0
    for name, size in sections:
        at[name] = slice(start, start + size)
        start += size
    return at


def tile_rows(game: ChocolatiersRules) -> int:
    """Rows of the ``tiles`` field: the line (or stack tops), the tile being boxed, and in
    the standard edition each seat's reserved tile."""
    return LINE_SIZE + 1 + (0 if game.classic else game.num_players)


def tile_matrix(game: ChocolatiersRules) -> np.ndarray:
    """One feature row per tile, plus a last row of zeros for "no tile" (index -1)."""
    tiles = game.components.tiles
    out = np.zeros((len(tiles) + 1, TILE_FEATURES), dtype=np.float32)
    for i, tile in enumerate(tiles):
        out[i, TILE_PRESENT] = 1.0
        out[i, TILE_POINTS] = tile.points / 8.0
        out[i, TILE_COST : TILE_COST + NT] = np.asarray(tile.cost, dtype=np.float32) / COST_SCALE
        for k, v in enumerate(tile.spaces):
            out[i, TILE_SPACES + (NT + 1) * k + (v if v >= 0 else NT)] = 1.0
    return out


def cell_table() -> np.ndarray:
    """Sampler planes of one cell, indexed by cell value + 2 (-2 no tile .. 6 wild)."""
    table = np.zeros((9, SAMPLER_PLANES), dtype=np.float32)
    for v in range(-1, 7):
        row = table[v + 2]
        row[7] = 1.0  # occupied
        if 0 <= v < NT:
            row[v] = 1.0
        elif v == NT:
            row[6] = 1.0
    return table


class ChocolatiersObserver:
    """Builds the parts of an observation; the two encoders arrange them."""

    def __init__(self, game: ChocolatiersRules) -> None:
        self.game = game
        self.n = game.num_players
        self.standard = not game.classic
        self.tiles = tile_matrix(game)
        self.cells = cell_table()
        comp = game.components
        self.per_type = float(max(comp.card_counts))
        self.cards = float(sum(comp.card_counts))
        stack_max = len(comp.tiles) - LINE_SIZE if self.standard else CLASSIC_STACK_SIZE[self.n] - 1
        self.stack_max = float(stack_max)
        self.points_max = 8.0 * MAX_TILES
        self.score_max = self.points_max + sum(v for _, v in comp.score_tiles) + WILDS_EACH
        self.layout = self._scalar_layout()
        self.num_scalars = self.layout.size
        self.scale = self._scalar_scale()
        assert len(self.scale) == self.num_scalars
        self.num_stacks = 1 if self.standard else LINE_SIZE
        n = self.n
        #: where each section of ``raw_scalars`` lies in it
        self.raw_at = _slices(raw_sections(n, self.num_stacks))
        self.raw_size = self.raw_at["first_any"].stop
        assert self.raw_size == 26 * n + self.num_scalars - 20 * n
        self.gather = [self._gather_index(p) for p in range(self.n)]
        #: the last Sampler planes built for each observer (per encoder, bounded)
        self._planes_last: dict[int, tuple[tuple[int, ...], np.ndarray]] = {}
        #: the last tile features built for each observer (its reserved tiles come first)
        self._tiles_last: dict[int, tuple[list[int], np.ndarray]] = {}
        self.num_tile_rows = tile_rows(game)
        #: ``one_hot[size][i]``: i one-hot among ``size`` (index -1, none: all 0); the
        #: First flags of the seats are ``one_hot[n][first]``
        self.one_hot = {
            size: tuple(tuple(int(i == k) for k in range(size)) for i in range(size))
            + ((0,) * size,)
            for size in {NT, PHASES, n}
        }
        #: each seat's hand in ``s.hand``, and the deck part of a state never reshuffled
        self._hands = [slice(b, b + NT) for b in range(0, NT * n, NT)]
        self._no_deck = (0,) * (NT + 1)
        #: the last ``game.totals`` computed, and what it read (see ``totals``)
        self._totals_key: tuple[object, ...] = ()
        self._totals_value: list[int] = []
        #: the last deck and chocolates owed read by ``raw_scalars`` (copies), each with
        #: what it made of them
        self._deck_last: tuple[list[int], tuple[int, ...]] = ([], (1,) + (0,) * NT)
        nothing = [0] * NT
        self._owed_last = (nothing, self.one_hot[NT][current_chocolate(nothing)])
        #: a state's counts for ``batch_rows`` (``count_sections``, one byte each) and
        #: its row of ints in ``ext``: the counts, then what numpy works out from them
        #: (``DERIVED``); ``gather_ext`` reads each observer's scalars from ``ext``
        counts = count_sections(n, self.num_stacks)
        self.num_counts = sum(size for _, size in counts)
        raw_sizes = dict(raw_sections(n, self.num_stacks))
        self.ext_at = _slices(counts + [(name, raw_sizes[name]) for name in DERIVED])
        self.ext_width = self.num_counts + sum(raw_sizes[name] for name in DERIVED)
        raw_in_ext = np.concatenate(
            [np.arange(self.ext_at[name].start, self.ext_at[name].stop) for name in self.raw_at]
        )
        self.gather_ext = raw_in_ext[np.stack(self.gather)]
        #: the paying one-hot of each set of types still owed (bit t: type t owed)
        owed_sets = [[m >> t & 1 for t in range(NT)] for m in range(1 << NT)]
        self.paying_flags = np.array([self.one_hot[NT][current_chocolate(o)] for o in owed_sets])
        #: the Sampler cells of one state, signed bytes (-2 no tile .. 6 wild)
        self.pack_cells = struct.Struct(f"<{36 * n}b").pack
        #: per observer, where each tile row of its relative order sits in a state's
        #: packed tile ids (display, the tile being boxed, every seat's reserved tile;
        #: the classic edition shows no reserved tile), and each seat in relative order
        self.tile_order = np.stack(
            [np.r_[np.arange(LINE_SIZE + 1), LINE_SIZE + 1 + np.roll(np.arange(n), -p)]
             [: self.num_tile_rows] for p in range(n)]
        )  # fmt: skip
        self.tile_width = LINE_SIZE + 1 + n  # display, the tile being boxed, reserved
        self.seat_order = np.stack([np.roll(np.arange(n), -p) for p in range(n)])

    def _scalar_layout(self) -> Layout:
        lay = Layout()
        for k in range(self.n):
            who = "own" if k == 0 else f"seat +{k}"
            lay.add(
                f"cards_{k}", NT, f"{who}: cards by type (others: publicly known), / max per type"
            )
            lay.add(f"unknown_{k}", 1, f"{who}: dealt cards not yet seen by the table, / 3")
            lay.add(f"hand_size_{k}", 1, f"{who}: cards in hand, / 8")
            lay.add(f"wilds_{k}", 1, f"{who}: wilds in supply (not placed, not locked), / 3")
            lay.add(f"tiles_{k}", 1, f"{who}: box tiles in the Sampler, / 6")
            lay.add(f"tile_points_{k}", 1, f"{who}: points of the boxed tiles, / 48")
            lay.add(f"tiles_3_or_4_{k}", 1, f"{who}: boxed tiles worth 3 or 4, / 6")
            lay.add(f"first_{k}", 1, f"{who}: holds the First tile")
            lay.add(f"groups_{k}", NT, f"{who}: largest connected group by type (wilds in), / 36")
            lay.add(f"score_{k}", 1, f"{who}: score if the game ended now, / {self.score_max:g}")
        lay.add("tray", NT, "face-up tray by type, / max per type")
        lay.add("deck", 1, "cards in the deck, / cards in the game")
        lay.add("discard", NT, "discard pile by type, / max per type")
        lay.add(
            "reshuffled", 1, "the deck was rebuilt from the discard pile (its content is public)"
        )
        lay.add("deck_known", NT, "after a reshuffle: the deck's cards by type, / max per type")
        stacks = 1 if self.standard else LINE_SIZE
        lay.add("stacks", stacks, f"hidden tiles in the stack(s), / {self.stack_max:g}")
        lay.add("phase", PHASES, "step of the turn: choose, take, pay, place, discard (one-hot)")
        lay.add("actions_left", 1, "standard: actions left / 2; classic: 1 action phase, 0.5 bonus")
        lay.add("takes_left", 1, "cards still to take in an exchange, / 2")
        lay.add("to_pay", NT, "chocolates of the tile being boxed still to pay, / 4")
        lay.add("paying", NT, "the chocolate being paid now (one-hot)")
        lay.add("round", 1, f"rounds completed, / {ROUND_CAP}")
        lay.add("end_triggered", 1, "someone has placed a 6th tile")
        return lay

    def _scalar_scale(self) -> np.ndarray:
        """What each raw scalar is divided by (in the order of ``raw_scalars``)."""
        per_type = self.per_type
        seat = [per_type] * NT + [3.0, HAND_SCALE, float(WILDS_EACH), float(MAX_TILES)]
        seat += [self.points_max, float(MAX_TILES), 1.0] + [36.0] * NT + [self.score_max]
        rest = [per_type] * NT + [self.cards] + [per_type] * NT + [1.0] + [per_type] * NT
        rest += [self.stack_max] * (1 if self.standard else LINE_SIZE)
        rest += [1.0] * PHASES + [2.0, 2.0] + [4.0] * NT + [1.0] * NT + [float(ROUND_CAP), 1.0]
        return 1.0 / np.asarray(seat * self.n + rest, dtype=np.float32)

    def _gather_index(self, player: int) -> np.ndarray:
        """Where each scalar of ``player``'s view sits in ``raw_scalars`` (seat-major
        sections, see ``raw_at``), so that one gather puts the seats in relative order."""
        n, at = self.n, self.raw_at
        index: list[int] = []
        for k in range(n):
            q = (player + k) % n
            cards = at["hand" if k == 0 else "known"].start + NT * q
            index += range(cards, cards + NT)
            index += [at[name].start + q for name in SEAT_SCALARS]
            index += range(at["groups"].start + NT * q, at["groups"].start + NT * q + NT)
            index.append(at["totals"].start + q)
        index += range(at["tray"].start, self.raw_size)
        return np.asarray(index, dtype=np.intp)

    def raw_scalars(self, s: ChocolatiersState) -> list[int]:
        """Every scalar feature before scaling, in absolute seat order: hands, known
        cards, unseen counts, hand sizes, wilds, tiles, tile points, 3-or-4 tiles, First
        flags, groups, totals (each seat-major), then the table's features."""
        n, hand, first, one_hot = self.n, s.hand, s.first, self.one_hot
        return [
            *hand, *s.known, *s.unknown, *map(sum, map(hand.__getitem__, self._hands)),
            *s.wilds, *s.ntiles, *s.points, *s.n34,
            *one_hot[n][first],  # -1, nobody: all 0
            *s.groups, *self.totals(s), *s.tray, len(s.deck), *s.discard,
            *(self.deck_shown(s.deck) if s.reshuffled else self._no_deck),
            *map(len, s.stacks), *one_hot[PHASES][s.phase], s.actions_left, s.takes_left,
            *s.to_pay, *self.paying(s.to_pay), s.turn // n, int(first >= 0),
        ]  # fmt: skip

    def deck_shown(self, deck: list[int]) -> tuple[int, ...]:
        """A reshuffled deck as ``raw_scalars`` shows it (its content is public): 1, then
        its cards by type. The last result is kept: the deck changes only when cards are
        drawn from it."""
        last, shown = self._deck_last
        if deck != last:
            shown = (1, *map(deck.count, range(NT)))
            self._deck_last = (deck.copy(), shown)
        return shown

    def paying(self, to_pay: list[int]) -> tuple[int, ...]:
        """The chocolate being paid (``current_chocolate``) one-hot, all 0 when nothing is
        owed; the last result is kept (the chocolates owed change a few times a turn)."""
        last, paying = self._owed_last
        if to_pay != last:
            paying = self.one_hot[NT][current_chocolate(to_pay)]
            self._owed_last = (to_pay.copy(), paying)
        return paying

    def totals(self, s: ChocolatiersState) -> list[int]:
        """``game.totals(s)``, the last result kept: it reads only First, the wilds, the
        boxed tiles' points and 3-or-4 counts and the groups, which change a few times a
        game (a test ties the two). The last three are tuples, replaced whole when they
        change: the key holds them, and compares them by identity before their values."""
        key = (s.first, *s.wilds, s.points, s.n34, s.groups)
        if key != self._totals_key:
            self._totals_key, self._totals_value = key, self.game.totals(s)
        return self._totals_value

    def scalars(
        self, s: ChocolatiersState, player: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        """``player``'s scaled scalars (into ``out`` when given, a float32 view)."""
        raw = self.raw_scalars(s)
        try:  # every raw scalar is a count in 0..255: converted as bytes, in one call
            values = np.frombuffer(bytearray(raw), dtype=np.uint8)
        except ValueError:  # one past 255: convert the slow way
            values = np.asarray(raw, dtype=np.float32)
        return np.multiply(values.take(self.gather[player]), self.scale, out=out)

    def tile_rows(self, s: ChocolatiersState, player: int) -> list[int]:
        """Tile ids (or -1) of the display, the tile being boxed, then (standard) each
        seat's reserved tile in relative order."""
        rows = s.display + [s.pending]
        if self.standard:
            rows += s.reserved[player:] + s.reserved[:player]
        return rows

    def tile_features(self, s: ChocolatiersState, player: int) -> np.ndarray:
        """The feature rows of ``tile_rows``, flattened (the last result per observer is
        kept: the tiles change a few times a round)."""
        rows = self.tile_rows(s, player)
        hit = self._tiles_last.get(player)
        if hit is not None and hit[0] == rows:
            return hit[1]
        value = self.tiles[rows].reshape(-1)
        self._tiles_last[player] = (rows, value)
        return value

    def sampler_planes(self, s: ChocolatiersState, player: int) -> np.ndarray:
        """(n * 8, 36): per seat in relative order, planes of its anchored 6x6 grid. The
        last result per observer is kept, as Samplers change only a few times a game."""
        hit = self._planes_last.get(player)
        if hit is not None and (hit[0] is s.cells or hit[0] == s.cells):
            return hit[1]
        cut = player * 36
        cells = np.asarray(s.cells[cut:] + s.cells[:cut], dtype=np.intp) + 2
        planes = self.cells[cells].reshape(self.n, 36, SAMPLER_PLANES).transpose(0, 2, 1)
        planes = planes.reshape(self.n * SAMPLER_PLANES, 36)
        self._planes_last[player] = (s.cells, planes)
        return planes

    # ------------------------------------------------------------ many states at once
    def batch_rows(
        self, states: Sequence[ChocolatiersState], players: Sequence[int]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every state's fields as int arrays: (B, ext) its row of ints (``ext_at``:
        ``count_sections`` then ``DERIVED``, seats in absolute order), (B, n, 36) the
        Sampler cells and (B, tile rows) the tile ids, both with seats in the observer's
        order. The counts and tile ids of all the states are gathered into one list
        each and converted in one call; a Sampler's cells are converted once for all the
        states that share its tuple (copies share it until someone places)."""
        n, count = self.n, len(states)
        counts: list[int] = []
        tiles: list[int] = []
        decks: list[int] = []  # the cards of every reshuffled deck, one deck after another
        for s in states:  # written out: the hot path, in the order of ``count_sections``
            counts += s.hand
            counts += s.known
            counts += s.unknown
            counts += s.wilds
            counts += s.ntiles
            counts += s.points
            counts += s.n34
            counts += s.groups
            counts += s.tray
            counts += s.discard
            counts += s.to_pay
            if s.reshuffled:  # its cards are public: counted by type in ``derive``
                decks += s.deck
            counts += (len(s.deck), 1 if s.reshuffled else 0, s.phase, s.actions_left,
                       s.takes_left, s.turn // n, s.first + 1, *map(len, s.stacks))  # fmt: skip
            tiles += s.display
            tiles.append(s.pending)
            tiles += s.reserved
        try:  # every count in 0..255: one byte each
            packed = np.frombuffer(bytearray(counts), dtype=np.uint8)
        except ValueError:  # a count past 255: two bytes each
            packed = np.frombuffer(struct.pack(f"<{len(counts)}H", *counts), dtype="<u2")
        ext = np.empty((count, self.ext_width), dtype=np.uint16)  # counts: one or two bytes
        ext[:, : self.num_counts] = packed.reshape(count, self.num_counts)
        self.derive(ext, np.frombuffer(bytearray(decks), dtype=np.uint8))
        who = np.asarray(players, dtype=np.intp)
        ids = np.frombuffer(struct.pack(f"<{len(tiles)}h", *tiles), dtype="<i2")
        tile_ids = ids.take(self.tile_order[who] + (np.arange(count) * self.tile_width)[:, None])
        # the distinct Sampler tuples (by identity), in the order first met
        cells_of = [s.cells for s in states]
        distinct = {id(c): c for c in cells_of}
        number = {key: i for i, key in enumerate(distinct)}
        which = np.fromiter(map(number.__getitem__, map(id, cells_of)), np.intp, count)
        cells = np.frombuffer(b"".join(starmap(self.pack_cells, distinct.values())), np.int8)
        seats = which[:, None] * n + self.seat_order[who]  # (B, n): rows of (tuple, seat)
        return ext, cells.reshape(-1, 36).take(seats, axis=0), tile_ids

    def derive(self, ext: np.ndarray, decks: np.ndarray) -> None:
        """Work out ``DERIVED`` in every row of ``ext`` from its counts, as
        ``raw_scalars`` does state by state: the hand sizes, the First flags, the totals
        (``game.totals_batch``), the reshuffled decks' cards by type (``decks``: their
        cards, deck after deck), the phase, the chocolate being paid (``paying_flags``)."""
        n, count = self.n, len(ext)
        part = {name: ext[:, where] for name, where in self.ext_at.items()}
        first = part["first"][:, 0].astype(np.intp) - 1
        np.sum(part["hand"].reshape(count, n, NT), axis=2, out=part["sizes"])
        np.equal(first[:, None], np.arange(n), out=part["first_flags"])
        np.greater_equal(first[:, None], 0, out=part["first_any"])
        part["totals"][:] = self.game.totals_batch(
            part["groups"], part["points"], part["wilds"], part["n34"], first
        )
        shown = part["deck"][:, 0] * part["reshuffled"][:, 0]
        owner = np.repeat(np.arange(0, count * NT, NT), shown)
        part["deck_known"][:] = np.bincount(owner + decks, minlength=count * NT).reshape(count, NT)
        np.equal(part["phase"], np.arange(PHASES), out=part["phase_flags"])
        owed = np.packbits(part["to_pay"] > 0, axis=1, bitorder="little")[:, 0]
        part["paying_flags"][:] = self.paying_flags[owed]

    def write_batch(
        self,
        states: Sequence[ChocolatiersState],
        players: Sequence[int],
        scalars: np.ndarray,
        tiles: np.ndarray,
        planes: np.ndarray,
    ) -> None:
        """``scalars``, ``tile_features`` and ``sampler_planes`` of every state, into
        views of the batch: (B, scalars), (B, tile rows, 36) and (B, n, 8, 36); row for
        row the numbers of the one-state methods (a test ties them)."""
        ext, cells, tile_ids = self.batch_rows(states, players)
        who = np.asarray(players, dtype=np.intp)
        rows = (np.arange(len(states)) * self.ext_width)[:, None]
        read = ext.take(self.gather_ext[who] + rows)
        np.multiply(read, self.scale, out=scalars, dtype=np.float32)
        tiles[:] = self.tiles.take(tile_ids, axis=0)
        self.write_planes(cells, planes)

    @staticmethod
    def write_planes(cells: np.ndarray, out: np.ndarray) -> None:
        """The Sampler planes of ``cells`` (B, n, 36) into ``out`` (B, n, 8, 36): the
        rows of ``cell_table``, as comparisons."""
        for t in range(NT):
            np.equal(cells, t, out=out[:, :, t])
        np.equal(cells, WILD, out=out[:, :, 6])
        np.greater_equal(cells, EMPTY, out=out[:, :, 7])


def build_encoders(game: ChocolatiersRules) -> dict[str, Encoder[ChocolatiersState]]:
    """The ``"flat"`` and ``"planes"`` encoders of ``game``."""
    obs = ChocolatiersObserver(game)
    return {"flat": _flat_encoder(obs), "planes": _planes_encoder(ChocolatiersObserver(game))}


def _flat_encoder(obs: ChocolatiersObserver) -> Encoder[ChocolatiersState]:
    lay = Layout()
    for f in obs.layout.fields:
        lay.add(f.name, f.size, f.meaning, f.low, f.high)
    tiles_at = lay.add(
        "tiles",
        obs.num_tile_rows * TILE_FEATURES,
        "per tile row (line/stack tops 0..4, tile being boxed"
        + (", reserved tile of each seat" if obs.standard else "")
        + "): present, points/8, cost by type/4, 4 spaces x (6 types, empty) one-hot",
        shape=(obs.num_tile_rows, TILE_FEATURES),
    )
    samplers_at = lay.add(
        "samplers",
        obs.n * SAMPLER_PLANES * 36,
        "per seat: 8 planes of the anchored 6x6 grid (6 types, wild, occupied), row-major",
        shape=(obs.n, SAMPLER_PLANES * 36),
    )
    scalar_end = obs.num_scalars

    def fill(s: ChocolatiersState, player: int, out: np.ndarray) -> None:
        obs.scalars(s, player, out[:scalar_end])
        out[tiles_at] = obs.tile_features(s, player)
        out[samplers_at] = obs.sampler_planes(s, player).reshape(-1)

    def fill_batch(
        states: Sequence[ChocolatiersState], players: Sequence[int], out: np.ndarray
    ) -> None:
        count = len(states)
        tiles = out[:, tiles_at].reshape(count, obs.num_tile_rows, TILE_FEATURES)
        planes = out[:, samplers_at].reshape(count, obs.n, SAMPLER_PLANES, 36)
        obs.write_batch(states, players, out[:, :scalar_end], tiles, planes)

    return Encoder(
        "flat",
        (lay.size,),
        lay,
        fill,
        "scalars, tiles, then Sampler planes",
        fill_batch=fill_batch,
        batch_writes_all=True,
    )


def _planes_encoder(obs: ChocolatiersObserver) -> Encoder[ChocolatiersState]:
    features = obs.num_scalars + obs.num_tile_rows * TILE_FEATURES
    feature_planes = -(-features // 36)
    lay = Layout()
    lay.add(
        "samplers",
        obs.n * SAMPLER_PLANES,
        "per seat (own first): 6 type planes, wild plane, occupied plane of the anchored 6x6 grid",
    )
    lay.add(
        "features",
        feature_planes,
        f"the flat encoder's first {features} entries (scalars, tiles), row-major, zero-padded",
    )
    nsp = obs.n * SAMPLER_PLANES
    tile_end = features

    def fill(s: ChocolatiersState, player: int, out: np.ndarray) -> None:
        out[:nsp] = obs.sampler_planes(s, player).reshape(nsp, 6, 6)
        flat = out[nsp:].reshape(-1)
        obs.scalars(s, player, flat[: obs.num_scalars])
        flat[obs.num_scalars : tile_end] = obs.tile_features(s, player)

    def fill_batch(
        states: Sequence[ChocolatiersState], players: Sequence[int], out: np.ndarray
    ) -> None:
        count = len(states)
        flat = out[:, nsp:].reshape(count, -1)
        tiles = flat[:, obs.num_scalars : tile_end].reshape(count, obs.num_tile_rows, TILE_FEATURES)
        planes = out[:, :nsp].reshape(count, obs.n, SAMPLER_PLANES, 36)
        obs.write_batch(states, players, flat[:, : obs.num_scalars], tiles, planes)
        flat[:, tile_end:] = 0.0  # the padding of the last feature plane

    return Encoder(
        "planes",
        (lay.size, 6, 6),
        lay,
        fill,
        "Sampler planes, then feature planes",
        fill_batch=fill_batch,
        batch_writes_all=True,
    )
