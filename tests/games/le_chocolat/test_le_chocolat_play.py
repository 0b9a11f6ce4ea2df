"""Le Chocolat records, the AEC env and the greedy bot."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

import choco_envs
from choco_envs.core.errors import RecordError
from choco_envs.games.le_chocolat import LeChocolatGame
from choco_envs.games.le_chocolat.greedy import greedy_action

from .helpers import claim, fresh, place_face_up, play, split, table, vertical


@pytest.fixture
def game() -> LeChocolatGame:
    return LeChocolatGame(scoring_card=0)


def test_record_round_trip_mid_game(game: LeChocolatGame) -> None:
    """A saved state is plain JSON and loads back equal, hidden sides included."""
    rng = random.Random(2)
    s = fresh(game, 2)
    for _ in range(15):
        game.apply(s, rng.choice(game.legal_actions(s)), rng)
    record = json.loads(json.dumps(game.to_json(s)))
    assert game.from_json(record) == s


def other_flavor(tile: dict) -> str:
    return "almond" if tile["flavor"] != "almond" else "cashew"


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda r: r["tiles"][0].update(flavor="walnut"), "walnut"),
        (lambda r: r["tiles"][0].update(owner=3), "owner"),
        (lambda r: r.update(card="no such card"), "no such card"),
        (lambda r: r.update(phase="dessert"), "dessert"),
        (lambda r: r["chunks"].append({"top_left": "a1", "rows": 1, "cols": 1}), "chunks"),
        (lambda r: r["chunks"][0].update(rows=9), "does not fit"),
        (
            lambda r: r["tiles"][0].update(flavor=other_flavor(r["tiles"][0]), face_up="blank"),
            "tile set",
        ),
        (lambda r: r.update(phase="claim"), "claim"),
    ],
)
def test_malformed_records_name_the_bad_field(game: LeChocolatGame, change, named: str) -> None:
    """A malformed record raises RecordError naming what is wrong."""
    record = game.to_json(fresh(game, 1))
    change(record)
    with pytest.raises(RecordError, match=named):
        game.from_json(record)


def test_env_claim_is_a_second_step_by_the_same_agent() -> None:
    """Issue 4: "a split is one action ... and the claim is a second step by the same agent
    when there is a choice"; the other agent's mask is all zeros."""
    env = choco_envs.make("le_chocolat_v0", scoring_card=0)
    env.reset(seed=0)
    env.step(split("a1", vertical("f")))
    assert env.agent_selection == "player_1"
    env.step(split("g1", 7))  # g1: 2 tiles, g3: 3 tiles
    assert env.agent_selection == "player_1"
    mask = env.observe("player_1")["action_mask"]
    assert np.flatnonzero(mask).tolist() == [claim("g1"), claim("g3")]
    assert not env.observe("player_0")["action_mask"].any()
    env.step(claim("g3"))
    assert env.agent_selection == "player_0"


def test_greedy_claims_the_best_chunk_by_the_card(game: LeChocolatGame) -> None:
    """The greedy bot "claims the best chunk for itself by the scoring card": with three
    small chunks, of face-up pistachios (-2 each), cashews (+2 each) and almonds
    (+1 each), it takes the cashews."""
    s = table(game, [("a1", 1, 4), ("a2", 1, 2)])
    tiles = {"a1": "pistachio", "b1": "pistachio", "c1": "cashew", "d1": "cashew"}
    place_face_up(game, s, {**tiles, "a2": "almond", "b2": "almond"})
    play(game, s, split("a1", vertical("b")))
    assert greedy_action(game, game.determinize(s, 0, random.Random(0)), random.Random(0)) == claim(
        "c1"
    )


def test_greedy_ignores_what_its_seat_cannot_see(game: LeChocolatGame) -> None:
    """Bots never see hidden information: two determinizations from the bot's own view
    give the same choice under the same random stream."""
    rng = random.Random(3)
    s = fresh(game, 3)
    for _ in range(12):
        game.apply(s, rng.choice(game.legal_actions(s)), rng)
    seat = s.player
    choices = {
        greedy_action(game, game.determinize(s, seat, random.Random(k)), random.Random(0))
        for k in range(5)
    }
    assert len(choices) == 1 and choices <= set(game.legal_actions(s))


def test_greedy_beats_random_in_80_percent_of_games() -> None:
    """The greedy bot must beat a uniformly random player in at least 80% of games, seats
    alternating and scoring cards drawn at random."""
    game = LeChocolatGame()
    wins = 0
    for g in range(40):
        rng = random.Random(g)
        s, bot = game.new_state(rng), g % 2
        while not game.is_over(s):
            if s.player == bot:
                action = greedy_action(game, game.determinize(s, bot, rng), rng)
            else:
                action = rng.choice(game.legal_actions(s))
            game.apply(s, action, rng)
        wins += game.returns(s)[bot] > 0
    assert wins >= 32
