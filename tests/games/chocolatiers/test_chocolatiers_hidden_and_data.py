"""Chocolatiers: what is public and what is hidden, observations, component data, the
greedy bot and speed-related invariants."""

from __future__ import annotations

import copy
import json
import random
import sys

import numpy as np
import pytest

import choco_envs
from choco_envs.core.errors import ConfigError
from choco_envs.games.chocolatiers import ChocolatiersGame
from choco_envs.games.chocolatiers.components import (
    STANDARD_TILES,
    components_to_dict,
    default_components,
    load_components,
)
from choco_envs.games.chocolatiers.greedy import greedy_action
from choco_envs.games.chocolatiers.rules import BOX, GIVE, PAY, TAKE

from .helpers import M, R, draw_sampler, fresh, put_in_line, set_hand


def test_opponent_cards_seen_taken_are_public_and_dealt_cards_are_not() -> None:
    """RULINGS: "the tray is face up, so every card taken from it is seen by all, and so
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
    per = max(game.comp.card_counts)
    assert list(obs[lay["cards_1"]] * per) == pytest.approx([0, 0, 1, 0, 0, 0])
    assert obs[lay["unknown_1"]][0] == pytest.approx(2 / 3)
    text = game.state_to_string(s, 0)
    assert "known T0 N0 R1 M0 B0 V0 + 2 unseen" in text


def test_determinize_resamples_only_unseen_dealt_cards_and_hidden_orders() -> None:
    """RULINGS: "`determinize` resamples only the unknown dealt cards (consistent with
    what they were seen to pay or discard) and the deck order". Seen cards stay; the
    observer's hand, the tray and the face-up tiles never change."""
    game, s, rng = fresh(players=3, seed=4)
    for _ in range(9):
        game.apply(s, game.legal_actions(s)[0], rng)
    differs = 0
    for k in range(20):
        d = game.determinize(s, 0, random.Random(k))
        assert d.hand[0:6] == s.hand[0:6] and d.known == s.known and d.unknown == s.unknown
        for q in (1, 2):
            assert all(d.hand[q * 6 + t] >= s.known[q * 6 + t] for t in range(6))
            assert sum(d.hand[q * 6 : q * 6 + 6]) == sum(s.hand[q * 6 : q * 6 + 6])
        for t in range(6):  # every card is still somewhere, exactly once
            held = sum(d.hand[q * 6 + t] for q in range(3))
            total = held + d.deck.count(t) + d.tray[t] + d.discard[t]
            assert total == game.comp.card_counts[t]
        assert d.tray == s.tray
        assert d.display == s.display and sorted(d.stacks[0]) == sorted(s.stacks[0])
        assert np.array_equal(game.observe(d, 0), game.observe(s, 0))
        differs += d.hand != s.hand or d.deck != s.deck
    assert differs > 0


def test_after_a_reshuffle_the_deck_content_is_public() -> None:
    """RULINGS: every discarded card is seen, so a deck rebuilt from the discard pile has
    a known content; determinize keeps it and only reorders it."""
    game, s, rng = fresh(seed=2)
    s.deck = []
    s.discard = [0, 0, 3, 0, 0, 0]
    game.apply(s, next(t for t in range(6) if s.tray[t]), rng)
    assert s.reshuffled
    for k in range(5):
        d = game.determinize(s, 0, random.Random(k))
        assert sorted(d.deck) == sorted(s.deck)
        # the only other hidden cards are the opponent's own: they cannot change
        assert d.hand == s.hand


def test_determinize_keeps_an_opponent_able_to_finish_paying() -> None:
    """A seat that has chosen a tile is known to afford it (it was legal); a determinized
    state must leave it a way to finish paying (never an empty mask)."""
    game, s, rng = fresh()
    put_in_line(s, 0, 18)  # "TVTV 5"
    set_hand(s, 0, "T2 V2", known=False)
    game.apply(s, BOX + 0, rng)
    assert s.phase == PAY
    for k in range(20):
        d = game.determinize(s, 1, random.Random(k))
        assert game.legal_actions(d)


def test_classic_hidden_tiles_are_resampled_tops_are_not() -> None:
    """RULINGS: private is "the order of ... the classic tiles under each stack's top";
    the tiles returned to the box are unseen too."""
    game, s, rng = fresh("classic", players=2, seed=1)
    d = game.determinize(s, 0, random.Random(9))
    assert d.display == s.display
    assert sorted(sum(d.stacks, []) + d.unused) == sorted(sum(s.stacks, []) + s.unused)
    assert [len(x) for x in d.stacks] == [len(x) for x in s.stacks]


def test_observation_is_relative_to_the_observer() -> None:
    """Issue 3, item 5: observations are "all relative to the observer": own seat first."""
    game, s, rng = fresh()
    draw_sampler(s, 1, ["      ", "      ", "  TT  ", "  RR  ", "      ", "      "])
    lay = game.encoder("flat").layout
    own_tiles_seen_by_1 = game.observe(s, 1)[lay["tiles_0"]][0]
    other_tiles_seen_by_0 = game.observe(s, 0)[lay["tiles_1"]][0]
    assert own_tiles_seen_by_1 == other_tiles_seen_by_0 == pytest.approx(1 / 6)
    planes = game.observe(s, 1, "planes")
    assert planes[0, 2, 2] == 1.0 and planes[7, 2, 2] == 1.0  # own truffle plane, occupied
    assert planes[8 + 7, 2, 2] == 0.0  # seat 0 has no tile there


def test_observation_stays_in_bounds_for_every_encoder() -> None:
    """Every value within its layout bounds (the conformance suite checks random games;
    this checks a late, full position)."""
    game, s, rng = fresh(players=4)
    for q in range(4):
        draw_sampler(s, q, ["      ", "      ", "TTNNRR", "TT**RR", "MMBBVV", "MMBBVV"])
    for name in ("flat", "planes"):
        enc = game.encoder(name)
        obs = game.observe(s, 2, name)
        assert obs.shape == enc.shape
        assert (obs >= enc.low).all() and (obs <= enc.high).all()


def test_shipped_components_match_the_rulebook_counts_and_example_values() -> None:
    """Rulebook 000 Components: "36 Box Tiles, 51 Chocolate Cards, 8 Score Tiles, 15 Wild
    Chocolates"; 003: "30 azulejos de caja, 39 cartas de chocolate, 7 cartas de
    puntuación, 12 fichas". RULINGS: Score values "must agree with the rulebook example
    (nut cluster 5, mint 4, violet 3)"; every tile shows 3 or 4 chocolates."""
    std, cls = default_components("standard"), default_components("classic")
    assert (len(std.tiles), sum(std.card_counts), len(std.score_tiles)) == (36, 51, 8)
    assert (len(cls.tiles), sum(cls.card_counts), len(cls.score_tiles)) == (30, 39, 7)
    assert std.card_counts == (9, 9, 9, 8, 8, 8)
    scores = dict(std.score_tiles)
    assert (scores["nut_cluster"], scores["mint"], scores["violet"]) == (5, 4, 3)
    for comp in (std, cls):
        assert all(sum(t.cost) in (3, 4) and 2 <= t.points <= 8 for t in comp.tiles)
    assert sum(t.points in (3, 4) for t in std.tiles) >= 10


def test_no_tile_is_worth_more_with_less_variety_and_the_same_size() -> None:
    """RULINGS: "Point values are authored and follow the cost and its variety ... No tile
    is cheaper and worth more than another with the same number of chocolates." """
    for edition in ("standard", "classic"):
        tiles = default_components(edition).tiles
        for a in tiles:
            for b in tiles:
                same_size = sum(a.cost) == sum(b.cost)
                variety_a = sum(1 for c in a.cost if c)
                variety_b = sum(1 for c in b.cost if c)
                if same_size and variety_a < variety_b:
                    assert a.points <= b.points, (a.text(), b.text())


def test_own_components_are_validated_and_used(tmp_path) -> None:
    """RULINGS: component data "replaceable by a user who owns the physical game (a
    `components=` option or a data file)"; bad data is refused naming the bad value."""
    data = components_to_dict(default_components("standard"))
    data["tiles"][0] = "RRRR 8"
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(data))
    game = ChocolatiersGame(components=str(path))
    assert game.comp.tiles[0].text() == "RRRR 8"
    bad = copy.deepcopy(data)
    bad["tiles"][3] = "RR.. 3"
    with pytest.raises(ConfigError, match="shows 2 chocolates"):
        load_components(bad, "standard")
    bad = copy.deepcopy(data)
    bad["card_counts"]["mint"] = 1
    with pytest.raises(ConfigError, match="the standard edition has 51"):
        ChocolatiersGame(components=bad)
    bad = copy.deepcopy(data)
    bad["tiles"] = bad["tiles"][:30]
    with pytest.raises(ConfigError, match="36 box tiles"):
        ChocolatiersGame(components=bad)
    with pytest.raises(ConfigError, match="allowed values: 'standard', 'classic'"):
        ChocolatiersGame(edition="deluxe")
    assert STANDARD_TILES[0] == "MM.M 2"


@pytest.mark.parametrize("edition", ["standard", "classic"])
def test_greedy_beats_random(edition: str) -> None:
    """Issue 3: the greedy beginner must beat random play in 2-player games."""
    game = ChocolatiersGame(num_players=2, edition=edition)
    rng = random.Random(11)
    wins = 0
    games = 10
    for i in range(games):
        s = game.new_state(rng)
        seat = i % 2
        while not s.over:
            p = game.current_player(s)
            if p == seat:
                a = greedy_action(game, game.determinize(s, p, rng), rng)
            else:
                a = rng.choice(game.legal_actions(s))
            game.apply(s, a, rng)
        wins += game.returns(s)[seat] > 0
    assert wins >= 8


def test_state_copy_is_small_and_independent() -> None:
    """DESIGN budget: a state copy under 8 KB; the copy shares no list with the original."""
    game, s, rng = fresh(players=4)
    c = game.copy(s)
    size = (
        sys.getsizeof(c)
        + sum(sys.getsizeof(getattr(c, n)) for n in type(c).__slots__)
        + sum(sys.getsizeof(st) for st in c.stacks)
    )
    assert size < 8192
    game.apply(c, game.legal_actions(c)[0], rng)
    assert c.hand != s.hand or c.tray != s.tray
    for name in type(s).__slots__:
        v = getattr(s, name)
        if isinstance(v, list):
            assert v is not getattr(c, name)


def test_env_plays_through_the_registry() -> None:
    """The registered env id makes the classic edition too."""
    env = choco_envs.make("chocolatiers_v1", num_players=3, edition="classic")
    env.reset(seed=1)
    obs, *_ = env.last()
    assert obs["action_mask"].any()


@pytest.mark.parametrize("edition", ["standard", "classic"])
def test_determinize_depends_only_on_what_the_seat_sees(edition: str) -> None:
    """RULINGS: only the dealt cards and the deck and tile orders are private, so two
    states a seat cannot tell apart determinize identically with the same rng (no bot
    can learn the true order through it)."""
    game, s, rng = fresh(edition, players=3, seed=5)
    for _ in range(25):
        game.apply(s, rng.choice(game.legal_actions(s)), rng)
    lookalike = game.determinize(s, 1, random.Random(1))
    assert game.to_json(lookalike) != game.to_json(s)
    a = game.determinize(s, 1, random.Random(2))
    b = game.determinize(lookalike, 1, random.Random(2))
    assert game.to_json(a) == game.to_json(b)
