"""Action codec and the ``flat`` observation encoder of Chocolate Factory.

Action table (one flat space of 235 ids; dice of equal faces are interchangeable, so a
pick names faces, never a particular die):

| ids | meaning |
|---|---|
| 0..143 | pair: ``(station * 6 + ingredient) * 6 + quantity face`` (faces 1..5, 5 = star joker) |
| 144..167 | machine die: ``144 + station * 6 + machine`` |
| 168..191 | special die: ``168 + station * 6 + special`` |
| 192..215 | hire the master as the machine: ``192 + station * 6 + ingredient`` |
| 216 | pass (+1 application, up to the cap) |
| 217 | reroll all dice (roller, before anyone picked; costs 1 application) |
| 218..225 | pack the finished bar into package slot 0..7 |
| 226..234 | new variety for the freed station (rulebook order, see components) |

Observation: relative to the observer (own player block first, then the others in seat
order after it); see :func:`flat_encoder` and the docs for the layout table.
"""

from __future__ import annotations

import struct
import threading
from collections.abc import Sequence
from operator import add
from typing import TYPE_CHECKING

import numpy as np

from choco_envs.core.encoding import Encoder, Layout
from choco_envs.games.chocolate_factory import components as cp
from choco_envs.games.chocolate_factory.rules import (
    CHOOSE,
    CLOSED,
    MACHINE,
    MASTER,
    NUM_ACTIONS,
    PACK,
    PASS,
    REROLL,
    SPECIAL,
    FactoryState,
)

if TYPE_CHECKING:
    from choco_envs.games.chocolate_factory.rules import ChocolateFactoryRules

__all__ = ["NUM_ACTIONS", "action_ranges", "build_encoders", "flat_encoder"]

SCORE_SCALE = 200.0
#: states whose ints ``encode_batch`` gathers into one Python list at a time
BLOCK = 32
#: states ``encode_batch`` encodes in one pass (a larger batch goes in several): its
#: scratch arrays (:class:`Scratch`) hold at most this many rows
PASS_STATES = 256
FINISHED_SCALE = 40.0
STORAGE_SCALE = 40.0
DICE = 24
STATION_SIZE = len(cp.VARIETY_NAMES) + 6 + 6 + 1 + 6
#: a station's entries read from its variety, machines placed and special placed (the
#: rest read the amounts still missing)
STATION_HEAD = STATION_SIZE - 6
#: an amount still missing is shown as amount * this (the table of ``Gather``);
#: ``fill_batch`` divides the amount by ``MISSING_DIVISOR`` in float32, which gives the
#: same float32 for every amount 0..6 (``Gather.station_table`` checks it)
MISSING_SCALE = 1.0 / 6
MISSING_DIVISOR = np.float32(6)

_BITS = [tuple(float(mask >> i & 1) for i in range(6)) for mask in range(64)]
#: one-hot rows by variety; index -1 or 9 is the all-zeros row (free station, empty slot)
_VARIETY = [tuple(float(v == w) for w in range(9)) for v in range(9)] + [(0.0,) * 9]


def station_key(variety: np.ndarray, placed: np.ndarray, special: np.ndarray) -> np.ndarray:
    """A station's row of :meth:`Gather.station_table`: its variety (-1: free), machines
    placed (a bitmask of 6) and special placed (0 or 1)."""
    return ((variety + 1) * 64 + placed) * 2 + special


def action_ranges() -> list[tuple[int, int, str]]:
    """(first id, last id, meaning) for the docs' action table."""
    return [
        (0, MACHINE - 1, "pair: (station*6 + ingredient)*6 + quantity face (5 = joker)"),
        (MACHINE, SPECIAL - 1, "machine die: station*6 + machine"),
        (SPECIAL, MASTER - 1, "special die: station*6 + special"),
        (MASTER, PASS - 1, "hire the master: station*6 + ingredient"),
        (PASS, PASS, "pass"),
        (REROLL, REROLL, "reroll"),
        (PACK, CHOOSE - 1, "pack into package slot"),
        (CHOOSE, NUM_ACTIONS - 1, "new variety for the freed station"),
    ]


def _layout(game: ChocolateFactoryRules) -> Layout:
    n = game.num_players
    lay = Layout()
    lay.add("dice_quantity", 6, "quantity dice left per face 1..5, joker (/ players)")
    lay.add("dice_ingredient", 6, "ingredient dice left per ingredient (/ players)")
    lay.add("dice_machine", 6, "machine dice left per machine (/ machine dice)")
    lay.add("dice_special", 6, "special dice left per special (/ special dice)")
    for r in range(n):
        who = "own" if r == 0 else f"the player {r} seat(s) after the observer"
        lay.add(
            f"p{r}_stations",
            4 * STATION_SIZE,
            f"{who}: per station, variety one-hot (9; all 0 while free), machines needed "
            "(6), machines placed (6), special placed (1), missing per ingredient (/6)",
        )
    lay.add(
        "packages",
        game.slots * (9 + 2 + n),
        "per package slot: variety one-hot (9), fill (/4), still open, bars by owner "
        "relative to the observer (/4)",
        shape=(game.slots, 9 + 2 + n),
    )
    for r in range(n):
        who = "own" if r == 0 else f"the player {r} seat(s) after the observer"
        lay.add(
            f"p{r}_status",
            5,
            f"{who}: applications (/cap), master available, score (/{SCORE_SCALE:g}, "
            f"clipped), finished varieties (/{FINISHED_SCALE:g}), bars in storage "
            f"(/{STORAGE_SCALE:g})",
        )
    lay.add("supply", 1, "packages left in the supply (/ the game's packages)")
    lay.add("shift_time", 1, "rolls left after the current one (/ the game's rolls)")
    lay.add("to_act", n, "whose pick it is, relative seat one-hot (0 when over)", shape=(n,))
    lay.add("roller", n, "who rolled, relative seat one-hot", shape=(n,))
    lay.add("phase", 3, "pick, pack, choose variety (0 when over)")
    lay.add("reroll_open", 1, "nobody has picked from this roll yet")
    lay.add("pending_bar", 9, "variety of the bar being packed / station being refilled")
    lay.add("pending_station", 4, "the to-act player's freed station")
    lay.add(
        "resume_pick",
        1,
        "at the pack and choose steps: 1 when the same player picks again afterwards (the "
        "master finished the variety), 0 when the next seat picks",
    )
    return lay


#: the state's ints in the order of a row (``y`` of :class:`Gather`): first the counts,
#: never negative (``COUNT_LISTS``, then ``COUNT_INTS``), then the ints that may be
#: negative (-1: none, -2: a closed package slot; ``SIGNED_LISTS``, then ``SIGNED_INTS``).
#: The packed list (``missing``, joined as bytes) first, then the lists about in the order
#: ``FactoryState.copy`` makes them, which ``row_lists`` reads them in: a state's lists
#: then lie in memory about in the order they are read
COUNT_LISTS = ("missing", "dice", "placed", "special", "apps", "variety_points",
               "refine_points", "bonus_points", "finished", "storage", "pkg_fill",
               "pkg_owners")  # fmt: skip
COUNT_INTS = ("supply_left", "time_left", "roller", "pick_index", "phase", "resume_pick")
SIGNED_LISTS = ("variety", "pkg_variety")
SIGNED_INTS = ("pending_variety", "pending_station")
#: the lists with one entry per seat (``seat``), or per station or ingredient of each seat
#: (``seat * k + i``), or per package slot and seat (``slot * n + seat``): rotated so
#: that the observer comes first
SEAT_MAJOR = ("variety", "placed", "special", "missing", "apps", "variety_points",
              "refine_points", "bonus_points", "finished", "storage")  # fmt: skip
SEAT_MINOR = ("pkg_owners",)


def row_lengths(game: ChocolateFactoryRules) -> dict[str, int]:
    """How many ints each list of a row holds in a game of this size."""
    n, slots = game.num_players, game.slots
    per_seat = {"variety": 4, "placed": 4, "special": 4, "missing": 24}
    lengths = {name: per_seat.get(name, 1) * n for name in (*COUNT_LISTS, *SIGNED_LISTS)}
    lengths.update(pkg_variety=slots, pkg_fill=slots, pkg_owners=slots * n, dice=DICE)
    return lengths


#: the count list the rules keep as ``bytearray`` (``FactoryState.PACKED``), the first of
#: ``COUNT_LISTS``: ``row_parts`` joins its bytes
PACKED_LISTS = FactoryState.PACKED
assert COUNT_LISTS[: len(PACKED_LISTS)] == PACKED_LISTS == ("missing",)


def row_lists(states: Sequence[FactoryState]) -> tuple[list[int], list[int]]:
    """The rows of ``states`` but their packed lists (``PACKED_LISTS``), one after
    another, as two lists of ints: their other counts (the rest of ``COUNT_LISTS``, then
    ``COUNT_INTS``) and their signed ints (``SIGNED_LISTS``, then ``SIGNED_INTS``).
    Written out, one pass over the states: the hot path of ``encode_batch`` (a test
    checks the lists against the names)."""
    counts: list[int] = []
    signed: list[int] = []
    for s in states:  # the lists in the order ``FactoryState.copy`` makes them
        signed += s.variety
        counts += s.dice
        counts += s.placed
        counts += s.special
        counts += s.apps
        counts += s.variety_points
        counts += s.refine_points
        counts += s.bonus_points
        counts += s.finished
        counts += s.storage
        signed += s.pkg_variety
        counts += s.pkg_fill
        counts += s.pkg_owners
        counts += (s.supply_left, s.time_left, s.roller, s.pick_index, s.phase, s.resume_pick)
        signed += (s.pending_variety, s.pending_station)
    return counts, signed


def row_parts(states: Sequence[FactoryState]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows of ``states`` as three arrays of one row a state: the packed lists
    (``PACKED_LISTS``, ``uint8``: their bytes joined, no int read), the other counts
    (:func:`row_lists`; one byte each, ``uint8``, or two, ``<u2``, where one is past 255)
    and the signed ints (``int8``). The lists are made ``BLOCK`` states at a time and
    converted at once: a large list, grown a little at a time, would cost page faults."""
    count = len(states)
    packed: list[bytearray] = []
    for s in states:
        packed.append(s.missing)
    try:
        head = b"".join(packed)
    except TypeError:  # a state made by hand with a list where the rules keep bytes
        head = b"".join(map(bytes, packed))
    heads = np.frombuffer(head, dtype=np.uint8).reshape(count, -1)
    for wide in (False, True):
        counts: list[bytes | bytearray] = []
        signed: list[int] = []
        try:
            for lo in range(0, count, BLOCK):
                block, block_signed = row_lists(states[lo : lo + BLOCK])
                counts.append(struct.pack(f"<{len(block)}H", *block) if wide else bytearray(block))
                signed += block_signed
        except ValueError:  # a count past 255 (``bytearray``): two bytes a count
            continue
        rows = np.frombuffer(b"".join(counts), dtype="<u2" if wide else np.uint8)
        ints = np.frombuffer(struct.pack(f"<{len(signed)}b", *signed), dtype=np.int8)
        return heads, rows.reshape(count, -1), ints.reshape(count, -1)
    raise AssertionError("unreachable: two bytes hold every count")


def row_arrays(states: Sequence[FactoryState]) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``states`` (:func:`row_parts`) as two arrays of one row a state: the
    counts (``COUNT_LISTS``, then ``COUNT_INTS``; ``uint8``, or ``<u2`` where one is past
    255) and the signed ints (``int8``)."""
    heads, rows, ints = row_parts(states)
    return np.concatenate([heads, rows], axis=1), ints


#: what ``fill_batch`` works out from each row (numpy over the batch) for the status
#: part, per seat (``points``, ``finished``, ``storage``: clipped at the scale) and for
#: the observer (``to_act``, ``roller`` relative seats, n when nobody acts; the flags)
DERIVED = ("points", "finished_clipped", "storage_clipped")
DERIVED_INTS = ("to_act", "rolled", "reroll_open", "resume_open")


class Gather:
    """The ``flat`` observation as one gather from tables: entry ``j`` for observer
    ``p`` is ``values[base[j] + y[reads[p, j]]]``, ``y`` being a state's row (``at``:
    ``COUNT_LISTS`` .. ``SIGNED_INTS``) followed by the derived ints (``DERIVED``,
    ``DERIVED_INTS``). Entries are declared in the observer's seat order (``source[j]``,
    a place of the row as seat 0 sees it); ``seats[p]`` rotates the per-seat parts of the
    row for observer ``p``, and ``reads[p] = seats[p][source]``. Every entry reads one
    int, so each entry's values are a small table of that int's values, written once
    here. ``fill`` gathers every entry this way; ``fill_batch`` too, but for the
    stations, which it reads from whole rows of :meth:`station_table`."""

    def __init__(self, game: ChocolateFactoryRules) -> None:
        n = game.num_players
        lengths = row_lengths(game)
        self.at: dict[str, int] = {}  # where each list lies in the row
        width = 0
        for name in (*COUNT_LISTS, *COUNT_INTS, *SIGNED_LISTS, *SIGNED_INTS):
            self.at[name] = width
            width += lengths.get(name, 1)
        self.count_width = self.at[SIGNED_LISTS[0]]
        self.row_width = width
        for name in DERIVED:
            self.at[name] = width
            width += n
        for name in DERIVED_INTS:
            self.at[name] = width
            width += 1
        seats = np.tile(np.arange(width), (n, 1))
        for p in range(n):
            for name in (*SEAT_MAJOR, *DERIVED):
                size = lengths.get(name, n) // n
                block = np.arange(n * size).reshape(n, size)
                seats[p, self.at[name] : self.at[name] + n * size] = (
                    self.at[name] + np.roll(block, -p, axis=0).ravel()
                )
            for name in SEAT_MINOR:
                block = np.arange(lengths[name]).reshape(-1, n)
                seats[p, self.at[name] : self.at[name] + lengths[name]] = (
                    self.at[name] + np.roll(block, -p, axis=1).ravel()
                )
        self.seats = seats
        self._values: list[float] = []
        self._offsets: dict[str, int] = {}
        self._base: list[int] = []
        self._source: list[int] = []
        self._board(game)
        self.status_start = len(self._base)
        self._status(game)
        self.values = np.array(self._values, dtype=np.float32)
        self.base = np.array(self._base, dtype=np.int16)
        self.source = np.array(self._source, dtype=np.intp)
        self.reads = self.seats.take(self.source, axis=1)
        assert len(self._values) < 2**15, "table positions fit in int16"
        self.lengths = lengths
        #: the stations' entries: ``4 * n`` blocks of ``STATION_SIZE`` after the dice
        self.stations = slice(DICE, DICE + 4 * n * STATION_SIZE)

    def station_table(self) -> np.ndarray:
        """For ``fill_batch``, a station's entries as rows, by :func:`station_key`: the
        first ``STATION_HEAD`` (variety, machines needed and placed, special placed;
        every station has the same tables), then 0 where the others go, which show the
        amounts still missing (``MISSING_SCALE``)."""
        varieties, placed, special = np.meshgrid(
            range(-1, len(cp.VARIETY_NAMES)), range(64), range(2), indexing="ij"
        )
        read = {"variety": varieties.ravel(), "placed": placed.ravel(), "special": special.ravel()}
        assert (station_key(read["variety"], read["placed"], read["special"]) == np.arange(
            len(read["variety"]))).all()  # fmt: skip
        first = self.stations.start
        base = self.base[self.stations].reshape(-1, STATION_SIZE)
        assert (base == base[0]).all(), "every station has the same tables"
        rows = np.zeros((len(read["variety"]), STATION_SIZE), dtype=np.float32)
        for j in range(STATION_HEAD):
            rows[:, j] = self.values[self.base[first + j] + read[self.list_of(first + j)]]
        for j in range(STATION_HEAD, STATION_SIZE):
            assert self.list_of(first + j) == "missing"
            missing = self.values[self.base[first + j] + np.arange(7)]
            assert (missing == np.arange(7, dtype=np.float32) / MISSING_DIVISOR).all()
        return rows

    def list_of(self, entry: int) -> str:
        """The list of the row that ``entry`` reads."""
        where = int(self.source[entry])
        return next(
            name for name, start in self.at.items()
            if start <= where < start + self.lengths.get(name, 1)
        )  # fmt: skip

    def column(self, name: str, lowest: int, table: Sequence[float], where: int) -> None:
        """The next entry: ``table[i - lowest]`` where the int at ``where`` (a place of
        the observer's view of y) is i."""
        if name not in self._offsets:
            self._offsets[name] = len(self._values) - lowest
            self._values.extend(table)
        self._base.append(self._offsets[name])
        self._source.append(where)

    def _board(self, game: ChocolateFactoryRules) -> None:
        """Dice, stations, packages: the entries before the status."""
        n, at, column = game.num_players, self.at, self.column
        dice_scale = np.array([1.0 / n] * 12 + [1.0 / game.special_dice] * 12, dtype=np.float32)
        for f in range(DICE):  # counts per face, 0..n
            scale = float(dice_scale[f])
            column(f"dice{f}", 0, [c * scale for c in range(n + 1)], at["dice"] + f)
        varieties = range(-1, len(cp.VARIETY_NAMES))  # -1: a free station
        for k in range(4 * n):  # the observer's stations first
            for c in range(9):
                column(f"variety{c}", -1, [_VARIETY[v][c] for v in varieties],
                       at["variety"] + k)  # fmt: skip
            for m in range(6):
                needed = [_BITS[game.machine_mask[v] if v >= 0 else 0][m] for v in varieties]
                column(f"needed{m}", -1, needed, at["variety"] + k)
            for m in range(6):
                column(f"placed{m}", 0, [_BITS[pl][m] for pl in range(64)], at["placed"] + k)
            column("special", 0, [0.0, 1.0], at["special"] + k)
            for i in range(6):
                column("missing", 0, [m * MISSING_SCALE for m in range(7)],
                       at["missing"] + k * 6 + i)  # fmt: skip
        slot_varieties = range(CLOSED, len(cp.VARIETY_NAMES))  # CLOSED, EMPTY, varieties
        for slot in range(game.slots):
            for c in range(9):
                column(f"slot_variety{c}", CLOSED, [_VARIETY[v][c] for v in slot_varieties],
                       at["pkg_variety"] + slot)  # fmt: skip
            fills = [f / 4.0 for f in range(cp.PACKAGE_SIZE + 1)]
            column("fill", 0, fills, at["pkg_fill"] + slot)
            column("open", CLOSED, [float(v != CLOSED) for v in slot_varieties],
                   at["pkg_variety"] + slot)  # fmt: skip
            for r in range(n):
                bars = [b * 0.25 for b in range(cp.PACKAGE_SIZE + 1)]
                column("owned_bars", 0, bars, at["pkg_owners"] + slot * n + r)

    def _status(self, game: ChocolateFactoryRules) -> None:
        """Every seat's status, the clock and the turn: the numbers of ``fill``'s
        ``_rest``, as tables of the row's and the derived ints."""
        n, at, column = game.num_players, self.at, self.column
        cap = game.max_apps
        for r in range(n):
            column("apps", 0, [a / cap for a in range(cap + 1)], at["apps"] + r)
            column("master", 0, [float(a == cap) for a in range(cap + 1)], at["apps"] + r)
            points = range(int(SCORE_SCALE) + 1)
            column("score", 0, [min(c / SCORE_SCALE, 1.0) for c in points], at["points"] + r)
            finished = [min(c / FINISHED_SCALE, 1.0) for c in range(int(FINISHED_SCALE) + 1)]
            column("finished", 0, finished, at["finished_clipped"] + r)
            storage = [min(c / STORAGE_SCALE, 1.0) for c in range(int(STORAGE_SCALE) + 1)]
            column("storage", 0, storage, at["storage_clipped"] + r)
        supply = [c / game.package_total for c in range(game.package_total + 1)]
        column("supply", 0, supply, at["supply_left"])
        clock = [c / game.total_rolls for c in range(game.total_rolls + 1)]
        column("shift_time", 0, clock, at["time_left"])
        for c in range(n):
            column(f"to_act{c}", 0, [float(i == c) for i in range(n + 1)], at["to_act"])
        for c in range(n):
            column(f"rolled{c}", 0, [float(i == c) for i in range(n)], at["rolled"])
        for c in range(3):
            column(f"phase{c}", 0, [float(i == c) for i in range(4)], at["phase"])
        column("flag", 0, [0.0, 1.0], at["reroll_open"])
        for c in range(9):
            column(f"pending{c}", -1, [_VARIETY[v][c] for v in range(-1, 9)],
                   at["pending_variety"])  # fmt: skip
        for c in range(4):
            column(f"station{c}", -1, [float(i == c) for i in range(-1, 4)],
                   at["pending_station"])  # fmt: skip
        column("flag", 0, [0.0, 1.0], at["resume_open"])


class Scratch:
    """Scratch arrays, named, each of a row shape and dtype, with as many rows as the
    largest pass yet (at most ``PASS_STATES``); each thread has its own, kept.
    ``encode_batch`` works in them rather than in fresh arrays: the allocator may hand a
    large array's memory back to the system once it is freed, and a fresh one then costs
    a page fault every 4 KiB written, on every batch (in a loop of batches, more than the
    work)."""

    def __init__(self, **arrays: tuple[tuple[int, ...], type]) -> None:
        self.arrays = arrays
        self.local = threading.local()

    def get(self, count: int) -> dict[str, np.ndarray]:
        """This thread's arrays, their first ``count`` rows (made anew when they have
        fewer)."""
        made: dict[str, np.ndarray] | None = getattr(self.local, "made", None)
        if made is None or len(next(iter(made.values()))) < count:
            made = {name: np.empty((count, *shape), dtype=dtype)
                    for name, (shape, dtype) in self.arrays.items()}  # fmt: skip
            self.local.made = made
        return {name: array[:count] for name, array in made.items()}


def flat_encoder(game: ChocolateFactoryRules) -> Encoder[FactoryState]:
    """The ``flat`` encoder: one float32 vector, every value in [0, 1], as one gather from
    tables (:class:`Gather`): ``fill`` packs one state's row and derived ints in a single
    call; ``fill_batch`` converts the rows of the states a block at a time
    (:func:`row_arrays`), works out the derived ints by numpy over a pass of up to
    ``PASS_STATES`` states, then reads each station's entries from whole table rows and
    gathers the other entries of every state of the pass at once."""
    n = game.num_players
    lay = _layout(game)
    gather = Gather(game)
    assert gather.status_start == lay["p0_status"].start, "the board ends where p0_status starts"
    assert len(gather.base) == lay.size, "the gather covers every entry"
    at, count_width, width = gather.at, gather.count_width, gather.row_width
    y_width = gather.seats.shape[1]
    packed_width = at[COUNT_LISTS[len(PACKED_LISTS)]]  # where the first unpacked list starts
    values, base, reads = gather.values, gather.base, gather.reads
    clip = {"points": int(SCORE_SCALE), "finished_clipped": int(FINISHED_SCALE),
            "storage_clipped": int(STORAGE_SCALE)}  # fmt: skip
    # ---- one state (``fill``): its row and derived ints as int16 in one call, then the
    # gather of every entry in the observer's seat order
    assert list(at) == [*COUNT_LISTS, *COUNT_INTS, *SIGNED_LISTS, *SIGNED_INTS, *DERIVED,
                        *DERIVED_INTS]  # fmt: skip
    pack_y = struct.Struct(f"<{y_width}h").pack
    entry_base = base.astype(np.intp)
    # the scales every seat's derived ints are clipped at (``min`` over maps, no loop)
    max_points, max_finished, max_storage = ((cap,) * n for cap in clip.values())

    def fill(s: FactoryState, player: int, out: np.ndarray) -> None:
        phase, roller, pick_index = s.phase, s.roller, s.pick_index
        over = phase == 3
        y = pack_y(
            *s.missing, *s.dice, *s.placed, *s.special, *s.apps, *s.variety_points,
            *s.refine_points, *s.bonus_points, *s.finished, *s.storage, *s.pkg_fill,
            *s.pkg_owners, s.supply_left, s.time_left, roller, pick_index, phase, s.resume_pick,
            *s.variety, *s.pkg_variety, s.pending_variety, s.pending_station,
            *map(min, map(add, map(add, s.variety_points, s.refine_points), s.bonus_points),
                 max_points),
            *map(min, s.finished, max_finished), *map(min, s.storage, max_storage),
            n if over else (roller + pick_index - player) % n,
            (roller - player) % n,
            pick_index == 0 and not over,
            s.resume_pick != 0 and (phase == 1 or phase == 2),
        )  # fmt: skip
        index = np.frombuffer(y, dtype=np.int16).take(reads[player])
        values.take(np.add(entry_base, index), out=out)

    # ---- every state at once (``fill_batch``), in passes of at most ``PASS_STATES``:
    # the rows converted ``BLOCK`` states at a time (:func:`row_arrays`), the derived ints
    # by numpy over the pass, the ints each observer's entries read picked in its seat
    # order; then each station's entries as a row of one table (its amounts missing
    # written over), and one gather for the other entries. The pass's arrays are scratch
    # arrays kept per thread (:class:`Scratch`)
    points_at = [
        slice(at[name], at[name] + n)
        for name in ("variety_points", "refine_points", "bonus_points")
    ]
    assert at["storage_clipped"] == at["finished_clipped"] + n
    assert at["storage"] == at["finished"] + n
    stored_at = slice(at["finished"], at["finished"] + 2 * n)
    clipped_at = slice(at["finished_clipped"], at["finished_clipped"] + 2 * n)
    clip_stored = np.array([clip["finished_clipped"]] * n + [clip["storage_clipped"]] * n)
    stations = gather.stations
    station_rows = gather.station_table()
    station_count = 4 * n
    missing_at = slice(at["missing"], at["missing"] + 24 * n)
    rest = np.r_[0 : stations.start, stations.stop : lay.size]  # entries not of a station
    rest_base = base[rest]  # int16: an entry's table position fits
    # what the batch reads of a row, for each observer in its seat order: the stations'
    # varieties, machines and specials placed (``station_key``), their amounts missing,
    # then the int each other entry reads
    reads_of = [
        gather.seats[:, at[name] : at[name] + station_count]
        for name in ("variety", "placed", "special")
    ]
    batch_reads = np.concatenate([*reads_of, gather.seats[:, missing_at], reads[:, rest]], axis=1)
    stations_read = [slice(k * station_count, (k + 1) * station_count) for k in range(3)]
    missing_read = slice(3 * station_count, 9 * station_count)
    rest_read = slice(9 * station_count, batch_reads.shape[1])
    scratch = Scratch(
        y=((y_width,), np.int16),
        read=((batch_reads.shape[1],), np.int16),
        stations=((station_count, STATION_SIZE), np.float32),
        missing=((6 * station_count,), np.float32),
        index=((len(rest),), np.intp),
        entries=((len(rest),), np.float32),
    )

    def fill_pass(states: Sequence[FactoryState], who: np.ndarray, out: np.ndarray) -> None:
        count = len(states)
        work = scratch.get(count)
        y, read = work["y"], work["read"]
        heads, rest, ints = row_parts(states)
        y[:, :packed_width], y[:, packed_width:count_width], y[:, count_width:width] = (
            heads,
            rest,
            ints,
        )
        points = y[:, points_at[0]] + y[:, points_at[1]]
        points += y[:, points_at[2]]
        np.minimum(points, clip["points"], out=y[:, at["points"] : at["points"] + n])
        np.minimum(y[:, stored_at], clip_stored, out=y[:, clipped_at])
        roller, pick_index, phase = y[:, at["roller"]], y[:, at["pick_index"]], y[:, at["phase"]]
        over = phase == 3
        y[:, at["to_act"]] = np.where(over, n, (roller + pick_index - who) % n)
        y[:, at["rolled"]] = (roller - who) % n
        y[:, at["reroll_open"]] = (pick_index == 0) & ~over
        y[:, at["resume_open"]] = (y[:, at["resume_pick"]] != 0) & ((phase == 1) | (phase == 2))
        # what the pass reads of every row, in its observer's seat order (the rows of one
        # observer at a time); no more of a row is needed
        for p in range(n):
            rows_p = np.flatnonzero(who == p)
            read[rows_p] = y.take(rows_p, axis=0).take(batch_reads[p], axis=1)
        # each station's entries as a row of one table (the keys are within it: varieties
        # -1..8, machine bitmasks < 64, special 0 or 1), its amounts missing written over
        key = station_key(*(read[:, where] for where in stations_read))
        station = work["stations"]
        station_rows.take(key, axis=0, out=station, mode="clip")
        missing = work["missing"]  # as float32 first: the division then casts nothing
        np.copyto(missing, read[:, missing_read])
        np.divide(
            missing.reshape(count, station_count, 6),
            MISSING_DIVISOR,
            out=station[:, :, STATION_HEAD:],
        )
        out[:, stations] = station.reshape(count, -1)
        # one gather for every other entry, of its table at the int it reads (no bounds
        # check, mode clip: the ints of a state the rules made lie within their tables)
        index, entries = work["index"], work["entries"]
        np.add(read[:, rest_read], rest_base, out=index)
        values.take(index, out=entries, mode="clip")
        out[:, : stations.start] = entries[:, : stations.start]
        out[:, stations.stop :] = entries[:, stations.start :]

    def fill_batch(states: Sequence[FactoryState], players: Sequence[int], out: np.ndarray) -> None:
        who = np.asarray(players, dtype=np.intp)
        if who.min() < 0 or who.max() >= n:
            raise ValueError(f"encode_batch: players are seats 0..{n - 1}, got {players!r:.80}")
        who16 = who.astype(np.int16)  # the rows' dtype: numpy on them stays in int16
        for lo in range(0, len(states), PASS_STATES):
            rows = slice(lo, lo + PASS_STATES)
            fill_pass(states[rows], who16[rows], out[rows])

    return Encoder(
        "flat",
        (lay.size,),
        lay,
        fill,
        "flat vector, relative to the observer",
        fill_batch=fill_batch,
        batch_writes_all=True,
    )


def build_encoders(game: ChocolateFactoryRules) -> dict[str, Encoder[FactoryState]]:
    """The encoders of ``game`` (the Factory has one: ``flat``)."""
    return {"flat": flat_encoder(game)}
