"""Scoring of Chocolates: the rulebook's example and the parts of a score."""

from __future__ import annotations

import random

import numpy as np

from choco_envs.games.chocolates import ChocolatesGame
from choco_envs.games.chocolates.rules import card_truth_matrix, card_truths, held_points

from .helpers import reveal, state_from, take

#: Luke's table: 3 types beside the grid (dark, brown, white); dark chocolates at row 1
#: column 1 and row 2 column 2 (diagonal neighbours); on the right side 2 green and 2 pink.
LUKE = """
Dko Br^ Wh# Gn^
Bro Dk# Pko Pk^
Wh^ Gno Br# Gn#
Dk^ Who Au# Br^
Dk# Bro Dk^ Wh# Dko
"""

FOUR_TYPES_BESIDE = 28  # (4 / 6)
DARK_DIAGONAL = 23  # (4 / 6)
GREEN_OVER_PINK_RIGHT = 12  # (6 / 4)


def test_rulebook_scoring_example_luke_scores_8() -> None:
    """'Luke scored 8 points in total (6 + 4 - 6 + 4 = 8)': the four-types card back face
    up is right (+6: 'there aren't 4 different types of chocolates next to the grid, only
    3'), the dark diagonal card front up is right (+4), the green-over-pink card front up
    is wrong (-6: 'there aren't more green than pink chocolates on the right side'), and
    4 nougat cubes (+4)."""
    game = ChocolatesGame(num_players=2)
    s = state_from(game, LUKE)
    s.cards[0] = (2 * FOUR_TYPES_BESIDE + 1, 2 * DARK_DIAGONAL, 2 * GREEN_OVER_PINK_RIGHT)
    s.nougats[0] = 4
    s.supply -= 4
    assert game.scores(s)[0] == 8
    assert game.score_breakdown(s) == {"predictions": [4.0, 0.0], "nougats": [4.0, 0.0]}


def test_right_side_gains_and_wrong_side_loses_its_points() -> None:
    """the rulings in docs/games/chocolates.md: 'The points of the side a player chose are gained if that side is right
    and lost if it is wrong.' Card 23 is true on LUKE: front (4) gains 4, back (6) loses 6."""
    game = ChocolatesGame(num_players=2)
    s = state_from(game, LUKE)
    s.cards = [(2 * DARK_DIAGONAL,), (2 * DARK_DIAGONAL + 1,)]
    assert game.scores(s) == [4.0, -6.0]


def test_scores_are_final_after_the_end_and_ties_share() -> None:
    """'Whoever has the most points in total, wins. In case of a tie, the players share
    the victory.' Equal scores give equal returns (0 with two players)."""
    game = ChocolatesGame(num_players=2)
    s = state_from(game, LUKE)
    s.revealed = bytearray([1] * 15 + [0] * 6)
    s.grid_hidden = 1
    game.apply(s, reveal(15), random.Random(0))
    assert game.is_over(s) and game.scores(s) == [0.0, 0.0]
    assert game.returns(s) == [0.0, 0.0]
    assert game.ranking_key(s, 0) == (0.0,)


def test_nougats_count_one_point_each() -> None:
    """'For each Nougat cube collected, you receive 1 point.'"""
    game = ChocolatesGame(num_players=2)
    s = state_from(game, LUKE)
    rng = random.Random(0)
    game.apply(s, take(0), rng)  # card 0 (gold == 1) true side: right on LUKE, +2
    game.apply(s, reveal(16), rng)
    game.apply(s, reveal(17), rng)
    game.apply(s, take(1), rng)  # player 0 takes card 1 with the nougat put on it
    assert s.nougats == [1, 0]
    parts = game.score_breakdown(s)
    assert parts["nougats"] == [1.0, 0.0]
    assert [
        p + n for p, n in zip(parts["predictions"], parts["nougats"], strict=True)
    ] == game.scores(s)


def test_held_points_score_many_layouts_as_one() -> None:
    """``held_points`` is the one scoring rule: on the truths of one layout it gives the
    seat's prediction points, and on ``card_truth_matrix(layouts).T`` (many layouts at
    once, as bots score) the same points layout by layout: "For each correct Prediction
    you receive the points indicated on the card ... For each incorrect Prediction you
    deduct the points indicated on the card"."""
    game = ChocolatesGame(num_players=2)
    rng = random.Random(8)
    for _ in range(20):
        s = game.new_state(rng)
        s.cards = [
            tuple(2 * c + rng.randrange(2) for c in rng.sample(range(29), 4)),
            tuple(2 * c + rng.randrange(2) for c in rng.sample(range(29), 3)),
        ]
        layouts = np.array([game.determinize(s, 0, rng).layout for _ in range(5)])
        truth = card_truth_matrix(layouts).T
        for row, layout in enumerate(layouts):
            s.layout = tuple(layout.tolist())
            want = game.prediction_points(s)
            assert [held_points(s.cards[p], truth)[row] for p in (0, 1)] == want
            assert [held_points(s.cards[p], card_truths(s.layout)) for p in (0, 1)] == want
    assert held_points([], card_truths(s.layout)) == 0
