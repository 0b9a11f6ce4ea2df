"""What the table can know about the prediction cards: the chance that each is true.

Every chocolate is dealt face down from one shuffled set and nothing is private, so the
face-down chocolates are a uniformly random arrangement of the kinds nobody has seen yet
over the face-down positions. ``truth_rates`` estimates, for every prediction card, the
share of such arrangements on which it is true (a Monte Carlo estimate over ``SAMPLES``
arrangements, all predicates evaluated at once with numpy: ``truth_matrix``).

The estimate depends only on public facts (which positions are face up and what they
show; the set of chocolates) and on a generator seeded from them, so the same table
always gives the same numbers, whoever looks and whatever lies face down.
"""

from __future__ import annotations

import functools
import hashlib
from collections import OrderedDict
from collections.abc import Iterable, Sequence

import numpy as np

from choco_envs.games.chocolates.components import (
    GRID_CELLS,
    NUM_CHOCOLATES,
    NUM_SHAPES,
    NUM_TYPES,
    PREDICTION_CARDS,
)
from choco_envs.games.chocolates.predictions import (
    BROWN,
    CORNERS,
    DARK,
    GOLD,
    GREEN,
    HEXAGONAL,
    LEFT,
    LINES,
    MAIN_DIAGONALS,
    OUTER,
    PINK,
    RIGHT,
    ROUND,
    TRIANGULAR,
    WHITE,
)

#: arrangements sampled per estimate (standard error <= 0.5 / sqrt(SAMPLES) = 0.044)
SAMPLES = 128
_CACHE_SIZE = 4096


def _bits(cells: Iterable[int]) -> int:
    return sum(1 << c for c in cells)


# Grid cells are the bits of a 16-bit mask (bit = cell index, row-major, 4 per row): a
# layout becomes one mask per type and per shape, and every prediction a few bit
# operations and population counts on them.
_CELL_VALUE = (1 << np.arange(GRID_CELLS, dtype=np.uint32)).astype(np.uint32)
_CELL_VALUE_F = _CELL_VALUE.astype(np.float64)
_TYPE_ONE_HOT = np.eye(NUM_TYPES)
_SHAPE_ONE_HOT = np.eye(NUM_SHAPES)
_FULL = (1 << GRID_CELLS) - 1
_NOT_COLUMN_0 = _bits(c for c in range(GRID_CELLS) if c % 4 != 0)
_NOT_COLUMN_3 = _bits(c for c in range(GRID_CELLS) if c % 4 != 3)
_OUTER, _LEFT, _RIGHT, _CORNERS = (_bits(c) for c in (OUTER, LEFT, RIGHT, CORNERS))
_LINES = np.array([_bits(line) for line in LINES], dtype=np.uint32)  # 4 rows, 4 columns
_DIAGONALS = [_bits(d) for d in MAIN_DIAGONALS]
_POPCOUNT = np.array([bin(m).count("1") for m in range(1 << GRID_CELLS)], dtype=np.int8)


def _neighbours(mask: np.ndarray) -> np.ndarray:
    """The cells orthogonally next to some cell of ``mask``."""
    near = (mask << 4) | (mask >> 4) | ((mask << 1) & _NOT_COLUMN_0) | ((mask >> 1) & _NOT_COLUMN_3)
    return near & _FULL


@functools.cache
def _largest_group_table() -> np.ndarray:
    """Size of the largest orthogonally connected group of every 16-bit mask: each
    cell's group grown to its full extent, then counted."""
    masks = np.arange(1 << GRID_CELLS, dtype=np.uint32)[:, None]
    reach = masks & _CELL_VALUE[None]
    for _ in range(GRID_CELLS - 1):
        grown = (reach | _neighbours(reach)) & masks
        if np.array_equal(grown, reach):
            break
        reach = grown
    return _POPCOUNT[reach].max(axis=1)


def truth_matrix(layouts: np.ndarray) -> np.ndarray:
    """(rows, 29) booleans: the truth of every prediction card (by card id) on each row
    of ``layouts`` (rows, 21) of kind codes; the same as ``predictions.evaluate_all``."""
    layouts = np.asarray(layouts)
    grid = layouts[:, :GRID_CELLS]
    types = grid // NUM_SHAPES
    shapes = grid % NUM_SHAPES
    beside = layouts[:, GRID_CELLS:] // NUM_SHAPES
    # t[k]: the mask of the cells holding type k, per row (likewise s for shapes)
    t = list((_CELL_VALUE_F @ _TYPE_ONE_HOT[types]).astype(np.uint32).T)
    s = list((_CELL_VALUE_F @ _SHAPE_ONE_HOT[shapes]).astype(np.uint32).T)
    pc = _POPCOUNT
    largest = _largest_group_table()
    all_t = np.stack(t, axis=1)  # (rows, 6)
    per_line = pc[all_t[:, :, None] & _LINES]  # (rows, 6, 8): type counts per line
    hex_line = pc[s[HEXAGONAL][:, None] & _LINES]

    def adjacent(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (_neighbours(a) & b) != 0

    def at_most_one_each(region: int) -> np.ndarray:
        return (pc[all_t & region] <= 1).all(axis=1)

    dark = t[DARK]
    diagonal_dark = ((dark << 5) & _NOT_COLUMN_0 & dark) | ((dark << 3) & _NOT_COLUMN_3 & dark)
    line_has = [(t[k][:, None] & _LINES) != 0 for k in (WHITE, GREEN, PINK)]
    columns = [
        pc[t[GOLD]] == 1,
        pc[t[GREEN]] == 2,
        pc[t[WHITE]] == 3,
        pc[t[PINK] & _OUTER] == 2,
        pc[t[DARK] & _OUTER] == 3,
        pc[s[ROUND] & _OUTER] == 4,
        pc[s[TRIANGULAR] & _OUTER] == pc[s[HEXAGONAL] & _OUTER],
        pc[t[BROWN] & _LEFT] == pc[t[BROWN] & _RIGHT],
        pc[t[DARK] & _LEFT] > pc[t[DARK] & _RIGHT],
        pc[s[TRIANGULAR] & _LEFT] > pc[s[TRIANGULAR] & _RIGHT],
        pc[s[ROUND]] > pc[s[TRIANGULAR]],
        pc[t[BROWN] & _LEFT] > pc[t[WHITE] & _LEFT],
        pc[t[GREEN] & _RIGHT] > pc[t[PINK] & _RIGHT],
        adjacent(t[PINK], t[GREEN]),
        adjacent(t[BROWN], t[BROWN]),
        largest[t[DARK]] >= 3,
        largest[s[ROUND]] >= 4,
        largest[s[TRIANGULAR]] >= 4,
        largest[s[HEXAGONAL]] >= 4,
        (hex_line >= 3).any(axis=1),
        (per_line >= 3).any(axis=(1, 2)),
        (line_has[0] & line_has[1] & line_has[2]).any(axis=1),
        adjacent(t[WHITE], t[WHITE]),
        diagonal_dark != 0,
        at_most_one_each(_DIAGONALS[0]) | at_most_one_each(_DIAGONALS[1]),
        pc[s[TRIANGULAR] & _CORNERS] >= 2,
        pc[s[ROUND] & _CORNERS] >= 2,
        at_most_one_each(_CORNERS),
        (beside[:, :, None] == np.arange(NUM_TYPES)).any(axis=1).sum(axis=1) >= 4,
    ]
    return np.stack(columns, axis=1)


def side_value(card: int, side: int, p_true: float) -> float:
    """Expected points of holding ``card`` with ``side`` up (0 true, 1 false)."""
    c = PREDICTION_CARDS[card]
    if side == 0:
        return c.true_points * (2 * p_true - 1)
    return c.false_points * (1 - 2 * p_true)


class TruthEstimator:
    """``truth_rates`` for one set of chocolates, with a cache keyed by the face-up ones
    (a turn's decisions and every seat's observation share an estimate)."""

    def __init__(self, chocolates: Sequence[int], samples: int = SAMPLES) -> None:
        self.chocolates = sorted(chocolates)
        self.samples = samples
        self._cache: OrderedDict[bytes, np.ndarray] = OrderedDict()

    def truth_rates(self, layout: Sequence[int], revealed: Sequence[bool]) -> np.ndarray:
        """(29,) float32: the estimated chance that each card is true, given only the
        chocolates at the ``revealed`` positions of ``layout``."""
        key = bytes(layout[pos] + 1 if revealed[pos] else 0 for pos in range(NUM_CHOCOLATES))
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        rates = self._estimate(layout, revealed, key)
        rates.flags.writeable = False  # shared by every caller of the cache
        self._cache[key] = rates
        if len(self._cache) > _CACHE_SIZE:
            self._cache.popitem(last=False)
        return rates

    def _estimate(self, layout: Sequence[int], revealed: Sequence[bool], key: bytes) -> np.ndarray:
        seed = int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little")
        samples = arrangements(self.chocolates, layout, revealed, self.samples, seed)
        if all(revealed):
            return truth_matrix(samples[:1]).astype(np.float32)[0]
        return truth_matrix(samples).mean(axis=0, dtype=np.float64).astype(np.float32)


def arrangements(
    chocolates: Sequence[int],
    layout: Sequence[int],
    revealed: Sequence[bool],
    count: int,
    seed: int,
) -> np.ndarray:
    """(count, 21) complete layouts: the chocolates at the ``revealed`` positions of
    ``layout`` where they lie, the unseen rest of ``chocolates`` dealt uniformly at random
    onto the face-down places (numpy generator seeded with ``seed``). Reads nothing of
    ``layout`` at face-down positions."""
    unseen = sorted(chocolates)
    for pos in range(NUM_CHOCOLATES):
        if revealed[pos]:
            unseen.remove(layout[pos])
    hidden = [pos for pos in range(NUM_CHOCOLATES) if not revealed[pos]]
    base = np.array([layout[pos] if revealed[pos] else 0 for pos in range(NUM_CHOCOLATES)])
    samples = np.tile(base, (count, 1))
    if hidden:
        order = np.random.default_rng(seed).random((count, len(hidden))).argsort(axis=1)
        samples[:, hidden] = np.array(unseen)[order]
    return samples
