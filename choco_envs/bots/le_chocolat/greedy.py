"""The greedy Le Chocolat player (``greedy``, the beginner baseline): one ply of lookahead.

It values tiles by the scoring card, using only what its seat knows: a tile it has seen
counts as its flavor, any other as the average of the tiles it has not seen. It claims the
chunk that most raises its lead (own card score minus the opponent's), and splits so as to
maximise its lead after its own best claim minus the best chunk the opponent could claim
next turn (an existing chunk of 3 or fewer tiles, or one a single cut would make).

Hands are scored by the rules' own :func:`~choco_envs.games.le_chocolat.rules.score_hand`
on expected counts (:func:`card_value`); the only thing the bot adds is caution about an
uncertain majority (:data:`MAJORITY_MARGIN`), which never matters for whole tile counts.
The alpha-beta bot (``alphabeta.py``) scores its positions with these same functions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from choco_envs.core.game import Rng
from choco_envs.games.le_chocolat import grid
from choco_envs.games.le_chocolat.components import ScoringCard
from choco_envs.games.le_chocolat.rules import (
    CLAIM,
    OVER,
    SMALL_PIECES,
    SPLIT,
    LeChocolatRules,
    LeChocolatState,
    claim_action,
    score_hand,
)

Counts = list[float]
#: a small bonus per tile claimed: more tiles win a tie on points
TILE_BONUS = 0.05
#: the bot counts a majority only when its expected tiles of that flavor exceed the
#: opponent's by more than this: with whole counts (every tile known) that is the rules'
#: strict majority exactly; with expected counts a near-tie is not counted as won
MAJORITY_MARGIN = 0.25


def card_value(card: ScoringCard, mine: Sequence[float], theirs: Sequence[float]) -> float:
    """The card's VP (``score_hand``, summed) for expected flavor counts, the opponent's
    counted :data:`MAJORITY_MARGIN` higher, so that a majority needs a clear lead. Equal
    to the rules' total for whole counts."""
    return sum(score_hand(card, mine, [t + MAJORITY_MARGIN for t in theirs]))


def lead(card: ScoringCard, mine: Sequence[float], theirs: Sequence[float]) -> float:
    """Own score minus the opponent's."""
    return card_value(card, mine, theirs) - card_value(card, theirs, mine)


def add(counts: Sequence[float], extra: Sequence[float]) -> Counts:
    return [a + b for a, b in zip(counts, extra, strict=True)]


class Beliefs:
    """What one seat expects of every tile: a flavor vector per cell (its caches live in
    the instance, made afresh for every decision)."""

    def __init__(self, game: LeChocolatRules, s: LeChocolatState, seat: int) -> None:
        n = len(game.components.flavors)
        cells, pool = game.unseen(s, seat)
        unseen = Counter(pool)  # flavor -> tiles the seat has not seen; -1 is blank/blank
        total = max(1, len(pool))
        average = [unseen[f] / total for f in range(n)]
        hidden = set(cells)
        self.cell: list[Counts] = []
        for c in range(grid.CELLS):
            vec = [0.0] * n
            if c in hidden:
                vec = average[:]
            elif s.flavor[c] >= 0:
                vec[s.flavor[c]] = 1.0
            self.cell.append(vec)
        self.n = n
        self._rects: dict[int, Counts] = {}
        self._keys: dict[int, tuple[tuple[float, ...], int]] = {}

    def of_cells(self, cells: Sequence[int]) -> Counts:
        out = [0.0] * self.n
        for c in cells:
            out = add(out, self.cell[c])
        return out

    def of_rect(self, rect: int) -> Counts:
        """``of_cells`` of chunk ``rect``'s cells (cached: the beliefs never change)."""
        out = self._rects.get(rect)
        if out is None:
            out = self._rects[rect] = self.of_cells(grid.RECT_CELLS[rect])
        return out

    def piece_key(self, rect: int) -> tuple[tuple[float, ...], int]:
        """What a claim of chunk ``rect`` is worth depends on: its expected flavor counts
        and its size (cached). Chunks with equal keys are worth the same to a claimer."""
        key = self._keys.get(rect)
        if key is None:
            key = self._keys[rect] = (tuple(self.of_rect(rect)), grid.SIZE[rect])
        return key

    def hand(self, s: LeChocolatState, seat: int) -> Counts:
        return self.of_cells([c for c in range(grid.CELLS) if s.owner[c] == seat])


def claim_gain(
    card: ScoringCard,
    beliefs: Beliefs,
    mine: Counts,
    theirs: Counts,
    rect: int,
    before: float | None = None,
) -> float:
    """How much claiming chunk ``rect`` raises the claimer's lead; ``before`` is
    ``lead(card, mine, theirs)`` when the caller already has it (it is the same for
    every chunk the claimer compares)."""
    if before is None:
        before = lead(card, mine, theirs)
    after = add(mine, beliefs.of_rect(rect))
    return lead(card, after, theirs) - before + TILE_BONUS * grid.SIZE[rect]


def best_claim(
    card: ScoringCard, beliefs: Beliefs, s: LeChocolatState, mine: Counts, theirs: Counts
) -> tuple[float, int]:
    """(gain, top-left cell) of the best chunk of 3 or fewer tiles to claim."""
    before = lead(card, mine, theirs)
    return max(
        (claim_gain(card, beliefs, mine, theirs, s.chunk_at[c], before), c)
        for c in s.claimable_cells()
    )


def opponent_threat(
    card: ScoringCard, beliefs: Beliefs, s: LeChocolatState, opp: Counts, me: Counts
) -> float:
    """The best gain the player to move can claim on their coming turn (0 if none): a
    chunk of 3 or fewer tiles on the table, or one that a single cut makes
    (``rules.SMALL_PIECES``)."""
    if s.phase == OVER:
        return 0.0
    pieces = (
        {p for r in s.chunk_at if r >= 0 for p in SMALL_PIECES[r]}
        if s.phase == SPLIT
        else {s.chunk_at[c] for c in s.claimable_cells()}
    )
    if not pieces:
        return 0.0
    before = lead(card, opp, me)
    # one chunk per distinct (expected counts, size): equal keys gain exactly the same
    unique = {beliefs.piece_key(r): r for r in pieces}
    return max(claim_gain(card, beliefs, opp, me, r, before) for r in unique.values())


def split_value(
    game: LeChocolatRules,
    card: ScoringCard,
    beliefs: Beliefs,
    state: LeChocolatState,
    action: int,
    mine: Counts,
    theirs: Counts,
    rng: Rng,
) -> float:
    """Own lead after this split and the best claim it allows, less the opponent's threat."""
    seat = state.player
    t = game.copy(state)
    game.apply(t, action, rng)
    if t.phase == CLAIM and t.player == seat:
        cell = best_claim(card, beliefs, t, mine, theirs)[1]
        game.apply(t, claim_action(cell), rng)
    gained = [c for c in range(grid.CELLS) if t.owner[c] == seat and state.owner[c] != seat]
    after = add(mine, beliefs.of_cells(gained))
    bonus = TILE_BONUS * len(gained)
    given = [c for c in range(grid.CELLS) if t.owner[c] == 1 - seat and state.owner[c] != 1 - seat]
    opp = add(theirs, beliefs.of_cells(given))  # a forced claim on an empty turn
    threat = opponent_threat(card, beliefs, t, opp, after)
    return lead(card, after, opp) + bonus - TILE_BONUS * len(given) - threat


def greedy_action(game: LeChocolatRules, state: LeChocolatState, rng: Rng) -> int:
    """The greedy choice of the seat to act in a (determinized) state: the best claim,
    or the split of highest :func:`split_value`, ties broken at random."""
    seat = state.player
    card = game.card(state)
    beliefs = Beliefs(game, state, seat)
    mine, theirs = beliefs.hand(state, seat), beliefs.hand(state, 1 - seat)
    if state.phase == CLAIM:
        return claim_action(best_claim(card, beliefs, state, mine, theirs)[1])
    best_value, best = -1e9, []
    for action in game.legal_actions(state):
        value = split_value(game, card, beliefs, state, action, mine, theirs, rng)
        if value > best_value + 1e-9:
            best_value, best = value, [action]
        elif value > best_value - 1e-9:
            best.append(action)
    return rng.choice(best)
