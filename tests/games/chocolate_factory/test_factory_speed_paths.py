"""Chocolate Factory's hot-path tables are the rules they stand for: the action decoding
table is ``decode_station_action``, the fitting quantity faces of the mask are what
``apply`` accepts (and the pair and master action tables are those faces and the open
machines), and the legal actions stay in increasing order (the random policy and the
seeded replays choose from that list). The ``flat`` encoder's written-out row lists
read every field by name and ``row_arrays`` converts them row for row, its station table
is what ``encode`` shows of a station, its scratch arrays are per thread, and
``encode_batch`` gives ``encode``'s numbers in every configuration, in passes and blocks
of states, scores and counts past their scales included."""

from __future__ import annotations

import itertools
import random
import threading

import numpy as np
import pytest

from choco_envs.games.chocolate_factory import ChocolateFactoryGame, FactoryState, encoding
from choco_envs.games.chocolate_factory.encoding import (
    COUNT_INTS,
    COUNT_LISTS,
    PACKED_LISTS,
    SIGNED_INTS,
    SIGNED_LISTS,
    row_lengths,
    row_lists,
)
from choco_envs.games.chocolate_factory.rules import (
    BITS,
    DI,
    DM,
    DQ,
    FACES,
    MACHINE,
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
        s.dice = bytearray(24)
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


def test_machine_table_offers_the_machines_apply_accepts() -> None:
    """For every set of machine faces on the dice and every set of machines placed at a
    station, the machine placements offered (``MACHINE_ROWS`` of the open machines that a
    die shows) are exactly those ``apply`` accepts (its own check)."""
    game, s = fresh(num_players=2)
    p = game.current_player(s)
    stations = [st for st in range(STATIONS) if game.machine_mask[s.variety[p * 4 + st]]]
    assert stations, "a Silver or Gold station takes machines"
    offered_any = 0
    for shown in range(64):
        s.dice[DM : DM + FACES] = [shown >> m & 1 for m in range(FACES)]
        for st in stations:
            k = p * 4 + st
            for placed in range(64):
                s.placed[k] = placed & game.machine_mask[s.variety[k]]
                offered = {
                    a for a in game.legal_actions(s) if MACHINE <= a < MACHINE + STATIONS * 6
                }
                accepted = {
                    MACHINE + st * 6 + m
                    for m in range(FACES)
                    if game._station_refusal(s, MACHINE + st * 6 + m) is None
                }
                assert {a for a in offered if (a - MACHINE) // 6 == st} == accepted
                offered_any += len(accepted)
    assert offered_any > 0


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


def row_of(s: FactoryState) -> tuple[list[int], list[int]]:
    """A state's row, read by name: ``COUNT_LISTS`` then ``COUNT_INTS``, and
    ``SIGNED_LISTS`` then ``SIGNED_INTS``."""
    counts = [v for name in COUNT_LISTS for v in getattr(s, name)]
    signed = [v for name in SIGNED_LISTS for v in getattr(s, name)]
    return counts + [getattr(s, name) for name in COUNT_INTS], signed + [
        getattr(s, name) for name in SIGNED_INTS
    ]


@pytest.mark.parametrize("players", [2, 4, 6])
def test_row_lists_read_every_field_by_its_name(players: int) -> None:
    """The written-out ``row_lists`` gives, state after state, ``COUNT_LISTS`` but the
    packed ones (``PACKED_LISTS``, joined as bytes by ``row_parts``) then ``COUNT_INTS``,
    and ``SIGNED_LISTS`` then ``SIGNED_INTS``, read by name; together they cover every
    field of the state but the counts of packages filled and of masters hired (not
    observed)."""
    fields = {*FactoryState.LISTS, *FactoryState.INTS} - {"packages_filled", "masters"}
    assert sorted((*COUNT_LISTS, *COUNT_INTS, *SIGNED_LISTS, *SIGNED_INTS)) == sorted(fields)
    game = ChocolateFactoryGame(num_players=players)
    lengths = row_lengths(game)
    states = random_states(game, 60, seed=players)
    counts, signed = row_lists(states)
    packed = sum(lengths[name] for name in PACKED_LISTS)  # the first counts, not listed
    assert COUNT_LISTS[: len(PACKED_LISTS)] == PACKED_LISTS
    assert counts == [x for s in states for x in row_of(s)[0][packed:]]
    assert signed == [x for s in states for x in row_of(s)[1]]
    for s in states:
        for name in (*COUNT_LISTS, *SIGNED_LISTS):
            assert len(getattr(s, name)) == lengths[name], name
            # the packed lists are bytes as the rules keep them: ``row_parts`` joins them
            assert isinstance(getattr(s, name), bytearray) == (name in PACKED_LISTS), name


@pytest.mark.parametrize("big_at", [None, 0, encoding.BLOCK + 3])
def test_row_arrays_are_the_rows_one_state_a_row(big_at: int | None) -> None:
    """``row_arrays`` of more states than a block holds: row for row the counts and the
    signed ints read by name, the counts one byte each, or two each (every row) when
    one count, in the first block or a later one, is past 255."""
    game = ChocolateFactoryGame(num_players=4)
    states = random_states(game, 2 * encoding.BLOCK + 5, seed=5)
    assert len(states) > 2 * encoding.BLOCK
    if big_at is not None:
        states[big_at] = states[big_at].copy()
        states[big_at].storage[1] = 700
    counts, signed = encoding.row_arrays(states)
    assert counts.dtype == (np.uint8 if big_at is None else np.dtype("<u2"))
    assert signed.dtype == np.int8
    assert counts.tolist() == [row_of(s)[0] for s in states]
    assert signed.tolist() == [row_of(s)[1] for s in states]


def test_row_arrays_take_a_state_made_by_hand_with_lists() -> None:
    """A state whose packed lists were set to plain lists (by hand, not by the rules)
    gives the same rows: ``row_parts`` reads them as bytes one by one."""
    game = ChocolateFactoryGame(num_players=3)
    states = random_states(game, 6, seed=8)
    listed = [s.copy() for s in states]
    for s in listed[::2]:
        for name in PACKED_LISTS:
            setattr(s, name, list(getattr(s, name)))
    assert not isinstance(listed[0].dice, bytearray)
    for got, want in zip(encoding.row_arrays(listed), encoding.row_arrays(states), strict=True):
        assert got.tolist() == want.tolist()


def test_station_table_rows_are_the_station_entries_encode_gives() -> None:
    """Row ``station_key(variety, placed, special)`` of ``Gather.station_table`` is what
    ``encode`` shows of a station with that variety (free: -1), machines placed and
    special placed, every one of them, then zeros where its amounts missing go."""
    game = ChocolateFactoryGame(num_players=3)
    encoder = game.encoders["flat"]
    table = encoding.Gather(game).station_table()
    size, head = encoding.STATION_SIZE, encoding.STATION_HEAD
    s = random_states(game, 1, seed=3)[0].copy()
    rows = set()
    for variety, placed, special in itertools.product(range(-1, 9), range(64), range(2)):
        key = int(encoding.station_key(np.array(variety), np.array(placed), np.array(special)))
        rows.add(key)
        s.variety[4], s.placed[4], s.special[4] = variety, placed, special  # seat 1's first
        shown = encoder.encode(s, 1)[encoding.DICE : encoding.DICE + size]
        np.testing.assert_array_equal(table[key, :head], shown[:head])
    assert rows == set(range(len(table)))
    assert not table[:, head:].any()


def test_scratch_is_per_thread_and_grows_to_the_largest_pass() -> None:
    """``Scratch.get`` gives each thread its own arrays of the declared rows and dtypes,
    the same ones again for a pass no larger, new larger ones for a larger pass."""
    scratch = encoding.Scratch(a=((3,), np.int16), b=((2, 5), np.float32))
    small = scratch.get(4)
    assert small["a"].shape == (4, 3) and small["a"].dtype == np.int16
    assert small["b"].shape == (4, 2, 5) and small["b"].dtype == np.float32
    assert np.shares_memory(scratch.get(2)["a"], small["a"])
    large = scratch.get(9)
    assert large["b"].shape == (9, 2, 5) and not np.shares_memory(large["b"], small["b"])
    assert np.shares_memory(scratch.get(9)["b"], large["b"])
    other: dict[str, np.ndarray] = {}
    worker = threading.Thread(target=lambda: other.update(scratch.get(9)))
    worker.start()
    worker.join()
    assert other["a"].shape == (9, 3) and not np.shares_memory(other["a"], large["a"])


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
    1): ``encode_batch`` row for row what ``encode`` gives, in any order of seats, for a
    batch with those states (its counts then two bytes each) and one without."""
    game = ChocolateFactoryGame(**options)
    encoder = game.encoders["flat"]
    rng = random.Random(7)
    states = random_states(game, 60, seed=11)  # with 4 seats or more: two passes
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
    plain = [(s, p) for s, p in pairs if s in states[:60]]  # every count within a byte
    for chosen in (pairs, plain):
        batch = encoder.encode_batch([s for s, _ in chosen], [p for _, p in chosen])
        for row, (s, p) in zip(batch, chosen, strict=True):
            np.testing.assert_array_equal(row, encoder.encode(s, p))
