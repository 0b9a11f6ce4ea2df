"""Le Chocolat final scoring: per-tile, chained-set, majority and negative values, the
blank/blank discard and the tie-break on claimed tiles."""

from __future__ import annotations

import copy

import pytest

from choco_envs.games.le_chocolat import LeChocolatGame
from choco_envs.games.le_chocolat.components import DEFAULT_COMPONENTS, load_components
from choco_envs.games.le_chocolat.rules import HandScore, score_hand

from .helpers import finished

EXAMPLE = load_components().cards[0]
FLAVORS = load_components().flavors


def hand(**counts: int) -> list[int]:
    return [counts.get(f, 0) for f in FLAVORS]


def test_claires_example_scores_6_on_the_printed_card() -> None:
    """Rulebook, Example: Claire holds 0 almonds, 1 cashew, 2 orange/macadamia pairs, 1
    pistachio and 2 raspberries against the opponent's 5. The printed total (9 VP) scores
    the cashew as 1 and the pairs as 2 each, contradicting the card; the rulings in docs/games/le_chocolat.md: "Test the
    example hand against the card as printed: cashew 2, two pairs 6, pistachio -2, no
    majority: 6 VP"."""
    claire = hand(cashew=1, orange=2, macadamia=2, pistachio=1, raspberry=2)
    parts = score_hand(EXAMPLE, claire, hand(raspberry=5))
    assert parts == HandScore(each=2 - 2, sets=6, majority=0)
    assert sum(parts) == 6


def test_claires_example_through_the_game() -> None:
    """The same hand at the end of a real game, one of Claire's blanks "secretly raspberry"
    and one "no flavor, so it won't score points": the blank/blank is discarded, 6 VP."""
    game = LeChocolatGame(scoring_card="rulebook example")
    claire = ["cashew", "orange", "orange", "macadamia", "macadamia", "pistachio"]
    s = finished(game, claire + ["raspberry", "raspberry", "blank"], box="almond")
    assert game.hand_counts(s, 1)[FLAVORS.index("raspberry")] == 5
    assert game.scores(s)[0] == 6
    parts = game.score_breakdown(s)
    assert [parts[k][0] for k in ("each", "sets", "majority")] == [0.0, 6.0, 0.0]
    assert parts["majority"][1] == 5.0, "the opponent's 5 raspberries take the majority"


def test_majority_tie_scores_nothing_for_either() -> None:
    """Final Scoring: "the player with the most tiles of that flavor scores VP. Their
    opponent scores nothing. In a tie, neither player scores." (the rulings in docs/games/le_chocolat.md: strictly most)."""
    assert score_hand(EXAMPLE, hand(raspberry=3), hand(raspberry=3)).majority == 0
    assert score_hand(EXAMPLE, hand(raspberry=4), hand(raspberry=3)).majority == 5
    assert score_hand(EXAMPLE, hand(raspberry=3), hand(raspberry=4)).majority == 0
    assert score_hand(EXAMPLE, hand(), hand()).majority == 0


def test_chained_flavors_score_per_complete_set() -> None:
    """Final Scoring: "If 2 or more flavors are linked by a chain icon, score VP for each
    complete set of those flavors you collect (1 of each)"; single flavors of a chain
    score nothing on their own."""
    assert score_hand(EXAMPLE, hand(orange=3, macadamia=1), hand()).sets == 3
    assert score_hand(EXAMPLE, hand(orange=4), hand()).sets == 0
    trio = load_components().cards[3]
    assert trio.name == "trio"
    assert score_hand(trio, hand(almond=2, cashew=2, pistachio=1), hand()).sets == 6
    assert score_hand(trio, hand(almond=2, cashew=2, pistachio=2), hand()).sets == 12


def test_negative_values_subtract_per_tile() -> None:
    """Example card: "-2 VP per pistachio (Negative VP)"; scores may go below zero."""
    assert score_hand(EXAMPLE, hand(pistachio=3), hand()).each == -6
    assert sum(score_hand(EXAMPLE, hand(pistachio=3, almond=1), hand())) == -5


def test_blank_blank_tiles_are_discarded_but_count_for_the_tie_break() -> None:
    """Game End: "each player flips over their blank tiles and discards any that are blank
    on both sides." the rulings in docs/games/le_chocolat.md: the tie-break counts claimed tiles "before the discard"."""
    game = LeChocolatGame(scoring_card=0)
    with_blanks = finished(game, ["almond", "blank", "blank", "blank"])
    without = finished(game, ["almond"], box="blank")
    assert game.scores(with_blanks)[0] == game.scores(without)[0] == 1
    assert game.hand_counts(with_blanks, 0) == [1, 0, 0, 0, 0, 0], "blank/blank count as nothing"
    assert game.ranking_key(with_blanks, 0) == (1.0, 4.0)


def test_tie_on_points_goes_to_the_player_with_more_tiles() -> None:
    """Game End: "In a tie, the player who claimed more tiles wins." With a card worth
    nothing both players score 0; the seat with 18 of the 35 tiles wins."""
    data = copy.deepcopy(DEFAULT_COMPONENTS)
    data["cards"][0] = {
        "name": "nothing",
        "each": {f: 0 for f in FLAVORS},
        "sets": [],
        "majority": {},
    }
    game = LeChocolatGame(components=data, scoring_card="nothing")
    tiles = game.components.tile_flavors()
    names = [FLAVORS[f] if f >= 0 else "blank" for f in tiles]
    s = finished(game, names[:18], box=names[35])
    assert game.scores(s) == [0.0, 0.0] and s.claimed == [18, 17]
    assert game.returns(s) == [1.0, -1.0]
    s = finished(game, names[:17], box=names[35])
    assert game.returns(s) == [-1.0, 1.0]


@pytest.mark.parametrize("card", range(10))
def test_scores_add_up_to_the_breakdown_on_every_card(card: int) -> None:
    """Every authored card scores through score_hand: scores equal the sum of the parts."""
    game = LeChocolatGame(scoring_card=card)
    s = finished(game, ["almond", "cashew", "orange", "macadamia", "raspberry", "blank"])
    parts = game.score_breakdown(s)
    assert game.scores(s) == [sum(v[p] for v in parts.values()) for p in (0, 1)]


def test_score_hands_is_score_hands_total_on_every_card() -> None:
    """The vectorised form (many hands at once, for the features) is the scalar
    ``score_hand``'s total on every printed card, for whole and expected (fractional)
    counts, majority ties included."""
    import numpy as np

    from choco_envs.games.le_chocolat.rules import score_hands

    rng = np.random.default_rng(0)
    f = len(FLAVORS)
    whole = rng.integers(0, 5, size=(200, 2, f)).astype(float)
    whole[:20, 1] = whole[:20, 0]  # every flavor tied
    fractional = rng.uniform(0, 4, size=(200, 2, f))
    for card in load_components().cards:
        for hands in (whole, fractional):
            got = score_hands(card, hands[:, 0], hands[:, 1])
            want = [sum(score_hand(card, m.tolist(), t.tolist())) for m, t in hands]
            np.testing.assert_allclose(got, want, rtol=1e-12)
