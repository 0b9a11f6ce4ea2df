"""What a Chocolatiers seat can work out from what it sees: the ``"derived"`` observation.

``"flat"`` gives the raw facts (hands, tile costs, Sampler planes); a network has to learn
from them that a tile is affordable, which card brings a tile closest, or where a tile
or a wild grows a group. These are short computations from the rules (the greedy bot
makes them every turn), so the ``"derived"`` encoder adds them after the ``"flat"``
fields, all from what the observer may see: its own hand, and for the other seats only
the cards the table has seen them take (``State.known``), never their dealt cards.

Fields (T tile rows: the 5 tiles on offer, then, standard edition, the observer's
reserved tile):

- ``afford``: per tile row, (cards a cheapest payment from the observer's hand uses,
  cards still missing) / 8, 1 if it can be paid now, and (points - 0.4 x cards used) / 8;
- ``afford_others``: per other seat (turn order after the observer) and offered tile,
  the cards still missing from the cards the table knows it holds / 8, and 1 if those
  alone pay it;
- ``take_gain``: per card type, how much taking one card of it raises the observer's best
  "points - 0.4 x cards used - 2.5 x cards missing" over the tile rows, / 2.5;
- ``wild_gain``: per space of the observer's Sampler, the growth of its most-grown
  largest group if a wild went there (0 where none may go), / 6;
- ``place_gain``: per place action (frame slot x rotation, the order of actions 66..101),
  for the seat placing a tile: the growth of the sum of squared largest groups that
  placement gives, / 100 (0 for illegal placements and for every other seat).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from choco_envs.core.encoding import Layout
from choco_envs.games.chocolatiers.rules import (
    EMPTY,
    LEGAL_SLOTS,
    NEIGHBORS,
    NT,
    PLACE_TILE,
    SLOT_SPACES,
    WILD,
    largest_groups,
    single_best,
)

if TYPE_CHECKING:
    from choco_envs.games.chocolatiers.rules import ChocolatiersGame, State

#: the greedy bot's weights: a card used costs 0.4 points, a card missing 2.5
USED_COST = 0.4
MISSING_COST = 2.5
#: the tuned greedy settings' weight of a card used (``greedy.STRONG``), for ``"contest"``
STRONG_USED_COST = 1.2
LEAD_SCALE = 10.0
CARDS_SCALE = 8.0
WILD_SCALE = 6.0
PLACE_SCALE = 100.0
_CACHE_LIMIT = 20000


def cards_needed(hand: tuple[int, ...], cost: list[int]) -> tuple[int, int]:
    """(cards a cheapest payment of ``cost`` from ``hand`` uses, cards still missing):
    every chocolate paid singly where possible, the rest with pairs of surplus cards (the
    greedy bot's count, ``greedy.cards_needed``)."""
    single = pairs = missing = 0
    for have, want in zip(hand, cost, strict=True):
        if have >= want:
            single += want
            pairs += (have - want) >> 1
        else:
            single += have
            missing += want - have
    covered = min(pairs, missing)
    return single + 2 * covered, missing - covered


def with_one_more(hand: tuple[int, ...], cost: list[int]) -> list[tuple[int, int]]:
    """``cards_needed`` of ``hand`` plus one card of each type in turn."""
    out = []
    for t in range(NT):
        more = list(hand)
        more[t] += 1
        out.append(cards_needed(tuple(more), cost))
    return out


def group_score(cells: tuple[int, ...] | list[int]) -> int:
    """The sum of squared largest groups (by type) of a Sampler: the greedy bot's
    placement measure."""
    return sum(g * g for g in largest_groups(list(cells)))


def placement_score(
    game: ChocolatiersGame, cells: tuple[int, ...] | list[int], tile: int, code: int
) -> int:
    """``group_score`` of the Sampler ``cells`` with ``tile`` put in frame slot code // 4,
    rotated code % 4 quarter turns (place action ``PLACE + code``)."""
    slot, rot = divmod(code, 4)
    trial = list(cells)
    for space, v in zip(SLOT_SPACES[slot], game.rotated[tile][rot], strict=True):
        trial[space] = v
    return group_score(trial)


def wild_gains(cells: tuple[int, ...] | list[int]) -> list[int]:
    """Per Sampler space, the growth of the most-grown largest group (by type) if a wild
    went there, 0 where none may go: the greedy bot's ``_best_wild`` measure, for every
    space at once. A wild joins every group of a type next to it (through chains of
    wilds), so per type the cells showing it or a wild are labelled into components once,
    and a wild on space i makes one group of i and the components around it."""
    now = largest_groups(list(cells))
    gains = [0] * 36
    candidates = [i for i, v in enumerate(cells) if EMPTY <= v < WILD]
    if not candidates:
        return gains
    for t in range(NT):
        label = [-1] * 36
        sizes: list[int] = []
        has_t: list[bool] = []
        for start in range(36):
            if label[start] >= 0 or not (cells[start] == t or cells[start] == WILD):
                continue
            k = len(sizes)
            label[start] = k
            stack, size, typed = [start], 0, False
            while stack:
                i = stack.pop()
                size += 1
                typed = typed or cells[i] == t
                for j in NEIGHBORS[i]:
                    if label[j] < 0 and (cells[j] == t or cells[j] == WILD):
                        label[j] = k
                        stack.append(j)
            sizes.append(size)
            has_t.append(typed)
        for i in candidates:
            if cells[i] == t:
                continue  # covering a t with a wild never grows t's groups
            around = {label[j] for j in NEIGHBORS[i] if label[j] >= 0}
            if any(has_t[k] for k in around):
                merged = 1 + sum(sizes[k] for k in around)
                gains[i] = max(gains[i], merged - now[t])
    return gains


Needs = tuple[int, tuple[int, int], list[tuple[int, int]]]


def cached_fields(
    cache: dict[tuple[object, ...], np.ndarray],
    key: tuple[object, ...],
    size: int,
    compute: Callable[[tuple[object, ...], np.ndarray], None],
) -> np.ndarray:
    """The fields for ``key`` (read-only), computed into zeros by ``compute`` once."""
    hit = cache.get(key)
    if hit is None:
        hit = np.zeros(size, dtype=np.float32)
        compute(key, hit)
        hit.flags.writeable = False
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[key] = hit
    return hit


def cached_needs(
    game: ChocolatiersGame,
    cache: dict[tuple[tuple[int, ...], int], tuple[tuple[int, int], list[tuple[int, int]]]],
    hand: tuple[int, ...],
    tile: int,
) -> tuple[tuple[int, int], list[tuple[int, int]]]:
    """(``cards_needed``, ``with_one_more``) of ``tile`` from ``hand``, kept in ``cache``."""
    key = (hand, tile)
    hit = cache.get(key)
    if hit is None:
        cost = game.tile_cost[tile]
        hit = (cards_needed(hand, cost), with_one_more(hand, cost))
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[key] = hit
    return hit


def take_gains(needs: list[Needs], used_cost: float) -> np.ndarray | None:
    """Per card type, the rise of the best "points - used_cost x cards used - 2.5 x cards
    missing" over the tile rows if one card of it were taken, / 2.5, clipped to -1..1;
    ``needs``: per tile row (points, (used, missing) now, the same per type with one
    more card). None when no tile is on offer."""
    if not needs:
        return None
    now = max(p - used_cost * u - MISSING_COST * m for p, (u, m), _ in needs)
    gain = []
    for t in range(NT):
        best = max(p - used_cost * more[t][0] - MISSING_COST * more[t][1] for p, _, more in needs)
        gain.append((best - now) / MISSING_COST)
    return np.clip(gain, -1.0, 1.0)


def derived_layout(n: int, standard: bool) -> Layout:
    """The fields ``DerivedFeatures`` writes (appended after ``"flat"``)."""
    rows = 6 if standard else 5
    where = "5 offered tiles" + (", own reserved tile" if standard else "")
    lay = Layout()
    lay.add(
        "afford",
        rows * 4,
        f"per tile row ({where}): cards a cheapest payment from own hand uses / 8, cards "
        "missing / 8, payable now, (points - 0.4 x cards used) / 8",
        -1.0,
        1.0,
    )
    lay.add(
        "afford_others",
        (n - 1) * 5 * 2,
        "per other seat x offered tile: cards missing from its publicly known cards / 8, "
        "payable from them alone",
    )
    lay.add(
        "take_gain",
        NT,
        "per card type: rise of the best (points - 0.4 used - 2.5 missing) over the tile "
        "rows if one card of it were taken, / 2.5",
        -1.0,
        1.0,
    )
    lay.add(
        "wild_gain",
        36,
        "per own Sampler space: growth of the most-grown largest group if a wild went "
        "there (0 where none may go), / 6",
    )
    lay.add(
        "place_gain",
        36,
        "per place action (slot x rotation, actions 66..101), for the seat placing a "
        "tile: growth of the sum of squared largest groups, / 100",
    )
    return lay


class DerivedFeatures:
    """Computes the ``derived`` fields of one configuration of the game."""

    def __init__(self, game: ChocolatiersGame) -> None:
        self.game = game
        self.n = game.num_players
        self.standard = not game.classic
        self.layout = derived_layout(self.n, self.standard)
        self._wild_cache: dict[tuple[int, ...], np.ndarray] = {}
        self._place_cache: dict[tuple[object, ...], np.ndarray] = {}
        self._cache: dict[tuple[object, ...], np.ndarray] = {}
        self._need_cache: dict[
            tuple[tuple[int, ...], int], tuple[tuple[int, int], list[tuple[int, int]]]
        ] = {}
        f = {x.name: x for x in self.layout.fields}
        self.at = {name: slice(x.start, x.stop) for name, x in f.items()}

    def rows(self, s: State, player: int) -> list[int]:
        rows = list(s.display)
        if self.standard:
            rows.append(s.reserved[player])
        return rows

    def fill(self, s: State, player: int, out: np.ndarray) -> None:
        """Write the fields into ``out`` (zeroed, the layout's size). The fields are a
        function of a few public-or-own facts, so results are kept per those facts."""
        n = self.n
        others = tuple(
            tuple(s.known[q * NT : q * NT + NT]) for q in ((player + k) % n for k in range(1, n))
        )
        placing = s.phase == PLACE_TILE and s.player == player and s.pending >= 0
        key = (
            tuple(self.rows(s, player)),
            tuple(s.hand[player * NT : player * NT + NT]),
            others,
            tuple(s.cells[player * 36 : player * 36 + 36]),
            (s.pending, s.occ[player]) if placing else None,
        )
        out[:] = cached_fields(self._cache, key, self.layout.size, self._compute)

    def _compute(self, key: tuple, out: np.ndarray) -> None:  # type: ignore[type-arg]
        rows, hand, others, cells, placing = key
        at = self.at
        tile_cost, tile_points = self.game.tile_cost, self.game.tile_points
        afford = [0.0] * (4 * len(rows))
        needs = []
        for i, tile in enumerate(rows):
            if tile < 0:
                continue
            (used, missing), more = self._needs(hand, tile)
            points = tile_points[tile]
            needs.append((points, (used, missing), more))
            afford[4 * i : 4 * i + 4] = (
                used / CARDS_SCALE,
                missing / CARDS_SCALE,
                float(missing == 0),
                (points - USED_COST * used) / 8.0,
            )
        out[at["afford"]] = np.clip(afford, -1.0, 1.0)
        gain = take_gains(needs, USED_COST)
        if gain is not None:
            out[at["take_gain"]] = gain
        others_out: list[float] = []
        for known in others:
            for tile in rows[:5]:
                if tile < 0:
                    others_out += (0.0, 0.0)
                else:
                    missing = cards_needed(known, tile_cost[tile])[1]
                    others_out += (min(1.0, missing / CARDS_SCALE), float(missing == 0))
        out[at["afford_others"]] = others_out
        out[at["wild_gain"]] = self.wild_gain(cells)
        if placing is not None:
            out[at["place_gain"]] = self.place_gain(cells, *placing)

    def _needs(
        self, hand: tuple[int, ...], tile: int
    ) -> tuple[tuple[int, int], list[tuple[int, int]]]:
        return cached_needs(self.game, self._need_cache, hand, tile)

    def wild_gain(self, cells: tuple[int, ...]) -> np.ndarray:
        hit = self._wild_cache.get(cells)
        if hit is None:
            hit = np.clip(np.asarray(wild_gains(cells), dtype=np.float32) / WILD_SCALE, 0, 1)
            hit.flags.writeable = False
            self._remember(self._wild_cache, cells, hit)
        return hit

    def place_gain(self, cells: tuple[int, ...], tile: int, occ: int) -> np.ndarray:
        key = (cells, tile, occ)
        hit = self._place_cache.get(key)
        if hit is not None:
            return hit
        before = group_score(cells)
        gain = np.zeros(36, dtype=np.float32)
        for slot in LEGAL_SLOTS[occ]:
            for rot in range(4):
                after = placement_score(self.game, cells, tile, 4 * slot + rot)
                gain[4 * slot + rot] = (after - before) / PLACE_SCALE
        gain = np.clip(gain, 0.0, 1.0)
        gain.flags.writeable = False
        self._remember(self._place_cache, key, gain)
        return gain

    @staticmethod
    def _remember(cache: dict, key: object, value: object) -> None:  # type: ignore[type-arg]
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[key] = value


# ---------------------------------------------------------------- the "contest" fields
def contest_layout() -> Layout:
    """The fields ``ContestFeatures`` writes (appended after ``"derived"``)."""
    lay = Layout()
    lay.add(
        "place_lead",
        36,
        "per place action (slot x rotation, actions 66..101), for the seat placing a "
        "tile: change of its Score tile lead (type Score tiles it would win less those a "
        "single other seat would win) / 10 (0 for illegal placements and other seats)",
        -1.0,
        1.0,
    )
    lay.add(
        "wild_lead",
        36,
        "per own Sampler space: change of the Score tile lead if a wild went there / 10 "
        "(0 where none may go)",
        -1.0,
        1.0,
    )
    lay.add(
        "take_gain_strong",
        NT,
        "per card type: take_gain with a card used costing 1.2 points (the tuned greedy "
        "settings) instead of 0.4, / 2.5",
        -1.0,
        1.0,
    )
    return lay


def score_tile_lead(
    type_score: tuple[int, ...], mine: list[int], others: tuple[tuple[int, ...], ...]
) -> float:
    """Points of the type Score tiles a seat with largest groups ``mine`` would win, less
    those a single other seat would win (``others``: each other seat's largest groups).
    The rule is the rules module's own (``rules.single_best``: the single seat with the
    largest group; a tie, nobody)."""
    lead = 0.0
    for t in range(NT):
        winner = single_best([mine[t], *(g[t] for g in others)])
        if winner == 0:
            lead += type_score[t]
        elif winner > 0:
            lead -= type_score[t]
    return lead


class ContestFeatures:
    """Computes the ``contest`` fields: what a tile or a wild does to the Score tiles
    against the other seats' Samplers (public), and the tuned take gain."""

    def __init__(self, game: ChocolatiersGame) -> None:
        self.game = game
        self.n = game.num_players
        self.standard = not game.classic
        self.layout = contest_layout()
        self.at = {x.name: slice(x.start, x.stop) for x in self.layout.fields}
        self._cache: dict[tuple[object, ...], np.ndarray] = {}
        self._need_cache: dict[
            tuple[tuple[int, ...], int], tuple[tuple[int, int], list[tuple[int, int]]]
        ] = {}

    def fill(self, s: State, player: int, out: np.ndarray) -> None:
        n = self.n
        others = tuple(tuple(s.groups[q * NT : q * NT + NT]) for q in range(n) if q != player)
        rows = list(s.display)
        if self.standard:
            rows.append(s.reserved[player])
        placing = s.phase == PLACE_TILE and s.player == player and s.pending >= 0
        key = (
            tuple(s.cells[player * 36 : player * 36 + 36]),
            others,
            tuple(rows),
            tuple(s.hand[player * NT : player * NT + NT]),
            (s.pending, s.occ[player]) if placing else None,
        )
        out[:] = cached_fields(self._cache, key, self.layout.size, self._compute)

    def _compute(self, key: tuple, out: np.ndarray) -> None:  # type: ignore[type-arg]
        cells, others, rows, hand, placing = key
        game, at = self.game, self.at
        scores = game.type_score
        now = score_tile_lead(scores, largest_groups(list(cells)), others)
        if placing is not None:
            tile, occ = placing
            lead = np.zeros(36, dtype=np.float32)
            for slot in LEGAL_SLOTS[occ]:
                for rot in range(4):
                    trial = list(cells)
                    for space, v in zip(SLOT_SPACES[slot], game.rotated[tile][rot], strict=True):
                        trial[space] = v
                    after = score_tile_lead(scores, largest_groups(trial), others)
                    lead[4 * slot + rot] = (after - now) / LEAD_SCALE
            out[at["place_lead"]] = np.clip(lead, -1.0, 1.0)
        wild = np.zeros(36, dtype=np.float32)
        for i, v in enumerate(cells):
            if EMPTY <= v < WILD:
                trial = list(cells)
                trial[i] = WILD
                wild[i] = (
                    score_tile_lead(scores, largest_groups(trial), others) - now
                ) / LEAD_SCALE
        out[at["wild_lead"]] = np.clip(wild, -1.0, 1.0)
        needs = [(game.tile_points[t], *self._needs(hand, t)) for t in rows if t >= 0]
        gain = take_gains(needs, STRONG_USED_COST)
        if gain is not None:
            out[at["take_gain_strong"]] = gain

    def _needs(
        self, hand: tuple[int, ...], tile: int
    ) -> tuple[tuple[int, int], list[tuple[int, int]]]:
        return cached_needs(self.game, self._need_cache, hand, tile)
