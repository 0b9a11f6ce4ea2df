"""Le Chocolat ``"derived"`` observation: ``"planes"``, then, for the seat to act, every
legal action's value to the greedy bot's one-ply lookahead, placed where the board
action head scores that action (``encoding._derived_encoder``)."""

from __future__ import annotations

import random

import numpy as np

from choco_envs.games.le_chocolat import LeChocolatGame
from choco_envs.games.le_chocolat.encoding import VALUE_SCALE
from choco_envs.games.le_chocolat.greedy import Beliefs, claim_gain, greedy_action, split_value
from choco_envs.games.le_chocolat.rules import NUM_SPLIT_ACTIONS, SPLIT


def positions(games: int = 6, seed: int = 0):
    game = LeChocolatGame()
    rng = random.Random(seed)
    for _ in range(games):
        s = game.new_state(rng)
        while not game.is_over(s):
            yield game, s, rng
            legal = game.legal_actions(s)
            a = greedy_action(game, s, rng) if rng.random() < 0.5 else rng.choice(legal)
            game.apply(s, a, rng)


def extra_planes(game: LeChocolatGame, s, p: int) -> np.ndarray:  # type: ignore[no-untyped-def]
    planes, derived = game.encoder("planes"), game.encoder("derived")
    obs = derived.encode(s, p)
    assert np.array_equal(obs[: planes.shape[0]], planes.encode(s, p))
    assert (obs >= derived.low).all() and (obs <= derived.high).all()
    return obs[planes.shape[0] :].reshape(-1)


def test_derived_is_planes_then_three_value_planes_with_the_same_action_places() -> None:
    game = LeChocolatGame()
    planes, derived = game.encoder("planes"), game.encoder("derived")
    assert derived.shape == (planes.shape[0] + 3, 5, 7)
    assert derived.action_planes == planes.action_planes
    names = [f.name for f in derived.layout.fields[-3:]]
    assert names == ["cut_right_value", "cut_below_value", "claim_value"]


def test_each_legal_action_holds_its_greedy_value_at_its_place() -> None:
    """ "Cut ... along any straight line" / "must claim exactly one" chunk of 3 or fewer:
    for the seat to act, a split's entry is 1 - (best - value) / 10 of the greedy bot's
    ``split_value`` (a claim's: of ``claim_gain``), floored at 0; every other entry is 0,
    and the seat not to act sees no values at all."""
    checked = 0
    for game, s, rng in positions():
        p = s.player
        extra = extra_planes(game, s, p)
        assert not extra_planes(game, s, 1 - p).any()
        card, beliefs = game.card(s), Beliefs(game, s, p)
        mine, theirs = beliefs.hand(s, p), beliefs.hand(s, 1 - p)
        legal = game.legal_actions(s)
        if s.phase == SPLIT:
            values = [split_value(game, card, beliefs, s, a, mine, theirs, rng) for a in legal]
        else:
            rects = [s.chunk_at[a - NUM_SPLIT_ACTIONS] for a in legal]
            values = [claim_gain(card, beliefs, mine, theirs, r) for r in rects]
        index = game.encoder("derived").action_planes.index  # type: ignore[union-attr]
        want = np.zeros_like(extra)
        for a, v in zip(legal, values, strict=True):
            want[index[a]] = max(0.0, 1.0 - (max(values) - v) / VALUE_SCALE)
        np.testing.assert_allclose(extra, want, atol=1e-6)
        checked += 1
    assert checked > 100


def test_the_greedy_bots_choice_is_valued_1() -> None:
    """The greedy bot plays a best action by that value, so its choice sits at a 1."""
    checked = 0
    for game, s, _ in positions(games=8, seed=4):
        extra = extra_planes(game, s, s.player)
        a = greedy_action(game, s, random.Random(checked))
        index = game.encoder("derived").action_planes.index  # type: ignore[union-attr]
        assert extra[index[a]] == 1.0
        checked += 1
    assert checked > 100


def test_values_ignore_what_the_observer_has_not_seen() -> None:
    """Rulebook: players "may secretly look at" the tiles they claim, never the
    opponent's. Re-dealing what the seat to act has not seen (its own determinization)
    leaves every value unchanged."""
    checked = 0
    for game, s, rng in positions(games=4, seed=9):
        p = s.player
        other = game.determinize(s, p, rng)
        assert np.array_equal(extra_planes(game, other, p), extra_planes(game, s, p))
        checked += 1
    assert checked > 50
