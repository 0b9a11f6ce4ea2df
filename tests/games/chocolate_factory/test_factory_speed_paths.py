"""Chocolate Factory's hot-path tables are the rules they stand for: the action decoding
table is ``decode_station_action``, the fitting quantity faces of the mask are what
``apply`` accepts, and the legal actions stay in increasing order (the random policy and
the seeded replays choose from that list)."""

from __future__ import annotations

import itertools
import random

import pytest

from choco_envs.games.chocolate_factory.rules import (
    DI,
    DQ,
    FACES,
    PASS,
    STATION_ACTIONS,
    decode_station_action,
    fitting_faces,
)
from tests.games.chocolate_factory.factory_helpers import fresh


def test_station_action_table_is_decode_station_action() -> None:
    assert len(STATION_ACTIONS) == PASS
    for a in range(PASS):
        assert STATION_ACTIONS[a] == decode_station_action(a)


def test_fitting_faces_are_the_pairs_apply_accepts() -> None:
    """For every set of quantity faces left and every amount missing, a face is offered
    by the mask's table exactly when ``apply`` accepts the pair (its own check)."""
    game, s = fresh(num_players=2)
    k, ingredient = 0, 0
    for present in itertools.product((0, 1), repeat=FACES):
        quantity_dice = tuple(present)
        s.dice = [0] * 24
        s.dice[DQ : DQ + FACES] = list(quantity_dice)
        s.dice[DI + ingredient] = 1
        table = fitting_faces(quantity_dice)
        assert len(table) == 7
        for miss in range(7):
            s.missing[k * 6 + ingredient] = miss
            accepted = tuple(
                q for q in range(FACES) if game._pair_refusal(s, k, ingredient, q) is None
            )
            assert table[miss] == accepted, (quantity_dice, miss)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_legal_actions_are_increasing_and_the_mask(players: int) -> None:
    game, s = fresh(num_players=players, seed=3)
    rng = random.Random(3)
    while not game.is_over(s):
        legal = game.legal_actions(s)
        assert legal == sorted(set(legal))
        assert game.legal_mask(s).nonzero()[0].tolist() == legal
        game.apply(s, rng.choice(legal), rng)
