"""Chocolates' fast forms on the search path, each tied to its plain form: the remembered
face-down positions, their reader and dealer, what ``determinize`` deals from, and
``determinize`` itself against the plain resampling written out here (the same sample
from the same stream; ``permute``'s own uniformity is checked in
tests/core/test_speed_paths.py)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from choco_envs.core.game import permute
from choco_envs.games.chocolates import ChocolatesGame, ChocolatesState, rules
from choco_envs.games.chocolates.components import NUM_CHOCOLATES
from choco_envs.games.chocolates.rules import (
    HIDDEN_MEMO,
    deal_sources,
    face_down_dealer,
    hidden_positions,
)
from tests.games.random_play import random_states


def states(game: Any, count: int, seed: int) -> list[Any]:
    """States met in random play, every game's end included."""
    return random_states(game, count, seed)


def test_hidden_positions_are_the_face_down_ones_and_read_their_kinds() -> None:
    rng = random.Random(3)
    for _ in range(500):
        revealed = [rng.random() < rng.random() for _ in range(NUM_CHOCOLATES)]
        layout = [rng.randrange(18) for _ in range(NUM_CHOCOLATES)]
        hidden, read = hidden_positions(revealed)
        want = [pos for pos in range(NUM_CHOCOLATES) if not revealed[pos]]
        assert list(hidden) == want
        assert list(read(layout)) == [layout[pos] for pos in want]
        assert hidden_positions(list(revealed)) is hidden_positions(revealed)  # remembered


def test_hidden_positions_forget_past_the_memo_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules, "_HIDDEN", {})
    for k in range(HIDDEN_MEMO + 5):
        revealed = [bool(k >> i & 1) for i in range(NUM_CHOCOLATES)]
        hidden_positions(revealed)
        assert len(rules._HIDDEN) <= HIDDEN_MEMO


def test_the_dealer_puts_kinds_on_the_face_down_positions_in_order() -> None:
    """``face_down_dealer``: its reader is ``hidden_positions``'s, and ``deal(layout +
    kinds)`` is the layout with one kind on each face-down position in increasing order,
    the face-up ones kept (what a loop over the positions writes), remembered by pattern."""
    rng = random.Random(4)
    for _ in range(500):
        revealed = [rng.random() < rng.random() for _ in range(NUM_CHOCOLATES)]
        layout = [rng.randrange(18) for _ in range(NUM_CHOCOLATES)]
        hidden, read = hidden_positions(revealed)
        kinds = [rng.randrange(18) for _ in hidden]
        want = list(layout)
        for pos, kind in zip(hidden, kinds, strict=True):
            want[pos] = kind
        reader, deal = face_down_dealer(revealed)
        assert list(reader(layout)) == list(read(layout))
        assert list(deal(layout + kinds)) == want
        assert face_down_dealer(list(revealed)) is face_down_dealer(revealed)


def test_the_dealers_forget_past_the_memo_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules, "_DEALERS", {})
    for k in range(HIDDEN_MEMO + 5):
        face_down_dealer([bool(k >> i & 1) for i in range(NUM_CHOCOLATES)])
        assert len(rules._DEALERS) <= HIDDEN_MEMO


def plain_determinize(s: ChocolatesState, rng: random.Random) -> ChocolatesState:
    """The resampling spelled out with the core ``permute``: the face-down kinds, sorted,
    dealt in permuted order onto the face-down positions; the pile sorted, its order
    left to its draws."""
    new = s.copy()
    hidden = [pos for pos in range(NUM_CHOCOLATES) if not s.revealed[pos]]
    kinds = sorted(s.layout[pos] for pos in hidden)
    permute(rng, kinds)
    layout = list(s.layout)
    for pos, kind in zip(hidden, kinds, strict=True):
        layout[pos] = kind
    new.layout = tuple(layout)
    new.pile.sort()
    new.pile_unordered = True
    return new


@pytest.mark.parametrize("players", [2, 4])
def test_determinize_is_the_plain_resampling_draw_for_draw(players: int) -> None:
    game = ChocolatesGame(num_players=players)
    a, b = random.Random(11), random.Random(11)
    for s in states(game, 300, seed=players):
        for seat in range(players):
            assert game.determinize(s, seat, a) == plain_determinize(s, b)
    assert a.getstate() == b.getstate()


def test_what_determinize_deals_from_is_remembered_for_that_very_position(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``deal_sources`` (the face-down kinds and the pile's cards, sorted, and the dealer)
    answers ``determinize`` only for the very same layout with the same flags and an
    equal pile: a state that shares the layout and flags but holds another card in its
    pile of the same size, or an equal layout that is another tuple, is sampled from its
    own, each the plain resampling draw for draw; and the memo forgets them all past
    ``HIDDEN_MEMO`` positions."""
    monkeypatch.setattr(rules, "_SOURCES", {})
    made: list[Any] = []
    monkeypatch.setattr(
        rules, "deal_sources", lambda *args: made.append(args) or deal_sources(*args)
    )
    game = ChocolatesGame(num_players=2)
    s = states(game, 40, seed=7)[20]
    assert s.pile and s.display[0] >= 0
    swapped = s.copy()  # the same layout tuple and flags, one other card in the pile
    swapped.pile[0], swapped.display[0] = swapped.display[0], swapped.pile[0]
    retyped = s.copy()
    retyped.layout = tuple(list(s.layout))  # equal, another tuple
    a, b = random.Random(5), random.Random(5)
    for x in (s, s, swapped, swapped, retyped, s):
        assert game.determinize(x, 0, a) == plain_determinize(x, b)
    # made anew: s, swapped (its pile differs), retyped (another tuple), s (after swapped)
    assert [args[2] for args in made] == [s.pile, swapped.pile, retyped.pile, s.pile]
    _, _, kinds, _, cards = deal_sources(s.layout, bytes(s.revealed), s.pile)
    assert list(kinds) == sorted(s.layout[pos] for pos in range(21) if not s.revealed[pos])
    assert list(cards) == sorted(s.pile)
    for _ in range(HIDDEN_MEMO + 5):
        s.layout = tuple(list(s.layout))  # another tuple each time: another position
        game.determinize(s, 0, a)
        assert len(rules._SOURCES) <= HIDDEN_MEMO
