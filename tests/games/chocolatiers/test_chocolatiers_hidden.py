"""Chocolatiers: what is public and what is hidden (the rulings in docs/games/chocolatiers.md, "What is public"), and
``determinize``, which resamples every hidden thing and nothing else."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import numpy as np
import pytest

from choco_envs.games.chocolatiers.rules import BOX, GIVE, PAY, TAKE, TRAY_SIZE
from tests.uniformity import assert_distributed

from .helpers import B, M, N, R, T, fresh, play_until_turn_of, put_in_line, set_hand


def test_opponent_cards_seen_taken_are_public_and_dealt_cards_are_not() -> None:
    """Rulings: "the tray is face up, so every card taken from it is seen by all, and so
    is every card paid, discarded ... Private: only the 3 cards each player was dealt".
    Seat 1 takes a raspberry, then discards a mint it was dealt: seat 0 sees
    raspberry 1 known and 2 unseen cards."""
    game, s, rng = fresh()
    game.apply(s, next(t for t in range(6) if s.tray[t]), rng)
    game.apply(s, next(t for t in range(6) if s.tray[t]), rng)
    set_hand(s, 1, "M1 B1 T1", known=False)
    s.tray[R] = max(s.tray[R], 1)
    game.apply(s, TAKE + R, rng)
    assert s.known[6:12] == [0, 0, 1, 0, 0, 0] and s.unknown[1] == 3
    game.apply(s, GIVE + M, rng)
    assert s.known[6:12] == [0, 0, 1, 0, 0, 0] and s.unknown[1] == 2
    obs = game.observe(s, 0)
    lay = game.encoder("flat").layout
    per = max(game.components.card_counts)
    assert list(obs[lay["cards_1"]] * per) == pytest.approx([0, 0, 1, 0, 0, 0])
    assert obs[lay["unknown_1"]][0] == pytest.approx(2 / 3)
    text = game.state_to_string(s, 0)
    assert "known T0 N0 R1 M0 B0 V0 + 2 unseen" in text
    play_until_turn_of(game, s, rng, 1)  # the exchange's takes, seat 0's turn
    assert s.known[6 + R] >= 1 and s.unknown[1] == 2
    known, unseen = s.known[6 + R], s.unknown[1]
    game.apply(s, GIVE + R, rng)  # the raspberry everyone saw it take
    assert (s.known[6 + R], s.unknown[1]) == (known - 1, unseen)
    assert "M1" not in text.split("player_1:")[1].split("\n")[0]


def played(edition: str, players: int, steps: int, seed: int) -> tuple:
    game, s, rng = fresh(edition, players=players, seed=seed)
    for _ in range(steps):
        game.apply(s, rng.choice(game.legal_actions(s)), rng)
    return game, s


def test_determinize_keeps_everything_the_seat_sees() -> None:
    """Rulings: "`determinize` resamples only the unknown dealt cards (consistent with
    what they were seen to pay or discard) and the deck order". Seen cards stay; the
    observer's hand, the tray, the face-up tiles and every observation never change, and
    every card is still somewhere exactly once."""
    game, s = played("standard", 3, 9, 4)
    for k in range(20):
        d = game.determinize(s, 0, random.Random(k))
        assert d.hand[0:6] == s.hand[0:6] and d.known == s.known and d.unknown == s.unknown
        for q in (1, 2):
            assert all(d.hand[q * 6 + t] >= s.known[q * 6 + t] for t in range(6))
            assert sum(d.hand[q * 6 : q * 6 + 6]) == sum(s.hand[q * 6 : q * 6 + 6])
        assert game.to_json(game.from_json(game.to_json(d))) == game.to_json(d)  # counted
        assert d.tray == s.tray and d.display == s.display and len(d.deck) == len(s.deck)
        for name in game.encoders:
            assert np.array_equal(game.observe(d, 0, name), game.observe(s, 0, name))


def test_determinize_resamples_the_unseen_dealt_cards_with_the_deck() -> None:
    """Rulings: before a reshuffle an opponent's unseen dealt cards and the deck are one
    pool the seat cannot tell apart: across determinizations the opponent's unseen cards
    take many values, cards move between its hand and the deck, and each type turns up in
    its hand about as often as the pool holds it."""
    game, s = played("standard", 2, 0, 6)
    seen_hands, moved, drawn = set(), 0, Counter()
    pool = Counter(s.deck)
    for t in range(6):
        pool[t] += s.hand[6 + t]
    for k in range(600):
        d = game.determinize(s, 0, random.Random(k))
        seen_hands.add(tuple(d.hand[6:12]))
        moved += sorted(d.deck) != sorted(s.deck)
        for t in range(6):
            drawn[t] += d.hand[6 + t]
    assert len(seen_hands) > 20 and moved > 500
    total = sum(pool.values())
    for t in range(6):  # 1,800 cards drawn: each type within a wide band of its share
        assert abs(drawn[t] / 1800 - pool[t] / total) < 0.05, (t, drawn[t])


def test_after_a_reshuffle_the_deck_content_is_public_and_only_its_order_resampled() -> None:
    """Rulings: every discarded card is seen, so a deck rebuilt from the discard pile has
    a known content; determinize keeps it and reorders it (the next card varies: the
    deck's order is left to its draws, ``unordered``)."""
    game, s, rng = fresh(seed=2)
    s.deck = []
    s.discard = [3, 3, 3, 0, 0, 0]
    game.apply(s, next(t for t in range(6) if s.tray[t]), rng)
    assert s.reshuffled and len(s.deck) == 8  # one card refilled the tray
    tops = Counter()
    for k in range(300):
        d = game.determinize(s, 0, random.Random(k))
        assert sorted(d.deck) == sorted(s.deck)
        assert d.hand == s.hand  # the only other hidden cards are the opponent's own
        assert d.unordered and not s.unordered
        tops[resolved(game, d, random.Random(k + 1000)).deck[-1]] += 1
    assert set(tops) == set(s.deck) and min(tops.values()) > 40


def test_determinize_reshuffles_the_standard_stack() -> None:
    """Rulings: private is "the order of the deck (and of the standard tile stack)":
    across determinizations the next tile of the stack is any of its 31 tiles, each
    about equally often, while the line stays as it is."""
    game, s = played("standard", 2, 0, 1)
    nxt = Counter()
    for k in range(930):
        d = game.determinize(s, 0, random.Random(k))
        assert sorted(d.stacks[0]) == sorted(s.stacks[0]) and d.display == s.display
        nxt[resolved(game, d, random.Random(k + 1000)).stacks[0][-1]] += 1
    assert set(nxt) == set(s.stacks[0]) and max(nxt.values()) < 70  # 30 each on average


@pytest.mark.parametrize("players", [2, 4])
def test_determinize_reshuffles_the_classic_tiles_under_the_tops_and_in_the_box(
    players: int,
) -> None:
    """Rulings: private is "the order ... of the classic tiles under each stack's top";
    the tiles returned to the box unseen are unknown too. Across determinizations the
    tops stay, the stacks keep their heights, and every hidden tile is found under a top
    and (2 players: 15 tiles in the box) in the box."""
    game, s = played("classic", players, 0, 1)
    hidden = sorted(sum(s.stacks, []) + s.unused)
    under, boxed = Counter(), Counter()
    for k in range(400):
        d = resolved(game, game.determinize(s, 0, random.Random(k)), random.Random(k + 1000))
        assert d.display == s.display and [len(x) for x in d.stacks] == [len(x) for x in s.stacks]
        assert sorted(sum(d.stacks, []) + d.unused) == hidden
        for st in d.stacks:
            under.update(st)
        boxed.update(d.unused)
    assert set(under) == set(hidden)
    if s.unused:
        assert set(boxed) == set(hidden)
    share = sum(len(x) for x in s.stacks) / len(hidden)
    for tile in hidden:  # each hidden tile under a top about as often as any other
        assert abs(under[tile] / 400 - share) < 0.15, tile


def test_determinize_keeps_an_opponent_able_to_finish_paying() -> None:
    """A seat that has chosen a tile is known to afford it (it was legal); a determinized
    state must leave it a way to finish paying (never an empty mask)."""
    game, s, rng = fresh()
    put_in_line(s, 0, 18)  # "TVTV 5"
    set_hand(s, 0, "T2 V2", known=False)
    s.deck += [0, 0]  # the two truffles and violets come from the deck
    s.deck += [5, 5]
    game.apply(s, BOX + 0, rng)
    assert s.phase == PAY
    hands = set()
    for k in range(40):
        d = game.determinize(s, 1, random.Random(k))
        assert game.legal_actions(d)
        hands.add(tuple(d.hand[0:6]))
    assert hands == {(2, 0, 0, 0, 0, 2)}  # T2 V2: the only hand of 4 that pays TV/TV


@pytest.mark.parametrize("edition", ["standard", "classic"])
def test_determinize_depends_only_on_what_the_seat_sees(edition: str) -> None:
    """Rulings: only the dealt cards and the deck and tile orders are private, so two
    states a seat cannot tell apart determinize identically with the same rng (no bot
    can learn the true order through it)."""
    game, s = played(edition, 3, 25, 5)
    lookalike = game.determinize(s, 1, random.Random(1))
    assert game.to_json(lookalike) != game.to_json(s)
    a = game.determinize(s, 1, random.Random(2))
    b = game.determinize(lookalike, 1, random.Random(2))
    assert game.to_json(a) == game.to_json(b)


def resolved(game, d, rng: random.Random):
    """``d`` with what its determinization left to the draws drawn out as the rules draw
    it (``unordered``): the deck card by card (the tray's refill, ``_refill_tray``), each stack tile by tile (the line's refill, ``_refill_line``), top first; the
    tiles left in the box stay there. A state that is not unordered comes back as it is."""
    r = d.copy()
    if not d.unordered:
        return r
    cards = []
    for _ in range(len(d.deck)):  # a tray one card short: its refill draws one card
        r.tray = [TRAY_SIZE - 1, 0, 0, 0, 0, 0]
        game._refill_tray(r, rng)
        r.tray[0] -= TRAY_SIZE - 1
        cards.append(r.tray.index(1))
    r.deck, r.tray = cards[::-1], d.tray[:]
    stacks = []
    for i, st in enumerate(d.stacks):
        turned = []
        for _ in range(len(st)):
            game._refill_line(r, i, rng)
            turned.append(r.display[i])
        stacks.append(turned[::-1])
    r.stacks, r.display, r.unordered = stacks, d.display[:], False
    r.unused.sort()
    return r


def _hidden_outcome(d, seats: range) -> tuple:
    """What determinize resamples in a small position: the other seats' hands, the deck,
    the stacks and the tiles back in the box."""
    hands = tuple(tuple(d.hand[q * 6 : q * 6 + 6]) for q in seats)
    return hands, tuple(d.deck), tuple(map(tuple, d.stacks)), tuple(d.unused)


@pytest.mark.parametrize("reshuffled", [True, False])
def test_determinize_draws_every_deal_equally_often(reshuffled: bool) -> None:
    """The plain definition, on a small position (standard, 3 players, seat 0 looking):
    seats 1 and 2 hold one unseen card each, the deck 3 cards, the stack 3 tiles. Every
    placing of the hidden cards (the unseen ones, and the deck's before its first
    reshuffle) on the hidden places, and every order of the deck and of the stack, is
    equally likely: the enumerated placings give the weight of each outcome, and 7,200
    determinizations follow them (chi-square)."""
    game, s, _ = fresh(players=3)
    set_hand(s, 1, "T1", known=False)
    set_hand(s, 2, "N1", known=False)
    s.deck, s.reshuffled = [M, M, B], reshuffled
    s.stacks = [s.stacks[0][:3]]
    pool = [T, N] if reshuffled else [T, N, M, M, B]
    weights: Counter = Counter()
    for cards in itertools.permutations(pool):
        for deck in itertools.permutations(s.deck) if reshuffled else [cards[2:]]:
            for stack in itertools.permutations(s.stacks[0]):
                hand = list(s.hand)
                hand[6 + T] = hand[12 + N] = 0
                hand[6 + cards[0]] += 1
                hand[12 + cards[1]] += 1
                d = s.copy()
                d.hand, d.deck, d.stacks = hand, list(deck), [list(stack)]
                weights[_hidden_outcome(d, range(1, 3))] += 1
    rng = random.Random(7)
    draws = [
        _hidden_outcome(resolved(game, game.determinize(s, 0, rng), rng), range(1, 3))
        for _ in range(7200)
    ]
    assert_distributed(draws, weights)


def test_determinize_deals_the_classic_hidden_tiles_equally_often() -> None:
    """The plain definition for the classic tiles: the tiles under the tops and those back
    in the box are one pool; every placing of them on those places is equally likely
    (24 placings of 4 tiles, 4,800 determinizations, chi-square)."""
    game, s, _ = fresh("classic", players=3)
    tiles = sorted(sum(s.stacks, []) + s.unused)[:4]
    s.stacks = [[tiles[0]], [tiles[1]], [], [tiles[2]], []]
    s.unused = [tiles[3]]
    weights: Counter = Counter()
    for a, b, c, u in itertools.permutations(tiles):
        d = s.copy()
        d.stacks, d.unused = [[a], [b], [], [c], []], [u]
        weights[_hidden_outcome(d, range(1, 3))[2:]] += 1
    rng = random.Random(8)
    draws = [
        _hidden_outcome(resolved(game, game.determinize(s, 0, rng), rng), range(1, 3))[2:]
        for _ in range(4800)
    ]
    assert_distributed(draws, weights)
