"""Le Chocolat setup, splits and claims, checked against the rulebook and the rulings in docs/games/le_chocolat.md."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from choco_envs.core.errors import IllegalActionError
from choco_envs.games.le_chocolat import LeChocolatGame, grid
from choco_envs.games.le_chocolat.rules import CLAIM, OVER, SPLIT

from .helpers import CELL, claim, fresh, horizontal, play, split, table, vertical


@pytest.fixture
def game() -> LeChocolatGame:
    return LeChocolatGame(scoring_card=0)


def test_setup_random_sides_one_tile_boxed_7x5_grid(game: LeChocolatGame) -> None:
    """Setup: "Flip some of them over so each tile starts with a random side up. Return 1
    random tile to the box... Randomly arrange the tiles in a 7x5 grid"."""
    up_counts = Counter()
    boxed = Counter()
    for seed in range(200):
        s = fresh(game, seed)
        assert Counter(s.flavor + [s.box_flavor]) == Counter(game.components.tile_flavors())
        assert s.chunk_at[0] == grid.FULL and sum(r >= 0 for r in s.chunk_at) == 1
        assert all(not up for f, up in zip(s.flavor, s.up, strict=True) if f < 0), (
            "blank/blank has no flavor side"
        )
        up_counts.update(up for f, up in zip(s.flavor, s.up, strict=True) if f >= 0)
        boxed[s.box_flavor] += 1
        assert s.player == 0 and s.phase == SPLIT
    assert 0.4 < up_counts[True] / sum(up_counts.values()) < 0.6
    assert len(boxed) == 7, "any tile, blank/blank included, may go back to the box"


def test_scoring_card_drawn_at_random_by_default() -> None:
    """Setup 5: "Place 1 random scoring card faceup between the players"."""
    game = LeChocolatGame()
    drawn = {fresh(game, seed).card for seed in range(100)}
    assert drawn == set(range(10))


def test_first_split_cuts_the_grid_along_any_full_line(game: LeChocolatGame) -> None:
    """How to Play A: "splitting the chocolate tiles into 2 chunks. They may split along any
    straight line between tiles": 6 vertical and 4 horizontal lines, nothing else."""
    s = fresh(game)
    assert game.legal_actions(s) == [split("a1", line) for line in range(10)]
    assert np.flatnonzero(game.legal_mask(s)).tolist() == game.legal_actions(s)
    play(game, s, split("a1", vertical("c")))
    assert grid.RECTS[s.chunk_at[CELL["a1"]]] == (0, 0, 5, 3)
    assert grid.RECTS[s.chunk_at[CELL["d1"]]] == (0, 3, 5, 4)
    assert s.player == 1 and s.phase == SPLIT, "no chunk of 3 or fewer: nothing to claim"


def test_only_lines_through_a_chunk_are_legal(game: LeChocolatGame) -> None:
    """How to Play B: "chooses a chunk and splits it along any straight line to make 2
    smaller chunks": a line outside the chunk, or a cell that is no chunk's corner, is
    refused and changes nothing."""
    s = play(game, fresh(game), split("a1", horizontal(2)))  # a1 7x2, a3 7x3
    legal = set(game.legal_actions(s))
    assert split("a1", horizontal(1)) in legal and split("a3", horizontal(3)) in legal
    refusals = [
        (split("a1", horizontal(3)), "the horizontal line between rows 3 and 4 does not cut"),
        (split("a3", horizontal(1)), "the horizontal line between rows 1 and 2 does not cut"),
        (split("b1", 0), "no chunk has its top-left tile at b1"),
        (split("g5", 0), "no chunk has its top-left tile at g5"),
    ]
    for bad, reason in refusals:
        assert bad not in legal
        before = s.copy()
        with pytest.raises(IllegalActionError, match=rf"action {bad} .*{reason}"):
            game.apply(s, bad, random.Random(0))
        assert s == before


def test_a_single_small_chunk_is_claimed_at_once(game: LeChocolatGame) -> None:
    """Claiming C: "If there is a chunk of 3 or fewer tiles left at the end of a player's
    turn, they must claim all tiles in that chunk." With one such chunk there is no choice,
    so the claim is made with the split (docs: one small chunk is claimed automatically)."""
    s = play(game, fresh(game), split("a1", horizontal(1)), split("a1", vertical("c")))
    assert [s.owner[CELL[c]] for c in ("a1", "b1", "c1")] == [1, 1, 1]
    assert s.claimed == [0, 3] and s.chunk_at[CELL["a1"]] == -1
    assert s.player == 0 and s.phase == SPLIT


def test_several_small_chunks_the_splitter_claims_exactly_one(game: LeChocolatGame) -> None:
    """Claiming Chocolate: "You can only claim 1 chunk of 3 or fewer tiles at the end of
    your turn. If there are multiple chunks you could claim, choose 1 and leave the
    others." The claim is a second step by the same seat; the mask holds exactly them."""
    s = play(game, fresh(game), split("a1", vertical("f")))  # a1 6x5, g1 1x5
    play(game, s, split("g1", horizontal(2)))  # g1: 2 tiles, g3: 3 tiles
    assert s.player == 1 and s.phase == CLAIM
    assert game.legal_actions(s) == [claim("g1"), claim("g3")]
    assert np.flatnonzero(game.legal_mask(s)).tolist() == [claim("g1"), claim("g3")]
    for bad, reason in (
        (split("a1", 0), "the split is done"),
        (claim("a1"), "that chunk has 30 tiles; only 3 or fewer"),
        (claim("b1"), "no chunk has its top-left tile at b1"),
    ):
        before = s.copy()
        with pytest.raises(IllegalActionError, match=reason):
            game.apply(s, bad, random.Random(0))
        assert s == before
    play(game, s, claim("g1"))
    assert s.claimed == [0, 2] and s.chunk_at[CELL["g3"]] >= 0, "the other chunk stays"
    assert s.player == 0 and s.phase == SPLIT


def test_split_stays_compulsory_with_a_small_chunk_on_the_table(game: LeChocolatGame) -> None:
    """the rulings in docs/games/le_chocolat.md: "The split stays compulsory even when a chunk of 3 or fewer already lies
    on the table." The next seat splits first, then claims one of all the small chunks."""
    s = play(game, fresh(game), split("a1", vertical("f")), split("g1", horizontal(2)), claim("g1"))
    legal = game.legal_actions(s)
    assert claim("g3") not in legal and all(a < 350 for a in legal)
    assert split("g3", horizontal(3)) in legal
    with pytest.raises(IllegalActionError, match="a turn starts with a split"):
        game.apply(s, claim("g3"), random.Random(0))
    play(game, s, split("a1", horizontal(4)))  # a5: 6 tiles; nothing new is small
    assert s.owner[CELL["g3"]] == 0, "g3 was the only small chunk: seat 0 claimed it"
    assert s.claimed == [3, 2] and s.player == 1 and s.phase == SPLIT


def test_a_split_can_leave_several_small_chunks(game: LeChocolatGame) -> None:
    """Claiming Chocolate: "choose 1 and leave the others": a split making two small
    chunks while a third lies on the table offers all three."""
    s = table(game, [("a1", 1, 4), ("a2", 1, 2)])
    play(game, s, split("a1", vertical("b")))  # a1 1x2, c1 1x2, a2 1x2 all small
    assert game.legal_actions(s) == [claim("a1"), claim("c1"), claim("a2")]
    play(game, s, claim("c1"))
    assert s.chunk_at[CELL["a1"]] >= 0 and s.chunk_at[CELL["a2"]] >= 0
    assert s.player == 1 and s.phase == SPLIT


def test_turn_with_no_split_is_only_the_claim(game: LeChocolatGame) -> None:
    """the rulings in docs/games/le_chocolat.md: "Every turn begins with exactly one split while some chunk has 2 or more
    tiles; when none has, the turn is only the claim." The last single tile is claimed at
    once, and the game ends: "Players continue ... until all chocolate has been claimed"."""
    s = table(game, [("a1", 1, 2), ("c1", 1, 1)])
    assert game.legal_actions(s) == [split("a1", vertical("a"))]
    play(game, s, split("a1", vertical("a")))
    assert game.legal_actions(s) == [claim("a1"), claim("b1"), claim("c1")]
    play(game, s, claim("a1"))
    assert s.player == 1 and s.phase == CLAIM
    assert game.legal_actions(s) == [claim("b1"), claim("c1")]
    play(game, s, claim("b1"))
    assert s.phase == OVER and s.player == -1 and s.owner[CELL["c1"]] == 0
    assert not game.legal_mask(s).any()
    with pytest.raises(IllegalActionError, match="over"):
        game.apply(s, claim("c1"), random.Random(0))


def test_random_games_claim_every_tile_within_max_steps(game: LeChocolatGame) -> None:
    """Game End: "When all chocolate tiles have been claimed"; 34 splits and 35 claims at
    most. Every chunk stays a rectangle and the chunks cover exactly the unclaimed tiles."""
    rng = random.Random(5)
    for _ in range(50):
        s, steps = fresh(game, rng.randrange(10**6)), 0
        while not game.is_over(s):
            covered = sorted(c for r in s.chunk_at if r >= 0 for c in grid.RECT_CELLS[r])
            assert covered == [c for c in range(35) if s.owner[c] == -1]
            legal = game.legal_actions(s)
            assert np.flatnonzero(game.legal_mask(s)).tolist() == legal
            game.apply(s, rng.choice(legal), rng)
            steps += 1
        assert steps <= game.max_steps == 69
        assert sum(s.claimed) == 35 and -1 not in s.owner
