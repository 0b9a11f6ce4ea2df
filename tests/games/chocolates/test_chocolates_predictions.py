"""Every printed prediction card, on a drawn grid where it is true and one where it is
false (rulebook, "Explanation of the Prediction Cards"; geometry from the rulings in docs/games/chocolates.md).

Drawings: four rows of the grid (row 1 next to the display, so column 1 is the left) and
then the five chocolates beside it. Dk dark, Br brown, Wh white, Gn green, Pk pink,
Au gold; o round, ^ triangular, # hexagonal. Most are ``STANDARD`` with one or two
chocolates swapped, so they hold the shipped 21 chocolates.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
import pytest

from choco_envs.games.chocolates import ChocolatesGame
from choco_envs.games.chocolates.components import PREDICTION_CARDS, default_kinds
from choco_envs.games.chocolates.render import layout_from_text
from choco_envs.games.chocolates.rules import card_truth, card_truth_matrix, card_truths

from .helpers import STANDARD


@dataclass(frozen=True)
class CardCase:
    card: int
    printed: str  # the card as the rulebook prints it, with (front / back points)
    true_grid: str
    false_grid: str


CASES = [
    CardCase(
        0,
        "Exactly 1 golden chocolate in the grid. (2 / 8 points)",
        STANDARD,
        """
        Dko Br^ Wh# Gn^
        Bro Dk# Pko Dk^
        Wh^ Gno Br# Dko
        Dk^ Who Gn# Br^
        Dk# Bro Pk^ Wh# Au#
        """,
    ),
    CardCase(
        1,
        "Exactly 2 green chocolates in the grid. (5 / 5 points)",
        STANDARD,
        """
        Dko Br^ Wh# Gn^
        Bro Dk# Pko Dk^
        Wh^ Bro Br# Dko
        Dk^ Who Au# Br^
        Dk# Gno Pk^ Wh# Gn#
        """,
    ),
    CardCase(
        2,
        "Exactly 3 white chocolates in the grid. (5 / 5 points)",
        STANDARD,
        """
        Dko Wh# Wh# Gn^
        Bro Dk# Pko Dk^
        Wh^ Gno Br# Dko
        Dk^ Who Au# Br^
        Dk# Bro Pk^ Br^ Gn#
        """,
    ),
    CardCase(
        3,
        "Exactly 2 pink chocolates in the outer area of the grid. (7 / 3 points)",
        """
        Pko Br^ Wh# Gn^
        Bro Dk# Dko Dk^
        Wh^ Gno Br# Dko
        Dk^ Who Au# Pk^
        Dk# Bro Br^ Wh# Gn#
        """,
        STANDARD,  # the pink in the grid is in the inner area (row 2, column 3)
    ),
    CardCase(
        4,
        "Exactly 3 dark chocolates in the outer area of the grid. (7 / 3 points)",
        """
        Pko Br^ Wh# Gn^
        Bro Dk# Dko Dk^
        Wh^ Gno Br# Dko
        Dk^ Who Au# Br^
        Dk# Bro Pk^ Wh# Gn#
        """,
        STANDARD,  # 4 dark in the outer area
    ),
    CardCase(
        5,
        "Exactly 4 round chocolates in the outer area of the grid. (6 / 4 points)",
        STANDARD,
        """
        Dk# Br^ Wh# Gn^
        Bro Dko Pko Dk^
        Wh^ Gno Br# Dko
        Dk^ Who Au# Br^
        Dk# Bro Pk^ Wh# Gn#
        """,
    ),
    CardCase(
        6,
        "The exact same number of triangular as hexagonal chocolates in the outer area of "
        "the grid. (8 / 2 points)",
        """
        Dko Dk# Wh# Gn#
        Bro Dk# Pko Dk^
        Wh^ Gno Br# Dko
        Dk^ Who Au# Br^
        Br^ Bro Pk^ Wh# Gn^
        """,
        STANDARD,  # 6 triangular, 2 hexagonal
    ),
    CardCase(
        7,
        "The exact same number of brown chocolates in the left and right sides of the "
        "grid. (8 / 2 points)",
        STANDARD,  # 2 and 2
        """
        Dko Br^ Wh# Gn^
        Bro Dk# Pko Dk^
        Br# Gno Wh^ Dko
        Dk^ Who Au# Br^
        Dk# Bro Pk^ Wh# Gn#
        """,
    ),
    CardCase(
        8,
        "More dark chocolates in the left side of the grid than the right side. (6 / 4 points)",
        STANDARD,  # 3 left, 2 right
        """
        Wh# Br^ Dko Gn^
        Bro Dk# Pko Dk^
        Wh^ Gno Br# Dko
        Dk^ Who Au# Br^
        Dk# Bro Pk^ Wh# Gn#
        """,
    ),
    CardCase(
        9,
        "More triangular chocolates in the left side of the grid than the right side. "
        "(6 / 4 points)",
        """
        Gn^ Br^ Wh# Dko
        Bro Dk# Pko Dk^
        Wh^ Gno Br# Dko
        Dk^ Who Au# Br^
        Dk# Bro Pk^ Wh# Gn#
        """,
        STANDARD,  # 3 and 3: "more" is strict
    ),
    CardCase(
        10,
        "More round than triangular chocolates in the grid. (6 / 4 points)",
        """
        Dko Bro Wh# Gn^
        Bro Dk# Pko Dk^
        Wh^ Gno Br# Dko
        Dk^ Who Au# Br^
        Dk# Br^ Pk^ Wh# Gn#
        """,
        STANDARD,  # 6 and 6
    ),
    CardCase(
        11,
        "More brown than white chocolates in the left side of the grid. (6 / 4 points)",
        """
        Dko Br^ Wh# Gn^
        Bro Dk# Pko Dk^
        Bro Gno Br# Dko
        Dk^ Who Au# Br^
        Dk# Wh^ Pk^ Wh# Gn#
        """,
        STANDARD,  # 2 and 2
    ),
    CardCase(
        12,
        "More green than pink chocolates in the right side of the grid. (6 / 4 points)",
        """
        Dko Br^ Wh# Gn^
        Bro Dk# Gno Dk^
        Wh^ Pko Br# Dko
        Dk^ Who Au# Br^
        Dk# Bro Pk^ Wh# Gn#
        """,
        STANDARD,  # 1 and 1
    ),
    CardCase(
        13,
        "At least 1 instance of adjacent pink and green chocolates in the grid. (4 / 6 points)",
        """
        Dko Br^ Wh# Gn^
        Bro Dk# Pko Gno
        Wh^ Dk^ Br# Dko
        Dk^ Who Au# Br^
        Dk# Bro Pk^ Wh# Gn#
        """,
        STANDARD,
    ),
    CardCase(
        14,
        "At least 2 adjacent brown chocolates in the grid. (4 / 6 points)",
        """
        Bro Br^ Wh# Gn^
        Bro Dk# Pko Dk^
        Wh^ Gno Br# Dko
        Dk^ Who Au# Br^
        Dk# Dko Pk^ Wh# Gn#
        """,
        STANDARD,  # two browns touch only diagonally
    ),
    CardCase(
        15,
        "At least 3 adjacent dark chocolates in the grid. (6 / 4 points)",
        """
        Dko Br^ Wh# Gn^
        Bro Dk# Pko Dk^
        Wh^ Gno Dk# Dko
        Dk^ Who Au# Br^
        Br# Bro Pk^ Wh# Gn#
        """,  # an L of three: "these don't have to be in a straight line"
        STANDARD,  # the largest dark group has 2
    ),
    CardCase(
        16,
        "At least 4 adjacent round chocolates in the grid. (7 / 3 points)",
        """
        Dko Br^ Wh# Gn^
        Bro Dk# Pko Dk^
        Bro Gno Br# Dko
        Dk^ Who Au# Br^
        Dk# Wh^ Pk^ Wh# Gn#
        """,
        STANDARD,
    ),
    CardCase(
        17,
        "At least 4 adjacent triangular chocolates in the grid. (7 / 3 points)",
        """
        Dko Bro Wh# Gn^
        Br^ Dk# Pko Dk^
        Wh^ Gno Br# Dko
        Dk^ Pk^ Au# Br^
        Dk# Bro Who Wh# Gn#
        """,
        """
        Dko Bro Wh# Gn^
        Br^ Dk# Pko Dk^
        Wh^ Gno Br# Dko
        Dk^ Who Au# Br^
        Dk# Bro Pk^ Wh# Gn#
        """,  # a group of 3 only
    ),
    CardCase(
        18,
        "At least 4 adjacent hexagonal chocolates in the grid. (7 / 3 points)",
        """
        Dko Br^ Wh# Gn^
        Bro Dk# Wh# Dk^
        Wh^ Gno Br# Dko
        Dk^ Who Au# Br^
        Dk# Bro Pk^ Pko Gn#
        """,
        STANDARD,
    ),
    CardCase(
        19,
        "At least 3 hexagonal chocolates in one of the rows or columns in the grid. (5 / 5 points)",
        STANDARD,  # column 3, not all adjacent
        """
        Dko Br^ Wh# Gn^
        Bro Dk# Pko Dk^
        Wh^ Gno Br# Dko
        Dk^ Au# Who Br^
        Dk# Bro Pk^ Wh# Gn#
        """,
    ),
    CardCase(
        20,
        "At least 3 chocolates of the same type in one of the rows or columns in the grid. "
        "(5 / 5 points)",
        """
        Dko Br^ Wh# Gn^
        Dk# Dk# Pko Dk^
        Wh^ Gno Br# Dko
        Dk^ Who Au# Br^
        Bro Bro Pk^ Wh# Gn#
        """,
        STANDARD,
    ),
    CardCase(
        21,
        "At least 1 white, 1 green, and 1 pink chocolate in one of the rows or columns in "
        "the grid. (6 / 4 points)",
        """
        Dko Pk^ Wh# Gn^
        Bro Dk# Pko Dk^
        Wh^ Gno Br# Dko
        Dk^ Who Au# Br^
        Dk# Bro Br^ Wh# Gn#
        """,
        STANDARD,  # all three in the grid, never in one line
    ),
    CardCase(
        22,
        "At least 2 adjacent white chocolates in one of the rows or columns in the grid. "
        "(5 / 5 points)",
        """
        Dko Br^ Wh# Gn^
        Bro Dk# Pko Dk^
        Wh^ Wh# Br# Dko
        Dk^ Who Au# Br^
        Dk# Bro Pk^ Gno Gn#
        """,
        STANDARD,  # two whites touch only diagonally
    ),
    CardCase(
        23,
        "At least 2 dark chocolates connected in a diagonal line in the grid. (4 / 6 points)",
        STANDARD,
        """
        Dko Br^ Wh# Gn^
        Bro Wh# Pko Dk^
        Wh^ Gno Br# Dko
        Dk^ Who Au# Br^
        Dk# Bro Pk^ Dk# Gn#
        """,  # two darks touch, but not diagonally
    ),
    CardCase(
        24,
        "Exactly 4 chocolates of 4 different types connected in a diagonal line in the grid. "
        "(6 / 4 points)",
        """
        Dko Br^ Wh# Gn^
        Bro Dk# Pko Dk^
        Gno Wh^ Br# Dko
        Dk^ Who Au# Br^
        Dk# Bro Pk^ Wh# Gn#
        """,
        STANDARD,
    ),
    CardCase(
        25,
        "At least 2 triangular chocolates in the four corners of the grid. (6 / 4 points)",
        STANDARD,
        """
        Dko Br^ Wh# Gn^
        Bro Dk# Pko Dk^
        Wh^ Gno Br# Dko
        Dk# Who Au# Bro
        Dk^ Br^ Pk^ Wh# Gn#
        """,
    ),
    CardCase(
        26,
        "At least 2 round chocolates in the four corners of the grid. (6 / 4 points)",
        """
        Dko Br^ Wh# Gn^
        Bro Dk# Pko Dk^
        Wh^ Gno Br# Dko
        Dk# Who Au# Bro
        Dk^ Br^ Pk^ Wh# Gn#
        """,
        STANDARD,
    ),
    CardCase(
        27,
        "Exactly 4 chocolates of 4 different types in the four corners of the grid. (7 / 3 points)",
        """
        Dko Br^ Wh# Gn^
        Bro Dk# Pko Dk^
        Dk^ Gno Br# Dko
        Wh^ Who Au# Br^
        Dk# Bro Pk^ Wh# Gn#
        """,
        STANDARD,
    ),
    CardCase(
        28,
        "At least 4 different types of chocolates next to the grid. (4 / 6 points)",
        STANDARD,
        """
        Pk^ Br^ Wh# Gn^
        Bro Dk# Pko Gn#
        Wh^ Gno Br# Dko
        Dk^ Who Au# Br^
        Dk# Bro Dko Wh# Dk^
        """,
    ),
]


def test_every_printed_card_has_a_case() -> None:
    """'29 Prediction cards' (Game Contents): one case per card, in rulebook order."""
    assert [c.card for c in CASES] == list(range(29)) == [c.id for c in PREDICTION_CARDS]


@pytest.mark.parametrize("case", CASES, ids=[f"card{c.card}" for c in CASES])
def test_card_is_printed_exactly(case: CardCase) -> None:
    """'The first number is the points for a correct Prediction (the front, "true" side);
    the second number is the points for an incorrect Prediction' - and 'The sum of the
    points on the front and back always equals 10!'"""
    card = PREDICTION_CARDS[case.card]
    text, points = case.printed.rsplit(" (", 1)
    front, back = (int(p) for p in points.removesuffix(" points)").split(" / "))
    assert (card.text, card.true_points, card.false_points) == (text, front, back)
    assert front + back == 10


@pytest.mark.parametrize("case", CASES, ids=[f"card{c.card}" for c in CASES])
def test_card_true_and_false_on_drawn_grids(case: CardCase) -> None:
    """Each card's prediction (quoted in ``case.printed``) holds on ``true_grid`` and
    fails on ``false_grid``."""
    true_layout = layout_from_text(case.true_grid)
    false_layout = layout_from_text(case.false_grid)
    assert card_truth(case.card, true_layout) is True, case.printed
    assert card_truth(case.card, false_layout) is False, case.printed
    assert card_truths(true_layout)[case.card] and not card_truths(false_layout)[case.card]
    both = card_truth_matrix(np.array([true_layout, false_layout]))
    assert both[:, case.card].tolist() == [True, False], "the vectorised form: " + case.printed


@pytest.mark.parametrize("case", CASES, ids=[f"card{c.card}" for c in CASES])
def test_drawings_hold_the_shipped_chocolates(case: CardCase) -> None:
    """The drawings are real deals: the 21 shipped chocolates (the rulings in docs/games/chocolates.md counts)."""
    assert sorted(layout_from_text(case.true_grid)) == default_kinds()
    assert sorted(layout_from_text(case.false_grid)) == default_kinds()


def test_exact_same_number_includes_zero_equals_zero() -> None:
    """the rulings in docs/games/chocolates.md: '"exact same number" includes 0 = 0' - no brown at all in the grid
    makes 'The exact same number of brown chocolates in the left and right sides' true."""
    no_brown = layout_from_text(
        """
        Dko Dk^ Wh# Gn^
        Dk# Dk# Pko Dk^
        Wh^ Gno Au# Dko
        Dk^ Who Wh# Pk^
        Br^ Bro Br^ Bro Br#
        """
    )
    assert card_truth(7, no_brown) is True


def test_next_to_the_grid_never_counts_in_the_grid() -> None:
    """the rulings in docs/games/chocolates.md: '"in the grid" never counts the 5 chocolates beside it, and "next to
    the grid" means only those': the gold beside the grid is not 'in the grid'."""
    gold_beside = layout_from_text(CASES[0].false_grid)
    assert card_truth(0, gold_beside) is False
    assert card_truth(28, layout_from_text(STANDARD)) is True  # 5 types beside


def random_layouts(count: int, seed: int) -> np.ndarray:
    """Deals of the shipped chocolates, and of a crossing where the gold is round and
    one dark round chocolate hexagonal (another set with the printed totals)."""
    rng = random.Random(seed)
    own = {
        "dark": {"round": 1, "triangular": 2, "hexagonal": 3},
        "brown": {"round": 2, "triangular": 2, "hexagonal": 1},
        "white": {"round": 1, "triangular": 1, "hexagonal": 2},
        "green": {"round": 1, "triangular": 1, "hexagonal": 1},
        "pink": {"round": 1, "triangular": 1},
        "gold": {"round": 1},
    }
    games = [ChocolatesGame(), ChocolatesGame(components={"chocolates": own})]
    return np.array([games[i % 2].new_state(rng).layout for i in range(count)])


def test_vectorised_truths_are_the_printed_predictions() -> None:
    """``card_truth_matrix`` (many layouts at once, the form bots and policies use) gives,
    row for row, the truths of the card-by-card predicates on random deals; every card is
    true on some of them and false on others, so each column is exercised both ways."""
    layouts = random_layouts(4000, seed=5)
    expected = np.array([card_truths(layout) for layout in layouts])
    got = card_truth_matrix(layouts)
    assert got.shape == (4000, 29) and got.dtype == bool
    wrong = [card for card in range(29) if (got[:, card] != expected[:, card]).any()]
    assert not wrong, f"cards whose vectorised truth differs: {wrong}"
    assert expected.any(axis=0).all() and (~expected).any(axis=0).all()


def test_vectorised_truths_refuse_a_bad_shape() -> None:
    with pytest.raises(ValueError, match=r"expected \(N, 21\)"):
        card_truth_matrix(np.zeros((3, 16), dtype=int))
