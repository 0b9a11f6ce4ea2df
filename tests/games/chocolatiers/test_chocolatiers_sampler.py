"""Chocolatiers: paying for box tiles, the Sampler (rotation, 3x2 bound) and wilds."""

from __future__ import annotations

import pytest

from choco_envs.core.errors import IllegalActionError
from choco_envs.games.chocolatiers.rules import (
    BOX,
    LEGAL_SLOTS,
    MAX_TILES,
    PAY,
    PAY_ONE,
    PAY_TWO,
    PLACE_TILE,
    PLACE_WILD,
    rotate,
)

from .helpers import (
    B,
    M,
    N,
    R,
    T,
    V,
    components_with,
    draw_sampler,
    fresh,
    groups,
    hand,
    place,
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
    assert s.display[0] != TVTV  # the line is refilled from the stack
    for _ in range(4):
        assert PAY_ONE in game.legal_actions(s)
        game.apply(s, PAY_ONE, rng)
    assert s.phase == PLACE_TILE
    game.apply(s, place(4), rng)
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
    """RULINGS: "each chocolate shown is paid with one matching card, or with two
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


def test_unaffordable_tile_cannot_be_boxed() -> None:
    """Rulebook 000: discard cards "matching each of the chocolates on a Box tile"; with
    T1 V2 and no pairs a TV/TV tile cannot be paid, so boxing it is not offered."""
    game, s, rng = fresh()
    put_in_line(s, 0, TVTV)
    set_hand(s, 0, "T1 V2 M1")
    assert BOX + 0 not in game.legal_actions(s)
    with pytest.raises(IllegalActionError):
        game.apply(s, BOX + 0, rng)


def test_first_tile_goes_in_the_centre_in_any_rotation() -> None:
    """Rulebook 000: "When you take your first Box tile, it simply goes face-up in front
    of you to start your Sampler ... You may rotate Box Tiles as needed." RULINGS: a 3x3
    frame with the first tile in the centre holds every legal Sampler."""
    game, s, rng = fresh()
    put_in_line(s, 0, 11)  # "TV.B 4"
    set_hand(s, 0, "T1 V1 B1")
    game.apply(s, BOX + 0, rng)
    for _ in range(3):
        game.apply(s, PAY_ONE, rng)
    assert game.legal_actions(s) == [place(4, r) for r in range(4)]
    game.apply(s, place(4, 1), rng)
    # TV/.B turned a quarter clockwise reads .T/BV
    assert rotate((T, V, -1, B), 1) == (-1, T, B, V)
    grid = s.cells[0:36]
    assert [grid[14], grid[15], grid[20], grid[21]] == [-1, T, B, V]


def test_sampler_is_at_most_3_by_2_in_either_orientation() -> None:
    """Rulebook 000: "Box tiles placed in your Sampler must be arranged as 3 tiles x 2
    tiles, and your Sampler may be oriented horizontally or vertically." Frame slots:

        0 1 2
        3 4 5      a row 3,4,5 may grow up or down; once slot 1 is used,
        6 7 8      only 0 and 2 keep it within 3x2.
    """
    row = 1 << 3 | 1 << 4 | 1 << 5
    assert LEGAL_SLOTS[row] == (0, 1, 2, 6, 7, 8)
    assert LEGAL_SLOTS[row | 1 << 1] == (0, 2)
    column = 1 << 1 | 1 << 4 | 1 << 7
    assert LEGAL_SLOTS[column] == (0, 2, 3, 5, 6, 8)
    assert LEGAL_SLOTS[column | 1 << 3] == (0, 6)
    assert LEGAL_SLOTS[1 << 4] == (1, 3, 5, 7)  # full edges only: no diagonal slots
    full = row | 1 << 0 | 1 << 1 | 1 << 2
    assert LEGAL_SLOTS[full] == ()


def test_a_full_sampler_cannot_box_again() -> None:
    """RULINGS: "A full Sampler cannot box again." """
    game, s, rng = fresh()
    draw_sampler(s, 0, ["TTNNRR", "TTNNRR", "MMBBVV", "MMBBVV", "      ", "      "])
    assert s.ntiles[0] == MAX_TILES
    put_in_line(s, 0, TVTV)
    set_hand(s, 0, "T2 V2")
    assert not any(BOX <= a <= BOX + 5 for a in game.legal_actions(s))


WILD_EXAMPLE = [
    "      ",
    "      ",
    "R.RTRM",
    "VBMMMB",
    "      ",
    "      ",
]


def test_wild_example_connects_5_raspberry_and_4_mint() -> None:
    """Rulebook 000, Place a Wild Chocolate: "[B] She ... places it on her Sampler so that
    the Raspberry chocolates are now connected. [C] ... she will place another Wild
    Chocolate token on the Truffle to connect the other Raspberry and connect her Mint.
    This gives her 5 Raspberry chocolates connected and 4 Mint chocolates connected."

        R.RTRM        R*RTRM        R*R*RM
        VBMMMB   ->   VBMMMB   ->   VBMMMB
    """
    game, s, rng = fresh()
    draw_sampler(s, 0, WILD_EXAMPLE)
    s.wilds[0] = 3
    assert groups(s, 0)["raspberry"] == 1 and groups(s, 0)["mint"] == 3
    game.apply(s, PLACE_WILD + 2 * 6 + 1, rng)  # the empty space between two raspberries
    assert groups(s, 0)["raspberry"] == 3
    game.apply(s, PLACE_WILD + 2 * 6 + 3, rng)  # on the truffle
    assert groups(s, 0)["raspberry"] == 5
    assert groups(s, 0)["mint"] == 4
    assert groups(s, 0)["truffle"] == 0  # a wild does not count as what it covers
    assert s.wilds[0] == 1


def test_chained_wilds_count_as_every_type_any_of_them_touches() -> None:
    """Rulebook 000: "Wild Chocolates may be placed orthogonally adjacent to each other.
    When this occurs, each token will also count as whatever the other token(s) counts
    as." Here the chain ** touches R on the left and V on the right:

        R**V   -> raspberry group 3, violet group 3
    """
    game, s, rng = fresh()
    draw_sampler(s, 0, ["      ", "      ", " R**V ", " .... ", "      ", "      "])
    assert groups(s, 0)["raspberry"] == 3 and groups(s, 0)["violet"] == 3
    assert groups(s, 0)["mint"] == 0  # a chain touching no mint is no mint group


def test_wild_placement_limits() -> None:
    """Rulebook 000: "You may not perform this action if you do not have a Box tile in
    your Sampler or if you have no Wild Chocolates available." RULINGS: a wild goes on a
    space "that holds no wild yet"."""
    game, s, rng = fresh()
    assert not any(PLACE_WILD <= a < PLACE_WILD + 36 for a in game.legal_actions(s))
    draw_sampler(s, 0, WILD_EXAMPLE)
    wild_spaces = [
        a - PLACE_WILD for a in game.legal_actions(s) if PLACE_WILD <= a < PLACE_WILD + 36
    ]
    assert wild_spaces == list(range(12, 24))
    game.apply(s, PLACE_WILD + 12, rng)
    with pytest.raises(IllegalActionError):
        game.apply(s, PLACE_WILD + 12, rng)
    s.wilds[0] = 0
    assert not any(PLACE_WILD <= a < PLACE_WILD + 36 for a in game.legal_actions(s))
