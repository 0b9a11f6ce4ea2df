"""The game protocol contract (choco_envs/core/game.py), checked on the raw rules API for
every registered configuration: masks, exact legality, game length, scores and returns,
hidden information, records."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from choco_envs.core.errors import IllegalActionError, RecordError
from choco_envs.core.outcomes import rank_returns
from choco_envs.registry import make_game

from .conftest import EXACT_MASK_GAMES, RANDOM_GAMES


def play_random(game: Any, seed: int) -> Iterator[Any]:
    """Yield every non-terminal state of one random game (the same object, mutated), then
    the final state."""
    rng = random.Random(seed)
    s = game.new_state(rng)
    steps = 0
    while not game.is_over(s):
        yield s
        legal = game.legal_actions(s)
        game.apply(s, rng.choice(legal), rng)
        steps += 1
        assert steps <= game.max_steps, f"game longer than declared max_steps={game.max_steps}"
    yield s


def sample_positions(game: Any, games: int, per_game: int, seed: int) -> list[Any]:
    """Copies of states sampled along random games (start, middle, near the end)."""
    picked = []
    for g in range(games):
        states = [game.copy(s) for s in play_random(game, seed + g)]
        live = states[:-1]
        if not live:
            continue
        idx = sorted(
            {0, len(live) // 2, len(live) - 1}
            | {random.Random(seed * 31 + g).randrange(len(live)) for _ in range(per_game)}
        )
        picked.extend(live[i] for i in idx)
    return picked


def test_random_games_masks_length_and_outcome(configuration: tuple[str, dict]) -> None:
    """Random games: the mask of the seat to act is never empty, legal_actions is exactly
    the mask, the game ends within max_steps, and returns follow the ranking of scores."""
    env_id, config = configuration
    game = make_game(env_id, **config)
    for g in range(RANDOM_GAMES):
        final = None
        for s in play_random(game, seed=1000 + g):
            final = s
            if game.is_over(s):
                break
            p = game.current_player(s)
            assert 0 <= p < game.num_players
            mask = game.legal_mask(s)
            assert mask.dtype == np.bool_ and mask.shape == (game.num_actions,)
            assert mask.any(), f"empty mask for player {p}"
            assert game.legal_actions(s) == np.flatnonzero(mask).tolist()
        assert final is not None and game.is_over(final)
        assert game.current_player(final) == -1
        assert not game.legal_mask(final).any(), "mask must be all False at the end"
        scores = game.scores(final)
        assert len(scores) == game.num_players
        returns = game.returns(final)
        assert returns == rank_returns(
            [game.ranking_key(final, p) for p in range(game.num_players)]
        )
        assert all(-1.0 <= r <= 1.0 for r in returns)
        best = max(range(game.num_players), key=lambda p: game.ranking_key(final, p))
        assert scores[best] == max(scores), "the winner must have the highest score"
        breakdown = game.score_breakdown(final)
        assert set(map(len, breakdown.values())) == {game.num_players}


@pytest.mark.slow
def test_many_random_games(configuration: tuple[str, dict]) -> None:
    """Ten times the default number of random games (run with `-m slow`)."""
    env_id, config = configuration
    game = make_game(env_id, **config)
    for g in range(RANDOM_GAMES * 10):
        for s in play_random(game, seed=50_000 + g):
            if not game.is_over(s):
                assert game.legal_mask(s).any()


def test_mask_equals_what_the_rules_accept(configuration: tuple[str, dict]) -> None:
    """At every step of a few games, try every action on a copy: ``apply`` accepts exactly
    the actions the mask allows, and a refused action changes nothing."""
    env_id, config = configuration
    game = make_game(env_id, **config)
    pick = random.Random(99)
    for g in range(EXACT_MASK_GAMES):
        for s in play_random(game, seed=2000 + g):
            if game.is_over(s):
                break
            mask = game.legal_mask(s)
            before = game.to_json(s)
            refused = []
            for a in range(game.num_actions):
                trial = game.copy(s)
                try:
                    game.apply(trial, a, random.Random(a))
                    accepted = True
                except IllegalActionError as err:
                    accepted = False
                    refused.append(trial)
                    assert str(a) in str(err), "the error must name the action"
                assert accepted == bool(mask[a]), (
                    f"action {a} ({game.action_to_string(s, a)}): mask says {bool(mask[a])}, "
                    f"rules {'accept' if accepted else 'refuse'} it"
                )
            # a refused action changes nothing (checked on a sample: records are costly)
            for trial in pick.sample(refused, min(3, len(refused))):
                assert game.to_json(trial) == before, "a refused action changed the state"
            assert game.to_json(s) == before, "copy is not independent"


def test_out_of_range_and_non_int_actions_are_refused(configuration: tuple[str, dict]) -> None:
    """Bad input is never silently accepted: out-of-range and non-integer actions raise."""
    env_id, config = configuration
    game = make_game(env_id, **config)
    s = game.new_state(random.Random(0))
    before = json.dumps(game.to_json(s), sort_keys=True)
    for bad in (-1, game.num_actions, 10**9, 1.5, "3", None, True):
        with pytest.raises(IllegalActionError):
            game.apply(s, bad, random.Random(0))
    assert json.dumps(game.to_json(s), sort_keys=True) == before


def test_determinize_hides_exactly_what_the_seat_cannot_see(
    configuration: tuple[str, dict],
) -> None:
    """For every seat and sampled position, a determinization from that seat's view gives
    the same observation (every encoder), the same text, and for the seat to act the same
    mask; it is an independent state that plays on to a legal end. Where the game hides
    anything, some determinizations differ from the truth."""
    env_id, config = configuration
    game = make_game(env_id, **config)
    rng = random.Random(7)
    differed = False
    for s in sample_positions(game, games=4, per_game=3, seed=3000):
        truth = json.dumps(game.to_json(s), sort_keys=True)
        for p in range(game.num_players):
            d = game.determinize(s, p, rng)
            assert d is not s
            for name, enc in game.encoders.items():
                np.testing.assert_array_equal(
                    enc.encode(d, p), enc.encode(s, p), err_msg=f"encoder {name}, seat {p}"
                )
            assert game.state_to_string(d, p) == game.state_to_string(s, p)
            assert game.state_to_string(d, None) == game.state_to_string(s, None)
            assert game.current_player(d) == game.current_player(s)
            if game.current_player(s) == p:
                np.testing.assert_array_equal(game.legal_mask(d), game.legal_mask(s))
            differed |= json.dumps(game.to_json(d), sort_keys=True) != truth
            # the determinization is a real state: it plays on to a legal end
            steps = 0
            while not game.is_over(d) and steps < 50:
                game.apply(d, rng.choice(game.legal_actions(d)), rng)
                steps += 1
            assert json.dumps(game.to_json(s), sort_keys=True) == truth, "determinize mutated s"
    if game.spec.hidden_information:
        assert differed, "determinize never resampled anything in a hidden-information game"


def test_determinize_depends_only_on_what_the_seat_knows(configuration: tuple[str, dict]) -> None:
    """determinize(s, p, rng) is a function of p's information and the rng alone: run on
    the truth or on another state p cannot tell from it, with the same rng seed, it gives
    the same sample. Otherwise a search bot could read the truth through its samples."""
    env_id, config = configuration
    game = make_game(env_id, **config)
    for i, s in enumerate(sample_positions(game, games=3, per_game=2, seed=3500)):
        for p in range(game.num_players):
            lookalike = game.determinize(s, p, random.Random(1000 + i))
            from_truth = game.determinize(s, p, random.Random(i))
            from_lookalike = game.determinize(lookalike, p, random.Random(i))
            assert game.to_json(from_truth) == game.to_json(from_lookalike), (
                f"seat {p}: the determinization depends on more than the seat can see"
            )


def test_observations_stay_in_their_bounds(configuration: tuple[str, dict]) -> None:
    """Every observation of every seat is finite, float32 and inside the declared bounds."""
    env_id, config = configuration
    game = make_game(env_id, **config)
    for s in sample_positions(game, games=3, per_game=4, seed=4000):
        for enc in game.encoders.values():
            for p in range(game.num_players):
                obs = enc.encode(s, p)
                assert obs.dtype == np.float32 and obs.shape == enc.shape
                assert np.isfinite(obs).all()
                bad = np.flatnonzero((obs < enc.low) | (obs > enc.high))
                if bad.size:
                    i = int(bad[0])
                    names = [
                        f.name
                        for f in enc.layout.fields
                        if f.start <= np.unravel_index(i, obs.shape)[0] < f.stop
                    ]
                    raise AssertionError(
                        f"{enc.name} entry {np.unravel_index(i, obs.shape)} ({names}) = "
                        f"{obs.flat[i]} outside [{enc.low.flat[i]}, {enc.high.flat[i]}]"
                    )


def test_json_round_trip_continues_identically(configuration: tuple[str, dict]) -> None:
    """from_json(to_json(s)) is plain JSON, gives the same record and observations, and the
    two states play on identically under the same random stream."""
    env_id, config = configuration
    game = make_game(env_id, **config)
    for i, s in enumerate(sample_positions(game, games=2, per_game=2, seed=5000)):
        record = json.loads(json.dumps(game.to_json(s)))
        t = game.from_json(record)
        assert json.dumps(game.to_json(t), sort_keys=True) == json.dumps(record, sort_keys=True)
        for p in range(game.num_players):
            np.testing.assert_array_equal(game.observe(t, p), game.observe(s, p))
        a_rng, b_rng = random.Random(i), random.Random(i)
        a, b = game.copy(s), t
        while not game.is_over(a):
            assert game.legal_actions(a) == game.legal_actions(b)
            action = a_rng.choice(game.legal_actions(a))
            b_rng.choice(game.legal_actions(b))
            game.apply(a, action, a_rng)
            game.apply(b, action, b_rng)
        assert game.is_over(b) and game.scores(a) == game.scores(b)


def test_malformed_state_records_are_refused(configuration: tuple[str, dict]) -> None:
    """A malformed saved state raises RecordError, never a crash deep inside the rules."""
    env_id, config = configuration
    game = make_game(env_id, **config)
    good = game.to_json(game.new_state(random.Random(0)))
    for bad in ([], "state", {}, {k: v for k, v in list(good.items())[1:]}):
        with pytest.raises(RecordError):
            game.from_json(bad)
