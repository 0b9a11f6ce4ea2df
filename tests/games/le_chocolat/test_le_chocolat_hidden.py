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
    """the rulings in docs/games/le_chocolat.md: a player sees "every face-up side, and the hidden side of the tiles they
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


def hidden_box_midgame(game: LeChocolatGame, seat: int = 0) -> LeChocolatState:
    """A mid-game position whose boxed tile shows a blank face, with tiles ``seat`` has
    not seen both on the table and in the opponent's hand."""
    for seed in range(100):
        s = midgame(game, seed, steps=16)
        theirs = [c for c in range(N) if s.owner[c] == 1 - seat and not s.knows(c, seat)]
        table = [c for c in range(N) if s.owner[c] == -1 and not s.knows(c, seat)]
        if not s.box_up and len(theirs) >= 4 and len(table) >= 4:
            return s
    raise AssertionError("no such position")


def test_determinize_keeps_everything_the_seat_knows(game: LeChocolatGame) -> None:
    """the rulings in docs/games/le_chocolat.md: a player sees "every face-up side, and the hidden side of the tiles
    they claimed": a determinization keeps those tiles, the table, the claims and the
    card, and deals the rest of the tile set to the unseen places."""
    s = hidden_box_midgame(game)
    rng = random.Random(0)
    for seat in (0, 1):
        known = [c for c in range(N) if s.knows(c, seat)]
        for _ in range(50):
            d = game.determinize(s, seat, rng)
            assert Counter(d.flavor + [d.box_flavor]) == Counter(s.flavor + [s.box_flavor])
            assert [d.flavor[c] for c in known] == [s.flavor[c] for c in known]
            assert (d.up, d.owner, d.chunk_at) == (s.up, s.owner, s.chunk_at)
            assert (d.card, d.player, d.phase, d.box_up) == (s.card, s.player, s.phase, s.box_up)


def flavor_shares(flavors: list[int]) -> Counter[int]:
    total = len(flavors)
    return Counter({f: k / total for f, k in Counter(flavors).items()})


def distance(a: Counter[int], b: Counter[int]) -> float:
    """Total variation distance of two distributions over flavors (-1: blank/blank)."""
    return sum(abs(a[f] - b[f]) for f in set(a) | set(b)) / 2


def test_determinize_resamples_every_unseen_place_from_the_unseen_tiles(
    game: LeChocolatGame,
) -> None:
    """Determinize "must resample every hidden thing": over many determinizations, every
    place the seat has not seen (each blank face on the table, each blank face in the
    opponent's hand, the boxed tile showing a blank face) holds each unseen tile in its
    proportion ("any tile of the rest of the set fits a blank face", docs), and so keeps
    its true tile only at that rate; a place not resampled would always keep it."""
    seat = 0
    s = hidden_box_midgame(game, seat)
    cells, pool = game.unseen(s, seat)
    expected = flavor_shares(pool)
    places = {
        "table": [c for c in cells if s.owner[c] == -1],
        "opponent's hand": [c for c in cells if s.owner[c] == 1 - seat],
        "box": [-1],
    }
    drawn: dict[int, list[int]] = {c: [] for where in places.values() for c in where}
    rng = random.Random(7)
    for _ in range(800):
        d = game.determinize(s, seat, rng)
        for c in drawn:
            drawn[c].append(d.flavor[c] if c >= 0 else d.box_flavor)
    for name, where in places.items():
        for c in where:
            true = s.flavor[c] if c >= 0 else s.box_flavor
            assert distance(flavor_shares(drawn[c]), expected) < 0.12, (name, c)
            kept = drawn[c].count(true) / len(drawn[c])
            assert abs(kept - expected[true]) < 0.06, (name, c, kept)


def test_determinize_depends_only_on_what_the_seat_has_seen(game: LeChocolatGame) -> None:
    """Hidden information stays hidden: two positions that differ only in tiles the seat
    has not seen give the same determinizations from the same random stream (the unseen
    tiles are sorted before they are dealt), so a bot cannot read the true deal from
    its samples."""
    for seed in range(6):
        s = midgame(game, seed, steps=20)
        seat = s.player
        t = swap_unseen(s, seat)
        assert t != s
        for k in range(5):
            a = game.determinize(s, seat, random.Random(k))
            b = game.determinize(t, seat, random.Random(k))
            assert a == b


def boxed_setups(game: LeChocolatGame, n: int) -> list[LeChocolatState]:
    return [fresh(game, seed) for seed in range(n)]


def test_the_boxed_tiles_up_side_is_random(game: LeChocolatGame) -> None:
    """Setup: "Flip some of them over so each tile starts with a random side up. Return 1
    random tile to the box without looking at the hidden side." the rulings in docs/games/le_chocolat.md: "one random
    tile goes back to the box; its up side was seen". So the boxed tile shows its flavor
    side at the rate the set implies: a flavor tile (30 of 36) half the time, 5/12 in
    all; a blank/blank tile never (it has no flavor side)."""
    setups = boxed_setups(game, 3000)
    up = sum(s.box_up for s in setups)
    assert abs(up / len(setups) - 30 / 36 / 2) < 0.04
    flavored = [s for s in setups if s.box_flavor >= 0]
    assert abs(sum(s.box_up for s in flavored) / len(flavored) - 0.5) < 0.04
    assert not any(s.box_up for s in setups if s.box_flavor < 0)
    shown = Counter(s.box_flavor for s in setups if s.box_up)
    assert set(shown) == set(range(len(game.components.flavors))), "every flavor is shown"


def box_face(game: LeChocolatGame, obs: np.ndarray) -> int:
    """The face the observation shows for the boxed tile: a flavor, or -1 (blank)."""
    face = plane(game, obs, "box_face")
    assert sorted(face.tolist()) == [0.0] * (len(face) - 1) + [1.0], "one-hot"
    index = int(np.argmax(face))
    return index if index < len(game.components.flavors) else -1


def test_the_boxed_tiles_face_is_seen_by_every_seat(game: LeChocolatGame) -> None:
    """the rulings in docs/games/le_chocolat.md: the boxed tile's "up side was seen, its hidden side never is": every
    seat's observation (flat and planes) and every view's text show its face, a flavor
    when that side is up, else a blank face; a face-up boxed flavor is not counted among
    the unseen tiles, a blank face's tile is."""
    n = len(game.components.flavors)
    setups = boxed_setups(game, 40)
    assert {s.box_up for s in setups} == {True, False}
    start = game.encoders["planes"].layout["box_face"].start
    for s in setups:
        face = s.box_flavor if s.box_up else -1
        for seat in (0, 1):
            flat, planes = game.observe(s, seat, "flat"), game.observe(s, seat, "planes")
            assert box_face(game, flat) == face
            assert np.array_equal(
                planes[start : start + n + 1, 0, 0], plane(game, flat, "box_face")
            )
            _, pool = game.unseen(s, seat)
            unseen = plane(game, flat, "unseen_flavors") * np.array(game.components.flavor_counts)
            assert np.allclose(unseen, [pool.count(f) for f in range(n)])
            assert len(pool) == 36 - sum(s.up) - (1 if s.box_up else 0)
        shown = game.components.flavors[s.box_flavor] if s.box_up else "a blank face"
        for viewer in (0, 1, None):
            assert f"boxed tile shows {shown}" in game.state_to_string(s, viewer)


def test_a_determinization_never_changes_a_face_up_tile_or_the_boxed_face(
    game: LeChocolatGame,
) -> None:
    """the rulings in docs/games/le_chocolat.md: "given a visible flavor face, its back is blank": a face-up tile, in
    the grid or in the box, is known to every seat and never resampled; nor is the face
    the boxed tile shows."""
    rng = random.Random(1)
    setups = boxed_setups(game, 60)
    assert sum(s.box_up for s in setups) >= 15
    for s in setups:
        for seat in (0, 1):
            for _ in range(10):
                d = game.determinize(s, seat, rng)
                assert d.box_up == s.box_up
                assert all(d.flavor[c] == s.flavor[c] for c in range(N) if s.up[c])
                if s.box_up:
                    assert d.box_flavor == s.box_flavor
    hidden = next(s for s in setups if not s.box_up)
    boxed = {game.determinize(hidden, 0, rng).box_flavor for _ in range(100)}
    assert len(boxed) > 3, "a blank-faced boxed tile is resampled"


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
