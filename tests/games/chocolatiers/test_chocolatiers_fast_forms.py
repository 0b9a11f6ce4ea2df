"""Chocolatiers' fast forms, each tied to the plain form it stands for: the memo of
affordable tiles (``payable``), the observer's kept totals (``game.totals``), its kept
deck and chocolate being paid (worked out the plain way) and its scalars read as bytes
(the plain float conversion), and ``encode_batch`` converting a shared Sampler tuple
once (``encode``)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from choco_envs.games.chocolatiers.encoding import ChocolatiersObserver
from choco_envs.games.chocolatiers.rules import (
    NT,
    ChocolatiersState,
    current_chocolate,
    payable,
    spliced,
)

from .helpers import fresh


def random_states(edition: str, players: int, seed: int) -> list[ChocolatiersState]:
    """Every state of a random game until its end, copied."""
    game, s, rng = fresh(edition, players, seed)
    states = []
    while not game.is_over(s):
        states.append(s.copy())
        game.apply(s, rng.choice(game.legal_actions(s)), rng)
    return states


@pytest.mark.parametrize("edition", ["standard", "classic"])
def test_affordable_is_payable_of_every_tile(edition: str) -> None:
    """``affordable`` (remembered by hand) says of each tile what ``payable`` says, for
    every hand of up to 5 cards, asked at any seat's place in the flat hand list, and
    again once remembered."""
    game, _, _ = fresh(edition, 3)
    for size in range(6):
        for combo in itertools.combinations_with_replacement(range(NT), size):
            own = [combo.count(t) for t in range(NT)]
            want = [payable(own, 0, cost) for cost in game.tile_cost]
            for seat in range(3):
                hands = [0] * (3 * NT)
                hands[seat * NT : seat * NT + NT] = own
                for _ in range(2):
                    able = game.affordable(hands, seat * NT)
                    assert [bool(able >> t & 1) for t in range(game.num_tiles)] == want


@pytest.mark.parametrize("edition", ["standard", "classic"])
def test_observer_totals_are_the_game_totals_at_every_step(edition: str) -> None:
    """The observer keeps its last totals; along a game, and after any field totals
    read is changed (in place, or a Sampler tuple replaced), they are ``game.totals`` of the state at hand."""
    game, _, _ = fresh(edition, 4, seed=3)
    obs = ChocolatiersObserver(game)
    for s in random_states(edition, 4, seed=3):
        assert obs.totals(s) == game.totals(s)
    s = random_states(edition, 4, seed=5)[-1]
    assert obs.totals(s) == game.totals(s)
    edits = [
        ("first", lambda x: setattr(x, "first", (x.first + 2) % 4)),
        ("wilds", lambda x: x.wilds.__setitem__(1, x.wilds[1] + 1)),
        ("points", lambda x: setattr(x, "points", spliced(x.points, 2, (x.points[2] + 7,)))),
        ("n34", lambda x: setattr(x, "n34", spliced(x.n34, 3, (x.n34[3] + 2,)))),
        (
            "groups",
            lambda x: setattr(x, "groups", spliced(x.groups, NT + 4, (x.groups[NT + 4] + 9,))),
        ),
    ]
    for _name, edit in edits:
        edit(s)
        assert obs.totals(s) == game.totals(s)


def plain_scalars(obs: ChocolatiersObserver, s: ChocolatiersState, player: int) -> np.ndarray:
    raw = np.asarray(obs.raw_scalars(s), dtype=np.float32)
    return raw[obs.gather[player]] * obs.scale


@pytest.mark.parametrize("edition", ["standard", "classic"])
def test_scalars_read_as_bytes_are_the_plain_conversion(edition: str) -> None:
    """Scalars converted as bytes equal the plain float conversion, bit for bit, at every
    step and for every seat; a count past 255 takes the plain way and still agrees."""
    game, _, _ = fresh(edition, 4, seed=7)
    obs = ChocolatiersObserver(game)
    states = random_states(edition, 4, seed=7)
    for s in states:
        for p in range(4):
            np.testing.assert_array_equal(obs.scalars(s, p), plain_scalars(obs, s, p))
    big = states[len(states) // 2].copy()
    big.turn = 4 * 300  # round 300: a raw count past a byte
    assert max(obs.raw_scalars(big)) > 255
    for p in range(4):
        np.testing.assert_array_equal(obs.scalars(big, p), plain_scalars(obs, big, p))


@pytest.mark.parametrize("edition", ["standard", "classic"])
def test_batch_with_a_count_past_255_is_the_one_state_observation(edition: str) -> None:
    """A batch holding a state with a count past a byte packs its counts two bytes each
    and still gives, row for row, what ``encode`` gives, for both encoders."""
    game, _, _ = fresh(edition, 4, seed=7)
    states = random_states(edition, 4, seed=7)[::9]
    big = states[len(states) // 2].copy()
    big.turn = 4 * 300  # round 300: a raw count past a byte
    states.append(big)
    players = [i % 4 for i in range(len(states))]
    for name, encoder in game.encoders.items():
        batch = encoder.encode_batch(states, players)
        for i, (s, p) in enumerate(zip(states, players, strict=True)):
            np.testing.assert_array_equal(batch[i], encoder.encode(s, p), err_msg=f"{name} {i}")


def shown_deck_and_paying(s: ChocolatiersState) -> list[int]:
    """What ``raw_scalars`` shows of the deck and of the chocolate being paid, worked out
    the plain way: the reshuffled flag and the deck's cards by type, the paying one-hot."""
    deck = [int(s.reshuffled)] + [s.deck.count(t) if s.reshuffled else 0 for t in range(NT)]
    paying = current_chocolate(s.to_pay)
    return deck + [int(t == paying) for t in range(NT)]


@pytest.mark.parametrize("edition", ["standard", "classic"])
def test_observer_kept_deck_and_paying_are_the_plain_ones(edition: str) -> None:
    """The observer keeps the last reshuffled deck it showed and the last chocolates
    owed (compared by value: both lists change in place); along a game, and after
    either is changed in place (a card drawn, one replaced, the deck emptied, the
    chocolate being paid paid off one type after another, then another owed), its raw
    scalars show the deck and the chocolate being paid as worked out the plain way."""
    game, _, _ = fresh(edition, 4, seed=11)
    obs = ChocolatiersObserver(game)
    at = obs.raw_at

    def shown(s: ChocolatiersState) -> list[int]:
        raw = obs.raw_scalars(s)
        return raw[at["reshuffled"].start : at["deck_known"].stop] + raw[at["paying_flags"]]

    states = random_states(edition, 4, seed=11)
    for s in states:
        assert shown(s) == shown_deck_and_paying(s)
    s = next(s for s in reversed(states) if s.reshuffled and len(s.deck) > 1).copy()
    for edit in (
        lambda: s.deck.pop(),
        lambda: s.deck.__setitem__(0, (s.deck[0] + 1) % NT),
        lambda: s.deck.clear(),
    ):
        shown(s)
        edit()
        assert shown(s) == shown_deck_and_paying(s)
    owing = next(s for s in states if any(s.to_pay)).copy()
    while any(owing.to_pay):
        shown(owing)
        owing.to_pay[current_chocolate(owing.to_pay)] = 0
        assert shown(owing) == shown_deck_and_paying(owing)
    owing.to_pay[NT - 1] = 2
    assert shown(owing) == shown_deck_and_paying(owing)


@pytest.mark.parametrize("edition", ["standard", "classic"])
def test_batch_reads_shared_and_equal_sampler_tuples_right(edition: str) -> None:
    """``encode_batch`` converts a Sampler tuple once for every state sharing it: the
    same state seen by every seat, copies sharing their Sampler, a state whose Sampler
    tuple was replaced by an equal one and another whose groups alone were replaced
    give, row for row, what ``encode`` gives, for both encoders."""
    game, _, _ = fresh(edition, 4, seed=13)
    states = random_states(edition, 4, seed=13)[::7]
    late = states[-1]
    twin = late.copy()
    twin.cells = tuple(list(late.cells))  # equal, not the same tuple
    regrouped = late.copy()  # the same Sampler tuple, other groups
    regrouped.groups = spliced(late.groups, 1, (late.groups[1] + 3,))
    batch = [*states, late, late, late, twin, regrouped]
    players = [i % 4 for i in range(len(states))] + [0, 1, 2, 3, 1]
    assert len({id(s.cells) for s in batch}) < len(batch)
    for name, encoder in game.encoders.items():
        rows = encoder.encode_batch(batch, players)
        for i, (s, p) in enumerate(zip(batch, players, strict=True)):
            np.testing.assert_array_equal(rows[i], encoder.encode(s, p), err_msg=f"{name} {i}")
