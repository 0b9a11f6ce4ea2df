"""Le Chocolat hidden information: what each seat sees, and determinize."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from choco_envs.games.le_chocolat import LeChocolatGame, LeChocolatState, grid

from .helpers import fresh

N = grid.CELLS


@pytest.fixture
def game() -> LeChocolatGame:
    return LeChocolatGame(scoring_card=0)


def midgame(game: LeChocolatGame, seed: int, steps: int = 30) -> LeChocolatState:
    rng = random.Random(seed)
    s = fresh(game, seed)
    for _ in range(steps):
        if game.is_over(s):
            break
        game.apply(s, rng.choice(game.legal_actions(s)), rng)
    return s


def plane(game: LeChocolatGame, obs: np.ndarray, name: str) -> np.ndarray:
    return obs[game.encoders["flat"].layout[name]]


def hidden_claimed_cell(s: LeChocolatState, seat: int) -> int:
    return next(c for c in range(N) if s.owner[c] == seat and not s.up[c] and s.flavor[c] >= 0)


def test_a_player_sees_the_hidden_side_of_their_own_tiles_only(game: LeChocolatGame) -> None:
    """Claiming Chocolate: "You may secretly look at the hidden side of your tiles, but do
    not reveal what's on them to your opponent." """
    s = midgame(game, 3)
    c = hidden_claimed_cell(s, 0)
    name = f"flavor_{game.components.flavors[s.flavor[c]]}"
    own, other = game.observe(s, 0), game.observe(s, 1)
    assert plane(game, own, name)[c] == 1 and plane(game, own, "blank_unknown")[c] == 0
    assert plane(game, other, name)[c] == 0 and plane(game, other, "blank_unknown")[c] == 1
    assert plane(game, own, "claimed_by_me")[c] == 1
    assert plane(game, other, "claimed_by_opponent")[c] == 1
    flavor = game.components.flavors[s.flavor[c]]
    hand0_seen_by = {
        seat: next(
            line
            for line in game.state_to_string(s, seat).splitlines()
            if line.startswith("player_0 claimed")
        )
        for seat in (0, 1)
    }
    assert f"{flavor} (back)" in hand0_seen_by[0]
    assert f"{flavor} (back)" not in hand0_seen_by[1] and "back unknown" in hand0_seen_by[1]


def swap_unseen(s: LeChocolatState, seat: int) -> LeChocolatState:
    """The same position with two tiles that ``seat`` has not seen (and that differ)
    swapped: one on the table or in the box, one in the opponent's hand."""
    t = s.copy()
    theirs = [c for c in range(N) if s.owner[c] == 1 - seat and not s.up[c]]
    others = [c for c in range(N) if s.owner[c] == -1 and not s.up[c]]
    for a in theirs:
        for b in others:
            if s.flavor[a] != s.flavor[b]:
                t.flavor[a], t.flavor[b] = s.flavor[b], s.flavor[a]
                return t
    raise AssertionError("no pair of different unseen tiles")


def test_unseen_sides_never_reach_observation_mask_or_text(game: LeChocolatGame) -> None:
    """RULINGS.md: a player sees "every face-up side, and the hidden side of the tiles they
    claimed, never the opponent's hidden sides nor those still on the table"."""
    for seed in range(5):
        s = midgame(game, seed, steps=20)
        seat = s.player
        t = swap_unseen(s, seat)
        assert set(game.encoders) == {"flat", "planes"}
        for name, enc in game.encoders.items():
            np.testing.assert_array_equal(enc.encode(s, seat), enc.encode(t, seat), err_msg=name)
        np.testing.assert_array_equal(game.legal_mask(s), game.legal_mask(t))
        assert game.state_to_string(s, seat) == game.state_to_string(t, seat)
        assert game.state_to_string(s, None) == game.state_to_string(t, None)
        assert not np.array_equal(game.observe(s, 1 - seat), game.observe(t, 1 - seat)), (
            "the opponent does see its own tile"
        )


def test_determinize_resamples_every_unseen_side_and_nothing_else(game: LeChocolatGame) -> None:
    """RULINGS.md: the boxed tile's "up side was seen; its hidden side never is"; determinize
    resamples what the observer has not seen, consistently with the tile set (a blank face
    hides any flavor tile's back or a blank/blank tile)."""
    s = midgame(game, 11, steps=16)
    while s.box_up:  # a position whose boxed tile shows a blank face
        s = midgame(game, s.card + 100 + s.tiles_left, steps=16)
    rng = random.Random(0)
    seat = 0
    known = [c for c in range(N) if s.knows(c, seat)]
    boxed, changed = set(), 0
    for _ in range(100):
        d = game.determinize(s, seat, rng)
        assert Counter(d.flavor + [d.box_flavor]) == Counter(s.flavor + [s.box_flavor])
        assert all(d.flavor[c] == s.flavor[c] for c in known)
        assert d.up == s.up and d.owner == s.owner and d.chunk_at == s.chunk_at
        boxed.add(d.box_flavor)
        changed += d.flavor != s.flavor
    assert len(boxed) > 1 and changed > 90


def test_a_face_up_flavor_is_known_to_have_a_blank_back(game: LeChocolatGame) -> None:
    """RULINGS.md: "given a visible flavor face, its back is blank": a face-up tile and a
    face-up boxed tile never change in a determinization."""
    rng = random.Random(1)
    for seed in range(20):
        s = fresh(game, seed)
        d = game.determinize(s, 1, rng)
        assert all(d.flavor[c] == s.flavor[c] for c in range(N) if s.up[c])
        if s.box_up:
            assert d.box_flavor == s.box_flavor


def test_scoring_reveals_claimed_tiles_but_never_the_boxed_one(game: LeChocolatGame) -> None:
    """Game End: "each player flips over their blank tiles"; at the end both seats know
    every claimed tile; the boxed tile's hidden side stays unknown (and is fixed by the set)."""
    s = midgame(game, 4, steps=200)
    assert game.is_over(s)
    assert np.array_equal(plane(game, game.observe(s, 0), "blank_unknown"), np.zeros(N))
    for seat in (0, 1):
        assert game.determinize(s, seat, random.Random(seat)) == s


def test_observation_is_relative_and_counts_unseen_tiles(game: LeChocolatGame) -> None:
    """Observations: own first; the unseen flavor counts are the tiles the seat cannot
    place (the set minus every face seen), the pool determinize draws from."""
    s = midgame(game, 8, steps=24)
    obs0, obs1 = game.observe(s, 0), game.observe(s, 1)
    assert np.array_equal(
        plane(game, obs0, "claimed_by_me"), plane(game, obs1, "claimed_by_opponent")
    )
    assert plane(game, obs0, "own_claimed")[0] == pytest.approx(s.claimed[0] / 35)
    assert plane(game, obs1, "own_claimed")[0] == pytest.approx(s.claimed[1] / 35)
    totals = game.components.flavor_counts
    pool = Counter(s.flavor[c] for c in range(N) if not s.knows(c, 0))
    if not s.box_up:
        pool[s.box_flavor] += 1
    unseen = plane(game, obs0, "unseen_flavors") * np.array(totals)
    assert np.allclose(unseen, [pool[f] for f in range(len(totals))])
    card = plane(game, obs0, "card_each") * 10
    assert card[game.components.flavors.index("pistachio")] == pytest.approx(-2)


def test_planes_hold_the_flat_numbers(game: LeChocolatGame) -> None:
    """The "planes" encoder shows the same facts as "flat": each grid plane reshaped to
    5x7, each scalar as a constant plane."""
    s = midgame(game, 6, steps=18)
    flat, planes = game.observe(s, 1, "flat"), game.observe(s, 1, "planes")
    grid_channels = len(game.components.flavors) + 7
    assert np.array_equal(planes[:grid_channels].reshape(-1), flat[: grid_channels * N])
    assert np.array_equal(planes[grid_channels:, 2, 3], flat[grid_channels * N :])
    assert (planes[grid_channels:] == planes[grid_channels:, :1, :1]).all()
