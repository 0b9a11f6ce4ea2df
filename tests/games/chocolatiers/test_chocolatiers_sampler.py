"""Chocolatiers: paying for box tiles, the Sampler (every 3x2 / 2x3 arrangement in every
order, rotation, the 3x2 bound) and where a boxed tile's replacement comes from."""

from __future__ import annotations

import itertools

import pytest

from choco_envs.core.errors import IllegalActionError
from choco_envs.games.chocolatiers.rules import (
    BOX,
    BOX_RESERVED,
    FROM_RESERVE,
    LEGAL_POSITIONS,
    MAX_TILES,
    PAY,
    PAY_ONE,
    PAY_TWO,
    PLACE,
    PLACE_TILE,
    REACHABLE_OCCUPANCIES,
    cheapest_payment,
    payable,
    position_row_col,
    rotate,
)

from .helpers import (
    B,
    M,
    N,
    R,
    T,
    V,
    box_tile,
    components_with,
    cost_text,
    draw_sampler,
    fresh,
    grid,
    hand,
    hold,
    place,
    play_until_turn_of,
    put_in_line,
    set_hand,
)

TVTV = 18  # "TVTV 5": 2 truffle and 2 violet


def test_kira_pays_2_truffle_and_2_violet() -> None:
    """Rulebook 000, Box Chocolates: "Kira wants a Box tile in the Box tile line that
    shows 2 Truffle and 2 Violet chocolates. She discards 2 Truffle and 2 Violet Chocolate
    cards from her hand to the discard pile, then takes the Box tile ... and places it
    into her Sampler."

        hand: T2 V2 M1          line[0]: TV/TV (5 points)
    """
    game, s, rng = fresh()
    put_in_line(s, 0, TVTV)
    set_hand(s, 0, "T2 V2 M1")
    discard_before = s.discard[:]
    game.apply(s, BOX + 0, rng)
    for _ in range(4):
        assert PAY_ONE in game.legal_actions(s)
        game.apply(s, PAY_ONE, rng)
    assert s.phase == PLACE_TILE
    game.apply(s, place(), rng)
    assert hand(s, 0) == "M1"
    assert [s.discard[t] - discard_before[t] for t in (T, V)] == [2, 2]
    assert s.ntiles[0] == 1 and s.points[0] == 5


def test_david_substitutes_two_truffles_for_a_blueberry() -> None:
    """Rulebook 000: "You may discard 2 matching Chocolate cards from your hand to
    substitute for any 1 chocolate shown on a Box tile." David's tile shows 1 Raspberry,
    1 Blueberry, 1 Nut Cluster; he has no Blueberry and pays it with 2 Truffles.

        hand: R1 N1 T2          tile: RB/N. (4 points)
    """
    game, s, rng = fresh(components=components_with({0: "RBN. 4"}))
    put_in_line(s, 0, 0)
    set_hand(s, 0, "R1 N1 T2")
    game.apply(s, BOX + 0, rng)
    paid = []
    while s.phase == PAY:
        current = next(t for t in range(6) if s.to_pay[t])
        legal = game.legal_actions(s)
        if current == B:
            assert legal == [PAY_TWO + T]  # no blueberry: only the substitution
        else:
            # singly; the 2 truffles cannot pay here, as the blueberry would stay unpaid
            assert legal == [PAY_ONE]
        game.apply(s, legal[0], rng)
        paid.append(current)
    assert paid == [N, R, B]
    assert hand(s, 0) == ""


def test_substitution_is_allowed_even_with_a_matching_card() -> None:
    """Rulings: "each chocolate shown is paid with one matching card, or with two
    matching cards of any one type (even when a matching card is in hand). The player
    chooses how." Options that would leave the tile unpayable are not offered."""
    game, s, rng = fresh()
    put_in_line(s, 0, TVTV)
    set_hand(s, 0, "T2 V2 M2")
    game.apply(s, BOX + 0, rng)
    # the first truffle: 1 truffle, 2 truffles or 2 mints; 2 violets would leave the
    # violets unpayable (T2 M2 cannot pay T V V), so it is not offered
    assert game.legal_actions(s) == [PAY_ONE, PAY_TWO + T, PAY_TWO + M]
    with pytest.raises(IllegalActionError):
        game.apply(s, PAY_TWO + V, rng)
    game.apply(s, PAY_TWO + M, rng)
    with pytest.raises(IllegalActionError):
        game.apply(s, PAY_TWO + M, rng)  # no mint pair left
    game.apply(s, PAY_ONE, rng)  # the second truffle
    game.apply(s, PAY_ONE, rng)
    game.apply(s, PAY_ONE, rng)
    assert s.phase == PLACE_TILE and hand(s, 0) == "T1"  # 2 mints paid for a truffle


def test_a_substitution_takes_two_cards_of_one_type() -> None:
    """Rulebook 000: "You may discard 2 matching Chocolate cards from your hand to
    substitute for any 1 chocolate". Paying the first truffle of TV/TV from T2 V2 M1 B2:
    1 truffle, 2 truffles or 2 blueberries; the single mint is no substitute (nor are the
    2 violets, which the tile still needs)."""
    game, s, rng = fresh()
    put_in_line(s, 0, TVTV)
    set_hand(s, 0, "T2 V2 M1 B2")
    game.apply(s, BOX + 0, rng)
    assert game.legal_actions(s) == [PAY_ONE, PAY_TWO + T, PAY_TWO + B]
    with pytest.raises(IllegalActionError):
        game.apply(s, PAY_TWO + M, rng)


def test_unaffordable_tile_cannot_be_boxed() -> None:
    """Rulebook 000: discard cards "matching each of the chocolates on a Box tile"; with
    T1 V2 and no pairs a TV/TV tile cannot be paid, so boxing it is not offered. With a
    pair of mints for the missing truffle it can."""
    game, s, rng = fresh()
    put_in_line(s, 0, TVTV)
    set_hand(s, 0, "T1 V2 M1")
    assert BOX + 0 not in game.legal_actions(s)
    with pytest.raises(IllegalActionError):
        game.apply(s, BOX + 0, rng)
    set_hand(s, 0, "T1 V2 M2")
    assert BOX + 0 in game.legal_actions(s)


def test_cheapest_payment_counts_pairs_for_the_missing_chocolates_only() -> None:
    """Rulebook 000: each chocolate is paid with a matching card or "2 matching Chocolate
    cards ... to substitute for any 1 chocolate"; the cheapest payment pays singly where
    it can. Checked against every way of paying, by brute force, on small hands."""

    def brute(hand: list[int], cost: list[int]) -> tuple[int, int]:
        chocolates = [t for t in range(6) for _ in range(cost[t])]
        best = None
        for ways in itertools.product(range(7), repeat=len(chocolates)):  # 6: singly
            left, used, ok = hand[:], 0, True
            for c, w in zip(chocolates, ways, strict=True):
                t, k = (c, 1) if w == 6 else (w, 2)
                if left[t] < k:
                    ok = False
                    break
                left[t] -= k
                used += k
            if ok and (best is None or used < best):
                best = used
        return (best, 0) if best is not None else (-1, -1)

    cases = [
        ("T2 V2", "T2 V2"), ("R1 N1 T2", "R1 N1 B1"), ("T4", "T1 V1"), ("T3 M1", "T2 V1"),
        ("M3 B1", "T1 V1"), ("V1", "V2"), ("T2 N2 R2", "M1 B1 V1"), ("T5", "T2 V1"),
    ]  # fmt: skip
    from .helpers import counts

    for hand_text, cost_text_ in cases:
        h, c = counts(hand_text), counts(cost_text_)
        used, missing = cheapest_payment(h, 0, c)
        exact = brute(h, c)
        if exact[0] < 0:
            assert missing > 0 and not payable(h, 0, c), (hand_text, cost_text_)
        else:
            assert (used, missing) == exact and payable(h, 0, c), (hand_text, cost_text_)


def test_the_vectorised_payment_is_the_scalar_one_on_every_small_hand_and_cost() -> None:
    """``cheapest_payment_batch`` (what the ``chocolatiers_affordable`` feature computes
    with) gives ``cheapest_payment``'s (cards used, chocolates not payable), the rulebook's
    pay-singly-then-pairs rule, for every hand and cost of up to 3 of each of 3 types and
    many random ones of all 6 (a change to either shows here)."""
    import random

    import numpy as np

    from choco_envs.games.chocolatiers.sampler import cheapest_payment_batch

    small = [
        list(h) + [0, 0, 0] for h in itertools.product(range(4), repeat=3)
    ]  # 64 hands over truffle, nut cluster, raspberry
    costs = [[c[0], 0, c[1], 0, c[2], 0] for c in itertools.product(range(4), repeat=3)]
    rng = random.Random(5)
    hands = small + [[rng.randrange(7) for _ in range(6)] for _ in range(300)]
    costs += [[rng.randrange(5) for _ in range(6)] for _ in range(100)]
    used, missing = cheapest_payment_batch(np.array(hands)[:, None, :], np.array(costs)[None])
    assert used.shape == missing.shape == (len(hands), len(costs))
    for i, h in enumerate(hands):
        for j, c in enumerate(costs):
            assert (int(used[i, j]), int(missing[i, j])) == cheapest_payment(h, 0, c), (h, c)


def test_first_tile_starts_the_sampler_in_any_rotation() -> None:
    """Rulebook 000: "When you take your first Box tile, it simply goes face-up in front
    of you to start your Sampler ... You may rotate Box Tiles as needed." The first tile
    has one position, (0, 0), in 4 rotations."""
    game, s, rng = fresh()
    put_in_line(s, 0, 11)  # "TV.B 4"
    set_hand(s, 0, "T1 V1 B1")
    game.apply(s, BOX + 0, rng)
    for _ in range(3):
        game.apply(s, PAY_ONE, rng)
    assert game.legal_actions(s) == [place(0, 0, r) for r in range(4)]
    game.apply(s, place(0, 0, 1), rng)
    # TV/.B turned a quarter clockwise reads .T/BV
    assert rotate((T, V, -1, B), 1) == (-1, T, B, V)
    assert grid(s, 0)[:2] == [".T    ", "BV    "]


def test_a_tile_joins_on_a_full_edge_and_left_or_above_reanchors_the_sampler() -> None:
    """Rulebook 000: "Each Box tile after the first must be placed adjacent to any other
    Box tile in your Sampler so that the full edges line up ... Once a Box tile is placed
    into your Sampler, it may not be moved or rotated." After one tile, the four
    positions beside it; a tile to its left shifts the picture, not the tiles."""
    game, s, rng = fresh()
    box_tile(game, s, rng, TVTV)  # TV/TV at (0, 0)
    put_in_line(s, 0, 14)  # "BBBB 4"
    hold(s, 0, "B4")
    game.apply(s, BOX + 0, rng)
    while s.phase == PAY:
        game.apply(s, PAY_ONE, rng)
    offered = {position_row_col((a - PLACE) // 4) for a in game.legal_actions(s)}
    assert offered == {(-1, 0), (1, 0), (0, -1), (0, 1)}  # no diagonal, full edges only
    game.apply(s, place(0, -1), rng)
    assert grid(s, 0)[:2] == ["BBTV  ", "BBTV  "]
    assert s.slots[0:3] == (14, TVTV, -1)


def test_right_of_the_second_tile_is_offered() -> None:
    """Issue 17, item 1: "after boxing a first tile and a second to its right, 'right of
    the second tile' is never offered". Rulings: "the first tile may end up at an end of
    the long side (a row A B C built as A, then B, then C)"."""
    game, s, rng = fresh()
    box_tile(game, s, rng, TVTV)
    box_tile(game, s, rng, 14, 0, 1)  # B right of A
    play_until_turn_of(game, s, rng, 0)
    put_in_line(s, 0, 15)  # "VVVV 4"
    hold(s, 0, "V4")
    game.apply(s, BOX + 0, rng)
    while s.phase == PAY:
        game.apply(s, PAY_ONE, rng)
    assert place(0, 2) in game.legal_actions(s)
    game.apply(s, place(0, 2), rng)
    assert grid(s, 0)[:2] == ["TVBBVV", "TVBBVV"]


def _independent_orders() -> dict[int, set[frozenset[tuple[int, int, int]]]]:
    """Every placement order of 1..6 tiles, written from the rulebook alone: each tile
    after the first shares a full edge with an earlier one, and the whole fits in 3x2 or
    2x3 ("must be arranged as 3 tiles x 2 tiles ... oriented horizontally or
    vertically"). An order is (row, col, k-th tile), moved to start at row 0, col 0."""
    out: dict[int, set[frozenset[tuple[int, int, int]]]] = {k: set() for k in range(1, 7)}

    def fits(cells: list[tuple[int, int]]) -> bool:
        h = max(r for r, _ in cells) - min(r for r, _ in cells) + 1
        w = max(c for _, c in cells) - min(c for _, c in cells) + 1
        return (h, w) in {(a, b) for a in (1, 2) for b in (1, 2, 3)} | {(3, 1), (3, 2)}

    def grow(cells: list[tuple[int, int]]) -> None:
        r0, c0 = min(r for r, _ in cells), min(c for _, c in cells)
        out[len(cells)].add(frozenset((r - r0, c - c0, k) for k, (r, c) in enumerate(cells)))
        if len(cells) == 6:
            return
        for r, c in cells:
            for nxt in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if nxt not in cells and fits([*cells, nxt]):
                    grow([*cells, nxt])

    grow([(0, 0)])
    return out


def test_every_placement_order_within_3x2_is_reachable_and_nothing_else() -> None:
    """Rulings: "Every arrangement that fits in 3x2 or 2x3 must be reachable, in every
    placement order" (416 six-tile orders). Played through the rules (legal_actions and
    apply, tile k boxed k-th), the Samplers reached after 1..6 tiles are exactly those of
    an independent enumeration, and every offered position comes in 4 rotations."""
    game, s, rng = fresh()
    reached: dict[int, set[frozenset[tuple[int, int, int]]]] = {k: set() for k in range(1, 7)}

    def boxing(state, k: int):
        state.phase, state.pending, state.box_from = PLACE_TILE, k, FROM_RESERVE
        state.to_pay, state.actions_left = [0] * 6, 2
        return state

    def explore(state, k: int) -> None:
        legal = game.legal_actions(state)
        positions = sorted({(a - PLACE) // 4 for a in legal})
        assert legal == [PLACE + 4 * p + r for p in positions for r in range(4)]
        for p in positions:
            nxt = state.copy()
            game.apply(nxt, PLACE + 4 * p, rng)
            order = frozenset(
                (slot // 3, slot % 3, nxt.slots[slot]) for slot in range(9) if nxt.slots[slot] >= 0
            )
            reached[k + 1].add(order)
            if k + 1 < MAX_TILES:
                explore(boxing(nxt, k + 1), k + 1)

    s.display = [-1] * 5  # tiles 0..5 are boxed from nowhere; only the Sampler matters
    explore(boxing(s, 0), 0)
    expected = _independent_orders()
    assert len(expected[6]) == 416 and len(reached[6]) == 416
    for k in range(1, 7):
        assert reached[k] == expected[k], k


def test_sampler_is_at_most_3_by_2_in_either_orientation() -> None:
    """Rulebook 000: "Box tiles placed in your Sampler must be arranged as 3 tiles x 2
    tiles, and your Sampler may be oriented horizontally or vertically." A row of 3 may
    grow up or down, never to a 4th column; an L of 3 x 2 may only be completed."""
    game, s, rng = fresh()
    draw_sampler(s, 0, ["TTNNRR", "TTNNRR", "      ", "      ", "      ", "      "])
    row = s.occ[0]
    assert {position_row_col(p) for p in LEGAL_POSITIONS[row]} == {
        (-1, 0), (-1, 1), (-1, 2), (1, 0), (1, 1), (1, 2)
    }  # fmt: skip
    draw_sampler(s, 0, ["TT    ", "TT    ", "TT    ", "TT    ", "TTNN  ", "TTNN  "])
    assert {position_row_col(p) for p in LEGAL_POSITIONS[s.occ[0]]} == {(0, 1), (1, 1)}
    full = (1 << 6) - 1
    assert LEGAL_POSITIONS[full] == ()
    assert full in REACHABLE_OCCUPANCIES and 1 << 0 | 1 << 4 not in REACHABLE_OCCUPANCIES


def test_a_full_sampler_cannot_box_again() -> None:
    """Rulings: "A full Sampler cannot box again." """
    game, s, rng = fresh()
    draw_sampler(s, 0, ["TTNNRR", "TTNNRR", "MMBBVV", "MMBBVV", "      ", "      "])
    assert s.ntiles[0] == MAX_TILES
    put_in_line(s, 0, TVTV)
    set_hand(s, 0, "T2 V2")
    assert not any(BOX <= a <= BOX_RESERVED for a in game.legal_actions(s))
    with pytest.raises(IllegalActionError, match="the Sampler is full"):
        game.apply(s, BOX + 0, rng)


@pytest.mark.parametrize("edition", ["standard", "classic"])
def test_the_replacement_tile_is_revealed_only_after_payment_and_placement(edition: str) -> None:
    """Rulebook 000: "Discard Chocolate cards ... then take the Box tile and place it in
    your Sampler ... Refill the line back to 5 Box tiles from the stack"; 003: "Descarta
    las cartas ... luego toma posesión de la ficha de Caja" (the next tile of the stack is
    turned up once the top is taken). While the player pays and places, no new tile is
    face up: the line position is empty; after the placement it holds the stack's next."""
    game, s, rng = fresh(edition)
    top = s.display[2]
    pile = s.stacks[2 if game.classic else 0]
    after = pile[-1]
    hold(s, 0, cost_text(game, top))
    if game.classic:
        game.apply(s, next(t for t in range(6) if s.tray[t]), rng)  # the action phase
        hold(s, 0, cost_text(game, top))
    game.apply(s, BOX + 2, rng)
    seen = []
    while s.phase in (PAY, PLACE_TILE):
        seen.append(list(s.display))
        assert s.pending == top and after not in s.display and pile[-1] == after
        legal = game.legal_actions(s)
        game.apply(s, PAY_ONE if PAY_ONE in legal else legal[0], rng)
    assert all(d[2] == -1 for d in seen) and len(seen) == 1 + sum(game.tile_cost[top])
    assert s.display[2] == after and after not in pile


def test_occupancy_of_the_cells_is_the_state_s_record_of_placed_tiles() -> None:
    """``occupancy`` (what the placement facts read from a seat's Sampler planes) gives the
    slots the rules recorded as holding a tile ("each later tile joins a placed tile"), at
    every step of random games."""
    import random

    from choco_envs.games.chocolatiers.sampler import occupancy
    from choco_envs.registry import make_game

    game = make_game("chocolatiers_v1", num_players=3)
    rng = random.Random(5)
    seen = set()
    for _ in range(3):
        s = game.new_state(rng)
        while not game.is_over(s):
            for q in range(3):
                assert occupancy(s.cells[q * 36 : q * 36 + 36]) == s.occ[q]
                seen.add(s.occ[q])
            game.apply(s, rng.choice(game.legal_actions(s)), rng)
    assert len(seen) >= 6
