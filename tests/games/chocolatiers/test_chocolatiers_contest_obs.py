"""Chocolatiers ``"contest"`` observation: the ``"derived"`` fields, then what the tuned
greedy settings weigh (``ContestFeatures`` in ``choco_envs/games/chocolatiers/derived.py``),
checked against the rules' own group count on played positions.

The rule behind ``place_lead`` and ``wild_lead``: "A Score tile for a type goes to the
single player with the largest connected group of it; a tie for the largest means
nobody" (docs/games/chocolatiers.md; seed 000 "Scoring")."""

from __future__ import annotations

import random

import numpy as np
import pytest

from choco_envs.games.chocolatiers import ChocolatiersGame
from choco_envs.games.chocolatiers.greedy import STRONG, _best_take, _Weights, greedy_action
from choco_envs.games.chocolatiers.greedy import score_tile_lead as greedy_lead
from choco_envs.games.chocolatiers.rules import (
    CHOOSE,
    EMPTY,
    NT,
    PLACE,
    PLACE_TILE,
    SLOT_SPACES,
    TAKE,
    WILD,
    largest_groups,
)

EDITIONS = ("standard", "classic")


def positions(edition: str, players: int = 2, games: int = 8, seed: int = 1):
    game = ChocolatiersGame(edition=edition, num_players=players)
    rng = random.Random(seed)
    for _ in range(games):
        s = game.new_state(rng)
        while not game.is_over(s):
            yield game, s
            a = (
                greedy_action(game, s, rng, **STRONG)
                if rng.random() < 0.6
                else rng.choice(game.legal_actions(s))
            )
            game.apply(s, a, rng)


def fields(game: ChocolatiersGame, s, player: int) -> dict[str, np.ndarray]:
    enc = game.encoder("contest")
    obs = enc.encode(s, player)
    return {f.name: obs[f.start : f.stop] for f in enc.layout.fields}


@pytest.mark.parametrize("edition", EDITIONS)
def test_contest_starts_with_the_derived_observation(edition: str) -> None:
    """A policy on ``"derived"`` can be widened to ``"contest"``: its first fields are
    ``"derived"``'s, value for value."""
    game = ChocolatiersGame(edition=edition, num_players=3)
    derived, contest = game.encoder("derived"), game.encoder("contest")
    assert contest.shape[0] == derived.shape[0] + 36 + 36 + NT
    for k, (_g, s) in enumerate(positions(edition, players=3, games=2)):
        if k % 5 == 0:
            p = k % 3
            short = derived.encode(s, p)
            np.testing.assert_array_equal(contest.encode(s, p)[: short.shape[0]], short)


@pytest.mark.parametrize("edition", EDITIONS)
def test_place_lead_is_the_score_tile_change_of_each_placement(edition: str) -> None:
    checked = 0
    for game, s in positions(edition):
        if s.phase != PLACE_TILE:
            continue
        p = s.player
        legal = game.legal_actions(s)
        got = fields(game, s, p)["place_lead"]
        cells = s.cells[p * 36 : p * 36 + 36]
        now = greedy_lead(game, s, p, largest_groups(cells))
        for code in range(36):
            if PLACE + code not in legal:
                assert got[code] == 0
                continue
            slot, rot = divmod(code, 4)
            trial = cells[:]
            for space, v in zip(SLOT_SPACES[slot], game.rotated[s.pending][rot], strict=True):
                trial[space] = v
            change = greedy_lead(game, s, p, largest_groups(trial)) - now
            assert got[code] == pytest.approx(max(-1.0, min(1.0, change / 10)))
        assert not fields(game, s, 1 - p)["place_lead"].any()
        checked += 1
    assert checked > 20


@pytest.mark.parametrize("edition", EDITIONS)
def test_wild_lead_is_the_score_tile_change_of_a_wild(edition: str) -> None:
    checked = nonzero = 0
    for game, s in positions(edition, games=4):
        p = s.player
        cells = s.cells[p * 36 : p * 36 + 36]
        now = greedy_lead(game, s, p, largest_groups(cells))
        got = fields(game, s, p)["wild_lead"]
        for i, v in enumerate(cells):
            if not EMPTY <= v < WILD:
                assert got[i] == 0
                continue
            trial = cells[:]
            trial[i] = WILD
            change = greedy_lead(game, s, p, largest_groups(trial)) - now
            assert got[i] == pytest.approx(max(-1.0, min(1.0, change / 10)))
            checked += 1
            nonzero += change != 0
    assert checked > 300 and nonzero > 10


@pytest.mark.parametrize("edition", EDITIONS)
def test_take_gain_strong_ranks_takes_as_the_tuned_bot_does(edition: str) -> None:
    w = _Weights(STRONG["used_cost"], STRONG["missing_cost"], 0.0, 0.0)
    checked = 0
    for game, s in positions(edition):
        if s.phase != CHOOSE:
            continue
        takes = [a for a in game.legal_actions(s) if TAKE <= a < TAKE + NT]
        if len(takes) < 2:
            continue
        gain = fields(game, s, s.player)["take_gain_strong"]
        best = max(gain[a - TAKE] for a in takes)
        if best < 1.0:
            assert gain[_best_take(game, s, takes, w) - TAKE] == pytest.approx(best)
            checked += 1
    assert checked > 50


def test_contest_fields_read_only_public_facts_and_own_hand() -> None:
    """The other seat's dealt cards (private) never change the fields: resampling them
    (``determinize`` from this seat's view) leaves the observation as it was."""
    game = ChocolatiersGame(edition="standard", num_players=2)
    enc = game.encoder("contest")
    rng = random.Random(5)
    checked = 0
    for k, (_g, s) in enumerate(positions("standard", games=3)):
        if k % 7:
            continue
        p = s.player
        d = game.determinize(s, p, rng)
        np.testing.assert_array_equal(enc.encode(d, p), enc.encode(s, p))
        checked += 1
    assert checked > 10


def test_action_fields_line_up_with_the_actions_they_score() -> None:
    """``action_fields``: each per-action field's entry i belongs to action first+i: the
    6 card types to the takes, the 36 Sampler spaces to the wild placements, the 36
    slot x rotation codes to the tile placements."""
    from choco_envs.games.chocolatiers.rules import (
        K_TAKE,
        K_WILD,
        LEGAL_SLOTS,
        NUM_ACTIONS,
        PLACE_WILD,
        _kind_of,
    )

    game = ChocolatiersGame(edition="classic", num_players=2)
    sizes = {f.name: f.stop - f.start for f in game.encoder("contest").layout.fields}
    fields = game.encoder("contest").action_fields
    assert game.encoder("derived").action_fields.items() <= fields.items()
    assert fields == {
        "take_gain": TAKE, "wild_gain": PLACE_WILD, "place_gain": PLACE,
        "place_lead": PLACE, "wild_lead": PLACE_WILD, "take_gain_strong": TAKE,
    }  # fmt: skip
    assert sizes["take_gain"] == sizes["take_gain_strong"] == NT
    assert [_kind_of(TAKE + t) for t in range(NT)] == [(K_TAKE, t) for t in range(NT)]
    assert sizes["wild_gain"] == sizes["wild_lead"] == 36
    assert [_kind_of(PLACE_WILD + i) for i in range(36)] == [(K_WILD, i) for i in range(36)]
    assert sizes["place_gain"] == sizes["place_lead"] == 36 and PLACE + 36 <= NUM_ACTIONS
    s = game.new_state(random.Random(0))  # one tile placed: every slot x rotation code
    s.phase, s.pending, s.occ[s.player] = PLACE_TILE, s.display[0], 1 << 4
    codes = [4 * slot + r for slot in LEGAL_SLOTS[1 << 4] for r in range(4)]
    assert [a - PLACE for a in game.legal_actions(s)] == codes
