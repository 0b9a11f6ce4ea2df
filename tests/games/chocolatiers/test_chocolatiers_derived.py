"""Chocolatiers ``"derived"`` observation: the ``"flat"`` fields, then what the observer
can work out from them (``choco_envs/games/chocolatiers/derived.py``), checked against the
rules and the greedy bot's own computations on played positions."""

from __future__ import annotations

import random

import numpy as np
import pytest

from choco_envs.games.chocolatiers import ChocolatiersGame
from choco_envs.games.chocolatiers.derived import cards_needed as derived_cards_needed
from choco_envs.games.chocolatiers.derived import wild_gains
from choco_envs.games.chocolatiers.greedy import (
    _best_placement,
    _best_take,
    _best_wild,
    _tile_value,
    cards_needed,
    greedy_action,
)
from choco_envs.games.chocolatiers.rules import (
    CHOOSE,
    EMPTY,
    NT,
    PLACE,
    PLACE_TILE,
    PLACE_WILD,
    SLOT_SPACES,
    TAKE,
    WILD,
    largest_groups,
    payable,
)

EDITIONS = ("standard", "classic")


def positions(edition: str, players: int = 2, games: int = 12, seed: int = 0):
    """(game, state) along games half greedy, half random moves."""
    game = ChocolatiersGame(edition=edition, num_players=players)
    rng = random.Random(seed)
    for _ in range(games):
        s = game.new_state(rng)
        while not game.is_over(s):
            yield game, s
            legal = game.legal_actions(s)
            a = greedy_action(game, s, rng) if rng.random() < 0.5 else rng.choice(legal)
            game.apply(s, a, rng)


def fields(game: ChocolatiersGame, s, player: int) -> dict[str, np.ndarray]:
    enc = game.encoder("derived")
    obs = enc.encode(s, player)
    return {f.name: obs[f.start : f.stop] for f in enc.layout.fields}


@pytest.mark.parametrize(("edition", "players", "size"), [
    ("standard", 2, 939 + 112), ("standard", 4, None), ("classic", 2, 871 + 108),
])  # fmt: skip
def test_derived_is_flat_then_the_derived_fields(edition, players, size) -> None:
    """The first entries are exactly the ``"flat"`` observation; the sizes are the
    documented ones (T tile rows x 4 + (n - 1) x 10 + 6 + 36 + 36)."""
    game = ChocolatiersGame(edition=edition, num_players=players)
    flat, derived = game.encoder("flat"), game.encoder("derived")
    rows = 6 if edition == "standard" else 5
    assert derived.shape[0] == flat.shape[0] + rows * 4 + (players - 1) * 10 + 78
    if size is not None:
        assert derived.shape == (size,)
    for i, (_, s) in enumerate(positions(edition, players, games=3)):
        if i % 7:
            continue
        for p in range(players):
            obs = derived.encode(s, p)
            assert np.array_equal(obs[: flat.shape[0]], flat.encode(s, p))
            assert (obs >= derived.low).all() and (obs <= derived.high).all()


def cheapest_by_search(hand: list[int], cost: list[int]) -> tuple[int | None, int]:
    """(fewest cards any legal payment uses, or None, fewest extra cards that would make
    the tile payable), by trying every way: singles per type, the rest in pairs; extra
    cards added one at a time until ``rules.payable`` says yes."""
    import itertools

    best = None
    for singles in itertools.product(
        *(range(min(h, c) + 1) for h, c in zip(hand, cost, strict=True))
    ):
        owed = sum(cost) - sum(singles)
        pairs = sum((h - x) // 2 for h, x in zip(hand, singles, strict=True))
        if pairs >= owed:
            used = sum(singles) + 2 * owed
            best = used if best is None else min(best, used)
    missing = 0
    while not any(
        payable([h + extra.count(t) for t, h in enumerate(hand)], 0, cost)
        for extra in itertools.combinations_with_replacement(range(NT), missing)
    ):
        missing += 1
    return best, missing


def test_cards_needed_is_the_cheapest_legal_payment() -> None:
    """Rulebook (seed 000): "Each chocolate must be paid with one matching chocolate card
    or with two cards of the same type". ``cards_needed`` (shared by the observation and
    the greedy bot) gives the fewest cards a payment uses and the fewest cards missing,
    as an exhaustive search over payments finds them."""
    rng = random.Random(5)
    game = ChocolatiersGame()
    for _ in range(400):
        hand = [rng.randrange(4) for _ in range(NT)]
        cost = game.tile_cost[rng.randrange(len(game.tile_cost))]
        used, missing = derived_cards_needed(tuple(hand), cost)
        best, fewest = cheapest_by_search(hand, cost)
        assert missing == fewest, (hand, cost)
        if missing == 0:
            assert used == best, (hand, cost)


@pytest.mark.parametrize("edition", EDITIONS)
def test_afford_counts_the_cheapest_payment_from_own_hand(edition) -> None:
    """Rulebook (seed 000): "Each chocolate must be paid with one matching chocolate
    card or with two cards of the same type"; ``afford`` gives, per tile on offer (and
    the own reserved tile), the cards a cheapest payment uses, the cards missing, and
    whether the rules let the observer pay it now."""
    checked = 0
    for game, s in positions(edition):
        for p in range(game.num_players):
            f = fields(game, s, p)["afford"].reshape(-1, 4)
            rows = list(s.display) + ([s.reserved[p]] if edition == "standard" else [])
            for row, tile in zip(f, rows, strict=True):
                if tile < 0:
                    assert not row.any()
                    continue
                used, missing = cards_needed(s.hand, p * NT, game.tile_cost[tile])
                assert row[0] == pytest.approx(used / 8)
                assert row[1] == pytest.approx(min(missing, 8) / 8)
                assert bool(row[2]) == payable(s.hand, p * NT, game.tile_cost[tile])
                value = _tile_value(game, tile, used)
                assert row[3] == pytest.approx(max(-1.0, min(1.0, value / 8)))
                checked += 1
    assert checked > 1000


@pytest.mark.parametrize("edition", EDITIONS)
def test_afford_others_uses_only_what_the_table_saw_them_take(edition) -> None:
    """RULINGS (Chocolatiers): only the 3 dealt cards are private. ``afford_others``
    counts the opponent's publicly known cards: other unseen cards in the opponent's hand
    (the same known cards, the same hand size) change nothing in the observation."""
    changed = 0
    for i, (game, s) in enumerate(positions(edition, games=4)):
        opp = 1
        known = s.known[opp * NT : opp * NT + NT]
        hidden = sum(s.hand[opp * NT : opp * NT + NT]) - sum(known)
        if i % 5 or hidden == 0:
            continue
        before = game.encoder("derived").encode(s, 0)
        t = game.copy(s)
        for t_type in (0, 5):
            t.hand[opp * NT : opp * NT + NT] = known
            t.hand[opp * NT + t_type] += hidden
            assert np.array_equal(game.encoder("derived").encode(t, 0), before)
            changed += 1
        f = fields(game, s, 0)["afford_others"].reshape(5, 2)
        for row, tile in zip(f, s.display, strict=True):
            if tile >= 0:
                missing = cards_needed(s.known, opp * NT, game.tile_cost[tile])[1]
                assert row[0] == pytest.approx(min(missing, 8) / 8)
                assert bool(row[1]) == (missing == 0)
    assert changed > 10


@pytest.mark.parametrize("edition", EDITIONS)
def test_take_gain_ranks_takes_as_the_greedy_bot_does(edition) -> None:
    """The greedy bot takes "the card that brings the best tile closest to affordable";
    ``take_gain`` holds that measure for every card type, so its best legal take is the
    greedy bot's take."""
    checked = 0
    for game, s in positions(edition):
        if s.phase != CHOOSE:
            continue
        p = s.player
        takes = [a for a in game.legal_actions(s) if TAKE <= a < TAKE + NT]
        if len(takes) < 2:
            continue
        gain = fields(game, s, p)["take_gain"]
        pick = _best_take(game, s, takes)
        best = max(gain[a - TAKE] for a in takes)
        if best < 1.0:  # unclipped: the greedy pick holds the largest gain
            assert gain[pick - TAKE] == pytest.approx(best)
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("edition", EDITIONS)
def test_wild_gain_is_the_growth_a_wild_gives(edition) -> None:
    """Rulebook (seed 000): a wild "counts as every type" next to it. ``wild_gain`` of a
    space is how much the most-grown largest group grows with a wild there, as the rules'
    own group count gives it by trying the wild; 0 where no wild may go."""
    checked = 0
    for game, s in positions(edition, games=6):
        p = s.player
        cells = s.cells[p * 36 : p * 36 + 36]
        now = largest_groups(cells)
        got = fields(game, s, p)["wild_gain"]
        for i, v in enumerate(cells):
            if not EMPTY <= v < WILD:
                assert got[i] == 0
                continue
            trial = cells[:]
            trial[i] = WILD
            growth = max(0, max(a - b for a, b in zip(largest_groups(trial), now, strict=True)))
            assert got[i] == pytest.approx(min(growth, 6) / 6)
            checked += 1
        wilds = [a for a in game.legal_actions(s) if PLACE_WILD <= a < PLACE_WILD + 36]
        if wilds and s.phase == CHOOSE:
            _, gain = _best_wild(game, s, wilds)
            assert max(got[a - PLACE_WILD] for a in wilds) * 6 == pytest.approx(min(gain, 6))
    assert checked > 500


def test_wild_gains_counts_chains_of_wilds() -> None:
    """RULINGS: a wild counts as every type orthogonally next to it, "through chains of
    wilds". Row 0: M M W . ; row 1: T T N N. Now: mint 3 (M M W), nut 3 (N N and the
    wild above the first N), truffle 2. A wild on the empty space makes mint 4 and nut 4:
    growth 1. A wild over the first nut joins the truffles to the wild above it: T T W W,
    truffle 4, growth 2."""
    cells = [-2] * 36
    cells[0], cells[1], cells[2], cells[3] = 3, 3, WILD, EMPTY
    cells[6], cells[7], cells[8], cells[9] = 0, 0, 1, 1
    assert largest_groups(cells) == [2, 3, 0, 3, 0, 0]
    gains = wild_gains(cells)
    assert gains[3] == 1
    assert gains[8] == 2
    assert gains[2] == 0  # a wild lies there already: none may go
    assert gains[4] == 0  # no tile there


@pytest.mark.parametrize("edition", EDITIONS)
def test_place_gain_scores_each_placement_for_the_placing_seat(edition) -> None:
    """A placed tile "must be placed adjacent to a tile already in the Sampler"; for the
    seat placing it, ``place_gain`` of each legal placement is the growth of the sum of
    squared largest groups (the greedy bot's measure), so its best is the greedy bot's
    placement; it is 0 for illegal placements and for every other seat."""
    checked = 0
    for game, s in positions(edition, games=10):
        if s.phase != PLACE_TILE:
            continue
        p = s.player
        legal = game.legal_actions(s)
        got = fields(game, s, p)["place_gain"]
        cells = s.cells[p * 36 : p * 36 + 36]
        before = sum(g * g for g in largest_groups(cells))
        for code in range(36):
            a = PLACE + code
            if a not in legal:
                assert got[code] == 0
                continue
            slot, rot = divmod(code, 4)
            trial = cells[:]
            for space, v in zip(SLOT_SPACES[slot], game.rotated[s.pending][rot], strict=True):
                trial[space] = v
            after = sum(g * g for g in largest_groups(trial))
            assert got[code] == pytest.approx(min(1.0, (after - before) / 100))
        pick = _best_placement(game, s, legal)
        assert got[pick - PLACE] == pytest.approx(max(got[a - PLACE] for a in legal))
        other = fields(game, s, 1 - p)["place_gain"]
        assert not other.any()
        checked += 1
    assert checked > 20
