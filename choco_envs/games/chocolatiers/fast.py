"""Fast forms on the search path of Chocolatiers, each the same answer as a plain form
(tests/games/chocolatiers/test_chocolatiers_fast_forms.py ties them): the tiles a hand
can pay (``payable`` of each tile's cost), remembered by hand. A leaf module of the game,
like the Sampler's (it imports only :mod:`.sampler`)."""

from __future__ import annotations

from collections.abc import Sequence

from choco_envs.games.chocolatiers.sampler import NT, payable

#: the answers of every :class:`Affordable`, by tile costs (one per tile set), then by hand
_MEMOS: dict[tuple[tuple[int, ...], ...], dict[tuple[int, ...], int]] = {}
#: hands are few (a hand holds a few cards), so a memo stays small; past this many hands
#: it is cleared all the same
MEMO_HANDS = 20_000


class Affordable:
    """``affordable(hand, base)``: the tiles hand[base:base+6] can pay, as a bitmask over
    tile ids (bit ``tile`` is :func:`payable` of ``costs[tile]``), remembered by hand and
    shared by every game of the same tile set."""

    def __init__(self, costs: Sequence[Sequence[int]]) -> None:
        self.costs = tuple(tuple(cost) for cost in costs)
        self.memo = _MEMOS.setdefault(self.costs, {})

    def __call__(self, hand: Sequence[int], base: int) -> int:
        own = tuple(hand[base : base + NT])
        able = self.memo.get(own)
        if able is None:
            able = sum(1 << tile for tile, cost in enumerate(self.costs) if payable(own, 0, cost))
            if len(self.memo) >= MEMO_HANDS:
                self.memo.clear()
            self.memo[own] = able
        return able
