"""A greedy Le Chocolat player with one ply of lookahead.

It values tiles by the scoring card, using only what its seat knows: a tile it has seen
counts as its flavor, any other as the average of the tiles it has not seen. It claims the
chunk that most raises its lead (own card score minus the opponent's), and splits so as to
maximise its lead after its own best claim minus the best chunk the opponent could claim
next turn (an existing chunk of 3 or fewer tiles, or one a single cut would make).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from choco_envs.core.game import Rng
from choco_envs.games.le_chocolat import grid
from choco_envs.games.le_chocolat.components import ScoringCard

if TYPE_CHECKING:
    from choco_envs.games.le_chocolat.rules import LeChocolatGame, LeChocolatState

Counts = list[float]
#: a small bonus per tile claimed: more tiles win a tie on points
TILE_BONUS = 0.05


def card_score(card: ScoringCard, mine: Counts, theirs: Counts) -> float:
    """The card's VP for expected flavor counts (majority needs a clear lead)."""
    total = sum(vp * n for vp, n in zip(card.each, mine, strict=False))
    total += sum(vp * min(mine[f] for f in members) for members, vp in card.sets)
    total += sum(vp for f, vp in card.majority if mine[f] > theirs[f] + 0.25)
    return total


def lead(card: ScoringCard, mine: Counts, theirs: Counts) -> float:
    """Own score minus the opponent's."""
    return card_score(card, mine, theirs) - card_score(card, theirs, mine)


def add(counts: Counts, extra: Counts) -> Counts:
    return [a + b for a, b in zip(counts, extra, strict=True)]


class Beliefs:
    """What one seat expects of every tile: a flavor vector per cell."""

    def __init__(self, game: LeChocolatGame, s: LeChocolatState, seat: int) -> None:
        n = len(game.components.flavors)
        unseen = list(game.components.flavor_counts) + [game.components.blank_blank]
        known = [s.knows(c, seat) for c in range(grid.CELLS)]
        for c in range(grid.CELLS):
            if known[c]:
                unseen[s.flavor[c]] -= 1  # index -1 is the blank/blank count
        if s.box_up:
            unseen[s.box_flavor] -= 1
        total = max(1, sum(unseen))
        average = [unseen[f] / total for f in range(n)]
        self.cell: list[Counts] = []
        for c in range(grid.CELLS):
            vec = [0.0] * n
            if not known[c]:
                vec = average[:]
            elif s.flavor[c] >= 0:
                vec[s.flavor[c]] = 1.0
            self.cell.append(vec)
        self.n = n
        self._rects: dict[int, Counts] = {}

    def of_cells(self, cells: tuple[int, ...] | list[int]) -> Counts:
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
    """The best gain the opponent can claim on their coming turn (0 if none)."""
    from choco_envs.games.le_chocolat.rules import OVER, SPLIT

    if s.phase == OVER:
        return 0.0
    pieces = (
        {p for r in s.chunk_at if r >= 0 for p in grid.SMALL_PIECES[r]}
        if s.phase == SPLIT
        else {s.chunk_at[c] for c in s.claimable_cells()}
    )
    if not pieces:
        return 0.0
    before = lead(card, opp, me)
    return max(claim_gain(card, beliefs, opp, me, r, before) for r in pieces)


def greedy_action(game: LeChocolatGame, state: LeChocolatState, rng: Rng) -> int:
    """The greedy choice of the seat to act in a (determinized) state."""
    from choco_envs.games.le_chocolat.rules import CLAIM, NUM_SPLIT_ACTIONS

    seat = state.player
    card = game.card(state)
    beliefs = Beliefs(game, state, seat)
    mine, theirs = beliefs.hand(state, seat), beliefs.hand(state, 1 - seat)
    if state.phase == CLAIM:
        return NUM_SPLIT_ACTIONS + best_claim(card, beliefs, state, mine, theirs)[1]
    best_value, best = -1e9, []
    for action in game.legal_actions(state):
        value = split_value(game, card, beliefs, state, action, mine, theirs, rng)
        if value > best_value + 1e-9:
            best_value, best = value, [action]
        elif value > best_value - 1e-9:
            best.append(action)
    return rng.choice(best)


def split_value(
    game: LeChocolatGame,
    card: ScoringCard,
    beliefs: Beliefs,
    state: LeChocolatState,
    action: int,
    mine: Counts,
    theirs: Counts,
    rng: Rng,
) -> float:
    """Own lead after this split and the best claim it allows, less the opponent's threat."""
    from choco_envs.games.le_chocolat.rules import CLAIM, NUM_SPLIT_ACTIONS

    seat = state.player
    t = game.copy(state)
    game.apply(t, action, rng)
    if t.phase == CLAIM and t.player == seat:
        cell = best_claim(card, beliefs, t, mine, theirs)[1]
        game.apply(t, NUM_SPLIT_ACTIONS + cell, rng)
    gained = [c for c in range(grid.CELLS) if t.owner[c] == seat and state.owner[c] != seat]
    after = add(mine, beliefs.of_cells(gained))
    bonus = TILE_BONUS * len(gained)
    given = [c for c in range(grid.CELLS) if t.owner[c] == 1 - seat and state.owner[c] != 1 - seat]
    opp = add(theirs, beliefs.of_cells(given))  # a forced claim on an empty turn
    threat = opponent_threat(card, beliefs, t, opp, after)
    return lead(card, after, opp) + bonus - TILE_BONUS * len(given) - threat
