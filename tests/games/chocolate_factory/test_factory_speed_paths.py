"""Chocolate Factory's hot-path tables are the rules they stand for: the action decoding
table is ``decode_station_action``, the fitting quantity faces of the mask are what
``apply`` accepts (and the pair and master action tables are those faces and the open
machines), and the legal actions stay in increasing order (the random policy and the
seeded replays choose from that list). The ``flat`` encoder's written-out row lists
read every field by name, and ``encode_batch`` gives ``encode``'s numbers in every
configuration, scores and counts past their scales included."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from choco_envs.games.chocolate_factory import ChocolateFactoryGame, FactoryState
from choco_envs.games.chocolate_factory.encoding import (
    COUNT_INTS,
    COUNT_LISTS,
    SIGNED_INTS,
    SIGNED_LISTS,
    missing_bytes,
    row_lengths,
    row_lists,
)
from choco_envs.games.chocolate_factory.rules import (
    BITS,
    DI,
    DQ,
    FACES,
    MASTER,
    MASTER_ROWS,
    PAIR,
    PASS,
    STATION_ACTIONS,
    STATIONS,
    decode_station_action,
    faces_shown,
    fitting_faces,
    pair_actions,
)
from tests.games.chocolate_factory.factory_helpers import fresh
from tests.games.random_play import random_states


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


def test_pair_and_master_tables_are_the_fitting_faces_and_open_machines() -> None:
    """``pair_actions`` is ``fitting_faces`` as action ids, station by station and
    ingredient by ingredient; ``MASTER_ROWS`` the open machines (``BITS``) as master ids;
    ``faces_shown`` the faces with a die on them."""
    for quantity_dice in itertools.product((0, 1, 2), repeat=FACES):
        assert faces_shown(quantity_dice) == tuple(f for f in range(FACES) if quantity_dice[f])
        fitting = fitting_faces(quantity_dice)
        table = pair_actions(quantity_dice)
        for st, i, miss in itertools.product(range(STATIONS), range(6), range(7)):
            expected = tuple(PAIR + (st * 6 + i) * 6 + q for q in fitting[miss])
            assert table[st][i][miss] == expected
    for st, mask in itertools.product(range(STATIONS), range(64)):
        assert MASTER_ROWS[st][mask] == tuple(MASTER + st * 6 + m for m in BITS[mask])


@pytest.mark.parametrize("players", [2, 4, 6])
def test_row_lists_read_every_field_by_its_name(players: int) -> None:
    """The written-out ``row_lists`` gives, state after state, ``COUNT_LISTS`` but the
    first (``missing``, which ``missing_bytes`` gives) then ``COUNT_INTS``, and
    ``SIGNED_LISTS`` then ``SIGNED_INTS``, read by name; together they cover every field
    of the state but the counts of packages filled and of masters hired (not
    observed)."""
    fields = {*FactoryState.LISTS, *FactoryState.INTS} - {"packages_filled", "masters"}
    assert sorted((*COUNT_LISTS, *COUNT_INTS, *SIGNED_LISTS, *SIGNED_INTS)) == sorted(fields)
    assert COUNT_LISTS[0] == "missing"
    game = ChocolateFactoryGame(num_players=players)
    lengths = row_lengths(game)
    states = random_states(game, 60, seed=players)
    counts, signed = row_lists(states)
    assert counts == [
        x
        for s in states
        for x in [*(v for name in COUNT_LISTS[1:] for v in getattr(s, name)),
                  *(getattr(s, name) for name in COUNT_INTS)]
    ]  # fmt: skip
    assert signed == [
        x
        for s in states
        for x in [*(v for name in SIGNED_LISTS for v in getattr(s, name)),
                  *(getattr(s, name) for name in SIGNED_INTS)]
    ]  # fmt: skip
    assert list(missing_bytes(states)) == [m for s in states for m in s.missing]
    for s in states:
        for name in (*COUNT_LISTS, *SIGNED_LISTS):
            assert len(getattr(s, name)) == lengths[name], name


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 3},
        {"num_players": 4},
        {"num_players": 5, "length": "long"},
        {"num_players": 4, "packages": False},
    ],
    ids=str,
)
def test_encode_batch_is_encode_state_by_state(options: dict[str, object]) -> None:
    """Every seat's view of states met in random play, and of states whose scores,
    finished varieties and stored bars lie past the observation's scales (clipped at
    1): ``encode_batch`` row for row what ``encode`` gives, in any order of seats."""
    game = ChocolateFactoryGame(**options)
    encoder = game.encoders["flat"]
    rng = random.Random(7)
    states = random_states(game, 40, seed=11)
    for s in random_states(game, 10, seed=12):
        for p in range(game.num_players):
            s.variety_points[p] += rng.randrange(0, 400)
            s.refine_points[p] += rng.randrange(0, 60)
            s.bonus_points[p] += rng.randrange(0, 200)
            s.finished[p] += rng.randrange(0, 90)
            s.storage[p] += rng.randrange(0, 90)
        states.append(s)
    pairs = [(s, p) for s in states for p in range(game.num_players)]
    rng.shuffle(pairs)
    batch = encoder.encode_batch([s for s, _ in pairs], [p for _, p in pairs])
    for row, (s, p) in zip(batch, pairs, strict=True):
        np.testing.assert_array_equal(row, encoder.encode(s, p))
