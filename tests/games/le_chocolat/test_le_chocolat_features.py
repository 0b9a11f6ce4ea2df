"""Le Chocolat's feature function ``le_chocolat_pieces``: the chunks each action hands out
and what claiming them changes in each seat's lead, read from the seat's own observation
only, equal to the rules' scalar scoring, the same from ``flat`` and ``planes``."""

from __future__ import annotations

import random

import numpy as np
import pytest

from choco_envs.core.errors import ConfigError
from choco_envs.games.le_chocolat import LeChocolatGame, LeChocolatState, grid
from choco_envs.games.le_chocolat import features as features_module
from choco_envs.games.le_chocolat.features import BLOCK, PIECE_FACTS, PIECES, chunks_seen
from choco_envs.games.le_chocolat.rules import (
    CLAIM_LIMIT,
    NUM_ACTIONS,
    NUM_SPLIT_ACTIONS,
    score_hand,
)

from .helpers import fresh

N = grid.CELLS
K = len(PIECE_FACTS)


def states(game: LeChocolatGame, games: int, seed: int) -> list[tuple[LeChocolatState, int]]:
    """Every position of ``games`` random games, with the seat to move."""
    rng = random.Random(seed)
    out = []
    for g in range(games):
        s = fresh(game, seed * 1000 + g)
        while not game.is_over(s):
            out.append((s.copy(), game.current_player(s)))
            game.apply(s, rng.choice(game.legal_actions(s)), rng)
    return out


def features_of(game: LeChocolatGame, encoder: str, s: LeChocolatState, seat: int) -> np.ndarray:
    obs = game.encoder(encoder).encode(s, seat)
    return PIECES.build(game, encoder).compute(obs[None])[0].reshape(NUM_ACTIONS, BLOCK)


def lead(card, me, them) -> float:
    return sum(score_hand(card, me, them)) - sum(score_hand(card, them, me))


def gain(card, claimer, other, piece) -> float:
    """What adding ``piece`` to the claimer's hand changes in its lead, by ``score_hand``."""
    after = [a + b for a, b in zip(claimer, piece, strict=True)]
    return lead(card, after, other) - lead(card, claimer, other)


def expected_facts(game: LeChocolatGame, s: LeChocolatState, seat: int, rect: int) -> list[float]:
    """A piece's facts worked out by hand from the state and what ``seat`` knows of it:
    its tiles face up count as their flavors, the blank faces at the average of the tiles
    the seat has not seen (``rules.unseen``); the lead gains by ``score_hand``."""
    card = game.card(s)
    f = len(game.components.flavors)
    mine = game.hand_counts(s, seat)
    theirs = [0.0] * f
    opp_unknown = 0
    for c in range(N):
        if s.owner[c] == 1 - seat:
            if s.up[c]:
                theirs[s.flavor[c]] += 1
            else:
                opp_unknown += 1
    _, pool = game.unseen(s, seat)
    average = [pool.count(x) / len(pool) for x in range(f)] if pool else [0.0] * f
    theirs_exp = [t + opp_unknown * a for t, a in zip(theirs, average, strict=True)]
    cells = grid.RECT_CELLS[rect]
    known = [0.0] * f
    for c in cells:
        if s.up[c]:
            known[s.flavor[c]] += 1
    unknown = sum(not s.up[c] for c in cells)
    exp = [k + unknown * a for k, a in zip(known, average, strict=True)]
    return [
        len(cells) / N,
        float(len(cells) <= CLAIM_LIMIT),
        unknown / 3,
        gain(card, mine, theirs, known) / 10,
        gain(card, theirs, mine, known) / 10,
        gain(card, mine, theirs_exp, exp) / 10,
        gain(card, theirs_exp, mine, exp) / 10,
    ]


@pytest.mark.parametrize("card", [0, 2, 4])
def test_the_chunks_read_from_the_planes_are_the_tables_chunks(card: int) -> None:
    """``chunks_seen`` rebuilds each chunk (which rectangle, not only its size and corner:
    a 2x6 and a 3x4 chunk both hold 12 tiles) from the chunk_size and chunk_top_left
    planes, equal to the state's ``chunk_at`` at every step of random games."""
    game = LeChocolatGame(scoring_card=card)
    lay = game.encoder("flat").layout
    checked = 0
    for s, seat in states(game, 12, seed=card):
        obs = game.encoder("flat").encode(s, seat)
        size = np.rint(obs[lay["chunk_size"]] * N)
        top = obs[lay["chunk_top_left"]] > 0.5
        assert chunks_seen(size, top).tolist() == s.chunk_at
        checked += 1
    assert checked > 200


def test_the_remembered_tilings_are_the_search_answers_for_exactly_those_planes() -> None:
    """``chunks_seen`` remembers its answers by the planes (a search meets the same table
    again and again): the same size plane with other top-left tiles is another table (two
    upright 2-tile chunks, or two lying ones, over the same 2x2 tiles) and gets its own
    answer, every answer equals the tiling search's and cannot be written through."""
    size = np.zeros(N)
    size[[0, 1, 7, 8]] = 2
    upright = np.zeros(N, dtype=bool)
    upright[[0, 1]] = True
    lying = np.zeros(N, dtype=bool)
    lying[[0, 7]] = True
    for _ in range(2):
        for top in (upright, lying):
            answer = chunks_seen(size, top)
            assert answer.tolist() == features_module._tiling(size, top).tolist()
            with pytest.raises(ValueError):
                answer[0] = -1
    assert chunks_seen(size, upright).tolist() != chunks_seen(size, lying).tolist()
    assert sorted(grid.RECT_CELLS[int(chunks_seen(size, upright)[0])]) == [0, 7]
    assert sorted(grid.RECT_CELLS[int(chunks_seen(size, lying)[0])]) == [0, 1]


def test_planes_that_tile_the_table_no_way_are_refused() -> None:
    size = np.zeros(N)
    size[:2] = 2
    top = np.zeros(N, dtype=bool)  # a 2-tile chunk without a top-left tile
    with pytest.raises(ConfigError, match="fit 0 tilings"):
        chunks_seen(size, top)


@pytest.mark.parametrize("seed", [1, 2])
def test_each_actions_facts_are_the_rules_scoring_of_its_pieces(seed: int) -> None:
    """Final Scoring, by the rules' ``score_hand`` (per tile, sets, strict majority): for a
    claim (Claim: "Take a chunk of 3 or fewer tiles") its chunk, for a split (Split:
    "Divide a chunk into 2 smaller chunks along a straight line") each of its two pieces,
    the claimer's lead change counting the tiles the seat knows, and with every unseen back
    at the average of the tiles it has not seen."""
    game = LeChocolatGame(scoring_card=seed)
    checked = 0
    for s, seat in states(game, 3, seed)[::4]:
        facts = features_of(game, "flat", s, seat)

        def expected(rect: int, s: LeChocolatState = s, seat: int = seat) -> list[float]:
            return expected_facts(game, s, seat, rect)

        for cell, rect in enumerate(s.chunk_at):
            if rect < 0:
                continue
            claim = facts[NUM_SPLIT_ACTIONS + cell]
            if grid.SIZE[rect] <= CLAIM_LIMIT:
                assert claim[:2].tolist() == [0.0, 1.0]
                np.testing.assert_allclose(claim[2 : 2 + K], expected(rect), atol=1e-5)
            else:
                assert not claim.any()
            for line in range(grid.LINES):
                split = facts[cell * grid.LINES + line]
                parts = grid.CUT[rect][line]
                if parts is None:
                    assert not split.any()
                    continue
                assert split[:2].tolist() == [1.0, 0.0]
                np.testing.assert_allclose(split[2 : 2 + K], expected(parts[0]), atol=1e-5)
                np.testing.assert_allclose(split[2 + K :], expected(parts[1]), atol=1e-5)
                checked += 1
        # actions at cells where no chunk starts hand out nothing
        empty = [c for c in range(N) if s.chunk_at[c] < 0]
        assert not facts[NUM_SPLIT_ACTIONS + np.array(empty, dtype=int)].any()
    assert checked > 100


def test_flat_and_planes_give_the_same_features() -> None:
    game = LeChocolatGame(scoring_card=3)
    for s, seat in states(game, 2, seed=5)[::3]:
        np.testing.assert_array_equal(
            features_of(game, "flat", s, seat), features_of(game, "planes", s, seat)
        )


def test_the_features_do_not_see_what_the_seat_has_not_seen() -> None:
    """Hidden information: the features of a seat are unchanged when every tile it has not
    seen (blank faces on the table and in the opponent's hand, the boxed tile) is
    resampled by ``determinize``, and they change when a tile it has seen does."""
    game = LeChocolatGame(scoring_card=0)
    rng = random.Random(9)
    for s, seat in states(game, 2, seed=7)[::5]:
        base = features_of(game, "planes", s, seat)
        for _ in range(3):
            other = game.determinize(s, seat, rng)
            np.testing.assert_array_equal(features_of(game, "planes", other, seat), base)
    s, seat = states(game, 1, seed=8)[0]
    face_up = next(c for c in range(N) if s.up[c])
    changed = s.copy()
    changed.flavor[face_up] = (s.flavor[face_up] + 1) % len(game.components.flavors)
    assert not np.array_equal(
        features_of(game, "flat", changed, seat), features_of(game, "flat", s, seat)
    )


def test_the_features_refuse_another_game_or_observation() -> None:
    from choco_envs.registry import make_game

    with pytest.raises(ConfigError, match="le_chocolat_pieces reads le_chocolat_v0"):
        PIECES.build(make_game("chocolates_v0"), "flat")
    with pytest.raises(ConfigError, match="not le_chocolat_v0's 'nope'"):
        PIECES.build(LeChocolatGame(), "nope")


def test_each_action_has_one_declared_block_for_the_fact_head() -> None:
    features = PIECES.build(LeChocolatGame(), "planes")
    assert features.size == NUM_ACTIONS * BLOCK
    assert features.action_facts == ((0, NUM_ACTIONS, "actions"),)
