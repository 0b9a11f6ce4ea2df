"""The ``beliefs`` observation: each prediction card's chance of being true, worked out
from the face-up chocolates only ("Flip any 1 chocolate face up"; at the end "Flip all
remaining chocolates face up, and check the Prediction cards in front of you")."""

from __future__ import annotations

import random

import numpy as np
import pytest

from choco_envs.games.chocolates import ChocolatesGame
from choco_envs.games.chocolates.beliefs import TruthEstimator, truth_matrix
from choco_envs.games.chocolates.components import NUM_CHOCOLATES, PREDICTION_CARDS
from choco_envs.games.chocolates.predictions import evaluate_all
from tests.games.chocolates.helpers import STANDARD, reveal, state_from, take

GOLD_IN_GRID = 0  # "Exactly 1 golden chocolate in the grid. (2 / 8 points)"


def test_truth_matrix_is_every_printed_prediction() -> None:
    """The vectorised predicates agree with the card-by-card ones on every card."""
    game = ChocolatesGame()
    rng = random.Random(5)
    layouts = np.array([game.new_state(rng).layout for _ in range(3000)])
    expected = np.array([evaluate_all(layout) for layout in layouts])
    assert (truth_matrix(layouts) == expected).all()
    # every card is true on some layouts and false on others: each column was exercised
    assert expected.any(axis=0).all() and (~expected).any(axis=0).all()


def test_all_face_up_gives_the_truth() -> None:
    game = ChocolatesGame()
    s = state_from(game)
    rates = TruthEstimator(game.chocolates).truth_rates(s.layout, [True] * NUM_CHOCOLATES)
    assert rates.tolist() == [float(v) for v in evaluate_all(s.layout)]


def test_gold_card_follows_the_face_up_gold() -> None:
    """ "Exactly 1 golden chocolate in the grid": there is one gold chocolate, so the card
    is true exactly when it lies in the grid (16 of the 21 places) and decided once it is
    seen."""
    game = ChocolatesGame()
    estimator = TruthEstimator(game.chocolates)
    s = state_from(game)  # STANDARD: the gold (Au#) is grid cell 14
    gold = s.layout.index(next(k for k in s.layout if k // 3 == 5))
    nothing = [False] * NUM_CHOCOLATES
    assert estimator.truth_rates(s.layout, nothing)[GOLD_IN_GRID] == pytest.approx(
        16 / 21, abs=0.12
    )
    seen = nothing[:]
    seen[gold] = True
    assert estimator.truth_rates(s.layout, seen)[GOLD_IN_GRID] == 1.0
    beside = state_from(
        game, STANDARD.replace("Au#", "Wx#").replace("Gn#\n", "Au#\n").replace("Wx#", "Gn#")
    )
    seen = nothing[:]
    seen[20] = True  # the gold chocolate, face up beside the grid
    assert beside.layout[20] // 3 == 5
    assert estimator.truth_rates(beside.layout, seen)[GOLD_IN_GRID] == 0.0


def test_beliefs_never_depend_on_face_down_chocolates() -> None:
    """Two tables showing the same face-up chocolates give the same observation, however
    the face-down ones lie."""
    game = ChocolatesGame()
    encoder = game.encoder("beliefs")
    a = state_from(game)
    game.apply(a, reveal(0), random.Random(0))
    game.apply(a, take(1), random.Random(0))
    game.apply(a, reveal(16), random.Random(0))
    rng = random.Random(1)
    others = [game.determinize(a, 0, rng) for _ in range(20)]
    assert any(b.layout != a.layout for b in others)
    for b in others:
        for seat in (0, 1):
            assert np.array_equal(encoder.encode(a, seat), encoder.encode(b, seat))


def test_belief_fields_are_the_expected_points() -> None:
    """A card "with the correct side facing up" scores its points, otherwise "you deduct
    the points indicated on the card": with chance p of being true, the true side is worth
    T (2p - 1) and the false side F (1 - 2p)."""
    game = ChocolatesGame()
    encoder = game.encoder("beliefs")
    lay = encoder.layout
    s = state_from(game, display=(0, 7, 20))
    rng = random.Random(0)
    game.apply(s, reveal(3), rng)  # seat 0
    game.apply(s, take(0, false_side=True), rng)  # seat 1 takes card 0, false side up
    game.apply(s, reveal(5), rng)
    obs = encoder.encode(s, 0)
    truth = obs[lay["card_truth"]]
    assert obs[lay["display_truth"]].tolist() == [truth[c] for c in s.display]
    sides = obs[lay["display_side_value"]].reshape(3, 2) * 10
    for slot, card in enumerate(s.display):
        c, p = PREDICTION_CARDS[card], truth[card]
        assert sides[slot] == pytest.approx(
            [c.true_points * (2 * p - 1), c.false_points * (1 - 2 * p)]
        )
    held = obs[lay["seat_expected_points"]] * 40  # own seat first: seat 0 holds nothing
    assert held[0] == 0.0
    assert held[1] == pytest.approx(PREDICTION_CARDS[0].false_points * (1 - 2 * truth[0]))
    assert (obs >= encoder.low).all() and (obs <= encoder.high).all()
