"""The Sampler of Chocolatiers: its geometry, the groups of chocolates through wilds, and
paying a tile's cost with substitutions; pure helpers on plain lists, written once and read
by the rules, encoders, records and bots. A leaf module of the game (it imports only the
components, and numpy for the vectorised payment).

Geometry. A Sampler is kept **anchored**: its tiles lie in a 3x3 frame of tile slots
(slot = 3 * row + col) with its top row and left column occupied, so every legal Sampler
(at most 3x2 or 2x3 tiles) fits. Its spaces form a 6x6 grid (space = 6 * row + col). A new
tile goes to a **position** (row, col), each in -1..2, relative to the Sampler's top-left
slot (position = 4 * (row + 1) + col + 1): a tile placed above or left of the Sampler
(row or col -1) shifts the picture one slot down or right so that it stays anchored; the
tiles themselves never move relative to each other. This way every arrangement within
3x2 or 2x3 is reachable in every placement order (the first tile may end at an end of the
long side). A tile's spaces are read top-left, top-right, bottom-left, bottom-right;
rotation ``r`` turns it ``r`` quarter turns clockwise.

A cell of the grid is NO_TILE (-2), EMPTY (-1, a tile space without a chocolate), a
type 0..5, or WILD (6: a wild chocolate lies there; it no longer counts as what it covers).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import chain, repeat

import numpy as np

from choco_envs.games.chocolatiers.components import TYPES

NT = len(TYPES)  # 6 chocolate types
NO_TILE, EMPTY, WILD = -2, -1, 6
POSITIONS = 16  # placement positions: (row, col) in -1..2 around the anchored Sampler


# ---------------------------------------------------------------- geometry
def _slot_spaces(slot: int) -> tuple[int, int, int, int]:
    sr, sc = divmod(slot, 3)
    return tuple((2 * sr + k // 2) * 6 + 2 * sc + k % 2 for k in range(4))  # type: ignore[return-value]


#: the 4 spaces (TL, TR, BL, BR) of each of the 9 frame slots
SLOT_SPACES = tuple(_slot_spaces(s) for s in range(9))
NEIGHBORS = tuple(
    tuple(
        (r + dr) * 6 + c + dc
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
        if 0 <= r + dr < 6 and 0 <= c + dc < 6
    )
    for r, c in (divmod(i, 6) for i in range(36))
)


def position_of(row: int, col: int) -> int:
    """The placement position of (row, col), each in -1..2, relative to the Sampler's
    top-left slot."""
    return 4 * (row + 1) + col + 1


def position_row_col(position: int) -> tuple[int, int]:
    """(row, col) relative to the Sampler's top-left slot of a placement position."""
    return position // 4 - 1, position % 4 - 1


def fits_sampler(cells: set[tuple[int, int]]) -> bool:
    """Whether tile slots ``cells`` lie within 3x2 or 2x3 (Rulings: "The Sampler is at
    most 3x2 tiles (either orientation)")."""
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    height, width = max(rows) - min(rows) + 1, max(cols) - min(cols) + 1
    return max(height, width) <= 3 and min(height, width) <= 2


def _placement(occ: int, position: int) -> tuple[int, int, int] | None:
    """(new occupancy, row shift, col shift) of a tile put at ``position`` of the
    anchored Sampler ``occ``, or None where the rules refuse it: the first tile starts
    the Sampler; every later one joins a placed tile on a full edge, on a free slot, and
    keeps the Sampler within 3x2 or 2x3."""
    row, col = position_row_col(position)
    placed = {divmod(s, 3) for s in range(9) if occ >> s & 1}
    if not placed:
        return (1, 0, 0) if (row, col) == (0, 0) else None
    if (row, col) in placed:
        return None
    if not any((row + dr, col + dc) in placed for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))):
        return None
    grown = placed | {(row, col)}
    if not fits_sampler(grown):
        return None
    dr, dc = -min(r for r, _ in grown), -min(c for _, c in grown)
    if dr < 0 or dc < 0 or max(r for r, _ in grown) + dr > 2 or max(c for _, c in grown) + dc > 2:
        return None  # only anchored Samplers are ever played
    return sum(1 << (3 * (r + dr) + c + dc) for r, c in grown), dr, dc


#: per occupancy of the 9 frame slots: placement position -> (new occupancy, row shift,
#: col shift), for every position the rules allow
PLACEMENTS: tuple[Mapping[int, tuple[int, int, int]], ...] = tuple(
    {p: r for p in range(POSITIONS) if (r := _placement(occ, p)) is not None} for occ in range(512)
)
#: per occupancy, the legal placement positions in increasing order
LEGAL_POSITIONS = tuple(tuple(sorted(table)) for table in PLACEMENTS)


def _reachable_occupancies() -> frozenset[int]:
    seen, frontier = {0}, [0]
    while frontier:
        occ = frontier.pop()
        for new, _, _ in PLACEMENTS[occ].values():
            if new not in seen:
                seen.add(new)
                frontier.append(new)
    return frozenset(seen)


#: every occupancy a Sampler can have (anchored, connected, within 3x2 or 2x3)
REACHABLE_OCCUPANCIES = _reachable_occupancies()


def rotate(spaces: tuple[int, ...], quarter_turns: int) -> tuple[int, ...]:
    """Spaces (TL, TR, BL, BR) after ``quarter_turns`` clockwise quarter turns."""
    for _ in range(quarter_turns % 4):
        tl, tr, bl, br = spaces
        spaces = (bl, tl, br, tr)
    return spaces


def occupancy(cells: Sequence[int]) -> int:
    """The occupied frame slots (bit ``slot``) of the anchored Sampler ``cells``: a slot
    holds a tile where its spaces are not NO_TILE."""
    return sum(1 << slot for slot in range(9) if cells[SLOT_SPACES[slot][0]] != NO_TILE)


def shift_cells(cells: Sequence[int], dr: int, dc: int) -> list[int]:
    """The 36 cells moved ``dr`` tile rows down and ``dc`` tile columns right (what
    re-anchoring does when a tile goes above or left of the Sampler)."""
    out = [NO_TILE] * 36
    for r in range(6 - 2 * dr):
        for c in range(6 - 2 * dc):
            out[(r + 2 * dr) * 6 + c + 2 * dc] = cells[r * 6 + c]
    return out


def placed_cells(
    cells: Sequence[int], occ: int, spaces: Sequence[int], position: int
) -> tuple[list[int], int]:
    """(the 36 cells, the occupancy) of the anchored Sampler ``cells`` / ``occ`` after a
    tile showing ``spaces`` (TL, TR, BL, BR, already rotated) goes to ``position``, which
    must be legal (``LEGAL_POSITIONS[occ]``)."""
    new_occ, dr, dc = PLACEMENTS[occ][position]
    out = shift_cells(cells, dr, dc) if dr or dc else list(cells)
    row, col = position_row_col(position)
    for space, v in zip(SLOT_SPACES[3 * (row + dr) + col + dc], spaces, strict=True):
        out[space] = v
    return out, new_occ


# ---------------------------------------------------------------- groups through wilds
def type_components(
    cells: Sequence[int], t: int, base: int = 0
) -> tuple[list[int], list[int], list[int]]:
    """The connected groups of type ``t`` in the 36 cells from ``base``: (label of each
    space, -1 outside every group; size of each group; how many of its cells show ``t``).

    Rulings: a wild "counts as every chocolate type orthogonally adjacent to it, and
    through chains of adjacent wilds as every type any wild in the chain touches, and
    wilds count in the size of the groups they join": so the cells showing ``t`` or a
    wild are joined orthogonally, and a group counts for ``t`` only if it holds a ``t``."""
    c = cells[base : base + 36]
    label = [-1] * 36
    sizes: list[int] = []
    typed: list[int] = []
    neighbors = NEIGHBORS
    for start in [i for i in range(36) if c[i] == t or c[i] == WILD]:
        if label[start] >= 0:
            continue
        k = len(sizes)
        label[start] = k
        stack, size, count = [start], 0, 0
        while stack:
            i = stack.pop()
            size += 1
            if c[i] == t:
                count += 1
            for j in neighbors[i]:
                if label[j] < 0 and (c[j] == t or c[j] == WILD):
                    label[j] = k
                    stack.append(j)
        sizes.append(size)
        typed.append(count)
    return label, sizes, typed


def largest_groups(cells: Sequence[int], base: int = 0) -> list[int]:
    """Size of the largest connected group of each type in the 36 cells from ``base``
    (wilds included, :func:`type_components`); 0 for a type with no group."""
    c = cells[base : base + 36]
    present = set(c)
    best = [0] * NT
    for t in range(NT):
        if t in present:
            _, sizes, typed = type_components(c, t)
            best[t] = max((size for size, k in zip(sizes, typed, strict=True) if k), default=0)
    return best


def wild_spaces(cells: Sequence[int], base: int = 0) -> list[int]:
    """The spaces where a wild may go: any space of a tile, empty or holding a chocolate,
    that holds no wild yet (the rulings)."""
    return [i for i in range(36) if EMPTY <= cells[base + i] < WILD]


def groups_with_a_wild(cells: Sequence[int]) -> dict[int, list[int]]:
    """For every space where a wild may go, ``largest_groups`` of the Sampler with a wild
    there (the vectorised form of placing each wild in turn; a test ties the two).

    Per type the groups are labelled once: a wild on a space that does not show the type
    joins the groups around it (and itself); a wild covering the type leaves its group's
    size unchanged, and the group stops counting if that was its only chocolate of it."""
    spaces = wild_spaces(cells)
    out = {i: [0] * NT for i in spaces}
    for t in range(NT):
        label, sizes, typed = type_components(cells, t)
        ranked = sorted((size, k) for k, size in enumerate(sizes) if typed[k])
        now = ranked[-1][0] if ranked else 0
        runner_up = ranked[-2][0] if len(ranked) > 1 else 0
        for i in spaces:
            if cells[i] == t:
                k = label[i]
                alone = typed[k] == 1 and ranked[-1][1] == k
                out[i][t] = runner_up if alone else now
                continue
            around = {label[j] for j in NEIGHBORS[i] if label[j] >= 0}
            if any(typed[k] for k in around):
                out[i][t] = max(now, 1 + sum(sizes[k] for k in around))
            else:
                out[i][t] = now
    return out


# ---------------------------------------------------------------- paying
def cheapest_payment(hand: Sequence[int], base: int, cost: Sequence[int]) -> tuple[int, int]:
    """(cards a cheapest payment of ``cost`` from hand[base:base+6] uses, chocolates it
    cannot pay). Each chocolate is paid with one matching card or two cards of one type
    (rulebook 000: "You may discard 2 matching Chocolate cards ... to substitute for any 1
    chocolate"). Paying singly is never worse, so every chocolate is paid singly where
    possible and the rest with pairs of the surplus cards."""
    single = pairs = missing = 0
    for have, want in zip(hand[base : base + NT], cost, strict=True):
        if have >= want:
            single += want
            pairs += (have - want) >> 1
        else:
            single += have
            missing += want - have
    covered = pairs if pairs < missing else missing
    return single + 2 * covered, missing - covered


def cheapest_payment_batch(hands: np.ndarray, costs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`cheapest_payment` of every pair at once (the vectorised form; a test ties the
    two on every hand and cost up to 4 of a type): ``hands`` (..., 6) and ``costs`` (..., 6)
    int arrays that broadcast together -> (cards used, chocolates not payable), int arrays
    of the broadcast shape without the last axis."""
    # type axis first: six whole-array steps instead of reductions over a short last axis
    have, want = np.broadcast_arrays(
        np.moveaxis(np.asarray(hands, np.int16), -1, 0),
        np.moveaxis(np.asarray(costs, np.int16), -1, 0),
    )
    single = np.zeros(have.shape[1:], np.int16)
    pairs, missing = single.copy(), single.copy()
    for h, w in zip(have, want, strict=True):
        diff = h - w
        surplus = np.maximum(diff, 0)
        single += np.minimum(h, w)
        pairs += surplus >> 1
        missing += surplus - diff
    covered = np.minimum(pairs, missing)
    return (single + 2 * covered).astype(np.int64), (missing - covered).astype(np.int64)


def cards_of(counts: Iterable[int]) -> list[int]:
    """The cards of ``counts`` (one count per type), in type order."""
    return list(chain.from_iterable(map(repeat, range(NT), counts)))


def payable(hand: Sequence[int], base: int, cost: Sequence[int]) -> bool:
    """Whether ``cost`` (chocolates by type) can be paid from hand[base:base+6]."""
    return cheapest_payment(hand, base, cost)[1] == 0


def spliced(seq: tuple[int, ...], at: int, values: Iterable[int]) -> tuple[int, ...]:
    """``seq`` with ``values`` written from index ``at`` on, as a new tuple: the state's
    Sampler fields are tuples, replaced whole when a seat places, so copies share them."""
    new = tuple(values)
    return seq[:at] + new + seq[at + len(new) :]


def shift_slots(slots: Sequence[int], dr: int, dc: int, fill: int) -> list[int]:
    """The 9 frame slots moved ``dr`` rows down and ``dc`` columns right (re-anchoring after
    a tile placed above or left), vacated slots set to ``fill``."""
    out = [fill] * 9
    for r in range(3 - dr):
        for c in range(3 - dc):
            out[3 * (r + dr) + c + dc] = slots[3 * r + c]
    return out
