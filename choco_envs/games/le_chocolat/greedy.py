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
    each, sets, majority = _compiled(card)
    per_tile: float = 0
    for f, vp in each:
        per_tile += vp * mine[f]
    in_sets: float = 0
    for members, vp in sets:
        in_sets += vp * min([mine[f] for f in members])
    leads = 0
    for f, vp in majority:
        if mine[f] > theirs[f] + 0.25:
            leads += vp
    return per_tile + in_sets + leads  # summed group by group, as it always was


_COMPILED: dict[ScoringCard, tuple[tuple[tuple[int, int], ...], tuple, tuple]] = {}


def _compiled(card: ScoringCard) -> tuple[tuple[tuple[int, int], ...], tuple, tuple]:
    """The card's nonzero per-tile values as (flavor, VP), its sets and majorities (the
    search calls ``card_score`` hundreds of thousands of times a game)."""
    out = _COMPILED.get(card)
    if out is None:
        each = tuple((f, vp) for f, vp in enumerate(card.each) if vp)
        out = _COMPILED[card] = (each, card.sets, card.majority)
    return out


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
        self._keys: dict[int, tuple[tuple[float, ...], int]] = {}

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
    # one chunk per distinct (expected counts, size): equal keys gain exactly the same
    unique = {beliefs.piece_key(r): r for r in pieces}
    return max(claim_gain(card, beliefs, opp, me, r, before) for r in unique.values())


def greedy_action(game: LeChocolatGame, state: LeChocolatState, rng: Rng, depth: int = 1) -> int:
    """The greedy choice of the seat to act in a (determinized) state. ``depth`` (the
    ``greedy:depth=N`` setting, ``OPTIONS``): 1 is the baseline one-ply bot below; 2 to
    ``search.MAX_DEPTH`` play the best action of an alpha-beta search of that many whole
    turns (``search.action_values``), ties broken at random."""
    from choco_envs.games.le_chocolat.rules import CLAIM, NUM_SPLIT_ACTIONS
    from choco_envs.games.le_chocolat.search import action_values, check_depth

    if check_depth(depth) > 1:
        values = action_values(game, state, depth)
        top = max(values.values())
        return rng.choice([a for a, v in values.items() if v > top - 1e-9])
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


def _depth(text: str) -> int:
    from choco_envs.games.le_chocolat.search import check_depth

    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"depth={text!r} is not an integer") from None
    return check_depth(value)


#: the settings of ``greedy_action`` a bot spec may give: ``greedy:depth=3``
OPTIONS = {
    "depth": (_depth, "whole turns of alpha-beta lookahead, 1 (the baseline bot) to 4"),
}


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
