"""Chocolatiers: wild chocolates and connected groups (rulebook 000, Place a Wild
Chocolate; the rulings in docs/games/chocolatiers.md, the wild paragraph)."""

from __future__ import annotations

import random

import pytest

from choco_envs.core.errors import IllegalActionError
from choco_envs.games.chocolatiers import ChocolatiersGame
from choco_envs.games.chocolatiers.rules import (
    EMPTY,
    PLACE_WILD,
    WILD,
    groups_with_a_wild,
    largest_groups,
    wild_spaces,
)

from .helpers import box_tile, draw_sampler, fresh, grid, groups, play_until_turn_of

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

    5 raspberries "connected" counts the 2 wilds (3 raspberries and 2 wilds): the rulings,
    "wilds count in the size of the groups they join"; the mint's 4 is 3 mints and a wild.
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


def test_wilds_count_in_the_size_of_the_groups_they_join() -> None:
    """Rulings: "wilds count in the size of the groups they join". One violet and two
    wilds in a row are a violet group of 3; two wilds touching no violet are none."""
    cells = [-2] * 36
    cells[0:3] = [5, WILD, WILD]
    cells[6:9] = [EMPTY, EMPTY, EMPTY]
    assert largest_groups(cells)[5] == 3
    cells[0] = EMPTY
    assert largest_groups(cells) == [0] * 6


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


def test_only_orthogonal_neighbours_connect() -> None:
    """Rulebook 000: "A Wild Chocolate counts as all of the orthogonally adjacent (above,
    below, left, and right) chocolates"; groups are "connected (orthogonally adjacent)"
    chocolates. Diagonal truffles stay apart."""
    game, s, rng = fresh()
    draw_sampler(s, 0, ["T.    ", ".T    ", "      ", "      ", "      ", "      "])
    assert groups(s, 0)["truffle"] == 1
    draw_sampler(s, 0, ["T*    ", ".T    ", "      ", "      ", "      ", "      "])
    assert groups(s, 0)["truffle"] == 3


def test_wild_placement_limits() -> None:
    """Rulebook 000: "You may not perform this action if you do not have a Box tile in
    your Sampler or if you have no Wild Chocolates available." Rulings: a wild goes on a
    space "that holds no wild yet"."""
    game, s, rng = fresh()
    assert not any(PLACE_WILD <= a < PLACE_WILD + 36 for a in game.legal_actions(s))
    with pytest.raises(IllegalActionError, match="no box tile in the Sampler"):
        game.apply(s, PLACE_WILD + 0, rng)
    draw_sampler(s, 0, WILD_EXAMPLE)
    offered = [a - PLACE_WILD for a in game.legal_actions(s) if PLACE_WILD <= a < PLACE_WILD + 36]
    assert offered == list(range(12, 24))
    game.apply(s, PLACE_WILD + 12, rng)
    assert PLACE_WILD + 12 not in game.legal_actions(s) and PLACE_WILD + 13 in game.legal_actions(s)
    with pytest.raises(IllegalActionError):
        game.apply(s, PLACE_WILD + 12, rng)
    s.wilds[0] = 0
    assert not any(PLACE_WILD <= a < PLACE_WILD + 36 for a in game.legal_actions(s))
    with pytest.raises(IllegalActionError, match="no wild chocolate left"):
        game.apply(s, PLACE_WILD + 13, rng)


def test_a_wild_covers_only_a_space_without_one() -> None:
    """Rulings: "A wild chocolate goes on any space of the Sampler, empty or holding a
    chocolate, that holds no wild yet". Spaces without a tile are never offered."""
    game, s, rng = fresh()
    draw_sampler(s, 0, ["      ", "      ", "  T*  ", "  .B  ", "      ", "      "])
    wild = [a - PLACE_WILD for a in game.legal_actions(s) if PLACE_WILD <= a < PLACE_WILD + 36]
    assert wild == [14, 20, 21]
    with pytest.raises(IllegalActionError):
        game.apply(s, PLACE_WILD + 0, rng)  # no tile there


def test_a_placed_wild_never_moves_relative_to_its_tile() -> None:
    """Rulebook 000: "Once a Wild Chocolate has been added to your Sampler, it may not be
    moved in future turns." A tile placed to the left shifts the anchored picture, wild
    and tiles together."""
    game, s, rng = fresh()
    box_tile(game, s, rng, 18)  # TV/TV
    game.apply(s, PLACE_WILD + 1, rng)  # on the top-right violet
    assert grid(s, 0)[:2] == ["T*    ", "TV    "]
    play_until_turn_of(game, s, rng, 0)
    box_tile(game, s, rng, 14, 0, -1)  # BBBB to the left
    assert grid(s, 0)[:2] == ["BBT*  ", "BBTV  "]


@pytest.mark.parametrize("edition", ["standard", "classic"])
def test_groups_with_a_wild_is_largest_groups_with_that_wild(edition: str) -> None:
    """The vectorised helper bots use (``groups_with_a_wild``: every wild space at once)
    equals ``largest_groups`` with a wild on that space, on Samplers from played games."""
    game = ChocolatiersGame(edition=edition, num_players=2)
    rng = random.Random(5)
    checked, seen = 0, set()
    for _ in range(6):
        s = game.new_state(rng)
        while not s.over:
            for p in range(2):
                cells = s.cells[p * 36 : p * 36 + 36]
                if tuple(cells) in seen:
                    continue
                seen.add(tuple(cells))
                after = groups_with_a_wild(cells)
                assert sorted(after) == wild_spaces(cells)
                for i, got in after.items():
                    trial = list(cells)
                    trial[i] = WILD
                    assert got == largest_groups(trial), (cells, i)
                    checked += 1
            game.apply(s, rng.choice(game.legal_actions(s)), rng)
    assert checked > 500
