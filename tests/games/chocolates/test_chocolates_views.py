"""What players see in Chocolates: observations, determinization, records, text, env."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import numpy as np
import pytest

from choco_envs import chocolates_v0
from choco_envs.core.errors import ConfigError
from choco_envs.core.game import draw
from choco_envs.games.chocolates import ChocolatesGame
from choco_envs.games.chocolates.encoding import CELL_FEATURES
from tests.uniformity import assert_distributed

from .helpers import STANDARD, reveal, state_from, take

RNG = random.Random(0)


def midgame(game: ChocolatesGame, seed: int = 3, steps: int = 9):  # noqa: ANN201
    rng = random.Random(seed)
    s = game.new_state(rng)
    for _ in range(steps):
        game.apply(s, rng.choice(game.legal_actions(s)), rng)
    return s


def test_observation_shows_only_face_up_chocolates() -> None:
    """the rulings in docs/games/chocolates.md: 'All information is public; what is unknown is the same for every
    player' - the face-down chocolates are unknown to everyone, so their cells are 0."""
    game = ChocolatesGame(num_players=2)
    s = state_from(game, STANDARD)
    game.apply(s, reveal(0), RNG)  # dark round at row 1 column 1
    obs = game.observe(s, 1)
    lay = game.encoders["flat"].layout
    grid = obs[lay["grid"]].reshape(16, CELL_FEATURES)
    assert grid[0].tolist() == [1, 0, 0, 0, 0, 0, 1, 0, 0, 1]
    assert not grid[1:].any()
    assert not obs[lay["beside"]].any()


def test_observation_is_relative_to_the_observing_seat() -> None:
    """Own cards and nougats come first, then the others in seat order after it."""
    game = ChocolatesGame(num_players=3)
    s = state_from(game)
    game.apply(s, take(0, false_side=True), RNG)  # player 0: card 0, false side
    lay = game.encoders["flat"].layout
    cards0 = game.observe(s, 0)[lay["seat_cards"]].reshape(3, 29, 2)
    cards2 = game.observe(s, 2)[lay["seat_cards"]].reshape(3, 29, 2)
    assert cards0[0, 0, 1] == 1 and cards0.sum() == 1
    assert cards2[1, 0, 1] == 1 and cards2.sum() == 1  # seat 0 is seat 2's next seat


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("encoding", ["flat", "planes"])
def test_observations_stay_within_their_declared_bounds(players: int, encoding: str) -> None:
    game = ChocolatesGame(num_players=players)
    enc = game.encoders[encoding]
    rng = random.Random(players)
    for _ in range(30):
        s = game.new_state(rng)
        while True:
            for seat in range(players):
                obs = enc.encode(s, seat)
                assert obs.shape == enc.shape and obs.dtype == np.float32
                assert (obs >= enc.low).all() and (obs <= enc.high).all()
            if game.is_over(s):
                break
            game.apply(s, rng.choice(game.legal_actions(s)), rng)


def test_planes_hold_the_grid_spatially() -> None:
    """The planes encoder puts grid cell (r, c) at [:, r, c]: type, shape, face-up."""
    game = ChocolatesGame(num_players=2)
    s = state_from(game, STANDARD)
    game.apply(s, reveal(6), RNG)  # row 2 column 3: pink round
    planes = game.observe(s, 0, "planes")
    assert planes[4, 1, 2] == 1 and planes[6, 1, 2] == 1 and planes[9, 1, 2] == 1
    assert planes[:10].sum() == 3


@pytest.mark.parametrize("removed", ["beliefs", "plan"])
def test_bot_computed_observations_are_gone(removed: str) -> None:
    """Observations are game information only: the ``beliefs`` and ``plan`` encoders
    (bot estimates and a bot's chosen action) were removed; asking for one is a
    ConfigError naming the allowed encoders."""
    allowed = r"allowed values: 'flat', 'planes'"
    with pytest.raises(ConfigError, match=rf"observation='{removed}'.*{allowed}"):
        chocolates_v0.env(observation=removed)
    assert set(ChocolatesGame().encoders) == {"flat", "planes"}


def test_determinize_resamples_every_face_down_chocolate_and_the_pile() -> None:
    """Hidden information: the face-down chocolates and the pile order. Over many
    determinizations every unseen kind lands on every face-down place (in the grid and
    beside it) about as often as its share, and every unseen card is the one a take
    turns up from the pile about as often as any other (the pile's order is left to its
    draws: ``pile_unordered``)."""
    game = ChocolatesGame(num_players=2)
    s = midgame(game, steps=6)
    hidden = [pos for pos in range(21) if not s.revealed[pos]]
    unseen = sorted(s.layout[pos] for pos in hidden)
    rng = random.Random(11)
    samples = [game.determinize(s, 0, rng) for _ in range(3000)]
    for pos in (hidden[0], hidden[len(hidden) // 2], hidden[-1]):
        seen = [d.layout[pos] for d in samples]
        for kind in set(unseen):
            share = unseen.count(kind) / len(unseen)
            assert seen.count(kind) / 3000 == pytest.approx(share, abs=0.035), (pos, kind)
    assert game.can_take(s)
    take_slot0 = game.legal_actions(s)[0]
    assert take_slot0 < 6
    tops = []
    for d in samples:
        game.apply(d, take_slot0, rng)
        tops.append(d.display[take_slot0 // 2])
    for card in s.pile:
        assert tops.count(card) / 3000 == pytest.approx(1 / len(s.pile), abs=0.02), card


def test_determinize_draws_every_placing_equally_often() -> None:
    """The plain definition, on a small position: 4 chocolates face down (two of one
    kind: 12 placings) and 3 cards in the pile (6 orders). Every placing of the unseen
    chocolates on the face-down places and every pile order is equally likely: the
    enumerated placings give the weight of each outcome, and 7,200 determinizations
    follow them (chi-square). The pile's order is the order in which its cards are drawn
    (``core.game.draw``, as a take draws them; top first)."""
    game = ChocolatesGame(num_players=2)
    s = game.new_state(random.Random(1))
    hidden = [2, 9, 16, 20]
    # two of one kind: placings that swap them are one
    s.layout = (*s.layout[:9], s.layout[2], *s.layout[10:])
    s.revealed = bytearray(pos not in hidden for pos in range(21))
    s.pile = s.pile[:3]
    weights: Counter = Counter()
    for kinds in itertools.permutations(s.layout[pos] for pos in hidden):
        for pile in itertools.permutations(s.pile):
            weights[kinds, pile] += 1
    rng = random.Random(12)
    draws = []
    for _ in range(7200):
        d = game.determinize(s, 1, rng)
        assert [d.layout[pos] for pos in range(21) if s.revealed[pos]] == [
            s.layout[pos] for pos in range(21) if s.revealed[pos]
        ]
        drawn = [draw(rng, d.pile, d.pile_unordered) for _ in range(3)]
        draws.append((tuple(d.layout[pos] for pos in hidden), tuple(reversed(drawn))))
    assert len(weights) == 12 * 6
    assert_distributed(draws, weights)


def test_determinize_reshuffles_only_what_nobody_has_seen() -> None:
    """The task: 'determinize reshuffles the unrevealed chocolates among the unrevealed
    positions and the prediction pile order'; what a seat sees is unchanged."""
    game = ChocolatesGame(num_players=3)
    s = midgame(game)
    rng = random.Random(5)
    layouts, piles = set(), set()
    for _ in range(30):
        d = game.determinize(s, 1, rng)
        for pos in range(21):
            if s.revealed[pos]:
                assert d.layout[pos] == s.layout[pos]
        assert sorted(d.layout) == sorted(s.layout) and sorted(d.pile) == sorted(s.pile)
        for seat in range(3):
            assert np.array_equal(game.observe(d, seat), game.observe(s, seat))
            assert game.state_to_string(d, seat) == game.state_to_string(s, seat)
        assert np.array_equal(game.legal_mask(d), game.legal_mask(s))
        layouts.add(tuple(d.layout))
        assert d.pile_unordered and not s.pile_unordered  # the pile's order: its draws
        piles.add(tuple(draw(rng, d.pile, d.pile_unordered) for _ in range(len(d.pile))))
    assert len(layouts) > 1 and len(piles) > 1


def test_json_round_trip_continues_identically() -> None:
    game = ChocolatesGame(num_players=4)
    s = midgame(game, steps=12)
    copy = game.from_json(game.to_json(s))
    assert copy == s
    rng_a, rng_b = random.Random(9), random.Random(9)
    while not game.is_over(s):
        a = rng_a.choice(game.legal_actions(s))
        assert a == rng_b.choice(game.legal_actions(copy))
        game.apply(s, a, rng_a)
        game.apply(copy, a, rng_b)
    assert game.scores(s) == game.scores(copy)


def test_text_hides_face_down_chocolates_until_the_end() -> None:
    game = ChocolatesGame(num_players=2)
    s = state_from(game, STANDARD)
    game.apply(s, reveal(0), RNG)
    text = game.state_to_string(s, 0)
    assert "Dko ??? ???" in text and "score" not in text
    s.revealed = bytearray([1] * 15 + [0] * 6)
    s.grid_hidden = 1
    game.apply(s, reveal(15), RNG)
    final = game.state_to_string(s, None)
    assert "???" not in final and "score" in final


def test_action_names() -> None:
    game = ChocolatesGame(num_players=2)
    s = state_from(game)
    assert game.action_to_string(s, take(1, True)).startswith("take #1 false side (5 pts)")
    assert game.action_to_string(s, reveal(5)) == "reveal grid r2c2"
    assert game.action_to_string(s, reveal(18)) == "reveal beside 3"


def test_env_plays_a_seeded_game_to_the_end() -> None:
    """The public surface: chocolates_v0.env(...) with masks; every agent's reward at the
    end is its rank-based return from the final scores."""
    env = chocolates_v0.env(num_players=3, render_mode="ansi")
    env.reset(seed=4)
    rng = random.Random(4)
    final = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            final[agent] = reward
            env.step(None)
            continue
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    raw = env.unwrapped
    assert raw.game.is_over(raw.state_)
    assert [final[f"player_{i}"] for i in range(3)] == raw.game.returns(raw.state_)
    assert "game over" in raw.render()


def test_determinize_depends_only_on_what_is_public() -> None:
    """Two states that differ only in what nobody can see give the same sample for the
    same rng, so a search or bot cannot learn the truth from the sample."""
    game = ChocolatesGame(num_players=2)
    s = midgame(game)
    lookalike = game.determinize(s, 0, random.Random(1))
    assert lookalike != s
    a = game.determinize(s, 0, random.Random(2))
    b = game.determinize(lookalike, 0, random.Random(2))
    assert a == b
