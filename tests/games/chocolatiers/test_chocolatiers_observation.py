"""Chocolatiers observations: game information only (``flat`` and ``planes``), relative
to the observer, within bounds; the removed bot-computed encoders are refused."""

from __future__ import annotations

import random
import sys

import numpy as np
import pytest

import choco_envs
from choco_envs.core.errors import ConfigError
from choco_envs.games.chocolatiers import ChocolatiersGame

from .helpers import box_tile, draw_sampler, fresh


@pytest.mark.parametrize("name", ["derived", "contest", "search", "plan", "beliefs"])
def test_bot_computed_observations_are_gone(name: str) -> None:
    """Issue 21: "Remove derived, contest, search, plan and beliefs from the env options
    (a clear ConfigError naming the allowed ones)"."""
    game = ChocolatiersGame()
    assert sorted(game.encoders) == ["flat", "planes"]
    with pytest.raises(
        ConfigError, match=f"observation='{name}'.*allowed values: 'flat', 'planes'"
    ):
        choco_envs.make("chocolatiers_v1", observation=name)


def test_observation_is_relative_to_the_observer() -> None:
    """Own seat first, then the others in turn order; the Samplers likewise."""
    game, s, rng = fresh()
    draw_sampler(s, 1, ["TT    ", "RR    ", "      ", "      ", "      ", "      "])
    lay = game.encoder("flat").layout
    own_tiles_seen_by_1 = game.observe(s, 1)[lay["tiles_0"]][0]
    other_tiles_seen_by_0 = game.observe(s, 0)[lay["tiles_1"]][0]
    assert own_tiles_seen_by_1 == other_tiles_seen_by_0 == pytest.approx(1 / 6)
    planes = game.observe(s, 1, "planes")
    assert planes[0, 0, 0] == 1.0 and planes[7, 0, 0] == 1.0  # own truffle plane, occupied
    assert planes[8 + 7, 0, 0] == 0.0  # seat 0 has no tile there


def test_the_sampler_is_shown_anchored_where_placements_are_counted_from() -> None:
    """Rulings: "For the observation the Sampler can be shown anchored to a corner of a
    6x6 space grid." A tile placed left of the first shifts the planes with the
    actions' frame: the top-left tile is always at grid (0, 0)."""
    game, s, rng = fresh()
    box_tile(game, s, rng, 18)  # TV/TV
    box_tile(game, s, rng, 14, 0, -1)  # BB/BB to its left
    planes = game.observe(s, 0, "planes")
    assert planes[4, 0:2, 0:2].sum() == 4 and planes[0, 0:2, 2].sum() == 2  # B then T
    assert planes[7].sum() == 8 and planes[7, 0:2, 0:4].all()


def test_a_rebuilt_deck_is_shown_as_what_it_holds() -> None:
    """Rulings: every discarded card is public, so after a reshuffle the deck's content is
    game information the observation carries (``deck_known``)."""
    game, s, rng = fresh()
    lay = game.encoder("flat").layout
    assert not game.observe(s, 0)[lay["reshuffled"]].any()
    s.deck, s.discard = [], [0, 0, 4, 0, 0, 0]
    game.apply(s, next(t for t in range(6) if s.tray[t]), rng)
    obs = game.observe(s, 1)
    per = max(game.components.card_counts)
    assert obs[lay["reshuffled"]][0] == 1.0
    assert list(obs[lay["deck_known"]] * per) == pytest.approx([0, 0, 3, 0, 0, 0])


def test_observation_stays_in_bounds_for_every_encoder() -> None:
    """Every value within its layout bounds (the conformance suite checks random games;
    this checks a late, full position with wilds)."""
    game, s, rng = fresh(players=4)
    for q in range(4):
        draw_sampler(s, q, ["TTNNRR", "TT**RR", "MMBBVV", "MMBBVV", "      ", "      "])
    for name in ("flat", "planes"):
        enc = game.encoder(name)
        obs = game.observe(s, 2, name)
        assert obs.shape == enc.shape
        assert (obs >= enc.low).all() and (obs <= enc.high).all()


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
    """The registered env id makes the classic edition too, with 137 actions."""
    env = choco_envs.make("chocolatiers_v1", num_players=3, edition="classic")
    env.reset(seed=1)
    obs, *_ = env.last()
    assert obs["action_mask"].shape == (137,) and obs["action_mask"].any()
    rng = random.Random(0)
    while not all(env.terminations.values()):
        env.step(
            rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist())
        )
