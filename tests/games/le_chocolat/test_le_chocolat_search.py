"""Le Chocolat lookahead (``search.py``), the ``greedy:depth=N`` bot and the ``"search"``
observation: alpha-beta gives the values a plain minimax gives, depth 1 scores moves the
way the greedy bot does, the setting is checked, and nothing the seat has not seen
enters a value or the observation."""

from __future__ import annotations

import random

import numpy as np
import pytest

from choco_envs.bots import make
from choco_envs.core.errors import ConfigError
from choco_envs.games.le_chocolat import LeChocolatGame, grid
from choco_envs.games.le_chocolat.encoding import SEARCH_DEPTH
from choco_envs.games.le_chocolat.greedy import Beliefs, greedy_action, split_value
from choco_envs.games.le_chocolat.rules import CLAIM, OVER, SPLIT
from choco_envs.games.le_chocolat.search import (
    MAX_DEPTH,
    VALUE_WINDOW,
    Lookahead,
    action_values,
    clear_cache,
    turn_moves,
    view_key,
)

from .test_le_chocolat_hidden import swap_unseen


def positions(games: int, seed: int, skip: int = 0):  # type: ignore[no-untyped-def]
    """Positions of games half greedy, half random, from the ``skip``-th decision on."""
    game = LeChocolatGame()
    rng = random.Random(seed)
    for _ in range(games):
        s = game.new_state(rng)
        step = 0
        while not game.is_over(s):
            if step >= skip:
                yield game, s
            legal = game.legal_actions(s)
            a = greedy_action(game, s, rng) if rng.random() < 0.5 else rng.choice(legal)
            game.apply(s, a, rng)
            step += 1


def minimax(search: Lookahead, game: LeChocolatGame, s, depth: int) -> float:  # type: ignore[no-untyped-def]
    """The plain minimax value (no pruning) the alpha-beta search must reproduce."""
    if depth == 0 or s.phase == OVER:
        return search.static(s)
    values = [minimax(search, game, u, depth - 1) for _, u in turn_moves(game, s)]
    return max(values) if s.player == search.seat else min(values)


def plain_values(game: LeChocolatGame, s, depth: int) -> dict[int, float]:  # type: ignore[no-untyped-def]
    search = Lookahead(game, s, s.player)
    out: dict[int, float] = {}
    if s.phase == CLAIM:
        moves = []
        for b in game.legal_actions(s):
            u = s.copy()
            game.apply(u, b, random.Random(0))
            moves.append((b, u))
    else:
        moves = turn_moves(game, s)
    for a, u in moves:
        out[a] = max(out.get(a, -float("inf")), minimax(search, game, u, depth - 1))
    return out


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_alpha_beta_values_match_plain_minimax_within_the_window(depth: int) -> None:
    """Every action whose value is within VALUE_WINDOW of the best gets its exact
    minimax value; the others are proved at least that far below the best."""
    checked = 0
    for game, s in positions(games=3, seed=depth, skip=14):
        if depth == 3 and checked >= 6:
            break  # depth 3 without pruning is slow: a few late positions suffice
        clear_cache()
        fast, plain = action_values(game, s, depth), plain_values(game, s, depth)
        assert fast.keys() == plain.keys() == set(game.legal_actions(s))
        top = max(plain.values())
        assert max(fast.values()) == pytest.approx(top)
        for a, v in plain.items():
            if v >= top - VALUE_WINDOW + 1e-6:
                assert fast[a] == pytest.approx(v), (a, fast[a], v)
            else:
                assert fast[a] <= top - VALUE_WINDOW + 1e-6
        checked += 1
    assert checked >= 6


def test_depth_one_scores_splits_like_the_greedy_bot() -> None:
    """Depth 1 is the greedy bot's own lookahead: for every split that ends the turn (no
    choice of claim), its value differs from ``greedy.split_value`` by one constant (the
    search counts the tile bonus on all tiles claimed so far, greedy on those gained)."""
    rng = random.Random(0)
    tested = 0
    for game, s in positions(games=4, seed=11):
        if s.phase != SPLIT:
            continue
        seat = s.player
        beliefs = Beliefs(game, s, seat)
        mine, theirs = beliefs.hand(s, seat), beliefs.hand(s, 1 - seat)
        values = action_values(game, s, 1)
        offsets = []
        for a in game.legal_actions(s):
            t = s.copy()
            game.apply(t, a, random.Random(0))
            if t.phase == CLAIM and t.player == seat:
                continue
            greedy = split_value(game, game.card(s), beliefs, s, a, mine, theirs, rng)
            offsets.append(values[a] - greedy)
        if offsets:
            assert max(offsets) - min(offsets) < 1e-9
            tested += 1
    assert tested >= 20


def test_depth_setting_is_checked_and_depth_one_is_the_baseline() -> None:
    for bad in ("0", str(MAX_DEPTH + 1), "two", "1.5"):
        with pytest.raises(ConfigError, match="depth"):
            make(f"greedy:depth={bad}", env_id="le_chocolat_v0")
    game = LeChocolatGame()
    with pytest.raises(ValueError, match=r"depth=0 .*allowed: an integer 1\.\.4"):
        action_values(game, game.new_state(random.Random(0)), 0)
    for game, s in positions(games=2, seed=5):
        a = greedy_action(game, s, random.Random(3))
        assert greedy_action(game, s, random.Random(3), depth=1) == a


@pytest.mark.parametrize("depth", [2, 3])
def test_deeper_bot_plays_a_best_searched_action(depth: int) -> None:
    for n, (game, s) in enumerate(positions(games=2, seed=20 + depth)):
        if n % 3:
            continue
        values = action_values(game, s, depth)
        a = greedy_action(game, s, random.Random(n), depth=depth)
        assert values[a] == pytest.approx(max(values.values()))


def test_search_never_reads_a_tile_the_seat_has_not_seen() -> None:
    """RULINGS.md: a player never sees "the opponent's hidden sides nor those still on the
    table". Swapping two such tiles changes neither the cache key of the view nor any
    searched value (computed afresh), nor the ``"search"`` observation."""
    enc = LeChocolatGame().encoder("search")
    checked = 0
    for game, s in positions(games=4, seed=31, skip=16):
        if checked >= 6:
            break
        seat = s.player
        try:
            t = swap_unseen(s, seat)
        except AssertionError:
            continue
        assert view_key(game, s, seat, 3) == view_key(game, t, seat, 3)
        assert view_key(game, s, seat, 3) != view_key(game, s, 1 - seat, 3)
        clear_cache()
        before, obs = action_values(game, s, 3), enc.encode(s, seat)
        clear_cache()
        assert action_values(game, t, 3) == before
        clear_cache()
        np.testing.assert_array_equal(enc.encode(t, seat), obs)
        checked += 1
    assert checked >= 4


def test_search_observation_is_derived_then_the_search_values_at_the_action_places() -> None:
    game = LeChocolatGame()
    derived, search = game.encoder("derived"), game.encoder("search")
    assert search.shape == (derived.shape[0] + 3, grid.HEIGHT, grid.WIDTH)
    assert search.action_planes == derived.action_planes
    place = search.action_planes.index  # type: ignore[union-attr]
    checked = 0
    for n, (game, s) in enumerate(positions(games=2, seed=41)):
        if n % 4:
            continue
        p = s.player
        obs = search.encode(s, p)
        assert np.array_equal(obs[: derived.shape[0]], derived.encode(s, p))
        extra = obs[derived.shape[0] :].reshape(-1)
        values = action_values(game, s, SEARCH_DEPTH)
        top = max(values.values())
        expected = np.zeros_like(extra)
        for a, v in values.items():
            expected[place[a]] = max(0.0, 1.0 - (top - v) / VALUE_WINDOW)
        np.testing.assert_allclose(extra, expected, rtol=0, atol=1e-6)
        assert extra.max() == 1.0  # the best action
        assert not search.encode(s, 1 - p)[derived.shape[0] :].any()  # not the seat to act
        checked += 1
    assert checked >= 8
