"""What the table can work out about the prediction cards from the face-up chocolates:
the rules' helpers (the chocolates still face down, complete layouts dealt from them) and
the bots' beliefs sampler (each card's chance of being true)."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from choco_envs.bots.chocolates.beliefs import TruthEstimator, side_value
from choco_envs.games.chocolates import ChocolatesGame
from choco_envs.games.chocolates.components import NUM_CHOCOLATES
from choco_envs.games.chocolates.rules import card_truths
from tests.games.chocolates.helpers import STANDARD, reveal, state_from, take

GOLD_IN_GRID = 0  # "Exactly 1 golden chocolate in the grid. (2 / 8 points)"


def test_unseen_kinds_are_the_set_minus_the_face_up_chocolates() -> None:
    """the rulings in docs/games/chocolates.md: 'what is unknown is the same for every player': the multiset of
    face-down chocolates is the game's 21 minus those face up."""
    game = ChocolatesGame()
    s = state_from(game)
    assert game.unseen_kinds(s) == sorted(game.components.chocolates)
    for pos in (0, 5, 16):
        s.revealed[pos] = True
    want = list(game.components.chocolates)
    for pos in (0, 5, 16):
        want.remove(s.layout[pos])
    assert (
        game.unseen_kinds(s)
        == want
        == sorted(s.layout[p] for p in range(21) if p not in (0, 5, 16))
    )


def test_dealt_layouts_keep_the_face_up_and_deal_the_rest_uniformly() -> None:
    """``deal_layouts`` is determinize's resampling of the chocolates, many at once: the
    face-up chocolates stay, each row holds the 21, and every unseen kind lands on every
    face-down place about as often as its share of the unseen ones."""
    game = ChocolatesGame()
    s = state_from(game)
    face_up = (0, 3, 9, 16, 20)
    for pos in face_up:
        s.revealed[pos] = True
    layouts = game.deal_layouts(s, 4000, np.random.default_rng(1))
    assert layouts.shape == (4000, NUM_CHOCOLATES)
    for pos in face_up:
        assert (layouts[:, pos] == s.layout[pos]).all()
    assert all(sorted(row) == list(game.components.chocolates) for row in layouts[:50])
    unseen = Counter(game.unseen_kinds(s))
    hidden = [p for p in range(21) if p not in face_up]
    for pos in (hidden[0], hidden[7], hidden[-1]):  # a grid cell, another, one beside
        seen = Counter(layouts[:, pos].tolist())
        for kind, k in unseen.items():
            assert seen[kind] / 4000 == pytest.approx(k / len(hidden), abs=0.03)


def test_dealt_layouts_never_read_the_face_down_chocolates() -> None:
    """Two tables showing the same face-up chocolates give the same deals from the same
    generator, however the face-down ones lie."""
    game = ChocolatesGame()
    s = state_from(game)
    s.revealed[4] = s.revealed[18] = True
    other = game.determinize(s, 0, random.Random(3))
    assert other.layout != s.layout
    a = game.deal_layouts(s, 20, np.random.default_rng(9))
    b = game.deal_layouts(other, 20, np.random.default_rng(9))
    assert np.array_equal(a, b)


def test_all_face_up_gives_the_truth() -> None:
    game = ChocolatesGame()
    s = state_from(game)
    s.revealed = bytearray([True] * NUM_CHOCOLATES)
    rates = TruthEstimator(game).truth_rates(s)
    assert rates.tolist() == [float(v) for v in card_truths(s.layout)]


def test_gold_card_follows_the_face_up_gold() -> None:
    """ "Exactly 1 golden chocolate in the grid": there is one gold chocolate, so the card
    is true exactly when it lies in the grid (16 of the 21 places) and decided once it is
    seen."""
    game = ChocolatesGame()
    estimator = TruthEstimator(game)
    s = state_from(game)  # STANDARD: the gold (Au#) is grid cell 14
    assert estimator.truth_rates(s)[GOLD_IN_GRID] == pytest.approx(16 / 21, abs=0.12)
    s.revealed[14] = True
    assert estimator.truth_rates(s)[GOLD_IN_GRID] == 1.0
    beside = state_from(
        game, STANDARD.replace("Au#", "Wx#").replace("Gn#\n", "Au#\n").replace("Wx#", "Gn#")
    )
    beside.revealed[20] = True  # the gold chocolate, face up beside the grid
    assert beside.layout[20] // 3 == 5
    assert estimator.truth_rates(beside)[GOLD_IN_GRID] == 0.0


def test_estimates_never_depend_on_face_down_chocolates_and_are_cached_per_estimator() -> None:
    """Two tables showing the same face-up chocolates get the same estimate, however the
    face-down ones lie; the estimate is kept in the estimator (read-only), and another
    estimator keeps its own."""
    game = ChocolatesGame()
    a = state_from(game)
    game.apply(a, reveal(0), random.Random(0))
    game.apply(a, take(1), random.Random(0))
    game.apply(a, reveal(16), random.Random(0))
    estimator = TruthEstimator(game)
    first = estimator.truth_rates(a)
    rng = random.Random(1)
    others = [game.determinize(a, 0, rng) for _ in range(10)]
    assert any(b.layout != a.layout for b in others)
    for b in others:
        assert estimator.truth_rates(b) is first
    fresh = TruthEstimator(game).truth_rates(others[0])
    assert fresh is not first and np.array_equal(fresh, first)
    assert not first.flags.writeable


def test_side_values_follow_the_scoring() -> None:
    """'For each correct Prediction you receive the points ... For each incorrect
    Prediction you deduct the points': a side right with chance p is worth
    points * p - points * (1 - p)."""
    assert side_value(0, 0, 1.0) == 2  # gold card, front 2, certainly true
    assert side_value(0, 1, 1.0) == -8  # back 8, certainly wrong
    assert side_value(1, 1, 0.25) == pytest.approx(2.5)  # 5 * 0.75 - 5 * 0.25
